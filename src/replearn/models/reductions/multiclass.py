"""Multiclass-to-binary reductions of CIML ch. 6.2: one-vs-all, all-vs-all and the tree reduction."""

from __future__ import annotations

import numpy as np

from ..._constraints import Boolean
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import NotFittedError
from ...validation import check_classification_targets, check_X_y
from ._base import child_seeds, make_estimator, positive_prediction, positive_score, require_classifier


class _Reduction(ClassifierMixin, BaseEstimator):
    def __init__(self, estimator="logistic_regression", estimator_params=None, random_state=None):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.random_state = random_state

    def _check(self, X, y):
        self._validate_params()  # the declared table, random_state and the base learner (replearn.base)
        X, y = check_X_y(X, y, estimator=self)
        classes = check_classification_targets(y)
        return X, y, classes

    def predict(self, X):
        """The class with the largest score."""
        scores = self._scores(X)  # validates X and fittedness first
        return self.classes_[np.argmax(scores, axis=1)]

    def _binary(self, scores: np.ndarray) -> np.ndarray:
        """Two classes: one column, ``score(classes_[1]) - score(classes_[0])`` (positive = ``classes_[1]``,
        as ``predict`` decides: a tie goes to ``classes_[0]``); otherwise the (n, K) scores."""
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def _new(self, seed):
        est = make_estimator(self.estimator, self.estimator_params, seed=seed)
        require_classifier(est, self.estimator)
        return est


class OneVsAll(_Reduction):
    """One-versus-all (CIML Alg. 13-14, §6.2, seed 001 L1888-1931; Waterloo notes §2, seed 003 L270-278).

    Training: for each class ``k`` a binary classifier ``f_k`` on ``(x, 1{y = k})`` -- class k
    against all others (CIML relabels to +1 / -1; here 1 / 0, the base learner's own labels).
    Prediction: ``argmax_k score_k(x)``. CIML's Alg. 14 adds the hard prediction ``f_k(x)`` in +-1
    and breaks ties at random; L1933 suggests using a confidence instead, which is the default
    here (``use_scores=True``: the base learner's ``decision_function``, else
    ``predict_proba[:, 1] - 1/2``). With ``use_scores=False`` the scores are the +-1 predictions
    and ties go to the first class in ``classes_`` (deterministic instead of random).
    Error bound: ``(K - 1) eps`` for binary error ``eps`` (Thm. 4, L1947).

    Parameters
    ----------
    estimator : str, default "logistic_regression"
        Registry name of the binary classifier.
    estimator_params : dict or None
        Its hyperparameters.
    use_scores : bool, default True
    random_state : None or int
        Seeds the base learners that take a ``random_state`` (one derived seed per problem).

    Attributes
    ----------
    classes_ : array (K,)
    estimators_ : list of K fitted binary classifiers
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.multiclass.OneVsRestClassifier(estimator)`` (which also
    ranks by ``decision_function``, else ``predict_proba``).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {"use_scores": Boolean()}

    def __init__(self, estimator="logistic_regression", estimator_params=None, use_scores=True, random_state=None):
        super().__init__(estimator, estimator_params, random_state)
        self.use_scores = use_scores

    def fit(self, X, y):
        """Fit one binary classifier per class; returns ``self``."""
        X, y, classes = self._check(X, y)
        seeds = child_seeds(self.random_state, classes.size)
        self.estimators_ = [self._new(s).fit(X, (y == c).astype(np.int64)) for c, s in zip(classes, seeds)]
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        """Per-class scores, shape (n, K); (n,) for two classes (positive = ``classes_[1]``)."""
        return self._binary(self._scores(X))

    def _scores(self, X):
        X = self._validate_predict_input(X)
        if self.use_scores:
            return np.column_stack([positive_score(e, X) for e in self.estimators_])
        return np.column_stack([np.where(positive_prediction(e, X), 1.0, -1.0) for e in self.estimators_])

    @property
    def predict_proba(self):
        """The K "class vs rest" probabilities, normalized to sum to 1 (base learners with ``predict_proba``)."""
        if not hasattr(self, "estimators_"):
            raise NotFittedError("This OneVsAll instance is not fitted yet; call fit(X, y) first")
        if not hasattr(self.estimators_[0], "predict_proba"):
            raise AttributeError(f"the base estimator {self.estimator!r} has no predict_proba")
        return self._predict_proba

    def _predict_proba(self, X):
        X = self._validate_predict_input(X)
        P = np.column_stack([e.predict_proba(X)[:, 1] for e in self.estimators_])
        total = P.sum(axis=1, keepdims=True)
        return np.divide(P, total, out=np.full_like(P, 1.0 / P.shape[1]), where=total > 0)


class AllVsAll(_Reduction):
    """All-versus-all / one-vs-one (CIML Alg. 15-16, §6.2, seed 001 L1967-2012; seed 003 L270-278).

    Training: for every pair of classes ``i < j`` a binary classifier ``f_ij`` on the examples of
    those two classes only (``K (K - 1) / 2`` classifiers, each on balanced-size problems).
    Prediction (Alg. 16): each ``f_ij`` votes for the class it predicts (``score_i += y``,
    ``score_j -= y`` gives the same ranking as counting wins); ties in the vote count are broken
    by the total confidence of each class, squashed to less than 1/3 so it never overturns a vote
    (scikit-learn's rule). Here ``f_ij`` labels class ``j`` as 1 and class ``i`` as 0, as scikit-learn
    does (CIML's +1 for ``i`` is the same classifier with the sign flipped). Error bound
    ``2 (K - 1) eps`` (Thm. 5, L2012).

    Parameters and attributes as :class:`OneVsAll` (without ``use_scores``); ``estimators_`` holds
    the classifiers in the order (0,1), (0,2), ..., (K-2, K-1).

    scikit-learn equivalent: ``sklearn.multiclass.OneVsOneClassifier(estimator)`` (identical votes
    and tie-breaking when the base learner has a ``decision_function``; for ``predict_proba``-only
    learners scikit-learn's confidences are not centred at 0).
    """

    def fit(self, X, y):
        """Fit one binary classifier per pair of classes; returns ``self``."""
        X, y, classes = self._check(X, y)
        K = classes.size
        seeds = child_seeds(self.random_state, K * (K - 1) // 2)
        self.estimators_ = []
        k = 0
        for i in range(K):
            for j in range(i + 1, K):
                mask = (y == classes[i]) | (y == classes[j])
                est = self._new(seeds[k]).fit(X[mask], (y[mask] == classes[j]).astype(np.int64))
                self.estimators_.append(est)
                k += 1
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        """Votes plus the squashed confidence tie-break, shape (n, K); for two classes the (n,)
        difference of the two columns (positive = ``classes_[1]``; scikit-learn returns the second
        column, which is not centred at 0)."""
        return self._binary(self._scores(X))

    def _scores(self, X):
        X = self._validate_predict_input(X)
        K = self.classes_.size
        votes = np.zeros((X.shape[0], K))
        conf = np.zeros((X.shape[0], K))
        k = 0
        for i in range(K):
            for j in range(i + 1, K):
                est = self.estimators_[k]
                pred_j = positive_prediction(est, X)
                s = positive_score(est, X)
                votes[:, j] += pred_j
                votes[:, i] += ~pred_j
                conf[:, j] += s
                conf[:, i] -= s
                k += 1
        return votes + conf / (3.0 * (np.abs(conf) + 1.0))


class TreeReduction(_Reduction):
    """The tree (tournament) reduction (CIML §6.2, seed 001 L2014-2030, Fig. 6.2).

    The sorted classes are split recursively in halves -- ``K = 8``: the root separates classes
    {1, 2, 3, 4} from {5, 6, 7, 8} -- and each internal node gets a binary classifier trained on
    the examples of its classes only ("left half" = 0, "right half" = 1); with an odd number the
    left half gets one more. Prediction walks from the root to a leaf: ``K - 1`` classifiers in all
    and ``ceil(log2 K)`` evaluations per example. Error bound ``ceil(log2 K) eps`` (Thm. 6, L2024).

    Parameters as :class:`OneVsAll` (without ``use_scores``).

    Attributes
    ----------
    classes_ : array (K,)
    estimators_ : list of K - 1 fitted binary classifiers, one per internal node (pre-order)
    node_lo_, node_mid_, node_hi_ : int arrays (K - 1,)
        Node ``t`` covers class indices ``[lo, hi)`` and sends ``[lo, mid)`` left, ``[mid, hi)`` right.
    node_left_, node_right_ : int arrays (K - 1,)
        Child node index, or ``-1 - class_index`` for a leaf.
    n_features_in_ : int

    scikit-learn has no equivalent.
    """

    def fit(self, X, y):
        """Fit the K - 1 node classifiers; returns ``self``."""
        X, y, classes = self._check(X, y)
        K = classes.size
        codes = np.searchsorted(classes, y)
        seeds = child_seeds(self.random_state, K - 1)
        lo, mid, hi, left, right = [], [], [], [], []
        self.estimators_ = []

        def build(a, b):  # classes [a, b), b - a >= 2; returns the node index
            t = len(lo)
            m = a + (b - a + 1) // 2
            lo.append(a)
            mid.append(m)
            hi.append(b)
            left.append(0)
            right.append(0)
            mask = (codes >= a) & (codes < b)
            self.estimators_.append(self._new(seeds[t]).fit(X[mask], (codes[mask] >= m).astype(np.int64)))
            left[t] = build(a, m) if m - a >= 2 else -1 - a
            right[t] = build(m, b) if b - m >= 2 else -1 - m
            return t

        build(0, K)
        self.node_lo_ = np.asarray(lo, dtype=np.int64)
        self.node_mid_ = np.asarray(mid, dtype=np.int64)
        self.node_hi_ = np.asarray(hi, dtype=np.int64)
        self.node_left_ = np.asarray(left, dtype=np.int64)
        self.node_right_ = np.asarray(right, dtype=np.int64)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        """Descend the tree: at each node go right where its classifier predicts 1."""
        X = self._validate_predict_input(X)
        node = np.zeros(X.shape[0], dtype=np.int64)  # current node per example (>= 0) or -1 - class
        for t in range(len(self.estimators_)):  # pre-order: parents come before children
            here = node == t
            if not np.any(here):
                continue
            go_right = positive_prediction(self.estimators_[t], X[here])
            node[here] = np.where(go_right, self.node_right_[t], self.node_left_[t])
        return self.classes_[-1 - node]
