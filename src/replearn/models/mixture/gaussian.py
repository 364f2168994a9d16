"""Gaussian densities and weighted covariance estimates for the four covariance structures.

Shapes (scikit-learn's): ``"full"`` ``(K, d, d)``, ``"tied"`` ``(d, d)`` shared by all components,
``"diag"`` ``(K, d)`` variances, ``"spherical"`` ``(K,)`` one variance per component.

Log densities use the Cholesky factor ``L`` of each covariance (``Sigma = L L^T``)::

    log N(x; mu, Sigma) = -1/2 (d log 2 pi + ||L^{-1} (x - mu)||^2) - sum_j log L_jj

with the triangular solve done for all examples at once (one BLAS ``trsm`` per component) and
no inverse formed. A covariance that is not positive definite raises
:class:`~replearn.exceptions.DivergenceError` (a component collapsed; add ``reg_covar``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ...exceptions import DivergenceError

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
_LOG_2PI = float(np.log(2.0 * np.pi))


def _cholesky(S: np.ndarray, which: str) -> np.ndarray:
    try:
        return scipy.linalg.cholesky(S, lower=True, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise DivergenceError(
            f"the covariance of {which} is not positive definite (the component collapsed onto too few "
            "points or the features are collinear); increase reg_covar or use fewer components"
        ) from exc


def _mvn_logpdf_chol(X: np.ndarray, mean: np.ndarray, L: np.ndarray) -> np.ndarray:
    y = scipy.linalg.solve_triangular(L, (X - mean).T, lower=True, check_finite=False)
    return -0.5 * (X.shape[1] * _LOG_2PI + np.einsum("ij,ij->j", y, y)) - np.log(np.diag(L)).sum()


def log_gaussian(X: np.ndarray, means: np.ndarray, covariances: np.ndarray, covariance_type: str) -> np.ndarray:
    """``out[i, k] = log N(x_i; mu_k, Sigma_k)``, shape ``(n, K)``."""
    n, d = X.shape
    K = means.shape[0]
    out = np.empty((n, K))
    if covariance_type == "full":
        for k in range(K):
            out[:, k] = _mvn_logpdf_chol(X, means[k], _cholesky(covariances[k], f"component {k}"))
    elif covariance_type == "tied":
        L = _cholesky(covariances, "the tied covariance")
        for k in range(K):
            out[:, k] = _mvn_logpdf_chol(X, means[k], L)
    elif covariance_type in ("diag", "spherical"):
        var = covariances if covariance_type == "diag" else np.repeat(covariances[:, None], d, axis=1)
        if np.any(~(var > 0)):
            k = int(np.flatnonzero(np.any(~(var > 0), axis=1))[0])
            raise DivergenceError(f"component {k} has a non-positive variance; increase reg_covar")
        log_det = np.log(var).sum(axis=1)
        for k in range(K):
            diff = X - means[k]
            out[:, k] = -0.5 * (d * _LOG_2PI + log_det[k] + np.einsum("ij,ij->i", diff * (1.0 / var[k]), diff))
    else:
        raise ValueError(f"covariance_type must be one of {list(COVARIANCE_TYPES)}, got {covariance_type!r}")
    return out


def weighted_covariances(X: np.ndarray, resp: np.ndarray, nk: np.ndarray, means: np.ndarray, covariance_type: str, reg: float) -> np.ndarray:
    """M-step covariances from responsibilities ``resp`` (n, K) with ``nk = resp.sum(0)``.

    ``Sigma_k = sum_i r_ik (x_i - mu_k)(x_i - mu_k)^T / n_k + reg I`` (CS229 notes §11.1, seed 000
    L4297-4303); ``tied``: ``sum_k n_k Sigma_k / n``; ``diag``: its diagonal; ``spherical``: the mean
    of the diagonal (CIML eq. 16.22 with the erratum fixed: the isotropic variance divides by
    ``d * n_k``, CIML errata item 18). ``reg`` is added to every variance.
    """
    K, d = means.shape
    if covariance_type in ("full", "tied"):
        covs = np.empty((K, d, d))
        for k in range(K):
            diff = X - means[k]
            covs[k] = (resp[:, k, None] * diff).T @ diff / nk[k]
        if covariance_type == "tied":
            cov = np.tensordot(nk, covs, axes=1) / nk.sum()
            cov.flat[:: d + 1] += reg
            return cov
        for k in range(K):
            covs[k].flat[:: d + 1] += reg
        return covs
    var = np.empty((K, d))
    for k in range(K):
        diff = X - means[k]
        var[k] = resp[:, k] @ (diff * diff) / nk[k]
    var += reg
    return var if covariance_type == "diag" else var.mean(axis=1)


def n_covariance_parameters(covariance_type: str, K: int, d: int) -> int:
    """Free parameters of the covariances: ``K d(d+1)/2``, ``d(d+1)/2``, ``K d`` or ``K``."""
    return {
        "full": K * d * (d + 1) // 2,
        "tied": d * (d + 1) // 2,
        "diag": K * d,
        "spherical": K,
    }[covariance_type]


def check_covariances(cov, covariance_type: str, K: int, d: int) -> np.ndarray:
    """Validate user-given covariances: shape, finiteness, symmetry and positive definiteness."""
    cov = np.asarray(cov, dtype=np.float64)
    shape = {"full": (K, d, d), "tied": (d, d), "diag": (K, d), "spherical": (K,)}[covariance_type]
    if cov.shape != shape:
        raise ValueError(f"covariances_init must have shape {shape} for covariance_type={covariance_type!r}, got {cov.shape}")
    if not np.all(np.isfinite(cov)):
        raise ValueError("covariances_init contains NaN or infinite values")
    if covariance_type in ("diag", "spherical"):
        if np.any(cov <= 0):
            raise ValueError("covariances_init must be positive (variances)")
        return cov.copy()
    mats = cov.reshape(-1, d, d)
    for k, S in enumerate(mats):
        if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(S).max())):
            raise ValueError(f"covariances_init[{k}] is not symmetric")
        try:
            scipy.linalg.cholesky(S, lower=True)
        except np.linalg.LinAlgError:
            raise ValueError(f"covariances_init[{k}] is not positive definite") from None
    return cov.copy()
