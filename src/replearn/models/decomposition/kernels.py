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

import numbers

import numpy as np

from ...linalg import sq_euclidean
from ...validation import check_scalar

KERNELS = ("linear", "poly", "rbf", "sigmoid")


def check_kernel_params(kernel, gamma, degree, coef0) -> None:
    """Validate the kernel hyperparameters (messages name the offending one)."""
    check_scalar(kernel, "kernel", str, choices=KERNELS)
    if gamma is not None:
        check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(degree, "degree", numbers.Integral, low=1)
    check_scalar(coef0, "coef0", numbers.Real)


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
