"""Initial centres for (kernel) k-means: random points, furthest-first and k-means++.

All three pick ``k`` *training examples* as the initial centres and work from a function
``d2_to(i)`` giving the squared distance from every example to example ``i``, so the same code
seeds k-means in input space (``||x_n - x_i||^2``) and kernel k-means in feature space
(``K_nn + K_ii - 2 K_ni``).

* ``"random"``: ``k`` distinct examples chosen uniformly (CS229 notes §10, seed 000 L4136-4204:
  "initialize the cluster centroids by choosing k training examples randomly").
* ``"furthest-first"`` (CIML §15.1, seed 001 L4538-4546): the first centre is a uniformly random
  example; each next centre is the example furthest from its nearest chosen centre
  ``argmax_n min_{k' < k} ||x_n - mu_k'||^2``. Deterministic after the first pick; sensitive to
  outliers. Ties go to the lowest index.
* ``"k-means++"`` (CIML §15.1 Alg. 36, seed 001 L4552-4569, with its line-4 typo "sum_n n_d"
  read as ``sum_n d_n``, errata item 20): the first centre is uniform; each next centre is example
  ``n`` with probability ``d_n / sum_m d_m``, ``d_n`` the squared distance to the nearest chosen
  centre. (This is the plain algorithm of the text; scikit-learn's default "greedy k-means++"
  draws ``2 + log k`` candidates per step and keeps the best, so its draws differ.) If every
  remaining ``d_n`` is 0 (fewer distinct examples than ``k``), the next centre is drawn uniformly
  among the examples not chosen yet.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._constraints import Constraint
from ._kernels import sq_dist_to_row

SEEDINGS = ("k-means++", "random", "furthest-first")


class GivenArray(Constraint):
    """A constraint (:mod:`replearn._constraints`) met by a list, tuple or array: initial values given
    explicitly (centres, example indices), whose shape ``fit`` checks against the data."""

    def __init__(self, what: str):
        self.what = what

    def ok(self, value) -> bool:
        return isinstance(value, (list, tuple, np.ndarray))

    def describe(self) -> str:
        return self.what


def random_indices(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` distinct indices in ``0 .. n-1``, uniformly at random."""
    return rng.choice(n, size=k, replace=False)


def furthest_first_indices(n: int, k: int, d2_to: Callable[[int], np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """Furthest-first traversal (CIML §15.1, L4538-4546)."""
    idx = np.empty(k, dtype=np.intp)
    idx[0] = rng.integers(n)
    closest = d2_to(int(idx[0]))
    for j in range(1, k):
        cand = closest.copy()
        cand[idx[:j]] = -np.inf  # never pick a chosen example again (matters only with duplicates)
        idx[j] = int(np.argmax(cand))
        np.minimum(closest, d2_to(int(idx[j])), out=closest)
    return idx


def kmeans_plusplus_indices(n: int, k: int, d2_to: Callable[[int], np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding (CIML §15.1 Alg. 36, L4552-4569): D^2 sampling."""
    idx = np.empty(k, dtype=np.intp)
    idx[0] = rng.integers(n)
    closest = np.maximum(d2_to(int(idx[0])), 0.0)
    for j in range(1, k):
        weights = closest.copy()
        weights[idx[:j]] = 0.0
        total = weights.sum()
        if total > 0.0:
            idx[j] = int(rng.choice(n, p=weights / total))
        else:  # every remaining example coincides with a chosen centre
            rest = np.setdiff1d(np.arange(n), idx[:j])
            idx[j] = int(rng.choice(rest))
        np.minimum(closest, np.maximum(d2_to(int(idx[j])), 0.0), out=closest)
    return idx


def seed_indices(
    method: str, n: int, k: int, d2_to: Callable[[int], np.ndarray], rng: np.random.Generator
) -> np.ndarray:
    """Indices of the ``k`` examples ``method`` picks as initial centres."""
    if method == "random":
        return random_indices(n, k, rng)
    if method == "furthest-first":
        return furthest_first_indices(n, k, d2_to, rng)
    if method == "k-means++":
        return kmeans_plusplus_indices(n, k, d2_to, rng)
    raise ValueError(f"init must be one of {list(SEEDINGS)} or an array of initial centres, got {method!r}")


def euclidean_d2_to(X: np.ndarray) -> Callable[[int], np.ndarray]:
    """``d2_to(i) = ||X - X[i]||^2`` for every row (computed directly, no cancellation)."""

    Xc = np.ascontiguousarray(X, dtype=np.float64)

    def d2_to(i: int) -> np.ndarray:
        out = np.empty(Xc.shape[0])
        sq_dist_to_row(Xc, int(i), out)  # one compiled pass, no n x d temporary
        return out

    return d2_to
