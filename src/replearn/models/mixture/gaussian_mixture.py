"""Gaussian mixture model fitted by expectation maximization."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Interval, Options, RealArray
from ...base import BaseEstimator
from ...exceptions import ConvergenceWarning
from ...validation import (
    check_array,
    check_is_fitted,
    check_n_features,
    check_random_state,
)
from ..cluster._mixin import ClusterMixin
from ..cluster.kmeans import KMeans, assign
from ..cluster.seeding import euclidean_d2_to, kmeans_plusplus_indices
from .em import expectation_maximization
from .gaussian import (
    check_covariances,
    log_gaussian,
    logsumexp_rows,
    n_covariance_parameters,
    weighted_covariances,
)

_INITS = ("kmeans", "k-means++", "random")
#: k-means++-seeded k-means runs behind one "kmeans" start, best inertia kept: a single run often
#: merges two well-separated blobs and EM cannot split them again (issue 17: -0.2 to -2 nats per
#: example below scikit-learn on blobs); k-means costs little next to EM
_KMEANS_RESTARTS = 10
_EPS = np.finfo(np.float64).eps


class GaussianMixture(ClusterMixin, BaseEstimator):
    """Mixture of ``n_components`` Gaussians, ``p(x) = sum_k phi_k N(x; mu_k, Sigma_k)``, by EM.

    Model (CS229 notes §11.1, seed 000 L4205-4330; CIML §16.2, seed 001 L4803-4911; EPFL notes,
    seed 004 L1297-1339): a latent ``z ~ Multinomial(phi)`` and ``x | z = k ~ N(mu_k, Sigma_k)``.
    EM (the shared loop :func:`~replearn.models.mixture.em.expectation_maximization`) alternates

    * E-step: responsibilities ``w_ik = p(z_i = k | x_i) = phi_k N(x_i; mu_k, Sigma_k) / p(x_i)``,
      computed in log space: ``log w_ik = a_ik - logsumexp_k a_ik`` with
      ``a_ik = log phi_k + log N(x_i; mu_k, Sigma_k)``, so nothing underflows however far a point
      lies from every component; the same log-sum-exp gives ``log p(x_i)``;
    * M-step (L4297-4303): ``n_k = sum_i w_ik``, ``phi_k = n_k / n`` (the update the notes' OCR
      drops at L4706-4711, catalogue erratum), ``mu_k = sum_i w_ik x_i / n_k``,
      ``Sigma_k = sum_i w_ik (x_i - mu_k)(x_i - mu_k)^T / n_k + reg_covar I`` -- or its tied,
      diagonal or spherical restriction (``covariance_type``; spherical divides by ``d n_k``,
      correcting CIML eq. 16.22, errata item 18).

    ``log_likelihood_history_[t]`` is the mean per-example log-likelihood after ``t`` M-steps; EM
    never lowers it (checked on every fit, tested). With ``reg_covar > 0`` the M-step is a
    regularized maximizer, so tiny decreases (of order ``reg_covar``) are tolerated; with
    ``reg_covar = 0`` this is exact EM. ``n_k`` gets ``10 eps`` added (scikit-learn's guard), so
    an emptied component gives no division by zero. Stops when an M-step raises the mean
    log-likelihood by less than ``tol``, or after ``max_iter`` M-steps (``ConvergenceWarning``).

    Initialization
    --------------
    Responsibilities ``r`` are set first and one M-step turns them into parameters:

    * ``"kmeans"`` (default): one-hot labels of :class:`~replearn.models.cluster.kmeans.KMeans`
      (k-means++ seeding, the best of ``_KMEANS_RESTARTS`` = 10 runs by inertia; scikit-learn's
      default runs k-means once, which on separated blobs often merges two of them);
    * ``"k-means++"``: one-hot assignment to the nearest of ``K`` k-means++ seeds;
    * ``"random"``: uniform random numbers, each row normalized (scikit-learn's ``"random"``).

    Then any of ``weights_init``, ``means_init``, ``covariances_init`` replaces the corresponding
    estimate; if ``means_init`` is given, ``r`` is the one-hot assignment to the nearest given
    mean (no random draw). Giving all three starts EM exactly there. ``n_init`` restarts keep the
    run with the highest final log-likelihood.

    Model selection: ``bic(X) = -2 log L + p log n`` and ``aic(X) = -2 log L + 2 p``, with
    ``log L = sum_i log p(x_i)`` and ``p`` free parameters (``K - 1`` weights, ``K d`` means and
    the covariances: ``K d(d+1)/2`` full, ``d(d+1)/2`` tied, ``K d`` diag, ``K`` spherical). These
    are the standard forms, as scikit-learn's; CIML's k-means versions (eqs. 15.2-15.3) differ.

    Randomness: one generator from ``random_state`` draws every restart's initialization in order.

    Parameters
    ----------
    n_components : int >= 1, default 1
    covariance_type : {"full", "tied", "diag", "spherical"}, default "full"
    tol : float >= 0, default 1e-3
        On the mean per-example log-likelihood.
    reg_covar : float >= 0, default 1e-6
        Added to the diagonal of every covariance.
    max_iter : int >= 1, default 100
    n_init : int >= 1, default 1
    init_params : {"kmeans", "k-means++", "random"}, default "kmeans"
    weights_init : array-like (K,), optional
    means_init : array-like (K, d), optional
    covariances_init : array-like (shape of ``covariances_``), optional
    random_state : None, int or numpy Generator

    Attributes
    ----------
    weights_ : array (K,)
    means_ : array (K, d)
    covariances_ : array, shape set by ``covariance_type``
    log_likelihood_history_ : array (n_iter_ + 1,), non-decreasing
    lower_bound_ : float
        Final mean log-likelihood (``log_likelihood_history_[-1]``).
    converged_ : bool
    n_iter_ : int
        M-steps made by the kept run.
    labels_ : int array (n_samples,)
        Most likely component of each training example under the final parameters.
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.mixture.GaussianMixture`` with the same ``covariance_type``,
    ``reg_covar`` and ``tol``; from the same ``weights_init``, ``means_init`` and
    ``precisions_init = inv(covariances_init)``, the parameters after the same number of EM
    iterations agree to about 1e-9 relative (tested). scikit-learn's loop makes one M-step more for the
    same ``tol`` (it tests the change of the previous iteration), and its ``lower_bound_`` is the
    log-likelihood before its last M-step.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_components": Interval(int, 1, None),
        "n_init": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "reg_covar": Interval(float, 0.0, None),
        "covariance_type": Options({"full", "tied", "diag", "spherical"}),
        "init_params": Options({"kmeans", "k-means++", "random"}),
        "weights_init": (None, RealArray(lo=0.0)),
        "means_init": (None, RealArray(ndims=(2,))),
        "covariances_init": (None, RealArray(ndims=(1, 2, 3))),
    }

    def __init__(
        self,
        n_components=1,
        covariance_type="full",
        tol=1e-3,
        reg_covar=1e-6,
        max_iter=100,
        n_init=1,
        init_params="kmeans",
        weights_init=None,
        means_init=None,
        covariances_init=None,
        random_state=None,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.covariances_init = covariances_init
        self.random_state = random_state

    # -- validation ---------------------------------------------------------------------------------
    def _given_init(self, X: np.ndarray) -> dict:
        """The limit that depends on the data, and the given initial parameters checked against X."""
        n, d = X.shape
        K = self.n_components
        if n < K:
            raise ValueError(f"n_samples={n} should be >= n_components={K}")
        given = {}
        if self.weights_init is not None:
            w = check_array(self.weights_init, name="weights_init", ndim=1)
            if w.shape != (K,) or np.any(w < 0) or not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-10):
                raise ValueError(f"weights_init must be {K} non-negative numbers summing to 1, got {w.tolist()}")
            given["weights"] = w.copy()
        if self.means_init is not None:
            m = check_array(self.means_init, name="means_init")
            if m.shape != (K, d):
                raise ValueError(f"means_init must have shape (n_components, n_features) = ({K}, {d}), got {m.shape}")
            given["means"] = m.copy()
        if self.covariances_init is not None:
            given["covariances"] = check_covariances(self.covariances_init, self.covariance_type, K, d)
        return given

    # -- EM steps -----------------------------------------------------------------------------------
    def _e_step(self, X: np.ndarray, params: tuple):
        weights, means, covs = params
        with np.errstate(divide="ignore"):
            log_w = np.log(weights)
        a = log_gaussian(X, means, covs, self.covariance_type) + log_w
        log_px = logsumexp_rows(a)
        log_resp = a - log_px[:, None]
        return log_resp, float(log_px.mean())

    def _m_step(self, X: np.ndarray, resp: np.ndarray) -> tuple:
        nk = resp.sum(axis=0) + 10 * _EPS
        means = (resp.T @ X) / nk[:, None]
        covs = weighted_covariances(X, resp, nk, means, self.covariance_type, float(self.reg_covar))
        return nk / nk.sum(), means, covs

    def _initial_resp(self, X: np.ndarray, rng: np.random.Generator, given: dict) -> np.ndarray:
        n, K = X.shape[0], self.n_components
        if "means" in given:
            labels = assign(X, given["means"])
        elif self.init_params == "random":
            resp = rng.uniform(size=(n, K))
            return resp / resp.sum(axis=1, keepdims=True)
        elif self.init_params == "kmeans":
            km = KMeans(n_clusters=K, n_init=_KMEANS_RESTARTS, random_state=rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                labels = km.fit(X).labels_
        else:  # k-means++
            labels = assign(X, X[kmeans_plusplus_indices(n, K, euclidean_d2_to(X), rng)])
        resp = np.zeros((n, K))
        resp[np.arange(n), labels] = 1.0
        return resp

    def _fit_once(self, X: np.ndarray, rng: np.random.Generator, given: dict):
        weights, means, covs = self._m_step(X, self._initial_resp(X, rng, given))
        params = (given.get("weights", weights), given.get("means", means), given.get("covariances", covs))
        # exact EM when reg_covar = 0; the covariance ridge can lower the likelihood by ~reg_covar
        monotone_tol = 1e-9 + 10.0 * float(self.reg_covar)
        return expectation_maximization(
            params,
            lambda p: self._e_step(X, p),
            lambda log_resp: self._m_step(X, np.exp(log_resp)),
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            monotone_tol=monotone_tol,
            name="GaussianMixture EM",
            warn=False,
        )

    def fit(self, X, y=None):
        """Fit by EM (``n_init`` restarts, keeping the highest log-likelihood); returns ``self``."""
        self._validate_params()
        X = check_array(X)
        given = self._given_init(X)
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(int(self.n_init)):
            result = self._fit_once(X, rng, given)
            if best is None or result.log_likelihood > best.log_likelihood:
                best = result
        self.weights_, self.means_, self.covariances_ = best.params
        self.log_likelihood_history_ = best.log_likelihood_history
        self.lower_bound_ = best.log_likelihood
        self.converged_ = best.converged
        self.n_iter_ = best.n_iter
        self.labels_ = np.argmax(best.stats, axis=1)
        self.n_features_in_ = X.shape[1]
        if not self.converged_:
            warnings.warn(
                f"GaussianMixture did not converge in max_iter={self.max_iter} EM iterations "
                f"(tol={self.tol}); increase max_iter or tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    # -- prediction ---------------------------------------------------------------------------------
    def _check(self, X) -> np.ndarray:
        check_is_fitted(self, "means_")
        X = check_array(X)
        check_n_features(self, X)
        return X

    def _log_joint(self, X: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            log_w = np.log(self.weights_)
        return log_gaussian(X, self.means_, self.covariances_, self.covariance_type) + log_w

    def score_samples(self, X) -> np.ndarray:
        """``log p(x_i)`` for each row of ``X``."""
        return logsumexp_rows(self._log_joint(self._check(X)))

    def score(self, X, y=None) -> float:
        """Mean per-example log-likelihood of ``X`` (higher is better)."""
        return float(self.score_samples(X).mean())

    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities ``p(z = k | x)``, shape (n, K); rows sum to 1."""
        a = self._log_joint(self._check(X))
        return np.exp(a - logsumexp_rows(a)[:, None])

    def predict(self, X) -> np.ndarray:
        """Most likely component of each row of ``X``."""
        return np.argmax(self._log_joint(self._check(X)), axis=1)

    def n_parameters(self) -> int:
        """Number of free parameters ``p`` (used by BIC and AIC)."""
        check_is_fitted(self, "means_")
        K, d = self.means_.shape
        return n_covariance_parameters(self.covariance_type, K, d) + K * d + K - 1

    def bic(self, X) -> float:
        """Bayesian information criterion ``-2 sum_i log p(x_i) + p log n`` (lower is better)."""
        X = self._check(X)
        return float(-2.0 * self.score(X) * X.shape[0] + self.n_parameters() * np.log(X.shape[0]))

    def aic(self, X) -> float:
        """Akaike information criterion ``-2 sum_i log p(x_i) + 2 p`` (lower is better)."""
        X = self._check(X)
        return float(-2.0 * self.score(X) * X.shape[0] + 2 * self.n_parameters())
