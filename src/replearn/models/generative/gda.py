"""Gaussian discriminant analysis with a shared covariance (linear boundary) or per-class covariances."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.linalg.blas

from ..._constraints import Interval, Options, RealArray
from ..._jit import jit_available
from ...base import BaseEstimator, ClassifierMixin
from ...linalg import logsumexp
from ...validation import check_classification_targets, check_X_y
from ..cluster._kernels import cluster_sums

_COVARIANCES = ("per_class", "shared")


class GaussianDiscriminantAnalysis(ClassifierMixin, BaseEstimator):
    """Gaussian discriminant analysis (CS229 notes §4.1, seed 000 L1108-1349; CS229 summaries §5.1,
    seed 002 L771-942).

    Generative model: ``y ~ Categorical(phi)`` (Bernoulli for two classes) and
    ``x | y = k ~ N(mu_k, Sigma)`` (``covariance="shared"``, the notes' model) or ``N(mu_k, Sigma_k)``
    (``"per_class"``, mentioned at seed 002 L817). Maximum-likelihood estimates (L1160-1178)::

        phi_k   = (1/n) sum_i 1{y_i = k}
        mu_k    = sum_i 1{y_i = k} x_i / sum_i 1{y_i = k}
        Sigma   = (1/n)   sum_i (x_i - mu_{y_i})(x_i - mu_{y_i})^T            (shared)
        Sigma_k = (1/n_k) sum_{i: y_i = k} (x_i - mu_k)(x_i - mu_k)^T          (per class)

    (MLE: divided by ``n`` / ``n_k``, not ``n - K`` / ``n_k - 1``). Prediction by Bayes' rule,
    ``argmax_k log phi_k + log N(x; mu_k, Sigma_k)`` (§4, L969-1019), evaluated through a Cholesky
    factor of each covariance (no inverse is formed).

    Shared covariance => linear boundary and a logistic posterior (§4.1.3, L1283-1349): for two
    classes ``p(y = 1 | x) = 1 / (1 + exp(-(theta^T x + theta_0)))`` with::

        theta   = Sigma^{-1} (mu_1 - mu_0)
        theta_0 = -1/2 (mu_1^T Sigma^{-1} mu_1 - mu_0^T Sigma^{-1} mu_0) + log(phi / (1 - phi))

    (the notes leave theta implicit; the handwritten Chinese annotation at L1259-1269 has sign and
    ``Sigma`` vs ``Sigma^{-1}`` errors -- catalogue errata -- this is the corrected form, equal to
    seed 002 L2490-2496). With ``covariance="shared"`` the model stores ``coef_ = Sigma^{-1} mu_k``
    and ``intercept_ = -1/2 mu_k^T Sigma^{-1} mu_k + log phi_k`` per class (the quadratic term is
    common to all classes and cancels), and for two classes ``theta_``/``theta0_`` above.

    Regularization is relative and only where needed: a covariance whose correlation matrix is well
    conditioned is used as estimated (the maximum-likelihood answer, equal to scikit-learn's LDA /
    QDA); otherwise ``reg_covar`` times each feature's variance (the mean variance for a constant
    feature) is added to its diagonal, so the fix does not depend on the features' units. A
    covariance that is still singular (``reg_covar=0``) raises ``ValueError`` naming the fix.

    Parameters
    ----------
    covariance : {"shared", "per_class"}, default "shared"
    reg_covar : float >= 0, default 1e-6
        Relative ridge on an ill-conditioned covariance: ``Sigma_jj += reg_covar * scale_j`` with
        ``scale_j`` the variance of feature j. (An absolute 1e-6, as scikit-learn's
        ``GaussianMixture`` adds, moved the posteriors on unscaled breast_cancer by up to 0.1,
        whose smallest variances are near 1e-6.)
    priors : array-like (n_classes,), optional
        Class priors ``phi`` in the order of ``classes_`` (default: the class frequencies).

    Attributes
    ----------
    classes_, class_prior_ : arrays (K,)
    means_ : array (K, n_features)
    covariance_ : array (n_features, n_features) shared, or (K, n_features, n_features) per class
    cholesky_ : array like ``covariance_``
        Lower Cholesky factor(s) of the covariance(s), used for the log densities.
    coef_, intercept_ : arrays (K, n_features), (K,) -- shared covariance only
    theta_, theta0_ : array (n_features,), float -- shared covariance and two classes only
    n_features_in_ : int

    scikit-learn equivalents: ``LinearDiscriminantAnalysis(solver="lsqr")`` (shared; it estimates the
    same pooled MLE covariance) and ``QuadraticDiscriminantAnalysis`` (per class; it divides by
    ``n_k - 1`` instead of ``n_k``, so results differ slightly).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``priors`` is checked against the classes of ``y`` in fit
    _constraints = {
        "covariance": Options(set(_COVARIANCES)),
        "reg_covar": Interval(float, 0.0, None),
        "priors": (None, RealArray(lo=0.0)),
    }

    def __init__(self, covariance="shared", reg_covar=1e-6, priors=None):
        self.covariance = covariance
        self.reg_covar = reg_covar
        self.priors = priors

    def fit(self, X, y):
        """Estimate phi, the means and the covariance(s); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        classes = check_classification_targets(y)
        n, d = X.shape
        K = classes.size
        codes = np.searchsorted(classes, y)
        counts = np.bincount(codes, minlength=K).astype(np.float64)
        prior = counts / n
        if self.priors is not None:
            prior = np.asarray(self.priors, dtype=np.float64)
            if prior.shape != (K,):
                raise ValueError(f"priors has {prior.size} entries but y has {K} classes {classes.tolist()}")
            if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
                raise ValueError(f"priors must be non-negative and sum to 1, got {prior.tolist()}")
        if jit_available():  # one compiled pass over the rows (a skinny one-hot GEMM is slow on a busy machine)
            sums = cluster_sums(X, codes, K)[0]
        else:
            onehot = np.zeros((K, n))
            onehot[codes, np.arange(n)] = 1.0
            sums = onehot @ X
        means = sums / counts[:, None]
        R = X - means[codes]  # x_i - mu_{y_i}
        reg = float(self.reg_covar)
        self.classes_ = classes
        self.class_prior_ = prior
        self.means_ = means
        if self.covariance == "shared":
            cov = _regularize(_gram(R) / n, reg)
            chol = _cholesky(cov, "the shared covariance")
            self.covariance_ = cov
            self.cholesky_ = chol
            # coef_k = Sigma^{-1} mu_k via the Cholesky factor
            self.coef_ = scipy.linalg.cho_solve((chol, True), means.T, check_finite=False).T
            with np.errstate(divide="ignore"):
                log_prior = np.log(prior)
            self.intercept_ = -0.5 * np.einsum("kd,kd->k", self.coef_, means) + log_prior
            if K == 2:
                self.theta_ = self.coef_[1] - self.coef_[0]
                self.theta0_ = float(self.intercept_[1] - self.intercept_[0])
        else:
            covs = np.empty((K, d, d))
            chols = np.empty((K, d, d))
            for k in range(K):
                covs[k] = _regularize(_gram(R[codes == k]) / counts[k], reg)
                chols[k] = _cholesky(covs[k], f"the covariance of class {classes[k]!r}")
            self.covariance_ = covs
            self.cholesky_ = chols
        self.n_features_in_ = d
        return self

    def _scores(self, X) -> np.ndarray:
        """Joint log-likelihoods up to a term that is the same for every class (n, K).

        Shared covariance: ``x^T Sigma^{-1} mu_k - 1/2 mu_k^T Sigma^{-1} mu_k + log phi_k`` -- linear in x;
        the quadratic ``-1/2 x^T Sigma^{-1} x`` and the normalizer cancel in the posterior. Per class: the
        full ``log phi_k + log N(x; mu_k, Sigma_k)``.
        """
        X = self._validate_predict_input(X)
        if self.covariance == "shared":
            return X @ self.coef_.T + self.intercept_
        with np.errstate(divide="ignore"):
            log_prior = np.log(self.class_prior_)
        K, d = self.means_.shape
        jll = np.empty((X.shape[0], K))
        for k in range(K):
            L = self.cholesky_[k]
            Z = scipy.linalg.solve_triangular(L, (X - self.means_[k]).T, lower=True, check_finite=False)
            jll[:, k] = (
                log_prior[k]
                - 0.5 * np.einsum("dn,dn->n", Z, Z)
                - np.log(np.diag(L)).sum()
                - 0.5 * d * np.log(2 * np.pi)
            )
        return jll

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """``log phi_k + log N(x; mu_k, Sigma_k)`` for each class, shape (n, K)."""
        jll = self._scores(X)
        if self.covariance == "shared":  # add the class-independent part: -1/2 x^T Sigma^{-1} x - log|L| - d/2 log 2 pi
            X = np.asarray(X, dtype=np.float64)
            L = self.cholesky_
            Z = scipy.linalg.solve_triangular(L, X.T, lower=True, check_finite=False)
            common = (
                -0.5 * np.einsum("dn,dn->n", Z, Z) - np.log(np.diag(L)).sum() - 0.5 * X.shape[1] * np.log(2 * np.pi)
            )
            jll = jll + common[:, None]
        return jll

    def decision_function(self, X):
        """Log posterior odds ``theta^T x + theta_0`` (two classes) or class scores (n, K): the joint
        log-likelihoods up to a class-independent term."""
        jll = self._scores(X)
        return jll[:, 1] - jll[:, 0] if jll.shape[1] == 2 else jll

    def predict_log_proba(self, X):
        """``log p(y = k | x)``, shape (n, K)."""
        jll = self._scores(X)
        shifted = jll - jll.max(axis=1, keepdims=True)
        return shifted - logsumexp(shifted, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior ``p(y = k | x)`` by Bayes' rule, shape (n, K)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class (ties go to the class that comes first in ``classes_``)."""
        scores = self._scores(X)  # validates X and fittedness first
        return self.classes_[np.argmax(scores, axis=1)]


def _gram(A: np.ndarray) -> np.ndarray:
    """``A^T A`` by BLAS ``dsyrk`` (a symmetric rank-k update: half the flops of ``A.T @ A``)."""
    C = scipy.linalg.blas.dsyrk(1.0, np.asfortranarray(A.T), trans=0, lower=0)
    return np.triu(C) + np.triu(C, 1).T


#: a correlation matrix with a smaller eigenvalue counts as ill conditioned (features collinear
#: to ~1e-10): only then is the covariance regularized
_MIN_CORR_EIGENVALUE = 1e-10


def _regularize(cov: np.ndarray, reg: float) -> np.ndarray:
    """``cov`` unchanged where well conditioned, else with ``reg * variance_j`` added to its diagonal."""
    var = np.diag(cov).copy()
    positive = var > 0
    if np.all(positive):
        s = np.sqrt(var)
        corr = cov / np.outer(s, s)
        if float(scipy.linalg.eigvalsh(corr, subset_by_index=[0, 0], check_finite=False)[0]) > _MIN_CORR_EIGENVALUE:
            return cov
    scale = np.where(positive, var, var[positive].mean() if np.any(positive) else 1.0)
    out = cov.copy()
    out.flat[:: cov.shape[0] + 1] += reg * scale
    return out


def _cholesky(A: np.ndarray, what: str) -> np.ndarray:
    try:
        return np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"{what} is singular (a feature is constant or collinear with others); increase reg_covar"
        ) from None
