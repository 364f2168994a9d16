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
from scipy.linalg import blas

from ...exceptions import DivergenceError

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
_LOG_2PI = float(np.log(2.0 * np.pi))


def logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """``log sum_k exp(a[i, k])`` per row, shifting by the row maximum so nothing overflows.

    A lean version of :func:`scipy.special.logsumexp` (whose array-API dispatch costs more than the
    arithmetic for EM's ``(n, K)`` arrays); rows that are all ``-inf`` give ``-inf``.
    """
    m = a.max(axis=1)
    m[~np.isfinite(m)] = 0.0
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - m[:, None]).sum(axis=1)) + m


def _cholesky(S: np.ndarray, which: str) -> np.ndarray:
    try:
        return scipy.linalg.cholesky(S, lower=True, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise DivergenceError(
            f"the covariance of {which} is not positive definite (the component collapsed onto too few "
            "points or the features are collinear); increase reg_covar or use fewer components"
        ) from exc


def _mahalanobis_sq(Xt: np.ndarray, mean: np.ndarray, L: np.ndarray) -> np.ndarray:
    """``||L^{-1} (x_i - mean)||^2`` for the columns of ``Xt = X^T``: one BLAS ``trsm``."""
    B = Xt - mean[:, None]  # (d, n), Fortran-ordered like Xt, so trsm works in place
    Y = blas.dtrsm(1.0, L, B, side=0, lower=1, overwrite_b=1)
    return np.einsum("ij,ij->j", Y, Y)


def log_gaussian(X: np.ndarray, means: np.ndarray, covariances: np.ndarray, covariance_type: str) -> np.ndarray:
    """``out[i, k] = log N(x_i; mu_k, Sigma_k)``, shape ``(n, K)``.

    ``diag``/``spherical`` use ``sum_j (x_j - mu_j)^2 / s_j = x^2 . (1/s) - 2 x . (mu/s) + mu^2 . (1/s)``
    (three matrix products for all components) on data centred at their own mean first, which
    keeps the cancellation in that expansion at the level of the spread of the data, not of its
    distance from the origin.
    """
    n, d = X.shape
    K = means.shape[0]
    out = np.empty((n, K))
    if covariance_type in ("full", "tied"):
        Xt = X.T
        if covariance_type == "tied":  # L^{-1}(x - mu_k) = L^{-1} x - L^{-1} mu_k: one solve for all k
            L = _cholesky(covariances, "the tied covariance")
            shift = X.mean(axis=0)  # centred, so the expansion below cancels few digits
            Y = blas.dtrsm(1.0, L, np.asfortranarray((X - shift).T), side=0, lower=1, overwrite_b=1)
            M = blas.dtrsm(1.0, L, np.asfortranarray((means - shift).T), side=0, lower=1, overwrite_b=1)
            sq = np.einsum("ij,ij->j", Y, Y)[:, None] - 2.0 * (Y.T @ M) + np.einsum("ij,ij->j", M, M)
            np.maximum(sq, 0.0, out=sq)
            return -0.5 * (d * _LOG_2PI + sq) - np.log(np.diag(L)).sum()
        for k in range(K):
            L = _cholesky(covariances[k], f"component {k}")
            out[:, k] = -0.5 * (d * _LOG_2PI + _mahalanobis_sq(Xt, means[k], L)) - np.log(np.diag(L)).sum()
        return out
    if covariance_type not in ("diag", "spherical"):
        raise ValueError(f"covariance_type must be one of {list(COVARIANCE_TYPES)}, got {covariance_type!r}")
    var = covariances if covariance_type == "diag" else np.repeat(covariances[:, None], d, axis=1)
    if np.any(~(var > 0)):
        k = int(np.flatnonzero(np.any(~(var > 0), axis=1))[0])
        raise DivergenceError(f"component {k} has a non-positive variance; increase reg_covar")
    shift = X.mean(axis=0)
    Xc = X - shift
    mc = means - shift
    prec = 1.0 / var
    quad = (Xc * Xc) @ prec.T - 2.0 * (Xc @ (mc * prec).T) + np.einsum("kj,kj->k", mc * mc, prec)
    np.maximum(quad, 0.0, out=quad)
    return -0.5 * (d * _LOG_2PI + np.log(var).sum(axis=1) + quad)


def weighted_covariances(
    X: np.ndarray, resp: np.ndarray, nk: np.ndarray, means: np.ndarray, covariance_type: str, reg: float
) -> np.ndarray:
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
    # sum_i r_ik (x_i - mu_k)^2 / n_k expanded into matrix products, on data centred at their mean
    shift = X.mean(axis=0)
    Xc = X - shift
    mc = means - shift
    var = (resp.T @ (Xc * Xc) - 2.0 * mc * (resp.T @ Xc) + mc * mc * resp.sum(axis=0)[:, None]) / nk[:, None]
    np.maximum(var, 0.0, out=var)
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
        raise ValueError(
            f"covariances_init must have shape {shape} for covariance_type={covariance_type!r}, got {cov.shape}"
        )
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
