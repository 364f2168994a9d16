"""Lloyd's two steps over the examples, compiled lazily by numba (:mod:`replearn._jit`).

numpy's ``argmin`` along a short axis (k centres) and the one-hot products for the means made
several passes over the data per iteration; these loops make one. Same arithmetic as the numpy
expressions they replace (the scores ``-2 x.c + ||c||^2`` come from the caller's GEMM; ties go to the
lowest index), except that the per-cluster sums are accumulated in example order.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit


@jit
def nearest_from_scores(S, c_sq, x_sq, labels, d2):
    """``labels[i] = argmin_j S[i, j] + c_sq[j]`` and ``d2[i] = max(S[i, label] + c_sq[label] + x_sq[i], 0)``."""
    n, k = S.shape
    for i in range(n):
        best = S[i, 0] + c_sq[0]
        arg = 0
        for j in range(1, k):
            v = S[i, j] + c_sq[j]
            if v < best:
                best = v
                arg = j
        labels[i] = arg
        v = best + x_sq[i]
        d2[i] = v if v > 0.0 else 0.0


@jit
def cluster_sums(X, labels, k):
    """Per-cluster sums of the rows of ``X`` and the cluster sizes."""
    n, d = X.shape
    sums = np.zeros((k, d))
    counts = np.zeros(k)
    for i in range(n):
        c = labels[i]
        counts[c] += 1.0
        for j in range(d):
            sums[c, j] += X[i, j]
    return sums, counts


@jit
def sq_dist_to_row(X, i, out):
    """``out[m] = ||X[m] - X[i]||^2`` for every row (computed directly: no cancellation)."""
    n, d = X.shape
    for m in range(n):
        acc = 0.0
        for j in range(d):
            diff = X[m, j] - X[i, j]
            acc += diff * diff
        out[m] = acc


@jit
def sum_sq_to_centers(X, C, labels):
    """``sum_i ||x_i - C[labels[i]]||^2`` (computed directly)."""
    n, d = X.shape
    total = 0.0
    for m in range(n):
        c = labels[m]
        for j in range(d):
            diff = X[m, j] - C[c, j]
            total += diff * diff
    return total
