"""Locally weighted linear regression (LWR), a non-parametric regressor."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..._constraints import Boolean, Interval
from ...base import BaseEstimator, RegressorMixin
from ...linalg import add_intercept, sq_euclidean
from ...validation import check_X_y, dense

#: queries solved together in one batched call (bounds the (m, p, p) temporaries)
_QUERY_BLOCK = 256


class LocallyWeightedRegression(RegressorMixin, BaseEstimator):
    """Locally weighted linear regression (CS229 notes §1.4, seed 000 L438-472; CS229 summaries §3.2,
    seed 002 L234-270 and PS1 Q5, L2728-2780).

    For each query ``x`` a weighted least-squares problem is solved on the whole training set::

        theta(x) = argmin_theta  sum_i w_i(x) (y_i - theta^T [x_i, 1])^2 + alpha ||theta_w||^2
        w_i(x)   = exp(-||x_i - x||^2 / (2 tau^2))

    i.e. ``theta(x) = (X^T W X)^{-1} X^T W y`` with ``W = diag(w(x))`` (PS1 5a), and the
    prediction is ``theta(x)^T [x, 1]``. Nothing is learned at ``fit`` time beyond storing the data
    (the model is non-parametric, L466-470); every prediction costs ``O(n p^2 + p^3)``.

    The weights are computed in log space and divided by the largest one before use
    (``w_i / max_j w_j`` gives the same ``theta``), so a query far from every training point does
    not underflow to all-zero weights. If the weighted system is singular -- fewer than ``p``
    points with non-negligible weight, e.g. a tiny ``tau`` -- the minimum-norm least-squares
    solution is used for that query. ``alpha > 0`` adds a small ridge term on the weights (not on
    the intercept) for stability; the notes have ``alpha = 0``.

    Bandwidth: a small ``tau`` gives a jagged curve that follows the noise (overfits), a large
    ``tau`` a smooth one that tends to ordinary least squares as ``tau -> inf`` (underfits). The
    CS229 summaries state this the wrong way round (seed 002 L268, listed in the catalogue's
    errata); this implementation's tests check the correct direction.

    Parameters
    ----------
    tau : float > 0, default 1.0
        Bandwidth, in the units of ``X`` (standardize features with different units first).
    alpha : float >= 0, default 0.0
        Ridge term added to the weighted normal equations (weights only).
    fit_intercept : bool, default True

    Attributes
    ----------
    X_train_, y_train_ : arrays
        The stored training set.
    n_features_in_ : int

    scikit-learn has no equivalent; statsmodels ``WLS(y, X, weights=w(x))`` fits one query's
    ``theta(x)`` (used as the reference in the tests).
    """

    _accept_sparse = True  # densified: every query solves a dense weighted least-squares problem

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "tau": Interval(float, 0.0, None, closed="neither"),
        "alpha": Interval(float, 0.0, None),
        "fit_intercept": Boolean(),
    }

    def __init__(self, tau=1.0, alpha=0.0, fit_intercept=True):
        self.tau = tau
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Store the training data (LWR is non-parametric); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        self.X_train_ = np.array(dense(X), dtype=np.float64, copy=True)
        self.y_train_ = y.copy()
        self.n_features_in_ = X.shape[1]
        return self

    def local_coef(self, X):
        """``theta(x)`` for each query row: shape (m, n_features (+1 for the intercept, last))."""
        X = dense(self._validate_predict_input(X))
        Xt = add_intercept(self.X_train_) if self.fit_intercept else self.X_train_
        p = Xt.shape[1]
        d = self.n_features_in_
        ridge = np.zeros(p)
        ridge[:d] = float(self.alpha)
        thetas = np.empty((X.shape[0], p))
        for start in range(0, X.shape[0], _QUERY_BLOCK):
            Q = X[start : start + _QUERY_BLOCK]
            logw = -sq_euclidean(Q, self.X_train_) / (2.0 * float(self.tau) ** 2)
            W = np.exp(logw - logw.max(axis=1, keepdims=True))  # (m, n), max weight 1 per query
            A = np.einsum("qi,ij,ik->qjk", W, Xt, Xt, optimize=True)  # X^T W X per query
            A[:, np.arange(p), np.arange(p)] += ridge
            b = (W * self.y_train_) @ Xt  # X^T W y per query
            thetas[start : start + len(Q)] = _solve_each(A, b, W, Xt, self.y_train_, ridge)
        return thetas

    def predict(self, X):
        """``theta(x)^T [x, 1]`` for each query row."""
        thetas = self.local_coef(X)
        X = dense(self._validate_predict_input(X))
        d = self.n_features_in_
        out = np.einsum("qj,qj->q", thetas[:, :d], X)
        return out + thetas[:, d] if self.fit_intercept else out


def _solve_each(A, b, W, Xt, y, ridge) -> np.ndarray:
    """Solve the per-query systems by Cholesky; singular ones fall back to min-norm least squares."""
    out = np.empty_like(b)
    p = A.shape[1]
    eps = np.finfo(np.float64).eps
    for q in range(A.shape[0]):
        try:
            c = scipy.linalg.cho_factor(A[q], lower=True, check_finite=False)
            diag = np.abs(np.diag(c[0]))
            if diag.min() <= np.sqrt(p * eps) * diag.max():  # condition number above ~1/(p eps)
                raise np.linalg.LinAlgError
            out[q] = scipy.linalg.cho_solve(c, b[q], check_finite=False)
        except np.linalg.LinAlgError:
            sw = np.sqrt(W[q])
            M = Xt * sw[:, None]
            rhs = y * sw
            if np.any(ridge > 0):
                M = np.vstack([M, np.diag(np.sqrt(ridge))])
                rhs = np.concatenate([rhs, np.zeros(p)])
            out[q], *_ = scipy.linalg.lstsq(M, rhs, check_finite=False)
    return out
