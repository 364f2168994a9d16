"""Proximal gradient descent (ISTA / FISTA) for smooth + L1 objectives, and soft thresholding.

For ``F(x) = f(x) + h(x)`` with ``f`` smooth (L-Lipschitz gradient) and ``h(x) = sum_j lam_j |x_j|``
the proximal gradient step (ISTA) is::

    x := S(x - eta * grad f(x), eta * lam),      S(v, a) = sign(v) * max(|v| - a, 0)

(soft thresholding, the proximal operator of ``a |.|``). With ``eta <= 1/L`` every step decreases
``F``. FISTA (Beck & Teboulle 2009) adds Nesterov momentum on an extrapolated point and reaches
``F(x_k) - F* = O(1/k^2)`` instead of ``O(1/k)``.

None of the course texts gives a lasso solver (EPFL notes L539-561, seed 004: "no solver is given";
CS229 notes §9.1 L3845-3915 only names the L1 surrogate). The sparse *stochastic* version -- SGD
followed by soft thresholding -- is CIML's truncated gradient (§14.3, seed 001 L4412-4428) with its
erratum 16 corrected: the book's eq. 14.8 zeroes the *gradient* coordinate, which lands on 0 only
when ``eta g_d = w_d``; the intent (L4424) is to set the *weight* to 0 when the step would cross
zero. :func:`truncated_gradient_step` is that step for any (sub)gradient ``g``; when the part of ``g``
that crosses zero is the L1 term ``lam sign(w)`` it equals :func:`soft_threshold` of the loss step
(what ``linear_classifier(solver="truncated_gradient")`` applies after each loss step).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable

import numpy as np

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_scalar
from .gradient import OptimizeResult

__all__ = ["soft_threshold", "truncated_gradient_step", "proximal_gradient"]


def soft_threshold(v: np.ndarray, a) -> np.ndarray:
    """``sign(v) * max(|v| - a, 0)`` elementwise (``a`` a scalar or an array like ``v``)."""
    return np.sign(v) * np.maximum(np.abs(v) - a, 0.0)


def truncated_gradient_step(w, g, learning_rate: float = 1.0, *, truncate: bool = True) -> np.ndarray:
    """One (sub)gradient step ``w - eta g``, truncated at zero (CIML §14.3, eq. 14.8 corrected, L4412-4424).

    "If you have a gradient that would step you over w_d = 0, then just set w_d = 0": coordinates with
    ``w_d > 0`` whose step would end below 0, or ``w_d < 0`` ending above 0, become exactly 0; the others
    take the plain step (a coordinate at 0 takes it too: no zero is crossed). The book's eq. 14.8 sets the
    *gradient* to 0 instead, which leaves the weight where it was (erratum 16 of the catalogue); this is the
    intent the text states. ``truncate=False`` is the plain step (the text's "overstep" example:
    0.6 - 0.8 = -0.2, then -0.2 + 0.3 = 0.1).
    """
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    w = np.asarray(w, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    if w.shape != g.shape:
        raise ValueError(f"w and g must have the same shape, got {w.shape} and {g.shape}")
    new = w - learning_rate * g
    if truncate:
        new = np.where(((w > 0) & (new < 0)) | ((w < 0) & (new > 0)), 0.0, new)
    return new


def proximal_gradient(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    lam,
    x0,
    *,
    step: float,
    max_iter: int,
    tol: float,
    accelerated: bool = True,
    stop: Callable[[np.ndarray, np.ndarray, float], bool] | None = None,
    warn: bool = True,
    name: str = "proximal gradient",
) -> OptimizeResult:
    """Minimize ``f(x) + sum_j lam_j |x_j|`` by ISTA (``accelerated=False``) or FISTA.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (f(x), grad f(x))`` of the smooth part.
    lam : float or array
        Per-coordinate L1 weights (0 leaves a coordinate unpenalized, e.g. an intercept).
    step : float > 0
        The step ``eta``; ``1/L`` guarantees descent.
    max_iter : int >= 1
    tol : float >= 0
        Default stopping rule: ``max |x_{k+1} - x_k| <= tol * max(max |x_{k+1}|, 1)``
        (used when ``stop`` is None).
    accelerated : bool
        FISTA with the monotone restart of O'Donoghue & Candès (momentum is reset whenever
        the objective goes up), so ``loss_history`` still decreases.
    stop : callable, optional
        ``stop(x, grad_f(x), F(x)) -> bool`` replaces the default rule (e.g. a duality gap).

    Returns
    -------
    OptimizeResult with ``loss_history[k] = F(x_k)`` (entry 0 at ``x0``).
    """
    check_scalar(step, "step", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), np.shape(x0))
    x = np.array(x0, dtype=np.float64, copy=True)

    def total(fx, xx):
        return fx + float(np.sum(lam * np.abs(xx)))

    with np.errstate(over="ignore", invalid="ignore"):
        fx, gx = fun(x)
        F = total(fx, x)
        history = [F]
        y, gy = x, gx
        t_mom = 1.0
        converged = False
        n_iter = 0
        while n_iter < max_iter:
            x_new = soft_threshold(y - step * gy, step * lam)
            f_new, g_new = fun(x_new)
            F_new = total(f_new, x_new)
            n_iter += 1
            if not (np.isfinite(F_new) and np.all(np.isfinite(x_new))):
                raise DivergenceError(
                    f"{name}: the objective became nan or inf at iteration {n_iter}; the step {step:g} is too large"
                )
            if accelerated and F_new > F:
                # restart: take a plain ISTA step from x instead of the extrapolated point
                t_mom = 1.0
                x_new = soft_threshold(x - step * gx, step * lam)
                f_new, g_new = fun(x_new)
                F_new = total(f_new, x_new)
            dx = float(np.max(np.abs(x_new - x), initial=0.0))
            scale = max(float(np.max(np.abs(x_new), initial=0.0)), 1.0)
            if accelerated:
                t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t_mom * t_mom))
                y = x_new + ((t_mom - 1.0) / t_next) * (x_new - x)
                t_mom = t_next
                _, gy = fun(y)
            else:
                y, gy = x_new, g_new
            x, fx, gx, F = x_new, f_new, g_new, F_new
            history.append(F)
            if stop is not None:
                if stop(x, gx, F):
                    converged = True
                    break
            elif dx <= tol * scale:
                converged = True
                break
    message = (
        f"converged after {n_iter} iterations"
        if converged
        else (f"{name} did not converge in max_iter={max_iter} iterations (tol={tol:g}); increase max_iter")
    )
    if not converged and warn:
        warnings.warn(message, ConvergenceWarning, stacklevel=2)
    return OptimizeResult(
        params=x, loss_history=np.asarray(history), n_iter=n_iter, converged=converged, message=message
    )
