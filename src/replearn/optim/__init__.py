"""Optimizers shared by the iterative models.

* :func:`gradient_descent` -- fixed-step batch gradient descent/ascent (CS229 notes §1.1).

Every optimizer returns an :class:`OptimizeResult` (params, loss_history, n_iter, converged),
raises :class:`~replearn.exceptions.DivergenceError` on NaN/inf and warns
:class:`~replearn.exceptions.ConvergenceWarning` at ``max_iter``.
"""

from .gradient import OptimizeResult, check_finite_step, gradient_descent, relative_change

__all__ = ["OptimizeResult", "check_finite_step", "gradient_descent", "relative_change"]
