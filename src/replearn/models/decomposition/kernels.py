"""Kernel functions for the kernelized unsupervised methods (kernel k-means, kernel PCA).

``K(x, z) = phi(x) . phi(z)`` (CIML §11.4, seed 001 L3744-3772):

* ``"linear"``:  ``x . z``
* ``"poly"``:    ``(gamma x . z + coef0)^degree``  (CIML eq. 11.13 is ``gamma = coef0 = 1``)
* ``"rbf"``:     ``exp(-gamma ||x - z||^2)``
* ``"sigmoid"``: ``tanh(gamma x . z + coef0)`` (not positive semi-definite in general)

``gamma=None`` means ``1 / n_features``, scikit-learn's default for ``pairwise_kernels``, so the
same hyperparameters give the same matrices as ``sklearn.metrics.pairwise.pairwise_kernels``.
"""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, Options
from ...linalg import sq_euclidean

KERNELS = ("linear", "poly", "rbf", "sigmoid")


#: the constraints of the kernel hyperparameters (replearn._constraints), shared by kernel k-means and
#: kernel PCA and checked by their ``fit`` and by the configuration
KERNEL_CONSTRAINTS = {
    "kernel": Options(set(KERNELS)),
    "gamma": (None, Interval(float, 0.0, None, closed="neither")),
    "degree": Interval(int, 1, None),
    "coef0": Interval(float),
}


def kernel_matrix(
    A: np.ndarray, B: np.ndarray, *, kernel: str, gamma=None, degree: int = 3, coef0: float = 1.0
) -> np.ndarray:
    """``K[i, j] = K(A[i], B[j])``, shape ``(len(A), len(B))``."""
    g = 1.0 / A.shape[1] if gamma is None else float(gamma)
    if kernel == "linear":
        return A @ B.T
    if kernel == "rbf":
        K = sq_euclidean(A, B)
        K *= -g
        return np.exp(K, out=K)
    G = A @ B.T
    G *= g
    G += coef0
    if kernel == "poly":
        return G**degree
    if kernel == "sigmoid":
        return np.tanh(G, out=G)
    raise ValueError(f"kernel must be one of {list(KERNELS)}, got {kernel!r}")


def kernel_diagonal(A: np.ndarray, *, kernel: str, gamma=None, degree: int = 3, coef0: float = 1.0) -> np.ndarray:
    """``K(a, a)`` for every row of ``A`` without forming the full matrix."""
    g = 1.0 / A.shape[1] if gamma is None else float(gamma)
    sq = np.einsum("ij,ij->i", A, A)
    if kernel == "linear":
        return sq
    if kernel == "rbf":
        return np.ones(A.shape[0])
    if kernel == "poly":
        return (g * sq + coef0) ** degree
    if kernel == "sigmoid":
        return np.tanh(g * sq + coef0)
    raise ValueError(f"kernel must be one of {list(KERNELS)}, got {kernel!r}")
