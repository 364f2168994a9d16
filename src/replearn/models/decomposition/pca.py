"""Principal component analysis by eigendecomposition or by the SVD."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, TransformerMixin
from ...validation import check_array, check_is_fitted, check_n_features

_SOLVERS = ("svd", "eig")


def flip_signs(components: np.ndarray) -> np.ndarray:
    """Make the largest-magnitude entry of each row positive (the eigenvector sign is arbitrary)."""
    idx = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), idx])
    signs[signs == 0] = 1.0
    return components * signs[:, None]


class PCA(TransformerMixin, BaseEstimator):
    """Project centred (optionally standardized) data onto its top-``k`` principal directions.

    The principal directions ``u_1, ..., u_k`` maximize the projected variance:
    ``u_1 = argmax_{||u|| = 1} u^T S u`` with ``S = (1/n) sum_i x_i x_i^T`` the covariance of the
    centred data, so ``u_j`` are the eigenvectors of ``S`` with the ``k`` largest eigenvalues
    (CS229 notes §12, seed 000 L4889-5016; CIML §15.2 eq. 15.9 and Alg. 37, seed 001 L4613-4694;
    CS229 summaries §9, seed 002 L1902-2041). Equivalently they minimize the reconstruction error
    ``sum_i ||x_i - U U^T x_i||^2`` (CIML eqs. 15.14-15.18; CS229 L4918-4924, where the margin note's
    "argmax" and "alpha = 1/2 <u, x> / ||u||^2" are wrong: the projection coefficient is
    ``<u, x> / ||u||^2`` and it is an argmin).

    Solvers (identical results up to rounding, tested):

    * ``"svd"`` (default): thin SVD of the centred data ``X_c = U_s S V^T``; the components are the
      rows of ``V^T`` and the eigenvalues of ``S`` are ``s_j^2 / n`` (EPFL notes, seed 004
      L1576-1695, with ``X`` stored examples-by-features here);
    * ``"eig"``: ``eigh`` of the ``d x d`` scatter matrix ``X_c^T X_c`` (CIML Alg. 37), or of the
      ``n x n`` Gram matrix ``X_c X_c^T`` when ``n < d`` (the EPFL notes' "whichever is smaller"),
      mapping its eigenvectors back with ``v = X_c^T u / s``.

    Eckart-Young (EPFL L1611-1632): the rank-``k`` reconstruction ``x^ = U_k U_k^T x_c`` is the best
    rank-``k`` approximation in Frobenius norm, with error ``||X_c - X^||_F^2 = sum_{j>k} s_j^2`` --
    the sum of the *squared* singular values (the notes' L1632 says "sum of the singular values",
    catalogue erratum). So ``reconstruction_error`` on the training data equals
    ``sum_{j>k} s_j^2 / n`` (tested).

    Conventions: ``standardize=True`` divides each centred feature by its standard deviation with
    ``1/n`` (CS229 L4928-4942, EPFL L1693-1695; as ``StandardScaler``); a constant feature keeps
    scale 1. ``explained_variance_`` uses ``s_j^2 / (n - 1)`` -- the unbiased covariance, as
    scikit-learn -- while the notes' covariance has ``1/n``; the ratio is the same either way.
    The sign of each component is fixed so its largest-magnitude entry is positive (the notes leave
    it arbitrary; scikit-learn fixes it differently, so compare up to sign). ``inverse_transform``
    maps scores back with ``x^ = U y`` (``U^T U = I``; the CS229 summaries' ``(U U^T)^{-1} U y``,
    seed 002 L2015, is wrong: ``U U^T`` is singular).

    Parameters
    ----------
    n_components : int >= 1, float in (0, 1), or None (default)
        Number of components; a float keeps the fewest components whose explained-variance ratio
        reaches it; None keeps ``min(n, d)``.
    solver : {"svd", "eig"}, default "svd"
    standardize : bool, default False

    Attributes
    ----------
    components_ : array (k, d) -- orthonormal rows, by decreasing variance
    explained_variance_ : array (k,) -- ``s_j^2 / (n - 1)``
    explained_variance_ratio_ : array (k,) -- share of the total variance
    singular_values_ : array (k,) -- of the centred (scaled) data
    mean_ : array (d,)
    scale_ : array (d,) -- ones unless ``standardize``
    n_components_ : int
    n_samples_ : int
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.decomposition.PCA(n_components, svd_solver="full")`` (after
    ``StandardScaler`` when ``standardize=True``); components agree up to sign (tested).
    """

    _tasks = ("decomposition",)

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: an integer ``n_components`` is also checked against min(n_samples, n_features) in fit
    _constraints = {
        "n_components": (None, Interval(int, 1, None), Interval(float, 0.0, 1.0, closed="neither")),
        "solver": Options(set(_SOLVERS)),
        "standardize": Boolean(),
    }

    def __init__(self, n_components=None, solver="svd", standardize=False):
        self.n_components = n_components
        self.solver = solver
        self.standardize = standardize

    def fit(self, X, y=None):
        """Learn the mean, scale and principal components of ``X``; returns ``self``."""
        self._validate_params()
        X = check_array(X)
        n, d = X.shape
        nc = self.n_components
        if isinstance(nc, (numbers.Integral, np.integer)) and nc > min(n, d):
            raise ValueError(f"n_components must be <= {min(n, d)} (min(n_samples, n_features)), got {nc}")
        if n < 2:
            raise ValueError("PCA needs at least 2 samples")
        mean = X.mean(axis=0)
        Xc = X - mean
        scale = np.ones(d)
        if self.standardize:
            std = Xc.std(axis=0)
            scale = np.where(std > 0, std, 1.0)
            Xc /= scale
        r = min(n, d)
        if self.solver == "svd":
            _, s, Vt = scipy.linalg.svd(Xc, full_matrices=False, check_finite=False, lapack_driver="gesdd")
        else:
            s, Vt = _eig_solver(Xc)
        s, Vt = s[:r], Vt[:r]
        variance = s**2 / (n - 1)
        total = variance.sum()
        ratio = variance / total if total > 0 else np.zeros_like(variance)
        k = self._choose_k(ratio, r)
        self.components_ = flip_signs(Vt[:k])
        self.singular_values_ = s[:k].copy()
        self.explained_variance_ = variance[:k].copy()
        self.explained_variance_ratio_ = ratio[:k].copy()
        self.mean_ = mean
        self.scale_ = scale
        self.n_components_ = int(k)
        self.n_samples_ = n
        self.n_features_in_ = d
        return self

    def _choose_k(self, ratio: np.ndarray, r: int) -> int:
        nc = self.n_components
        if nc is None:
            return r
        if isinstance(nc, numbers.Integral):
            return int(nc)
        return int(min(np.searchsorted(np.cumsum(ratio), nc, side="left") + 1, r))

    def _check(self, X, width=None) -> np.ndarray:
        check_is_fitted(self, "components_")
        X = check_array(X)
        if width is None:
            check_n_features(self, X)
        elif X.shape[1] != width:
            raise ValueError(f"X has {X.shape[1]} columns, but PCA has {width} components")
        return X

    def transform(self, X) -> np.ndarray:
        """Scores ``y = U^T ((x - mean) / scale)``, shape (n, k)."""
        X = self._check(X)
        return ((X - self.mean_) / self.scale_) @ self.components_.T

    def inverse_transform(self, Y) -> np.ndarray:
        """Back to the input space: ``x^ = (U y) * scale + mean``."""
        Y = self._check(Y, width=self.n_components_)
        return (Y @ self.components_) * self.scale_ + self.mean_

    def reconstruction_error(self, X) -> float:
        """Mean squared reconstruction error ``(1/n) sum_i ||x_i - x^_i||^2`` in input units."""
        X = self._check(X)
        diff = X - self.inverse_transform(self.transform(X))
        return float(np.einsum("ij,ij->", diff, diff) / X.shape[0])


def _eig_solver(Xc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Singular values and right singular vectors of ``Xc`` from an eigendecomposition."""
    n, d = Xc.shape
    if d <= n:
        lam, V = scipy.linalg.eigh(Xc.T @ Xc, check_finite=False)
        order = np.argsort(lam)[::-1]
        lam, V = np.clip(lam[order], 0.0, None), V[:, order]
        return np.sqrt(lam), V.T
    lam, U = scipy.linalg.eigh(Xc @ Xc.T, check_finite=False)
    order = np.argsort(lam)[::-1]
    lam, U = np.clip(lam[order], 0.0, None), U[:, order]
    s = np.sqrt(lam)
    Vt = U.T @ Xc
    # eigenvalues of X X^T are exact to ~eps * lambda_1, so singular values only to ~sqrt(eps) * s_1
    pos = lam > lam[0] * max(n, d) * np.finfo(np.float64).eps if lam[0] > 0 else np.zeros_like(s, bool)
    Vt[pos] /= s[pos, None]
    m = int(pos.sum())
    if m < n:  # null directions: any orthonormal completion (the SVD's choice is just as arbitrary)
        Q, _ = scipy.linalg.qr(Vt[:m].T if m else np.zeros((d, 1)), mode="full")
        Vt[m:] = Q[:, m:n].T
    return s, Vt
