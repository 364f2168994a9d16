"""Thin adapters: a scikit-learn estimator behind replearn's estimator protocol (``replearn.base``).

Each adapter declares the hyperparameters it passes on (its ``__init__`` arguments, stored unchanged) and
their valid values (``_constraints``, read by replearn's configuration check before any stage runs). ``fit``
validates its input with replearn's checks, fits the scikit-learn estimator and keeps it in ``_estimator``.

replearn's model files hold arrays, never pickles, so the learned state saved is the training data itself
(``X_fit_``, ``y_fit_``): a loaded model refits its scikit-learn estimator on first use -- deterministic,
since every random choice comes from ``random_state``.
"""

from __future__ import annotations

import numpy as np

from replearn._constraints import Interval, Options
from replearn.base import BaseEstimator, ClassifierMixin
from replearn.validation import check_X_y


class _SklearnClassifier(ClassifierMixin, BaseEstimator):
    """Shared plumbing: subclasses name the scikit-learn class and map their hyperparameters to its arguments."""

    def _sklearn(self):  # pragma: no cover - interface
        raise NotImplementedError

    def fit(self, X, y):
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        self._estimator = self._sklearn().fit(X, y)
        self.classes_ = np.asarray(self._estimator.classes_)
        self.n_features_in_ = X.shape[1]
        self.X_fit_, self.y_fit_ = X, np.asarray(y)
        return self

    def _fitted(self):
        if getattr(self, "_estimator", None) is None:  # loaded from a model file: refit (seeded, deterministic)
            self._estimator = self._sklearn().fit(self.X_fit_, self.y_fit_)
        return self._estimator

    def predict(self, X):
        X = self._validate_predict_input(X)
        return self._fitted().predict(X)


class SkLogisticRegression(_SklearnClassifier):
    """``sklearn.linear_model.LogisticRegression``: ``C * sum_i logloss_i + 1/2 ||w||^2`` (penalty="l2"),
    intercept not penalized -- the objective of replearn's ``logistic_regression`` with the same ``C``."""

    _constraints = {
        "C": Interval(float, 0, None, closed="neither"),
        "penalty": (None, Options({"l2"})),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0, None, closed="neither"),
    }

    def __init__(self, C: float = 1.0, penalty: str | None = "l2", max_iter: int = 1000, tol: float = 1e-8):
        self.C = C
        self.penalty = penalty
        self.max_iter = max_iter
        self.tol = tol

    def _sklearn(self):
        from sklearn.linear_model import LogisticRegression

        if self.penalty is None:
            return LogisticRegression(C=np.inf, max_iter=self.max_iter, tol=self.tol)
        return LogisticRegression(C=self.C, max_iter=self.max_iter, tol=self.tol)

    def predict_proba(self, X):
        X = self._validate_predict_input(X)
        return self._fitted().predict_proba(X)

    def decision_function(self, X):
        X = self._validate_predict_input(X)
        return self._fitted().decision_function(X)


class SkRandomForest(_SklearnClassifier):
    """``sklearn.ensemble.RandomForestClassifier`` (bootstrap samples, random feature subsets per split)."""

    _stochastic = True
    _constraints = {
        "n_estimators": Interval(int, 1, None),
        "max_depth": (None, Interval(int, 1, None)),
        "max_features": (Options({"sqrt", "log2"}), Interval(float, 0, 1, closed="right")),
        "random_state": (None, Interval(int, 0, 2**32 - 1)),
    }

    def __init__(self, n_estimators: int = 100, max_depth: int | None = None, max_features="sqrt", random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features
        self.random_state = random_state

    def _sklearn(self):
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            max_features=self.max_features,
            random_state=self.random_state,
            n_jobs=1,
        )

    def predict_proba(self, X):
        X = self._validate_predict_input(X)
        return self._fitted().predict_proba(X)


class SkSVC(_SklearnClassifier):
    """``sklearn.svm.SVC`` (libsvm's SMO; one-vs-one for more than two classes)."""

    _constraints = {
        "C": Interval(float, 0, None, closed="neither"),
        "kernel": Options({"linear", "rbf", "poly"}),
        "gamma": (Options({"scale", "auto"}), Interval(float, 0, None, closed="neither")),
        "degree": Interval(int, 1, None),
    }

    def __init__(self, C: float = 1.0, kernel: str = "rbf", gamma="scale", degree: int = 3):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree

    def _sklearn(self):
        from sklearn.svm import SVC

        return SVC(C=self.C, kernel=self.kernel, gamma=self.gamma, degree=self.degree)

    def decision_function(self, X):
        X = self._validate_predict_input(X)
        return self._fitted().decision_function(X)
