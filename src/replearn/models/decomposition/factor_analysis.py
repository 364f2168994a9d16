"""Factor analysis: the profile-likelihood iteration (scikit-learn's) or EM (the third user of the shared EM loop)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from ..._constraints import Interval, Options
from ...base import BaseEstimator, TransformerMixin
from ...exceptions import ConvergenceWarning, DivergenceError
from ...validation import check_array, check_is_fitted, check_n_features, check_X
from ..mixture.em import EMMonotonicityError, expectation_maximization

_LOG_2PI = float(np.log(2.0 * np.pi))
_ALGORITHMS = ("em", "profile")


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

    With ``mu`` the sample mean and ``S = (1/n) sum_i (x_i - mu)(x_i - mu)^T``, two algorithms
    maximize the mean log-likelihood ``-1/2 (d log 2 pi + log|C| + tr(C^{-1} S))``:

    ``algorithm="profile"`` (default; Barber, *BRML* Alg. 21.1, scikit-learn's iteration) alternates
    the exact maximization over ``Lambda`` for the current ``Psi`` -- with
    ``S~ = Psi^{-1/2} S Psi^{-1/2} = U diag(l) U^T`` (eigenvalues descending),
    ``Lambda = Psi^{1/2} U_k diag(max(l_k - 1, 0))^{1/2}`` -- and ``Psi = diag(S - Lambda Lambda^T)``
    (floored as below). The log-likelihood at that ``Lambda`` comes from the eigenvalues alone,
    ``-1/2 (d log 2 pi + log|Psi| + sum_{i<=k} [log max(l_i, 1) + min(l_i, 1)] + sum_{i>k} l_i)``
    (no cancelling difference of large traces). It reaches the boundary of a "Heywood case" (a
    feature explained entirely by the factors, e.g. collinear features, whose noise variance goes
    to the floor) in tens of iterations where EM crawls for thousands. Each iteration is one
    ``d x d`` symmetric eigendecomposition; scikit-learn takes an SVD of the ``n x d`` data instead.
    The iteration is not EM, and its log-likelihood is not guaranteed to rise at every step; it
    stops when an iteration gains less than ``tol`` (a decrease included).

    ``algorithm="em"`` is the EM of the texts' general scheme:

    * E-step: ``z | x ~ N(beta (x - mu), G)`` with ``M = I + Lambda^T Psi^{-1} Lambda``,
      ``G = M^{-1}``, ``beta = G Lambda^T Psi^{-1}`` (Cholesky of the ``k x k`` matrix ``M``; no
      ``d x d`` inverse); expected statistics ``E[z x^T] = beta S`` and
      ``E[z z^T] = G + beta S beta^T`` (averaged over examples);
    * M-step: ``Lambda = E[x z^T] E[z z^T]^{-1}``, ``Psi = diag(S - Lambda E[z x^T])``.

    Each EM iteration costs ``O(k d^2)`` after ``S`` is formed once. Its log-likelihood uses the
    determinant lemma ``log|C| = log|Psi| + log|M|`` and, for the trace, the whitened factors
    ``Lambda~ = Psi^{-1/2} Lambda``: ``tr(C^{-1} S) = tr(S~) - tr(beta S Psi^{-1} Lambda)`` is
    computed as ``sum_j S_jj / psi_j - ...`` only through the ``k x k`` Cholesky factor, and the
    history is checked to be non-decreasing up to its rounding error, a *relative* tolerance on the
    largest term ``sum_j S_jj / psi_j`` (with noise variances at the floor that term is ~1e12 and
    rounding alone moves the log-likelihood by ~1e-4: collinear features); a gain below ``tol`` --
    a rounding-level decrease included -- stops the fit as converged. EM can crawl in a Heywood
    case (it then stops below the profile iteration's log-likelihood); ``max_iter`` bounds the work
    and warns.

    Both: ``psi_j`` is floored at ``1e-12 S_jj`` (a feature fully explained by the factors would
    otherwise get zero noise and an infinite likelihood; relative to each feature's own variance, so
    rescaling a feature rescales the fit). In such a case the likelihood is unbounded and its
    maximum is set by the floor: scikit-learn's is an absolute ``1e-12``, the same on standardized
    data. A constant feature (``S_jj = 0``: a point mass, whose density is unbounded) is given the variance
    ``1e-12`` times the mean variance of the others: no factor loads on it, its noise variance converges to
    that value, and it adds a constant to the log-likelihood. Start: the probabilistic-PCA
    solution (top-``k`` eigenvectors ``U`` of ``S``, ``sigma^2`` = mean of the other eigenvalues,
    ``Lambda = U (Lambda_k - sigma^2)^{1/2}``, ``Psi = sigma^2 I``), which is deterministic -- no
    ``random_state``.

    The factors are identified only up to a rotation (``Lambda R``, ``R`` orthogonal, gives the same
    ``C``), so compare fits through ``get_covariance()`` or the likelihood.

    Parameters
    ----------
    n_components : int >= 1 or None (= n_features), default None
    tol : float >= 0, default 1e-8
        On the mean per-example log-likelihood (scikit-learn's ``tol`` is on the total: ours = theirs / n).
    max_iter : int >= 1, default 1000
    algorithm : {"profile", "em"}, default "profile"

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

    scikit-learn equivalent: ``sklearn.decomposition.FactorAnalysis(n_components, tol * n, max_iter)``,
    which runs the profile iteration on an SVD of the data; the converged log-likelihoods agree (tested,
    collinear features included).
    """

    _tasks = ("decomposition",)
    _min_samples = 2  # one example has no covariance

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``n_components`` is also checked against the number of features in fit
    _constraints = {
        "n_components": (None, Interval(int, 1, None)),
        "tol": Interval(float, 0.0, None),
        "max_iter": Interval(int, 1, None),
        "algorithm": Options(set(_ALGORITHMS)),
    }

    def __init__(self, n_components=None, tol=1e-8, max_iter=1000, algorithm="profile"):
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter
        self.algorithm = algorithm

    def fit(self, X, y=None):
        """Fit ``mu``, ``Lambda`` and ``Psi`` by EM; returns ``self``."""
        self._validate_params()
        X = check_X(X, estimator=self)
        n, d = X.shape
        k = d if self.n_components is None else self.n_components
        if k > d:
            raise ValueError(f"n_components must be <= {d} (the number of features), got {k}")
        mean = X.mean(axis=0)
        Xc = X - mean
        S = (Xc.T @ Xc) / n
        var = np.diag(S).copy()
        # a constant feature (S_jj = 0) is fitted too: no factor loads on it and its noise variance sits
        # at the floor -- relative to the typical variance, as it has no scale of its own
        scale = float(np.mean(var[var > 0])) if np.any(var > 0) else 1.0
        var = np.where(var > 0, var, 1e-12 * scale)
        np.fill_diagonal(S, var)
        floor = 1e-12 * var  # per feature: the fit is equivariant under rescaling a feature

        start = _ppca_start(S, k, floor)
        if self.algorithm == "profile":
            (Lam, psi), history, n_iter, converged = _profile_iteration(
                S, var, k, start[1], floor, float(self.tol), int(self.max_iter)
            )
        else:
            (Lam, psi), history, n_iter, converged = _em(S, var, k, start, floor, float(self.tol), int(self.max_iter))
        if not converged:
            warnings.warn(
                f"FactorAnalysis({self.algorithm!r}) did not converge: the log-likelihood still rose by more than "
                f"tol={self.tol} after max_iter={self.max_iter} iterations; increase max_iter or tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        # the likelihood is invariant to a factor's sign, which LAPACK's eigenvectors leave to the build and the CPU:
        # fix it (the largest-magnitude loading of each factor positive) so transform is the same on every machine
        rows = np.argmax(np.abs(Lam), axis=0)
        Lam = Lam * np.where(Lam[rows, np.arange(Lam.shape[1])] < 0, -1.0, 1.0)
        self.components_ = Lam.T.copy()
        self.noise_variance_ = psi
        self.mean_ = mean
        self.log_likelihood_history_ = np.asarray(history)
        self.n_iter_ = n_iter
        self.converged_ = converged
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
    sigma2 = max(sigma2, 1e-3 * float(np.mean(np.diag(S))), float(np.max(floor)))
    # a small positive floor keeps every factor alive (a zero column of Lambda is a fixed point of EM)
    Lam = U[:, :k] * np.sqrt(np.maximum(lam[:k] - sigma2, 1e-3 * sigma2))
    return Lam, np.full(d, sigma2)


def _profile_iteration(S, var, k, psi, floor, tol, max_iter):
    """Alternate the closed-form ``Lambda(Psi)`` and ``Psi = diag(S - Lambda Lambda^T)`` (see the class)."""
    d = S.shape[0]
    history = []
    converged = False
    n_iter = 0
    Lam = None
    for n_iter in range(max_iter + 1):
        sqrt_psi = np.sqrt(psi)
        St = S / np.outer(sqrt_psi, sqrt_psi)
        ev, U = scipy.linalg.eigh(St, check_finite=False, overwrite_a=True)
        ev, U = ev[::-1], U[:, ::-1]
        top = ev[:k]
        ll = -0.5 * (
            d * _LOG_2PI
            + np.log(psi).sum()
            + np.sum(np.log(np.maximum(top, 1.0)) + np.minimum(top, 1.0))
            + ev[k:].sum()
        )
        if not np.isfinite(ll):
            raise DivergenceError(f"FactorAnalysis: the log-likelihood became {ll} at iteration {n_iter}")
        Lam = sqrt_psi[:, None] * U[:, :k] * np.sqrt(np.maximum(top - 1.0, 0.0))
        history.append(float(ll))
        if n_iter > 0 and history[-1] - history[-2] < tol:
            converged = True
            break
        if n_iter == max_iter:
            break
        psi = np.maximum(var - np.einsum("ij,ij->i", Lam, Lam), floor)
    # history[0] is the start; each later entry follows one Psi update
    return (Lam, psi), history, len(history) - 1, converged


def _em(S, var, k, start, floor, tol, max_iter):
    """EM through the shared loop (see the class); returns ``((Lambda, psi), history, n_iter, converged)``."""
    d = S.shape[0]
    eye = np.eye(k)
    scales = []  # the largest term of each log-likelihood: its rounding error is ~eps times that

    def e_step(params):
        Lam, psi = params
        B = Lam.T / psi  # Lambda^T Psi^{-1}, (k, d)
        M = eye + B @ Lam
        cM = scipy.linalg.cho_factor(M, lower=True, check_finite=False)
        beta = scipy.linalg.cho_solve(cM, B, check_finite=False)  # (k, d)
        Ezx = beta @ S
        Ezz = scipy.linalg.cho_solve(cM, eye, check_finite=False) + Ezx @ beta.T
        log_det = np.log(psi).sum() + 2.0 * np.log(np.diag(cM[0])).sum()
        # tr(C^{-1} S) = tr(Psi^{-1} S) - tr(M^{-1} B S B^T): the second term through L^{-1} B
        LB = scipy.linalg.solve_triangular(cM[0], B, lower=True, check_finite=False)  # (k, d)
        big = np.sum(var / psi)
        scales.append(big)
        trace = big - np.einsum("ij,ij->", LB @ S, LB)
        return (Ezx, Ezz), -0.5 * (d * _LOG_2PI + log_det + trace)

    def m_step(stats):
        Ezx, Ezz = stats
        Lam = scipy.linalg.solve(Ezz, Ezx, assume_a="pos", check_finite=False).T  # (d, k)
        psi = np.maximum(var - np.einsum("ik,ki->i", Lam, Ezx), floor)
        return Lam, psi

    # The driver's own check is off: a decrease stops the loop (gain < tol) and is judged here against
    # the rounding error of the log-likelihood, whose trace is a difference of terms ~sum_j S_jj / psi_j.
    result = expectation_maximization(
        start, e_step, m_step, tol=tol, max_iter=max_iter, monotone_tol=np.inf, name="FactorAnalysis EM", warn=False
    )
    h = result.log_likelihood_history
    if h.size > 1:
        drop = h[-2] - h[-1]
        noise = 1e-9 * max(1.0, abs(h[-2])) + 1e3 * np.finfo(np.float64).eps * max(scales[-2:])
        if drop > noise:
            raise EMMonotonicityError(
                f"FactorAnalysis EM: iteration {result.n_iter} decreased the log-likelihood from {h[-2]:.12g} to "
                f"{h[-1]:.12g} (by {drop:.3g}, beyond its rounding error {noise:.2g}); exact EM never does"
            )
    return result.params, result.log_likelihood_history, result.n_iter, result.converged
