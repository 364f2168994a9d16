"""Reproductions of the course texts' worked examples and figures, with replearn's own algorithms.

Each preset module (:data:`PRESETS`) has a ``run(data_dir, *, seed, quick=False) -> ExperimentResult``
registered in ``EXPERIMENTS`` under the module's name. ``data_dir`` is the directory of the vendored course
reference files (``data/reference/`` of the repository, see :func:`default_data_dir`); the synthetic
presets ignore it. Every result carries published-vs-measured :class:`Reproduction` records (see
:mod:`.record` for the tolerance convention), plot series (``curves``), small ``tables`` and
``notes`` naming the text and section. numpy/scipy only; deterministic for a given seed.

=====================  =============================================================================
preset                 reproduces
=====================  =============================================================================
cs229_housing          CS229 notes §1.1-1.2: Portland theta by normal equations, batch GD and SGD
cs229_logistic         CS229 PS1 Q1: Newton's method vs gradient ascent for logistic regression
cs229_lwr              CS229 notes §1.4 / PS1: locally weighted regression over a bandwidth sweep
cs229_spam             CS229 notes §4.2 / PS2: multinomial naive Bayes (Laplace) vs linear SVM on spam
ciml_course_ratings    CIML §1.3-1.5: decision tree on the course-ratings table (with its erratum)
bias_variance          CS229 notes §8.1: bias^2 + variance + noise = test error over polynomial degree
double_descent         CS229 notes §8.2 Fig. 8.11: min-norm least squares peak at n = d; tuned ridge
learning_curves        CIML §5.8-5.9: high-bias vs high-variance learning curves and diagnostics
perceptron_epochs      CIML ch. 4: vanilla / voted / averaged perceptron vs passes; Thm. 2 bound
kmeans_em              k-means distortion and EM log-likelihood per iteration (ex7data2, Old Faithful)
cs229_examples         CS229 notes and summaries: the worked examples that are a computation (kernels,
                       Hoeffding's n = 530, VC = 3, GDA's logistic posterior, ICA, the split example, ...)
cs229_control          CS229 Part V: the 4x3 world's V*, value iteration's contraction, LQR, Kalman, REINFORCE
cs229_figures          CS229 Figs. 8.10/8.12 (model-wise double descent), 9.2 (implicit regularization), §6.6
cs229_plots            CS229's redrawable figures: GD and coordinate-ascent paths, Gaussian and GDA contours,
                       Figs. 8.1-8.7 (the bias-variance running example), Fig. 10.1 (k-means iterations)
ciml_examples          CIML: 19 worked examples (distances, F-measure tables, t table, AdaBoost, Viterbi, ...)
ciml_figures           CIML Figs. 3.18, 4.4, 10.3 and 13.3
ciml_plots             CIML's other redrawable figures: Figs. 3.9-3.14, 5.14, 7.1-7.12, 13.2, 15.1-15.2, 16.1
cs480_examples         Waterloo CS480/680: spam table, perceptron on OR/XOR, kernels, XOR ReLU net, convolution
epfl_examples          EPFL CS-433: step sizes, one SVM dual coordinate step, test-set bounds, a kernel
epfl_project1          EPFL CS-433 project 1: the public grading tests' numbers by replearn.courses.epfl
=====================  =============================================================================

:mod:`.catalogue` lists the texts' 73 worked examples, tables and figures and what reproduces each;
:mod:`.page` writes the reproduction page (``python -m replearn reproductions``).
"""

from __future__ import annotations

import importlib

from ._data import default_data_dir
from .record import ExperimentResult, Reproduction

#: the presets, one module each, registered in :data:`EXPERIMENTS` under the module's name when it is imported.
#: Naming them needs no import (the configuration check lists them); running one imports them all.
PRESETS = (
    "bias_variance",
    "ciml_course_ratings",
    "ciml_examples",
    "ciml_figures",
    "ciml_plots",
    "cs229_control",
    "cs229_examples",
    "cs229_figures",
    "cs229_housing",
    "cs229_logistic",
    "cs229_lwr",
    "cs229_plots",
    "cs229_spam",
    "cs480_examples",
    "double_descent",
    "epfl_examples",
    "epfl_project1",
    "kmeans_em",
    "learning_curves",
    "perceptron_epochs",
)


def __getattr__(name: str):
    """``EXPERIMENTS``, the registry of every preset's ``run``: the preset modules are imported on first use."""
    if name != "EXPERIMENTS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for preset in PRESETS:
        importlib.import_module(f"{__name__}.{preset}")
    from .record import EXPERIMENTS

    globals()["EXPERIMENTS"] = EXPERIMENTS
    return EXPERIMENTS


def preset(name: str):
    """The ``run`` of preset ``name``, importing only that preset's module (a process that runs some presets of
    ``all`` imports only theirs); unknown names raise ``KeyError`` listing the presets."""
    if name not in PRESETS:
        raise KeyError(f"unknown reproduction {name!r}; available: {', '.join(sorted(PRESETS))}")
    importlib.import_module(f"{__name__}.{name}")
    from .record import EXPERIMENTS

    return EXPERIMENTS[name]


def run_experiment(name: str, data_dir=None, *, seed: int = 0, quick: bool = False) -> ExperimentResult:
    """Run preset ``name`` (data from ``data_dir``, default :func:`default_data_dir`)."""
    experiments = __getattr__("EXPERIMENTS")
    if name not in experiments:
        raise KeyError(f"unknown reproduction {name!r}; available: {', '.join(sorted(experiments))}")
    return experiments[name](default_data_dir() if data_dir is None else data_dir, seed=seed, quick=quick)


__all__ = ["EXPERIMENTS", "PRESETS", "ExperimentResult", "Reproduction", "default_data_dir", "preset", "run_experiment"]
