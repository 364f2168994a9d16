"""Optimizers over lists of :class:`~replearn.autodiff.tensor.Tensor` parameters.

Each keeps its own state (no globals) and updates ``param.data`` in place from ``param.grad``:

* :class:`SGD`: ``v <- momentum v + g``, ``theta <- theta - lr v`` (plain SGD when ``momentum=0``;
  CS229 notes §7.1, seed 000 L2599-2629; CS480/680 §9, seed 003 L944-958);
* :class:`Adam` (Kingma and Ba 2015, Alg. 1): ``m <- b1 m + (1-b1) g``, ``v <- b2 v + (1-b2) g^2``,
  ``theta <- theta - lr m_hat / (sqrt(v_hat) + eps)`` with the bias corrections
  ``m_hat = m / (1 - b1^t)``, ``v_hat = v / (1 - b2^t)``.

``weight_decay`` adds ``weight_decay * theta`` to the gradient (an L2 penalty of
``weight_decay / 2 ||theta||^2``). :func:`clip_grad_norm` rescales all gradients together when their
joint Euclidean norm exceeds a bound. A parameter whose gradient is ``None`` (unused in this step) is
left alone.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_scalar
from .tensor import Tensor

__all__ = ["SGD", "Adam", "clip_grad_norm"]


class _Optimizer:
    def __init__(self, params, lr: float, weight_decay: float):
        self.params: list[Tensor] = list(params)
        if not self.params:
            raise ValueError("the optimizer got no parameters")
        check_scalar(lr, "lr", numbers.Real, low=0.0, low_inclusive=False)
        check_scalar(weight_decay, "weight_decay", numbers.Real, low=0.0)
        self.lr = float(lr)
        self.weight_decay = float(weight_decay)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    def _grad(self, p: Tensor) -> np.ndarray | None:
        if p.grad is None:
            return None
        return p.grad + self.weight_decay * p.data if self.weight_decay else p.grad


class SGD(_Optimizer):
    """Stochastic gradient descent with optional (heavy-ball) momentum."""

    def __init__(self, params, lr: float = 0.01, momentum: float = 0.0, weight_decay: float = 0.0):
        super().__init__(params, lr, weight_decay)
        check_scalar(momentum, "momentum", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        self.momentum = float(momentum)
        self._velocity = [np.zeros_like(p.data) for p in self.params]

    def step(self) -> None:
        for p, v in zip(self.params, self._velocity):
            g = self._grad(p)
            if g is None:
                continue
            if self.momentum:
                v *= self.momentum
                v += g
                g = v
            p.data -= self.lr * g


class Adam(_Optimizer):
    """Adam with bias-corrected first and second moment estimates."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(params, lr, weight_decay)
        b1, b2 = betas
        check_scalar(b1, "beta_1", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        check_scalar(b2, "beta_2", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        check_scalar(eps, "eps", numbers.Real, low=0.0, low_inclusive=False)
        self.betas = (float(b1), float(b2))
        self.eps = float(eps)
        self.t = 0
        self._m = [np.zeros_like(p.data) for p in self.params]
        self._v = [np.zeros_like(p.data) for p in self.params]

    def step(self) -> None:
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1.0 - b1**self.t, 1.0 - b2**self.t
        for p, m, v in zip(self.params, self._m, self._v):
            g = self._grad(p)
            if g is None:
                continue
            m *= b1
            m += (1.0 - b1) * g
            v *= b2
            v += (1.0 - b2) * g * g
            p.data -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def clip_grad_norm(params, max_norm: float) -> float:
    """Scale every gradient by ``min(1, max_norm / ||g||)`` (joint norm); return the norm before clipping."""
    grads = [p.grad for p in params if p.grad is not None]
    norm = float(np.sqrt(sum(float(np.sum(g * g)) for g in grads)))
    if norm > max_norm > 0:
        scale = max_norm / norm
        for p in params:
            if p.grad is not None:
                p.grad = p.grad * scale
    return norm
