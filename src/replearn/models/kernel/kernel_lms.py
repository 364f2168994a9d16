"""Kernelized least mean squares: batch gradient descent on least squares, in the coefficients beta."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Boolean, Interval
from ...base import BaseEstimator
from ...exceptions import ConvergenceWarning, DivergenceError
from ...validation import check_X_y
from ._common import KERNEL_CONSTRAINTS, TASK_CONSTRAINT, KernelMixin, TaskMixin


class KernelLMS(TaskMixin, KernelMixin, BaseEstimator):
    """LMS (batch gradient descent on least squares) with the kernel trick.

    CS229 notes §5.3, seed 000 L1714-1807: gradient descent on J(theta) = 1/2 sum_i (y_i -
    theta^T phi(x_i))^2 from theta = 0 keeps theta = sum_i beta_i phi(x_i) (eq. 5.6), and the update
    theta := theta + alpha sum_i (y_i - theta^T phi(x_i)) phi(x_i) becomes, in beta (eqs. 5.8, 5.11),

        beta := beta + alpha (y - K beta),     prediction  theta^T phi(x) = sum_i beta_i K(x_i, x)  (eq. 5.12)

    with the kernel matrix K computed once. It converges to a solution of K beta = y (interpolation)
    when 0 < alpha < 2 / lambda_max(K); the number of steps ``max_iter`` is the regularizer (early
    stopping), as in the notes. With the linear kernel the iterates are exactly those of batch
    gradient descent on theta = X^T beta (a test checks it).

    Parameters
    ----------
    learning_rate : float > 0 or None
        alpha. None uses 1 / max_i sum_j |K_ij| (a bound on 1 / lambda_max(K), so the iteration is
        stable whatever the kernel and n).
    max_iter : int, number of updates.
    tol : float or None
        None runs exactly ``max_iter`` updates. A number stops when the training loss
        J = 1/(2n) ||y - K beta||^2 changes by less than tol * J in one update, and warns if that
        never happens.
    fit_intercept : bool
        Fit beta on y - mean(y) and add the mean back (the notes have no intercept; theirs is the
        constant feature of phi). Classification targets (+-1, one-vs-rest) are centred per column.
    kernel, gamma, degree, coef0 : see :mod:`replearn.kernels`.
    task : "regression" (default) or "classification" (one-vs-rest on +-1 targets).

    Attributes
    ----------
    dual_coef_ : (n, n_outputs) beta; intercept_ : (n_outputs,); X_fit_; loss_history_ : J after each
    update; n_iter_; learning_rate_ : the alpha used.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``learning_rate=None`` is 1 / max_i sum_j |K_ij| (below 2 / lambda_max(K))
    _constraints = {
        "learning_rate": (None, Interval(float, 0.0, None, closed="neither")),
        "max_iter": Interval(int, 1, None),
        "tol": (None, Interval(float, 0.0, None)),
        "fit_intercept": Boolean(),
        **KERNEL_CONSTRAINTS,
        "task": TASK_CONSTRAINT,
    }

    def __init__(
        self,
        learning_rate=None,
        max_iter=100,
        tol=None,
        fit_intercept=True,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        task="regression",
    ):
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.task = task

    def fit(self, X, y):
        """Run ``max_iter`` kernel LMS updates from beta = 0; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        self._resolve_kernel(X)
        Y = self._encode_targets(y)
        offset = Y.mean(axis=0) if self.fit_intercept else np.zeros(Y.shape[1])
        Yc = Y - offset
        K = self._kernel(X, X)
        n = X.shape[0]
        if self.learning_rate is None:
            bound = float(np.abs(K).sum(axis=1).max())
            lr = 1.0 / bound if bound > 0 else 1.0
        else:
            lr = float(self.learning_rate)
        beta = np.zeros_like(Yc)
        resid = Yc.copy()  # y - K beta
        history = []
        converged = self.tol is None
        it = 0
        for it in range(1, self.max_iter + 1):
            beta += lr * resid
            resid = Yc - K @ beta
            J = 0.5 * float(np.sum(resid * resid)) / n
            if not np.isfinite(J):
                raise DivergenceError(
                    f"kernel LMS diverged at update {it} (loss is {J}); the learning rate {lr:g} exceeds "
                    "2 / lambda_max(K): lower it or leave learning_rate=None"
                )
            history.append(J)
            if self.tol is not None and len(history) > 1 and abs(history[-2] - J) <= self.tol * history[-2]:
                converged = True
                break
        if not converged:
            warnings.warn(
                f"kernel LMS ran max_iter={self.max_iter} updates without the loss settling to tol={self.tol}",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.dual_coef_ = beta
        self.intercept_ = offset
        self.learning_rate_ = lr
        self.loss_history_ = np.asarray(history)
        self.n_iter_ = int(it)
        self.X_fit_ = X.copy()
        self.n_features_in_ = X.shape[1]
        return self

    def _scores(self, X) -> np.ndarray:
        X = self._validate_predict_input(X)
        return self._kernel(X, self.X_fit_) @ self.dual_coef_ + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        """Scores: (n,) for two classes (positive = ``classes_[1]``), else (n, n_classes)."""
        self._require_classification("decision_function")
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        return self._scores_to_output(self._scores(X))
