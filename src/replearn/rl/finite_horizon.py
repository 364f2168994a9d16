"""Finite-horizon MDPs by backward dynamic programming (CS229 notes §16.1, L5610-5694).

The MDP ``(S, A, P^(t)_sa, T, R^(t))`` has payoff ``R^(0)(s_0, a_0) + ... + R^(T)(s_T, a_T)`` (no
discount needed: the sum is finite), time-dependent dynamics and rewards, and a non-stationary
optimal policy ``pi^(t)``. Backward induction:

    V_T*(s) = max_a R^(T)(s, a)                                              (eq. 16.1)
    V_t*(s) = max_a [ R^(t)(s, a) + sum_s' P^(t)_sa(s') V_{t+1}*(s') ],  t = T-1, ..., 0   (eq. 16.2)

and ``pi^(t)(s)`` attains the max. Decisions are made at ``t = 0, ..., T`` (``T + 1`` rewards, as in
the notes); ``P^(t)`` is used for ``t = 0, ..., T - 1``. An optional ``gamma`` (default 1) discounts
the future term. Run for ``T + 1`` steps from ``V = 0`` with stationary ``P`` and ``R``, value iteration
gives exactly ``V_0*`` (the notes' side note).
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass

import numpy as np

from ..validation import check_scalar
from .exceptions import MDPValidationError
from .mdp import FiniteMDP, _argmax_ties_low, check_gamma
from .planning import TIE_ATOL

__all__ = ["FiniteHorizonSolution", "finite_horizon_dp"]


@dataclass
class FiniteHorizonSolution:
    """Backward-induction result: ``values[t, s] = V_t*(s)``, ``policy[t, s] = pi^(t)(s)``, ``q_values[t, s, a]``.

    Arrays have ``horizon + 1`` rows (``t = 0, ..., T``); ``times[t]`` is the seconds spent at step ``t``.
    """

    values: np.ndarray
    policy: np.ndarray
    q_values: np.ndarray
    horizon: int
    gamma: float
    times: np.ndarray


def finite_horizon_dp(transitions, rewards, horizon: int, *, gamma: float = 1.0) -> FiniteHorizonSolution:
    """Optimal non-stationary values and policy of a finite-horizon MDP (eqs. 16.1-16.2).

    Parameters
    ----------
    transitions : array (S, A, S) or (T, S, A, S), or a FiniteMDP
        Stationary ``P_sa`` or one per step ``t = 0, ..., T - 1``. A :class:`FiniteMDP` supplies
        ``P`` and ``R`` (its ``gamma`` is ignored; pass ``gamma`` here).
    rewards : array (S,), (S, A), (T + 1, S) or (T + 1, S, A); ignored when ``transitions`` is a FiniteMDP
        Stationary or time-dependent ``R^(t)``.
    horizon : int >= 0
        ``T``.
    gamma : float in [0, 1]
        Discount of the future term (the notes use 1).
    """
    check_scalar(horizon, "horizon", numbers.Integral, low=0)
    gamma = check_gamma(gamma)
    T = int(horizon)
    if isinstance(transitions, FiniteMDP):
        P = transitions.transitions
        R = transitions.rewards
    else:
        P = np.asarray(transitions, dtype=np.float64)
        R = np.asarray(rewards, dtype=np.float64)
    if P.ndim == 3:
        S, A = P.shape[0], P.shape[1]
        P_t = np.broadcast_to(P, (max(T, 1), S, A, S))
    elif P.ndim == 4:
        if P.shape[0] != T:
            raise MDPValidationError(
                f"time-dependent transitions need horizon = {T} slices (t = 0..T-1), got {P.shape[0]}"
            )
        S, A = P.shape[1], P.shape[2]
        P_t = P
    else:
        raise MDPValidationError(f"transitions must have shape (S, A, S) or (T, S, A, S), got {P.shape}")
    if P.shape[-1] != S or S == 0 or A == 0:
        raise MDPValidationError(f"transitions must have shape (S, A, S) or (T, S, A, S), got {P.shape}")
    for t in range(P_t.shape[0] if P.ndim == 4 else 1):
        FiniteMDP(P_t[t], np.zeros(S), 0.0)  # validates rows (non-negative, sum to 1)
    R_t = _rewards_per_step(R, T, S, A)
    values = np.zeros((T + 1, S))
    policy = np.zeros((T + 1, S), dtype=np.int64)
    Q = np.zeros((T + 1, S, A))
    times = np.zeros(T + 1)
    t0 = time.perf_counter()
    Q[T] = R_t[T]
    values[T] = Q[T].max(axis=1)
    policy[T] = _argmax_ties_low(Q[T], TIE_ATOL)
    times[T] = time.perf_counter() - t0
    for t in range(T - 1, -1, -1):
        t0 = time.perf_counter()
        Q[t] = R_t[t] + gamma * np.tensordot(P_t[t], values[t + 1], axes=([2], [0]))
        values[t] = Q[t].max(axis=1)
        policy[t] = _argmax_ties_low(Q[t], TIE_ATOL)
        times[t] = time.perf_counter() - t0
    return FiniteHorizonSolution(values, policy, Q, T, gamma, times)


def _rewards_per_step(R: np.ndarray, T: int, S: int, A: int) -> np.ndarray:
    if not np.all(np.isfinite(R)):
        raise MDPValidationError("rewards contain NaN or infinite values")
    if R.shape == (S,):
        return np.broadcast_to(R[None, :, None], (T + 1, S, A))
    if R.shape == (S, A):
        return np.broadcast_to(R[None], (T + 1, S, A))
    if R.shape == (T + 1, S):
        return np.broadcast_to(R[:, :, None], (T + 1, S, A))
    if R.shape == (T + 1, S, A):
        return R
    raise MDPValidationError(
        f"rewards must have shape (S,), (S, A), (T + 1, S) or (T + 1, S, A) with S={S}, A={A}, T={T}; got {R.shape}"
    )
