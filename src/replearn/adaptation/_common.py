"""Base learners by registry name, and training on weighted data when a learner takes no weights."""

from __future__ import annotations

import inspect

import numpy as np

from .. import models  # noqa: F401 -- the registry names the base learners (and registers them with replearn.base)
from ..exceptions import ConfigError

_SEED_MAX = 2**31 - 1


def make_learner(name, params, seed, *, what="estimator", classifier=True):
    """Registered model ``name`` with ``params``; a free ``random_state`` gets ``seed``."""
    from ..models import create, hyperparameters

    if not isinstance(name, str):
        raise TypeError(f"{what} must be a registry name (str), got {type(name).__name__} {name!r}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"{what}_params must be a dict of hyperparameters or None, got {type(params).__name__}")
    hp = dict(params or {})
    valid = hyperparameters(name)
    if "task" in valid and classifier:
        hp.setdefault("task", "classification")
    if "random_state" in valid and hp.get("random_state") is None:
        hp["random_state"] = int(seed)
    model = create(name, **hp)
    if classifier and getattr(model, "_estimator_type", "") != "classifier":
        raise ConfigError(f"{what} {name!r} is not a classifier")
    return model


def accepts_sample_weight(model) -> bool:
    return "sample_weight" in inspect.signature(model.fit).parameters


def fit_weighted(model, X, y, weights, rng, *, weighting="auto"):
    """Fit ``model`` on (X, y) with example weights.

    ``weighting``: "sample_weight" passes the weights to ``fit``; "resample" draws N rows with
    replacement with probabilities proportional to the weights (CIML §8.2: a learner that takes
    weighted examples "can be achieved using either undersampling or oversampling", §6.1);
    "auto" uses sample_weight when ``fit`` accepts it, else resampling. Returns
    (fitted model, the method used).
    """
    if weighting not in ("auto", "sample_weight", "resample"):
        raise ValueError(f"weighting must be one of ['auto', 'resample', 'sample_weight'], got {weighting!r}")
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (X.shape[0],) or np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("example weights must be finite, non-negative, one per row, and not all zero")
    use = weighting
    if use == "auto":
        use = "sample_weight" if accepts_sample_weight(model) else "resample"
    if use == "sample_weight":
        if not accepts_sample_weight(model):
            raise ValueError(f"{type(model).__name__}.fit takes no sample_weight; use weighting='resample'")
        return model.fit(X, y, sample_weight=w), use
    idx = rng.choice(X.shape[0], size=X.shape[0], replace=True, p=w / w.sum())
    return model.fit(X[idx], y[idx]), use


def positive_proba(model, X, positive) -> np.ndarray:
    """P(class ``positive`` | x) from a fitted probabilistic classifier."""
    if not hasattr(model, "predict_proba"):
        raise ValueError(f"{type(model).__name__} has no predict_proba; a probabilistic classifier is needed")
    classes = list(model.classes_)
    return np.asarray(model.predict_proba(X))[:, classes.index(positive)]
