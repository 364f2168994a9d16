"""What the ensembles share: base learners made from registry names, task handling, aggregation."""

from __future__ import annotations

import inspect

import numpy as np

from ...base import TaskMixin
from ...exceptions import ConfigError, NotFittedError

_SEED_MAX = 2**31 - 1


def make_estimator(name, params, task: str, rng: np.random.Generator | None, what: str = "estimator"):
    """Create base learner ``name`` with hyperparameters ``params`` for ``task``.

    Models with a ``task`` hyperparameter get it; others must support the task. A model with a
    ``random_state`` the params leave unset gets a seed drawn from ``rng`` (so the ensemble's one
    ``random_state`` fixes everything).
    """
    from .. import create, hyperparameters, supports

    if not isinstance(name, str):
        raise TypeError(f"{what} must be a registry name (str), got {type(name).__name__} {name!r}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"{what}_params must be a dict of hyperparameters or None, got {type(params).__name__}")
    hp = dict(params or {})
    valid = hyperparameters(name)
    if "task" in valid:
        if hp.get("task", task) != task:
            raise ConfigError(f"{what} {name!r} has task={hp['task']!r} but the ensemble's task is {task!r}")
        hp["task"] = task
    elif not supports(name, task):
        raise ConfigError(f"{what} {name!r} cannot do {task}")
    if "random_state" in valid and hp.get("random_state") is None and rng is not None:
        hp["random_state"] = int(rng.integers(_SEED_MAX))
    return create(name, **hp)


def accepts_sample_weight(estimator) -> bool:
    return "sample_weight" in inspect.signature(estimator.fit).parameters


class EnsembleMixin(TaskMixin):
    """``task`` handling (like ``knn``) and the fitted-ness checks of a meta-estimator."""

    def _require_classification(self, method: str) -> None:
        if self.task != "classification":
            raise AttributeError(
                f"{method} is only available with task='classification', this model has task={self.task!r}"
            )
        if "classes_" not in vars(self) and "n_features_in_" in vars(self):
            raise NotFittedError(
                f"this {type(self).__name__} was fitted with task='regression'; refit it for classification"
            )


def aligned_proba(estimator, X, classes: np.ndarray) -> np.ndarray:
    """``estimator.predict_proba(X)`` in the column order of ``classes`` (missing classes get 0)."""
    proba = estimator.predict_proba(X)
    own = np.asarray(estimator.classes_)
    if own.size == classes.size and np.array_equal(own, classes):
        return proba
    out = np.zeros((proba.shape[0], classes.size))
    out[:, np.searchsorted(classes, own)] = proba
    return out


def vote_shares(predictions: list[np.ndarray], weights: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Weighted share of the votes each class gets, shape (n, n_classes)."""
    n = predictions[0].shape[0]
    votes = np.zeros((n, classes.size))
    rows = np.arange(n)
    for pred, w in zip(predictions, weights):
        votes[rows, np.searchsorted(classes, pred)] += w  # one vote per row: no repeated index
    return votes / weights.sum()
