"""Differential dynamic programming in its iterative-LQR form (CS229 notes §16.3, L5784-5856).

The notes' DDP (§16.3.2): (1) take a nominal trajectory ``(x_t*, u_t*)``; (2) linearize the dynamics
about it, ``x_{t+1} ~ F(x*, u*) + f_x (x - x*) + f_u (u - u*)`` (eq. 16.3; the notes' "A s + B s + kappa"
at L5808 should read ``A s + B a + kappa``), and take a second-order Taylor expansion of the cost;
(3) solve the resulting LQR problem -- whose constant and linear terms the notes absorb by adding a
coordinate fixed at 1, here carried explicitly as the vectors ``Q_x``, ``Q_u``, ``V_x``; (4) roll the
new controller out through the *true* dynamics and repeat. Ignoring the dynamics' second
derivatives (as the notes do) makes this iterative LQR (Li & Todorov 2004).

Backward pass, from ``V_x = l_f,x``, ``V_xx = l_f,xx`` at ``T``, for ``t = T-1, ..., 0``::

    Q_x = l_x + f_x^T V_x          Q_u = l_u + f_u^T V_x
    Q_xx = l_xx + f_x^T V_xx f_x    Q_uu = l_uu + f_u^T V_xx f_u + mu I    Q_ux = l_ux + f_u^T V_xx f_x
    k_t = -Q_uu^{-1} Q_u            K_t = -Q_uu^{-1} Q_ux
    V_x = Q_x + K^T Q_uu k + K^T Q_u + Q_ux^T k
    V_xx = Q_xx + K^T Q_uu K + K^T Q_ux + Q_ux^T K

Forward pass with a backtracking line search on ``alpha`` in 1, 1/2, 1/4, ...::

    u_t = u_t* + alpha k_t + K_t (x_t - x_t*),   x_{t+1} = F(x_t, u_t)

accepting a step when the cost falls by at least ``1e-4`` of the predicted
``-(alpha sum k^T Q_u + alpha^2/2 sum k^T Q_uu k)``. The Levenberg-Marquardt term ``mu`` (0 at
first) grows by ``reg_factor`` when ``Q_uu`` is not positive definite or no step is accepted, and
shrinks after a success (Tassa, Erez & Todorov 2012). On a linear system with quadratic cost the
first step with ``alpha = 1`` is exactly the LQR solution (tested against :func:`replearn.control.lqr`).
Costs are ``l(x, u) = x^T Q x + u^T R u`` style (no factor 1/2), as in :func:`lqr`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from ..exceptions import DivergenceError
from ..validation import check_scalar
from ._checks import as_matrix, check_symmetric_psd
from .exceptions import ControlInputError

__all__ = ["ILQRResult", "QuadraticCost", "ddp", "finite_difference_jacobians", "ilqr"]


class QuadraticCost:
    """``l(x, u) = (x - x_goal)^T Q (x - x_goal) + (u - u_goal)^T R (u - u_goal)``;
    final cost ``(x - x_goal)^T Q_f (x - x_goal)``.

    Any object with the same four methods (``stage``, ``final``, ``stage_derivatives`` returning
    ``(l_x, l_u, l_xx, l_uu, l_ux)``, ``final_derivatives`` returning ``(l_x, l_xx)``) can be passed to
    :func:`ilqr` instead.
    """

    def __init__(self, Q, R, Qf=None, x_goal=None, u_goal=None):
        self.Q = check_symmetric_psd(as_matrix(Q, "Q"), "Q")
        n = self.Q.shape[0]
        self.R = as_matrix(R, "R")
        m = self.R.shape[0]
        self.R = check_symmetric_psd(as_matrix(R, "R", (m, m)), "R")
        self.Qf = self.Q if Qf is None else check_symmetric_psd(as_matrix(Qf, "Qf", (n, n)), "Qf")
        self.x_goal = np.zeros(n) if x_goal is None else np.asarray(x_goal, dtype=np.float64).reshape(n)
        self.u_goal = np.zeros(m) if u_goal is None else np.asarray(u_goal, dtype=np.float64).reshape(m)

    def stage(self, x, u) -> float:
        dx, du = x - self.x_goal, u - self.u_goal
        return float(dx @ self.Q @ dx + du @ self.R @ du)

    def final(self, x) -> float:
        dx = x - self.x_goal
        return float(dx @ self.Qf @ dx)

    def stage_derivatives(self, x, u):
        dx, du = x - self.x_goal, u - self.u_goal
        return 2 * self.Q @ dx, 2 * self.R @ du, 2 * self.Q, 2 * self.R, np.zeros((self.R.shape[0], self.Q.shape[0]))

    def final_derivatives(self, x):
        return 2 * self.Qf @ (x - self.x_goal), 2 * self.Qf


def finite_difference_jacobians(dynamics, x, u, eps: float = 1e-6):
    """``(f_x, f_u)`` of ``dynamics(x, u)`` by central differences."""
    n, m = x.size, u.size
    fx = np.zeros((n, n))
    fu = np.zeros((n, m))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps
        fx[:, i] = (np.asarray(dynamics(x + e, u)) - np.asarray(dynamics(x - e, u))) / (2 * eps)
    for j in range(m):
        e = np.zeros(m)
        e[j] = eps
        fu[:, j] = (np.asarray(dynamics(x, u + e)) - np.asarray(dynamics(x, u - e))) / (2 * eps)
    return fx, fu


@dataclass
class ILQRResult:
    """Optimized trajectory and the local feedback controller ``u = controls[t] + gains[t] (x - states[t])``.

    ``cost_history[k]`` is the cost after ``k`` accepted iterations (non-increasing by construction);
    ``reg_history`` and ``step_history`` the ``mu`` and ``alpha`` of each iteration (``alpha = 0`` when
    no step was accepted).
    """

    states: np.ndarray
    controls: np.ndarray
    gains: np.ndarray
    feedforward: np.ndarray
    cost: float
    cost_history: np.ndarray
    reg_history: np.ndarray
    step_history: np.ndarray
    n_iter: int
    converged: bool
    conventions: dict = field(default_factory=dict)


def _rollout(dynamics, cost, x0, U):
    T = U.shape[0]
    X = np.zeros((T + 1, x0.size))
    X[0] = x0
    J = 0.0
    for t in range(T):
        J += cost.stage(X[t], U[t])
        X[t + 1] = np.asarray(dynamics(X[t], U[t]), dtype=np.float64)
    J += cost.final(X[T])
    return X, J


def ilqr(
    dynamics,
    cost,
    x0,
    controls_init,
    *,
    dynamics_jacobians=None,
    max_iter: int = 100,
    tol: float = 1e-8,
    reg_init: float = 0.0,
    reg_min: float = 1e-6,
    reg_max: float = 1e10,
    reg_factor: float = 10.0,
    max_backtracks: int = 12,
    fd_eps: float = 1e-6,
) -> ILQRResult:
    """iLQR / DDP (CS229 §16.3.2; module docstring) from the nominal controls ``controls_init`` (T, m).

    Parameters
    ----------
    dynamics : callable (x (n,), u (m,)) -> x_next (n,)
    cost : QuadraticCost or an object with the same methods
    x0 : array (n,)
    controls_init : array (T, m)
        Nominal controls of step 1 (the "naive controller").
    dynamics_jacobians : callable (x, u) -> (f_x (n, n), f_u (n, m)), optional
        Default: central finite differences with step ``fd_eps``.
    max_iter, tol
        Converged when the backward pass predicts a decrease below ``tol * max(1, |J|)`` or an accepted
        step lowers the cost by less than that; stops unconverged when ``mu`` exceeds ``reg_max``
        without an accepted step. ``gains``/``feedforward`` come from the last backward pass.
    """
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    U = np.asarray(controls_init, dtype=np.float64)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2 or U.shape[0] < 1:
        raise ControlInputError(f"controls_init must have shape (T, m), got {U.shape}")
    for name in ("stage", "final", "stage_derivatives", "final_derivatives"):
        if not callable(getattr(cost, name, None)):
            raise ControlInputError(f"cost must provide a {name}() method (see QuadraticCost)")
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    T, m = U.shape
    n = x0.size
    jac = dynamics_jacobians or (lambda x, u: finite_difference_jacobians(dynamics, x, u, fd_eps))
    X, J = _rollout(dynamics, cost, x0, U)
    if X.shape[1] != n or not np.isfinite(J):
        raise ControlInputError("the dynamics must map an (n,) state to an (n,) state and give a finite initial cost")
    mu = float(reg_init)
    costs, regs, steps = [J], [], []
    k_ff = np.zeros((T, m))
    K_fb = np.zeros((T, m, n))
    converged = False
    alphas = 0.5 ** np.arange(max_backtracks)
    for _ in range(max_iter):
        derivs = [jac(X[t], U[t]) for t in range(T)]
        stage = [cost.stage_derivatives(X[t], U[t]) for t in range(T)]
        accepted = False
        while not accepted:
            ok, k_new, K_new, d1, d2 = _backward(derivs, stage, cost.final_derivatives(X[T]), mu, n, m)
            if not ok:
                mu = max(reg_min, mu * reg_factor)
                if mu > reg_max:
                    break
                continue
            k_ff, K_fb = k_new, K_new
            if -(d1 + d2) <= tol * max(1.0, abs(J)):
                # the local model predicts no further decrease: the trajectory is (locally) optimal
                converged = True
                break
            for alpha in alphas:
                Xn = np.zeros_like(X)
                Un = np.zeros_like(U)
                Xn[0] = x0
                Jn = 0.0
                for t in range(T):
                    Un[t] = U[t] + alpha * k_ff[t] + K_fb[t] @ (Xn[t] - X[t])
                    Jn += cost.stage(Xn[t], Un[t])
                    Xn[t + 1] = dynamics(Xn[t], Un[t])
                Jn += cost.final(Xn[T])
                expected = -(alpha * d1 + alpha**2 * d2)
                if np.isfinite(Jn) and Jn < J and (expected <= 0 or (J - Jn) >= 1e-4 * expected):
                    accepted = True
                    break
            if not accepted:
                mu = max(reg_min, mu * reg_factor)
                if mu > reg_max:
                    break
        regs.append(mu)
        if converged or not accepted:
            steps.append(0.0)
            break
        steps.append(float(alpha))
        improvement = J - Jn
        X, U, J = Xn, Un, Jn
        costs.append(J)
        mu = mu / reg_factor if mu / reg_factor >= reg_min else 0.0
        if improvement <= tol * max(1.0, abs(J)):
            converged = True
            break
    if not np.all(np.isfinite(X)):
        raise DivergenceError("iLQR produced a non-finite trajectory")
    return ILQRResult(
        X,
        U,
        K_fb,
        k_ff,
        float(J),
        np.array(costs),
        np.array(regs),
        np.array(steps),
        len(regs),
        converged,
        {
            "regularization": "mu I added to Q_uu",
            "line_search": "alpha = 1, 1/2, ...; Armijo 1e-4",
            "second_order_dynamics": "ignored (iLQR)",
        },
    )


def _backward(derivs, stage, final, mu, n, m):
    T = len(derivs)
    Vx, Vxx = final
    k_ff = np.zeros((T, m))
    K_fb = np.zeros((T, m, n))
    d1 = d2 = 0.0
    for t in range(T - 1, -1, -1):
        fx, fu = derivs[t]
        lx, lu, lxx, luu, lux = stage[t]
        Qx = lx + fx.T @ Vx
        Qu = lu + fu.T @ Vx
        Qxx = lxx + fx.T @ Vxx @ fx
        Quu = luu + fu.T @ Vxx @ fu
        Qux = lux + fu.T @ Vxx @ fx
        Quu_reg = (Quu + Quu.T) / 2 + mu * np.eye(m)
        try:
            cf = scipy.linalg.cho_factor(Quu_reg)
        except np.linalg.LinAlgError:
            return False, k_ff, K_fb, 0.0, 0.0
        k = -scipy.linalg.cho_solve(cf, Qu)
        K = -scipy.linalg.cho_solve(cf, Qux)
        k_ff[t], K_fb[t] = k, K
        d1 += float(k @ Qu)
        d2 += 0.5 * float(k @ Quu @ k)
        Vx = Qx + K.T @ Quu @ k + K.T @ Qu + Qux.T @ k
        Vxx = Qxx + K.T @ Quu @ K + K.T @ Qux + Qux.T @ K
        Vxx = (Vxx + Vxx.T) / 2
    return True, k_ff, K_fb, d1, d2


#: the notes' name for the method
ddp = ilqr
