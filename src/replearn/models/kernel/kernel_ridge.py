"""Kernel ridge regression (ridge regression in dual form with a kernel)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval
from ...base import BaseEstimator
from ...linalg import solve_spd
from ...validation import check_X_y
from ._common import KERNEL_CONSTRAINTS, TASK_CONSTRAINT, KernelMixin, TaskMixin


class KernelRidge(TaskMixin, KernelMixin, BaseEstimator):
    """Kernel ridge regression: ridge in dual form, with the Gram matrix replaced by a kernel matrix.

    Ridge's dual form w = X^T (X X^T + alpha I)^{-1} y (EPFL notes L1101-1117, seed 004) needs the
    data only through inner products, so with a kernel (EPFL L1125-1135; representer theorem
    L1119-1123; CS229 notes §5.3, seed 000 L1714-1807)::

        c = (K + alpha I)^{-1} y,    f(x) = sum_i c_i k(x_i, x),

    the minimizer of ||y - K c||^2 + alpha c^T K c. Solved by a Cholesky factorization of
    K + alpha I (``replearn.linalg.solve_spd``; never an inverse). There is no intercept
    (scikit-learn's ``KernelRidge`` has none either); center y or use a kernel with a constant
    term (polynomial with coef0 > 0) if one is needed. With the linear kernel this is exactly ridge
    regression without intercept, w = X^T c (a test checks it).

    Parameters
    ----------
    alpha : float >= 0, the ridge penalty (scikit-learn's ``alpha``; EPFL's 1/(2N) MSE + lambda ||w||^2
        is alpha = 2 N lambda).
    kernel, gamma, degree, coef0 : see :mod:`replearn.kernels` (gamma=None: 1/(d Var X) for
        rbf/laplace, 1 for polynomial).
    task : "regression" (default) or "classification" — one-vs-rest least squares on +-1 targets
        (scikit-learn's ``RidgeClassifier`` idea with a kernel): predict the class with the largest
        score.

    Attributes
    ----------
    dual_coef_ : (n, n_outputs) c; X_fit_ : training rows; classes_ (classification);
    gamma_, degree_, coef0_ : resolved kernel parameters.

    scikit-learn equivalent: ``KernelRidge(alpha, kernel, gamma, degree, coef0)`` (``kernel="poly"``
    for "polynomial"); the tests agree to 1e-8.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {"alpha": Interval(float, 0.0, None), **KERNEL_CONSTRAINTS, "task": TASK_CONSTRAINT}

    def __init__(self, alpha=1.0, kernel="rbf", gamma=None, degree=3, coef0=1.0, task="regression"):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.task = task

    def fit(self, X, y):
        """Solve (K + alpha I) c = y; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        self._resolve_kernel(X)
        Y = self._encode_targets(y)
        K = self._kernel(X, X)
        K.flat[:: K.shape[0] + 1] += self.alpha
        self.dual_coef_ = solve_spd(K, Y, overwrite_a=True).reshape(Y.shape)
        self.X_fit_ = X.copy()
        self.n_features_in_ = X.shape[1]
        return self

    def _scores(self, X) -> np.ndarray:
        X = self._validate_predict_input(X)
        return self._kernel(X, self.X_fit_) @ self.dual_coef_

    def decision_function(self, X) -> np.ndarray:
        """Scores f(x): (n,) for regression or two classes (positive = ``classes_[1]``), else (n, n_classes)."""
        self._require_classification("decision_function")
        s = self._scores(X)
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        """f(x) (regression) or the class with the largest one-vs-rest score."""
        return self._scores_to_output(self._scores(X))
