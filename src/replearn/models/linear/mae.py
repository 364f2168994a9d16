"""Least absolute deviations: linear regression under the MAE cost, by (stochastic) subgradient descent (EPFL)."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, RegressorMixin
from ...exceptions import ConvergenceWarning, DivergenceError
from ...validation import check_random_state, check_X_y

_SOLVERS = ("subgradient", "sgd")


def mae(y, prediction) -> float:
    """The MAE cost (1/N) sum_n |y_n - f(x_n)| (EPFL seed 004 L41-80)."""
    return float(np.mean(np.abs(np.asarray(y, dtype=np.float64) - np.asarray(prediction, dtype=np.float64))))


class MAERegression(RegressorMixin, BaseEstimator):
    """Linear regression with the mean absolute error, by subgradient descent (EPFL notes, seed 004).

    Objective (EPFL's MAE cost, L41-80 -- convex, robust to outliers, not differentiable where a residual is
    0)::

        minimize_{w, b}  L(w, b) = (1/N) sum_n |y_n - w^T x_n - b|

    Its minimizer is the least-absolute-deviations (median) regression; b alone would be the median of y.

    Update (EPFL L219-229, subgradient descent): ``w <- w - gamma_t g`` with a subgradient
    ``g = -(1/N) X~^T sign(e)`` of L at the current iterate, ``e = y - X~ w~`` (``X~ = [X, 1]`` with an
    intercept), from the chain rule of L225: ``d|e| = sign(e)``, any value in [-1, 1] at e = 0 (0 is taken).
    ``solver="sgd"`` (L231-244, stochastic subgradient descent): the same with the subgradient of a batch of
    ``batch_size`` examples, a fresh permutation every epoch.

    A subgradient step need not decrease L (the notes' comparison table lists no descent guarantee), so the
    steps decay, ``gamma_t = learning_rate / sqrt(t + 1)`` (the classical rate: L(best) - L* = O(1/sqrt(t))),
    and the **best iterate seen** is returned; ``loss_history_`` records L after every iteration (every epoch
    for "sgd"), ``best_loss_history_`` its running minimum. The fit stops when the best value has not improved
    by ``tol * max(1, best)`` for ``n_iter_no_change`` iterations (epochs); ``max_iter`` without that warns
    ``ConvergenceWarning``; a non-finite objective raises ``DivergenceError``.

    Scale: the iteration runs on standardized columns ``(x_j - mean_j) / std_j`` and on ``(y - median(y)) /
    MAD`` (mean absolute deviation from the median); an affine change of the columns and a positive scaling
    of y map the MAE minimizers one to one (``L`` is only rescaled), so this is the same problem, solved with a
    step that does not depend on the units of X and y; the result is mapped back. (With a constant column --
    std 0 -- that column keeps weight 0 when there is an intercept.)

    Parameters
    ----------
    solver : {"subgradient", "sgd"}, default "subgradient"
    learning_rate : float > 0, default 0.1 -- gamma_0 in standardized units
    max_iter : int >= 1, default 20000 -- iterations ("subgradient") or epochs ("sgd")
    tol : float >= 0, default 1e-7
    n_iter_no_change : int >= 1 or None, default None -- 1000 iterations ("subgradient", whose best value
        improves in rare small steps near a kink of L) or 30 epochs ("sgd")
    batch_size : int >= 1, default 1 ("sgd" only)
    fit_intercept : bool, default True
    random_state : None or int ("sgd" permutations)

    Attributes
    ----------
    coef_ (d,), intercept_, loss_history_, best_loss_history_ (L in standardized units: 1 at w = 0, b = 0),
    n_iter_, converged_, n_features_in_

    scikit-learn equivalent of the objective: ``QuantileRegressor(quantile=0.5, alpha=0)`` (an LP solver);
    the tests compare with the LP of least absolute deviations (``scipy.optimize.linprog``).
    """

    _constraints = {
        "solver": Options(set(_SOLVERS)),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "n_iter_no_change": (None, Interval(int, 1, None)),
        "batch_size": Interval(int, 1, None),
        "fit_intercept": Boolean(),
    }
    _stochastic = True

    def __init__(
        self,
        solver="subgradient",
        learning_rate=0.1,
        max_iter=20000,
        tol=1e-7,
        n_iter_no_change=None,
        batch_size=1,
        fit_intercept=True,
        random_state=None,
    ):
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.batch_size = batch_size
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def fit(self, X, y):
        """Minimize the MAE by subgradient steps; returns ``self`` with the best iterate."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        x_mean = X.mean(axis=0) if self.fit_intercept else np.zeros(d)
        x_std = X.std(axis=0) if self.fit_intercept else np.sqrt(np.mean(X**2, axis=0))
        x_std = np.where(x_std > 0, x_std, 1.0)
        y_med = float(np.median(y)) if self.fit_intercept else 0.0
        y_scale = float(np.mean(np.abs(y - y_med)))
        y_scale = y_scale if y_scale > 0 else 1.0
        Z = (X - x_mean) / x_std
        if self.fit_intercept:
            Z = np.column_stack([Z, np.ones(n)])
        t = (y - y_med) / y_scale
        theta, history, best_history, n_iter, converged = self._descend(Z, t, rng)
        w = theta[:d] * y_scale / x_std
        self.coef_ = w
        self.intercept_ = float(y_med + y_scale * (theta[d] if self.fit_intercept else 0.0) - x_mean @ w)
        self.loss_history_ = np.asarray(history)
        self.best_loss_history_ = np.asarray(best_history)
        self.n_iter_ = n_iter
        self.converged_ = converged
        self.n_features_in_ = d
        if not converged:
            warnings.warn(
                f"MAERegression({self.solver!r}) stopped at max_iter={self.max_iter} while the best MAE still "
                f"improved by more than tol={self.tol:g} within {self._patience()} "
                f"{'iterations' if self.solver == 'subgradient' else 'epochs'}; increase max_iter",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _patience(self) -> int:
        if self.n_iter_no_change is not None:
            return int(self.n_iter_no_change)
        return 1000 if self.solver == "subgradient" else 30

    def _descend(self, Z, t, rng):
        n, p = Z.shape
        theta = np.zeros(p)
        best_theta, best = theta.copy(), float(np.mean(np.abs(t)))
        history, best_history = [best], [best]
        eta0, tol = float(self.learning_rate), float(self.tol)
        patience = self._patience()
        batch = n if self.solver == "subgradient" else min(int(self.batch_size), n)
        stall, step, converged, it = 0, 0, False, 0
        for it in range(1, int(self.max_iter) + 1):
            order = np.arange(n) if batch == n else rng.permutation(n)
            mean_theta = np.zeros(p)
            for k, start in enumerate(range(0, n, batch)):
                idx = order[start : start + batch]
                g = -(Z[idx].T @ np.sign(t[idx] - Z[idx] @ theta)) / idx.size  # EPFL: g = -(1/N) X^T sign(e)
                theta = theta - eta0 / np.sqrt(step + 1.0) * g
                mean_theta += (theta - mean_theta) / (k + 1)
                step += 1
            if batch < n:  # stochastic: the epoch's average iterate is the candidate (averaging the noise)
                theta = mean_theta
            value = float(np.mean(np.abs(t - Z @ theta)))
            if not np.isfinite(value):
                raise DivergenceError(f"MAERegression: the MAE became {value} at iteration {it}")
            history.append(value)
            if value < best - tol * max(1.0, best):
                stall = 0
            else:
                stall += 1
            if value < best:
                best, best_theta = value, theta.copy()
            best_history.append(best)
            if stall >= patience:
                converged = True
                break
        return best_theta, history, best_history, it, converged

    def predict(self, X):
        """``X w + b``."""
        X = self._validate_predict_input(X)
        return X @ self.coef_ + self.intercept_
