"""Softmax (multinomial logistic) regression fitted by Newton's method or batch gradient descent."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.special import log_softmax, softmax

from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning
from ...linalg import add_intercept, solve_spd
from ...optim import gradient_descent
from ...validation import check_classification_targets, check_scalar, check_X_y

_SOLVERS = ("gd", "newton")
_EPS = np.finfo(np.float64).eps


class SoftmaxRegression(ClassifierMixin, BaseEstimator):
    """Multiclass logistic regression with the softmax response (CS229 notes §3.2.3, seed 000 L839-961).

    Model: ``p(y = k | x) = exp(w_k^T x + b_k) / sum_j exp(w_j^T x + b_j)`` -- the GLM of the
    multinomial distribution with its canonical response (the softmax). Objective (scikit-learn's
    ``LogisticRegression`` multinomial convention)::

        minimize_W  C * sum_i -log p(y_i | x_i) + 1/2 ||W||_F^2      (penalty="l2")
        minimize_W  sum_i -log p(y_i | x_i)                          (penalty=None)

    -- the negative log-likelihood of the notes (L905-961; cross-entropy loss, CS229 summaries §4.4,
    seed 002 L713-749). The intercepts are never penalized. Both solvers work with the objective
    divided by ``C n`` (the mean cross-entropy plus ``||W||^2 / (2 C n)``); ``loss_history_`` and
    ``tol`` refer to that scaled objective.

    Identifiability. The softmax is unchanged when the same vector is added to every ``(w_k, b_k)``.

    * ``penalty=None``: as in the notes (L869-873) the last class's parameters are fixed at 0 and
      ``K - 1`` vectors are fitted; ``coef_[-1]`` and ``intercept_[-1]`` are 0.
    * ``penalty="l2"``: the penalty fixes the weights (all ``K`` rows are fitted, as scikit-learn
      does), but not a common shift of the unpenalized intercepts, so the last intercept is fixed
      during the fit and the intercepts are centred (``sum_k b_k = 0``) at the end.

    Solvers
    -------
    ``"newton"``: Newton's method with step halving (Armijo), as in ``logistic_regression``: the
    Hessian of the mean cross-entropy is ``sum_i (diag(p_i) - p_i p_i^T) (x) x_i x_i^T / n``, built as
    ``blockdiag_k(X^T diag(p_k) X) - A^T A`` with ``A = [X * p_1, ..., X * p_K]`` (one GEMM), and
    the step is solved by Cholesky. Stops when the max-abs entry of the gradient is ``<= tol``.
    ``"gd"``: batch gradient descent with step ``learning_rate`` (the notes' gradient ascent on the
    log-likelihood, L955-961), via :func:`replearn.optim.gradient_descent`.

    With ``penalty=None`` and data that some iterate classifies strictly correctly (a proof of
    linear separability) the maximum-likelihood estimate does not exist and ``fit`` raises
    ``ValueError`` suggesting ``penalty="l2"``.

    For two classes, ``penalty="l2"`` with ``C`` is binary logistic regression with ``2 C`` (the
    weight difference ``w_1 - w_0 = 2 w_1`` carries half the penalty), and ``penalty=None`` is
    exactly unpenalized logistic regression.

    Parameters
    ----------
    penalty : {"l2", None}, default "l2"
    C : float > 0, default 1.0
    solver : {"newton", "gd"}, default "newton"
    learning_rate : float > 0, default 0.5
        Step size of ``"gd"``.
    max_iter : int >= 1, default 100
    tol : float >= 0, default 1e-8
    fit_intercept : bool, default True

    Attributes
    ----------
    classes_ : array (K,)
    coef_ : array (K, n_features)
    intercept_ : array (K,)
    n_iter_ : int
    loss_history_ : array (n_iter_ + 1,)
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.linear_model.LogisticRegression(C=C, solver="lbfgs")`` (which
    is multinomial for more than two classes); with ``penalty=None`` the reference has its own
    (non-unique) parametrization but the same probabilities.
    """

    def __init__(self, penalty="l2", C=1.0, solver="newton", learning_rate=0.5, max_iter=100, tol=1e-8,
                 fit_intercept=True):
        self.penalty = penalty
        self.C = C
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Fit the K weight vectors and intercepts; returns ``self``."""
        if self.penalty not in ("l2", None):
            raise ValueError(f"penalty must be one of ['l2', None], got {self.penalty!r}")
        check_scalar(self.solver, "solver", str, choices=_SOLVERS)
        check_scalar(self.C, "C", numbers.Real, low=0.0, low_inclusive=False)
        check_scalar(self.max_iter, "max_iter", numbers.Integral, low=1)
        check_scalar(self.tol, "tol", numbers.Real, low=0.0)
        check_scalar(self.fit_intercept, "fit_intercept", bool, choices=(True, False))
        if self.solver == "gd":
            check_scalar(self.learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
        X, y = check_X_y(X, y)
        classes = check_classification_targets(y)
        n, d = X.shape
        K = classes.size
        Xa = add_intercept(X) if self.fit_intercept else X
        p = Xa.shape[1]
        Y = np.zeros((n, K))
        Y[np.arange(n), np.searchsorted(classes, y)] = 1.0

        free = np.ones((K, p), dtype=bool)  # which entries of Theta (K x p) are optimized
        lam = np.zeros((K, p))
        if self.penalty == "l2":
            lam[:, :d] = 1.0 / (float(self.C) * n)
            if self.fit_intercept:
                free[K - 1, d] = False
        else:
            free[K - 1, :] = False
        self._free = free.ravel()

        if self.solver == "newton":
            theta, history, n_iter, converged, gmax = self._newton(Xa, Y, lam)
        else:
            theta, history, n_iter, converged, gmax = self._gd(Xa, Y, lam)
        if not converged:
            hint = " With penalty=None this often means the classes are (quasi-)separable; use penalty='l2'." if (
                self.penalty is None) else ""
            warnings.warn(
                f"SoftmaxRegression(solver={self.solver!r}) did not converge in {n_iter} iterations "
                f"(max |gradient| {gmax:.2e} > tol={self.tol:g}).{hint}",
                ConvergenceWarning,
                stacklevel=2,
            )
        Theta = theta.reshape(K, p)
        self.classes_ = classes
        self.coef_ = np.ascontiguousarray(Theta[:, :d])
        if self.fit_intercept:
            b = Theta[:, d].copy()
            self.intercept_ = b - b.mean() if self.penalty == "l2" else b
        else:
            self.intercept_ = np.zeros(K)
        self.n_iter_ = int(n_iter)
        self.loss_history_ = np.asarray(history)
        self.n_features_in_ = d
        del self._free
        return self

    # -- objective ---------------------------------------------------------------------------------
    def _fun(self, theta, Xa, Y, lam):
        K, p = lam.shape
        Theta = theta.reshape(K, p)
        Z = Xa @ Theta.T
        logP = log_softmax(Z, axis=1)
        f = -float(np.sum(Y * logP)) / Xa.shape[0] + 0.5 * float(np.sum(lam * Theta * Theta))
        P = np.exp(logP)
        G = (P - Y).T @ Xa / Xa.shape[0] + lam * Theta
        g = G.ravel() * self._free
        self._check_separable(Z, Y)
        return f, g, P

    def _check_separable(self, Z, Y) -> None:
        if self.penalty is not None:
            return
        true = np.sum(Z * Y, axis=1)
        other = np.max(np.where(Y > 0, -np.inf, Z), axis=1)
        if np.all(true > other):
            raise ValueError(
                "the training data are linearly separable: with penalty=None the maximum-likelihood estimate "
                "does not exist and the weights grow without bound. Use penalty='l2' (a finite C)"
            )

    def _newton(self, Xa, Y, lam):
        n, p = Xa.shape
        K = Y.shape[1]
        free = self._free
        theta = np.zeros(K * p)
        f, g, P = self._fun(theta, Xa, Y, lam)
        history = [f]
        n_iter = 0
        converged = False
        while True:
            gmax = float(np.max(np.abs(g)))
            if gmax <= self.tol:
                converged = True
                break
            if n_iter >= self.max_iter:
                break
            H = _hessian(Xa, P) / n
            H.flat[:: K * p + 1] += lam.ravel()
            Hf = H[np.ix_(free, free)]
            delta = np.zeros(K * p)
            delta[free] = solve_spd(Hf, -g[free], overwrite_a=True)
            slope = float(g @ delta)
            if not slope < 0.0:
                break
            step = 1.0
            while True:
                theta_new = theta + step * delta
                f_new, g_new, P_new = self._fun(theta_new, Xa, Y, lam)
                if f_new <= f + 1e-4 * step * slope + 8 * _EPS * abs(f):
                    break
                step *= 0.5
                if step < 1e-10:
                    break
            if step < 1e-10:
                break
            theta, f, g, P = theta_new, f_new, g_new, P_new
            n_iter += 1
            history.append(f)
        return theta, history, n_iter, converged, float(np.max(np.abs(g)))

    def _gd(self, Xa, Y, lam):
        K = Y.shape[1]
        res = gradient_descent(
            lambda th: self._fun(th, Xa, Y, lam)[:2],
            np.zeros(K * Xa.shape[1]),
            learning_rate=self.learning_rate,
            max_iter=self.max_iter,
            tol=0.0,
            gtol=self.tol,
            warn=False,
        )
        return res.params, res.loss_history, res.n_iter, res.converged, res.grad_max

    # -- prediction --------------------------------------------------------------------------------
    def decision_function(self, X):
        """Class scores ``X @ coef_.T + intercept_``, shape (n, K)."""
        X = self._validate_predict_input(X)
        return X @ self.coef_.T + self.intercept_

    def predict_log_proba(self, X):
        """Log posterior, shape (n, K)."""
        return log_softmax(self.decision_function(X), axis=1)

    def predict_proba(self, X):
        """Softmax of the scores, shape (n, K), columns in the order of ``classes_``."""
        return softmax(self.decision_function(X), axis=1)

    def predict(self, X):
        """Most probable class (ties go to the class that comes first in ``classes_``)."""
        scores = self.decision_function(X)  # validates X and fittedness first
        return self.classes_[np.argmax(scores, axis=1)]


def _hessian(Xa: np.ndarray, P: np.ndarray) -> np.ndarray:
    """``sum_i (diag(p_i) - p_i p_i^T) (x) x_i x_i^T`` (Kp x Kp, class-major blocks), unscaled."""
    n, p = Xa.shape
    K = P.shape[1]
    A = (P[:, :, None] * Xa[:, None, :]).reshape(n, K * p)  # [X * p_1, ..., X * p_K]
    H = -(A.T @ A)
    for k in range(K):
        blk = slice(k * p, (k + 1) * p)
        H[blk, blk] += Xa.T @ (Xa * P[:, k : k + 1])
    return H
