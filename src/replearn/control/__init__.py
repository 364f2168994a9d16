"""Optimal control of linear and nonlinear systems (CS229 notes §16.2-16.4, seed 000).

* :func:`lqr` -- finite- and infinite-horizon LQR by the (corrected) discrete Riccati recursion;
* :func:`kalman_filter`, :func:`rts_smoother`, :func:`steady_state_kalman` -- state estimation;
* :func:`lqg`, :func:`simulate_lqg` -- Kalman filter + LQR by certainty equivalence, with its expected cost;
* :func:`ilqr` (alias :func:`ddp`) -- iterative LQR / DDP for nonlinear dynamics, :class:`QuadraticCost`;
* :func:`fit_linear_dynamics` -- A, B (and the noise covariance) of s_{t+1} = A s_t + B a_t + eps learned from
  rollouts by least squares (§15.4.2), :func:`simulate_linear_rollouts` to generate them.

Conventions: cost minimization ``sum x^T Q x + u^T R u`` and ``u = -K x``; the notes' reward form
(``Phi = -P``, ``L = -K``) is available through :meth:`LQRResult.notes_form`.
"""

from .exceptions import ControlInputError
from .ilqr import ILQRResult, QuadraticCost, ddp, finite_difference_jacobians, ilqr
from .kalman import (
    KalmanResult,
    SmootherResult,
    kalman_filter,
    kalman_gain,
    rts_smoother,
    steady_state_kalman,
)
from .lqg import LQGResult, lqg, simulate_lqg
from .lqr import LQRResult, lqr, riccati_step
from .system_id import LinearDynamicsModel, fit_linear_dynamics, simulate_linear_rollouts

__all__ = [
    "ControlInputError",
    "ILQRResult",
    "KalmanResult",
    "LQGResult",
    "LQRResult",
    "LinearDynamicsModel",
    "QuadraticCost",
    "SmootherResult",
    "ddp",
    "finite_difference_jacobians",
    "fit_linear_dynamics",
    "ilqr",
    "kalman_filter",
    "kalman_gain",
    "lqg",
    "lqr",
    "riccati_step",
    "rts_smoother",
    "simulate_linear_rollouts",
    "simulate_lqg",
    "steady_state_kalman",
]
