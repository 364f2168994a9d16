"""Metrics for unsupervised models: agreement of two partitions, distortion, and the Amari index.

* :func:`adjusted_rand_index` -- Hubert & Arabie's adjusted Rand index, the chance-corrected
  fraction of example pairs on which two clusterings agree (same as
  ``sklearn.metrics.adjusted_rand_score``). Invariant to renaming the clusters.
* :func:`rand_index` -- the unadjusted fraction of agreeing pairs.
* :func:`contingency_matrix` -- counts ``n_ij`` of examples with true class i and cluster j.
* :func:`distortion` -- the k-means objective (CS229 notes §10, seed 000 L4136-4204) as a *mean*
  squared distance per example (``KMeans.inertia_`` is the sum).
* :func:`amari_index` -- how far ``W A`` is from a scaled permutation matrix: 0 when an ICA
  unmixing ``W`` recovers the mixing ``A`` up to the ambiguities of ICA (permutation, scale,
  sign; CS229 notes §13, seed 000 L5040-5052).
"""

from __future__ import annotations

import numpy as np

__all__ = ["adjusted_rand_index", "rand_index", "contingency_matrix", "distortion", "amari_index"]


def _labels(a, name: str) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def contingency_matrix(labels_true, labels_pred) -> np.ndarray:
    """``C[i, j]`` = number of examples in class ``i`` (sorted) and cluster ``j`` (sorted)."""
    t = _labels(labels_true, "labels_true")
    p = _labels(labels_pred, "labels_pred")
    if t.shape != p.shape:
        raise ValueError(f"labels_true and labels_pred have different lengths: {t.size} and {p.size}")
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    n_t, n_p = ti.max(initial=-1) + 1, pi.max(initial=-1) + 1
    return np.bincount(ti * n_p + pi, minlength=n_t * n_p).reshape(n_t, n_p)


def _pair_counts(labels_true, labels_pred) -> tuple[float, float, float, float]:
    """Pairs (ordered, as scikit-learn's pair confusion matrix): tn, fp, fn, tp."""
    C = contingency_matrix(labels_true, labels_pred).astype(np.float64)
    n = C.sum()
    sum_sq = float(np.sum(C**2))
    rows = C.sum(axis=1)
    cols = C.sum(axis=0)
    tp = sum_sq - n  # pairs together in both
    fp = float(np.dot(cols, cols)) - sum_sq  # together in pred only
    fn = float(np.dot(rows, rows)) - sum_sq  # together in true only
    tn = n * n - fp - fn - sum_sq
    return tn, fp, fn, tp


def rand_index(labels_true, labels_pred) -> float:
    """Fraction of example pairs on which the two partitions agree (together in both or apart in both)."""
    tn, fp, fn, tp = _pair_counts(labels_true, labels_pred)
    total = tn + fp + fn + tp
    return 1.0 if total == 0 or tn + tp == total else float((tn + tp) / total)


def adjusted_rand_index(labels_true, labels_pred) -> float:
    """Adjusted Rand index: 1 for identical partitions (up to renaming), about 0 for random ones.

    ``ARI = (RI - E[RI]) / (max RI - E[RI])`` under the permutation (hypergeometric) model,
    computed from the pair confusion counts as
    ``2 (tn tp - fn fp) / ((tn + fn)(fn + tp) + (tn + fp)(fp + tp))``; when no pair is split
    differently (``fn = fp = 0``, e.g. both partitions trivial) it is 1. Can be negative.
    scikit-learn equivalent: ``sklearn.metrics.adjusted_rand_score``.
    """
    tn, fp, fn, tp = _pair_counts(labels_true, labels_pred)
    if fn == 0 and fp == 0:
        return 1.0
    return float(2.0 * (tn * tp - fn * fp) / ((tn + fn) * (fn + tp) + (tn + fp) * (fp + tp)))


def distortion(X, labels, centers) -> float:
    """Mean squared Euclidean distance of each example to its assigned centre,
    ``(1/n) sum_i ||x_i - mu_{labels_i}||^2`` (the k-means objective per example)."""
    X = np.asarray(X, dtype=np.float64)
    centers = np.asarray(centers, dtype=np.float64)
    labels = np.asarray(labels)
    if X.ndim != 2 or centers.ndim != 2 or X.shape[1] != centers.shape[1]:
        raise ValueError(f"X {X.shape} and centers {centers.shape} must be 2-D with the same number of features")
    if labels.shape != (X.shape[0],) or labels.dtype.kind not in "iu":
        raise ValueError(
            f"labels must be {X.shape[0]} integer cluster indices, got shape {labels.shape}, dtype {labels.dtype}"
        )
    if labels.size and (labels.min() < 0 or labels.max() >= centers.shape[0]):
        raise ValueError(f"labels must lie in [0, {centers.shape[0]})")
    diff = X - centers[labels]
    return float(np.einsum("ij,ij->", diff, diff) / X.shape[0])


def amari_index(mixing, unmixing) -> float:
    """Amari index of ``P = unmixing @ mixing``, normalized to [0, 1].

    ``A(P) = 1 / (2 d (d - 1)) * [ sum_i (sum_j |p_ij| / max_k |p_ik| - 1)
                                 + sum_j (sum_i |p_ij| / max_k |p_kj| - 1) ]``

    It is 0 exactly when ``P`` has one non-zero entry per row and per column (a scaled
    permutation: the sources are recovered up to order, scale and sign) and grows towards 1 as
    ``P`` mixes the sources. ``mixing`` is ``(d, k)`` (true ``A`` in ``x = A s``) and ``unmixing``
    ``(k, d)`` (estimated ``W`` in ``s = W x``); ``P`` must be square.
    """
    A = np.asarray(mixing, dtype=np.float64)
    W = np.asarray(unmixing, dtype=np.float64)
    if A.ndim != 2 or W.ndim != 2 or W.shape[1] != A.shape[0]:
        raise ValueError(f"unmixing {W.shape} @ mixing {A.shape} is not defined")
    P = np.abs(W @ A)
    d = P.shape[0]
    if P.shape != (d, d):
        raise ValueError(f"unmixing @ mixing must be square, got shape {P.shape}")
    if d == 1:
        return 0.0
    if np.any(P.max(axis=1) == 0) or np.any(P.max(axis=0) == 0):
        return 1.0
    rows = (P.sum(axis=1) / P.max(axis=1) - 1.0).sum()
    cols = (P.sum(axis=0) / P.max(axis=0) - 1.0).sum()
    return float((rows + cols) / (2.0 * d * (d - 1)))
