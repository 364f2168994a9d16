"""Ranking by reduction to binary classification of pairs (CIML §6.3, Algorithms 17-18)."""

from __future__ import annotations

import numbers

import numpy as np

from ...base import BaseEstimator
from ...validation import check_array, check_random_state, check_scalar, check_X_y
from ._base import make_estimator, positive_prediction, positive_score, require_classifier

#: pair rows built at once when scoring (bounds the temporaries)
_PAIR_BLOCK = 200_000


class PairwiseRanking(BaseEstimator):
    """Learn to rank items by classifying ordered pairs (CIML NaiveRankTrain/Test, Alg. 17-18,
    §6.3, seed 001 L2039-2089).

    Input: ``X`` holds one row per item and ``y`` a relevance grade (higher = preferred).
    Optionally ``group_column`` is the index of a column of ``X`` holding a query id: pairs are
    then formed only within a query (CIML's N queries x M documents) and that column is not a
    feature. This keeps the pipeline's plain numeric-matrix interface.

    Training (Alg. 17): for every ordered pair ``(i, j)`` of items of the same query with
    ``y_i != y_j`` the pair feature ``x_ij = x_i - x_j`` gets the label 1 if ``i`` is preferred and 0
    otherwise (both orientations are included, pairs without a preference are skipped); a binary
    classifier ``f`` is trained on them. The difference is the pair feature map of choice for linear
    scorers (CIML leaves ``x_ij`` open). ``max_pairs`` caps the number of pairs by a uniform random
    subset (the ``O(M^2)`` pairs of a large query).

    Prediction (Alg. 18): for every ordered pair ``(i, j)`` of items of the same query,
    ``score_i += f(x_ij)`` and ``score_j -= f(x_ij)``, where ``f`` is the +-1 prediction
    (``use_scores=False``) or the classifier's centred confidence (``True``, the default; smoother
    and tie-free for linear learners). ``predict`` returns the scores, ``rank`` the items sorted by
    decreasing score (``ARGSORT``), ``score`` the fraction of correctly ordered pairs (ties in the
    predicted score count 1/2) -- the AUC for bipartite relevance (eq. 6.9). Error bound 2 eps in
    general, eps for bipartite ranking (Thm. 7, L2180). The quicksort-based RankTest (Alg. 20) is
    not implemented: scoring all pairs is O(M^2) classifier calls per query.

    Parameters
    ----------
    estimator : str, default "logistic_regression"
        Registry name of the binary classifier of pairs.
    estimator_params : dict or None
    group_column : int or None, default None
    max_pairs : int or None, default 100000
    use_scores : bool, default True
    random_state : None or int

    Attributes
    ----------
    estimator_ : the fitted pair classifier
    n_pairs_ : int
    n_features_in_ : int
        Columns of ``X`` (including the group column).

    scikit-learn has no ranking reduction.
    """

    _estimator_type = "ranker"

    def __init__(self, estimator="logistic_regression", estimator_params=None, group_column=None, max_pairs=100_000,
                 use_scores=True, random_state=None):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.group_column = group_column
        self.max_pairs = max_pairs
        self.use_scores = use_scores
        self.random_state = random_state

    def _split(self, X):
        if self.group_column is None:
            return X, np.zeros(X.shape[0], dtype=np.int64)
        g = int(self.group_column)
        if not -X.shape[1] <= g < X.shape[1]:
            raise ValueError(f"group_column={g} is out of range for X with {X.shape[1]} columns")
        feats = np.delete(X, g % X.shape[1], axis=1)
        if feats.shape[1] == 0:
            raise ValueError("X has no feature column besides group_column")
        return feats, X[:, g]

    def fit(self, X, y):
        """Build the preference pairs and fit the pair classifier; returns ``self``."""
        if self.group_column is not None:
            check_scalar(self.group_column, "group_column", numbers.Integral)
        if self.max_pairs is not None:
            check_scalar(self.max_pairs, "max_pairs", numbers.Integral, low=2)
        check_scalar(self.use_scores, "use_scores", bool, choices=(True, False))
        X, y = check_X_y(X, y, y_numeric=True)
        rng = check_random_state(self.random_state)
        F, groups = self._split(X)
        I, J = [], []
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            a, b = np.meshgrid(idx, idx, indexing="ij")
            a, b = a.ravel(), b.ravel()
            keep = y[a] != y[b]  # also drops i == j
            I.append(a[keep])
            J.append(b[keep])
        I, J = np.concatenate(I), np.concatenate(J)
        if I.size == 0:
            raise ValueError("no pair of items with different relevance: nothing to rank")
        if self.max_pairs is not None and I.size > self.max_pairs:
            pick = np.sort(rng.choice(I.size, size=int(self.max_pairs), replace=False))
            I, J = I[pick], J[pick]
        labels = (y[I] > y[J]).astype(np.int64)
        if labels.min() == labels.max():  # possible only after subsampling
            raise ValueError("the sampled pairs all have the same label; increase max_pairs")
        est = make_estimator(self.estimator, self.estimator_params, seed=int(rng.integers(0, 2**31 - 1)))
        require_classifier(est, self.estimator)
        self.estimator_ = est.fit(F[I] - F[J], labels)
        self.n_pairs_ = int(I.size)
        self.n_features_in_ = X.shape[1]
        return self

    def _pair_value(self, D):
        if self.use_scores:
            return positive_score(self.estimator_, D)
        return np.where(positive_prediction(self.estimator_, D), 1.0, -1.0)

    def predict(self, X):
        """Alg. 18's score of each item (pairs within its query), shape (n,)."""
        X = self._validate_predict_input(X)
        F, groups = self._split(X)
        scores = np.zeros(X.shape[0])
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            m = idx.size
            rows = max(1, _PAIR_BLOCK // max(m, 1))
            for start in range(0, m, rows):
                ii = idx[start : start + rows]
                D = (F[ii][:, None, :] - F[idx][None, :, :]).reshape(-1, F.shape[1])
                v = self._pair_value(D).reshape(ii.size, m)
                v[np.arange(ii.size), np.arange(start, start + ii.size)] = 0.0  # no (i, i) pairs
                scores[ii] += v.sum(axis=1)  # score_i += f(x_ij)
                np.subtract.at(scores, idx, v.sum(axis=0))  # score_j -= f(x_ij)
        return scores

    def rank(self, X):
        """Item indices by decreasing score (stable: ties keep their input order)."""
        return np.argsort(-self.predict(X), kind="stable")

    def score(self, X, y) -> float:
        """Fraction of pairs with different relevance (within a query) that the scores order correctly."""
        s = self.predict(X)
        y = check_array(y, name="y", ndim=1)
        _, groups = self._split(check_array(X))
        good = total = 0.0
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            dy = np.sign(y[idx][:, None] - y[idx][None, :])
            ds = np.sign(s[idx][:, None] - s[idx][None, :])
            pairs = dy > 0
            total += pairs.sum()
            good += np.sum((ds > 0) & pairs) + 0.5 * np.sum((ds == 0) & pairs)
        return float(good / total) if total else float("nan")
