"""Bootstrap aggregating (CIML §13.1; CS229 summaries §7.8.3)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator
from ...validation import (
    check_classification_targets,
    check_random_state,
    check_X_y,
)
from ._base import EnsembleMixin, aligned_proba, make_estimator, vote_shares

_MAX_REDRAWS = 100


class Bagging(EnsembleMixin, BaseEstimator):
    """Bagging: fit the same model on bootstrap resamples of the data and aggregate.

    CIML §13.1, seed 001 L4188-4205: draw M data sets of size N with replacement from the training
    data (each holds about 1 - 1/e = 63% of the distinct examples, L4203), train one model on each,
    and vote (classification) or average (regression). CS229 summaries §7.8.3, seed 002 L1567-1600:
    averaging M models of variance sigma^2 and correlation rho gives variance
    rho sigma^2 + (1 - rho) sigma^2 / M, so bagging lowers variance; more models do not overfit.

    Aggregation: if every member has ``predict_proba`` the class probabilities are averaged (as
    scikit-learn's ``BaggingClassifier`` does), otherwise the members vote; regression averages.
    A resample that misses all but one class is redrawn (a classifier needs two classes).

    Parameters
    ----------
    estimator : registry name of the base model (default "decision_tree");
    estimator_params : dict or None; n_estimators : int; max_samples : float in (0, 1] — resample
    size as a fraction of n; bootstrap : bool — with replacement (True) or subsampling without
    replacement ("pasting"); task; random_state.

    Attributes
    ----------
    estimators_ : fitted members; classes_ (classification).

    scikit-learn equivalent: ``BaggingClassifier`` / ``BaggingRegressor`` with the same
    ``n_estimators``, ``max_samples`` and ``bootstrap`` (the resamples differ: different RNGs).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_estimators": Interval(int, 1, None),
        "max_samples": Interval(float, 0.0, 1.0, closed="right"),
        "bootstrap": Boolean(),
        "task": Options({"classification", "regression"}),
    }

    def __init__(
        self,
        estimator="decision_tree",
        estimator_params=None,
        n_estimators=10,
        max_samples=1.0,
        bootstrap=True,
        task="classification",
        random_state=None,
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.task = task
        self.random_state = random_state

    def fit(self, X, y):
        """Fit ``n_estimators`` members on resamples; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        n = X.shape[0]
        if self.task == "classification":
            self.classes_ = check_classification_targets(y)
        else:
            self.__dict__.pop("classes_", None)
        rng = check_random_state(self.random_state)
        size = max(1, int(round(self.max_samples * n)))
        members = []
        for _ in range(int(self.n_estimators)):
            model = make_estimator(self.estimator, self.estimator_params, self.task, rng, "estimator")
            idx = self._draw(rng, n, size, y)
            members.append(model.fit(X[idx], y[idx]))
        self.estimators_ = members
        self.n_features_in_ = X.shape[1]
        return self

    def _draw(self, rng, n, size, y):
        for _ in range(_MAX_REDRAWS):
            idx = rng.integers(0, n, size) if self.bootstrap else np.sort(rng.permutation(n)[:size])
            if self.task == "regression" or np.unique(y[idx]).size >= 2:
                return idx
        raise ValueError(f"{_MAX_REDRAWS} resamples of size {size} all held a single class; raise max_samples")

    def predict_proba(self, X) -> np.ndarray:
        """Mean member probability (or vote shares if a member has no ``predict_proba``)."""
        self._require_classification("predict_proba")
        X = self._validate_predict_input(X)
        if all(hasattr(m, "predict_proba") for m in self.estimators_):
            return np.mean([aligned_proba(m, X, self.classes_) for m in self.estimators_], axis=0)
        return vote_shares([m.predict(X) for m in self.estimators_], np.ones(len(self.estimators_)), self.classes_)

    def predict(self, X):
        if self.task == "classification":
            proba = self.predict_proba(X)
            return self.classes_[np.argmax(proba, axis=1)]
        X = self._validate_predict_input(X)
        return np.mean([m.predict(X) for m in self.estimators_], axis=0)
