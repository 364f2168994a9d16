"""Batch gradient descent (or ascent) with a fixed step size.

The update is the CS229 notes' batch rule (§1.1, seed 000 L200-236, eq. 1.1)::

    theta := theta - alpha * grad J(theta)        (descent, ``maximize=False``)
    theta := theta + alpha * grad l(theta)        (ascent,  ``maximize=True``)

It stops when the gradient's norm has fallen to ``grad_rtol`` times its norm at the start
(``||g_k|| <= grad_rtol ||g_0||``: scale-free, and a bound on how far the iterate is from the
minimizer -- ``||theta_k - theta*|| <= ||g_k|| / mu`` for a ``mu``-strongly convex objective), the
objective's relative change falls to ``tol`` (``|f_k - f_{k+1}| <= tol * max(|f_k|, |f_{k+1}|, 1)``,
SciPy's ``ftol`` rule) or the gradient's largest absolute entry falls to ``gtol``. A small change of
the objective is a weak test on a flat valley: it stops steps that are still moving the parameters
(least squares on two correlated features stopped 0.7% short of the normal equations); the
gradient rules do not. It raises :class:`~replearn.exceptions.DivergenceError`
as soon as the objective or the gradient is NaN/inf, and warns
:class:`~replearn.exceptions.ConvergenceWarning` when ``max_iter`` updates were made without
meeting either tolerance.

The pieces other first-order optimizers need (:class:`OptimizeResult`, :func:`check_finite_step`,
:func:`relative_change`) are public, so SGD, momentum or Adam can be added next to this loop
with the same result type, divergence message and stopping rule.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_scalar

__all__ = ["OptimizeResult", "gradient_descent", "check_finite_step", "relative_change"]

#: fun(params) -> (objective value, gradient with the shape of params)
ObjectiveFn = Callable[[np.ndarray], tuple[float, np.ndarray]]


@dataclass
class OptimizeResult:
    """What an optimizer returns.

    ``loss_history[k]`` is the objective after ``k`` updates, so it has ``n_iter + 1`` entries
    (the first one is the objective at the starting point).
    """

    params: np.ndarray
    loss_history: np.ndarray
    n_iter: int
    converged: bool
    grad_max: float = float("nan")
    message: str = ""
    extra: dict = field(default_factory=dict)


def relative_change(f_old: float, f_new: float) -> float:
    """``|f_old - f_new| / max(|f_old|, |f_new|, 1)`` (SciPy's ``ftol`` measure)."""
    return abs(f_old - f_new) / max(abs(f_old), abs(f_new), 1.0)


def check_finite_step(loss: float, grad: np.ndarray, iteration: int, learning_rate: float) -> None:
    """Raise :class:`DivergenceError` with advice when ``loss`` or ``grad`` is NaN or infinite."""
    if np.isfinite(loss) and np.all(np.isfinite(grad)):
        return
    what = "loss" if not np.isfinite(loss) else "gradient"
    value = loss if not np.isfinite(loss) else next(v for v in np.ravel(grad) if not np.isfinite(v))
    kind = "nan" if np.isnan(value) else "inf"
    raise DivergenceError(
        f"{what} became {kind} at iteration {iteration}; the learning rate {learning_rate:g} is too large "
        "for this data — lower it or standardize the features"
    )


def gradient_descent(
    fun: ObjectiveFn,
    x0,
    *,
    learning_rate: float,
    max_iter: int,
    tol: float = 1e-6,
    gtol: float | None = None,
    maximize: bool = False,
    warn: bool = True,
    grad_rtol: float | None = None,
) -> OptimizeResult:
    """Minimize (or, with ``maximize=True``, maximize) ``fun`` by fixed-step batch gradient steps.

    Parameters
    ----------
    fun : callable
        ``fun(params) -> (value, gradient)``; it must not modify ``params``.
    x0 : array
        Starting point (copied).
    learning_rate : float > 0
        The step size alpha. For a smooth objective with L-Lipschitz gradient, descent is monotone
        when ``learning_rate < 2 / L``.
    max_iter : int >= 1
        Maximum number of updates.
    tol : float >= 0
        Stop when the relative change of the objective is at most ``tol`` (0 disables).
    gtol : float >= 0, optional
        Stop when ``max |gradient| <= gtol`` (None disables).
    grad_rtol : float >= 0, optional
        Stop when ``||gradient||_2 <= grad_rtol * ||gradient at x0||_2`` (None disables).
    maximize : bool
        Gradient ascent instead of descent.
    warn : bool
        Warn :class:`ConvergenceWarning` when ``max_iter`` is reached.

    Returns
    -------
    OptimizeResult
    """
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    if gtol is not None:
        check_scalar(gtol, "gtol", numbers.Real, low=0.0)
    if grad_rtol is not None:
        check_scalar(grad_rtol, "grad_rtol", numbers.Real, low=0.0)
    sign = 1.0 if maximize else -1.0
    params = np.array(x0, dtype=np.float64, copy=True)
    history = np.empty(max_iter + 1, dtype=np.float64)
    # Overflow is detected below and reported as DivergenceError; keep numpy quiet meanwhile.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        loss, grad = fun(params)
        loss = float(loss)
        check_finite_step(loss, grad, 0, learning_rate)
        history[0] = loss
        g0_norm = float(np.linalg.norm(grad))
        converged = (gtol is not None and float(np.max(np.abs(grad), initial=0.0)) <= gtol) or (
            grad_rtol is not None and g0_norm == 0.0
        )
        n_iter = 0
        while not converged and n_iter < max_iter:
            params = params + sign * learning_rate * grad
            new_loss, grad = fun(params)
            new_loss = float(new_loss)
            n_iter += 1
            check_finite_step(new_loss, grad, n_iter, learning_rate)
            history[n_iter] = new_loss
            if tol > 0 and relative_change(loss, new_loss) <= tol:
                converged = True
            if gtol is not None and float(np.max(np.abs(grad), initial=0.0)) <= gtol:
                converged = True
            if grad_rtol is not None and float(np.linalg.norm(grad)) <= grad_rtol * g0_norm:
                converged = True
            loss = new_loss
    grad_max = float(np.max(np.abs(grad), initial=0.0))
    if converged:
        message = f"converged after {n_iter} iterations"
    else:
        message = (
            f"gradient {'ascent' if maximize else 'descent'} did not converge in max_iter={max_iter} "
            f"iterations (last relative change {relative_change(history[max(n_iter - 1, 0)], loss):.2e}, "
            f"tol={tol:g}; max |gradient| {grad_max:.2e}"
            + (
                f", {np.linalg.norm(grad) / g0_norm:.2e} of the starting norm, grad_rtol={grad_rtol:g}"
                if grad_rtol
                else ""
            )
            + "); increase max_iter or the learning rate, "
            "or standardize the features"
        )
        if warn:
            warnings.warn(message, ConvergenceWarning, stacklevel=2)
    return OptimizeResult(
        params=params,
        loss_history=history[: n_iter + 1].copy(),
        n_iter=n_iter,
        converged=converged,
        grad_max=grad_max,
        message=message,
    )
