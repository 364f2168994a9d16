"""Decision-tree paths as meta-features for linear models (CIML §5.4, seed 001 L1456-1465)."""

from __future__ import annotations

import numpy as np

from .._constraints import Boolean, Interval
from ..base import BaseEstimator, TransformerMixin
from ..validation import (
    check_array,
    check_is_fitted,
    check_n_features,
    check_X_y,
)


class TreeLeaves(TransformerMixin, BaseEstimator):
    """Meta-features read off a decision tree: one indicator per branch (CIML §5.4, Fig. 5.11).

    "Train a decision tree on the training data. From that decision tree, you can extract meta
    features by looking at feature combinations along branches" — logical ANDs of the tests on a
    root-to-node path — "and add *only* those feature combinations as meta features to the feature
    set for the perceptron. There is a hyperparameter here of what length paths to extract" (L1460).

    ``fit(X, y)`` grows a :class:`~replearn.models.trees.decision_tree.DecisionTree` (``max_depth``,
    ``criterion``, ``task``) on the training data. The meta-features are the nodes at depth
    ``path_length`` (conjunctions of ``path_length`` tests) together with the leaves above that depth;
    ``path_length=None`` uses the leaves (full-length branches). Each example gets 1 in the column of
    the node its branch reaches, so every row has exactly one 1 among the meta-features. With
    ``include_original`` the original features come first (CIML adds the meta-features to the
    feature set). The tree, and thus the columns, are fixed at fit time (training data only).

    Parameters
    ----------
    max_depth : int >= 1; path_length : int >= 1 or None; criterion : None (gini / squared error) or a
    DecisionTree criterion; task : "classification" or "regression"; include_original : bool;
    random_state.

    Attributes
    ----------
    tree_ : the fitted DecisionTree; nodes_ : (m,) tree node ids of the meta-feature columns;
    n_features_in_; n_features_out_.

    scikit-learn's closest tool is one-hot encoding ``DecisionTreeClassifier.apply`` (leaves only).
    """

    _constraints = {
        "max_depth": Interval(int, 1, None),
        "path_length": (None, Interval(int, 1, None)),
        "include_original": Boolean(),
    }

    def __init__(
        self,
        max_depth=3,
        path_length=None,
        criterion=None,
        task="classification",
        include_original=True,
        random_state=None,
    ):
        self.max_depth = max_depth
        self.path_length = path_length
        self.criterion = criterion
        self.task = task
        self.include_original = include_original
        self.random_state = random_state

    def fit(self, X, y=None):
        """Grow the tree on (X, y) and choose the meta-feature nodes; returns ``self``."""
        from ..models.trees.decision_tree import DecisionTree

        if y is None:
            raise ValueError("tree_leaves is supervised: fit(X, y) needs the targets the tree is grown on")
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression")
        self.tree_ = DecisionTree(
            task=self.task, criterion=self.criterion, max_depth=self.max_depth, random_state=self.random_state
        ).fit(X, y)
        depth = self._depths()
        leaf = self.tree_.children_left_ < 0
        cut = np.iinfo(np.int64).max if self.path_length is None else int(self.path_length)
        self.nodes_ = np.flatnonzero((depth == cut) | (leaf & (depth < cut)))
        self.n_features_in_ = X.shape[1]
        self.n_features_out_ = self.nodes_.size + (X.shape[1] if self.include_original else 0)
        return self

    def _depths(self):
        t = self.tree_
        depth = np.zeros(t.feature_.size, dtype=np.int64)
        for node in np.flatnonzero(t.children_left_ >= 0):  # breadth-first ids: parents first
            depth[t.children_left_[node]] = depth[t.children_right_[node]] = depth[node] + 1
        return depth

    def transform(self, X):
        """[X (if include_original), one indicator per meta-feature node]."""
        check_is_fitted(self, "nodes_")
        X = check_array(X)
        check_n_features(self, X)
        t = self.tree_
        column = np.full(t.feature_.size, -1, dtype=np.int64)
        column[self.nodes_] = np.arange(self.nodes_.size)
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        while True:  # descend until each row reaches its meta-feature node
            active = column[node] < 0
            if not active.any():
                break
            n, r = node[active], rows[active]
            x = X[r, t.feature_[n]]
            thr = t.threshold_[n]
            right = np.where(t.split_kind_[n] == 1, x == thr, x > thr)
            node[active] = np.where(right, t.children_right_[n], t.children_left_[n])
        meta = np.zeros((X.shape[0], self.nodes_.size))
        meta[rows, column[node]] = 1.0
        return np.hstack([X, meta]) if self.include_original else meta
