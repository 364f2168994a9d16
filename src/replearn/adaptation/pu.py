"""Learning from positive and unlabelled data (CS229 problem set 1 Q2, seed 002 L2512-2620)."""

from __future__ import annotations

import numpy as np

from .._constraints import Interval
from ..base import BaseEstimator, ClassifierMixin
from ..validation import check_is_fitted, check_random_state, check_X_y
from ._common import _SEED_MAX, make_learner, positive_proba


class PULearning(ClassifierMixin, BaseEstimator):
    """Positive-unlabelled learning with the correction factor alpha (seed 002 §11.2, L2512-2620).

    Only some positives are labelled: y = 1 if x is labelled ("in the database") and 0 otherwise, while
    the true label t is unseen. If the labelled examples are a uniform random subset of the positives
    (y independent of x given t), then (2a, L2580-2600)::

        p(t = 1 | x) = p(y = 1 | x) / alpha,     alpha = p(y = 1 | t = 1)

    Algorithm: hold out ``holdout_fraction`` of the data as V; train a probabilistic classifier
    h(x) ~ p(y = 1 | x) on the rest (labelled vs unlabelled); estimate alpha as the mean of h over the
    labelled held-out examples V+ (2b, L2604-2620: h(x) ~ alpha on V+). Then
    ``predict_proba = min(1, h / alpha)`` and ``predict`` is 1 where h(x) / alpha >= 1/2. For logistic
    regression this shifts the intercept by ln(2/alpha - 1) (L2550-2562):
    :meth:`decision_function` returns theta^T x + ln(2/alpha - 1) when the classifier has a
    ``decision_function``. Ranking needs no alpha (h already orders the examples).

    Parameters
    ----------
    estimator, estimator_params : the probabilistic classifier h (default logistic regression).
    holdout_fraction : float in (0, 1) — size of V.
    random_state.

    ``fit(X, y)`` with y in {0, 1} (1 = labelled positive). Attributes: ``estimator_`` (h),
    ``alpha_``, ``n_holdout_positive_`` (|V+|), ``classes_`` = [0, 1], ``n_features_in_``.
    """

    _constraints = {"holdout_fraction": Interval(float, 0.0, 1.0, closed="neither")}

    def __init__(self, estimator="logistic_regression", estimator_params=None, holdout_fraction=0.2, random_state=None):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.holdout_fraction = holdout_fraction
        self.random_state = random_state

    def fit(self, X, y):
        """Train h on labelled-vs-unlabelled data and estimate alpha on the held-out labelled ones."""
        self._validate_params()
        X, y = check_X_y(X, y)
        if not np.all(np.isin(y, (0, 1))):
            raise ValueError("y must be 1 (labelled positive) or 0 (unlabelled)")
        y = y.astype(np.int64)
        rng = check_random_state(self.random_state)
        pos, unl = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        if pos.size < 2 or unl.size < 1:
            raise ValueError(f"need at least 2 labelled and 1 unlabelled example, got {pos.size} and {unl.size}")
        # hold out the same fraction of each group, so V+ is never empty and h sees both groups
        v_pos = rng.permutation(pos)[: max(1, round(self.holdout_fraction * pos.size))]
        v_unl = rng.permutation(unl)[: round(self.holdout_fraction * unl.size)]
        train = np.setdiff1d(np.arange(y.size), np.concatenate([v_pos, v_unl]))
        if np.unique(y[train]).size < 2:
            raise ValueError(
                "the training part lost every labelled or every unlabelled example; lower holdout_fraction"
            )
        self.estimator_ = make_learner(self.estimator, self.estimator_params, rng.integers(_SEED_MAX)).fit(
            X[train], y[train]
        )
        self.alpha_ = float(np.mean(positive_proba(self.estimator_, X[v_pos], 1)))
        if not self.alpha_ > 0:
            raise ValueError("the estimated alpha is 0: the classifier gives the held-out labelled examples no mass")
        self.n_holdout_positive_ = int(v_pos.size)
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        return self

    def predict_labelled_proba(self, X) -> np.ndarray:
        """h(x) = p(y = 1 | x), the uncorrected probability of being labelled."""
        check_is_fitted(self, "estimator_")
        return positive_proba(self.estimator_, X, 1)

    def predict_proba(self, X) -> np.ndarray:
        """Columns p(t = 0 | x), p(t = 1 | x) with p(t = 1 | x) = min(1, h(x) / alpha)."""
        p = np.minimum(1.0, self.predict_labelled_proba(X) / self.alpha_)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X) -> np.ndarray:
        """logit(h(x)) + ln(2/alpha - 1): positive exactly where h(x)/alpha > 1/2 (for alpha < 1)."""
        h = np.clip(self.predict_labelled_proba(X), 1e-300, 1.0 - 1e-16)
        return np.log(h) - np.log1p(-h) + np.log(max(2.0 / self.alpha_ - 1.0, 1e-300))

    def predict(self, X):
        """1 where h(x) / alpha >= 1/2 (estimated p(t = 1 | x) >= 1/2), else 0."""
        return (self.predict_labelled_proba(X) / self.alpha_ >= 0.5).astype(np.int64)
