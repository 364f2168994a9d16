"""Ridge regression (L2-regularized least squares), in primal or dual form."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, RegressorMixin
from ...linalg import center, solve_spd
from ...validation import check_X_y, dense
from .least_squares import check_sample_weight

_SOLVERS = ("auto", "dual", "primal")


class Ridge(RegressorMixin, BaseEstimator):
    """Ridge regression: least squares with an L2 penalty on the weights.

    Objective (scikit-learn's convention: plain sum of squares, penalty ``alpha ||w||^2``)::

        minimize_{w, b}  ||y - X w - b||^2 + alpha ||w||^2

    The intercept ``b`` is not penalized: ``X`` and ``y`` are centred, the weights are fitted on
    the centred data and ``b = mean(y) - mean(X) @ w``.

    * Primal form: ``(X^T X + alpha I_d) w = X^T y``, solved by Cholesky in O(n d^2 + d^3)
      (CIML §7.6 eq. 7.36, seed 001 L2484-2542; EPFL notes L499-537, seed 004).
    * Dual form: ``w = X^T (X X^T + alpha I_n)^{-1} y``, O(n^2 d + n^3), cheaper when
      ``n_samples < n_features`` (EPFL notes L1101-1117, seed 004: the identity
      ``P (Q P + I)^{-1} = (P Q + I)^{-1} P``). The dual coefficients ``(X X^T + alpha I)^{-1} y``
      are what kernel ridge regression generalizes (replace ``X X^T`` by a kernel matrix).

    Weights (``fit(X, y, sample_weight=w)``): ``minimize sum_i w_i (y_i - w^T x_i - b)^2 + alpha ||w||^2``
    (scikit-learn's weighted ridge: a plain weighted sum, so integer weights equal repeated rows). The
    data are centred on the weighted means and each row multiplied by ``sqrt(w_i)``; both forms then
    solve the weighted normal equations ``(X^T W X + alpha I) w = X^T W y`` (CS229 PS1 5a, seed 002
    L2728-2796, plus the penalty). Weights are checked as in
    :func:`~replearn.models.linear.least_squares.check_sample_weight`.

    For ``alpha > 0`` both matrices are positive definite; with ``alpha = 0`` this is least
    squares and a singular system falls back to the minimum-norm least-squares solution.

    MAP reading (CS229 notes §9.4, seed 000 L4118-4124; CIML §9.7, seed 001 L3214-3230): with
    Gaussian noise ``y | x ~ N(w^T x + b, sigma^2)`` and prior ``w ~ N(0, tau^2 I)``, the posterior
    mode is the ridge solution with ``alpha = sigma^2 / tau^2``.

    Conventions: EPFL writes ``1/(2N) ||y - X w||^2 + lambda ||w||^2``, which is this objective
    with ``alpha = 2 N lambda`` (seed 004 L499-537); the CS229 regularized loss
    ``J + lambda * 1/2 ||theta||^2`` with the notes' ``J = 1/2 sum (...)^2`` (§9.1 eq. 9.1,
    seed 000 L3845-3915) is this objective with ``alpha = lambda``.

    Parameters
    ----------
    alpha : float >= 0, default 1.0
        Penalty strength.
    fit_intercept : bool, default True
    solver : {"auto", "primal", "dual"}, default "auto"
        ``"auto"`` uses the dual form when ``n_samples < n_features``, else the primal.

    Attributes
    ----------
    coef_ : array (n_features,)
    intercept_ : float
    solver_used_ : str, "primal" or "dual"
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.linear_model.Ridge(alpha=alpha, fit_intercept=...)``.
    """

    _accept_sparse = True  # the primal solve keeps X sparse (X^T X); the dual one densifies

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "alpha": Interval(float, 0.0, None),
        "solver": Options({"auto", "dual", "primal"}),
        "fit_intercept": Boolean(),
    }

    def __init__(self, alpha=1.0, fit_intercept=True, solver="auto"):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.solver = solver

    def fit(self, X, y, sample_weight=None):
        """Fit the weights and intercept; returns ``self``. ``sample_weight`` (n,): non-negative example weights."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        n, d = X.shape
        solver = self.solver
        if solver == "auto":
            solver = "dual" if n < d else "primal"
        sw = None if sample_weight is None else check_sample_weight(sample_weight, n)
        if sp.issparse(X) and solver == "primal":
            return self._fit_sparse_primal(X, y, n, d, sw)
        X = dense(X)
        if sw is not None:
            x_mean = sw @ X / sw.sum() if self.fit_intercept else np.zeros(d)
            y_mean = float(sw @ y / sw.sum()) if self.fit_intercept else 0.0
            root = np.sqrt(sw)
            Xc, yc = (X - x_mean) * root[:, None], (y - y_mean) * root
        elif self.fit_intercept:
            Xc, x_mean, yc, y_mean = center(X, y)
        else:
            Xc, yc, x_mean, y_mean = X, y, np.zeros(d), 0.0

        alpha = float(self.alpha)
        if solver == "primal":
            A = Xc.T @ Xc
            A.flat[:: d + 1] += alpha
            w = solve_spd(A, Xc.T @ yc, overwrite_a=True)
        else:
            K = Xc @ Xc.T
            K.flat[:: n + 1] += alpha
            dual_coef = solve_spd(K, yc, overwrite_a=True)
            w = Xc.T @ dual_coef

        self.coef_ = np.asarray(w, dtype=np.float64)
        self.intercept_ = float(y_mean - x_mean @ self.coef_) if self.fit_intercept else 0.0
        self.solver_used_ = solver
        self.n_features_in_ = d
        return self

    def _fit_sparse_primal(self, X, y, n, d, sw=None):
        """The primal solve on sparse X without densifying it: with centring,
        Xc^T Xc = X^T X - n m m^T and Xc^T yc = X^T yc (the centred y sums to 0); with weights W,
        X^T W X - (sum w) m m^T and X^T W (y - y_w), m and y_w the weighted means."""
        if sw is None:
            m = np.asarray(X.mean(axis=0)).ravel() if self.fit_intercept else np.zeros(d)
            y_mean = float(y.mean()) if self.fit_intercept else 0.0
            A = (X.T @ X).toarray() - n * np.outer(m, m)
            b = X.T @ (y - y_mean)
        else:
            total = float(sw.sum())
            m = np.asarray(X.T @ sw).ravel() / total if self.fit_intercept else np.zeros(d)
            y_mean = float(sw @ y / total) if self.fit_intercept else 0.0
            A = (X.T @ (sp.diags_array(sw) @ X)).toarray() - total * np.outer(m, m)
            b = X.T @ (sw * (y - y_mean))
        A.flat[:: d + 1] += float(self.alpha)
        self.coef_ = np.asarray(solve_spd(A, b, overwrite_a=True), dtype=np.float64)
        self.intercept_ = float(y_mean - m @ self.coef_) if self.fit_intercept else 0.0
        self.solver_used_ = "primal"
        self.n_features_in_ = d
        return self

    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_``."""
        X = self._validate_predict_input(X)
        return X @ self.coef_ + self.intercept_
