"""Radial-basis-function networks (CIML §10.6)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, Options
from ...base import BaseEstimator
from ...exceptions import DivergenceError
from ...linalg import sq_euclidean
from ...validation import check_random_state, check_X_y
from ._common import TASK_CONSTRAINT, TaskMixin


class RBFNetwork(TaskMixin, BaseEstimator):
    """Two-layer network with Gaussian-bump hidden units (CIML §10.6, eq. 10.14, seed 001 L3562-3580).

    Model: ``h_i(x) = exp(-gamma_i ||w_i - x||^2)`` (eq. 10.14), ``f(x) = v . h(x) + b``: the hidden
    units are bumps centred at ``w_i`` with widths ``gamma_i``, the output is linear (Alg. 25 with
    tanh replaced by the RBF).

    Centres (the text's "where should the bumps be centered?"): ``centers="data"`` puts one unit on
    each training point (or on ``n_centers`` of them, drawn at random) — "one RBF unit per data
    point" (L3578); ``"kmeans"`` uses the means of a few Lloyd iterations from such a draw. Widths
    start at ``gamma`` (None: 1 / (d Var X), the rbf kernel's default).

    Output weights: ``solver="ridge"`` solves min ||H v + b - y||^2 + alpha ||v||^2 in closed form
    (centres and widths fixed); ``solver="gd"`` then refines v, b, the centres w_i and log gamma_i
    together by full-batch gradient descent (back-propagation, L3574) on the mean squared error
    (1/(2n)) sum (f(x_n) - y_n)^2 + (alpha/(2n)) ||v||^2, with step ``learning_rate`` for ``max_iter``
    steps; ``solver="vote"`` sets v_i = y_i and normalizes, f(x) = sum_i y_i h_i(x) / sum_i h_i(x) —
    the distance-weighted KNN the text compares it with (L3578); large gamma gives 1-NN.

    Classification: one output per class (one-vs-rest on +-1 targets, as kernel ridge), argmax.

    Parameters
    ----------
    n_centers : int or None (all training points); centers : "data" or "kmeans"; gamma : float or None;
    alpha : float >= 0 (ridge penalty on v); solver : "ridge", "gd" or "vote"; learning_rate, max_iter,
    tol (stop when the loss improves by less than tol); task; random_state.

    Attributes
    ----------
    centers_ (m, d); gamma_ (m,) widths; coef_ (m, n_outputs) v; intercept_ (n_outputs,);
    loss_history_ (solver="gd"); n_iter_; classes_; n_features_in_.

    scikit-learn has no RBF network; ``solver="ridge"`` is ``Ridge(alpha)`` (with intercept) on the
    hidden-unit features ``rbf_kernel(X, centers_, gamma)`` (a test checks it).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_centers": (None, Interval(int, 1, None)),
        "centers": Options({"data", "kmeans"}),
        "gamma": (None, Interval(float, 0.0, None, closed="neither")),
        "alpha": Interval(float, 0.0, None),
        "solver": Options({"ridge", "gd", "vote"}),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 0, None),
        "tol": Interval(float, 0.0, None),
        "task": TASK_CONSTRAINT,
    }

    def __init__(
        self,
        n_centers=None,
        centers="data",
        gamma=None,
        alpha=1e-3,
        solver="ridge",
        learning_rate=0.1,
        max_iter=200,
        tol=1e-8,
        task="classification",
        random_state=None,
    ):
        self.n_centers = n_centers
        self.centers = centers
        self.gamma = gamma
        self.alpha = alpha
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.task = task
        self.random_state = random_state

    def _hidden(self, X, centers, gamma):
        return np.exp(-gamma[None, :] * sq_euclidean(X, centers))

    def fit(self, X, y):
        """Place the centres, then fit the output layer (and, with solver="gd", everything); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        n, d = X.shape
        rng = check_random_state(self.random_state)
        Y = self._encode_targets(y)
        m = n if self.n_centers is None else min(int(self.n_centers), n)
        rows = np.sort(rng.choice(n, size=m, replace=False)) if m < n else np.arange(n)
        C = X[rows].copy()
        if self.centers == "kmeans":
            if self.solver == "vote":
                raise ValueError("solver='vote' puts each training label on its own point: use centers='data'")
            for _ in range(20):  # Lloyd iterations from the random draw
                z = np.argmin(sq_euclidean(X, C), axis=1)
                for j in range(m):
                    if np.any(z == j):
                        C[j] = X[z == j].mean(axis=0)
        var = X.var()
        g0 = float(self.gamma) if self.gamma is not None else (1.0 / (d * var) if var > 0 else 1.0)
        gamma = np.full(m, g0)
        H = self._hidden(X, C, gamma)
        if self.solver == "vote":
            v, b = Y[rows].copy(), np.zeros(Y.shape[1])
        else:
            v, b = self._ridge(H, Y)
        self.loss_history_ = []
        self.n_iter_ = 0
        if self.solver == "gd":
            C, gamma, v, b = self._backprop(X, Y, C, gamma, v, b)
        self.centers_, self.gamma_, self.coef_, self.intercept_ = C, gamma, v, b
        self.n_features_in_ = d
        return self

    def _ridge(self, H, Y):
        Hm, Ym = H.mean(axis=0), Y.mean(axis=0)
        Hc = H - Hm
        A = Hc.T @ Hc
        A.flat[:: A.shape[0] + 1] += self.alpha
        v = np.linalg.lstsq(A, Hc.T @ (Y - Ym), rcond=None)[0]
        return v, Ym - Hm @ v

    def _loss_and_grads(self, X, Y, C, log_g, v, b):
        n = X.shape[0]
        g = np.exp(log_g)
        D2 = sq_euclidean(X, C)
        H = np.exp(-g[None, :] * D2)
        E = H @ v + b - Y  # (n, k) residuals
        loss = 0.5 * np.sum(E**2) / n + 0.5 * self.alpha * np.sum(v**2) / n
        gv = H.T @ E / n + self.alpha * v / n
        gb = E.sum(axis=0) / n
        G = (E @ v.T) * H  # dL/dh_i times dh/d(-g D2): (n, m)
        g_logg = -np.sum(G * D2, axis=0) * g / n  # d/d log g_i
        # d h_i / d w_i = h_i * 2 g_i (x - w_i)
        gC = 2.0 * g[:, None] * (G.T @ X - G.sum(axis=0)[:, None] * C) / n
        return loss, gC, g_logg, gv, gb

    def _backprop(self, X, Y, C, gamma, v, b):
        """Gradient descent on (C, log gamma, v, b); a step that raises the loss is undone and the
        step size halved (so ``loss_history_`` never increases)."""
        params = [C, np.log(gamma), v, b]
        lr = float(self.learning_rate)
        loss, *grads = self._loss_and_grads(X, Y, *params)
        self.loss_history_.append(float(loss))
        for it in range(int(self.max_iter)):
            trial = [p - lr * g for p, g in zip(params, grads)]
            new_loss, *new_grads = self._loss_and_grads(X, Y, *trial)
            self.n_iter_ = it + 1
            if not np.isfinite(new_loss) or new_loss > loss:
                lr *= 0.5
                if lr < 1e-12:
                    raise DivergenceError(
                        f"RBFNetwork(solver='gd') could not decrease the loss; lower learning_rate={self.learning_rate}"
                    )
                continue
            done = loss - new_loss < self.tol * max(1.0, abs(loss))
            params, loss, grads = trial, new_loss, new_grads
            self.loss_history_.append(float(loss))
            if done:
                break
        C, log_g, v, b = params
        return C, np.exp(log_g), v, b

    def _scores(self, X):
        X = self._validate_predict_input(X)
        H = self._hidden(X, self.centers_, self.gamma_)
        if self.solver == "vote":
            s = H.sum(axis=1, keepdims=True)
            nearest = np.argmin(sq_euclidean(X, self.centers_), axis=1)
            out = np.empty((X.shape[0], self.coef_.shape[1]))
            ok = s[:, 0] > 1e-300
            out[ok] = (H[ok] @ self.coef_) / s[ok]
            out[~ok] = self.coef_[nearest[~ok]]  # every bump underflowed: the nearest centre decides (1-NN)
            return out
        return H @ self.coef_ + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        """f(x): (n,) for regression or two classes (positive = ``classes_[1]``), else (n, n_classes)."""
        self._require_classification("decision_function")
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        return self._scores_to_output(self._scores(X))
