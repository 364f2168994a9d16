"""The lasso: least squares with an L1 penalty, by coordinate descent or proximal gradient."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, RegressorMixin
from ...exceptions import ConvergenceWarning
from ...linalg import center
from ...optim.proximal import proximal_gradient
from ...validation import check_X_y, dense

_SOLVERS = ("cd", "fista", "ista")


class Lasso(RegressorMixin, BaseEstimator):
    """L1-penalized least squares (EPFL notes, seed 004 L539-561; CS229 notes §9.1, seed 000 L3845-3915).

    Objective (EPFL's and scikit-learn's convention: the *mean* squared error)::

        minimize_{w, b}  1/(2n) ||y - X w - b||^2 + alpha ||w||_1

    The intercept is not penalized: ``X`` and ``y`` are centred and ``b = mean(y) - mean(X) @ w``.
    The L1 penalty gives sparse solutions (the level sets touch the L1 ball at its corners,
    EPFL L553-561); MAP reading: a Laplace prior on ``w`` (CIML §9.7, seed 001 L3214-3230). The
    texts give no solver (catalogue: "no solver is given"), so two standard ones are provided:

    * ``"cd"`` -- cyclic coordinate descent: with the residual ``r = y - X w`` kept up to date, each
      coordinate is minimized exactly::

          w_j := S(x_j^T r + ||x_j||^2 w_j, n alpha) / ||x_j||^2,   S(v, a) = sign(v) max(|v| - a, 0)

    * ``"ista"`` / ``"fista"`` -- proximal gradient (:func:`replearn.optim.proximal.proximal_gradient`)
      with step ``1/L``, ``L = lambda_max(X^T X) / n``; FISTA adds momentum (with monotone restarts).

    All solvers stop on the duality gap, as scikit-learn does: with ``r = y - X w`` and the dual
    point ``nu = r * min(1, n alpha / ||X^T r||_inf)``, the gap
    ``P(w) - D(nu) <= tol * ||y - mean(y)||^2 / n`` certifies that the objective is within that of the
    optimum. ``loss_history_`` holds the objective after each sweep / iteration.

    Parameters
    ----------
    alpha : float >= 0, default 1.0
        Penalty strength. ``alpha = 0`` is least squares (use ``linear_regression`` for that).
    solver : {"cd", "ista", "fista"}, default "cd"
    max_iter : int >= 1, default 1000
        Sweeps (cd) or iterations (ista/fista).
    tol : float >= 0, default 1e-4
        Duality-gap tolerance relative to ``||y - mean(y)||^2 / n`` (scikit-learn's scaling).
    fit_intercept : bool, default True

    Attributes
    ----------
    coef_ : array (n_features,)
    intercept_ : float
    n_iter_ : int
    dual_gap_ : float
        Final duality gap (in the scale of the objective above).
    loss_history_ : array
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.linear_model.Lasso(alpha=alpha, fit_intercept=..., tol=tol)``
    (same objective, same alpha, same gap rule). CIML's sum form ``sum (y - w.x)^2 + lambda ||w||_1``
    (eq. 7.8 with the squared loss) is ``alpha = lambda / (2n)``.
    """

    _accept_sparse = True  # densified: coordinate descent here works on dense columns

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "alpha": Interval(float, 0.0, None),
        "solver": Options({"cd", "fista", "ista"}),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "fit_intercept": Boolean(),
    }

    def __init__(self, alpha=1.0, solver="cd", max_iter=1000, tol=1e-4, fit_intercept=True):
        self.alpha = alpha
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Fit the sparse weights and the intercept; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        X = dense(X)
        n, d = X.shape
        if self.fit_intercept:
            Xc, x_mean, yc, y_mean = center(X, y)
        else:
            Xc, yc, x_mean, y_mean = X, y, np.zeros(d), 0.0
        alpha = float(self.alpha)
        gap_tol = float(self.tol) * float(yc @ yc) / n
        if self.solver == "cd":
            w, history, n_iter, gap, converged = _coordinate_descent(
                Xc, yc, alpha, self.max_iter, gap_tol, float(self.tol)
            )
            if not converged:
                warnings.warn(
                    f"Lasso(solver='cd') did not converge in max_iter={self.max_iter} sweeps (duality gap "
                    f"{gap:.2e} > {gap_tol:.2e}); increase max_iter or tol",
                    ConvergenceWarning,
                    stacklevel=2,
                )
        else:
            w, history, n_iter, gap = self._proximal(Xc, yc, alpha, gap_tol)
        self.coef_ = w
        self.intercept_ = float(y_mean - x_mean @ w) if self.fit_intercept else 0.0
        self.n_iter_ = int(n_iter)
        self.dual_gap_ = float(gap)
        self.loss_history_ = np.asarray(history)
        self.n_features_in_ = d
        return self

    def _proximal(self, X, y, alpha, gap_tol):
        n, d = X.shape
        L = _lipschitz(X) / n
        if L == 0.0:  # X is all zeros after centring: w = 0 is optimal
            return np.zeros(d), np.array([0.5 * float(y @ y) / n]), 0, 0.0
        last_gap = [np.inf]

        def fun(w):
            r = X @ w - y
            return 0.5 * float(r @ r) / n, X.T @ r / n

        def stop(w, grad, F):
            # grad = -X^T r / n with r = y - X w
            r = y - X @ w
            last_gap[0] = _duality_gap(r, -grad * n, w, alpha, n)
            return last_gap[0] <= gap_tol

        res = proximal_gradient(
            fun,
            alpha,
            np.zeros(d),
            step=1.0 / L,
            max_iter=self.max_iter,
            tol=0.0,
            accelerated=self.solver == "fista",
            stop=stop,
            warn=False,
        )
        if not res.converged:
            warnings.warn(
                f"Lasso(solver={self.solver!r}) did not converge in max_iter={self.max_iter} iterations "
                f"(duality gap {last_gap[0]:.2e} > {gap_tol:.2e}); increase max_iter or use solver='cd'",
                ConvergenceWarning,
                stacklevel=3,
            )
        return res.params, res.loss_history, res.n_iter, last_gap[0]

    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_``."""
        X = self._validate_predict_input(X)
        return X @ self.coef_ + self.intercept_


def _lipschitz(X: np.ndarray) -> float:
    """Largest eigenvalue of ``X^T X`` (from the smaller of the two Gram matrices)."""
    G = X.T @ X if X.shape[0] >= X.shape[1] else X @ X.T
    m = G.shape[0]
    return float(scipy.linalg.eigvalsh(G, subset_by_index=[m - 1, m - 1], check_finite=False)[0])


def _duality_gap(r, Xtr, w, alpha, n) -> float:
    """Lasso duality gap, in the scale of ``1/(2n)||r||^2 + alpha ||w||_1``."""
    primal = 0.5 * float(r @ r) + n * alpha * float(np.abs(w).sum())
    dual_norm = float(np.max(np.abs(Xtr), initial=0.0))
    scale = 1.0 if dual_norm <= n * alpha else n * alpha / dual_norm
    # D(nu) = 1/2||y||^2 - 1/2||y - nu||^2 with nu = scale * r and y = r + X w:
    # primal - D = 1/2 ||r||^2 (1 + scale^2) - scale * r^T y + n alpha ||w||_1  (all over n)
    y_dot_r = float(r @ r) + float(Xtr @ w)  # r^T y = r^T r + r^T X w
    gap = primal - (scale * y_dot_r - 0.5 * scale * scale * float(r @ r))
    return max(gap, 0.0) / n


def _coordinate_descent(X, y, alpha, max_iter, gap_tol, tol):
    n, d = X.shape
    w = np.zeros(d)
    r = y.copy()
    col_sq = np.einsum("ij,ij->j", X, X)
    Xf = np.asfortranarray(X)  # contiguous columns
    thresh = n * alpha
    history = [0.5 * float(r @ r) / n]
    gap = np.inf
    for sweep in range(1, max_iter + 1):
        w_max = d_max = 0.0
        for j in range(d):
            if col_sq[j] == 0.0:
                continue
            xj = Xf[:, j]
            old = w[j]
            rho = xj @ r + col_sq[j] * old
            new = np.sign(rho) * max(abs(rho) - thresh, 0.0) / col_sq[j]
            if new != old:
                r -= (new - old) * xj
                w[j] = new
            d_max = max(d_max, abs(new - old))
            w_max = max(w_max, abs(new))
        history.append(0.5 * float(r @ r) / n + alpha * float(np.abs(w).sum()))
        # like scikit-learn: compute the gap (O(nd)) when the coordinates have nearly stopped moving
        # (largest update <= tol * largest weight), and every 10 sweeps
        if d_max <= tol * w_max or sweep % 10 == 0 or sweep == max_iter:
            gap = _duality_gap(r, X.T @ r, w, alpha, n)
            if gap <= gap_tol:
                return w, history, sweep, gap, True
    return w, history, max_iter, gap, False


__all__ = ["Lasso"]
