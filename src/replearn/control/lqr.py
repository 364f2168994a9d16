"""Linear quadratic regulation by the discrete Riccati recursion (CS229 notes §16.2, L5704-5782).

Model: ``x_{t+1} = A_t x_t + B_t u_t + w_t`` with ``w_t ~ N(0, Sigma_t)``; cost to minimize
``sum_{t<T} (x_t^T Q x_t + u_t^T R u_t) + x_T^T Q_f x_T``. The notes *maximize* the reward
``-s^T U s - a^T W a``, so ``U = Q``, ``W = R``, their value ``V_t(s) = s^T Phi_t s + Psi_t`` is
minus our cost-to-go (``Phi_t = -P_t``, ``Psi_t = -c_t``) and their ``a_t = L_t s_t`` is our
``u_t = -K_t x_t`` (``L_t = -K_t``). With ``P_T = Q_f`` (the notes' ``Phi_T = -U_T``), for
``t = T-1, ..., 0``::

    K_t = (R + B^T P_{t+1} B)^{-1} B^T P_{t+1} A
    P_t = Q + A^T P_{t+1} A - A^T P_{t+1} B K_t
        = Q + A^T (P_{t+1} - P_{t+1} B (R + B^T P_{t+1} B)^{-1} B^T P_{t+1}) A
    c_t = c_{t+1} + tr(Sigma_t P_{t+1}),   c_T = 0

Derived by minimizing the quadratic ``x^T Q x + u^T R u + E[(Ax + Bu + w)^T P_{t+1} (Ax + Bu + w)]``
in ``u`` (``E[w^T P w] = tr(Sigma P)``, footnote L5768). Errata corrected (catalogue §6, checked
numerically there and in the tests): the notes print ``L_t = (B^T Phi B - W)^{-1} B Phi A`` and
``(B^T Phi B - V_t)^{-1}`` (L5758-5766: ``B`` must be ``B^T`` and ``V_t`` is ``W_t``), write
``B_t Phi_{t+1}`` for ``B_t^T Phi_{t+1}`` inside the Riccati equation (L5772), and give
``Psi_t = -tr(Sigma Phi_{t+1}) + Psi_{t+1}`` where the sign is ``+`` (L5772). As the notes observe
(Fact 3), the gains do not depend on the noise; only ``c_t`` does.

Infinite horizon (``horizon=None``): iterate the recursion from ``P = Q_f`` (default ``Q``) until
``||P_new - P||_max <= tol * max(1, ||P||_max)``; the limit solves the discrete algebraic Riccati
equation, equal to ``scipy.linalg.solve_discrete_are(A, B, Q, R)`` (tested). The per-step noise
cost is then an average, ``tr(Sigma P)``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_scalar
from ._checks import as_matrix, at, check_symmetric_psd
from .exceptions import ControlInputError

__all__ = ["LQRResult", "lqr", "riccati_step"]


@dataclass
class LQRResult:
    """Gains and cost-to-go of :func:`lqr`.

    Finite horizon: ``gains`` (T, m, n) with ``u_t = -gains[t] x_t``; ``cost_to_go`` (T + 1, n, n) with
    ``P_T = Q_f``; ``offsets`` (T + 1,) the noise terms ``c_t`` (expected optimal cost from ``x`` at
    ``t`` is ``x^T P_t x + c_t``). Infinite horizon: ``gains`` (m, n), ``cost_to_go`` (n, n), ``offsets``
    the average noise cost per step ``tr(Sigma P)``; ``residuals`` the change of ``P`` per iteration.
    """

    gains: np.ndarray
    cost_to_go: np.ndarray
    offsets: np.ndarray | float
    horizon: int | None
    n_iter: int
    converged: bool
    residuals: np.ndarray
    conventions: dict = field(default_factory=dict)

    def control(self, x, t: int = 0) -> np.ndarray:
        """Optimal control ``u = -K_t x``."""
        K = self.gains if self.horizon is None else self.gains[t]
        return -K @ np.asarray(x, dtype=np.float64)

    def notes_form(self):
        """The notes' quantities ``(L, Phi, Psi)`` = ``(-K, -P, -c)`` (reward maximization)."""
        return -self.gains, -self.cost_to_go, -np.asarray(self.offsets)


def riccati_step(P_next, A, B, Q, R):
    """One backward step: returns ``(K_t, P_t)`` from ``P_{t+1}`` (module docstring)."""
    S = R + B.T @ P_next @ B
    try:
        K = scipy.linalg.solve(S, B.T @ P_next @ A, assume_a="pos")
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError) as exc:
        raise ControlInputError(
            "R + B^T P B is not positive definite; R must be positive definite (or B^T P B make up for it)"
        ) from exc
    P = Q + A.T @ P_next @ A - A.T @ P_next @ B @ K
    return K, (P + P.T) / 2


def lqr(
    A, B, Q, R, horizon: int | None = None, *, Qf=None, noise_cov=None, tol: float = 1e-12, max_iter: int = 100_000
) -> LQRResult:
    """Optimal linear feedback for linear dynamics and quadratic cost (CS229 §16.2; module docstring).

    Parameters
    ----------
    A : array (n, n) or (T, n, n)
    B : array (n, m) or (T, n, m)
    Q : array (n, n) or (T, n, n), symmetric PSD (the notes' ``U``)
    R : array (m, m) or (T, m, m), symmetric positive definite (the notes' ``W``)
    horizon : int >= 1 or None
        ``T``; ``None`` for the infinite-horizon (stationary) solution. Time-varying arrays need ``T``.
    Qf : array (n, n), optional
        Terminal cost (default ``Q``, the notes' ``Phi_T = -U_T``); the infinite-horizon iteration starts there.
    noise_cov : array (n, n) or (T, n, n), optional
        ``Sigma_t``; only the offsets depend on it.
    tol, max_iter
        Infinite horizon only: convergence of the iteration (``ConvergenceWarning`` at ``max_iter``;
        ``DivergenceError`` if ``P`` blows up, i.e. the pair (A, B) is not stabilizable).
    """
    if horizon is not None:
        check_scalar(horizon, "horizon", numbers.Integral, low=1)
    T = horizon
    A = as_matrix(A, "A")
    n = A.shape[-1]
    A = as_matrix(A, "A", (n, n), allow_time=T)
    B = as_matrix(B, "B")
    if B.ndim == 2 and B.shape[0] != n and B.size == n:
        B = B.reshape(n, 1)
    m = B.shape[-1]
    B = as_matrix(B, "B", (n, m), allow_time=T)
    Q = check_symmetric_psd(as_matrix(Q, "Q", (n, n), allow_time=T), "Q")
    R = check_symmetric_psd(as_matrix(R, "R", (m, m), allow_time=T), "R", definite=True)
    Qf = Q if Qf is None and Q.ndim == 2 else (Q[-1] if Qf is None else Qf)
    Qf = check_symmetric_psd(as_matrix(Qf, "Qf", (n, n)), "Qf")
    Sigma = (
        np.zeros((n, n))
        if noise_cov is None
        else check_symmetric_psd(as_matrix(noise_cov, "noise_cov", (n, n), allow_time=T), "noise_cov")
    )
    if T is None:
        check_scalar(tol, "tol", numbers.Real, low=0.0)
        check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
        P = Qf.copy()
        residuals = []
        converged = False
        for _ in range(max_iter):
            K, P_new = riccati_step(P, A, B, Q, R)
            if not np.all(np.isfinite(P_new)):
                raise DivergenceError("the Riccati iteration diverged: (A, B) is probably not stabilizable")
            r = float(np.max(np.abs(P_new - P)))
            P = P_new
            residuals.append(r)
            if r <= tol * max(1.0, float(np.max(np.abs(P)))):
                converged = True
                break
        if not converged:
            warnings.warn(
                f"the Riccati iteration stopped at max_iter={max_iter} (last change {r:.3g})",
                ConvergenceWarning,
                stacklevel=2,
            )
        K, _ = riccati_step(P, A, B, Q, R)
        return LQRResult(
            K,
            P,
            float(np.trace(Sigma @ P)),
            None,
            len(residuals),
            converged,
            np.array(residuals),
            {"cost": "sum x'Qx + u'Ru", "control": "u = -K x", "init": "P = Qf"},
        )
    P_all = np.zeros((T + 1, n, n))
    K_all = np.zeros((T, m, n))
    c = np.zeros(T + 1)
    P_all[T] = Qf
    for t in range(T - 1, -1, -1):
        K_all[t], P_all[t] = riccati_step(P_all[t + 1], at(A, t), at(B, t), at(Q, t), at(R, t))
        c[t] = c[t + 1] + float(np.trace(at(Sigma, t) @ P_all[t + 1]))
    if not np.all(np.isfinite(P_all)):
        raise DivergenceError("the Riccati recursion produced non-finite values")
    return LQRResult(
        K_all,
        P_all,
        c,
        T,
        T,
        True,
        np.zeros(0),
        {"cost": "sum_{t<T} x'Qx + u'Ru + x_T' Qf x_T", "control": "u_t = -K_t x_t"},
    )
