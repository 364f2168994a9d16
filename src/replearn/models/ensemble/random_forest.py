"""Random forests: bagged decision trees with a random feature subset at every split."""

from __future__ import annotations

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator
from ...validation import (
    check_classification_targets,
    check_random_state,
    check_X_y,
)
from ..trees._builder import presort
from ..trees.decision_tree import DecisionTree
from ._base import EnsembleMixin

_SEED_MAX = 2**31 - 1


class RandomForest(EnsembleMixin, BaseEstimator):
    """Random forest (Breiman 2001): bagging of decision trees that consider, at each split, only a
    random subset of ``max_features`` features.

    CS229 summaries §7.8.3.1, seed 002 L1596-1600: bagged trees plus a random subset of the features
    at each split, which decorrelates the trees (lowering rho in rho sigma^2 + (1 - rho) sigma^2 / M)
    at a small cost in bias. CIML §13.3 Alg. 33, seed 001 L4277-4291, describes the more extreme
    variant whose tree *structure* is random and whose leaves alone are fitted; this class is
    Breiman's version, the one the CS229 summaries describe and scikit-learn implements.

    Each tree is a :class:`~replearn.models.trees.decision_tree.DecisionTree` grown on a bootstrap
    resample (given as integer sample weights: how often each row was drawn), with
    ``max_features`` drawn per node among the non-constant features; classification averages the
    trees' class probabilities (as scikit-learn does), regression their predictions.

    Parameters
    ----------
    n_estimators : int
    criterion, max_depth, min_samples_split, min_samples_leaf
        As for ``decision_tree``.
    max_features : None, int, float or "sqrt"/"log2"
        None: "sqrt" for classification, all features for regression (scikit-learn's defaults).
    bootstrap : bool
        False: every tree sees all rows and only the feature subsampling differs.
    task, random_state

    Attributes
    ----------
    estimators_ : fitted trees; classes_; feature_importances_ : mean of the trees' importances.

    scikit-learn equivalent: ``RandomForestClassifier`` / ``RandomForestRegressor`` with the same
    settings (the random draws differ, so forests agree in accuracy, not tree by tree).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_estimators": Interval(int, 1, None),
        "max_depth": (None, Interval(int, 0, None)),
        "min_samples_split": Interval(int, 2, None),
        "min_samples_leaf": Interval(int, 1, None),
        "criterion": DecisionTree._constraints["criterion"],  # the trees check it against the task
        "max_features": DecisionTree._constraints["max_features"],
        "bootstrap": Boolean(),
        "task": Options({"classification", "regression"}),
    }

    def __init__(
        self,
        n_estimators=100,
        criterion=None,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        max_features=None,
        bootstrap=True,
        task="classification",
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.task = task
        self.random_state = random_state

    def fit(self, X, y):
        """Grow ``n_estimators`` trees on bootstrap resamples; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        n = X.shape[0]
        if self.task == "classification":
            self.classes_ = check_classification_targets(y)
        else:
            self.__dict__.pop("classes_", None)
        max_features = self.max_features
        if max_features is None:
            max_features = "sqrt" if self.task == "classification" else None
        rng = check_random_state(self.random_state)
        # computed once for all trees: the sort of every feature (each tree keeps the rows of its bootstrap
        # sample in this order, O(n d) instead of a sort) and the class codes
        presorted = presort(X, np.zeros(X.shape[1], dtype=bool))
        encoded = None
        if self.task == "classification":
            encoded = (self.classes_, np.searchsorted(self.classes_, y).astype(np.int64))
        ones = np.ones(n)
        trees = []
        for _ in range(int(self.n_estimators)):
            tree = DecisionTree(
                task=self.task,
                criterion=self.criterion,
                max_depth=self.max_depth,
                min_samples_split=self.min_samples_split,
                min_samples_leaf=self.min_samples_leaf,
                max_features=max_features,
                random_state=int(rng.integers(_SEED_MAX)),
            )
            weight = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64) if self.bootstrap else ones
            tree._validate_params()
            trees.append(tree._fit(X, y, weight, presorted=presorted, encoded=encoded))
        self.estimators_ = trees
        imp = np.mean([t.feature_importances_ for t in trees], axis=0)
        self.feature_importances_ = imp / imp.sum() if imp.sum() > 0 else imp
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Mean of the trees' class fractions."""
        self._require_classification("predict_proba")
        X = self._validate_predict_input(X)
        return np.mean([t.value_[t._apply(X)] for t in self.estimators_], axis=0)

    def predict(self, X):
        if self.task == "classification":
            proba = self.predict_proba(X)
            return self.classes_[np.argmax(proba, axis=1)]
        X = self._validate_predict_input(X)
        return np.mean([t.value_[t._apply(X), 0] for t in self.estimators_], axis=0)
