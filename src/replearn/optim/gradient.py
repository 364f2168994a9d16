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

import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_scalar
from ._kernels import least_squares_gd

__all__ = [
    "OptimizeResult",
    "gradient_descent",
    "least_squares_gradient_descent",
    "check_finite_step",
    "relative_change",
]

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


def _check_options(learning_rate, max_iter, tol, gtol, grad_rtol) -> None:
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    if gtol is not None:
        check_scalar(gtol, "gtol", numbers.Real, low=0.0)
    if grad_rtol is not None:
        check_scalar(grad_rtol, "grad_rtol", numbers.Real, low=0.0)


def _sq_norm(grad: np.ndarray) -> float:
    """``||grad||^2`` as ``np.linalg.norm`` computes it (one BLAS dot of the flattened array), so
    ``sqrt`` of it is ``np.linalg.norm(grad)`` exactly. NaN or inf whenever an entry is (or the sum overflows)."""
    flat = grad.ravel()
    return float(flat.dot(flat))


def _check_finite(loss: float, sq_norm: float, grad: np.ndarray, iteration: int, learning_rate: float) -> None:
    """:func:`check_finite_step` with a fast path: a finite ``||grad||^2`` means every entry is finite."""
    if math.isfinite(loss) and math.isfinite(sq_norm):
        return
    check_finite_step(loss, grad, iteration, learning_rate)  # raises unless only the sum of squares overflowed


def _abs_max(grad: np.ndarray) -> float:
    return float(np.max(np.abs(grad), initial=0.0))


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
    _check_options(learning_rate, max_iter, tol, gtol, grad_rtol)
    step = (1.0 if maximize else -1.0) * learning_rate
    params = np.array(x0, dtype=np.float64, copy=True)
    history = np.empty(max_iter + 1, dtype=np.float64)
    # Overflow is detected below and reported as DivergenceError; keep numpy quiet meanwhile.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        loss, grad = fun(params)
        loss = float(loss)
        sq = _sq_norm(grad)
        _check_finite(loss, sq, grad, 0, learning_rate)
        history[0] = loss
        g0_norm = math.sqrt(sq)
        converged = (gtol is not None and _abs_max(grad) <= gtol) or (grad_rtol is not None and g0_norm == 0.0)
        check_tol = tol > 0
        n_iter = 0
        while not converged and n_iter < max_iter:
            params = params + step * grad
            new_loss, grad = fun(params)
            new_loss = float(new_loss)
            n_iter += 1
            sq = _sq_norm(grad)
            _check_finite(new_loss, sq, grad, n_iter, learning_rate)
            history[n_iter] = new_loss
            if check_tol and relative_change(loss, new_loss) <= tol:
                converged = True
            if gtol is not None and _abs_max(grad) <= gtol:
                converged = True
            if grad_rtol is not None and math.sqrt(sq) <= grad_rtol * g0_norm:
                converged = True
            loss = new_loss
    return _result(params, grad, history, n_iter, converged, loss, g0_norm, max_iter, tol, grad_rtol, maximize, warn)


def _result(params, grad, history, n_iter, converged, loss, g0_norm, max_iter, tol, grad_rtol, maximize, warn):
    """The :class:`OptimizeResult` of a gradient-descent run, and its :class:`ConvergenceWarning`."""
    grad_max = _abs_max(grad)
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
            warnings.warn(message, ConvergenceWarning, stacklevel=3)
    return OptimizeResult(
        params=params,
        loss_history=history[: n_iter + 1].copy(),
        n_iter=n_iter,
        converged=converged,
        grad_max=grad_max,
        message=message,
    )


def least_squares_gradient_descent(
    X: np.ndarray,
    y: np.ndarray,
    x0=None,
    *,
    learning_rate: float,
    max_iter: int,
    tol: float = 1e-6,
    gtol: float | None = None,
    warn: bool = True,
    grad_rtol: float | None = None,
) -> OptimizeResult:
    """:func:`gradient_descent` on ``J(w) = 1/(2n) ||X w - y||^2`` (``y`` (n,) or (n, k), ``w`` (d,) or
    (d, k): then ``J`` is the sum over the k columns and the norms are Frobenius norms), run as one
    compiled loop (:func:`replearn.optim._kernels.least_squares_gd`).

    The same iterates ``w := w - alpha (1/n) X^T (X w - y)`` from ``x0`` (default zeros), the same
    stopping rules, ``loss_history``, ``n_iter``, warning and :class:`DivergenceError` (message and
    iteration) as ``gradient_descent(lambda w: (J(w), grad J(w)), x0, ...)``; only the summation
    order of the dot products differs (rounding).
    """
    _check_options(learning_rate, max_iter, tol, gtol, grad_rtol)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, d = X.shape
    if y.shape[0] != n or y.ndim not in (1, 2):
        raise ValueError(f"y must have shape ({n},) or ({n}, k), got {y.shape}")
    shape = (d,) + y.shape[1:]
    k = 1 if y.ndim == 1 else y.shape[1]
    # the kernel works on transposed copies: each feature's and each target's values contiguous
    WT = np.zeros((k, d)) if x0 is None else np.array(x0, dtype=np.float64).reshape(d, k).T.copy()
    XT = np.ascontiguousarray(X.T)
    YT = np.ascontiguousarray(y.reshape(n, k).T)
    GT = np.zeros((k, d))
    history = np.empty(max_iter + 1, dtype=np.float64)
    # Overflow is detected and reported as DivergenceError (numpy's warnings: the kernel's Python function)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        n_iter, converged, finite, g0_norm = least_squares_gd(
            XT,
            YT,
            WT,
            GT,
            np.empty(n),
            float(learning_rate),
            int(max_iter),
            float(tol),
            -1.0 if gtol is None else float(gtol),
            -1.0 if grad_rtol is None else float(grad_rtol),
            history,
        )
    n_iter, converged = int(n_iter), bool(converged)
    params = np.ascontiguousarray(WT.T).reshape(shape)
    grad = np.ascontiguousarray(GT.T).reshape(shape)
    if not finite:
        check_finite_step(float(history[n_iter]), grad, n_iter, learning_rate)  # raises
    return _result(
        params, grad, history, n_iter, converged, float(history[n_iter]), g0_norm, max_iter, tol, grad_rtol, False, warn
    )
