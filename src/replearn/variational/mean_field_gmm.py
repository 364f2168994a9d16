"""Mean-field variational inference for a Bayesian mixture of Gaussians by coordinate ascent (CAVI).

Model (Blei, Kucukelbir and McAuliffe 2017, §3 "Bayesian mixture of Gaussians", extended to ``d``
dimensions; CS229 notes §11.5 mean field, seed 000 L4713-4741)::

    mu_k ~ N(0, sigma^2 I_d)          k = 1..K           (sigma^2 = prior_variance)
    c_i  ~ Uniform{1..K}
    x_i | c_i, mu ~ N(mu_{c_i}, lambda I_d)              (lambda = noise_variance, known)

Mean-field family ``q(mu, c) = prod_k N(mu_k; m_k, s_k^2 I) prod_i Cat(c_i; phi_i)``. CAVI sets each
factor to ``exp(E_{-j} log p)`` in turn (Blei et al. eqs. 17-18, 21-22 with the ``lambda`` kept)::

    phi_ik  propto  exp( m_k^T x_i / lambda - (d s_k^2 + ||m_k||^2) / (2 lambda) )
    s_k^2 = 1 / (1 / sigma^2 + n_k / lambda),      m_k = s_k^2 sum_i phi_ik x_i / lambda,
    n_k = sum_i phi_ik.

Each update maximizes the ELBO (CS229 eq. 11.15's ``E_q[log p(x, z)] - E_q[log q]``, here with
``z = (mu, c)``) over one factor exactly, so the ELBO never decreases (``elbo_history_``, checked
after every sweep and tested). In closed form::

    ELBO = sum_k [ -d/2 log(2 pi sigma^2) - (d s_k^2 + ||m_k||^2) / (2 sigma^2) + d/2 (1 + log(2 pi s_k^2)) ]
         + sum_i sum_k phi_ik [ -log K - d/2 log(2 pi lambda)
                                - (||x_i||^2 - 2 x_i^T m_k + d s_k^2 + ||m_k||^2) / (2 lambda) - log phi_ik ].

Compared with EM for a Gaussian mixture (:class:`~replearn.models.mixture.GaussianMixture`, CS229
§11.3), CAVI treats the means as random: with many points per component, ``s_k^2 -> 0`` and
``m_k`` approaches EM's means (tested on the same data); EM learns weights and covariances, which
this model fixes.

Initialization: ``m_k`` at ``K`` distinct data points drawn with ``random_state``, ``s_k^2 =
sigma^2``; ``n_init`` restarts keep the highest final ELBO. Stops when a sweep raises the ELBO per
point by less than ``tol``, or after ``max_iter`` sweeps (``ConvergenceWarning``).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._constraints import Interval
from ..base import BaseEstimator
from ..exceptions import ConvergenceWarning
from ..validation import check_array, check_is_fitted, check_n_features, check_random_state

__all__ = ["MeanFieldGaussianMixture"]

LOG_2PI = float(np.log(2.0 * np.pi))


def _log_normalize(a: np.ndarray) -> np.ndarray:
    m = a.max(axis=1, keepdims=True)
    return a - (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))


class MeanFieldGaussianMixture(BaseEstimator):
    """CAVI for a Bayesian mixture of isotropic Gaussians with known variance.

    Parameters
    ----------
    n_components : int, default 3
    prior_variance : float > 0, default 10.0
        ``sigma^2`` of the prior on the means.
    noise_variance : float > 0, default 1.0
        ``lambda``, the known within-component variance.
    max_iter : int, default 200
    tol : float, default 1e-8
        On the ELBO per data point.
    n_init : int, default 1
    random_state : int, Generator or None

    Attributes
    ----------
    means_ : ndarray (K, d)
        Variational means ``m_k``.
    mean_variances_ : ndarray (K,)
        ``s_k^2``.
    elbo_history_ : list of float
        The ELBO (total, nats) after each sweep of the best restart.
    elbo_ : float
    n_iter_ : int
    """

    _estimator_type = "clusterer"
    _constraints = {
        "n_components": Interval(int, 1, None),
        "prior_variance": Interval(float, 0.0, None, closed="neither"),
        "noise_variance": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "n_init": Interval(int, 1, None),
    }

    def __init__(
        self,
        n_components=3,
        prior_variance=10.0,
        noise_variance=1.0,
        max_iter=200,
        tol=1e-8,
        n_init=1,
        random_state=None,
    ):
        self.n_components = n_components
        self.prior_variance = prior_variance
        self.noise_variance = noise_variance
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state

    # -- the two coordinate updates and the objective --------------------------------------------
    def _update_phi(self, X, m, s2):
        lam, d = float(self.noise_variance), X.shape[1]
        logits = (X @ m.T) / lam - (d * s2 + np.sum(m * m, axis=1))[None, :] / (2.0 * lam)
        log_phi = _log_normalize(logits)
        return np.exp(log_phi), log_phi

    def _update_means(self, X, phi):
        lam, sig2 = float(self.noise_variance), float(self.prior_variance)
        nk = phi.sum(axis=0)
        s2 = 1.0 / (1.0 / sig2 + nk / lam)
        m = s2[:, None] * (phi.T @ X) / lam
        return m, s2

    def _elbo(self, X, phi, log_phi, m, s2) -> float:
        n, d = X.shape
        K = m.shape[0]
        lam, sig2 = float(self.noise_variance), float(self.prior_variance)
        e_sq = d * s2 + np.sum(m * m, axis=1)  # E ||mu_k||^2
        prior_mu = np.sum(-0.5 * d * np.log(2 * np.pi * sig2) - e_sq / (2.0 * sig2))
        entropy_mu = np.sum(0.5 * d * (1.0 + LOG_2PI + np.log(s2)))
        sq = np.sum(X * X, axis=1)[:, None] - 2.0 * X @ m.T + e_sq[None, :]
        lik = np.sum(phi * (-np.log(K) - 0.5 * d * np.log(2 * np.pi * lam) - sq / (2.0 * lam)))
        entropy_c = -np.sum(np.where(phi > 0, phi * log_phi, 0.0))
        return float(prior_mu + entropy_mu + lik + entropy_c)

    def _fit_once(self, X, rng):
        K = int(self.n_components)
        m = X[rng.choice(X.shape[0], size=K, replace=False)].copy()
        s2 = np.full(K, float(self.prior_variance))
        history = []
        converged = False
        for _ in range(int(self.max_iter)):
            phi, log_phi = self._update_phi(X, m, s2)
            m, s2 = self._update_means(X, phi)
            history.append(self._elbo(X, phi, log_phi, m, s2))
            if len(history) > 1 and history[-1] - history[-2] < float(self.tol) * X.shape[0]:
                converged = True
                break
        phi, log_phi = self._update_phi(X, m, s2)
        return m, s2, phi, history, converged

    def fit(self, X, y=None):
        """Run CAVI on the rows of ``X``; ``y`` is ignored."""
        self._validate_params()
        X = check_array(X)
        if X.shape[0] < int(self.n_components):
            raise ValueError(f"X has {X.shape[0]} samples, fewer than n_components={self.n_components}")
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(int(self.n_init)):
            run = self._fit_once(X, rng)
            if best is None or run[3][-1] > best[3][-1]:
                best = run
        m, s2, phi, history, converged = best
        if not converged:
            warnings.warn(
                f"CAVI stopped at max_iter={self.max_iter} before the ELBO change fell below tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.means_, self.mean_variances_ = m, s2
        self.elbo_history_ = history
        self.elbo_ = history[-1]
        self.n_iter_ = len(history)
        self.labels_ = phi.argmax(axis=1)
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``q(c = k)`` for new points: the CAVI update of ``phi`` given the fitted ``q(mu)``."""
        check_is_fitted(self, "means_")
        X = check_array(X)
        check_n_features(self, X)
        return self._update_phi(X, self.means_, self.mean_variances_)[0]

    def predict(self, X) -> np.ndarray:
        return self.predict_proba(X).argmax(axis=1)

    def fit_predict(self, X, y=None) -> np.ndarray:
        return self.fit(X).labels_
