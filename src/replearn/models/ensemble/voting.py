"""Voting ensemble of different models (CIML §13.1)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Options, RealArray
from ...base import BaseEstimator
from ...validation import check_classification_targets, check_random_state, check_X_y
from ._base import EnsembleMixin, aligned_proba, make_estimator, vote_shares

_DEFAULTS = {
    "classification": ["logistic_regression", "gaussian_naive_bayes", "decision_tree"],
    "regression": ["ridge", "knn", "decision_tree"],
}


class Voting(EnsembleMixin, BaseEstimator):
    """Train several different models on the same data and combine their predictions.

    CIML §13.1, seed 001 L4180-4186: "train several classifiers and let them vote" — the majority
    vote for classification, the mean (or median) for regression; CS229 summaries §7.8.2 (seed 002
    L1560-1565): ensembling different algorithms.

    * ``voting="hard"``: weighted majority of the predicted labels (ties: the smaller class);
      ``predict_proba`` returns the weighted vote shares.
    * ``voting="soft"``: argmax of the weighted mean of the models' ``predict_proba``.
    * regression (``task="regression"``): weighted mean of the predictions.

    Parameters
    ----------
    estimators : list of registry names, or None for a default trio
        (classification: logistic_regression, gaussian_naive_bayes, decision_tree;
        regression: ridge, knn, decision_tree).
    estimator_params : list of dicts (one per estimator, None entries allowed) or None.
    voting : "hard" or "soft"; weights : list of non-negative numbers or None (equal weights).
    task : "classification" or "regression"; random_state : seeds the members that take one.

    Attributes
    ----------
    estimators_ : fitted members; weights_ : the weights used; classes_ (classification).

    scikit-learn equivalent: ``VotingClassifier`` / ``VotingRegressor`` (which take estimator
    objects; here members are named through the registry so configs stay plain data).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``estimators``, ``estimator_params`` and ``weights`` are checked against each other in fit
    _constraints = {
        "voting": Options({"hard", "soft"}),
        "task": Options({"classification", "regression"}),
        "weights": (None, RealArray(lo=0.0)),
    }

    def __init__(
        self,
        estimators=None,
        estimator_params=None,
        voting="hard",
        weights=None,
        task="classification",
        random_state=None,
    ):
        self.estimators = estimators
        self.estimator_params = estimator_params
        self.voting = voting
        self.weights = weights
        self.task = task
        self.random_state = random_state

    def fit(self, X, y):
        """Fit every member on ``(X, y)``; returns ``self``."""
        self._validate_params()
        names = _DEFAULTS[self.task] if self.estimators is None else self.estimators
        if not isinstance(names, (list, tuple)) or not names:
            raise ValueError(f"estimators must be a non-empty list of registry names, got {names!r}")
        params = self.estimator_params if self.estimator_params is not None else [None] * len(names)
        if not isinstance(params, (list, tuple)) or len(params) != len(names):
            raise ValueError(
                f"estimator_params must be a list with one dict (or None) per estimator: {len(names)} "
                f"estimators, got {params!r}"
            )
        weights = np.ones(len(names)) if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        if weights.shape != (len(names),) or np.any(weights < 0) or weights.sum() <= 0:
            raise ValueError(f"weights must be {len(names)} non-negative numbers, not all zero; got {self.weights!r}")
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        if self.task == "classification":
            self.classes_ = check_classification_targets(y)
        else:
            self.__dict__.pop("classes_", None)
        rng = check_random_state(self.random_state)
        members = [make_estimator(nm, pm, self.task, rng, "estimator") for nm, pm in zip(names, params)]
        if self.task == "classification" and self.voting == "soft":
            missing = [nm for nm, m in zip(names, members) if not hasattr(m, "predict_proba")]
            if missing:
                raise ValueError(f"voting='soft' needs predict_proba, which {missing} do not have; use voting='hard'")
        self.estimators_ = [m.fit(X, y) for m in members]
        self.weights_ = weights
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Soft: weighted mean of the members' probabilities; hard: weighted vote shares."""
        self._require_classification("predict_proba")
        X = self._validate_predict_input(X)
        if self.voting == "soft":
            probas = [aligned_proba(m, X, self.classes_) for m in self.estimators_]
            return np.tensordot(self.weights_, np.stack(probas), axes=1) / self.weights_.sum()
        return vote_shares([m.predict(X) for m in self.estimators_], self.weights_, self.classes_)

    def predict(self, X):
        if self.task == "classification":
            proba = self.predict_proba(X)
            return self.classes_[np.argmax(proba, axis=1)]
        X = self._validate_predict_input(X)
        preds = np.stack([m.predict(X) for m in self.estimators_])
        return self.weights_ @ preds / self.weights_.sum()
