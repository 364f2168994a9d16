"""Two-dimensional test distributions for the GAN and the normalizing flow, and sample-quality measures.

* :func:`make_gaussian_ring`: an equal-weight mixture of ``n_modes`` isotropic Gaussians (standard
  deviation ``std``) whose means sit evenly on a circle of ``radius`` -- the standard "ring of
  Gaussians" of the GAN literature (Metz et al. 2017), where a collapsed generator covers few modes.
* :func:`gaussian_ring_log_density`: its exact log-density, to compare a model's log-likelihood with
  the truth.
* :func:`mode_coverage`: for generated points, the share of modes that receive at least
  ``min_share`` of the points within ``n_std`` standard deviations, and the share of points that
  fall within ``n_std`` of some mode ("high-quality" samples).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_random_state, check_scalar

__all__ = ["ring_centers", "make_gaussian_ring", "gaussian_ring_log_density", "mode_coverage"]


def ring_centers(n_modes: int = 8, radius: float = 2.0) -> np.ndarray:
    angles = 2.0 * np.pi * np.arange(n_modes) / n_modes
    return radius * np.column_stack([np.cos(angles), np.sin(angles)])


def make_gaussian_ring(
    n_samples: int, n_modes: int = 8, radius: float = 2.0, std: float = 0.2, random_state=None
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(X, labels)``: ``n_samples`` points and the index of the mode each came from."""
    check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
    check_scalar(n_modes, "n_modes", numbers.Integral, low=1)
    check_scalar(std, "std", numbers.Real, low=0.0, low_inclusive=False)
    rng = check_random_state(random_state)
    labels = rng.integers(0, n_modes, size=n_samples)
    X = ring_centers(n_modes, radius)[labels] + std * rng.normal(size=(n_samples, 2))
    return X, labels


def gaussian_ring_log_density(X, n_modes: int = 8, radius: float = 2.0, std: float = 0.2) -> np.ndarray:
    """Exact ``log p(x)`` of the ring mixture at each row of ``X``."""
    X = np.asarray(X, dtype=float)
    c = ring_centers(n_modes, radius)
    d2 = ((X[:, None, :] - c[None]) ** 2).sum(-1)
    a = -0.5 * d2 / std**2 - np.log(2 * np.pi * std**2) - np.log(n_modes)
    m = a.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0]


def mode_coverage(samples, centers, std: float, n_std: float = 3.0, min_share: float = 0.02) -> tuple[float, float]:
    """``(share of modes covered, share of samples within n_std * std of their nearest mode)``."""
    S = np.asarray(samples, dtype=float)
    d = np.sqrt(((S[:, None, :] - np.asarray(centers)[None]) ** 2).sum(-1))
    nearest = d.argmin(axis=1)
    close = d[np.arange(len(S)), nearest] <= n_std * std
    counts = np.bincount(nearest[close], minlength=len(centers))
    return float(np.mean(counts >= min_share * len(S))), float(close.mean())
