"""Building, fitting and scoring models for the model-selection tools (grid search, curves, .632).

A *model* is given as a registry name (``"knn"``; built with ``replearn.models.create(name,
**params)``), an unfitted estimator (cloned as ``type(est)(**{**est.get_params(), **params})`` so
the original is never fitted), or a factory ``f(**params)`` returning a new estimator.  A *metric*
is a name in :data:`replearn.evaluation.metrics.METRICS` or a callable ``f(y_true, y_pred)``
(then ``greater_is_better`` must be given).
"""

from __future__ import annotations

import numpy as np

from .metrics import METRICS, available_metrics


def build(model, params: dict | None = None):
    params = dict(params or {})
    if isinstance(model, str):
        from ..models import create

        return create(model, **params)
    if hasattr(model, "get_params") and hasattr(model, "fit"):
        return type(model)(**{**model.get_params(), **params})
    if callable(model):
        return model(**params)
    raise ValueError(
        f"model must be a registry name, an unfitted estimator or a factory f(**params), got {type(model).__name__}"
    )


def resolve_metric(metric, greater_is_better=None):
    """``(name, score(est, X, y, classes), greater_is_better)``."""
    if isinstance(metric, str):
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; available: {', '.join(available_metrics())}")
        m = METRICS[metric]

        def score(est, X, y, classes):
            if m.needs == "proba" or (m.needs == "score" and hasattr(est, "predict_proba")):
                return float(m.func(y, aligned_proba(est, X, classes), classes))
            if m.needs == "score":  # only the order counts: a decision function will do
                if not hasattr(est, "decision_function"):
                    raise ValueError(
                        f"metric {metric!r} ranks the examples by a score, but {type(est).__name__} has neither "
                        "predict_proba nor decision_function"
                    )
                return float(m.func(y, est.decision_function(X), classes))
            return float(m.func(y, est.predict(X), classes))

        return metric, score, m.greater_is_better
    if callable(metric):
        if greater_is_better is None:
            raise ValueError("a callable metric needs greater_is_better=True or False")
        return (
            getattr(metric, "__name__", "metric"),
            lambda est, X, y, classes: float(metric(y, est.predict(X))),
            bool(greater_is_better),
        )
    raise ValueError(f"metric must be a metric name or a callable metric(y_true, y_pred), got {metric!r}")


def aligned_proba(est, X, classes) -> np.ndarray:
    """``predict_proba`` with columns in the order of ``classes`` (a training part may miss a class)."""
    proba = est.predict_proba(X)
    model_classes = np.asarray(est.classes_)
    if classes is None or (model_classes.size == len(classes) and np.array_equal(model_classes, classes)):
        return proba
    out = np.zeros((proba.shape[0], len(classes)))
    out[:, np.searchsorted(classes, model_classes)] = proba
    return out


def task_classes(y, metric_name: str | None):
    """Sorted labels of ``y`` for classification metrics, None for regression ones."""
    if metric_name in METRICS and METRICS[metric_name].task == "regression":
        return None
    y = np.asarray(y)
    return None if y.dtype.kind == "f" else np.unique(y)
