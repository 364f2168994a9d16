"""Ranking by reduction to binary classification of pairs (CIML §6.3, Algorithms 17-20).

* :class:`PairwiseRanking` — NaiveRankTrain/Test (Alg. 17-18), and with ``omega`` the importance-
  weighted RankTrain (Alg. 19) for omega-ranking (eq. 6.7), with ``rank_method="quicksort"`` the
  randomized-quicksort RankTest (Alg. 20);
* the cost functions omega of §6.3 — :func:`omega_kemeny`, :func:`omega_top_k` (eq. 6.8),
  :func:`omega_auc` (eq. 6.9) — and the omega-ranking loss :func:`omega_loss` (eq. 6.7);
* :func:`rank_test_quicksort` — Alg. 20 for any pairwise comparator.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, RankerMixin, pairwise_accuracy  # noqa: F401 (re-exported)
from ...validation import check_array, check_random_state, check_ranking_targets, check_X_y
from ._base import (
    make_estimator,
    positive_prediction,
    positive_score,
    require_classifier,
)

#: pair rows built at once when scoring (bounds the temporaries)
_PAIR_BLOCK = 200_000

OMEGAS = ("kemeny", "top_k", "auc")


# -- omega: the cost of putting at position j what belongs at position i (CIML §6.3, L2097-2121) ---------
def omega_kemeny(i, j):
    """omega(i, j) = 1 for i != j: the Kemeny distance counts misordered pairs (L2105)."""
    i, j = np.asarray(i), np.asarray(j)
    return (i != j).astype(np.float64)


def omega_top_k(i, j, k):
    """Eq. 6.8: omega(i, j) = 1 if min(i, j) <= K and i != j, else 0 — only errors in the top K count."""
    i, j = np.asarray(i), np.asarray(j)
    return ((np.minimum(i, j) <= k) & (i != j)).astype(np.float64)


def omega_auc(i, j, n_items, n_positive):
    """Eq. 6.9: C(M, 2) / (M+ (M - M+)) if exactly one of i, j is <= M+ (a good and a bad position), else 0."""
    M, P = int(n_items), int(n_positive)
    if not 0 < P < M:
        raise ValueError(f"omega_auc needs 0 < M+ < M, got M+={P}, M={M}")
    i, j = np.asarray(i), np.asarray(j)
    cross = (i <= P) != (j <= P)
    return np.where(cross, math.comb(M, 2) / (P * (M - P)), 0.0)


def ranking_positions(relevance) -> np.ndarray:
    """sigma from relevance grades (higher = better): 1 + the number of strictly better items.

    Ties share the best of their positions ("1224" competition ranking), so tied items are never a
    preference pair (SIGN(sigma_v - sigma_u) = 0, skipped as in Alg. 17).
    """
    r = check_array(relevance, name="relevance", ndim=1)
    return 1 + np.sum(r[None, :] > r[:, None], axis=1)


def omega_loss(sigma_true, sigma_pred, omega) -> float:
    """Eq. 6.7 for one query: sum over u != v of [sigma_u < sigma_v][sigma_hat_v < sigma_hat_u] omega(sigma_u, sigma_v).

    ``omega`` is a function of two position arrays (e.g. ``omega_kemeny`` or
    ``lambda i, j: omega_top_k(i, j, 10)``).
    """
    s = check_array(sigma_true, name="sigma_true", ndim=1)
    p = check_array(sigma_pred, name="sigma_pred", ndim=1)
    if s.shape != p.shape:
        raise ValueError(f"sigma_true and sigma_pred must have the same length, got {s.shape} and {p.shape}")
    U, V = np.meshgrid(np.arange(s.size), np.arange(s.size), indexing="ij")
    bad = (s[U] < s[V]) & (p[V] < p[U])
    return float(np.sum(np.where(bad, omega(s[U], s[V]), 0.0)))


def rank_test_quicksort(compare, items, rng) -> tuple[np.ndarray, int]:
    """CIML Alg. 20 RankTest: randomized quicksort with a (possibly probabilistic) comparator.

    ``compare(us, p)`` returns, for an array of items ``us`` and a pivot ``p``, the probability that
    each u precedes p (values in [0, 1]; a hard +-1 / 0-1 comparator also works: U < yhat).
    A random pivot is chosen, each other item goes left when a uniform draw is below its
    probability, and both sides are sorted recursively. Returns (items in ranked order, number of
    comparator evaluations) — O(M log M) in expectation (L2176) instead of Alg. 18's M (M - 1).
    """
    rng = check_random_state(rng)
    items = np.asarray(items)
    out, calls = [], 0
    stack = [items]  # explicit stack; a part is either a sub-array to sort or a finished pivot
    while stack:
        part = stack.pop()
        if not isinstance(part, np.ndarray):
            out.append(part[0])
            continue
        if part.size <= 1:
            out.extend(part.tolist())
            continue
        k = int(rng.integers(part.size))
        p, rest = part[k], np.delete(part, k)
        prob = np.asarray(compare(rest, p), dtype=np.float64)
        calls += rest.size
        left = rng.random(rest.size) < prob
        # pushed in reverse: left part first out, then the pivot, then the right part
        stack.extend([rest[~left], (p,), rest[left]])
    return np.asarray(out, dtype=items.dtype), calls


class PairwiseRanking(RankerMixin, BaseEstimator):
    """Learn to rank items by classifying ordered pairs (CIML NaiveRankTrain/Test, Alg. 17-18, and
    RankTrain/RankTest, Alg. 19-20; §6.3, seed 001 L2039-2180).

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

    omega-ranking (Alg. 19): with ``omega="top_k"`` or ``"auc"`` each pair (u, v) gets the weight
    ``omega(sigma_u, sigma_v)`` — the cost of misordering it in the loss (6.7) — where sigma are the
    positions implied by the grades within the query (:func:`ranking_positions`). ``"kemeny"`` (the
    default) weighs every pair 1 and is Alg. 17. The weights go to the classifier's
    ``sample_weight`` when its ``fit`` takes one, else the pairs are resampled (with replacement,
    seeded) in proportion to them (CIML §6.1's equivalence of weighting and sampling);
    zero-weight pairs are dropped.

    Prediction, ``rank_method="scores"`` (Alg. 18): for every ordered pair ``(i, j)`` of items of the
    same query, ``score_i += f(x_ij)`` and ``score_j -= f(x_ij)``, where ``f`` is the +-1 prediction
    (``use_scores=False``) or the classifier's centred confidence (``True``, the default; smoother
    and tie-free for linear learners). ``rank_method="quicksort"`` (Alg. 20): each query is ordered
    by :func:`rank_test_quicksort` with f = the classifier's probability that u precedes the pivot
    (``predict_proba``; its 0/1 prediction if it has none), O(M log M) calls instead of M(M - 1);
    ``predict`` then returns M - position (higher is better), drawn with a generator seeded from
    ``random_state`` so repeated calls agree. ``predict`` returns the scores, ``rank`` the items
    sorted by decreasing score (``ARGSORT``), ``score`` the fraction of correctly ordered pairs (ties
    in the predicted score count 1/2) -- the AUC for bipartite relevance (eq. 6.9). Error bound 2 eps
    in general, eps for bipartite ranking (Thm. 7, L2180).

    Parameters
    ----------
    estimator : str, default "logistic_regression"
        Registry name of the binary classifier of pairs.
    estimator_params : dict or None
    group_column : int or None, default None
    max_pairs : int or None, default 100000
    use_scores : bool, default True
    omega : "kemeny", "top_k" or "auc", default "kemeny"
    top_k : int, default 10 — K of eq. 6.8 (``omega="top_k"``)
    rank_method : "scores" or "quicksort", default "scores"
    random_state : None or int

    Attributes
    ----------
    estimator_ : the fitted pair classifier
    n_pairs_ : int
    pair_weighting_ : "none", "sample_weight" or "resample"
    n_features_in_ : int
        Columns of ``X`` (including the group column).

    scikit-learn has no ranking reduction.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``group_column`` is checked against the columns of X in fit
    _constraints = {
        "group_column": (None, Interval(int)),
        "max_pairs": (None, Interval(int, 2, None)),
        "use_scores": Boolean(),
        "omega": Options(set(OMEGAS)),
        "top_k": Interval(int, 1, None),
        "rank_method": Options({"scores", "quicksort"}),
    }

    def __init__(
        self,
        estimator="logistic_regression",
        estimator_params=None,
        group_column=None,
        max_pairs=100_000,
        use_scores=True,
        omega="kemeny",
        top_k=10,
        rank_method="scores",
        random_state=None,
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.group_column = group_column
        self.max_pairs = max_pairs
        self.use_scores = use_scores
        self.omega = omega
        self.top_k = top_k
        self.rank_method = rank_method
        self.random_state = random_state

    def _split(self, X):
        return split_group_column(X, self.group_column)

    def _groups(self, X):
        return self._split(X)[1]

    def _pair_weights(self, y, groups, first, second):
        """omega(sigma_I, sigma_J) with sigma the positions within each query (Alg. 19 line 5)."""
        sigma = np.empty(y.size, dtype=np.int64)
        M = np.empty(y.size, dtype=np.int64)
        P = np.empty(y.size, dtype=np.int64)
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            sigma[idx] = ranking_positions(y[idx])
            M[idx] = idx.size
            levels = np.unique(y[idx])
            if self.omega == "auc" and levels.size > 2:
                raise ValueError(
                    f"omega='auc' needs bipartite relevance (two grades per query); query {g!r} has {levels.size}"
                )
            P[idx] = np.sum(y[idx] == levels[-1])
        if self.omega == "top_k":
            return omega_top_k(sigma[first], sigma[second], int(self.top_k))
        w = np.zeros(first.size)
        for m, p in set(zip(M[first].tolist(), P[first].tolist())):  # eq. 6.9's constant depends on the query's M, M+
            sel = (M[first] == m) & (P[first] == p)
            w[sel] = omega_auc(sigma[first][sel], sigma[second][sel], m, p)
        return w

    def fit(self, X, y):
        """Build the preference pairs and fit the pair classifier; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        y = check_ranking_targets(y)
        rng = check_random_state(self.random_state)
        F, groups = self._split(X)
        first, second = [], []
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            a, b = np.meshgrid(idx, idx, indexing="ij")
            a, b = a.ravel(), b.ravel()
            keep = y[a] != y[b]  # also drops i == j
            first.append(a[keep])
            second.append(b[keep])
        first, second = np.concatenate(first), np.concatenate(second)
        if first.size == 0:
            raise ValueError(no_pairs_message(self.group_column))
        weights = None
        if self.omega != "kemeny":
            weights = self._pair_weights(y, groups, first, second)
            keep = weights > 0
            first, second, weights = first[keep], second[keep], weights[keep]
            if first.size == 0:
                raise ValueError(f"omega={self.omega!r} gives every preference pair weight 0: nothing to learn")
        if self.max_pairs is not None and first.size > self.max_pairs:
            pick = np.sort(rng.choice(first.size, size=int(self.max_pairs), replace=False))
            first, second = first[pick], second[pick]
            weights = None if weights is None else weights[pick]
        labels = (y[first] > y[second]).astype(np.int64)
        if labels.min() == labels.max():  # possible only after subsampling
            raise ValueError("the sampled pairs all have the same label; increase max_pairs")
        est = make_estimator(self.estimator, self.estimator_params, seed=int(rng.integers(0, 2**31 - 1)))
        require_classifier(est, self.estimator)
        D = F[first] - F[second]
        self.pair_weighting_ = "none"
        if weights is not None and np.ptp(weights) > 0:
            if "sample_weight" in inspect.signature(est.fit).parameters:
                self.estimator_ = est.fit(D, labels, sample_weight=weights)
                self.pair_weighting_ = "sample_weight"
            else:
                pick = rng.choice(first.size, size=first.size, replace=True, p=weights / weights.sum())
                if np.unique(labels[pick]).size < 2:
                    raise ValueError("the weighted resample of pairs holds one label only; use more data")
                self.estimator_ = est.fit(D[pick], labels[pick])
                self.pair_weighting_ = "resample"
        else:
            self.estimator_ = est.fit(D, labels)
        self.n_pairs_ = int(first.size)
        self.n_features_in_ = X.shape[1]
        return self

    def _pair_value(self, D):
        if self.use_scores:
            return positive_score(self.estimator_, D)
        return np.where(positive_prediction(self.estimator_, D), 1.0, -1.0)

    def _precedes(self, F):
        """compare(us, p) of Alg. 20: the probability that each item u precedes the pivot p."""

        def compare(us, p):
            D = F[us] - F[p][None, :]
            if hasattr(self.estimator_, "predict_proba"):
                proba = np.asarray(self.estimator_.predict_proba(D), dtype=np.float64)
                return proba[:, list(self.estimator_.classes_).index(1)]
            return positive_prediction(self.estimator_, D).astype(np.float64)

        return compare

    def predict(self, X):
        """Alg. 18's score of each item (pairs within its query), shape (n,); with
        ``rank_method="quicksort"``, M - (position in Alg. 20's order) within the query."""
        X = self._validate_predict_input(X)
        F, groups = self._split(X)
        scores = np.zeros(X.shape[0])
        if self.rank_method == "quicksort":
            rng = check_random_state(self.random_state)
            compare = self._precedes(F)
            for g in np.unique(groups):
                idx = np.flatnonzero(groups == g)
                order, _ = rank_test_quicksort(compare, idx, rng)
                scores[order] = idx.size - np.arange(idx.size)
            return scores
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


def no_pairs_message(group_column) -> str:
    """Why a ranker found no preference pair although y has several grades: they are in different queries."""
    return (
        f"no pair of items with different relevance within a query: every query of group_column={group_column} "
        "holds items of one grade only; check that group_column is the query-id column"
    )


def split_group_column(X, group_column) -> tuple[np.ndarray, np.ndarray]:
    """``(features, groups)``: the query/group id column taken out of ``X`` (one group for all when None)."""
    if group_column is None:
        return X, np.zeros(X.shape[0], dtype=np.int64)
    g = int(group_column)
    if not -X.shape[1] <= g < X.shape[1]:
        raise ValueError(f"group_column={g} is out of range for X with {X.shape[1]} columns")
    feats = np.delete(X, g % X.shape[1], axis=1)
    if feats.shape[1] == 0:
        raise ValueError("X has no feature column besides group_column")
    return feats, X[:, g]
