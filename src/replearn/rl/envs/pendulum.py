"""A torque-driven pendulum for swing-up and stabilization (the nonlinear test problem of iLQR/DDP).

State ``s = (theta, theta_dot)`` with ``theta = 0`` upright (radians, counter-clockwise), action a
torque ``u`` (N m). Continuous dynamics ``m l^2 theta_ddot = m g l sin(theta) - b theta_dot + u``,
integrated by one explicit Euler step of ``dt``::

    theta'     = theta + dt theta_dot
    theta_dot' = theta_dot + dt (g / l sin(theta) - b / (m l^2) theta_dot + u / (m l^2))

Defaults ``m = 1``, ``l = 1``, ``g = 9.8``, ``b = 0.1``, ``dt = 0.05``, torque limit 2 (applied by the
environment only; :func:`pendulum_dynamics` is unconstrained so iLQR sees smooth dynamics). Reward
``-(wrap(theta)^2 + 0.1 theta_dot^2 + 0.001 u^2)`` as in Gym's ``Pendulum``; the environment starts
hanging down (``theta = pi``) plus uniform noise of ``init_noise``.
"""

from __future__ import annotations

import numpy as np

from .base import Env
from .spaces import Box

__all__ = ["Pendulum", "pendulum_dynamics"]


def pendulum_dynamics(state, torque, *, mass=1.0, length=1.0, gravity=9.8, damping=0.1, dt=0.05):
    """One Euler step for a state (2,) or batch (n, 2) and torque(s)."""
    s = np.asarray(state, dtype=np.float64)
    th, th_dot = s[..., 0], s[..., 1]
    u = np.asarray(torque, dtype=np.float64).reshape(np.shape(th)) if np.ndim(torque) else float(torque)
    acc = gravity / length * np.sin(th) - damping / (mass * length**2) * th_dot + u / (mass * length**2)
    return np.stack([th + dt * th_dot, th_dot + dt * acc], axis=-1)


class Pendulum(Env):
    """Pendulum environment (module docstring); ``max_steps`` defaults to 200."""

    def __init__(self, *, max_torque=2.0, init_noise=0.1, random_state=None, max_steps=200):
        super().__init__(random_state=random_state, max_steps=max_steps)
        self.max_torque = float(max_torque)
        self.init_noise = float(init_noise)
        self.observation_space = Box([-np.inf, -np.inf], [np.inf, np.inf])
        self.action_space = Box([-self.max_torque], [self.max_torque])
        self.state = np.array([np.pi, 0.0])

    def _reset(self):
        self.state = np.array([np.pi, 0.0]) + self.rng.uniform(-self.init_noise, self.init_noise, size=2)
        return self.state.copy()

    def _step(self, action):
        u = float(np.clip(np.asarray(action, dtype=np.float64).ravel()[0], -self.max_torque, self.max_torque))
        th = (self.state[0] + np.pi) % (2 * np.pi) - np.pi
        reward = -(th**2 + 0.1 * self.state[1] ** 2 + 0.001 * u**2)
        self.state = pendulum_dynamics(self.state, u)
        return self.state.copy(), reward, False, {}
