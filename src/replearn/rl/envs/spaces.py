"""Observation and action spaces: a finite set ``{0, ..., n - 1}`` or a box of real vectors."""

from __future__ import annotations

import numpy as np

__all__ = ["Box", "Discrete"]


class Discrete:
    """The integers ``0, ..., n - 1``."""

    def __init__(self, n: int):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"Discrete needs n >= 1, got {n!r}")
        self.n = int(n)

    def contains(self, x) -> bool:
        return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= int(x) < self.n

    def sample(self, rng: np.random.Generator) -> int:
        return int(rng.integers(self.n))

    def __repr__(self) -> str:
        return f"Discrete({self.n})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Discrete) and other.n == self.n


class Box:
    """Real vectors ``x`` with ``low <= x <= high`` elementwise (bounds may be infinite)."""

    def __init__(self, low, high, shape=None):
        low = np.asarray(low, dtype=np.float64)
        high = np.asarray(high, dtype=np.float64)
        shape = tuple(shape) if shape is not None else np.broadcast(low, high).shape
        self.low = np.broadcast_to(low, shape).copy()
        self.high = np.broadcast_to(high, shape).copy()
        if np.any(self.low > self.high):
            raise ValueError("Box needs low <= high")
        self.shape = shape

    def contains(self, x) -> bool:
        x = np.asarray(x, dtype=np.float64)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """Uniform where both bounds are finite, standard normal (clipped) where they are not."""
        finite = np.isfinite(self.low) & np.isfinite(self.high)
        x = rng.standard_normal(self.shape)
        u = rng.uniform(np.where(finite, self.low, 0.0), np.where(finite, self.high, 1.0))
        return np.clip(np.where(finite, u, x), self.low, self.high)

    def __repr__(self) -> str:
        return f"Box(low={self.low.tolist()}, high={self.high.tolist()})"
