"""Stochastic and mini-batch gradient descent over epochs, shared by the iterative linear models.

The update is the CS229 notes' stochastic rule (§1.1 eq. 1.2, seed 000 L254-278; the LMS /
Widrow-Hoff rule L210-216) generalised to batches of ``B`` examples (CS229 notes §7.1 Alg. 2,
seed 000 L2618-2629; EPFL notes L189-197, seed 004; CIML Alg. 34, seed 001 L4372-4388)::

    for each epoch:  permute the n examples (a fresh permutation from the numpy Generator)
        for each consecutive batch I of size B:  theta := theta - eta_t * g_I(theta);  t := t + 1
        (optionally) theta := prox(theta, eta_t)        -- truncated gradient / soft thresholding

where ``g_I`` is an unbiased estimate of the gradient of the *mean* objective (the batch mean of
the per-example gradients plus the full regularizer gradient: CIML L4398-4400 scales the
regularizer by B/N per step for a *sum* objective, which is the same thing). ``B = n`` without
shuffling is batch (sub)gradient descent (CIML Alg. 21-22).

Step-size schedules (``t`` = number of updates made so far, starting at 0):

* ``"constant"``: ``eta_t = eta_0``. SGD then oscillates around the minimum (CS229 L270-278).
* ``"inverse"``: ``eta_t = eta_0 / (1 + decay * t)`` (Waterloo notes §9, seed 003 L954-956); with
  ``sum eta_t = inf`` and ``sum eta_t^2 < inf`` this converges (the CS229 footnote L298).
* ``"inverse_sqrt"``: ``eta_t = eta_0 / sqrt(1 + decay * t)``; ``decay = 1`` is CIML's
  ``eta_k = eta_0 / sqrt(k)`` with k = t + 1 (seed 001 L4402).

Each epoch ends with one evaluation of the full objective, recorded in ``loss_history`` (entry 0
is the starting point, so it has ``n_epochs + 1`` entries). Stopping rule (scikit-learn's for SGD):
stop when the epoch objective has not improved on the best value so far by more than
``tol * max(|best|, 1)`` for ``n_iter_no_change`` consecutive epochs. Reaching ``max_epochs``
without meeting the rule warns :class:`~replearn.exceptions.ConvergenceWarning`.

Divergence (:class:`~replearn.exceptions.DivergenceError`, never a garbage result) means a NaN or
infinite objective or iterate, or growth, not noise: an epoch objective above
``DIVERGENCE_FACTOR`` (100) times the starting one, or -- when the stopping rule fires -- an objective
that rose in every one of the last ``n_iter_no_change`` epochs and ended more than
``DIVERGENCE_RISE`` (10%) above the starting value (a step so large that the iterates oscillate
outwards without overflowing yet). A subgradient method ending a hair above its start (1.0 ->
1.00004 on make_circles) has not diverged: it stopped on the stopping rule, as usual.

``epoch_fn``: the models whose per-example update is a fixed formula pass a compiled epoch
(:mod:`replearn.optim._kernels`) that makes the same updates in place, so an online algorithm keeps
its per-example semantics at compiled speed; the permutations, schedule, objective, stopping and
divergence checks stay here.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable

import numpy as np

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_random_state, check_scalar
from .gradient import OptimizeResult

__all__ = ["SCHEDULES", "step_size", "stochastic_gradient_descent", "check_schedule"]

SCHEDULES = ("constant", "inverse", "inverse_sqrt")

#: grad_fn(params, batch_indices) -> gradient estimate with the shape of params
BatchGradFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: objective(params) -> full objective value
ObjectiveFn = Callable[[np.ndarray], float]
#: prox(params, eta) -> params after the non-smooth part's step (e.g. soft thresholding)
ProxFn = Callable[[np.ndarray, float], np.ndarray]
#: epoch_fn(params, order, etas): every update of one epoch, in place (batch k uses etas[k])
EpochFn = Callable[[np.ndarray, np.ndarray, np.ndarray], None]

#: an epoch objective above this multiple of the starting one is divergence (orders of magnitude)
DIVERGENCE_FACTOR = 100.0
#: a stopping objective that rose through the whole patience window and ended this fraction above
#: the starting one is an outward oscillation
DIVERGENCE_RISE = 0.1


def step_size(schedule: str, eta0: float, t: int | np.ndarray, decay: float):
    """The step ``eta_t`` of ``schedule`` after ``t`` updates (vectorized over ``t``)."""
    if schedule == "constant":
        return eta0 + 0.0 * np.asarray(t, dtype=np.float64) if np.ndim(t) else float(eta0)
    if schedule == "inverse":
        return eta0 / (1.0 + decay * np.asarray(t, dtype=np.float64))
    if schedule == "inverse_sqrt":
        return eta0 / np.sqrt(1.0 + decay * np.asarray(t, dtype=np.float64))
    raise ValueError(f"schedule must be one of {sorted(SCHEDULES)}, got {schedule!r}")


def check_schedule(learning_rate, schedule, decay) -> None:
    """Validate the three step-size hyperparameters (shared by the models that expose them)."""
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(schedule, "schedule", str, choices=SCHEDULES)
    check_scalar(decay, "decay", numbers.Real, low=0.0)


def _divergence(what: str, epoch: int, eta0: float) -> DivergenceError:
    return DivergenceError(
        f"{what} became nan or inf in epoch {epoch}; the learning rate {eta0:g} is too large for this data "
        "— lower it, use a decaying schedule, or standardize the features"
    )


def _rising_away(history: list[float], window: int) -> bool:
    """The objective rose in each of the last ``window`` epochs and ended well above its start."""
    if len(history) < window + 1:
        return False
    tail = history[-window - 1 :]
    rising = all(b > a for a, b in zip(tail[:-1], tail[1:]))
    return rising and history[-1] - history[0] > DIVERGENCE_RISE * abs(history[0])


def _growth(name: str, history: list[float], epoch: int, eta0: float) -> DivergenceError:
    return DivergenceError(
        f"{name} is diverging: the objective went from {history[0]:.6g} at the start to {history[-1]:.6g} "
        f"after {epoch} epochs; the learning rate {eta0:g} is too large — lower it or standardize the features"
    )


def stochastic_gradient_descent(
    grad_fn: BatchGradFn,
    objective: ObjectiveFn,
    x0,
    n_samples: int,
    *,
    learning_rate: float,
    batch_size: int = 1,
    schedule: str = "constant",
    decay: float = 1.0,
    max_epochs: int = 100,
    tol: float | None = 1e-4,
    n_iter_no_change: int = 5,
    shuffle: bool = True,
    random_state=None,
    prox: ProxFn | None = None,
    warn: bool = True,
    name: str = "stochastic gradient descent",
    epoch_fn: EpochFn | None = None,
) -> OptimizeResult:
    """Minimize a mean objective by (mini-batch) stochastic gradient steps, epoch by epoch.

    Parameters
    ----------
    grad_fn : callable
        ``grad_fn(params, idx)``: gradient estimate on the examples ``idx`` (an index array); it
        must not modify ``params``.
    objective : callable
        ``objective(params)``: the full objective, evaluated once per epoch.
    x0 : array
        Starting point (copied).
    n_samples : int
        Number of examples n (indices ``0 .. n-1`` are batched).
    learning_rate : float > 0
        ``eta_0``.
    batch_size : int >= 1
        ``B``; clipped to ``n``. ``B = 1`` is the LMS / stochastic rule, ``B = n`` batch descent.
    schedule : {"constant", "inverse", "inverse_sqrt"}
    decay : float >= 0
        Rate of the decaying schedules.
    max_epochs : int >= 1
    tol : float >= 0 or None
        Improvement tolerance of the stopping rule; ``None`` runs all ``max_epochs``.
    n_iter_no_change : int >= 1
    shuffle : bool
        Draw a new permutation of the examples every epoch (CIML L1039, L4406); otherwise sweep
        them in their given order.
    random_state : None, int or numpy Generator
    prox : callable, optional
        Applied after every update: ``params = prox(params, eta_t)`` (proximal / truncated-gradient
        step of a non-smooth regularizer).
    warn : bool
        Warn :class:`ConvergenceWarning` when ``max_epochs`` is reached.
    name : str
        How messages name the caller.
    epoch_fn : callable, optional
        ``epoch_fn(params, order, etas)`` makes all the updates of one epoch in place (batch ``k`` of
        ``order`` with step ``etas[k]``), replacing the loop over ``grad_fn`` and ``prox`` -- the
        compiled form of the same updates.

    Returns
    -------
    OptimizeResult
        ``n_iter`` is the number of epochs; ``extra["n_updates"]`` the number of updates.
    """
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
    check_scalar(batch_size, "batch_size", numbers.Integral, low=1)
    check_scalar(schedule, "schedule", str, choices=SCHEDULES)
    check_scalar(decay, "decay", numbers.Real, low=0.0)
    check_scalar(max_epochs, "max_epochs", numbers.Integral, low=1)
    check_scalar(n_iter_no_change, "n_iter_no_change", numbers.Integral, low=1)
    if tol is not None:
        check_scalar(tol, "tol", numbers.Real, low=0.0)
    rng = check_random_state(random_state)
    eta0 = float(learning_rate)
    batch = min(int(batch_size), int(n_samples))
    params = np.array(x0, dtype=np.float64, copy=True)
    history = [float(objective(params))]
    if not np.isfinite(history[0]):
        raise DivergenceError("the objective is nan or inf at the starting point; check the data")
    best = history[0]
    stall = 0
    converged = False
    t = 0
    order = np.arange(n_samples)
    epoch = 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        while epoch < max_epochs:
            epoch += 1
            if shuffle:
                order = rng.permutation(n_samples)
            starts = range(0, n_samples, batch)
            etas = step_size(schedule, eta0, np.arange(t, t + len(starts)), float(decay))
            if epoch_fn is not None:
                epoch_fn(params, order, np.ascontiguousarray(etas, dtype=np.float64))
            else:
                for k, start in enumerate(starts):
                    idx = order[start : start + batch]
                    eta = float(etas[k])
                    params -= eta * grad_fn(params, idx)
                    if prox is not None:
                        params = prox(params, eta)
            t += len(starts)
            if not np.all(np.isfinite(params)):
                raise _divergence("the parameters", epoch, eta0)
            value = float(objective(params))
            if not np.isfinite(value):
                raise _divergence("the objective", epoch, eta0)
            history.append(value)
            if value > history[0] and value - history[0] > (DIVERGENCE_FACTOR - 1.0) * abs(history[0]):
                raise _growth(name, history, epoch, eta0)
            if tol is not None:
                if value < best - tol * max(abs(best), 1.0):
                    stall = 0
                else:
                    stall += 1
                best = min(best, value)
                if stall >= n_iter_no_change:
                    if _rising_away(history, n_iter_no_change):
                        raise _growth(name, history, epoch, eta0)
                    converged = True
                    break
    if converged:
        message = f"converged after {epoch} epochs ({t} updates)"
    else:
        message = (
            f"{name} did not converge in max_iter={max_epochs} epochs: the objective still improved by more "
            f"than tol={tol} within the last {n_iter_no_change} epochs; increase max_iter or the learning rate"
        )
        if warn and tol is not None:
            warnings.warn(message, ConvergenceWarning, stacklevel=2)
    return OptimizeResult(
        params=params,
        loss_history=np.asarray(history),
        n_iter=epoch,
        converged=converged,
        message=message,
        extra={"n_updates": t},
    )
