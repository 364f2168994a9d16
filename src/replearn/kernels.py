"""Kernel functions, kernel matrices by matrix products, and the Mercer (PSD) check.

A kernel k(x, z) = <phi(x), phi(z)> is an inner product in a feature space that is never formed
(CS229 notes §5.3-5.4, seed 000 L1714-1938; CIML §11.4, seed 001 L3756-3808; CS480/680 §7,
seed 003 L616-691; EPFL notes L1137-1199, seed 004). The kernels here, for rows x of ``X`` and z of
``Z``:

* ``linear``:     k(x, z) = x.z                                  (CS229 annotation L1926)
* ``polynomial``: k(x, z) = (gamma x.z + coef0)^degree           (CS229 L1860-1908: (x.z + c)^d, i.e.
  gamma = 1; CIML eq. 11.13 (1 + x.z)^d: coef0 = 1)
* ``rbf``:        k(x, z) = exp(-gamma ||x - z||^2)              (CIML eq. 11.18; CS229's
  exp(-||x - z||^2 / (2 sigma^2)) is gamma = 1/(2 sigma^2); seed 003's exp(-||x - z||^2 / sigma) is
  gamma = 1/sigma)
* ``laplace``:    k(x, z) = exp(-gamma ||x - z||_2)              (seed 003 L677, gamma = 1/sigma).
  scikit-learn's ``laplacian_kernel`` uses the L1 distance ||x - z||_1 instead; ours follows the seed.

Every kernel matrix is built from one matrix product ``X @ Z.T`` (for the distance kernels through the
identity ||x - z||^2 = ||x||^2 - 2 x.z + ||z||^2, as in :func:`replearn.linalg.sq_euclidean`, with the
scale -gamma folded into the product), never a Python loop over pairs.

Mercer's condition (CS229 §5.4, seed 000 L1910-1938; CIML eq. 11.14): k is a valid kernel iff every
kernel matrix it produces is symmetric positive semi-definite. :func:`is_psd` checks one matrix.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

__all__ = [
    "KERNELS",
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "laplace_kernel",
    "kernel_matrix",
    "kernel_diagonal",
    "KernelRows",
    "resolve_kernel_params",
    "is_psd",
    "min_eigenvalue",
]


def linear_kernel(X, Z=None) -> np.ndarray:
    """K[i, j] = x_i . z_j (one GEMM)."""
    X, Z = _pair(X, Z)
    return X @ Z.T


def polynomial_kernel(X, Z=None, *, degree: int = 3, gamma: float = 1.0, coef0: float = 1.0) -> np.ndarray:
    """K[i, j] = (gamma x_i . z_j + coef0)^degree."""
    X, Z = _pair(X, Z)
    K = (X * gamma) @ Z.T if gamma != 1.0 else X @ Z.T
    if coef0 != 0.0:
        K += coef0
    if degree != 1:
        np.power(K, degree, out=K)
    return K


def _neg_scaled_sq_dist(X: np.ndarray, Z: np.ndarray, gamma: float) -> np.ndarray:
    """-gamma ||x_i - z_j||^2 from one GEMM: 2 gamma x.z - gamma ||x||^2 - gamma ||z||^2, clipped at 0."""
    G = (X * (2.0 * gamma)) @ Z.T
    G -= gamma * np.einsum("ij,ij->i", X, X)[:, None]
    G -= gamma * np.einsum("ij,ij->i", Z, Z)[None, :]
    return np.minimum(G, 0.0, out=G)


def rbf_kernel(X, Z=None, *, gamma: float = 1.0) -> np.ndarray:
    """K[i, j] = exp(-gamma ||x_i - z_j||^2) (Gaussian kernel)."""
    X, Z = _pair(X, Z)
    K = _neg_scaled_sq_dist(X, Z, gamma)
    return np.exp(K, out=K)


def laplace_kernel(X, Z=None, *, gamma: float = 1.0) -> np.ndarray:
    """K[i, j] = exp(-gamma ||x_i - z_j||_2) (Laplace kernel, Euclidean norm).

    The square root magnifies the rounding error of the GEMM identity near 0 (an error of eps ||x||^2
    in the square becomes sqrt(eps) ||x|| in the distance), so the few entries that are tiny relative
    to the norms (the diagonal, near-duplicates) are recomputed directly.
    """
    X, Z = _pair(X, Z)
    K = _neg_scaled_sq_dist(X, Z, 1.0)
    np.negative(K, out=K)
    _exact_near_zero(K, X, Z)
    np.sqrt(K, out=K)
    K *= -gamma
    return np.exp(K, out=K)


#: name -> (function, the keyword parameters it takes)
KERNELS = {
    "linear": (linear_kernel, ()),
    "polynomial": (polynomial_kernel, ("degree", "gamma", "coef0")),
    "rbf": (rbf_kernel, ("gamma",)),
    "laplace": (laplace_kernel, ("gamma",)),
}


def kernel_matrix(X, Z=None, kernel: str = "rbf", **params) -> np.ndarray:
    """The kernel matrix K[i, j] = k(x_i, z_j), shape ``(len(X), len(Z))`` (``Z=None``: ``Z = X``).

    ``kernel`` is one of :data:`KERNELS`; ``params`` are its keyword parameters (``gamma``,
    ``degree``, ``coef0``); parameters the kernel does not use are ignored, so estimators can pass
    all of theirs.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")
    fn, names = KERNELS[kernel]
    return fn(X, Z, **{k: v for k, v in params.items() if k in names and v is not None})


class KernelRows:
    """Rows k(x_i, X) of the kernel matrix of ``X`` one at a time, without forming the matrix.

    Each row is one matrix-vector product ``X @ x_i`` plus O(n) elementwise work (squared norms are
    computed once), written into a caller-supplied buffer. Used by SMO, which needs a few kernel rows
    per iteration and usually touches far fewer than n distinct rows.
    """

    def __init__(self, X, kernel: str = "rbf", **params):
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.kernel = kernel
        self.gamma = float(params.get("gamma") or 1.0)
        self.degree = int(params.get("degree") or 3)
        self.coef0 = float(params.get("coef0", 1.0) if params.get("coef0") is not None else 1.0)
        self.sqn = np.einsum("ij,ij->i", self.X, self.X) if kernel in ("rbf", "laplace") else None
        self.diag = kernel_diagonal(self.X, kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    def row(self, i: int, out: np.ndarray) -> np.ndarray:
        """Write k(x_i, x_t) for every t into ``out`` (length n) and return it."""
        np.dot(self.X, self.X[i], out=out)
        if self.kernel == "linear":
            return out
        if self.kernel == "polynomial":
            if self.gamma != 1.0:
                out *= self.gamma
            out += self.coef0
            if self.degree != 1:
                np.power(out, self.degree, out=out)
            return out
        # ||x_i - x_t||^2 = ||x_i||^2 + ||x_t||^2 - 2 x_i.x_t, clipped at 0
        out *= -2.0
        out += self.sqn
        out += self.sqn[i]
        np.maximum(out, 0.0, out=out)
        out[i] = 0.0
        if self.kernel == "laplace":
            near = np.flatnonzero(out <= 1e-6 * (self.sqn + self.sqn[i]))
            if near.size:  # as in laplace_kernel: exact distances where the square root magnifies rounding
                diff = self.X[near] - self.X[i]
                out[near] = np.einsum("ij,ij->i", diff, diff)
            np.sqrt(out, out=out)
        out *= -self.gamma
        return np.exp(out, out=out)


def kernel_diagonal(X, kernel: str = "rbf", **params) -> np.ndarray:
    """k(x_i, x_i) for every row, in O(n d) (the diagonal of ``kernel_matrix(X)``)."""
    X = np.asarray(X, dtype=np.float64)
    if kernel in ("rbf", "laplace"):
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        return sq
    if kernel == "polynomial":
        return (params.get("gamma", 1.0) * sq + params.get("coef0", 1.0)) ** params.get("degree", 3)
    raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")


def resolve_kernel_params(kernel: str, gamma, degree, coef0, X: np.ndarray) -> dict:
    """Validate an estimator's kernel hyperparameters and return the keyword arguments for ``kernel``.

    ``gamma=None`` means scikit-learn's ``gamma="scale"``, 1 / (n_features * X.var()), for the
    ``rbf`` and ``laplace`` kernels, and 1 (the course's (x.z + c)^d) for ``polynomial``.
    """
    from .validation import check_scalar

    check_scalar(kernel, "kernel", str, choices=tuple(KERNELS))
    out: dict = {}
    if kernel == "linear":
        return out
    if gamma is None:
        if kernel == "polynomial":
            g = 1.0
        else:
            var = float(X.var())
            g = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    else:
        g = check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)
    out["gamma"] = float(g)
    if kernel == "polynomial":
        check_scalar(degree, "degree", numbers.Integral, low=1)
        check_scalar(coef0, "coef0", numbers.Real, low=0.0)
        out["degree"] = int(degree)
        out["coef0"] = float(coef0)
    return out


def min_eigenvalue(K) -> float:
    """Smallest eigenvalue of the symmetric part of ``K`` (LAPACK ``syevr``, eigenvalues only)."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    S = 0.5 * (K + K.T)
    return float(scipy.linalg.eigvalsh(S, subset_by_index=[0, 0], check_finite=False)[0])


def is_psd(K, tol: float | None = None) -> bool:
    """Mercer check of one kernel matrix: symmetric and positive semi-definite up to rounding.

    ``K`` passes if ``|K - K.T| <= tol * max|K|`` and its smallest eigenvalue is
    ``>= -tol * max|K|``; ``tol`` defaults to ``n * eps * 100``, a bound on the rounding error of
    forming and factorizing an n x n matrix. A kernel that fails on some data set is not a valid
    kernel (e.g. tanh(1 + x.z), CIML eq. 11.21).
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinite values")
    n = K.shape[0]
    if tol is None:
        tol = 100.0 * max(n, 1) * np.finfo(np.float64).eps
    scale = float(np.abs(K).max()) if K.size else 0.0
    if scale == 0.0:
        return True
    if np.abs(K - K.T).max() > tol * scale:
        return False
    return min_eigenvalue(K) >= -tol * scale


def _exact_near_zero(D: np.ndarray, X: np.ndarray, Z: np.ndarray) -> None:
    """Recompute squared distances that are below 1e-6 of ||x||^2 + ||z||^2 directly (in place)."""
    scale = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Z, Z)[None, :]
    r, c = np.nonzero(D <= 1e-6 * scale)
    if r.size:
        diff = X[r] - Z[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)


def _pair(X, Z):
    X = np.asarray(X, dtype=np.float64)
    Z = X if Z is None else np.asarray(Z, dtype=np.float64)
    if X.ndim != 2 or Z.ndim != 2:
        raise ValueError(f"X and Z must be 2-D, got shapes {X.shape} and {Z.shape}")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Z has {Z.shape[1]}")
    return X, Z
