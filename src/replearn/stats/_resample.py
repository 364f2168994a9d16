"""Shared pieces of the resampling tests: statistics by name, metrics by name, seeds."""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

STATISTICS: dict[str, Callable[..., Any]] = {"mean": np.mean, "median": np.median}


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer (it is recorded with the result), got {seed!r}")
    return int(seed)


def check_resamples(n_resamples, low: int = 1) -> int:
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (numbers.Integral, np.integer))
        or n_resamples < low
    ):
        raise ValueError(f"n_resamples must be an integer >= {low}, got {n_resamples!r}")
    return int(n_resamples)


def resolve_statistic(statistic, vectorized=None):
    """``(name, f)`` with ``f(*samples)`` evaluated along the last axis of each sample."""
    if isinstance(statistic, str):
        if statistic not in STATISTICS:
            raise ValueError(f"unknown statistic {statistic!r}; use one of {sorted(STATISTICS)} or a callable")
        func = STATISTICS[statistic]
        return statistic, lambda *s: func(*s, axis=-1)
    if not callable(statistic):
        raise ValueError(f"statistic must be a name ({sorted(STATISTICS)}) or a callable, got {statistic!r}")
    name = getattr(statistic, "__name__", "callable")
    if vectorized is None:
        try:
            vectorized = "axis" in inspect.signature(statistic).parameters
        except (TypeError, ValueError):
            vectorized = False
    if vectorized:
        return name, lambda *s: np.asarray(statistic(*s, axis=-1), dtype=np.float64)

    def looped(*samples):
        s = [np.asarray(x) for x in samples]
        if s[0].ndim == 1:
            return np.float64(statistic(*s))
        return np.array([statistic(*(x[i] for x in s)) for i in range(s[0].shape[0])], dtype=np.float64)

    return name, looped


def resolve_metric(metric, classes=None):
    """``(name, f(y_true, y_pred))`` for a callable or a name in ``replearn.evaluation.METRICS``.

    Metrics by name are called with the ``classes`` of the full data (a resample may miss one).
    """
    if callable(metric):
        return getattr(metric, "__name__", "metric"), metric
    if isinstance(metric, str):
        from ..evaluation.metrics import METRICS, available_metrics

        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; available: {', '.join(available_metrics())}")
        m = METRICS[metric]
        return metric, lambda yt, yp: m.func(yt, yp, classes)
    raise ValueError(f"metric must be a callable metric(y_true, y_pred) or a metric name, got {metric!r}")


#: metrics that are the mean of a per-example value: a resample's metric is then the row mean of the
#: per-example values at its indices, computed for all resamples at once instead of one metric call per row
PER_EXAMPLE = {
    "accuracy": lambda yt, yp: (yt == yp).astype(np.float64),
    "error": lambda yt, yp: (yt != yp).astype(np.float64),
    "mse": lambda yt, yp: (np.asarray(yt, np.float64) - np.asarray(yp, np.float64)) ** 2,
    "mae": lambda yt, yp: np.abs(np.asarray(yt, np.float64) - np.asarray(yp, np.float64)),
}


def per_example(metric):
    """The per-example form ``g(y_true, y_pred) -> values`` of a metric named in :data:`PER_EXAMPLE`, else None."""
    return PER_EXAMPLE.get(metric) if isinstance(metric, str) else None


def as_1d(x, name: str, min_size: int = 1) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.size < min_size:
        raise ValueError(f"{name} must be a 1-D array with at least {min_size} value(s), got shape {arr.shape}")
    if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr
