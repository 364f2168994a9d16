"""Decision trees (CIML Alg. 1-2, CART) for classification and regression, with reduced-error pruning."""

from __future__ import annotations

import numbers

import numpy as np

from ..._constraints import Interval, Options
from ..._jit import jit_available
from ...base import BaseEstimator, TaskMixin
from ...exceptions import NotFittedError
from ...validation import (
    check_array,
    check_classification_targets,
    check_random_state,
    check_X_y,
)
from ._builder import build_tree
from ._criteria import CLASSIFICATION, REGRESSION
from ._kernels import apply_tree

_ARRAYS = (
    "feature_",
    "threshold_",
    "split_kind_",
    "children_left_",
    "children_right_",
    "value_",
    "impurity_",
    "n_node_samples_",
    "weighted_n_node_samples_",
)


class DecisionTree(TaskMixin, BaseEstimator):
    """Binary decision tree grown greedily top-down, for classification or regression.

    CIML §1.3 Alg. 1 DecisionTreeTrain / Alg. 2 DecisionTreeTest, seed 001 L197-244: at each node
    ask the question (feature, threshold) whose answer best separates the labels, recurse on the
    "no" (left) and "yes" (right) parts, and stop when the labels are unambiguous or nothing is left
    to split on; leaves predict the majority label. Real-valued features are split on (feature,
    threshold) pairs (L757); depth limits as in L427/L515. CART as in the CS229 lecture summaries
    §7.1-7.4, seed 002 L1325-1491: the split s_p(j, t) = ({x_j <= t}, {x_j > t}) maximizing
    L(R_p) - (|R_1| L(R_1) + |R_2| L(R_2)) / (|R_1| + |R_2|) with

    * ``criterion="misclassification"``: 1 - max_c p_c — CIML's score (the number of majority answers)
    * ``criterion="entropy"``: -sum p_c log2 p_c (information gain)
    * ``criterion="gini"``: 1 - sum p_c^2
    * ``criterion="squared_error"`` (regression trees, seed 002 L1458-1470): the variance of y; leaves
      predict the mean.

    Growth is breadth first with a vectorized split search (sorted prefix sums, see
    :mod:`._builder`). Ties are broken deterministically: lowest feature index, then lowest
    threshold. The stopping rules are seed 002's regularizers (L1480-1491): ``max_depth``,
    ``min_samples_split``, ``min_samples_leaf``, ``min_impurity_decrease``; a node also becomes a
    leaf when it is pure or every feature is constant in it.

    Pruning on a validation set (seed 002 L1488-1491): :meth:`prune` does reduced-error pruning
    bottom-up: a subtree is replaced by a leaf when that does not increase the validation error
    (misclassifications, or squared error for regression). With ``validation_fraction`` set, ``fit``
    holds out that fraction of the data at random, grows the tree on the rest and prunes it on the
    held-out part.

    Parameters
    ----------
    task : "classification" or "regression".
    criterion : str or None — None is "gini" for classification, "squared_error" for regression.
    max_depth : int or None (unlimited); min_samples_split : int >= 2; min_samples_leaf : int >= 1;
    min_impurity_decrease : float >= 0 — a split must decrease sum_nodes W_node I_node / W_total by
        at least this much (scikit-learn's definition).
    max_features : None (all), int, float in (0, 1], "sqrt" or "log2" — features examined per node,
        drawn at random among those not constant in the node (random forests).
    categorical_features : list of column indices or None — those columns are split by "x == v"
        (right) against "x != v" (left) instead of by thresholds.
    validation_fraction : float in (0, 1) or None — hold-out fraction for reduced-error pruning.
    random_state : seed for ``max_features`` and the validation split.

    Notes
    -----
    ``fit(X, y, sample_weight=None)``: weights multiply the class counts (classification) or the
    squared errors (regression), as in scikit-learn; ``min_samples_*`` count rows.

    Attributes
    ----------
    Flat node arrays (breadth-first ids, root 0): ``feature_`` (-1 at leaves), ``threshold_``,
    ``split_kind_`` (0: go left if x <= threshold; 1: go right if x == threshold),
    ``children_left_``, ``children_right_`` (-1 at leaves), ``value_`` (class fractions, or the mean
    target), ``impurity_``, ``n_node_samples_``, ``weighted_n_node_samples_``; ``node_count_``,
    ``n_leaves_``, ``max_depth_``, ``feature_importances_`` (normalized total impurity decrease),
    ``classes_``, ``categorical_`` (bool per feature), ``max_features_``.

    scikit-learn equivalent: ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` with the same
    criterion, depth and leaf limits (scikit-learn has no misclassification criterion, no
    categorical splits and no reduced-error pruning; its ties among equally good features depend
    on a random feature order, ours go to the lowest index).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "max_depth": (None, Interval(int, 0, None)),
        "min_samples_split": Interval(int, 2, None),
        "min_samples_leaf": Interval(int, 1, None),
        "min_impurity_decrease": Interval(float, 0.0, None),
        "task": Options({"classification", "regression"}),
        # which criteria go with which task is checked in fit
        "criterion": (None, Options(set(CLASSIFICATION) | set(REGRESSION))),
        # an int is a count of features, a float a fraction of them
        "max_features": (
            None,
            Options({"log2", "sqrt"}),
            Interval(int, 1, None),
            Interval(float, 0.0, 1.0, closed="right"),
        ),
        "validation_fraction": (None, Interval(float, 0.0, 1.0, closed="neither")),
    }

    def _validate_params(self) -> None:
        if self.task in ("classification", "regression") and self.criterion is not None:
            self._criterion()  # the criteria of this task, named in the message
        super()._validate_params()

    def __init__(
        self,
        task="classification",
        criterion=None,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_features=None,
        categorical_features=None,
        validation_fraction=None,
        random_state=None,
    ):
        self.task = task
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.categorical_features = categorical_features
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Grow the tree (and prune it if ``validation_fraction`` is set); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        return self._fit(X, y, _check_weights(sample_weight, X.shape[0]))

    def _fit(self, X, y, w, presorted=None, encoded=None):
        """``fit`` on validated ``X``, ``y`` and weights ``w``. Ensembles, which fit many trees on one ``X``,
        pass what they computed once: ``presorted``, :func:`._builder.presort` of ``X`` (with this model's
        categorical features), and ``encoded``, ``(classes, codes)`` of ``y`` (classification)."""
        criterion = self._criterion()
        max_depth = np.iinfo(np.int64).max if self.max_depth is None else int(self.max_depth)
        n, d = X.shape
        categorical = self._categorical_mask(d)
        max_features = self._max_features(d)
        rng = check_random_state(self.random_state)
        if self.task == "classification" and encoded is not None:
            self.classes_, codes = encoded
        elif self.task == "classification":
            self.classes_ = check_classification_targets(y)
            codes = np.searchsorted(self.classes_, y).astype(np.int64)
        else:
            self.__dict__.pop("classes_", None)
            codes = None
        grow = np.ones(n, dtype=bool)
        if self.validation_fraction is not None:
            n_val = int(round(self.validation_fraction * n))
            if n_val < 1 or n - n_val < 1:
                raise ValueError(
                    f"validation_fraction={self.validation_fraction} leaves {n_val} of {n} samples for pruning; "
                    "both the growing and the pruning part need at least one"
                )
            grow[rng.permutation(n)[:n_val]] = False
        rows = grow & (w > 0)
        if not rows.any():
            raise ValueError("sample_weight is zero for every training sample")
        tree = build_tree(
            X,
            rows=rows,
            codes=codes,
            n_classes=0 if codes is None else self.classes_.size,
            y=None if codes is not None else y.astype(np.float64),
            sample_weight=w,
            criterion=criterion,
            categorical=categorical,
            max_depth=max_depth,
            min_samples_split=int(self.min_samples_split),
            min_samples_leaf=int(self.min_samples_leaf),
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_features=max_features,
            rng=rng,
            presorted=presorted,
        )
        for name in _ARRAYS:
            setattr(self, name, getattr(tree, name[:-1]))
        self.categorical_ = categorical
        self.max_features_ = int(max_features)
        self.n_features_in_ = d
        self._finish()
        if self.validation_fraction is not None:
            val = ~grow
            self._prune(X[val], codes[val] if codes is not None else y[val].astype(np.float64), w[val])
        return self

    def _criterion(self) -> str:
        if self.criterion is None:
            return "gini" if self.task == "classification" else "squared_error"
        classification = self.task == "classification"
        valid, other = (CLASSIFICATION, REGRESSION) if classification else (REGRESSION, CLASSIFICATION)
        if self.criterion not in valid:
            other_task = "regression" if classification else "classification"
            raise ValueError(
                f"criterion must be one of {sorted(valid)} with task={self.task!r} (and {sorted(other)} with "
                f"task={other_task!r}), got {self.criterion!r}"
            )
        return self.criterion

    def _categorical_mask(self, d: int) -> np.ndarray:
        mask = np.zeros(d, dtype=bool)
        if self.categorical_features is None:
            return mask
        given = self.categorical_features
        cols = list(given) if isinstance(given, (list, tuple, np.ndarray)) else None
        if cols is None or not all(
            isinstance(c, (numbers.Integral, np.integer)) and not isinstance(c, bool) for c in cols
        ):
            raise TypeError(f"categorical_features must be a list of column indices or None, got {given!r}")
        bad = [int(c) for c in cols if not 0 <= c < d]
        if bad:
            raise ValueError(f"categorical_features {bad} are out of range for X with {d} features")
        mask[np.asarray(cols, dtype=np.int64)] = True
        return mask

    def _max_features(self, d: int) -> int:
        mf = self.max_features
        if mf is None:
            return d
        if isinstance(mf, str):
            return max(1, int(np.sqrt(d)) if mf == "sqrt" else int(np.log2(d)))
        if isinstance(mf, (numbers.Integral, np.integer)):
            return min(int(mf), d)
        return max(1, int(mf * d))

    def _finish(self) -> None:
        """Derived attributes: counts, depth and feature importances from the node arrays."""
        n_nodes = self.feature_.size
        leaf = self.children_left_ < 0
        depth = np.zeros(n_nodes, dtype=np.int64)
        for node in np.flatnonzero(~leaf):  # parents come before children (breadth-first ids)
            depth[self.children_left_[node]] = depth[self.children_right_[node]] = depth[node] + 1
        self.node_count_ = int(n_nodes)
        self.n_leaves_ = int(leaf.sum())
        self.max_depth_ = int(depth.max())
        wi = self.weighted_n_node_samples_ * self.impurity_
        inner = np.flatnonzero(~leaf)
        decrease = wi[inner] - wi[self.children_left_[inner]] - wi[self.children_right_[inner]]
        imp = np.bincount(self.feature_[inner], weights=decrease, minlength=self.n_features_in_)
        total = imp.sum()
        self.feature_importances_ = imp / total if total > 0 else imp

    # -- pruning ------------------------------------------------------------------------------------
    def prune(self, X, y, sample_weight=None):
        """Reduced-error pruning on a validation set ``(X, y)``; returns ``self``.

        Bottom-up, every internal node is turned into a leaf if the validation error of the node as
        a leaf is not larger than that of its (already pruned) subtree. Nodes no validation example
        reaches are pruned too (no evidence for them).
        """
        X = self._validate_predict_input(X)
        X, y = check_X_y(X, y, y_numeric=self.task == "regression")
        w = _check_weights(sample_weight, X.shape[0])
        if self.task == "classification":
            known = np.isin(y, self.classes_)
            codes = np.where(known, np.searchsorted(self.classes_, y).clip(0, self.classes_.size - 1), -1)
            self._prune(X, codes, w)
        else:
            self._prune(X, y.astype(np.float64), w)
        return self

    def _prune(self, X, target, w) -> None:
        n_nodes = self.feature_.size
        nodes, rows = self._paths(X)
        if self.task == "classification":
            pred = np.argmax(self.value_, axis=1)
            loss = (pred[nodes] != target[rows]).astype(np.float64)
        else:
            loss = (self.value_[nodes, 0] - target[rows]) ** 2
        err_leaf = np.bincount(nodes, weights=loss * w[rows], minlength=n_nodes)
        leaf = self.children_left_ < 0
        err = err_leaf.copy()
        for node in np.flatnonzero(~leaf)[::-1]:  # children before parents
            sub = err[self.children_left_[node]] + err[self.children_right_[node]]
            if err_leaf[node] <= sub:
                leaf[node] = True
                err[node] = err_leaf[node]
            else:
                err[node] = sub
        reach = np.zeros(n_nodes, dtype=bool)
        reach[0] = True
        for node in range(n_nodes):
            if reach[node] and not leaf[node]:
                reach[self.children_left_[node]] = reach[self.children_right_[node]] = True
        new_id = np.cumsum(reach) - 1
        keep_leaf = leaf[reach]
        for name in _ARRAYS:
            setattr(self, name, getattr(self, name)[reach])
        for name in ("children_left_", "children_right_"):
            arr = getattr(self, name)
            setattr(self, name, np.where(keep_leaf, -1, new_id[np.maximum(arr, 0)]))
        self.feature_ = np.where(keep_leaf, -1, self.feature_)
        self.n_pruned_ = int(n_nodes - reach.sum())
        self._finish()

    # -- prediction -------------------------------------------------------------------------------
    def _paths(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(node, row) pairs of every node each row of ``X`` passes through."""
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        all_nodes, all_rows = [node], [rows]
        while rows.size:
            f = self.feature_[node]
            inner = f >= 0
            node, rows, f = node[inner], rows[inner], f[inner]
            x = X[rows, f]
            t = self.threshold_[node]
            right = np.where(self.split_kind_[node] == 1, x == t, x > t)
            node = np.where(right, self.children_right_[node], self.children_left_[node])
            all_nodes.append(node)
            all_rows.append(rows)
        return np.concatenate(all_nodes), np.concatenate(all_rows)

    def apply(self, X) -> np.ndarray:
        """The leaf each row of ``X`` ends in (Alg. 2 DecisionTreeTest, all rows at once)."""
        return self._apply(self._validate_predict_input(X))

    def _apply(self, X: np.ndarray) -> np.ndarray:
        """:meth:`apply` on validated ``X``: a compiled loop over the rows with numba, else level by level."""
        if jit_available():
            return apply_tree(
                np.ascontiguousarray(X, dtype=np.float64),
                self.feature_,
                self.threshold_,
                self.split_kind_,
                self.children_left_,
                self.children_right_,
            )
        leaf = np.zeros(X.shape[0], dtype=np.int64)
        active = np.arange(X.shape[0])
        node = leaf.copy()
        while active.size:
            f = self.feature_[node]
            inner = f >= 0
            leaf[active[~inner]] = node[~inner]
            active, node, f = active[inner], node[inner], f[inner]
            x = X[active, f]
            t = self.threshold_[node]
            right = np.where(self.split_kind_[node] == 1, x == t, x > t)
            node = np.where(right, self.children_right_[node], self.children_left_[node])
        return leaf

    def predict_proba(self, X) -> np.ndarray:
        """Class fractions (weighted) of the training samples in each row's leaf."""
        self._require_task("classification", "predict_proba")
        leaf = self.apply(X)
        return self.value_[leaf]

    def _predict_codes(self, X: np.ndarray) -> np.ndarray:
        """Index in ``classes_`` of :meth:`predict` on validated ``X`` (classification)."""
        return np.argmax(self.value_, axis=1)[self._apply(X)]

    def predict(self, X):
        """Majority class of the leaf (ties: the first class in ``classes_``), or the leaf mean."""
        if self.task == "classification":
            self._require_task("classification", "predict")
            proba = self.predict_proba(X)
            return self.classes_[np.argmax(proba, axis=1)]
        leaf = self.apply(X)
        return self.value_[leaf, 0]

    def _require_task(self, task: str, method: str) -> None:
        if self.task != task:
            raise AttributeError(f"{method} is only available with task={task!r}, this model has task={self.task!r}")
        if task == "classification" and "feature_" in vars(self) and "classes_" not in vars(self):
            raise NotFittedError("this DecisionTree was fitted with task='regression'; refit it for classification")


def _check_weights(sample_weight, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    w = check_array(sample_weight, name="sample_weight", ndim=1)
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has {w.shape[0]} entries, X has {n} samples")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative")
    return w
