"""The Bradley–Terry model of pairwise preferences, as a linear reward model (RLHF's reward model)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from ..._constraints import Interval
from ...base import BaseEstimator, RankerMixin
from ...exceptions import ConvergenceWarning
from ...validation import check_array, check_random_state, check_ranking_targets, check_X_y
from .ranking import no_pairs_message, split_group_column


def _log1pexp(z):
    """log(1 + exp(z)) without overflow."""
    return np.logaddexp(0.0, z)


def _sigmoid(z):
    return np.exp(-np.logaddexp(0.0, -z))


class BradleyTerry(RankerMixin, BaseEstimator):
    """Bradley–Terry preference model with a linear reward r(x) = w^T x.

    Model: P(a preferred to b) = sigma(r(a) - r(b)) (Bradley & Terry 1952). With learned rewards this
    is the reward model of RLHF, CS480/680 §12, seed 003 L1222-1226: loss(theta) =
    -E_{(x, y_w, y_l)} log sigma(r_theta(x, y_w) - r_theta(x, y_l)). Fitting maximizes the pairwise
    log-likelihood with a ridge penalty::

        min_w  sum_{(a, b): a preferred} log(1 + exp(-w^T (x_a - x_b))) + (alpha / 2) ||w||^2

    by Newton's method (gradient -D^T (1 - sigma(Dw)) + alpha w, Hessian D^T S D + alpha I with
    S = diag(sigma (1 - sigma)); Cholesky solves, step halving). It is logistic regression without
    intercept on the difference vectors D = x_a - x_b, which is how the tests check it. No intercept:
    a constant reward offset cancels in every comparison.

    Two ways to give preferences:

    * ``fit(X, y)`` (the registry interface, like ``pairwise_ranking``): rows are items, ``y`` a
      relevance grade; every pair with y_a > y_b of the same query (``group_column``, e.g. the RLHF
      prompt id) is one preference "a over b"; ``max_pairs`` caps them by a random subset.
    * ``fit_comparisons(X_winners, X_losers)``: explicit comparisons, row k of ``X_winners`` was
      preferred to row k of ``X_losers`` (the (y_w, y_l) pairs of RLHF; repeated pairs are votes).

    ``predict(X)`` returns the rewards r(x); ``predict_preference(Xa, Xb)`` sigma(r(a) - r(b));
    ``score`` the fraction of correctly ordered pairs (as ``pairwise_ranking``).

    Parameters
    ----------
    alpha : float > 0 — ridge penalty (with alpha = 0 separable preferences have no maximum).
    group_column : int or None; max_pairs : int or None; max_iter : int; tol : float (stop when the
    Newton decrement is below tol); random_state (the pair subsample).

    Attributes
    ----------
    coef_ (d,) w; n_pairs_; n_iter_; loss_history_ (objective per Newton step); n_features_in_.

    scikit-learn equivalent: ``LogisticRegression(fit_intercept=False, C=1/alpha)`` on the rows
    x_a - x_b labelled 1 (half the pairs flipped to x_b - x_a labelled 0 gives the same objective).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``group_column`` is checked against the columns of X in fit
    _constraints = {
        "alpha": Interval(float, 0.0, None, closed="neither"),
        "group_column": (None, Interval(int)),
        "max_pairs": (None, Interval(int, 1, None)),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
    }

    def __init__(self, alpha=1.0, group_column=None, max_pairs=100_000, max_iter=100, tol=1e-10, random_state=None):
        self.alpha = alpha
        self.group_column = group_column
        self.max_pairs = max_pairs
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _split(self, X):
        return split_group_column(X, self.group_column)

    def _groups(self, X):
        return self._split(X)[1]

    def fit(self, X, y):
        """Every within-query pair with y_a > y_b is the preference "a over b"; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        y = check_ranking_targets(y)
        rng = check_random_state(self.random_state)
        F, groups = self._split(X)
        W, L = [], []
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            a, b = np.meshgrid(idx, idx, indexing="ij")
            keep = y[a] > y[b]
            W.append(a[keep])
            L.append(b[keep])
        W, L = np.concatenate(W), np.concatenate(L)
        if W.size == 0:
            raise ValueError(no_pairs_message(self.group_column))
        if self.max_pairs is not None and W.size > self.max_pairs:
            pick = np.sort(rng.choice(W.size, size=int(self.max_pairs), replace=False))
            W, L = W[pick], L[pick]
        self._solve(F[W] - F[L])
        self.n_features_in_ = X.shape[1]
        return self

    def fit_comparisons(self, X_winners, X_losers):
        """Fit on explicit comparisons: row k of ``X_winners`` beat row k of ``X_losers``; returns ``self``.

        Use without ``group_column`` (the rows are already paired).
        """
        self._validate_params()
        if self.group_column is not None:
            raise ValueError("fit_comparisons takes paired rows; set group_column=None")
        A = check_array(X_winners, name="X_winners")
        B = check_array(X_losers, name="X_losers")
        if A.shape != B.shape:
            raise ValueError(f"X_winners and X_losers must have the same shape, got {A.shape} and {B.shape}")
        self._solve(A - B)
        self.n_features_in_ = A.shape[1]
        return self

    def _objective(self, D, w):
        return float(np.sum(_log1pexp(-(D @ w))) + 0.5 * self.alpha * (w @ w))

    def _solve(self, D):
        d = D.shape[1]
        w = np.zeros(d)
        f = self._objective(D, w)
        history = [f]
        n_iter = 0
        converged = False
        for it in range(1, int(self.max_iter) + 1):
            n_iter = it
            p = _sigmoid(D @ w)  # P(winner preferred) under w
            grad = -D.T @ (1.0 - p) + self.alpha * w
            H = (D * (p * (1.0 - p))[:, None]).T @ D
            H.flat[:: d + 1] += self.alpha
            step = scipy.linalg.cho_solve(scipy.linalg.cho_factor(H), grad)
            decrement = float(grad @ step)
            t = 1.0
            while True:  # Armijo step halving
                w_new = w - t * step
                f_new = self._objective(D, w_new)
                if f_new <= f - 1e-4 * t * decrement or t < 1e-10:
                    break
                t *= 0.5
            w, f = w_new, f_new
            history.append(f)
            if decrement / 2.0 <= self.tol * max(1.0, abs(f)):
                converged = True
                break
        if not converged:
            warnings.warn(
                f"BradleyTerry did not converge in max_iter={self.max_iter} Newton steps",
                ConvergenceWarning,
                stacklevel=3,
            )
        self.coef_ = w
        self.n_pairs_ = int(D.shape[0])
        self.n_iter_ = n_iter
        self.loss_history_ = history

    def predict(self, X):
        """Rewards r(x) = w^T x of the items (the group column, if any, is ignored)."""
        X = self._validate_predict_input(X)
        F, _ = self._split(X)
        return F @ self.coef_

    def predict_preference(self, X_a, X_b) -> np.ndarray:
        """P(a preferred to b) = sigma(r(a) - r(b)) for paired rows (full rows, as ``predict`` takes)."""
        ra, rb = self.predict(X_a), self.predict(X_b)
        if ra.shape != rb.shape:
            raise ValueError(f"X_a and X_b must have the same number of rows, got {ra.size} and {rb.size}")
        return _sigmoid(ra - rb)

    def rank(self, X):
        """Item indices by decreasing reward."""
        return np.argsort(-self.predict(X), kind="stable")
