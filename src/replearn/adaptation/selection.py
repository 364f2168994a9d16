"""Unsupervised adaptation by importance weighting (CIML §8.2, Alg. 23 SelectionAdaptation)."""

from __future__ import annotations

import numbers

import numpy as np

from ..base import BaseEstimator
from ..validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    check_scalar,
    check_X_y,
)
from ._common import _SEED_MAX, fit_weighted, make_learner, positive_proba


def importance_weights(
    X_old, Z_new, selector="logistic_regression", selector_params=None, clip=1e-6, random_state=None
):
    """Weights 1/p_hat(s=1 | x_n) - 1 of the old examples (eq. 8.13 without the constant Z).

    A probabilistic classifier (the "selector") learns to tell old examples (s = 1) from new ones
    (s = 0) (Alg. 23 lines 1-2); p_hat is clipped to [clip, 1 - clip] so no weight is infinite or zero.
    Returns (weights (N,), fitted selector).
    """
    X_old = check_array(X_old, name="X_old")
    Z_new = check_array(Z_new, name="Z_new")
    if Z_new.shape[1] != X_old.shape[1]:
        raise ValueError(f"Z_new has {Z_new.shape[1]} features, X_old has {X_old.shape[1]}; both domains need the same")
    check_scalar(clip, "clip", numbers.Real, low=0.0, high=0.5, low_inclusive=False, high_inclusive=False)
    rng = check_random_state(random_state)
    D = np.vstack([X_old, Z_new])
    s = np.concatenate([np.ones(X_old.shape[0], dtype=np.int64), np.zeros(Z_new.shape[0], dtype=np.int64)])
    sel = make_learner(selector, selector_params, rng.integers(_SEED_MAX), what="selector").fit(D, s)
    p = np.clip(positive_proba(sel, X_old, 1), clip, 1.0 - clip)
    return 1.0 / p - 1.0, sel


class SelectionAdaptation(BaseEstimator):
    """Train on old-domain data reweighted towards the new domain (CIML Alg. 23, seed 001 L2736-2751).

    Algorithm::

        D_dist = {(x_n, +1)} u {(z_m, -1)}              old vs new examples
        p_hat  = logistic regression on D_dist           P(s = 1 | x), "selected into the old domain"
        D_w    = {(x_n, y_n, 1/p_hat(x_n) - 1)}          importance weights, eq. 8.13 (Z drops out)
        return A(D_w)

    justified by test loss = E_old[(D_new / D_old) l] (eq. 8.6) and D_new/D_old = Z (1/p(s=1|x) - 1)
    (eqs. 8.9-8.13). Any probabilistic classifier can be the selector (L2759). The weights are
    rescaled to mean 1 (the constant Z is irrelevant). A learner whose ``fit`` takes no
    ``sample_weight`` is trained on a weighted resample (``weighting``, see
    :func:`replearn.adaptation._common.fit_weighted`).

    Parameters
    ----------
    estimator, estimator_params : the learner A (registry name + hyperparameters).
    selector, selector_params : the domain classifier (default logistic regression, as the text).
    weighting : "auto", "sample_weight" or "resample"; clip : bound on p_hat away from 0 and 1.
    random_state.

    ``fit(X_old, y_old, Z_new)``. Attributes: ``selector_``, ``weights_`` (mean 1), ``estimator_``,
    ``weighting_`` (the method used), ``classes_``, ``n_features_in_``.
    """

    def __init__(
        self,
        estimator="decision_tree",
        estimator_params=None,
        selector="logistic_regression",
        selector_params=None,
        weighting="auto",
        clip=1e-6,
        random_state=None,
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.selector = selector
        self.selector_params = selector_params
        self.weighting = weighting
        self.clip = clip
        self.random_state = random_state

    def fit(self, X_old, y_old, Z_new):
        """Alg. 23; returns ``self``."""
        X_old, y_old = check_X_y(X_old, y_old)
        rng = check_random_state(self.random_state)
        w, self.selector_ = importance_weights(
            X_old, Z_new, self.selector, self.selector_params, self.clip, random_state=rng
        )
        self.weights_ = w / w.mean()
        model = make_learner(self.estimator, self.estimator_params, rng.integers(_SEED_MAX))
        self.estimator_, self.weighting_ = fit_weighted(
            model, X_old, y_old, self.weights_, rng, weighting=self.weighting
        )
        self.classes_ = np.unique(y_old)
        self.n_features_in_ = X_old.shape[1]
        return self

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def score(self, X, y) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))
