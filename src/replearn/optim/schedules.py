"""Learning-rate schedules: ``schedule(t) -> eta_t`` for epoch ``t = 0, 1, 2, ...``.

* constant: ``eta_t = eta0``.
* step decay (CS480/680 §9, seed 003 L946-956): ``eta0`` until epoch ``t0``, ``eta0 / 10`` until
  ``t1``, then ``eta0 / 100``; in general ``eta_t = eta0 * factor ** (number of boundaries <= t)``.
* exponential: ``eta_t = eta0 * gamma ** t``.
* inverse time (CS480/680's "sublinear decay", seed 003 L956): ``eta_t = eta0 / (1 + c t)``; with
  ``power=0.5`` it is ``eta0 / sqrt(1 + c t)`` (CIML §14.2's eta0/sqrt(k), seed 001 L4402, up to the
  offset). CS229's footnote (seed 000 L298) notes that a step size decaying to 0 makes SGD converge.
* cosine (Loshchilov & Hutter 2017, not in the course texts):
  ``eta_t = eta_min + (eta0 - eta_min) (1 + cos(pi t / T)) / 2`` for ``t <= T``, then ``eta_min``.

:func:`make_schedule` builds one from a name and a single ``decay`` number, which is how the neural
models expose them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from ..validation import check_scalar

__all__ = [
    "Constant",
    "StepDecay",
    "ExponentialDecay",
    "InverseTimeDecay",
    "CosineDecay",
    "SCHEDULES",
    "make_schedule",
]


def _check_eta0(eta0):
    check_scalar(eta0, "learning_rate_init", numbers.Real, low=0.0, low_inclusive=False)
    return float(eta0)


class Constant:
    """``eta_t = eta0``."""

    def __init__(self, eta0: float):
        self.eta0 = _check_eta0(eta0)

    def __call__(self, t: int) -> float:
        return self.eta0


class StepDecay:
    """Piecewise constant: multiply by ``factor`` at each epoch in ``boundaries``."""

    def __init__(self, eta0: float, boundaries: Sequence[int], factor: float = 0.1):
        self.eta0 = _check_eta0(eta0)
        check_scalar(factor, "factor", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
        self.boundaries = sorted(int(b) for b in boundaries)
        self.factor = float(factor)

    def __call__(self, t: int) -> float:
        k = sum(1 for b in self.boundaries if t >= b)
        return self.eta0 * self.factor**k


class ExponentialDecay:
    """``eta_t = eta0 * gamma ** t``."""

    def __init__(self, eta0: float, gamma: float = 0.95):
        self.eta0 = _check_eta0(eta0)
        check_scalar(gamma, "gamma", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
        self.gamma = float(gamma)

    def __call__(self, t: int) -> float:
        return self.eta0 * self.gamma**t


class InverseTimeDecay:
    """``eta_t = eta0 / (1 + c t) ** power`` (power 1 or 0.5 in the course texts)."""

    def __init__(self, eta0: float, c: float = 0.1, power: float = 1.0):
        self.eta0 = _check_eta0(eta0)
        check_scalar(c, "c", numbers.Real, low=0.0)
        check_scalar(power, "power", numbers.Real, low=0.0, low_inclusive=False)
        self.c, self.power = float(c), float(power)

    def __call__(self, t: int) -> float:
        return self.eta0 / (1.0 + self.c * t) ** self.power


class CosineDecay:
    """Half a cosine from ``eta0`` at t = 0 down to ``eta_min`` at t = ``T``."""

    def __init__(self, eta0: float, T: int, eta_min: float = 0.0):
        self.eta0 = _check_eta0(eta0)
        check_scalar(T, "T", numbers.Integral, low=1)
        check_scalar(eta_min, "eta_min", numbers.Real, low=0.0, high=self.eta0)
        self.T, self.eta_min = int(T), float(eta_min)

    def __call__(self, t: int) -> float:
        frac = min(t, self.T) / self.T
        return self.eta_min + (self.eta0 - self.eta_min) * 0.5 * (1.0 + math.cos(math.pi * frac))


#: names accepted by :func:`make_schedule` (the models' ``lr_schedule`` hyperparameter)
SCHEDULES = ("constant", "step", "exponential", "inverse_time", "inverse_sqrt", "cosine")

#: what ``decay`` means for each schedule, and its default
DECAY_DEFAULTS = {"step": 0.1, "exponential": 0.95, "inverse_time": 0.1, "inverse_sqrt": 0.1, "cosine": 0.0}


def make_schedule(name: str, eta0: float, *, decay: float | None = None, max_epochs: int = 100):
    """Schedule ``name`` starting at ``eta0``; ``decay`` is the one number each schedule needs.

    * ``"constant"``: ``decay`` unused.
    * ``"step"``: ``decay`` = factor (default 0.1) applied at epochs ``max_epochs // 3`` and
      ``2 * max_epochs // 3`` (CS480/680's eta0, eta0/10, eta0/100).
    * ``"exponential"``: ``decay`` = gamma (default 0.95).
    * ``"inverse_time"`` / ``"inverse_sqrt"``: ``decay`` = c (default 0.1), power 1 / 0.5.
    * ``"cosine"``: ``decay`` = eta_min as a fraction of eta0 (default 0), period ``max_epochs``.
    """
    check_scalar(name, "lr_schedule", str, choices=SCHEDULES)
    check_scalar(max_epochs, "max_epochs", numbers.Integral, low=1)
    if name == "constant":
        return Constant(eta0)
    d = DECAY_DEFAULTS[name] if decay is None else decay
    check_scalar(d, "lr_decay", numbers.Real, low=0.0)
    if name == "step":
        return StepDecay(eta0, [max(max_epochs // 3, 1), max(2 * max_epochs // 3, 2)], factor=d)
    if name == "exponential":
        return ExponentialDecay(eta0, gamma=d)
    if name == "inverse_time":
        return InverseTimeDecay(eta0, c=d, power=1.0)
    if name == "inverse_sqrt":
        return InverseTimeDecay(eta0, c=d, power=0.5)
    check_scalar(d, "lr_decay", numbers.Real, low=0.0, high=1.0)
    return CosineDecay(eta0, T=max_epochs, eta_min=d * float(eta0))
