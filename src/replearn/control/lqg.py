"""Linear quadratic Gaussian control by certainty equivalence (CS229 notes §16.4, L5858-5944).

The state is seen only through ``y_t = C x_t + v_t``. The notes' recipe: run the Kalman filter
(:mod:`.kalman`) for the belief ``N(x_{t|t}, Sigma_{t|t})``, run LQR (:mod:`.lqr`) as if the state
were observed, and act ``u_t = -K_t x_{t|t}`` (the notes' ``a_t = L_t s_{t|t}``). This is optimal
(the separation principle): the estimate's error is independent of the data and the gains do not
depend on noise (notes Fact 3).

Expected cost of that controller (derived by completing the square in the Bellman recursion):

    J = m_0^T P_0 m_0 + tr(P_0 Sigma_0)                       (initial state)
        + sum_{t<T} tr(Sigma_s P_{t+1})                       (process noise, the LQR offsets)
        + sum_{t<T} tr(K_t^T (R + B^T P_{t+1} B) K_t Sigma_{t|t})   (acting on an estimate)

The last line, the *covariance term*, is what partial observation costs: ``u_t + K_t x_t = K_t e_t``
with the estimation error ``e_t ~ N(0, Sigma_{t|t})``. With ``C = I`` and ``Sigma_y -> 0`` it vanishes
and ``J`` is the fully observed LQR cost. :func:`simulate_lqg` checks ``J`` by Monte Carlo.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..validation import check_random_state, check_scalar
from ._checks import as_matrix, check_symmetric_psd
from .exceptions import ControlInputError
from .kalman import _joseph, kalman_gain
from .lqr import LQRResult, lqr

__all__ = ["LQGResult", "lqg", "simulate_lqg"]


@dataclass
class LQGResult:
    """LQR part, Kalman part and the expected cost split into its three terms (module docstring).

    ``kalman_gains[t]`` is ``K_t`` of the filter (n, p); ``filtered_covs[t]`` = ``Sigma_{t|t}``;
    ``predicted_covs[t]`` = ``Sigma_{t|t-1}`` (row 0 the prior). ``cost_terms`` has keys
    ``"initial"``, ``"process_noise"``, ``"estimation"``.
    """

    lqr: LQRResult
    kalman_gains: np.ndarray
    filtered_covs: np.ndarray
    predicted_covs: np.ndarray
    expected_cost: float
    cost_terms: dict
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    Q: np.ndarray
    R: np.ndarray
    Qf: np.ndarray
    process_cov: np.ndarray
    obs_cov: np.ndarray
    initial_mean: np.ndarray
    initial_cov: np.ndarray
    horizon: int


def lqg(A, B, C, Q, R, process_cov, obs_cov, initial_mean, initial_cov, horizon: int, *, Qf=None) -> LQGResult:
    """Finite-horizon LQG: LQR gains, Kalman gains and covariances, expected cost (module docstring)."""
    check_scalar(horizon, "horizon", numbers.Integral, low=1)
    T = int(horizon)
    A = as_matrix(A, "A")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ControlInputError(f"A must be square, got {A.shape}")
    n = A.shape[0]
    B = as_matrix(B, "B")
    B = B.reshape(n, -1) if B.ndim == 1 or (B.ndim == 2 and B.shape[0] != n and B.size % n == 0) else B
    C = as_matrix(C, "C")
    C = C.reshape(1, -1) if C.ndim == 1 else C
    if B.shape[0] != n or C.shape[1] != n:
        raise ControlInputError(f"B must be ({n}, m) and C (p, {n}); got {B.shape} and {C.shape}")
    p = C.shape[0]
    Sw = check_symmetric_psd(as_matrix(process_cov, "process_cov", (n, n)), "process_cov")
    Sv = check_symmetric_psd(as_matrix(obs_cov, "obs_cov", (p, p)), "obs_cov")
    m0 = as_matrix(initial_mean, "initial_mean").reshape(-1)
    if m0.shape != (n,):
        raise ControlInputError(f"initial_mean must have shape ({n},), got {m0.shape}")
    P0 = check_symmetric_psd(as_matrix(initial_cov, "initial_cov", (n, n)), "initial_cov")
    ctrl = lqr(A, B, Q, R, T, Qf=Qf, noise_cov=Sw)
    Q = as_matrix(Q, "Q", (n, n))
    R = as_matrix(R, "R", (B.shape[1], B.shape[1]))
    Qf = ctrl.cost_to_go[T]
    L = np.zeros((T, n, p))
    Pf = np.zeros((T, n, n))
    Pp = np.zeros((T, n, n))
    P = P0
    for t in range(T):
        Pp[t] = P
        L[t], _ = kalman_gain(P, C, Sv)
        Pf[t] = _joseph(P, L[t], C, Sv)
        P = A @ Pf[t] @ A.T + Sw
    Pc = ctrl.cost_to_go
    initial = float(m0 @ Pc[0] @ m0 + np.trace(Pc[0] @ P0))
    noise = float(ctrl.offsets[0])
    est = 0.0
    for t in range(T):
        K = ctrl.gains[t]
        S = R + B.T @ Pc[t + 1] @ B
        est += float(np.trace(K.T @ S @ K @ Pf[t]))
    terms = {"initial": initial, "process_noise": noise, "estimation": est}
    return LQGResult(ctrl, L, Pf, Pp, initial + noise + est, terms, A, B, C, Q, R, Qf, Sw, Sv, m0, P0, T)


def simulate_lqg(result: LQGResult, n_rollouts: int = 1000, *, random_state=None, full_state: bool = False):
    """Run the LQG controller (or, with ``full_state``, LQR on the true state) on ``n_rollouts`` systems.

    Returns the realized costs ``sum_{t<T} (x^T Q x + u^T R u) + x_T^T Q_f x_T``, shape (n_rollouts,).
    All rollouts advance together (vectorized); randomness only from ``random_state``.
    """
    check_scalar(n_rollouts, "n_rollouts", numbers.Integral, low=1)
    rng = check_random_state(random_state)
    r = result
    N = int(n_rollouts)

    def gauss(cov, size):
        return rng.multivariate_normal(np.zeros(cov.shape[0]), cov, size=size, method="eigh")

    x = r.initial_mean + gauss(r.initial_cov, N)
    m = np.tile(r.initial_mean, (N, 1))
    cost = np.zeros(N)
    for t in range(r.horizon):
        y = x @ r.C.T + gauss(r.obs_cov, N)
        xhat = m + (y - m @ r.C.T) @ r.kalman_gains[t].T
        u = -(x if full_state else xhat) @ r.lqr.gains[t].T
        cost += np.einsum("ni,ij,nj->n", x, r.Q, x) + np.einsum("ni,ij,nj->n", u, r.R, u)
        x = x @ r.A.T + u @ r.B.T + gauss(r.process_cov, N)
        m = xhat @ r.A.T + u @ r.B.T
    cost += np.einsum("ni,ij,nj->n", x, r.Qf, x)
    return cost
