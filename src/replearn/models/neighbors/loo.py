"""Fast leave-one-out cross-validation of k-NN for every K at once (CIML Alg. 9, corrected)."""

from __future__ import annotations

import numbers

import numpy as np

from ...linalg import sq_euclidean_chunks
from ...validation import check_classification_targets, check_scalar, check_X_y

_BLOCK_ELEMENTS = 4_000_000  # bound on rows x K x classes of one block of cumulative votes


def loo_errors(X, y, *, max_k: int | None = None, weights: str = "uniform", task: str = "classification") -> np.ndarray:
    """Leave-one-out error of k-NN for every k = 1..max_k, from one sort per example.

    CIML §5.6 Alg. 9 KNN-Train-LOO, seed 001 L1581-1604: for each example n, sort the other
    examples by distance once; then let the neighbours vote one at a time, so the prediction for
    k neighbours is the running vote after the k-th, and count an error for k when it is wrong.
    The book's line 9 compares the running vote with y_m (the label of the neighbour just added);
    it must be compared with y_n, the held-out example's own label (errata, catalogue seed 001 §3.3
    item 3). The book's K range 1..N-1 is the default ``max_k``.

    The predictions are exactly those of ``KNearestNeighbors(n_neighbors=k, weights=weights)``
    fitted on the other n - 1 examples (a test checks this): distance ties go to the smaller index,
    vote ties to the first class in sorted order, and with ``weights="distance"`` neighbours at
    distance 0 share all the weight.

    Returns an array of length ``max_k``: entry k - 1 is the LOO error rate (classification) or
    mean squared error (regression) of k-NN. Cost: one n x n distance matrix (by row blocks) and one
    sort per row; the votes for all k are cumulative sums.
    """
    check_scalar(task, "task", str, choices=("classification", "regression"))
    check_scalar(weights, "weights", str, choices=("distance", "uniform"))
    X, y = check_X_y(X, y, y_numeric=task == "regression")
    n = X.shape[0]
    if n < 2:
        raise ValueError("leave-one-out needs at least 2 examples")
    if max_k is None:
        max_k = n - 1
    check_scalar(max_k, "max_k", numbers.Integral, low=1, high=n - 1)
    if task == "classification":
        classes = check_classification_targets(y)
        codes = np.searchsorted(classes, y)
        C = classes.size
    else:
        codes, C = None, 1
        y = y.astype(np.float64)
    sqn = np.einsum("ij,ij->i", X, X)
    errors = np.zeros(max_k)
    rows_per_block = max(1, _BLOCK_ELEMENTS // (max_k * C))
    for start, stop, D in sq_euclidean_chunks(X, X, chunk_rows=min(rows_per_block, n)):
        rows = np.arange(start, stop)
        _fix_near_zero(D, X, sqn, rows)
        D[rows - start, rows] = np.inf  # leave the example itself out
        order = np.argsort(D, axis=1, kind="stable")[:, :max_k]  # ties: smaller index first
        dist = np.sqrt(np.take_along_axis(D, order, axis=1))
        if weights == "uniform":
            w = np.ones_like(dist)
        else:
            exact = dist == 0.0
            with np.errstate(divide="ignore"):
                w = 1.0 / dist
            has_zero = exact[:, 0]  # sorted: a zero distance comes first
            w[has_zero] = exact[has_zero]
        if task == "classification":
            votes = np.zeros((rows.size, max_k, C))
            np.put_along_axis(votes, codes[order][:, :, None], w[:, :, None], axis=2)
            np.cumsum(votes, axis=1, out=votes)
            pred = np.argmax(votes, axis=2)  # vote ties: first class
            errors += np.sum(pred != codes[rows][:, None], axis=0)  # line 9, corrected: compare with y_n
        else:
            pred = np.cumsum(w * y[order], axis=1) / np.cumsum(w, axis=1)
            errors += np.sum((pred - y[rows][:, None]) ** 2, axis=0)
    return errors / n


def _fix_near_zero(D: np.ndarray, X: np.ndarray, sqn: np.ndarray, rows: np.ndarray) -> None:
    """Recompute directly the few squared distances the GEMM identity cannot resolve (near 0), so
    duplicates are at distance exactly 0, as in ``KNearestNeighbors.kneighbors``."""
    scale = sqn[rows][:, None] + sqn[None, :]
    r, c = np.nonzero(D <= 1e-9 * scale + 1e-300)
    if r.size:
        diff = X[rows[r]] - X[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)
