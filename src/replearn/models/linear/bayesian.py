"""Bayesian linear regression: the posterior and the posterior predictive in closed form (CS229 §9.4)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

from ..._constraints import Boolean, Interval
from ...base import BaseEstimator, RegressorMixin
from ...validation import check_is_fitted, check_random_state, check_scalar, check_X_y

_LOG_2PI = float(np.log(2.0 * np.pi))


class BayesianLinearRegression(RegressorMixin, BaseEstimator):
    """The fully Bayesian treatment of linear regression with a Gaussian prior (CS229 notes §9.4).

    CS229 §9.4 (seed 000 L4072-4116) treats theta as a random variable with a prior p(theta), computes the
    posterior (eq. 9.3) ``p(theta | S) = prod_i p(y_i | x_i, theta) p(theta) / integral(...)`` and predicts
    with the posterior predictive (eq. 9.4) ``p(y | x, S) = integral p(y | x, theta) p(theta | S) dtheta``,
    noting that the integrals "typically cannot be done in closed form" and falling back to the MAP estimate
    (eq. 9.5) -- which, with the prior ``theta ~ N(0, tau^2 I)`` it names (L4124), is ridge regression. For the
    Gaussian likelihood ``y | x, theta ~ N(theta^T x, sigma^2)`` they *can* be done (the conjugate case):

    * posterior ``theta | S ~ N(mu, Sigma)`` with precision ``Sigma^{-1} = X^T X / sigma^2 + I / tau^2`` and
      mean ``mu = Sigma X^T y / sigma^2`` -- one Cholesky factorization of the d x d precision;
    * predictive ``y | x, S ~ N(mu^T x, x^T Sigma x + sigma^2)``: the noise plus the parameter uncertainty,
      which shrinks like 1/n where the data are dense and stays near ``tau^2 ||x||^2`` far from them;
    * the evidence ``p(y | X) = N(y; 0, sigma^2 I + tau^2 X X^T)`` (the denominator of eq. 9.3), computed with
      the determinant lemma and Woodbury in d dimensions: ``log_evidence_``.

    The posterior mean is the MAP estimate, i.e. ``ridge`` with ``alpha = sigma^2 / tau^2`` (tested); what the
    Bayesian model adds is ``coef_cov_`` and ``predict(X, return_std=True)``.

    Intercept (``fit_intercept=True``): a flat prior on b, so that, as in ``ridge``, the intercept is not
    shrunk. Integrating b out leaves the centred data: the posterior of w is the formula above on
    ``X - mean(X)``, ``y - mean(y)``; ``b | w, S ~ N(mean(y) - mean(X)^T w, sigma^2 / n)``; the predictive
    variance at x is ``(x - mean(X))^T Sigma (x - mean(X)) + sigma^2 / n + sigma^2``; and the (improper-prior)
    evidence is that of the centred data in the n - 1 dimensions orthogonal to the constant vector (the
    restricted likelihood). CS229's own convention (x_0 = 1 inside theta, with the same prior) is
    ``fit_intercept=False`` with a column of ones.

    Parameters
    ----------
    prior_variance : float > 0, default 1.0 -- tau^2.
    noise_variance : float > 0, default 1.0 -- sigma^2 (known; the conjugate normal model).
    fit_intercept : bool, default True

    Attributes
    ----------
    coef_ : (d,) posterior mean of w; coef_cov_ : (d, d) posterior covariance Sigma
    intercept_ : float (posterior mean of b); intercept_var_ : float (posterior variance of b)
    x_mean_ : (d,) the training mean (zeros without intercept); log_evidence_ : float; n_samples_fit_, n_features_in_

    scikit-learn's ``BayesianRidge`` fits the same model but also re-estimates tau^2 and sigma^2 from the data
    (type-II maximum likelihood under Gamma hyperpriors); here they are hyperparameters, so the posterior is
    exactly eq. 9.3.
    """

    _constraints = {
        "prior_variance": Interval(float, 0.0, None, closed="neither"),
        "noise_variance": Interval(float, 0.0, None, closed="neither"),
        "fit_intercept": Boolean(),
    }

    def __init__(self, prior_variance=1.0, noise_variance=1.0, fit_intercept=True):
        self.prior_variance = prior_variance
        self.noise_variance = noise_variance
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Posterior of the weights (and intercept) given the training set; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        n, d = X.shape
        s2, t2 = float(self.noise_variance), float(self.prior_variance)
        if self.fit_intercept:
            x_mean, y_mean = X.mean(axis=0), float(y.mean())
        else:
            x_mean, y_mean = np.zeros(d), 0.0
        Xc, yc = X - x_mean, y - y_mean
        precision = Xc.T @ Xc / s2
        precision.flat[:: d + 1] += 1.0 / t2
        chol = scipy.linalg.cho_factor(precision, lower=True, check_finite=False)
        b = Xc.T @ yc / s2
        mu = scipy.linalg.cho_solve(chol, b, check_finite=False)
        cov = scipy.linalg.cho_solve(chol, np.eye(d), check_finite=False)
        cov = 0.5 * (cov + cov.T)
        self.coef_ = mu
        self.coef_cov_ = cov
        self.x_mean_ = x_mean
        self.intercept_ = float(y_mean - x_mean @ mu)
        self.intercept_var_ = float(s2 / n + x_mean @ cov @ x_mean) if self.fit_intercept else 0.0
        # evidence in m dimensions (m = n - 1 after removing the mean): determinant lemma and Woodbury,
        # log|s2 I_m + t2 Xc Xc^T| = m log s2 + log|I_d + (t2/s2) Xc^T Xc| = m log s2 + d log t2 + log|precision|
        m = n - 1 if self.fit_intercept else n
        log_det = m * np.log(s2) + d * np.log(t2) + 2.0 * float(np.sum(np.log(np.diag(chol[0]))))
        quad = float(yc @ yc) / s2 - float(b @ mu)
        self.log_evidence_ = float(-0.5 * (m * _LOG_2PI + log_det + quad))
        self.n_samples_fit_ = n
        self.n_features_in_ = d
        return self

    def predict(self, X, return_std: bool = False):
        """Posterior predictive mean ``mu^T x + b``; with ``return_std``, also its standard deviation
        ``sqrt(x^T Sigma x + sigma^2 [+ sigma^2 / n with an intercept])`` (``(x - mean)`` with an intercept)."""
        if not isinstance(return_std, (bool, np.bool_)):
            raise TypeError(f"return_std must be a bool, got {type(return_std).__name__} {return_std!r}")
        X = self._validate_predict_input(X)
        mean = X @ self.coef_ + self.intercept_
        if not return_std:
            return mean
        return mean, np.sqrt(self._predictive_variance(X))

    def _predictive_variance(self, X) -> np.ndarray:
        Z = X - self.x_mean_
        var = np.einsum("ij,jk,ik->i", Z, self.coef_cov_, Z) + float(self.noise_variance)
        if self.fit_intercept:
            var += float(self.noise_variance) / self.n_samples_fit_
        return var

    def predictive_log_density(self, X, y) -> np.ndarray:
        """``log p(y_i | x_i, S)`` of the Gaussian posterior predictive (eq. 9.4), one value per row."""
        mean, std = self.predict(X, return_std=True)
        y = check_X_y(X, y, y_numeric=True)[1]
        return -0.5 * (_LOG_2PI + 2.0 * np.log(std) + ((y - mean) / std) ** 2)

    def sample_coef(self, n_samples=1, random_state=None) -> np.ndarray:
        """Draws of w from the posterior N(coef_, coef_cov_), shape (n_samples, d)."""
        check_is_fitted(self, "coef_")
        check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = check_random_state(random_state)
        return rng.multivariate_normal(self.coef_, self.coef_cov_, size=int(n_samples), method="cholesky")
