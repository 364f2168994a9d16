"""FastText: a supervised linear classifier of bags of words through a low-rank factorization (EPFL notes).

The EPFL notes (seed 004 L1563-1575, "Text representations") present FastText as a matrix factorization
that is *supervised*: for sentences s_n with bag-of-words vectors x_n in R^|V| and labels y_n,

    min_{W, Z}  sum_n f(y_n W Z^T x_n)

with Z in R^{|V| x K} (one K-dimensional vector per word: ``components_``), W in R^{1 x K} for two classes
or R^{C x K} for C classes, and f "a linear classifier loss function, such as the logistic function or
hinge loss". The sentence representation is Z^T x_n (``transform``); the classifier's weight matrix
W Z^T has rank at most K, so K < min(C, |V|) is a real constraint, and K >= C makes it an ordinary
linear classifier (the tests check both).

Objective minimized here (the mean, with an optional L2 term on both factors and an unpenalized bias)::

    (1/n) sum_n f_n(W Z^T x_n + b) + alpha/2 (||W||_F^2 + ||Z||_F^2)

* two classes, y in {-1, +1}: ``loss="logistic"`` f = log(1 + e^{-y s}); ``loss="hinge"`` max(0, 1 - y s);
* C > 2 classes: ``"logistic"`` is the softmax cross-entropy (its multiclass form, what fastText uses);
  ``"hinge"`` is the Crammer-Singer hinge max(0, 1 + max_{c != y} s_c - s_y).

Training, from fastText's initialization (the word vectors Z uniform on [-1/K, 1/K] from ``random_state``,
W = 0):

* ``solver="lbfgs"`` (the default for the smooth logistic loss, ``solver="auto"``): the full objective and its
  gradient by L-BFGS (``scipy.optimize.minimize``, stopping at ``tol`` on the projected gradient),
  deterministic and fast; the hinge loss is not differentiable and is refused;
* ``solver="sgd"`` (the default for the hinge): mini-batch SGD over epochs, as fastText trains
  (:func:`replearn.optim.stochastic.stochastic_gradient_descent`: a fresh permutation each epoch, the stopping
  rule, :class:`~replearn.exceptions.DivergenceError` on NaN/inf or growth).

Either warns :class:`~replearn.exceptions.ConvergenceWarning` at ``max_iter`` (iterations of L-BFGS, epochs of
SGD). The objective is not convex (a product of factors); the tests check that both solvers reach the optimum
of the equivalent linear model where K is large enough. Scipy sparse bags of words are accepted.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit, log_softmax, softmax

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning, DivergenceError
from ...optim.stochastic import SCHEDULES, stochastic_gradient_descent
from ...validation import check_classification_targets, check_random_state, check_X_y

_LOSSES = ("logistic", "hinge")


class FastText(ClassifierMixin, BaseEstimator):
    """Supervised FastText (EPFL notes L1563-1575): the linear classifier W Z^T of rank K (module docstring).

    Parameters
    ----------
    n_components : int >= 1, default 10
        K, the dimension of the word and sentence vectors.
    loss : {"logistic", "hinge"}, default "logistic"
    solver : {"auto", "lbfgs", "sgd"}, default "auto" (L-BFGS for "logistic", SGD for "hinge")
    alpha : float >= 0, default 0.0
        L2 penalty on W and Z (the notes have none).
    learning_rate : float > 0, default 0.1
        SGD's first step.
    schedule : {"constant", "inverse", "inverse_sqrt"}, default "inverse_sqrt"
    decay : float >= 0, default 0.01
    batch_size : int >= 1, default 16
    max_iter : int >= 1, default 500 (L-BFGS iterations or SGD epochs)
    tol : float >= 0, default 1e-6
    n_iter_no_change : int >= 1, default 5
    fit_intercept : bool, default True
        One unpenalized bias per score (not in the notes' objective; a bag of words has no constant).
    random_state : None, int or numpy Generator

    Attributes
    ----------
    classes_ : array (n_classes,)
    components_ : array (n_features, K) -- Z, the word vectors
    class_vectors_ : array (1 or n_classes, K) -- W
    coef_ : array (1 or n_classes, n_features) -- W Z^T, the linear classifier
    intercept_ : array (1 or n_classes,)
    loss_history_ : array (n_iter_ + 1,) -- the objective after each epoch
    n_iter_ : int, n_features_in_ : int
    """

    _accept_sparse = True

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_components": Interval(int, 1, None),
        "loss": Options(set(_LOSSES)),
        "solver": Options({"auto", "lbfgs", "sgd"}),
        "alpha": Interval(float, 0.0, None),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "schedule": Options(set(SCHEDULES)),
        "decay": Interval(float, 0.0, None),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "n_iter_no_change": Interval(int, 1, None),
        "fit_intercept": Boolean(),
    }

    def __init__(
        self,
        n_components=10,
        loss="logistic",
        solver="auto",
        alpha=0.0,
        learning_rate=0.1,
        schedule="inverse_sqrt",
        decay=0.01,
        batch_size=16,
        max_iter=500,
        tol=1e-6,
        n_iter_no_change=5,
        fit_intercept=True,
        random_state=None,
    ):
        self.n_components = n_components
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.schedule = schedule
        self.decay = decay
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    # -- the objective ------------------------------------------------------------------------------------
    def _unpack(self, theta: np.ndarray, d: int, C: int):
        K = int(self.n_components)
        W = theta[: C * K].reshape(C, K)
        Z = theta[C * K : C * K + d * K].reshape(d, K)
        b = theta[C * K + d * K :]
        return W, Z, b

    def _loss_and_score_grad(self, S: np.ndarray, t: np.ndarray, need_grad: bool):
        """Mean loss of the scores ``S`` (n, C) for targets ``t`` (signs (n,) when C = 1, else class codes)
        and dL/dS (already divided by n)."""
        n = S.shape[0]
        if S.shape[1] == 1:
            m = t * S[:, 0]
            if self.loss == "logistic":
                loss = float(np.mean(np.logaddexp(0.0, -m)))
                g = -t * expit(-m) if need_grad else None
            else:
                loss = float(np.mean(np.maximum(0.0, 1.0 - m)))
                g = np.where(m < 1.0, -t, 0.0) if need_grad else None
            return loss, (None if g is None else (g / n)[:, None])
        rows = np.arange(n)
        if self.loss == "logistic":
            logp = log_softmax(S, axis=1)
            loss = float(-np.mean(logp[rows, t]))
            if not need_grad:
                return loss, None
            G = softmax(S, axis=1)
            G[rows, t] -= 1.0
            return loss, G / n
        other = S.copy()
        other[rows, t] = -np.inf
        rival = np.argmax(other, axis=1)
        margin = 1.0 + other[rows, rival] - S[rows, t]
        loss = float(np.mean(np.maximum(0.0, margin)))
        if not need_grad:
            return loss, None
        G = np.zeros_like(S)
        active = margin > 0
        G[rows[active], rival[active]] = 1.0
        G[rows[active], t[active]] -= 1.0
        return loss, G / n

    def _scores(self, X, W, Z, b):
        E = np.asarray(X @ Z)  # sentence vectors Z^T x_n, (n, K)
        return E, E @ W.T + b

    def fit(self, X, y):
        """Fit W, Z (and the biases) by mini-batch SGD; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, accept_sparse=True, estimator=self)
        self.classes_ = check_classification_targets(y)
        codes = np.searchsorted(self.classes_, y)
        n, d = X.shape
        C = 1 if self.classes_.size == 2 else int(self.classes_.size)
        K = int(self.n_components)
        t = np.where(codes == 1, 1.0, -1.0) if C == 1 else codes
        rng = check_random_state(self.random_state)
        theta0 = np.zeros(C * K + d * K + C)
        theta0[C * K : C * K + d * K] = rng.uniform(-1.0 / K, 1.0 / K, size=d * K)
        alpha = float(self.alpha)
        fit_b = bool(self.fit_intercept)

        def objective(theta):
            W, Z, b = self._unpack(theta, d, C)
            _, S = self._scores(X, W, Z, b)
            loss, _ = self._loss_and_score_grad(S, t, need_grad=False)
            return loss + 0.5 * alpha * (float(np.vdot(W, W)) + float(np.vdot(Z, Z)))

        def grad(theta, idx):
            W, Z, b = self._unpack(theta, d, C)
            Xb = X[idx]
            E, S = self._scores(Xb, W, Z, b)
            _, G = self._loss_and_score_grad(S, t[idx], need_grad=True)  # (B, C), mean over the batch
            gW = G.T @ E + alpha * W
            gZ = np.asarray(Xb.T @ (G @ W)) + alpha * Z
            gb = G.sum(axis=0) if fit_b else np.zeros(C)
            return np.concatenate([gW.ravel(), gZ.ravel(), gb])

        solver = ("lbfgs" if self.loss == "logistic" else "sgd") if self.solver == "auto" else self.solver
        if solver == "lbfgs" and self.loss == "hinge":
            raise ValueError(
                "solver='lbfgs' needs a differentiable loss; the hinge is not: use solver='sgd' (or 'auto')"
            )
        if solver == "lbfgs":
            theta, history, n_iter = self._lbfgs(objective, grad, theta0, n)
        else:
            res = stochastic_gradient_descent(
                grad,
                objective,
                theta0,
                n,
                learning_rate=self.learning_rate,
                batch_size=self.batch_size,
                schedule=self.schedule,
                decay=self.decay,
                max_epochs=self.max_iter,
                tol=self.tol,
                n_iter_no_change=self.n_iter_no_change,
                random_state=rng,
                name="FastText's SGD",
            )
            theta, history, n_iter = res.params, res.loss_history, res.n_iter
        W, Z, b = self._unpack(theta, d, C)
        self.class_vectors_ = W.copy()
        self.components_ = Z.copy()
        self.coef_ = W @ Z.T
        self.intercept_ = b.copy()
        self.loss_history_ = np.asarray(history, dtype=np.float64)
        self.n_iter_ = int(n_iter)
        self.n_features_in_ = d
        return self

    def _lbfgs(self, objective, grad, theta0, n):
        """Full-batch L-BFGS on the mean objective; returns (theta, objective per iteration, iterations)."""
        from scipy.optimize import minimize

        every = np.arange(n)
        history = [objective(theta0)]

        def fun(theta):
            return objective(theta), grad(theta, every)

        with np.errstate(over="ignore", invalid="ignore"):
            res = minimize(
                fun,
                theta0,
                jac=True,
                method="L-BFGS-B",
                callback=lambda th: history.append(objective(th)),
                options={"maxiter": int(self.max_iter), "gtol": float(self.tol), "ftol": 1e-15},
            )
        if not np.all(np.isfinite(res.x)) or not np.isfinite(res.fun):
            raise DivergenceError("FastText's L-BFGS reached NaN or infinite parameters; standardize the features")
        if res.status == 1:
            warnings.warn(
                f"FastText's L-BFGS did not converge in max_iter={self.max_iter} iterations "
                f"(max |gradient| {np.max(np.abs(res.jac)):.2e} > tol={self.tol:g}); increase max_iter",
                ConvergenceWarning,
                stacklevel=3,
            )
        return res.x, history, int(res.nit)

    # -- prediction ---------------------------------------------------------------------------------------
    def transform(self, X) -> np.ndarray:
        """The sentence vectors Z^T x (n, K)."""
        X = self._validate_predict_input(X)
        return np.asarray(X @ self.components_)

    def decision_function(self, X):
        """Scores ``W Z^T x + b``: (n,) for two classes, (n, n_classes) otherwise."""
        X = self._validate_predict_input(X)
        S = np.asarray(X @ self.coef_.T) + self.intercept_
        return S[:, 0] if S.shape[1] == 1 else S

    def predict_proba(self, X):
        """Class probabilities: the sigmoid / softmax of the scores (``loss="logistic"``; a hinge-trained
        model's scores are not probabilities, and it raises ``AttributeError``)."""
        if self.loss != "logistic":
            raise AttributeError("predict_proba needs loss='logistic' (the hinge loss gives no probabilities)")
        S = self.decision_function(X)
        if S.ndim == 1:
            p = expit(S)
            return np.column_stack([1.0 - p, p])
        return softmax(S, axis=1)

    def predict(self, X):
        """The class with the largest score (``classes_[1]`` where the two-class score is > 0)."""
        S = self.decision_function(X)
        if S.ndim == 1:
            return self.classes_[(S > 0).astype(np.intp)]
        return self.classes_[np.argmax(S, axis=1)]
