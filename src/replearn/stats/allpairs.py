"""Adjustments for the family of *all pairwise* comparisons of k models (Shaffer, Bergmann-Hommel).

The ``m = k (k-1) / 2`` hypotheses ``H_ij: model i = model j`` are logically related: if
``H_12`` and ``H_23`` are true then ``H_13`` is true too.  So not every subset of hypotheses
can be the set of true ones, and a multiple-comparison procedure can use smaller multipliers than
Holm's ``m, m-1, ..., 1`` (Shaffer 1986; Bergmann & Hommel 1988; Garcia & Herrera 2008, "An
extension on 'Statistical comparisons of classifiers over multiple data sets' for all pairwise
comparisons", JMLR 9:2677-2694).

Input convention: ``pvalues`` holds the m raw p-values in the order of
``itertools.combinations(range(k), 2)`` -- (0,1), (0,2), ..., (0,k-1), (1,2), ... -- and k is
inferred from m; or a symmetric ``(k, k)`` matrix (diagonal ignored), in which case a matrix
is returned.  Both procedures control the family-wise error rate in the strong sense under any
dependence (they are closed-testing shortcuts with Bonferroni local tests).

* An **exhaustive set** is a set of hypotheses that can be exactly the true ones: the pairs
  inside the blocks of a partition of the k models into groups of equal models.  There is one
  per set partition (a Bell number of them: 5, 15, 52, 203, 877, 4140, 21147, 115975 for
  k = 3..10); the partition into singletons gives the empty set, which is left out.
* :func:`shaffer` (Shaffer's static procedure S1): with ``p_(1) <= ... <= p_(m)`` sorted,
  ``adj_(i) = min(1, max_{j <= i} t_j p_(j))``, where ``t_j`` is the largest number of
  hypotheses that can be true given that ``j - 1`` are false: the largest size of an
  exhaustive set that is ``<= m - j + 1``.  Never larger than Holm's (``t_j <= m - j + 1``).
* :func:`bergmann_hommel`: ``adj_i = min(1, max{|I| min_{j in I} p_j : I exhaustive, i in I})``
  (Garcia & Herrera 2008, §3.2).  Never larger than Shaffer's, and the most powerful of the
  procedures here, at the price of enumerating the exhaustive sets (practical up to k = 10).
"""

from __future__ import annotations

import itertools
from functools import cache
from math import comb

import numpy as np

from .multiple import _check_pvalues

__all__ = ["bergmann_hommel", "exhaustive_sets", "pair_index", "shaffer", "shaffer_multipliers"]

MAX_K_BERGMANN_HOMMEL = 10


def _k_from_m(m: int) -> int:
    k = int(round((1 + np.sqrt(1 + 8 * m)) / 2))
    if k * (k - 1) // 2 != m or k < 2:
        raise ValueError(
            f"got {m} p-values, which is not k (k-1) / 2 for any k >= 2: pass the p-values of all pairs "
            "of k models in itertools.combinations(range(k), 2) order"
        )
    return k


def pair_index(k: int) -> list[tuple[int, int]]:
    """The pairs of ``range(k)`` in the order the p-values are expected: combinations order."""
    return list(itertools.combinations(range(k), 2))


def _as_vector(pvalues) -> tuple[np.ndarray, int, bool]:
    arr = np.asarray(pvalues, dtype=np.float64)
    if arr.ndim == 2:
        k = arr.shape[0]
        if arr.shape != (k, k) or k < 2:
            raise ValueError(f"a p-value matrix must be square (k, k) with k >= 2, got shape {arr.shape}")
        iu = np.triu_indices(k, 1)
        if not np.allclose(arr[iu], arr.T[iu], equal_nan=True):
            raise ValueError("the p-value matrix must be symmetric (p[i, j] == p[j, i])")
        return _check_pvalues(arr[iu]), k, True
    p = _check_pvalues(arr)
    return p, _k_from_m(p.size), False


def _as_output(adj: np.ndarray, k: int, matrix: bool) -> np.ndarray:
    if not matrix:
        return adj
    out = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    out[iu] = adj
    out.T[iu] = adj
    return out


def _set_partitions(k: int):
    """Restricted growth strings of length k: ``labels[i]`` is the block of model i."""
    labels = [0] * k
    maxes = [0] * k

    def rec(i: int):
        if i == k:
            yield tuple(labels)
            return
        for b in range(maxes[i - 1] + 2 if i else 1):
            labels[i] = b
            maxes[i] = max(maxes[i - 1], b) if i else 0
            yield from rec(i + 1)

    yield from rec(0)


@cache
def _exhaustive_masks(k: int) -> np.ndarray:
    pairs = np.array(pair_index(k))
    rows = []
    for labels in _set_partitions(k):
        lab = np.asarray(labels)
        mask = lab[pairs[:, 0]] == lab[pairs[:, 1]]
        if mask.any():
            rows.append(mask)
    out = np.array(rows, dtype=bool)
    out.setflags(write=False)
    return out


def exhaustive_sets(k: int) -> np.ndarray:
    """Boolean ``(n_sets, m)`` matrix: row s marks the pairs (combinations order) of one
    non-empty exhaustive set of the pairwise hypotheses among k models (see the module docstring)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k must be an integer >= 2, got {k!r}")
    if k > MAX_K_BERGMANN_HOMMEL:
        raise ValueError(
            f"k = {k} models have too many exhaustive sets to enumerate (limit k = {MAX_K_BERGMANN_HOMMEL}); "
            "use shaffer() instead"
        )
    return _exhaustive_masks(int(k))


@cache
def _possible_true_counts(k: int) -> frozenset:
    """S(k): the numbers of pairwise hypotheses among k models that can be true together.

    ``S(0) = S(1) = {0}`` and ``S(k) = U_{j=1..k} {C(j, 2) + x : x in S(k - j)}`` (the first model's
    block has j members)."""
    if k <= 1:
        return frozenset({0})
    return frozenset(comb(j, 2) + x for j in range(1, k + 1) for x in _possible_true_counts(k - j))


def shaffer_multipliers(k: int) -> np.ndarray:
    """Shaffer's ``t_1 >= ... >= t_m`` for all pairs of k models (e.g. k = 4: 6, 3, 3, 3, 2, 1)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k must be an integer >= 2, got {k!r}")
    m = k * (k - 1) // 2
    counts = np.array(sorted(_possible_true_counts(int(k))))
    return np.array([counts[counts <= m - j + 1].max() for j in range(1, m + 1)], dtype=np.float64)


def shaffer(pvalues) -> np.ndarray:
    """Shaffer's static (S1) adjusted p-values for all pairwise comparisons; see the module docstring."""
    p, k, matrix = _as_vector(pvalues)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(shaffer_multipliers(k) * p[order])
    adj = np.empty(m)
    adj[order] = np.minimum(1.0, stepped)
    return _as_output(adj, k, matrix)


def bergmann_hommel(pvalues) -> np.ndarray:
    """Bergmann-Hommel adjusted p-values for all pairwise comparisons (k <= 10); see the module docstring."""
    p, k, matrix = _as_vector(pvalues)
    masks = exhaustive_sets(k)
    sizes = masks.sum(axis=1)
    min_p = np.where(masks, p[None, :], np.inf).min(axis=1)
    value = sizes * min_p  # |I| min_{j in I} p_j for every exhaustive set I
    adj = np.where(masks, value[:, None], -np.inf).max(axis=0)
    return _as_output(np.minimum(1.0, adj), k, matrix)
