"""Synthetic datasets for experiments with known structure (2-D ones can be drawn in the report).

Each generator takes a ``numpy.random.Generator`` and returns ``(X, y, task)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def moons(rng: np.random.Generator, n_samples: int = 300, noise: float = 0.25, **_) -> tuple:
    """Two interleaving half circles (classes 0 and 1) with Gaussian noise."""
    n0 = n_samples // 2
    n1 = n_samples - n0
    t0 = np.linspace(0, np.pi, n0)
    t1 = np.linspace(0, np.pi, n1)
    X = np.vstack([np.c_[np.cos(t0), np.sin(t0)], np.c_[1 - np.cos(t1), 0.5 - np.sin(t1)]])
    X += rng.normal(scale=noise or 0.0, size=X.shape)
    y = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    return X, y, "classification"


def circles(rng: np.random.Generator, n_samples: int = 300, noise: float = 0.1, factor: float = 0.5, **_) -> tuple:
    """A circle of radius ``factor`` (class 1) inside the unit circle (class 0)."""
    n0 = n_samples // 2
    n1 = n_samples - n0
    t0 = np.linspace(0, 2 * np.pi, n0, endpoint=False)
    t1 = np.linspace(0, 2 * np.pi, n1, endpoint=False)
    X = np.vstack([np.c_[np.cos(t0), np.sin(t0)], factor * np.c_[np.cos(t1), np.sin(t1)]])
    X += rng.normal(scale=noise or 0.0, size=X.shape)
    y = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    return X, y, "classification"


def xor(rng: np.random.Generator, n_samples: int = 300, noise: float = 0.05, **_) -> tuple:
    """Uniform points in [-1, 1]^2 labelled by the XOR of their signs; a fraction ``noise`` of labels flipped."""
    X = rng.uniform(-1, 1, size=(n_samples, 2))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    flip = rng.random(n_samples) < (noise or 0.0)
    y[flip] = 1 - y[flip]
    return X, y, "classification"


def blobs(rng, n_samples: int = 300, n_features: int = 2, n_classes: int = 3, cluster_std: float = 1.0, **_) -> tuple:
    """``n_classes`` isotropic Gaussian blobs with centres drawn uniformly in [-10, 10]^d."""
    n_features = n_features or 2
    n_classes = n_classes or 3
    centers = rng.uniform(-10, 10, size=(n_classes, n_features))
    y = np.arange(n_samples) % n_classes
    X = centers[y] + rng.normal(scale=cluster_std or 1.0, size=(n_samples, n_features))
    return X, y, "classification"


def linear(rng, n_samples: int = 300, n_features: int = 5, noise: float = 0.5, **_) -> tuple:
    """``y = X w + 1 + e`` with ``X, w ~ N(0, 1)`` and ``e ~ N(0, noise^2)``: a regression problem."""
    n_features = n_features or 5
    X = rng.normal(size=(n_samples, n_features))
    w = rng.normal(size=n_features)
    y = X @ w + 1.0 + rng.normal(scale=noise or 0.0, size=n_samples)
    return X, y, "regression"


GENERATORS: dict[str, Callable[..., tuple]] = {
    "moons": moons,
    "circles": circles,
    "xor": xor,
    "blobs": blobs,
    "linear": linear,
}
