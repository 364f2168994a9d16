"""Newton's method in one dimension: a root of f, or a stationary point of l (CS229 notes §2.3).

The notes (seed 000 L614-643) introduce Newton's method as tangent-line root finding for a scalar
f : R -> R::

    theta := theta - f(theta) / f'(theta)

(the next guess is where the tangent at the current guess crosses zero), and, with f = l', as a way
to maximize l::

    theta := theta - l'(theta) / l''(theta)

The same step finds a *minimum* of l when l'' > 0 there (the notes' "something to think about",
L643: nothing changes -- the step only looks for l' = 0; which kind of stationary point it reaches
depends on the sign of l''). :func:`newton_optimize` therefore checks the curvature at the end and
says whether it found a maximum or a minimum, so that asking for a maximum and getting a minimum is
an error, not a silent answer. The multivariate version (theta := theta - H^-1 grad l, Fisher
scoring) is what ``logistic_regression(solver="newton")`` runs.

Convergence: near a simple root with f'' continuous the error squares at each step (quadratic
convergence, CS229 summaries L432-434); far from it the method may overshoot, cycle or diverge (no
line search is made: this is the notes' method). Stopping: ``|theta_{k+1} - theta_k| <= xtol +
rtol |theta_{k+1}|`` or ``|f(theta)| <= ftol``. A zero derivative (a horizontal tangent) or a
non-finite iterate raises :class:`~replearn.exceptions.DivergenceError`; ``max_iter`` steps without
meeting the tolerance warns :class:`~replearn.exceptions.ConvergenceWarning`.
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

__all__ = ["RootResult", "newton_root", "newton_optimize"]


@dataclass
class RootResult:
    """What :func:`newton_root` / :func:`newton_optimize` return.

    root : the last iterate; iterates : every iterate from the start (``iterates[0] = x0``); values :
    f at each iterate; n_iter : Newton steps taken; converged : whether a tolerance was met;
    kind : "root", "maximum" or "minimum" (for :func:`newton_optimize`, from the sign of l'').
    """

    root: float
    iterates: np.ndarray
    values: np.ndarray
    n_iter: int
    converged: bool
    kind: str = "root"
    message: str = ""
    extra: dict = field(default_factory=dict)


def _check(x0, xtol, rtol, ftol, max_iter) -> float:
    check_scalar(x0, "x0", numbers.Real)
    check_scalar(xtol, "xtol", numbers.Real, low=0.0)
    check_scalar(rtol, "rtol", numbers.Real, low=0.0)
    check_scalar(ftol, "ftol", numbers.Real, low=0.0)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    return float(x0)


def newton_root(
    f: Callable[[float], float],
    fprime: Callable[[float], float],
    x0: float,
    *,
    xtol: float = 1e-12,
    rtol: float = 4 * np.finfo(float).eps,
    ftol: float = 0.0,
    max_iter: int = 50,
    warn: bool = True,
) -> RootResult:
    """A root of the scalar function ``f`` by Newton's method from ``x0`` (CS229 notes §2.3, L614-635).

    Update: ``theta := theta - f(theta) / f'(theta)``. Returns a :class:`RootResult` with every
    iterate, so the path (the notes' three-panel figure: 4.5 -> about 2.8 -> about 1.8 -> 1.3) can be
    drawn. Raises :class:`DivergenceError` when ``f'(theta) = 0`` (the tangent never crosses zero) or an
    iterate or value is not finite.
    """
    theta = _check(x0, xtol, rtol, ftol, max_iter)
    iterates, values = [theta], []
    converged = False
    n_iter = 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for n_iter in range(1, max_iter + 1):
            fx = float(f(theta))
            values.append(fx)
            if not math.isfinite(fx):
                raise DivergenceError(f"f({theta:g}) = {fx} at Newton step {n_iter}: not finite")
            if abs(fx) <= ftol:
                converged, n_iter = True, n_iter - 1
                break
            d = float(fprime(theta))
            if d == 0.0 or not math.isfinite(d):
                raise DivergenceError(
                    f"f'({theta:g}) = {d} at Newton step {n_iter}: the tangent is horizontal (or undefined) and "
                    "never crosses zero; start elsewhere"
                )
            new = theta - fx / d
            if not math.isfinite(new):
                raise DivergenceError(f"Newton step {n_iter} from {theta:g} gave {new}: the iterates diverged")
            iterates.append(new)
            step = abs(new - theta)
            theta = new
            if step <= xtol + rtol * abs(theta):
                converged = True
                values.append(float(f(theta)))
                break
        else:
            values.append(float(f(theta)))
    message = f"converged after {n_iter} steps" if converged else f"not converged in max_iter={max_iter} steps"
    if not converged and warn:
        warnings.warn(
            f"Newton's method {message} (last |step| {abs(iterates[-1] - iterates[-2]):.3g}); increase max_iter or "
            "start closer to the root",
            ConvergenceWarning,
            stacklevel=2,
        )
    return RootResult(theta, np.asarray(iterates), np.asarray(values), n_iter, converged, "root", message)


def newton_optimize(
    dfun: Callable[[float], float],
    d2fun: Callable[[float], float],
    x0: float,
    *,
    maximize: bool = True,
    xtol: float = 1e-12,
    rtol: float = 4 * np.finfo(float).eps,
    max_iter: int = 50,
    warn: bool = True,
) -> RootResult:
    """A stationary point of a scalar l by Newton's method on l' (CS229 notes §2.3, L637-643).

    Update: ``theta := theta - l'(theta) / l''(theta)`` (``dfun`` = l', ``d2fun`` = l''); the same step
    maximizes or minimizes, so the result's ``kind`` is read from l'' at the end ("maximum" when
    l'' < 0, "minimum" when l'' > 0). A run asked to ``maximize`` that ends at a minimum (or the other
    way round) raises ``ValueError`` naming what it found instead of returning it.
    """
    result = newton_root(dfun, d2fun, x0, xtol=xtol, rtol=rtol, max_iter=max_iter, warn=warn)
    curvature = float(d2fun(result.root))
    kind = "maximum" if curvature < 0 else "minimum" if curvature > 0 else "stationary point"
    result.kind = kind
    result.extra["curvature"] = curvature
    wanted = "maximum" if maximize else "minimum"
    if result.converged and kind != wanted:
        raise ValueError(
            f"Newton's method from x0 = {x0:g} reached a {kind} of l at {result.root:g} (l'' = {curvature:.3g}), not a "
            f"{wanted}: the step only solves l' = 0; start closer to the {wanted}"
        )
    return result
