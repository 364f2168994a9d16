"""Gaussian naive Bayes: per-class, per-feature normal densities and Bayes' rule."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, RealArray
from ...base import BaseEstimator, ClassifierMixin
from ...linalg import logsumexp
from ...validation import check_classification_targets, check_X_y


class GaussianNaiveBayes(ClassifierMixin, BaseEstimator):
    """Generative classifier with ``x_j | y = c ~ N(theta_cj, var_cj)``, features independent given y.

    Prediction by Bayes' rule (CS229 notes §4, seed 000 L969-1019): ``argmax_c log p(y=c) +
    sum_j log N(x_j; theta_cj, var_cj)``. It is the naive-Bayes (diagonal covariance) case of
    Gaussian discriminant analysis with per-class covariances (CS229 §4.1.2, L1108-1190) and
    CIML's Gaussian class-conditional model (§9.5, seed 001 L3096-3137, eqs. 9.34 and 9.38).

    Maximum-likelihood estimates (matching ``sklearn.naive_bayes.GaussianNB`` exactly):

    * ``class_prior_[c] = n_c / n`` (or the given ``priors``);
    * ``theta_[c] = mean of x over class c``;
    * ``var_[c] = (1/n_c) sum_{i in c} (x_i - theta_c)^2 + epsilon_`` -- the MLE divides by
      ``n_c`` (not ``n_c - 1``) -- with ``epsilon_ = var_smoothing * max_j Var(x_j)`` over the
      whole training set, so a feature that is constant within a class gives no zero variance.
      (If every feature is constant, ``epsilon_ = var_smoothing``.)

    Posterior probabilities are computed in log space with log-sum-exp after subtracting each
    row's maximum, so nothing underflows and they sum to 1 to machine precision even when the
    joint log-likelihoods are huge (scikit-learn's ``jll - logsumexp(jll)`` loses up to
    ``|jll| * eps`` there; elsewhere the two agree to rounding).

    Parameters
    ----------
    var_smoothing : float >= 0, default 1e-9
    priors : array-like (n_classes,), optional
        Class prior probabilities in the order of ``classes_``; non-negative, summing to 1.

    Attributes
    ----------
    classes_, class_count_, class_prior_ : arrays (n_classes,)
    theta_, var_ : arrays (n_classes, n_features)
    epsilon_ : float
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.naive_bayes.GaussianNB(var_smoothing=..., priors=...)``.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``priors`` is checked against the classes of ``y`` in fit
    _constraints = {"var_smoothing": Interval(float, 0.0, None), "priors": (None, RealArray(lo=0.0))}

    def __init__(self, var_smoothing=1e-9, priors=None):
        self.var_smoothing = var_smoothing
        self.priors = priors

    def fit(self, X, y):
        """Estimate the class priors, means and variances; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        classes = check_classification_targets(y)
        n, d = X.shape
        k = classes.size
        priors = None
        if self.priors is not None:
            priors = np.asarray(self.priors, dtype=np.float64)
            if priors.shape != (k,):
                raise ValueError(f"priors has {priors.size} entries but y has {k} classes {classes.tolist()}")
            if not np.all(np.isfinite(priors)) or np.any(priors < 0):
                raise ValueError(f"priors must be non-negative finite numbers, got {priors.tolist()}")
            if not np.isclose(priors.sum(), 1.0):
                raise ValueError(f"priors must sum to 1, they sum to {priors.sum():.6g}")

        max_var = float(np.var(X, axis=0).max())
        epsilon = float(self.var_smoothing) * max_var if max_var > 0 else float(self.var_smoothing)
        codes = np.searchsorted(classes, y)
        theta = np.empty((k, d))
        var = np.empty((k, d))
        counts = np.bincount(codes, minlength=k).astype(np.float64)
        order = np.argsort(codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(counts).astype(np.intp)])
        for c in range(k):
            Xc = X[order[bounds[c] : bounds[c + 1]]]
            theta[c] = Xc.mean(axis=0)
            var[c] = np.mean((Xc - theta[c]) ** 2, axis=0)  # two-pass: no cancellation
        var += epsilon
        if np.any(var <= 0):
            c, j = np.argwhere(var <= 0)[0]
            raise ValueError(
                f"feature {j} has zero variance within class {classes[c].item()!r} and var_smoothing=0; "
                "set var_smoothing > 0"
            )

        self.classes_ = classes
        self.class_count_ = counts
        self.class_prior_ = priors.copy() if priors is not None else counts / n
        self.theta_ = theta
        self.var_ = var
        self.epsilon_ = epsilon
        self.n_features_in_ = d
        return self

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """``log p(y=c) + log p(x | y=c)`` for each class, shape (n, n_classes)."""
        X = self._validate_predict_input(X)
        jll = np.empty((X.shape[0], self.classes_.size))
        with np.errstate(divide="ignore"):  # a zero prior gives log 0 = -inf, on purpose
            log_prior = np.log(self.class_prior_)
        inv_var = 1.0 / self.var_
        diff = np.empty_like(X)  # one buffer reused for every class
        for c in range(self.classes_.size):
            norm = -0.5 * np.sum(np.log(2.0 * np.pi * self.var_[c]))
            np.subtract(X, self.theta_[c], out=diff)
            np.multiply(diff, diff, out=diff)
            jll[:, c] = log_prior[c] + norm - 0.5 * (diff @ inv_var[c])
        return jll

    def predict_log_proba(self, X):
        """Log posterior ``log p(y=c | x)``, shape (n, n_classes)."""
        jll = self._joint_log_likelihood(X)
        # (jll - max) - log sum exp(jll - max): subtracting the row maximum first keeps full
        # precision even when |jll| is huge (tiny variances); jll - logsumexp(jll) would not.
        shifted = jll - jll.max(axis=1, keepdims=True)
        return shifted - logsumexp(shifted, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior ``p(y=c | x)``, shape (n, n_classes), columns in the order of ``classes_``."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class (ties go to the class that comes first in ``classes_``)."""
        jll = self._joint_log_likelihood(X)  # validates X and fittedness first
        return self.classes_[np.argmax(jll, axis=1)]
