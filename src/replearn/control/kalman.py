"""Kalman filter and Rauch-Tung-Striebel smoother (CS229 notes §16.4, L5858-5944).

Model: ``x_{t+1} = A x_t + B u_t + w_t``, ``w_t ~ N(0, Sigma_s)``; ``y_t = C x_t + v_t``,
``v_t ~ N(0, Sigma_y)``; prior ``x_0 ~ N(m_0, P_0)``. Observation ``y_t`` arrives at every step
``t = 0, ..., T-1`` (the notes count from ``y_1``; only the labels differ). Each step

    update:   K_t = Sigma_{t|t-1} C^T (C Sigma_{t|t-1} C^T + Sigma_y)^{-1}
              x_{t|t} = x_{t|t-1} + K_t (y_t - C x_{t|t-1})
              Sigma_{t|t} = (I - K_t C) Sigma_{t|t-1} (I - K_t C)^T + K_t Sigma_y K_t^T
    predict:  x_{t+1|t} = A x_{t|t} + B u_t,    Sigma_{t+1|t} = A Sigma_{t|t} A^T + Sigma_s

The covariance update is Joseph's form: in exact arithmetic it equals the notes'
``Sigma_{t|t-1} - K_t C Sigma_{t|t-1}``, but it stays symmetric positive semi-definite in floating
point. ``K_t`` is computed by a Cholesky solve, never an explicit inverse. A row of ``y`` that is
all NaN is a missing observation (the update is skipped). The cost per step is constant in ``t``,
against ``O(t^3)`` per step for conditioning the joint Gaussian of all states and observations
directly (notes L5902; that direct computation is the reference the tests compare against).

Smoother (Rauch, Tung & Striebel 1965; not in the notes): backwards from ``x_{T-1|T-1}``,
``G_t = Sigma_{t|t} A^T Sigma_{t+1|t}^{-1}``,
``x_{t|T} = x_{t|t} + G_t (x_{t+1|T} - x_{t+1|t})``,
``Sigma_{t|T} = Sigma_{t|t} + G_t (Sigma_{t+1|T} - Sigma_{t+1|t}) G_t^T``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..exceptions import ConvergenceWarning
from ..validation import check_scalar
from ._checks import as_matrix, check_symmetric_psd
from .exceptions import ControlInputError

__all__ = [
    "KalmanResult",
    "SmootherResult",
    "kalman_filter",
    "kalman_gain",
    "rts_smoother",
    "steady_state_kalman",
]


@dataclass
class KalmanResult:
    """Filtered and one-step-predicted moments, gains and the log-likelihood of the observations.

    ``predicted_means[t], predicted_covs[t]`` = ``x_{t|t-1}, Sigma_{t|t-1}`` (row 0 is the prior);
    ``filtered_means[t], filtered_covs[t]`` = ``x_{t|t}, Sigma_{t|t}``; ``gains[t]`` = ``K_t``;
    ``log_likelihood`` = ``sum_t log N(y_t; C x_{t|t-1}, C Sigma_{t|t-1} C^T + Sigma_y)``.
    """

    filtered_means: np.ndarray
    filtered_covs: np.ndarray
    predicted_means: np.ndarray
    predicted_covs: np.ndarray
    gains: np.ndarray
    log_likelihood: float
    A: np.ndarray
    B: np.ndarray | None
    controls: np.ndarray | None


@dataclass
class SmootherResult:
    """``means[t], covs[t]`` = ``x_{t|T-1}, Sigma_{t|T-1}``; ``gains[t]`` = ``G_t`` (T - 1 of them)."""

    means: np.ndarray
    covs: np.ndarray
    gains: np.ndarray


def kalman_gain(prior_cov, C, obs_cov):
    """``(K, S)`` with ``S = C P C^T + Sigma_y`` and ``K = P C^T S^{-1}`` (Cholesky solve)."""
    S = C @ prior_cov @ C.T + obs_cov
    S = (S + S.T) / 2
    try:
        K = scipy.linalg.solve(S, C @ prior_cov, assume_a="pos").T
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError) as exc:
        raise ControlInputError(
            "the innovation covariance C P C^T + obs_cov is singular; make obs_cov positive definite"
        ) from exc
    return K, S


def _joseph(P, K, C, obs_cov):
    I_KC = np.eye(P.shape[0]) - K @ C
    out = I_KC @ P @ I_KC.T + K @ obs_cov @ K.T
    return (out + out.T) / 2


def _check_model(A, C, process_cov, obs_cov):
    A = as_matrix(A, "A")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ControlInputError(f"A must be square (n, n), got {A.shape}")
    n = A.shape[0]
    C = as_matrix(C, "C")
    if C.ndim == 1:
        C = C.reshape(1, -1)
    if C.shape[1] != n:
        raise ControlInputError(f"C must have shape (p, {n}) to match A, got {C.shape}")
    p = C.shape[0]
    Qs = check_symmetric_psd(as_matrix(process_cov, "process_cov", (n, n)), "process_cov")
    Ry = check_symmetric_psd(as_matrix(obs_cov, "obs_cov", (p, p)), "obs_cov")
    return A, C, Qs, Ry, n, p


def kalman_filter(
    observations, A, C, process_cov, obs_cov, initial_mean, initial_cov, *, B=None, controls=None
) -> KalmanResult:
    """Run the Kalman filter over ``observations`` (T, p) (module docstring).

    Parameters
    ----------
    observations : array (T, p) or (T,) when p = 1; all-NaN rows are missing
    A : (n, n);  C : (p, n);  process_cov ``Sigma_s`` : (n, n);  obs_cov ``Sigma_y`` : (p, p)
    initial_mean : (n,), initial_cov : (n, n)
        Prior of ``x_0`` before ``y_0``.
    B : (n, m), controls : (T, m), optional
        Known inputs ``u_t`` applied after the update at ``t``.
    """
    A, C, Qs, Ry, n, p = _check_model(A, C, process_cov, obs_cov)
    Y = np.asarray(observations, dtype=np.float64)
    if Y.ndim == 1 and p == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[1] != p or Y.shape[0] == 0:
        raise ControlInputError(f"observations must have shape (T, {p}), got {Y.shape}")
    if np.any(np.isinf(Y)):
        raise ControlInputError("observations contain infinite values (NaN rows mark missing ones)")
    T = Y.shape[0]
    m0 = as_matrix(initial_mean, "initial_mean").reshape(-1)
    if m0.shape != (n,):
        raise ControlInputError(f"initial_mean must have shape ({n},), got {m0.shape}")
    P0 = check_symmetric_psd(as_matrix(initial_cov, "initial_cov", (n, n)), "initial_cov")
    U = None
    if (B is None) != (controls is None):
        raise ControlInputError("give both B and controls, or neither")
    if B is not None:
        B = as_matrix(B, "B")
        if B.ndim == 1:
            B = B.reshape(n, -1)
        if B.shape[0] != n:
            raise ControlInputError(f"B must have {n} rows, got {B.shape}")
        U = as_matrix(controls, "controls")
        if U.ndim == 1:
            U = U.reshape(T, -1)
        if U.shape != (T, B.shape[1]):
            raise ControlInputError(f"controls must have shape ({T}, {B.shape[1]}), got {U.shape}")
    mp = np.zeros((T, n))
    Pp = np.zeros((T, n, n))
    mf = np.zeros((T, n))
    Pf = np.zeros((T, n, n))
    gains = np.zeros((T, n, p))
    loglik = 0.0
    m, P = m0, P0
    for t in range(T):
        mp[t], Pp[t] = m, P
        y = Y[t]
        if np.all(np.isnan(y)):
            K = np.zeros((n, p))
        else:
            if np.any(np.isnan(y)):
                raise ControlInputError(
                    f"observation {t} is partly NaN; mark a missing observation with a full NaN row"
                )
            K, S = kalman_gain(P, C, Ry)
            innov = y - C @ m
            cf = scipy.linalg.cho_factor(S, lower=True)
            loglik += -0.5 * (
                innov @ scipy.linalg.cho_solve(cf, innov) + 2 * np.sum(np.log(np.diag(cf[0]))) + p * np.log(2 * np.pi)
            )
            m = m + K @ innov
            P = _joseph(P, K, C, Ry)
        mf[t], Pf[t], gains[t] = m, P, K
        m = A @ m + (B @ U[t] if B is not None else 0.0)
        P = A @ P @ A.T + Qs
        P = (P + P.T) / 2
    return KalmanResult(mf, Pf, mp, Pp, gains, float(loglik), A, B, U)


def rts_smoother(result: KalmanResult) -> SmootherResult:
    """Rauch-Tung-Striebel smoothing of a :func:`kalman_filter` result (module docstring)."""
    mf, Pf, mp, Pp, A = (
        result.filtered_means,
        result.filtered_covs,
        result.predicted_means,
        result.predicted_covs,
        result.A,
    )
    T, n = mf.shape
    ms, Ps = mf.copy(), Pf.copy()
    G_all = np.zeros((max(T - 1, 0), n, n))
    for t in range(T - 2, -1, -1):
        # G = Pf[t] A^T Pp[t+1]^{-1}, by a solve with the symmetric Pp[t+1]
        G = scipy.linalg.solve(Pp[t + 1], A @ Pf[t], assume_a="sym").T
        ms[t] = mf[t] + G @ (ms[t + 1] - mp[t + 1])
        Ps[t] = Pf[t] + G @ (Ps[t + 1] - Pp[t + 1]) @ G.T
        Ps[t] = (Ps[t] + Ps[t].T) / 2
        G_all[t] = G
    return SmootherResult(ms, Ps, G_all)


def steady_state_kalman(A, C, process_cov, obs_cov, *, tol: float = 1e-12, max_iter: int = 100_000):
    """Iterate the filter's covariance recursion to its fixed point.

    Returns ``(P_prior, K, P_posterior)``: the steady-state prediction covariance ``Sigma_{t|t-1}``,
    the gain ``K = P C^T (C P C^T + Sigma_y)^{-1}`` and ``Sigma_{t|t}``. ``P_prior`` solves the dual
    Riccati equation ``P = A (P - P C^T (C P C^T + Sigma_y)^{-1} C P) A^T + Sigma_s``
    (``scipy.linalg.solve_discrete_are(A.T, C.T, Sigma_s, Sigma_y)``). For the scalar random walk
    ``x' = x + w``, ``y = x + v`` it is ``P = (q + sqrt(q^2 + 4 q r)) / 2`` and ``K = P / (P + r)``.
    """
    A, C, Qs, Ry, _, _ = _check_model(A, C, process_cov, obs_cov)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    P = Qs.copy()
    converged = False
    for _ in range(max_iter):
        K, _ = kalman_gain(P, C, Ry)
        post = _joseph(P, K, C, Ry)
        P_new = A @ post @ A.T + Qs
        P_new = (P_new + P_new.T) / 2
        diff = float(np.max(np.abs(P_new - P)))
        P = P_new
        if diff <= tol * max(1.0, float(np.max(np.abs(P)))):
            converged = True
            break
    if not converged:
        warnings.warn("the Kalman covariance iteration did not converge", ConvergenceWarning, stacklevel=2)
    K, _ = kalman_gain(P, C, Ry)
    return P, K, _joseph(P, K, C, Ry)
