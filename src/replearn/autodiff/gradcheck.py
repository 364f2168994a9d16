"""Finite-difference checks of reverse-mode gradients.

``check_gradients(f, inputs)`` compares ``d f / d x`` from :meth:`Tensor.backward` with central
differences ``(f(x + h e_j) - f(x - h e_j)) / (2 h)`` for every entry ``j`` of every input, in float64.
``f`` must return a scalar :class:`~replearn.autodiff.tensor.Tensor`; a non-scalar output is reduced
with fixed random weights ``sum(w * f)`` first, so every output entry is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .tensor import Tensor

__all__ = ["numerical_gradient", "check_gradients"]


def _scalar(f: Callable, inputs: Sequence[Tensor], weights: dict) -> Tensor:
    out = f(*inputs)
    if out.data.size == 1:
        return out.sum()
    if "w" not in weights:
        weights["w"] = np.random.default_rng(12345).normal(size=out.shape)
    return (out * weights["w"]).sum()


def numerical_gradient(f: Callable, inputs: Sequence[Tensor], eps: float = 1e-6) -> list[np.ndarray]:
    """Central-difference gradient of the scalar ``f(*inputs)`` with respect to each input's data."""
    weights: dict = {}
    grads = []
    for t in inputs:
        g = np.zeros_like(t.data)
        flat, gflat = t.data.reshape(-1), g.reshape(-1)
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            up = _scalar(f, inputs, weights).item()
            flat[j] = old - eps
            down = _scalar(f, inputs, weights).item()
            flat[j] = old
            gflat[j] = (up - down) / (2.0 * eps)
        grads.append(g)
    return grads


def check_gradients(f: Callable, inputs: Sequence[Tensor], eps: float = 1e-6) -> float:
    """Largest relative error ``|g_auto - g_num| / max(1, |g_auto|, |g_num|)`` over every input entry.

    The inputs must be float64 tensors with ``requires_grad=True``; their ``.grad`` is reset.
    """
    inputs = list(inputs)
    for t in inputs:
        if t.data.dtype != np.float64:
            raise ValueError("gradient checks need float64 inputs")
        t.requires_grad = True
        t.grad = None
    weights: dict = {}
    _scalar(f, inputs, weights).backward()
    auto = [np.zeros_like(t.data) if t.grad is None else t.grad.copy() for t in inputs]
    for t in inputs:
        t.grad = None
    numeric = numerical_gradient(f, inputs, eps=eps)
    worst = 0.0
    for a, n in zip(auto, numeric):
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(n)))
        if a.size:
            worst = max(worst, float(np.max(np.abs(a - n) / scale)))
    return worst
