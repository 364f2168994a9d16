"""Kernel PCA: PCA in the feature space of a kernel, through the centred Gram matrix."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, TransformerMixin
from ...validation import check_array, check_is_fitted, check_n_features
from .kernels import KERNEL_CONSTRAINTS, kernel_matrix
from .pca import flip_signs


class KernelPCA(TransformerMixin, BaseEstimator):
    """Principal components of ``phi(x)`` using only the kernel ``K(x, z) = phi(x) . phi(z)``.

    PCA on ``phi(x)`` needs the eigenvectors of the feature-space covariance; every one lies in
    the span of the centred ``phi(x_i)`` (the representer argument of CIML §11.3, seed 001
    L3717-3742, applied to PCA's eigenproblem, CIML §15.2 eq. 15.9, seed 001 L4613-4694), so
    they follow from the eigenvectors of the centred Gram matrix::

        K~ = K - 1_n K - K 1_n + 1_n K 1_n        (1_n = the n x n matrix of 1/n)
        K~ a_j = lambda_j a_j,  ||a_j|| = 1,  lambda_1 >= lambda_2 >= ...

    The ``j``-th score of a point ``x`` is ``sum_i (a_ji / sqrt(lambda_j)) k~(x_i, x)``, with
    ``k~`` the kernel row centred with the training means; on the training data this is
    ``sqrt(lambda_j) a_j``. With ``kernel="linear"``, ``K~ = X_c X_c^T`` and the scores equal
    :class:`~replearn.models.decomposition.pca.PCA`'s up to sign (``lambda_j = s_j^2``), tested.
    Kernel PCA is not in the course texts as such (CIML lists it as absent); it combines their
    kernel trick and PCA.

    Components with ``lambda_j <= 0`` (up to rounding: ``<= 1e-12 lambda_1``) carry no variance:
    with ``n_components=None`` they are dropped; requested explicitly, they score 0.

    Pre-images: a feature-space point need not be the image of any input, so there is no exact
    ``inverse_transform``. With ``fit_inverse_transform=True`` an approximate one is learned (Bakir,
    Weston & Schoelkopf 2004, as in scikit-learn): kernel ridge regression from the training scores
    ``Z`` back to ``X``, with the same kernel on the scores,
    ``B = (K(Z, Z) + alpha I)^{-1} X`` (a Cholesky solve) and ``x_hat(z) = K(z, Z) B``. That gives kernel PCA
    a reconstruction error comparable with PCA's.
    ``explained_variance_ratio_`` is ``lambda_j / trace(K~)``, the share of the total
    feature-space variance (for the linear kernel, PCA's ratio).

    Eigensolver: ``"dense"`` is LAPACK's ``eigh`` restricted to the top ``k`` eigenpairs;
    ``"arpack"`` is Lanczos (``scipy.sparse.linalg.eigsh``, tolerance = machine precision) from a
    fixed start vector (``default_rng(0)``, so fits are deterministic without a ``random_state``),
    much faster when ``k << n``; ``"auto"`` uses ARPACK when ``n_components`` is given,
    ``n > 200`` and ``n_components < n / 10``. Both give the same eigenpairs to rounding (tested).

    Parameters
    ----------
    n_components : int >= 1 or None (default: every positive eigenvalue)
    kernel : {"linear", "poly", "rbf", "sigmoid"}, default "rbf"
    gamma : float > 0 or None (= 1 / n_features), default None
    degree : int >= 1, default 3
    coef0 : float, default 1.0
    eigen_solver : {"auto", "dense", "arpack"}, default "auto"
    fit_inverse_transform : bool, default False -- learn the approximate pre-image map
    alpha : float > 0, default 1.0 -- ridge penalty of that map

    Attributes
    ----------
    eigenvalues_ : array (k,) -- of the centred Gram matrix, decreasing
    eigenvectors_ : array (n_samples, k) -- unit columns ``a_j`` (sign: largest entry positive)
    explained_variance_ratio_ : array (k,)
    X_fit_ : array (n_samples, n_features)
    K_fit_cols_ : array (n_samples,) -- column means of the training Gram matrix
    K_fit_all_ : float -- grand mean of the training Gram matrix
    n_components_ : int
    n_features_in_ : int
    dual_coef_ : array (n_samples, n_features) -- pre-image map ``B`` (with ``fit_inverse_transform``)
    X_transformed_fit_ : array (n_samples, k) -- training scores ``Z`` (with ``fit_inverse_transform``)

    scikit-learn equivalent: ``sklearn.decomposition.KernelPCA(n_components, kernel, gamma, degree,
    coef0, eigen_solver=...)``; ``eigenvalues_`` and ``transform`` agree up to the sign of
    each component (tested for rbf).
    """

    _tasks = ("decomposition",)

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``n_components`` is also checked against the number of examples in fit
    _constraints = {
        "n_components": (None, Interval(int, 1, None)),
        **KERNEL_CONSTRAINTS,
        "eigen_solver": Options({"auto", "dense", "arpack"}),
        "fit_inverse_transform": Boolean(),
        "alpha": Interval(float, 0.0, None, closed="neither"),
    }

    def __init__(
        self,
        n_components=None,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        eigen_solver="auto",
        fit_inverse_transform=False,
        alpha=1.0,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.eigen_solver = eigen_solver
        self.fit_inverse_transform = fit_inverse_transform
        self.alpha = alpha

    def _kernel(self, A, B):
        return kernel_matrix(A, B, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    def fit(self, X, y=None):
        """Eigendecompose the centred kernel matrix of ``X``; returns ``self``."""
        self._validate_params()
        X = check_array(X)
        n = X.shape[0]
        if self.n_components is not None:
            if self.n_components > n:
                raise ValueError(f"n_components must be <= {n} (the number of samples), got {self.n_components}")
        elif self.eigen_solver == "arpack":
            raise ValueError("eigen_solver='arpack' needs an explicit n_components")
        K = self._kernel(X, X)
        cols = K.mean(axis=0)
        total = float(cols.mean())
        Kc = K - cols[None, :] - cols[:, None] + total
        Kc = 0.5 * (Kc + Kc.T)
        k = n if self.n_components is None else int(self.n_components)
        solver = self.eigen_solver
        if solver == "auto":
            solver = "arpack" if self.n_components is not None and n > 200 and k < n / 10 else "dense"
        if solver == "arpack" and k < n:
            v0 = np.random.default_rng(0).uniform(-1.0, 1.0, n)
            lam, A = scipy.sparse.linalg.eigsh(Kc, k=k, which="LA", tol=0.0, v0=v0)
        else:
            lam, A = scipy.linalg.eigh(Kc, subset_by_index=[n - k, n - 1], check_finite=False)
        if lam.size < k:
            # LAPACK's subset solver (?syevr) can return fewer pairs than asked when the top eigenvalues
            # are one tight cluster -- e.g. an RBF kernel on widely spread points is ~ the identity
            # (issue 17: features scaled by 1e5) -- so fall back to the full decomposition
            lam, A = scipy.linalg.eigh(Kc, check_finite=False)
            lam, A = lam[n - k :], A[:, n - k :]
        order = np.argsort(lam)[::-1]
        lam, A = lam[order], A[:, order]
        tiny = 1e-12 * max(float(lam[0]), 0.0)
        if self.n_components is None:
            keep = lam > tiny
            lam, A = lam[keep], A[:, keep]
        lam = np.where(lam > tiny, lam, 0.0)
        trace = float(np.trace(Kc))
        self.eigenvalues_ = lam
        self.eigenvectors_ = flip_signs(A.T).T
        self.explained_variance_ratio_ = lam / trace if trace > 0 else np.zeros_like(lam)
        self.X_fit_ = X.copy()
        self.K_fit_cols_ = cols
        self.K_fit_all_ = total
        self.n_components_ = int(lam.size)
        self.n_features_in_ = X.shape[1]
        if self.fit_inverse_transform:
            Z = self.eigenvectors_ * np.sqrt(self.eigenvalues_)  # training scores
            Kz = self._kernel(Z, Z)
            Kz.flat[:: n + 1] += self.alpha
            self.dual_coef_ = scipy.linalg.cho_solve(scipy.linalg.cho_factor(Kz, lower=True, check_finite=False), X)
            self.X_transformed_fit_ = Z
        return self

    def inverse_transform(self, Z) -> np.ndarray:
        """Approximate pre-images of scores ``Z`` (needs ``fit_inverse_transform=True``)."""
        check_is_fitted(self, "eigenvectors_")
        if not self.fit_inverse_transform or not hasattr(self, "dual_coef_"):
            raise NotImplementedError(
                "KernelPCA has no exact inverse; fit with fit_inverse_transform=True to learn approximate pre-images"
            )
        Z = check_array(Z, name="Z")
        if Z.shape[1] != self.n_components_:
            raise ValueError(f"Z has {Z.shape[1]} components, but KernelPCA was fitted with {self.n_components_}")
        return self._kernel(Z, self.X_transformed_fit_) @ self.dual_coef_

    def _projection(self) -> np.ndarray:
        scale = np.zeros_like(self.eigenvalues_)
        pos = self.eigenvalues_ > 0
        scale[pos] = 1.0 / np.sqrt(self.eigenvalues_[pos])
        return self.eigenvectors_ * scale

    def transform(self, X) -> np.ndarray:
        """Scores of new points, shape (n, n_components_)."""
        check_is_fitted(self, "eigenvectors_")
        X = check_array(X)
        check_n_features(self, X)
        Kx = self._kernel(X, self.X_fit_)
        Kx = Kx - Kx.mean(axis=1, keepdims=True) - self.K_fit_cols_[None, :] + self.K_fit_all_
        return Kx @ self._projection()

    def fit_transform(self, X, y=None) -> np.ndarray:
        """Fit and return the training scores ``sqrt(lambda_j) a_j`` (no second kernel evaluation)."""
        self.fit(X, y)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)
