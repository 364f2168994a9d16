"""Helpers shared by the reductions: building base learners by registry name, and reading their scores."""

from __future__ import annotations

import numpy as np

from ...exceptions import ConfigError
from ...validation import check_random_state


def make_estimator(name, params, random_state=None, *, seed=None):
    """Create registered model ``name`` with ``params`` (a dict or None).

    If the model takes ``random_state`` and ``params`` does not set it, it gets ``seed`` (an int
    drawn from the meta-estimator's generator), so the whole reduction is reproducible.
    """
    from .. import create, hyperparameters  # replearn.models (imported lazily: no import cycle)

    if not isinstance(name, str):
        raise ConfigError(f"estimator must be a registry name (a string), got {type(name).__name__}")
    params = dict(params or {})
    if "random_state" in hyperparameters(name) and params.get("random_state") is None and seed is not None:
        params["random_state"] = int(seed)
    return create(name, **params)


def child_seeds(random_state, count: int) -> list[int]:
    """``count`` independent integer seeds from ``random_state``."""
    rng = check_random_state(random_state)
    return [int(s) for s in rng.integers(0, 2**31 - 1, size=count)]


def require_classifier(estimator, name: str) -> None:
    if getattr(estimator, "_estimator_type", "") != "classifier":
        raise ConfigError(f"estimator {name!r} is not a classifier; a reduction needs a binary classifier")


def positive_score(estimator, X: np.ndarray) -> np.ndarray:
    """A real-valued confidence that a binary model predicts its ``classes_[1]``, centred at 0.

    ``decision_function`` if the model has one, else ``predict_proba[:, 1] - 1/2``, else the
    prediction as +-1.
    """
    if hasattr(estimator, "decision_function"):
        s = np.asarray(estimator.decision_function(X), dtype=np.float64)
        return s if s.ndim == 1 else s[:, -1] - s[:, 0]
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X), dtype=np.float64)[:, 1] - 0.5
    return np.where(estimator.predict(X) == estimator.classes_[1], 1.0, -1.0)


def positive_prediction(estimator, X: np.ndarray) -> np.ndarray:
    """Boolean: the binary model predicts its ``classes_[1]``."""
    return np.asarray(estimator.predict(X)) == estimator.classes_[1]
