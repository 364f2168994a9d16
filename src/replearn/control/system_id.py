"""Learning linear dynamics s_{t+1} = A s_t + B a_t (+ eps) from rollouts, by least squares (CS229 §15.4.2).

CS229 §15.4.2 (seed 000 L5466-5500): execute n trials of T steps (random actions, a policy, ...), observe the
state sequences ``s_0 -a_0-> s_1 -a_1-> ... -> s_T``, and learn the linear model (eq. 15.6)
``s_{t+1} = A s_t + B a_t`` "using an algorithm similar to linear regression", by

    argmin_{A, B}  sum_{i=1}^{n} sum_{t=0}^{T-1} || s_{t+1}^{(i)} - (A s_t^{(i)} + B a_t^{(i)}) ||_2^2 .

The objective separates over the rows of [A B]: row j is the least-squares regression of the j-th coordinate
of s_{t+1} on z_t = [s_t, a_t]. All rows at once: with Z (N, n + m) stacking the z_t of every trial and S' (N, n)
the next states, ``[A B]^T = argmin ||S' - Z M||_F^2``, solved by one orthogonal (QR/SVD) least-squares solve
(``scipy.linalg.lstsq``); N = sum of the trials' lengths. A stochastic model (L5491-5495) adds
``eps_t ~ N(0, Sigma)``; Sigma "can also be estimated from data in a straightforward way": the residual
covariance ``R^T R / (N - n - m)`` (unbiased for the Gaussian linear model; ``noise_cov_mle`` divides by N).
``fit_offset=True`` adds a constant c (``s_{t+1} = A s_t + B a_t + c``: a linearization around a non-zero
operating point, §16.3.1's "extra 1 dimension").

[A B] is identifiable only if the regressors span R^{n+m}: actions that never vary, or states confined to a
subspace, leave directions of A or B undetermined -- refused with a message saying to excite the system, not
answered with an arbitrary minimum-norm solution. The notes' variants (a non-squared ||.||_2 loss, features
phi_s, phi_a, locally weighted regression) are not implemented; features can be applied to the states and
actions before calling :func:`fit_linear_dynamics`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..validation import check_array, check_random_state, check_scalar
from ._checks import as_matrix, check_symmetric_psd
from .exceptions import ControlInputError

__all__ = ["LinearDynamicsModel", "fit_linear_dynamics", "simulate_linear_rollouts"]


@dataclass
class LinearDynamicsModel:
    """The learned model: ``A`` (n, n), ``B`` (n, m), ``offset`` (n,) (zeros unless fitted), ``noise_cov`` (n, n)
    (unbiased), ``noise_cov_mle`` (n, n), ``n_transitions`` N, ``rank`` of the regressors, ``residuals`` (N, n)."""

    A: np.ndarray
    B: np.ndarray
    offset: np.ndarray
    noise_cov: np.ndarray
    noise_cov_mle: np.ndarray
    n_transitions: int
    rank: int
    residuals: np.ndarray

    def predict(self, states, actions) -> np.ndarray:
        """The deterministic model (eq. 15.6): ``A s + B a (+ c)`` for rows of states (k, n) and actions (k, m)."""
        S = check_array(states, name="states")
        U = check_array(actions, name="actions")
        n, m = self.B.shape
        if S.shape[1] != n or U.shape[1] != m or S.shape[0] != U.shape[0]:
            raise ControlInputError(
                f"states and actions must have shapes (k, {n}) and (k, {m}), got {S.shape} and {U.shape}"
            )
        return S @ self.A.T + U @ self.B.T + self.offset

    def simulate(self, initial_state, actions, *, stochastic: bool = True, random_state=None) -> np.ndarray:
        """Roll the model out from ``initial_state`` (n,) under ``actions`` (T, m): states (T + 1, n); with
        ``stochastic``, ``eps_t ~ N(0, noise_cov)`` is added at every step (the notes' stochastic simulator)."""
        n, m = self.B.shape
        s = check_array(initial_state, name="initial_state", ndim=1)
        U = check_array(actions, name="actions")
        if s.shape != (n,) or U.shape[1] != m:
            raise ControlInputError(f"initial_state must be ({n},) and actions (T, {m}), got {s.shape} and {U.shape}")
        rng = check_random_state(random_state)
        out = np.empty((U.shape[0] + 1, n))
        out[0] = s
        for t in range(U.shape[0]):
            out[t + 1] = self.A @ out[t] + self.B @ U[t] + self.offset
            if stochastic:
                out[t + 1] += rng.multivariate_normal(np.zeros(n), self.noise_cov)
        return out


def _trials(values, name: str, extra: int):
    """A 3-D array (trials, steps, dim) or a list of 2-D arrays -> list of validated 2-D arrays."""
    if isinstance(values, np.ndarray) and values.ndim == 3:
        values = list(values)
    if not isinstance(values, (list, tuple)) or len(values) == 0:
        raise ControlInputError(
            f"{name} must be a non-empty list of per-trial arrays (steps, dim) or a 3-D array (trials, steps, dim)"
        )
    out = []
    for i, v in enumerate(values):
        arr = check_array(v, name=f"{name}[{i}]")
        if arr.shape[0] < 1 + extra:
            raise ControlInputError(f"{name}[{i}] has {arr.shape[0]} rows; a trial needs at least {1 + extra}")
        out.append(arr)
    return out


def fit_linear_dynamics(states, actions, *, fit_offset: bool = False) -> LinearDynamicsModel:
    """Least-squares [A B] (and c) from trials (see the module).

    Parameters
    ----------
    states : list of (T_i + 1, n) arrays, or an array (trials, T + 1, n) -- s_0 .. s_T of each trial
    actions : list of (T_i, m) arrays, or an array (trials, T, m) -- a_0 .. a_{T-1}
    fit_offset : bool -- also fit a constant c
    """
    if not isinstance(fit_offset, (bool, np.bool_)):
        raise TypeError(f"fit_offset must be a bool, got {type(fit_offset).__name__} {fit_offset!r}")
    S = _trials(states, "states", extra=1)
    U = _trials(actions, "actions", extra=0)
    if len(S) != len(U):
        raise ControlInputError(f"states has {len(S)} trials but actions has {len(U)}")
    n, m = S[0].shape[1], U[0].shape[1]
    for i, (s, u) in enumerate(zip(S, U)):
        if s.shape[1] != n or u.shape[1] != m:
            raise ControlInputError(f"trial {i}: every trial needs {n} state and {m} action columns")
        if s.shape[0] != u.shape[0] + 1:
            raise ControlInputError(
                f"trial {i}: {s.shape[0]} states need {s.shape[0] - 1} actions (s_0 .. s_T, a_0 .. a_(T-1)), "
                f"got {u.shape[0]}"
            )
    Z = np.vstack([np.hstack([s[:-1], u]) for s, u in zip(S, U)])
    Y = np.vstack([s[1:] for s in S])
    if fit_offset:
        Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
    N, p = Z.shape
    M, _, rank, sv = scipy.linalg.lstsq(Z, Y, lapack_driver="gelsd")
    tol = max(Z.shape) * np.finfo(np.float64).eps * (sv[0] if sv.size else 0.0)
    rank = int(np.sum(sv > tol))
    if rank < p:
        raise ControlInputError(
            f"the regressors [s_t, a_t{', 1' if fit_offset else ''}] of the {N} transitions have rank {rank} < {p}: "
            "A and B are not identifiable from these rollouts (actions that never vary, states in a subspace); "
            "excite the system with varied actions and starting states"
        )
    R = Y - Z @ M
    dof = N - p
    cov_mle = R.T @ R / N
    cov = R.T @ R / dof if dof > 0 else np.full((n, n), np.nan)
    return LinearDynamicsModel(
        A=M[:n].T.copy(),
        B=M[n : n + m].T.copy(),
        offset=M[n + m].copy() if fit_offset else np.zeros(n),
        noise_cov=(cov + cov.T) / 2,
        noise_cov_mle=(cov_mle + cov_mle.T) / 2,
        n_transitions=N,
        rank=rank,
        residuals=R,
    )


def simulate_linear_rollouts(
    A, B, n_trials, horizon, *, noise_cov=None, action_scale=1.0, state_scale=1.0, policy=None, random_state=None
):
    """Trials of ``s_{t+1} = A s_t + B a_t + eps_t``: s_0 ~ N(0, state_scale^2 I), actions
    ``a_t ~ N(0, action_scale^2 I)`` (random exploration) or ``policy(s, t, rng)`` plus that noise, eps_t ~
    N(0, noise_cov). Returns ``(states (n_trials, horizon + 1, n), actions (n_trials, horizon, m))``."""
    A = as_matrix(A, "A")
    n = A.shape[0]
    A = as_matrix(A, "A", (n, n))
    B = as_matrix(B, "B")
    if B.ndim == 2 and B.shape[0] != n and B.size == n:
        B = B.reshape(n, 1)
    m = B.shape[1]
    B = as_matrix(B, "B", (n, m))
    check_scalar(n_trials, "n_trials", numbers.Integral, low=1)
    check_scalar(horizon, "horizon", numbers.Integral, low=1)
    check_scalar(action_scale, "action_scale", numbers.Real, low=0.0)
    check_scalar(state_scale, "state_scale", numbers.Real, low=0.0)
    Sigma = np.zeros((n, n)) if noise_cov is None else as_matrix(noise_cov, "noise_cov", (n, n))
    check_symmetric_psd(Sigma, "noise_cov")
    rng = check_random_state(random_state)
    w, V = np.linalg.eigh((Sigma + Sigma.T) / 2)
    L = V * np.sqrt(np.maximum(w, 0.0))  # L L^T = Sigma (PSD, possibly singular)
    S = np.empty((int(n_trials), int(horizon) + 1, n))
    U = np.empty((int(n_trials), int(horizon), m))
    for i in range(int(n_trials)):
        S[i, 0] = state_scale * rng.standard_normal(n)
        for t in range(int(horizon)):
            a = action_scale * rng.standard_normal(m)
            if policy is not None:
                a = a + np.asarray(policy(S[i, t], t, rng), dtype=np.float64).reshape(m)
            U[i, t] = a
            S[i, t + 1] = A @ S[i, t] + B @ a + L @ rng.standard_normal(n)
    return S, U
