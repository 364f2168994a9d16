"""Finite-difference gradient checks (CS229 notes §7.3, seed 000 L2874-2932; EPFL notes L1843:
"check against finite differences").

``numerical_gradient`` uses central differences, (f(x + h e_i) - f(x - h e_i)) / (2h), whose error is
O(h^2) plus rounding O(eps_machine / h); with h = 1e-6 in float64 the relative error of a correct
analytic gradient is far below 1e-6 for smooth functions (keep inputs away from kinks such as ReLU's 0).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["numerical_gradient", "relative_error", "check_layer_gradients"]


def numerical_gradient(f: Callable[[], float], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central-difference gradient of ``f()`` with respect to the array ``x`` (perturbed in place, restored)."""
    grad = np.zeros_like(x, dtype=np.float64)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    if not np.shares_memory(flat, x):
        raise ValueError("x must be a contiguous array that can be perturbed in place")
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        f_plus = f()
        flat[i] = old - h
        f_minus = f()
        flat[i] = old
        gflat[i] = (f_plus - f_minus) / (2.0 * h)
    return grad


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    """``||a - b|| / (||a|| + ||b||)`` (0 when both are 0)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else float(np.linalg.norm(a - b) / denom)


def check_layer_gradients(
    layer, X: np.ndarray, *, seed: int = 0, h: float = 1e-6, **forward_kwargs
) -> dict[str, float]:
    """Relative errors of a built layer's backward pass against finite differences.

    The scalar checked is ``J = sum(R * layer.forward(X))`` for a fixed random ``R``, so
    dJ/d(output) = R. Returns ``{"input": err, "param0": err, ...}``.
    """
    X = np.array(X, dtype=np.float64, copy=True)
    out = layer.forward(X, **forward_kwargs)
    R = np.random.default_rng(seed).normal(size=out.shape)
    dX = layer.backward(R)
    analytic = [g.copy() for g in layer.gradients()]

    def J():
        return float(np.sum(R * layer.forward(X, **forward_kwargs)))

    errors = {"input": relative_error(dX, numerical_gradient(J, X, h))}
    for k, p in enumerate(layer.parameters()):
        errors[f"param{k}"] = relative_error(analytic[k], numerical_gradient(J, p, h))
    return errors
