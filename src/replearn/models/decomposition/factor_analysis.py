"""Factor analysis fitted by EM (the third user of the shared EM loop)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

from ...base import BaseEstimator, TransformerMixin
from ...validation import check_array, check_is_fitted, check_n_features, check_scalar
from ..mixture.em import expectation_maximization

_LOG_2PI = float(np.log(2.0 * np.pi))


class FactorAnalysis(TransformerMixin, BaseEstimator):
    """Linear-Gaussian latent factors: ``x = mu + Lambda z + eps``, ``z ~ N(0, I_k)``, ``eps ~ N(0, Psi)``.

    ``Psi`` is diagonal, so the ``k`` factors explain the correlations between features and ``Psi``
    the feature-specific noise; marginally ``x ~ N(mu, C)`` with ``C = Lambda Lambda^T + Psi``, which
    stays non-singular when ``d > n`` -- the motivation in CS229's factor-analysis fragment (seed 000
    L4793-4887: with ``d >> n`` the sample covariance is singular; the subspace analogue of a GMM
    as PCA is of k-means). The notes point to separate FA notes for the model and its EM, which
    are absent from the course texts; the EM below is the standard one (Rubin & Thayer 1982;
    Ghahramani & Hinton 1996), written through the general EM of CS229 §11.3 (seed 000
    L4414-4605) and CIML §16.3 (seed 001 L4913-4968).

    With ``mu`` the sample mean and ``S = (1/n) sum_i (x_i - mu)(x_i - mu)^T``:

    * E-step: ``z | x ~ N(beta (x - mu), G)`` with ``M = I + Lambda^T Psi^{-1} Lambda``,
      ``G = M^{-1}``, ``beta = G Lambda^T Psi^{-1}`` (Cholesky of the ``k x k`` matrix ``M``; no
      ``d x d`` inverse); expected statistics ``E[z x^T] = beta S`` and
      ``E[z z^T] = G + beta S beta^T`` (averaged over examples);
    * M-step: ``Lambda = E[x z^T] E[z z^T]^{-1}``, ``Psi = diag(S - Lambda E[z x^T])``, floored at
      ``1e-12 * max_j S_jj`` (a feature fully explained by the factors would otherwise get zero
      noise and an infinite likelihood).

    Each iteration costs ``O(k d^2)`` after ``S`` is formed once. The mean log-likelihood
    ``-1/2 (d log 2 pi + log|C| + tr(C^{-1} S))`` uses the determinant lemma
    ``log|C| = log|Psi| + log|M|`` and Woodbury; ``log_likelihood_history_`` is non-decreasing
    (checked every fit). Start: the probabilistic-PCA solution (top-``k`` eigenvectors ``U`` of
    ``S``, ``sigma^2`` = mean of the other eigenvalues, ``Lambda = U (Lambda_k - sigma^2)^{1/2}``,
    ``Psi = sigma^2 I``), which is deterministic -- no ``random_state``.

    EM can crawl when the maximum likelihood puts some noise variance at (nearly) 0 -- a
    "Heywood case": each iteration then gains little and thousands of iterations may be needed
    (scikit-learn's iteration slows the same way); ``max_iter`` bounds the work and warns.

    The factors are identified only up to a rotation (``Lambda R``, ``R`` orthogonal, gives the same
    ``C``), so compare fits through ``get_covariance()`` or the likelihood.

    Parameters
    ----------
    n_components : int >= 1 or None (= n_features), default None
    tol : float >= 0, default 1e-8
        On the mean per-example log-likelihood.
    max_iter : int >= 1, default 1000

    Attributes
    ----------
    components_ : array (k, d) -- ``Lambda^T`` (scikit-learn's orientation)
    noise_variance_ : array (d,) -- the diagonal of ``Psi``
    mean_ : array (d,)
    log_likelihood_history_ : array (n_iter_ + 1,)
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int

    ``transform(X)`` gives the posterior means ``E[z | x]``; ``score_samples``/``score`` the
    (mean) log-likelihood of new data; ``get_covariance()`` returns ``C``.

    scikit-learn equivalent: ``sklearn.decomposition.FactorAnalysis(n_components, tol, max_iter)``,
    which fits the same model by an SVD-based iteration; the converged log-likelihoods agree (tested).
    """

    _tasks = ("decomposition",)

    def __init__(self, n_components=None, tol=1e-8, max_iter=1000):
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y=None):
        """Fit ``mu``, ``Lambda`` and ``Psi`` by EM; returns ``self``."""
        X = check_array(X)
        n, d = X.shape
        k = d if self.n_components is None else self.n_components
        check_scalar(k, "n_components", numbers.Integral, low=1, high=d)
        check_scalar(self.tol, "tol", numbers.Real, low=0.0)
        check_scalar(self.max_iter, "max_iter", numbers.Integral, low=1)
        if n < 2:
            raise ValueError("FactorAnalysis needs at least 2 samples")
        mean = X.mean(axis=0)
        Xc = X - mean
        S = (Xc.T @ Xc) / n
        var = np.diag(S).copy()
        if not np.all(var > 0):
            raise ValueError(f"feature {int(np.argmin(var))} is constant; factor analysis needs every feature to vary")
        floor = 1e-12 * float(var.max())

        def e_step(params):
            Lam, psi = params
            B = Lam.T / psi  # Lambda^T Psi^{-1}, (k, d)
            M = np.eye(k) + B @ Lam
            cM = scipy.linalg.cho_factor(M, lower=True, check_finite=False)
            beta = scipy.linalg.cho_solve(cM, B, check_finite=False)  # (k, d)
            Ezx = beta @ S
            Ezz = scipy.linalg.cho_solve(cM, np.eye(k), check_finite=False) + Ezx @ beta.T
            log_det = np.log(psi).sum() + 2.0 * np.log(np.diag(cM[0])).sum()
            trace = np.sum(var / psi) - np.sum(Ezx * B)
            return (Ezx, Ezz), -0.5 * (d * _LOG_2PI + log_det + trace)

        def m_step(stats):
            Ezx, Ezz = stats
            Lam = scipy.linalg.solve(Ezz, Ezx, assume_a="pos", check_finite=False).T  # (d, k)
            psi = np.maximum(var - np.einsum("ik,ki->i", Lam, Ezx), floor)
            return Lam, psi

        result = expectation_maximization(
            _ppca_start(S, k, floor),
            e_step,
            m_step,
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            monotone_tol=1e-9,
            name="FactorAnalysis EM",
        )
        Lam, psi = result.params
        self.components_ = Lam.T.copy()
        self.noise_variance_ = psi
        self.mean_ = mean
        self.log_likelihood_history_ = result.log_likelihood_history
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.n_features_in_ = d
        return self

    def _check(self, X) -> np.ndarray:
        check_is_fitted(self, "components_")
        X = check_array(X)
        check_n_features(self, X)
        return X

    def _posterior(self):
        Lam = self.components_.T
        B = Lam.T / self.noise_variance_
        M = np.eye(Lam.shape[1]) + B @ Lam
        cM = scipy.linalg.cho_factor(M, lower=True, check_finite=False)
        return B, cM

    def transform(self, X) -> np.ndarray:
        """Posterior means ``E[z | x] = beta (x - mu)``, shape (n, k)."""
        X = self._check(X)
        B, cM = self._posterior()
        return scipy.linalg.cho_solve(cM, B @ (X - self.mean_).T, check_finite=False).T

    def get_covariance(self) -> np.ndarray:
        """The model covariance ``C = Lambda Lambda^T + Psi``."""
        check_is_fitted(self, "components_")
        return self.components_.T @ self.components_ + np.diag(self.noise_variance_)

    def score_samples(self, X) -> np.ndarray:
        """``log N(x_i; mu, C)`` for each row (Woodbury; no ``d x d`` solve)."""
        X = self._check(X)
        B, cM = self._posterior()
        Xc = X - self.mean_
        P = B @ Xc.T  # (k, n)
        quad = np.einsum("ij,ij->i", Xc / self.noise_variance_, Xc) - np.einsum(
            "ij,ij->j", P, scipy.linalg.cho_solve(cM, P, check_finite=False)
        )
        log_det = np.log(self.noise_variance_).sum() + 2.0 * np.log(np.diag(cM[0])).sum()
        return -0.5 * (X.shape[1] * _LOG_2PI + log_det + quad)

    def score(self, X, y=None) -> float:
        """Mean per-example log-likelihood of ``X``."""
        return float(self.score_samples(X).mean())


def _ppca_start(S: np.ndarray, k: int, floor: float):
    """Probabilistic-PCA parameters from the eigendecomposition of ``S`` (Tipping & Bishop 1999)."""
    d = S.shape[0]
    lam, U = scipy.linalg.eigh(S, check_finite=False)
    lam, U = lam[::-1], U[:, ::-1]
    sigma2 = float(lam[k:].mean()) if k < d else 0.0
    sigma2 = max(sigma2, 1e-3 * float(np.mean(np.diag(S))), floor)
    # a small positive floor keeps every factor alive (a zero column of Lambda is a fixed point of EM)
    Lam = U[:, :k] * np.sqrt(np.maximum(lam[:k] - sigma2, 1e-3 * sigma2))
    return Lam, np.full(d, sigma2)
