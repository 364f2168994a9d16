"""CIML's random forest: trees with random structure whose leaves alone are fitted (§13.3, Alg. 33)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, Options
from ...base import BaseEstimator
from ...validation import (
    check_classification_targets,
    check_is_fitted,
    check_random_state,
    check_X_y,
)
from ._base import EnsembleMixin


class RandomStructureForest(EnsembleMixin, BaseEstimator):
    """Random forest of CIML Alg. 33 RandomForestTrain(D, depth, K) (§13.3, seed 001 L4277-4311).

    Algorithm: for k = 1..K, t^(k) is a *complete* binary tree of depth ``max_depth`` whose internal
    nodes test random features, "selected ... typically *with replacement*, meaning that the same
    feature can appear multiple times, even in one branch" (L4307); the leaves are "filled in based on
    the training data. This last step is the *only* point at which the training data is used"
    (L4309-4311). Prediction is the vote f(x) = sgn(sum_k f^(k)(x)) (line 5): the majority class of
    the K trees' leaf predictions (ties: the first class in ``classes_``), or their mean for regression.

    Thresholds: CIML's features are binary, where any threshold in (0, 1) asks "is x_d = 1?". For
    real features a node asks x_d > tau with tau drawn uniformly in the training range
    [min_d, max_d] of its feature — the range is the only statistic of the data the structure sees
    (for 0/1 features this is the binary question up to a measure-zero draw).

    Leaves: class counts (classification) or the mean target (regression) of the training examples
    that reach them; a leaf no example reaches takes its nearest non-empty ancestor's value.

    Parameters
    ----------
    n_estimators : int — K; max_depth : int >= 0 — the depth of every tree (0: a single leaf);
    task : "classification" or "regression"; random_state.

    Attributes
    ----------
    features_ : (K, 2^depth - 1) int — feature tested at each internal node (heap order: children of
    node i are 2i + 1 (x <= tau) and 2i + 2 (x > tau)); thresholds_ : (K, 2^depth - 1);
    leaf_value_ : (K, 2^depth, n_classes) class fractions or (K, 2^depth) means;
    leaf_count_ : (K, 2^depth) training examples per leaf; classes_ ; n_features_in_.

    scikit-learn has no equivalent (``ExtraTreesClassifier`` randomizes thresholds but chooses the
    structure with the data; ``RandomTreesEmbedding`` fits no leaves).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_estimators": Interval(int, 1, None),
        "max_depth": Interval(int, 0, 20),
        "task": Options({"classification", "regression"}),
    }

    def __init__(self, n_estimators=100, max_depth=4, task="classification", random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.task = task
        self.random_state = random_state

    def fit(self, X, y):
        """Draw K random complete trees and fill their leaves from (X, y); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        n, d = X.shape
        K, depth = int(self.n_estimators), int(self.max_depth)
        rng = check_random_state(self.random_state)
        n_inner = 2**depth - 1
        self.features_ = rng.integers(0, d, size=(K, n_inner))  # with replacement (L4307)
        lo, hi = X.min(axis=0), X.max(axis=0)
        f = self.features_
        self.thresholds_ = lo[f] + rng.random((K, n_inner)) * (hi[f] - lo[f])
        self.n_features_in_ = d
        leaves = self._leaves(X)  # (n, K), only now is (X, y) used beyond its range
        n_leaves = 2**depth
        if self.task == "classification":
            self.classes_ = check_classification_targets(y)
            target = np.zeros((n, self.classes_.size))
            target[np.arange(n), np.searchsorted(self.classes_, y)] = 1.0
        else:
            self.__dict__.pop("classes_", None)
            target = y.astype(np.float64)[:, None]
        sums = np.zeros((K, 2 * n_leaves - 1, target.shape[1]))  # every node of the complete tree, heap order
        counts = np.zeros((K, 2 * n_leaves - 1))
        for k in range(K):
            node = leaves[:, k] + n_inner
            np.add.at(sums[k], node, target)
            counts[k] += np.bincount(node, minlength=2 * n_leaves - 1)
        for node in range(n_inner - 1, -1, -1):  # parents accumulate their children (bottom-up)
            sums[:, node] = sums[:, 2 * node + 1] + sums[:, 2 * node + 2]
            counts[:, node] = counts[:, 2 * node + 1] + counts[:, 2 * node + 2]
        value = np.zeros_like(sums)
        value[:, 0] = sums[:, 0] / counts[:, 0, None]
        for node in range(1, 2 * n_leaves - 1):  # top-down: empty nodes inherit their parent's value
            parent = (node - 1) // 2
            c = counts[:, node, None]
            value[:, node] = np.where(c > 0, sums[:, node] / np.maximum(c, 1.0), value[:, parent])
        leaf_value = value[:, n_inner:]
        self.leaf_value_ = leaf_value if self.task == "classification" else leaf_value[:, :, 0]
        self.leaf_count_ = counts[:, n_inner:].astype(np.int64)
        return self

    def _leaves(self, X) -> np.ndarray:
        """(n, K) leaf index (0 .. 2^depth - 1) of each row in each tree."""
        K, n_inner = self.features_.shape
        node = np.zeros((X.shape[0], K), dtype=np.int64)
        trees = np.arange(K)[None, :]
        rows = np.arange(X.shape[0])[:, None]
        while n_inner and node.max(initial=0) < n_inner:  # all rows descend one level per step
            feat = self.features_[trees, node]
            right = X[rows, feat] > self.thresholds_[trees, node]
            node = 2 * node + 1 + right
        return node - n_inner

    def _tree_outputs(self, X) -> np.ndarray:
        X = self._validate_predict_input(X)
        leaves = self._leaves(X)
        return self.leaf_value_[np.arange(leaves.shape[1])[None, :], leaves]

    def predict_proba(self, X) -> np.ndarray:
        """Share of the K trees voting for each class (each tree votes its leaf's majority class)."""
        check_is_fitted(self, "leaf_value_")
        self._require_classification("predict_proba")
        out = self._tree_outputs(X)  # (n, K, n_classes)
        votes = np.argmax(out, axis=2)
        shares = np.zeros((out.shape[0], self.classes_.size))
        for c in range(self.classes_.size):
            shares[:, c] = np.mean(votes == c, axis=1)
        return shares

    def predict(self, X):
        """Majority vote of the trees (Alg. 33 line 5), or the mean of their leaf means (regression)."""
        check_is_fitted(self, "leaf_value_")
        if self.task == "classification":
            return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
        return self._tree_outputs(X).mean(axis=1)
