"""Coordinate ascent (CS229 notes §6.8.1, seed 000 L2387-2411): maximize W(a_1, ..., a_n) by re-optimizing one
coordinate at a time, holding the others fixed::

    loop until convergence:  for i = 1..n:  a_i := argmax_{a_i-hat} W(a_1, ..., a_i-hat, ..., a_n)

Each step is parallel to an axis ("on each step, coordinate ascent takes a step that's parallel to one of the
axes, since only one variable is being optimized at a time", L2411). :func:`coordinate_ascent` takes the
per-coordinate argmax as a function; :func:`quadratic_coordinate_ascent` is the case the notes draw, a concave
quadratic W(a) = b'a - 1/2 a'Aa, whose coordinate argmax is closed form (a_i = (b_i - sum_{j != i} A_ij a_j) /
A_ii: Gauss-Seidel). Both record every iterate (``extra["path"]``, one row per coordinate step) and stop when a
sweep moves no coordinate by more than ``tol`` (relative to ``max(||a||, 1)``).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable

import numpy as np

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_scalar
from .gradient import OptimizeResult

__all__ = ["coordinate_ascent", "quadratic_coordinate_ascent"]


def coordinate_ascent(
    argmax_coordinate: Callable[[np.ndarray, int], float],
    x0,
    *,
    objective: Callable[[np.ndarray], float] | None = None,
    max_sweeps: int = 1000,
    tol: float = 1e-12,
    warn: bool = True,
) -> OptimizeResult:
    """Cyclic coordinate ascent: ``a_i := argmax_coordinate(a, i)`` for i = 0..n-1, sweep after sweep.

    ``objective(a)``, when given, is recorded after every coordinate step (``loss_history``, the value W; it
    never decreases when each step is an exact argmax). ``n_iter`` counts sweeps.
    """
    check_scalar(max_sweeps, "max_sweeps", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    a = np.array(x0, dtype=np.float64, copy=True).ravel()
    path = [a.copy()]
    history = [float(objective(a))] if objective is not None else []
    converged, sweep = False, 0
    while sweep < max_sweeps and not converged:
        sweep += 1
        moved = 0.0
        for i in range(a.size):
            new = float(argmax_coordinate(a.copy(), i))
            if not np.isfinite(new):
                raise DivergenceError(f"the argmax of coordinate {i} is {new} in sweep {sweep}")
            moved = max(moved, abs(new - a[i]))
            a[i] = new
            path.append(a.copy())
            if objective is not None:
                history.append(float(objective(a)))
        converged = moved <= tol * max(float(np.linalg.norm(a)), 1.0)
    message = f"converged after {sweep} sweeps" if converged else f"not converged in max_sweeps={max_sweeps}"
    if not converged and warn:
        warnings.warn(f"coordinate ascent {message}; increase max_sweeps", ConvergenceWarning, stacklevel=2)
    return OptimizeResult(a, np.asarray(history), sweep, converged, float("nan"), message, {"path": np.asarray(path)})


def quadratic_coordinate_ascent(A, b, x0, *, max_sweeps: int = 1000, tol: float = 1e-12, warn: bool = True):
    """Coordinate ascent on W(a) = b'a - 1/2 a'Aa for a symmetric positive-definite ``A`` (the notes' picture:
    ellipse contours, the maximum at A^-1 b); returns :func:`coordinate_ascent`'s result with W recorded."""
    A = np.asarray(A, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64).ravel()
    if A.ndim != 2 or A.shape != (b.size, b.size):
        raise ValueError(f"A must be ({b.size}, {b.size}) to match b, got {A.shape}")
    if not np.allclose(A, A.T) or np.any(np.diag(A) <= 0):
        raise ValueError("A must be symmetric with a positive diagonal (W concave along every coordinate)")

    def argmax(a, i):
        return (b[i] - A[i] @ a + A[i, i] * a[i]) / A[i, i]

    return coordinate_ascent(
        argmax, x0, objective=lambda a: float(b @ a - 0.5 * a @ A @ a), max_sweeps=max_sweeps, tol=tol, warn=warn
    )
