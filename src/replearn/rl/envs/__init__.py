"""Environments with a small common interface (``reset(seed=None) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``), seeded through ``random_state``.

* :func:`russell_norvig_4x3`, :class:`GridWorld`, :func:`random_grid_world` -- grid worlds, exportable
  as a :class:`~replearn.rl.mdp.FiniteMDP` (``to_mdp``);
* :class:`CartPole` -- the inverted pendulum of CS229 problem set 4 (:func:`cartpole_dynamics`);
* :class:`Pendulum` -- a torque-driven pendulum (:func:`pendulum_dynamics`), the iLQR test problem;
* :class:`LinearGaussianSystem` -- linear dynamics, Gaussian noise, quadratic cost (LQR / LQG).
"""

from .base import Env
from .cartpole import CARTPOLE_CONSTANTS, CartPole, cartpole_dynamics
from .gridworld import ACTIONS, GridWorld, random_grid_world, russell_norvig_4x3
from .linear_gaussian import LinearGaussianSystem
from .pendulum import Pendulum, pendulum_dynamics
from .spaces import Box, Discrete

__all__ = [
    "ACTIONS",
    "CARTPOLE_CONSTANTS",
    "Box",
    "CartPole",
    "Discrete",
    "Env",
    "GridWorld",
    "LinearGaussianSystem",
    "Pendulum",
    "cartpole_dynamics",
    "pendulum_dynamics",
    "random_grid_world",
    "russell_norvig_4x3",
]
