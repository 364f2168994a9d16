"""k-means and the Gaussian mixture (EM): distortion and log-likelihood per iteration.

Data: the course's k-means data (Coursera ML ex7, ``ex7data2``, 300 x 2) and Old Faithful (R's
``faithful``, 272 x 2; standardized for k-means, whose distances are not scale-free).

Published numbers: the ex7 exercise script prints the centroids after one k-means update from the
initial centroids ``[3 3; 6 2; 8 5]``: ``[2.428301 3.157924; 5.813503 2.633656; 7.119387 3.616684]``
(the course data's published solution; **not in the project catalogue**). Each coordinate is
matched to half a unit of its 6th decimal.

Invariants the texts state (the texts print no k-means or EM results, catalogue §2b):

* k-means is coordinate descent on the distortion J (CS229 notes §10, L4136-4204; CIML §15.1), so
  J never increases from one iteration to the next: the largest increase is 0, tolerance
  1e-9 x J at the first iteration (floating-point rounding);
* EM never decreases the log-likelihood (CS229 notes §11.3, L4580-4596: l(theta^(t+1)) >=
  l(theta^(t))): the largest decrease of the mean log-likelihood between iterations is 0,
  tolerance 1e-9 (EM is run exactly, ``reg_covar = 0``);
* k-means "usually converges in under 20 iterations" (CIML §3.4, L790): iterations beyond 20 are 0
  for every run here (tolerance 0).
"""

from __future__ import annotations

import numpy as np

from .. import models
from ._data import read_csv
from .record import ExperimentResult, Recorder, half_unit, register

PRESET = "kmeans_em"
EX7_INIT = [[3.0, 3.0], [6.0, 2.0], [8.0, 5.0]]
EX7_AFTER_ONE = (("2.428301", "3.157924"), ("5.813503", "2.633656"), ("7.119387", "3.616684"))
EX7_SOURCE = "Coursera ML ex7 (ex7.m: centroids after one update from [3 3; 6 2; 8 5]; not in the project catalogue)"


@register(PRESET)
def run(data_dir, *, seed: int, quick: bool = False) -> ExperimentResult:
    """k-means and GMM on ex7data2 and Old Faithful; ``seed`` drives k-means++ and EM's random init."""
    ex7 = read_csv(data_dir, "coursera_ex7data2_kmeans.csv")
    X7 = np.c_[ex7["x1"], ex7["x2"]]
    faithful = read_csv(data_dir, "old_faithful.csv")
    XF = np.c_[faithful["eruptions"], faithful["waiting"]]
    XF_std = (XF - XF.mean(axis=0)) / XF.std(axis=0)
    rec = Recorder(PRESET)

    one = models.create("kmeans", n_clusters=3, init=EX7_INIT, max_iter=1, tol=0.0)
    one = _quiet_fit(one, X7)
    for k, row in enumerate(EX7_AFTER_ONE):
        for j, text in enumerate(row):
            rec.add(
                EX7_SOURCE,
                f"ex7 centroid {k + 1}, coordinate {j + 1}, after one update",
                float(text),
                one.cluster_centers_[k, j],
                half_unit(text),
            )

    runs = {
        "ex7 (init [3 3; 6 2; 8 5])": (models.create("kmeans", n_clusters=3, init=EX7_INIT, max_iter=100), X7),
        "ex7 (k-means++)": (models.create("kmeans", n_clusters=3, n_init=1, random_state=seed), X7),
        "old_faithful standardized (k-means++)": (
            models.create("kmeans", n_clusters=2, n_init=1, random_state=seed),
            XF_std,
        ),
    }
    curves, tables = {}, {"kmeans_iterations": {}, "gmm": {}}
    for name, (model, X) in runs.items():
        model.fit(X)
        J = np.asarray(model.distortion_history_, dtype=float)
        rec.add(
            "CS229 notes §10 (L4136-4204) / CIML §15.1: k-means never increases the distortion",
            f"k-means {name}: largest increase of J between iterations",
            0.0,
            max(0.0, float(np.max(np.diff(J), initial=0.0))),
            1e-9 * J[0],
        )
        rec.add(
            "CIML §3.4 L790: k-means usually converges in under 20 iterations",
            f"k-means {name}: iterations beyond 20",
            0.0,
            max(0, int(model.n_iter_) - 20),
            0.0,
        )
        curves[f"kmeans_distortion: {name}"] = {"x": list(range(1, len(J) + 1)), "distortion": J.tolist()}
        tables["kmeans_iterations"][name] = int(model.n_iter_)

    max_iter = 200 if quick else 1000
    for name, X, k in (("old_faithful", XF, 2), ("ex7", X7, 3)):
        gmm = models.create(
            "gmm", n_components=k, init_params="random", reg_covar=0.0, tol=1e-10, max_iter=max_iter, random_state=seed
        )
        gmm = _quiet_fit(gmm, X)
        ll = np.asarray(gmm.log_likelihood_history_, dtype=float)
        rec.add(
            "CS229 notes §11.3 (L4580-4596): EM never decreases the log-likelihood",
            f"GMM {name} (K={k}): largest decrease of the mean log-likelihood between iterations",
            0.0,
            max(0.0, float(-np.min(np.diff(ll), initial=0.0))),
            1e-9,
        )
        curves[f"gmm_log_likelihood: {name}"] = {"x": list(range(len(ll))), "mean_log_likelihood": ll.tolist()}
        tables["gmm"][name] = {
            "weights": np.asarray(gmm.weights_).tolist(),
            "means": np.asarray(gmm.means_).tolist(),
            "iterations": int(gmm.n_iter_),
            "final_mean_log_likelihood": float(ll[-1]),
        }
    tables["ex7_after_one_update"] = {
        "measured": one.cluster_centers_.tolist(),
        "published": [[float(v) for v in row] for row in EX7_AFTER_ONE],
    }
    notes = (
        "k-means (CS229 notes §10, L4136-4204; CIML §3.4 Alg. 4 and §15.1) and the Gaussian mixture by EM "
        "(CS229 notes §11.1-11.3, L4205-4605) on Coursera ex7data2 and Old Faithful. ex7: one Lloyd update "
        "from the exercise's initial centroids, then runs to convergence; GMM: full covariances, random "
        f"responsibilities, exact EM (reg_covar = 0), seed {seed}."
    )
    return rec.result(curves, tables, notes)


def _quiet_fit(model, X):
    """Fit, silencing the ConvergenceWarning of a deliberately capped run."""
    import warnings

    from ..exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)
