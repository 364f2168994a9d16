"""Projected gradient descent and projected SGD for constrained problems (EPFL notes, constrained optimization).

For ``min_{w in C} L(w)`` with a convex set C the EPFL notes (seed 004 L246-276) add a projection to
every step::

    w_{t+1} = P_C[ w_t - gamma grad L(w_t) ],       P_C(v) = argmin_{u in C} ||u - v||

and the same for SGD with a stochastic gradient ("the same convergence properties"). Projections onto
convex sets are unique; their cost matters because one is made every step. The projections here are
the closed forms the course's constrained problems use, each O(d) or O(d log d):

* :func:`project_box` -- ``lower <= w <= upper`` (clip; the SVM dual's ``0 <= alpha <= C``, CIML L3886);
* :func:`project_l2_ball` -- ``||w - centre||_2 <= radius`` (rescale);
* :func:`project_l1_ball` -- ``||w||_1 <= radius`` (Duchi et al. 2008, sort and threshold);
* :func:`project_simplex` -- ``w >= 0, sum w = s`` (the same algorithm).

A projection is passed as any callable ``project(v) -> u``; :func:`projected_gradient_descent`
checks the starting point is feasible after projecting it. Stopping: the projected-gradient step
``||w_{t+1} - w_t|| <= tol * max(||w_t||, 1)`` (a fixed point of the projected step is a
minimizer for convex L: ``w = P_C(w - gamma grad L(w))`` is the first-order optimality condition).
Non-finite values raise :class:`~replearn.exceptions.DivergenceError`; ``max_iter`` steps without
meeting ``tol`` warn :class:`~replearn.exceptions.ConvergenceWarning`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable

import numpy as np

from ..exceptions import ConvergenceWarning
from ..validation import check_random_state, check_scalar
from .gradient import OptimizeResult, check_finite_step

__all__ = [
    "project_box",
    "project_l2_ball",
    "project_l1_ball",
    "project_simplex",
    "projected_gradient_descent",
    "projected_sgd",
]


def project_box(lower=-np.inf, upper=np.inf) -> Callable[[np.ndarray], np.ndarray]:
    """``P(v) = clip(v, lower, upper)``: the projection onto the box ``lower <= w <= upper`` (scalars or
    arrays of ``w``'s shape)."""
    lo, hi = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if np.any(lo > hi):
        raise ValueError(f"the box is empty: lower {lower!r} > upper {upper!r} somewhere")

    def project(v):
        return np.clip(np.asarray(v, dtype=float), lo, hi)

    return project


def project_l2_ball(radius: float = 1.0, centre=None) -> Callable[[np.ndarray], np.ndarray]:
    """``P(v) = c + (v - c) min(1, r / ||v - c||)``: the projection onto the Euclidean ball of radius ``r``
    around ``centre`` (default 0)."""
    check_scalar(radius, "radius", numbers.Real, low=0.0)
    r = float(radius)

    def project(v):
        v = np.asarray(v, dtype=float)
        c = np.zeros_like(v) if centre is None else np.broadcast_to(np.asarray(centre, dtype=float), v.shape)
        d = v - c
        norm = float(np.linalg.norm(d))
        return v.copy() if norm <= r else c + d * (r / norm)

    return project


def _simplex(v: np.ndarray, s: float) -> np.ndarray:
    """Euclidean projection of the flat vector ``v`` onto {w >= 0, sum w = s} (Duchi et al. 2008, Fig. 1)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - s
    k = np.arange(1, v.size + 1)
    rho = int(np.flatnonzero(u - css / k > 0)[-1])
    theta = css[rho] / (rho + 1)
    return np.maximum(v - theta, 0.0)


def project_simplex(total: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    """The projection onto the scaled simplex ``{w >= 0, sum w = total}`` (``total > 0``)."""
    check_scalar(total, "total", numbers.Real, low=0.0, low_inclusive=False)
    s = float(total)

    def project(v):
        v = np.asarray(v, dtype=float)
        return _simplex(v.ravel(), s).reshape(v.shape)

    return project


def project_l1_ball(radius: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    """The projection onto ``{||w||_1 <= radius}``: ``v`` itself inside, else ``sign(v)`` times the simplex
    projection of ``|v|`` onto ``sum = radius`` (Duchi et al. 2008, §4)."""
    check_scalar(radius, "radius", numbers.Real, low=0.0)
    r = float(radius)

    def project(v):
        v = np.asarray(v, dtype=float)
        if np.abs(v).sum() <= r:
            return v.copy()
        if r == 0.0:
            return np.zeros_like(v)
        return (np.sign(v.ravel()) * _simplex(np.abs(v.ravel()), r)).reshape(v.shape)

    return project


def _check(learning_rate, max_iter, tol) -> None:
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)


def projected_gradient_descent(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0,
    project: Callable[[np.ndarray], np.ndarray],
    *,
    learning_rate: float,
    max_iter: int,
    tol: float = 1e-10,
    warn: bool = True,
) -> OptimizeResult:
    """Minimize ``fun`` over a convex set by ``w := P_C(w - gamma grad L(w))`` (EPFL notes L246-276).

    ``fun(w) -> (L(w), grad L(w))``; ``project`` is ``P_C`` (e.g. :func:`project_box`); the start is
    ``P_C(x0)``. ``loss_history[k]`` is L after k steps. With an L-smooth convex objective and
    ``learning_rate <= 1/L`` the objective decreases at every step. ``extra["path"]`` holds every iterate.
    """
    _check(learning_rate, max_iter, tol)
    w = np.asarray(project(np.array(x0, dtype=float)), dtype=float)
    loss, grad = fun(w)
    loss = float(loss)
    check_finite_step(loss, np.asarray(grad), 0, learning_rate)
    history, path = [loss], [w.copy()]
    converged = False
    n_iter = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while n_iter < max_iter:
            new = np.asarray(project(w - learning_rate * np.asarray(grad)), dtype=float)
            n_iter += 1
            step = float(np.linalg.norm(new - w))
            scale = max(float(np.linalg.norm(w)), 1.0)
            w = new
            loss, grad = fun(w)
            loss = float(loss)
            check_finite_step(loss, np.asarray(grad), n_iter, learning_rate)
            history.append(loss)
            path.append(w.copy())
            if step <= tol * scale:
                converged = True
                break
    message = f"converged after {n_iter} steps" if converged else f"not converged in max_iter={max_iter} steps"
    if not converged and warn:
        warnings.warn(
            f"projected gradient descent {message}; increase max_iter or the learning rate",
            ConvergenceWarning,
            stacklevel=2,
        )
    grad_max = float(np.max(np.abs(grad), initial=0.0))
    return OptimizeResult(
        w, np.asarray(history), n_iter, converged, grad_max, message, extra={"path": np.asarray(path)}
    )


def projected_sgd(
    grad_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    n_samples: int,
    x0,
    project: Callable[[np.ndarray], np.ndarray],
    *,
    learning_rate: float,
    n_epochs: int,
    batch_size: int = 1,
    decay: float = 0.0,
    objective: Callable[[np.ndarray], float] | None = None,
    random_state=None,
) -> OptimizeResult:
    """Projected stochastic gradient descent: for each batch I of a fresh permutation per epoch,
    ``w := P_C(w - eta_t g_I(w))`` with ``eta_t = learning_rate / (1 + decay t)`` (EPFL notes L262-270).

    ``grad_fn(w, batch_indices)`` is an unbiased estimate of grad L; ``objective(w)``, when given, is
    recorded after each epoch (``loss_history``, ``n_epochs + 1`` entries). Every iterate is feasible.
    """
    _check(learning_rate, n_epochs, 0.0)
    check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
    check_scalar(batch_size, "batch_size", numbers.Integral, low=1)
    check_scalar(decay, "decay", numbers.Real, low=0.0)
    rng = check_random_state(random_state)
    w = np.asarray(project(np.array(x0, dtype=float)), dtype=float)
    history = [float(objective(w))] if objective is not None else []
    t = 0
    for epoch in range(int(n_epochs)):
        order = rng.permutation(n_samples)
        for start in range(0, n_samples, batch_size):
            g = np.asarray(grad_fn(w, order[start : start + batch_size]), dtype=float)
            eta = learning_rate / (1.0 + decay * t)
            w = np.asarray(project(w - eta * g), dtype=float)
            t += 1
            if not np.all(np.isfinite(w)):
                check_finite_step(math.inf, w, epoch + 1, learning_rate)
        if objective is not None:
            history.append(float(objective(w)))
    return OptimizeResult(
        w, np.asarray(history), int(n_epochs), True, float("nan"), f"{n_epochs} epochs of {t} projected steps"
    )
