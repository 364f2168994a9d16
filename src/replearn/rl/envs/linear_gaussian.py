"""A linear-Gaussian system with quadratic cost: the LQR / Kalman / LQG setting (CS229 notes §16.2, §16.4).

    x_{t+1} = A x_t + B u_t + w_t,  w_t ~ N(0, process_cov)
    y_t     = C x_t + v_t,          v_t ~ N(0, obs_cov)
    reward  = -(x_t^T Q x_t + u_t^T R u_t)

(the notes' ``R^(t) = -s^T U s - a^T W a`` with ``U = Q``, ``W = R``; ``Sigma_s`` = process_cov,
``Sigma_y`` = obs_cov). ``x_0 ~ N(initial_mean, initial_cov)``. The observation is ``y_t`` (or the
state itself with ``observe_state=True``); ``info["state"]`` always carries the true state.
"""

from __future__ import annotations

import numpy as np

from .base import Env
from .spaces import Box

__all__ = ["LinearGaussianSystem"]


class LinearGaussianSystem(Env):
    """See the module docstring. Matrices are validated by shape once, here."""

    def __init__(
        self,
        A,
        B,
        C=None,
        *,
        process_cov=None,
        obs_cov=None,
        Q=None,
        R=None,
        initial_mean=None,
        initial_cov=None,
        observe_state=False,
        random_state=None,
        max_steps=100,
    ):
        super().__init__(random_state=random_state, max_steps=max_steps)
        self.A = np.atleast_2d(np.asarray(A, dtype=np.float64))
        self.B = np.atleast_2d(np.asarray(B, dtype=np.float64))
        n, m = self.A.shape[0], self.B.shape[1]
        if self.A.shape != (n, n) or self.B.shape[0] != n:
            raise ValueError(f"A must be (n, n) and B (n, m); got {self.A.shape} and {self.B.shape}")
        self.C = np.eye(n) if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))
        p = self.C.shape[0]
        if self.C.shape[1] != n:
            raise ValueError(f"C must be (p, {n}), got {self.C.shape}")
        self.process_cov = np.zeros((n, n)) if process_cov is None else np.atleast_2d(np.asarray(process_cov, float))
        self.obs_cov = np.zeros((p, p)) if obs_cov is None else np.atleast_2d(np.asarray(obs_cov, float))
        self.Q = np.eye(n) if Q is None else np.atleast_2d(np.asarray(Q, float))
        self.R = np.eye(m) if R is None else np.atleast_2d(np.asarray(R, float))
        self.initial_mean = np.zeros(n) if initial_mean is None else np.asarray(initial_mean, float).reshape(n)
        self.initial_cov = np.zeros((n, n)) if initial_cov is None else np.atleast_2d(np.asarray(initial_cov, float))
        for name, M, k in (
            ("process_cov", self.process_cov, n),
            ("obs_cov", self.obs_cov, p),
            ("Q", self.Q, n),
            ("R", self.R, m),
            ("initial_cov", self.initial_cov, n),
        ):
            if M.shape != (k, k):
                raise ValueError(f"{name} must be ({k}, {k}), got {M.shape}")
        self.observe_state = bool(observe_state)
        self.n_states, self.n_controls, self.n_obs = n, m, p
        dim = n if observe_state else p
        self.observation_space = Box(np.full(dim, -np.inf), np.full(dim, np.inf))
        self.action_space = Box(np.full(m, -np.inf), np.full(m, np.inf))
        self.state = self.initial_mean.copy()

    def _gauss(self, cov):
        return self.rng.multivariate_normal(np.zeros(cov.shape[0]), cov, method="eigh")

    def _observe(self):
        if self.observe_state:
            return self.state.copy()
        return self.C @ self.state + self._gauss(self.obs_cov)

    def _reset(self):
        self.state = self.initial_mean + self._gauss(self.initial_cov)
        return self._observe()

    def _step(self, action):
        u = np.asarray(action, dtype=np.float64).reshape(self.n_controls)
        x = self.state
        reward = -(x @ self.Q @ x + u @ self.R @ u)
        self.state = self.A @ x + self.B @ u + self._gauss(self.process_cov)
        return self._observe(), reward, False, {"state": self.state.copy()}
