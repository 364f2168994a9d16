"""Supervised adaptation by feature augmentation (CIML §8.3, Alg. 24 EasyAdapt; Daumé III 2007)."""

from __future__ import annotations

import numpy as np

from .._constraints import Options
from ..base import BaseEstimator
from ..validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    check_scalar,
    check_X_y,
)
from ._common import _SEED_MAX, make_learner

#: how the two labelled domains are used (L2808: always try the three baselines)
MODES = ("easyadapt", "old_only", "new_only", "union")


def easy_adapt(X, domain) -> np.ndarray:
    """The augmented features: old x -> <x, x, 0> (eq. 8.14), new x -> <x, 0, x> (eq. 8.15).

    ``domain`` is "old" or "new" for all rows, or a per-row array of 0 (old) / 1 (new).
    """
    X = check_array(X)
    n, d = X.shape
    if isinstance(domain, str):
        check_scalar(domain, "domain", str, choices=("old", "new"))
        new = np.full(n, domain == "new")
    else:
        dom = np.asarray(domain)
        if dom.shape != (n,) or not np.all(np.isin(dom, (0, 1))):
            raise ValueError(f"domain must be 'old', 'new' or a (n,) array of 0 (old) / 1 (new); got shape {dom.shape}")
        new = dom.astype(bool)
    out = np.zeros((n, 3 * d))
    out[:, :d] = X  # shared
    out[~new, d : 2 * d] = X[~new]  # old-only
    out[new, 2 * d :] = X[new]  # new-only
    return out


class EasyAdapt(BaseEstimator):
    """Train one classifier on the union of old and new labelled data after EasyAdapt's augmentation
    (CIML Alg. 24, seed 001 L2771-2783), or one of the baselines of L2808.

    ``mode``: "easyadapt" (default) maps old x to <x, x, 0> and new x to <x, 0, x> (3D features) and
    trains A on the union, so A can share the "shared" weights or learn domain-specific ones;
    "old_only", "new_only" and "union" (untransformed) are the baselines the text asks to compare.

    ``fit(X_old, y_old, X_new, y_new)``; ``predict(X, domain="new")`` (test data come from the new
    domain). Attributes: ``estimator_``, ``classes_``, ``n_features_in_`` (D, before augmentation).
    """

    _constraints = {"mode": Options(set(MODES))}

    def __init__(self, estimator="logistic_regression", estimator_params=None, mode="easyadapt", random_state=None):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.mode = mode
        self.random_state = random_state

    def fit(self, X_old, y_old, X_new, y_new):
        self._validate_params()
        X_old, y_old = check_X_y(X_old, y_old)
        X_new, y_new = check_X_y(X_new, y_new)
        if X_new.shape[1] != X_old.shape[1]:
            raise ValueError(f"X_new has {X_new.shape[1]} features, X_old has {X_old.shape[1]}")
        rng = check_random_state(self.random_state)
        if self.mode == "easyadapt":
            X = np.vstack([easy_adapt(X_old, "old"), easy_adapt(X_new, "new")])
            y = np.concatenate([y_old, y_new])
        elif self.mode == "union":
            X, y = np.vstack([X_old, X_new]), np.concatenate([y_old, y_new])
        elif self.mode == "old_only":
            X, y = X_old, y_old
        else:
            X, y = X_new, y_new
        self.estimator_ = make_learner(self.estimator, self.estimator_params, rng.integers(_SEED_MAX)).fit(X, y)
        self.classes_ = np.unique(y)
        self.n_features_in_ = X_old.shape[1]
        return self

    def _input(self, X, domain):
        check_is_fitted(self, "estimator_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but EasyAdapt was fitted with {self.n_features_in_}")
        return easy_adapt(X, domain) if self.mode == "easyadapt" else X

    def predict(self, X, domain="new"):
        return self.estimator_.predict(self._input(X, domain))

    def score(self, X, y, domain="new") -> float:
        return float(np.mean(self.predict(X, domain) == np.asarray(y)))
