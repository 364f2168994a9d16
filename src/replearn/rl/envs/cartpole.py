"""The cart-pole (inverted pendulum) of CS229 problem set 4, with its constants and failure rule.

State ``s = (x, x_dot, theta, theta_dot)`` (notes L5430: the inverted pendulum has a 4-d state and a
1-d action); ``theta = 0`` is upright, radians. The force is ``+force_mag`` for action 1 and
``-force_mag`` for action 0 (PS4: ``force_mag if action > 0 else -force_mag``). Dynamics (Barto,
Sutton & Anderson 1983, as coded in PS4's ``cart_pole.py``), one Euler step of ``tau`` seconds::

    temp        = (F + m_p l theta_dot^2 sin(theta)) / (m_c + m_p)
    theta_acc   = (g sin(theta) - cos(theta) temp) / (l (4/3 - m_p cos^2(theta) / (m_c + m_p)))
    x_acc       = temp - m_p l theta_acc cos(theta) / (m_c + m_p)
    x += tau x_dot;  x_dot += tau x_acc;  theta += tau theta_dot;  theta_dot += tau theta_acc

Constants (PS4): ``g = 9.8``, cart mass ``m_c = 1.0``, pole mass ``m_p = 0.3``, half pole length
``l = 0.7``, ``force_mag = 10``, ``tau = 0.02`` s. The episode fails (``terminated``, reward -1) when
``|x| > 2.4`` or ``|theta| > 12 degrees`` (0.2094384 rad); every other step pays 0, as in PS4.
PS4 starts every trial at the zero state (``init_noise=0``); the default ``init_noise=0.05`` draws
each coordinate uniformly in ``[-0.05, 0.05]`` (Gym's convention) so that episodes differ.
"""

from __future__ import annotations

import numpy as np

from .base import Env
from .spaces import Box, Discrete

__all__ = ["CARTPOLE_CONSTANTS", "CartPole", "cartpole_dynamics"]

CARTPOLE_CONSTANTS = {
    "gravity": 9.8,
    "mass_cart": 1.0,
    "mass_pole": 0.3,
    "length": 0.7,
    "force_mag": 10.0,
    "tau": 0.02,
    "x_threshold": 2.4,
    "theta_threshold": 0.2094384,
}


def cartpole_dynamics(states, force, *, gravity=9.8, mass_cart=1.0, mass_pole=0.3, length=0.7, tau=0.02):
    """One Euler step of the PS4 cart-pole for a batch of states (n, 4) or one state (4,) and force(s) in newtons."""
    s = np.asarray(states, dtype=np.float64)
    x, x_dot, th, th_dot = (s[..., i] for i in range(4))
    F = np.asarray(force, dtype=np.float64)
    total = mass_cart + mass_pole
    sin, cos = np.sin(th), np.cos(th)
    temp = (F + mass_pole * length * th_dot**2 * sin) / total
    th_acc = (gravity * sin - cos * temp) / (length * (4.0 / 3.0 - mass_pole * cos**2 / total))
    x_acc = temp - mass_pole * length * th_acc * cos / total
    return np.stack([x + tau * x_dot, x_dot + tau * x_acc, th + tau * th_dot, th_dot + tau * th_acc], axis=-1)


class CartPole(Env):
    """PS4 cart-pole with two actions (push left / push right); see the module docstring."""

    def __init__(self, *, init_noise=0.05, random_state=None, max_steps=None):
        super().__init__(random_state=random_state, max_steps=max_steps)
        self.init_noise = float(init_noise)
        c = CARTPOLE_CONSTANTS
        hi = np.array([c["x_threshold"], np.inf, c["theta_threshold"], np.inf])
        self.observation_space = Box(-hi, hi)
        self.action_space = Discrete(2)
        self.state = np.zeros(4)

    def failed(self, states) -> np.ndarray:
        s = np.asarray(states, dtype=np.float64)
        c = CARTPOLE_CONSTANTS
        return (np.abs(s[..., 0]) > c["x_threshold"]) | (np.abs(s[..., 2]) > c["theta_threshold"])

    def _reset(self):
        self.state = self.rng.uniform(-self.init_noise, self.init_noise, size=4) if self.init_noise > 0 else np.zeros(4)
        return self.state.copy()

    def _step(self, action):
        force = CARTPOLE_CONSTANTS["force_mag"] * (1.0 if int(action) > 0 else -1.0)
        self.state = cartpole_dynamics(self.state, force)
        fail = bool(self.failed(self.state))
        return self.state.copy(), -1.0 if fail else 0.0, fail, {}
