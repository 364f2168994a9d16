"""Logistic regression fitted by Newton's method (IRLS) or batch gradient descent."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning
from ...linalg import add_intercept, solve_spd
from ...optim import gradient_descent
from ...optim.proximal import proximal_gradient, soft_threshold
from ...optim.stochastic import SCHEDULES, stochastic_gradient_descent
from ...validation import (
    check_classification_targets,
    check_random_state,
    check_X_y,
    dense,
)
from ._binary import LinearScoresMixin, binary_problems, store_fit

_SOLVERS = ("gd", "newton", "sga")
_PENALTIES = ("l1", "l2", None)
_EPS = np.finfo(np.float64).eps


class LogisticRegression(LinearScoresMixin, ClassifierMixin, BaseEstimator):
    """Binary logistic regression (one-vs-rest for more classes), optionally L2- or L1-penalized.

    Model (CS229 notes §2.1, seed 000 L503-592): ``p(y=1 | x) = g(w^T x + b)`` with the sigmoid
    ``g(z) = 1 / (1 + e^{-z})``. The objective is scikit-learn's::

        minimize_{w, b}  C * sum_i logloss_i + 1/2 ||w||^2          (penalty="l2")
        minimize_{w, b}  C * sum_i logloss_i + ||w||_1              (penalty="l1")
        minimize_{w, b}  sum_i logloss_i                            (penalty=None)

    with ``logloss_i = log(1 + e^{z_i}) - y_i z_i``, ``z_i = w^T x_i + b``, ``y_i in {0, 1}``: the
    negative log-likelihood of the notes. The intercept is never penalized. Internally both
    solvers work with the same objective divided by ``C n`` (the mean loss plus
    ``||w||^2 / (2 C n)`` or ``||w||_1 / (C n)``, scikit-learn's internal scaling); ``loss_history_``
    and ``tol`` refer to that scaled objective. The L2 penalty is the MAP estimate under a Gaussian
    prior ``w ~ N(0, C I)`` (CS229 notes §9.4, seed 000 L4118-4124; CIML §9.7 eq. 9.48, seed 001
    L3214-3230); the L1 penalty is the MAP estimate under a Laplace prior (CIML §9.7) and gives
    sparse weights.

    Solvers
    -------
    ``"newton"``: Newton's method, which for logistic regression is Fisher scoring / IRLS
    (CS229 notes §2.3, seed 000 L614-663): ``theta := theta - H^{-1} grad`` with
    ``H = X^T S X + I/C`` (``S = diag(p_i (1 - p_i))``; the intercept's row/column has no ``I/C``
    term; shown here in the ``C * sum`` scaling). The step is solved by Cholesky (never an explicit
    inverse) and damped by step halving (Armijo backtracking), so every iteration decreases the
    objective; convergence is quadratic near the optimum, typically under 10 iterations. Stops when
    ``max |grad| <= tol`` (gradient of the scaled objective).

    ``"gd"``: batch gradient descent on the scaled objective via :func:`replearn.optim.gradient_descent`
    with step ``learning_rate`` -- the notes' batch gradient *ascent* on the (mean, penalized)
    log-likelihood, ``theta := theta + alpha * grad l(theta)`` (L503-592), written as descent on
    its negative. Stops when ``max |grad| <= tol``; warns ConvergenceWarning at ``max_iter``.
    With ``penalty="l1"`` the step is a proximal-gradient step -- gradient step on the smooth part,
    then soft thresholding ``S(theta, learning_rate / (C n))`` of the weights -- accelerated by
    Nesterov momentum with monotone restarts (FISTA, :func:`replearn.optim.proximal.proximal_gradient`),
    and the stopping measure is the largest entry of the minimum-norm subgradient.

    ``"sga"``: stochastic gradient ascent (CS229 notes §2.1, seed 000 L580-592:
    ``theta_j := theta_j + alpha (y_i - h(x_i)) x_ij`` one example at a time), via
    :func:`replearn.optim.stochastic.stochastic_gradient_descent`: batches of ``batch_size`` examples
    (1 = the notes' rule), reshuffled every epoch from ``random_state``, step
    ``learning_rate`` decayed by ``schedule``/``decay``; the penalty's gradient is added in full at
    every step (its per-example share of the mean objective). With ``penalty="l1"`` each step is
    followed by soft thresholding -- CIML's truncated gradient (§14.3, seed 001 L4412-4428) in the
    corrected form of its erratum 16 (set the *weight* to 0 when the step would cross 0, not the
    gradient). ``max_iter`` counts epochs; ``loss_history_`` is the scaled objective after each
    epoch; it stops when that has not improved by ``tol * max(|best|, 1)`` for 5 epochs.

    ``penalty="l1"`` needs ``solver="gd"`` or ``"sga"``: Newton's method needs a twice
    differentiable objective and raises ``ValueError`` with ``"l1"``.

    Labels and classes
    ------------------
    Labels may be of any sortable type; ``classes_`` is their sorted unique values and the binary
    problem models ``p(y = classes_[1] | x)``. With K > 2 classes the model fits K binary problems
    "class k vs the rest" (one-vs-rest, CIML §6.2); ``predict_proba`` normalizes the K sigmoids to
    sum to 1 and ``predict`` takes the largest (as ``sklearn.multiclass.OneVsRestClassifier`` does).

    Separable data
    --------------
    With ``penalty=None`` and linearly separable classes the maximum-likelihood estimate does not
    exist (the loss goes to 0 as ``||w|| -> inf``). When an iterate separates the training data
    strictly -- a proof that it is separable -- ``fit`` raises ``ValueError`` suggesting
    ``penalty="l2"``. Quasi-separable data (some points exactly on the boundary) instead shows as a
    ConvergenceWarning whose message mentions separability.

    Parameters
    ----------
    penalty : {"l2", "l1", None}, default "l2"
    C : float > 0, default 1.0
        Inverse penalty strength (ignored when ``penalty=None``).
    solver : {"newton", "gd", "sga"}, default "newton"
    learning_rate : float > 0, default 0.1
        Step size of ``"gd"``; initial step of ``"sga"``.
    max_iter : int >= 1, default 100
        Iteration cap per binary problem (``"gd"`` usually needs thousands); epochs for ``"sga"``.
    tol : float >= 0, default 1e-8
        Gradient tolerance (max-abs entry of the gradient of the scaled objective); for ``"sga"``,
        the objective-improvement tolerance.
    fit_intercept : bool, default True
    batch_size : int >= 1, default 1
        Examples per ``"sga"`` step.
    schedule : {"constant", "inverse", "inverse_sqrt"}, default "constant"
        ``"sga"`` step-size schedule (see :mod:`replearn.optim.stochastic`).
    decay : float >= 0, default 1.0
    random_state : None, int or numpy Generator
        Seeds the ``"sga"`` per-epoch permutations.

    Attributes
    ----------
    classes_ : array (n_classes,)
    coef_ : array (1, n_features) for two classes, (n_classes, n_features) otherwise
    intercept_ : array (1,) or (n_classes,)
    n_iter_ : int array (1,) or (n_classes,)
        Iterations per binary problem.
    loss_history_ : float array (n_problems, max(n_iter_) + 1)
        Scaled objective after each iteration, starting at ``theta = 0``; rows of problems that
        stopped earlier are padded with NaN.
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.linear_model.LogisticRegression(C=C, penalty=...,
    solver="newton-cholesky")`` for two classes, wrapped in ``OneVsRestClassifier`` for more; with
    ``penalty="l1"``: ``LogisticRegression(C=C, l1_ratio=1, solver="saga")`` (``liblinear`` also
    penalizes the intercept, so it solves a slightly different problem).
    """

    _accept_sparse = True  # densified for fitting; prediction keeps X sparse

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "penalty": (None, Options({"l1", "l2"})),
        "C": Interval(float, 0.0, None, closed="neither"),
        "solver": Options({"gd", "newton", "sga"}),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "fit_intercept": Boolean(),
        "schedule": Options(set(SCHEDULES)),
        "decay": Interval(float, 0.0, None),
    }

    def __init__(
        self,
        penalty="l2",
        C=1.0,
        solver="newton",
        learning_rate=0.1,
        max_iter=100,
        tol=1e-8,
        fit_intercept=True,
        batch_size=1,
        schedule="constant",
        decay=1.0,
        random_state=None,
    ):
        self.penalty = penalty
        self.C = C
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.batch_size = batch_size
        self.schedule = schedule
        self.decay = decay
        self.random_state = random_state

    # -- fitting ----------------------------------------------------------------------------------
    def _validate_params(self) -> None:
        super()._validate_params()  # the declared table; then the combinations it cannot express
        if self.penalty == "l1" and self.solver == "newton":
            raise ValueError(
                "penalty='l1' needs solver='gd' (proximal gradient) or solver='sga' (truncated gradient): "
                "Newton's method needs a twice-differentiable objective"
            )

    def fit(self, X, y):
        """Fit one binary problem (two classes) or one per class (one-vs-rest); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        X = dense(X)
        classes = check_classification_targets(y)
        n, d = X.shape
        Xa = add_intercept(X) if self.fit_intercept else X
        # per-coordinate penalty weight of the scaled objective: 1/(C n) on w, 0 on b
        lam = np.zeros(Xa.shape[1])
        lam1 = np.zeros(Xa.shape[1])
        if self.penalty == "l2":
            lam[:d] = 1.0 / (float(self.C) * n)
        elif self.penalty == "l1":
            lam1[:d] = 1.0 / (float(self.C) * n)
        rng = check_random_state(self.random_state) if self.solver == "sga" else None

        thetas, histories, n_iters = [], [], []
        for t, label in binary_problems(y, classes):
            t = t.astype(np.float64)
            if self.solver == "newton":
                theta, history, n_iter = self._newton(Xa, t, lam, label)
            elif self.solver == "sga":
                theta, history, n_iter = self._stochastic(Xa, t, lam, lam1, label, rng)
            elif self.penalty == "l1":
                theta, history, n_iter = self._proximal(Xa, t, lam1, label)
            else:
                theta, history, n_iter = self._gradient_descent(Xa, t, lam, label)
            thetas.append(theta)
            histories.append(history)
            n_iters.append(n_iter)
        store_fit(self, classes, thetas, histories, n_iters, d)
        return self

    def _newton(self, Xa, t, lam, label):
        n, p = Xa.shape
        theta = np.zeros(p)
        z = np.zeros(n)
        f = _objective(z, t, theta, lam)
        g = _gradient(Xa, z, t, theta, lam)
        history = [f]
        converged = False
        n_iter = 0
        while True:
            if np.max(np.abs(g)) <= self.tol:
                converged = True
                break
            if n_iter >= self.max_iter:
                break
            mu = expit(z)
            sw = np.sqrt(mu * (1.0 - mu))
            Xs = Xa * sw[:, None]
            H = Xs.T @ Xs  # X^T S X via a symmetric rank-k update
            H /= n
            H.flat[:: p + 1] += lam
            delta = solve_spd(H, -g, overwrite_a=True)
            slope = float(g @ delta)
            if not slope < 0.0:  # no descent direction left (numerically singular H)
                break
            dz = Xa @ delta
            step = 1.0
            while True:  # step halving until the Armijo condition holds (up to rounding)
                theta_new = theta + step * delta
                z_new = z + step * dz
                f_new = _objective(z_new, t, theta_new, lam)
                if f_new <= f + 1e-4 * step * slope + 8 * _EPS * abs(f):
                    break
                step *= 0.5
                if step < 1e-10:
                    break
            if step < 1e-10:  # the line search failed: we are at the limit of precision
                break
            theta, z, f = theta_new, z_new, f_new
            g = _gradient(Xa, z, t, theta, lam)
            n_iter += 1
            history.append(f)
            self._check_separable(z, t, label)
        if not converged:
            self._warn_not_converged(n_iter, float(np.max(np.abs(g))), label)
        return theta, np.asarray(history), n_iter

    def _gradient_descent(self, Xa, t, lam, label):
        def fun(theta):
            z = Xa @ theta
            self._check_separable(z, t, label)
            return _objective(z, t, theta, lam), _gradient(Xa, z, t, theta, lam)

        result = gradient_descent(
            fun,
            np.zeros(Xa.shape[1]),
            learning_rate=self.learning_rate,
            max_iter=self.max_iter,
            tol=0.0,
            gtol=self.tol,
            warn=False,  # warned below, with the class and the separability hint
        )
        if not result.converged:
            self._warn_not_converged(result.n_iter, result.grad_max, label)
        return result.params, result.loss_history, result.n_iter

    def _proximal(self, Xa, t, lam1, label):
        zero = np.zeros_like(lam1)

        def fun(theta):
            z = Xa @ theta
            return _objective(z, t, theta, zero), _gradient(Xa, z, t, theta, zero)

        grad_max = [np.inf]

        def stop(theta, grad, F):
            grad_max[0] = float(np.max(np.abs(_min_norm_subgradient(theta, grad, lam1))))
            return grad_max[0] <= self.tol

        result = proximal_gradient(
            fun,
            lam1,
            np.zeros(Xa.shape[1]),
            step=self.learning_rate,
            max_iter=self.max_iter,
            tol=0.0,
            accelerated=True,
            stop=stop,
            warn=False,
            name="LogisticRegression(solver='gd', penalty='l1')",
        )
        if not result.converged:
            self._warn_not_converged(result.n_iter, grad_max[0], label)
        return result.params, result.loss_history, result.n_iter

    def _stochastic(self, Xa, t, lam, lam1, label, rng):
        def objective(theta):
            z = Xa @ theta
            self._check_separable(z, t, label)
            return _objective(z, t, theta, lam) + float(np.sum(lam1 * np.abs(theta)))

        def grad(theta, idx):
            Xb = Xa[idx]
            return Xb.T @ (expit(Xb @ theta) - t[idx]) / len(idx) + lam * theta

        prox = (lambda theta, eta: soft_threshold(theta, eta * lam1)) if np.any(lam1) else None
        result = stochastic_gradient_descent(
            grad,
            objective,
            np.zeros(Xa.shape[1]),
            Xa.shape[0],
            learning_rate=self.learning_rate,
            batch_size=self.batch_size,
            schedule=self.schedule,
            decay=self.decay,
            max_epochs=self.max_iter,
            tol=self.tol,
            random_state=rng,
            prox=prox,
            warn=False,
        )
        if not result.converged:
            warnings.warn(
                f"LogisticRegression(solver='sga') did not converge for class {label!r} in {result.n_iter} epochs "
                f"(the objective still improved by more than tol={self.tol:g}); increase max_iter",
                ConvergenceWarning,
                stacklevel=3,
            )
        return result.params, result.loss_history, result.n_iter

    def _check_separable(self, z, t, label) -> None:
        if self.penalty is not None:
            return
        margins = np.where(t > 0, z, -z)
        if np.all(margins > 0):
            raise ValueError(
                f"the training data are linearly separable (class {label!r} vs the rest): with penalty=None "
                "the maximum-likelihood estimate does not exist and the weights grow without bound. "
                "Use penalty='l2' (a finite C), or remove the separating features"
            )

    def _warn_not_converged(self, n_iter, grad_max, label) -> None:
        hint = (
            " With penalty=None this often means the classes are (quasi-)separable; use penalty='l2'."
            if self.penalty is None
            else ""
        )
        if self.solver == "gd":
            hint += " Increase max_iter or learning_rate, or standardize the features."
        warnings.warn(
            f"LogisticRegression(solver={self.solver!r}) did not converge for class {label!r} in "
            f"{n_iter} iterations (max |gradient| {grad_max:.2e} > tol={self.tol:g}).{hint}",
            ConvergenceWarning,
            stacklevel=3,
        )

    # -- prediction -------------------------------------------------------------------------------
    def predict_proba(self, X):
        """Class probabilities, shape (n, n_classes), columns in the order of ``classes_``."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p1 = expit(scores)
            return np.column_stack([1.0 - p1, p1])
        proba = expit(scores)
        proba /= proba.sum(axis=1, keepdims=True)
        return proba


def _objective(z, t, theta, lam) -> float:
    """Mean log-loss plus ``1/2 sum_j lam_j theta_j^2`` (stable: ``log(1 + e^z)`` via logaddexp)."""
    return float(np.mean(np.logaddexp(0.0, z) - t * z) + 0.5 * np.dot(lam * theta, theta))


def _min_norm_subgradient(theta, grad, lam1) -> np.ndarray:
    """Smallest-norm element of ``grad + lam1 * d|theta|`` (zero exactly at an L1 optimum)."""
    at_zero = np.maximum(np.abs(grad) - lam1, 0.0) * np.sign(grad)
    return np.where(theta != 0.0, grad + lam1 * np.sign(theta), at_zero)


def _gradient(Xa, z, t, theta, lam) -> np.ndarray:
    """``(1/n) X^T (sigmoid(z) - t) + lam * theta``."""
    return Xa.T @ (expit(z) - t) / Xa.shape[0] + lam * theta
