"""Optimizers shared by the iterative models.

* :func:`gradient_descent` -- fixed-step batch gradient descent/ascent (CS229 notes §1.1).
* :func:`newton_root`, :func:`newton_optimize` -- Newton's method in one dimension (CS229 notes §2.3).
* :func:`projected_gradient_descent`, :func:`projected_sgd` and the projections :func:`project_box`,
  :func:`project_l2_ball`, :func:`project_l1_ball`, :func:`project_simplex` (EPFL notes, constrained
  optimization).
* :func:`coordinate_ascent`, :func:`quadratic_coordinate_ascent` (CS229 notes §6.8.1).
* :func:`truncated_gradient_step` (CIML §14.3, eq. 14.8 corrected), :func:`soft_threshold`,
  :func:`proximal_gradient` (ISTA/FISTA).

Every optimizer returns an :class:`OptimizeResult` (params, loss_history, n_iter, converged) -- the 1-D
Newton methods a :class:`RootResult` -- raises :class:`~replearn.exceptions.DivergenceError` on NaN/inf
and warns :class:`~replearn.exceptions.ConvergenceWarning` at ``max_iter``.
"""

from .coordinate import coordinate_ascent, quadratic_coordinate_ascent
from .gradient import OptimizeResult, check_finite_step, gradient_descent, relative_change
from .newton import RootResult, newton_optimize, newton_root
from .projected import (
    project_box,
    project_l1_ball,
    project_l2_ball,
    project_simplex,
    projected_gradient_descent,
    projected_sgd,
)
from .proximal import proximal_gradient, soft_threshold, truncated_gradient_step

__all__ = [
    "OptimizeResult",
    "RootResult",
    "check_finite_step",
    "coordinate_ascent",
    "gradient_descent",
    "newton_optimize",
    "newton_root",
    "project_box",
    "project_l1_ball",
    "project_l2_ball",
    "project_simplex",
    "projected_gradient_descent",
    "projected_sgd",
    "proximal_gradient",
    "quadratic_coordinate_ascent",
    "relative_change",
    "soft_threshold",
    "truncated_gradient_step",
]
