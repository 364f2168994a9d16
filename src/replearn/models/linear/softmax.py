"""Softmax (multinomial logistic) regression fitted by Newton's method or batch gradient descent."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg.blas
from scipy.special import log_softmax, softmax

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning
from ...linalg import add_intercept, solve_spd
from ...optim import gradient_descent
from ...validation import check_classification_targets, check_X_y, dense

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

    Identifiability. The softmax is unchanged when the same vector is added to every ``(w_k, b_k)``, so
    only ``K - 1`` of the ``K`` parameter rows are free; the last one is tied to them:

    * ``penalty=None``: as in the notes (L869-873) the last class's parameters are fixed at 0
      (``Theta_K = 0``) and ``K - 1`` rows are fitted; ``coef_[-1]`` and ``intercept_[-1]`` are 0.
    * ``penalty="l2"``: at the optimum of the penalized objective the rows sum to zero (the gradient
      in a common shift ``v`` is ``sum_k (w_k + v) / C``), so the fit imposes ``Theta_K = -sum_{k<K}
      Theta_k`` exactly -- the same solution as scikit-learn's K free rows, with a Newton system of
      ``(K-1) p`` instead of ``K p`` unknowns (and a unique intercept: ``sum_k b_k = 0``).

    Solvers
    -------
    ``"newton"``: Newton's method with step halving (Armijo), as in ``logistic_regression``: the
    Hessian of the mean cross-entropy is ``sum_i (diag(p_i) - p_i p_i^T) (x) x_i x_i^T / n``, taken
    in the ``K - 1`` free rows and built from symmetric rank-k updates (see :func:`_hessian`); the
    step is solved by Cholesky. Stops when the max-abs entry of the gradient (in the free rows) is
    ``<= tol``. Both solvers start from ``W = 0`` with the intercepts of the intercept-only fit
    (``b_k = log n_k + const``), as the GLM's IRLS does.
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

    _accept_sparse = True  # densified for fitting; prediction keeps X sparse

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "penalty": (None, Options({"l2"})),
        "C": Interval(float, 0.0, None, closed="neither"),
        "solver": Options({"gd", "newton"}),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "fit_intercept": Boolean(),
    }

    def __init__(
        self, penalty="l2", C=1.0, solver="newton", learning_rate=0.5, max_iter=100, tol=1e-8, fit_intercept=True
    ):
        self.penalty = penalty
        self.C = C
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Fit the K weight vectors and intercepts; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        X = dense(X)
        classes = check_classification_targets(y)
        n, d = X.shape
        K = classes.size
        Xa = add_intercept(X) if self.fit_intercept else X
        p = Xa.shape[1]
        Y = np.zeros((n, K))
        Y[np.arange(n), np.searchsorted(classes, y)] = 1.0

        lam = np.zeros(p)  # penalty weight per coordinate of every class (0 on the intercept)
        if self.penalty == "l2":
            lam[:d] = 1.0 / (float(self.C) * n)
        # coding of the last class: Theta_K = c * sum_k V_k (see the class docstring)
        c = -1.0 if self.penalty == "l2" else 0.0

        if self.solver == "newton":
            v, history, n_iter, converged, gmax = self._newton(Xa, Y, lam, c)
        else:
            v, history, n_iter, converged, gmax = self._gd(Xa, Y, lam, c)
        if not converged:
            hint = (
                " With penalty=None this often means the classes are (quasi-)separable; use penalty='l2'."
                if (self.penalty is None)
                else ""
            )
            warnings.warn(
                f"SoftmaxRegression(solver={self.solver!r}) did not converge in {n_iter} iterations "
                f"(max |gradient| {gmax:.2e} > tol={self.tol:g}).{hint}",
                ConvergenceWarning,
                stacklevel=2,
            )
        Theta = _expand(v.reshape(K - 1, p), c)
        self.classes_ = classes
        self.coef_ = np.ascontiguousarray(Theta[:, :d])
        self.intercept_ = Theta[:, d].copy() if self.fit_intercept else np.zeros(K)
        self.n_iter_ = int(n_iter)
        self.loss_history_ = np.asarray(history)
        self.n_features_in_ = d
        return self

    # -- solvers -----------------------------------------------------------------------------------
    def _fun(self, v, Xa, Y, lam, c):
        f, g, P, Z = _objective(v, Xa, Y, lam, c)
        if self.penalty is None:
            _check_separable(Z, Y)
        return f, g, P

    def _newton(self, Xa, Y, lam, c):
        n, p = Xa.shape
        m = Y.shape[1] - 1
        v = _intercept_only_start(Xa, Y, c, self.fit_intercept)
        f, g, P = self._fun(v, Xa, Y, lam, c)
        penalty_hessian = np.kron(np.eye(m) + c * c * np.ones((m, m)), np.diag(lam))
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
            H = _hessian(Xa, P, c)
            H /= n
            H += penalty_hessian
            delta = solve_spd(H, -g, overwrite_a=True)
            slope = float(g @ delta)
            if not slope < 0.0:
                break
            step = 1.0
            while True:
                v_new = v + step * delta
                f_new, g_new, P_new = self._fun(v_new, Xa, Y, lam, c)
                if f_new <= f + 1e-4 * step * slope + 8 * _EPS * abs(f):
                    break
                step *= 0.5
                if step < 1e-10:
                    break
            if step < 1e-10:
                break
            v, f, g, P = v_new, f_new, g_new, P_new
            n_iter += 1
            history.append(f)
        return v, history, n_iter, converged, float(np.max(np.abs(g)))

    def _gd(self, Xa, Y, lam, c):
        res = gradient_descent(
            lambda v: self._fun(v, Xa, Y, lam, c)[:2],
            _intercept_only_start(Xa, Y, c, self.fit_intercept),
            learning_rate=self.learning_rate,
            max_iter=self.max_iter,
            tol=0.0,
            gtol=self.tol,
            warn=False,
        )
        return res.params, res.loss_history, res.n_iter, res.converged, res.grad_max

    # -- prediction --------------------------------------------------------------------------------
    def decision_function(self, X):
        """Class scores ``X @ coef_.T + intercept_``, shape (n, K); for two classes the (n,) log-odds
        ``score_1 - score_0`` (positive = ``classes_[1]``), as every binary classifier returns."""
        Z = self._scores(X)
        return Z[:, 1] - Z[:, 0] if Z.shape[1] == 2 else Z

    def _scores(self, X):
        X = self._validate_predict_input(X)
        return X @ self.coef_.T + self.intercept_

    def predict_log_proba(self, X):
        """Log posterior, shape (n, K)."""
        return log_softmax(self._scores(X), axis=1)

    def predict_proba(self, X):
        """Softmax of the scores, shape (n, K), columns in the order of ``classes_``."""
        return softmax(self._scores(X), axis=1)

    def predict(self, X):
        """Most probable class (ties go to the class that comes first in ``classes_``)."""
        scores = self._scores(X)  # validates X and fittedness first
        return self.classes_[np.argmax(scores, axis=1)]


def _expand(V: np.ndarray, c: float) -> np.ndarray:
    """The K x p parameter matrix from the K - 1 free rows: the last row is ``c * sum_k V_k``."""
    return np.vstack([V, c * V.sum(axis=0, keepdims=True)])


def _objective(v, Xa, Y, lam, c):
    """Mean cross-entropy + 1/2 sum_k lam . theta_k^2 at ``Theta = expand(V)``: (value, gradient in V, P, scores)."""
    n, p = Xa.shape
    K = Y.shape[1]
    Theta = _expand(v.reshape(K - 1, p), c)
    Z = Xa @ Theta.T
    logP = log_softmax(Z, axis=1)
    f = -float(np.sum(Y * logP)) / n + 0.5 * float(np.sum(lam * Theta * Theta))
    P = np.exp(logP)
    G = (P - Y).T @ Xa / n + lam * Theta  # gradient in Theta
    return f, (G[:-1] + c * G[-1]).ravel(), P, Z  # chain rule: d Theta_K / d V_k = c


def _intercept_only_start(Xa, Y, c, fit_intercept) -> np.ndarray:
    """Starting point ``W = 0`` with the intercepts of the intercept-only fit, ``b_k = log(n_k) + const``."""
    K = Y.shape[1]
    p = Xa.shape[1]
    V = np.zeros((K - 1, p))
    if fit_intercept:
        log_freq = np.log(np.maximum(Y.sum(axis=0), 0.5))  # a class absent from the data: a finite start
        # deviation coding (c = -1): centred log-frequencies; reference coding (c = 0): relative to the last class
        V[:, -1] = (log_freq - log_freq.mean())[:-1] if c != 0.0 else (log_freq - log_freq[-1])[:-1]
    return V.ravel()


def _check_separable(Z, Y) -> None:
    true = np.sum(Z * Y, axis=1)
    other = np.max(np.where(Y > 0, -np.inf, Z), axis=1)
    if np.all(true > other):
        raise ValueError(
            "the training data are linearly separable: with penalty=None the maximum-likelihood estimate "
            "does not exist and the weights grow without bound. Use penalty='l2' (a finite C)"
        )


def _hessian(Xa: np.ndarray, P: np.ndarray, c: float) -> np.ndarray:
    """Hessian of the summed cross-entropy in the free rows ``V`` ((K-1)p x (K-1)p, class-major blocks).

    With ``Theta = D V``, ``D = [I; c 1^T]``, it is ``sum_i D^T (diag(p_i) - p_i p_i^T) D (x) x_i x_i^T``, and
    ``D^T (diag(p) - p p^T) D = diag(p_{<K}) + c^2 p_K 1 1^T - q q^T`` with ``q = p_{<K} + c p_K 1``. So
    ``H = blockdiag_k(S_k) + c^2 (1 1^T (x) S_K) - A^T A`` with ``S_k = X^T diag(p_k) X`` and
    ``A = [X * q_1, ..., X * q_{K-1}]``; each Gram matrix is one BLAS ``syrk`` (half a general product).
    """
    n, p = Xa.shape
    m = P.shape[1] - 1
    q = P[:, :m] + c * P[:, m:]
    A = (q[:, :, None] * Xa[:, None, :]).reshape(n, m * p)
    H = -_gram(A)
    for k in range(m):
        blk = slice(k * p, (k + 1) * p)
        H[blk, blk] += _gram(Xa * np.sqrt(P[:, k : k + 1]))
    if c != 0.0:
        H += np.kron(np.ones((m, m)), c * c * _gram(Xa * np.sqrt(P[:, m:])))
    return H


def _gram(A: np.ndarray) -> np.ndarray:
    """``A^T A`` by BLAS ``dsyrk`` (upper triangle), mirrored to a full symmetric matrix."""
    C = scipy.linalg.blas.dsyrk(1.0, np.asfortranarray(A.T), trans=0, lower=0)
    return np.triu(C) + np.triu(C, 1).T
