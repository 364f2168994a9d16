"""Domain adaptation (CIML ch. 8) and positive-unlabelled learning (CS229 PS1 Q2).

* :class:`SelectionAdaptation` / :func:`importance_weights` — unsupervised adaptation by importance
  weighting, CIML Alg. 23;
* :class:`EasyAdapt` / :func:`easy_adapt` — supervised adaptation by feature augmentation, Alg. 24,
  with the old-only / new-only / union baselines;
* :func:`domain_discrepancy` — d_A = 2 (acc - 0.5) of a domain separator (§8.5),
  :func:`total_variation_distance` (eq. 8.24), :func:`adaptation_bound` (Thm. 9);
* :class:`PULearning` — p(t=1|x) = p(y=1|x)/alpha with alpha estimated on held-out labelled data.

The fairness measures of CIML §8.4 (the 80 % rule) live in :mod:`replearn.evaluation.fairness`.
"""

from .discrepancy import (
    DiscrepancyEstimate,
    adaptation_bound,
    domain_discrepancy,
    total_variation_distance,
)
from .easyadapt import MODES, EasyAdapt, easy_adapt
from .pu import PULearning
from .selection import SelectionAdaptation, importance_weights

__all__ = [
    "MODES",
    "DiscrepancyEstimate",
    "EasyAdapt",
    "PULearning",
    "SelectionAdaptation",
    "adaptation_bound",
    "domain_discrepancy",
    "easy_adapt",
    "importance_weights",
    "total_variation_distance",
]
