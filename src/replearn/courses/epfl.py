"""EPFL CS-433 project 1 (``implementations.py``) in the course's conventions, computed by replearn.

The course's project asks for six functions with a fixed interface -- arguments ``(y, tx, ...)`` where ``tx`` is the
design matrix (a column of ones included by the caller), every function returning ``(w, loss)`` with ``loss`` a
scalar -- and its public grading tests (``epfml/ML_course``, ``projects/project1/grading_tests``) check them on a
3 x 2 problem against published numbers, to ``rtol = 1e-4``. Conventions (EPFL notes, seed 004):

* the MSE is ``L(w) = 1/(2N) sum_n (y_n - x_n' w)^2`` (L152-173), its gradient ``-1/N X' e``;
* ``mean_squared_error_gd`` takes ``max_iters`` full gradient steps ``w := w - gamma grad L(w)`` from
  ``initial_w`` (``replearn.optim.gradient_descent``); ``mean_squared_error_sgd`` takes ``max_iters`` steps on one
  uniformly drawn example each (batch size 1, the course's default);
* ``least_squares`` solves the normal equations (``linear_regression``, no intercept: ``tx`` has it);
  ``ridge_regression`` minimizes ``L(w) + lambda ||w||^2``, i.e. ``(X'X + 2 N lambda I) w = X'y`` -- replearn's
  ``ridge`` with ``alpha = 2 N lambda`` (docs/algorithms.md); its loss is the MSE *without* the penalty;
* ``logistic_regression`` minimizes the mean negative log-likelihood ``1/N sum log(1 + e^{x'w}) - y x'w`` for
  ``y`` in {0, 1} by gradient descent (gradient ``1/N X'(sigma(Xw) - y)``); ``reg_logistic_regression`` adds
  ``lambda ||w||^2`` (gradient ``+ 2 lambda w``) and reports the loss without the penalty;
* the returned loss is that of the returned ``w`` (after the last step; with ``max_iters = 0`` of ``initial_w``).

Shapes follow the caller's: ``y`` (N,) or (N, 1) and ``initial_w`` (D,) or (D, 1) give ``w`` of ``initial_w``'s shape
(the closed forms: (D,) or (D, 1) as ``y``). Inputs are validated (finite, matching sizes, ``y`` in {0, 1} for the
logistic functions); ``gamma > 0``, ``max_iters >= 0``, ``lambda_ >= 0``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit

from .. import models
from ..optim import gradient_descent
from ..validation import check_array, check_random_state, check_scalar

__all__ = [
    "compute_mse",
    "compute_logistic_loss",
    "mean_squared_error_gd",
    "mean_squared_error_sgd",
    "least_squares",
    "ridge_regression",
    "logistic_regression",
    "reg_logistic_regression",
]


def _inputs(y, tx, initial_w=None):
    tx = check_array(tx, name="tx")
    y_arr = np.asarray(y, dtype=np.float64)
    column = y_arr.ndim == 2
    yv = check_array(y_arr.reshape(-1), name="y", ndim=1)
    if yv.shape[0] != tx.shape[0]:
        raise ValueError(f"y has {yv.shape[0]} entries but tx has {tx.shape[0]} rows")
    if initial_w is None:
        return yv, tx, None, column
    w_arr = np.asarray(initial_w, dtype=np.float64)
    w0 = check_array(w_arr.reshape(-1), name="initial_w", ndim=1)
    if w0.shape[0] != tx.shape[1]:
        raise ValueError(f"initial_w has {w0.shape[0]} entries but tx has {tx.shape[1]} columns")
    return yv, tx, w0, w_arr.shape


def _iters_gamma(max_iters, gamma):
    check_scalar(max_iters, "max_iters", numbers.Integral, low=0)
    check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)


def compute_mse(y, tx, w) -> np.float64:
    """``1/(2N) ||y - tx w||^2`` (the course's MSE)."""
    yv, tx, wv, _ = _inputs(y, tx, w)
    e = yv - tx @ wv
    return np.float64(0.5 * float(e @ e) / yv.size)


def _binary(yv: np.ndarray) -> None:
    if not np.all((yv == 0) | (yv == 1)):
        raise ValueError("the logistic functions take labels y in {0, 1}")


def compute_logistic_loss(y, tx, w) -> np.float64:
    """``1/N sum_n log(1 + exp(x_n' w)) - y_n x_n' w`` (the mean negative log-likelihood), ``y`` in {0, 1}."""
    yv, tx, wv, _ = _inputs(y, tx, w)
    _binary(yv)
    t = tx @ wv
    return np.float64(float(np.mean(np.logaddexp(0.0, t) - yv * t)))


def _run_gd(fun, w0, max_iters, gamma):
    if max_iters == 0:
        return w0.copy()
    return gradient_descent(fun, w0, learning_rate=float(gamma), max_iter=int(max_iters), tol=0.0, warn=False).params


def _shaped(w, shape):
    return np.asarray(w, dtype=np.float64).reshape(shape)


def mean_squared_error_gd(y, tx, initial_w, max_iters: int, gamma: float):
    """``max_iters`` gradient steps on the MSE from ``initial_w``; returns ``(w, MSE(w))``."""
    yv, tx, w0, shape = _inputs(y, tx, initial_w)
    _iters_gamma(max_iters, gamma)
    n = yv.size

    def fun(w):
        e = yv - tx @ w
        return 0.5 * float(e @ e) / n, -(tx.T @ e) / n

    w = _run_gd(fun, w0, max_iters, gamma)
    return _shaped(w, shape), compute_mse(yv, tx, w)


def mean_squared_error_sgd(y, tx, initial_w, max_iters: int, gamma: float, *, random_state=None):
    """``max_iters`` stochastic gradient steps, each on one example drawn uniformly (``random_state``); returns
    ``(w, MSE(w))`` with the MSE on all the data."""
    yv, tx, w0, shape = _inputs(y, tx, initial_w)
    _iters_gamma(max_iters, gamma)
    rng = check_random_state(random_state)
    w = w0.copy()
    for _ in range(int(max_iters)):
        i = int(rng.integers(yv.size))
        e = yv[i] - tx[i] @ w
        w = w + gamma * e * tx[i]
        if not np.all(np.isfinite(w)):
            from ..exceptions import DivergenceError

            raise DivergenceError(f"SGD's weights became non-finite; gamma = {gamma:g} is too large")
    return _shaped(w, shape), compute_mse(yv, tx, w)


def least_squares(y, tx):
    """The least-squares solution of the normal equations (replearn's ``linear_regression``, no extra intercept);
    returns ``(w, MSE(w))``."""
    yv, tx, _, column = _inputs(y, tx)
    w = models.create("linear_regression", fit_intercept=False).fit(tx, yv).coef_
    return (w[:, None] if column else w.copy()), compute_mse(yv, tx, w)


def ridge_regression(y, tx, lambda_: float):
    """``argmin_w 1/(2N) ||y - tx w||^2 + lambda ||w||^2`` -- replearn's ``ridge`` with ``alpha = 2 N lambda`` and no
    intercept; returns ``(w, MSE(w))`` (the loss without the penalty, as the course's tests expect)."""
    yv, tx, _, column = _inputs(y, tx)
    check_scalar(lambda_, "lambda_", numbers.Real, low=0.0)
    alpha = 2.0 * yv.size * float(lambda_)
    w = models.create("ridge", alpha=alpha, fit_intercept=False).fit(tx, yv).coef_
    return (w[:, None] if column else w.copy()), compute_mse(yv, tx, w)


def logistic_regression(y, tx, initial_w, max_iters: int, gamma: float):
    """``max_iters`` gradient steps on the mean negative log-likelihood from ``initial_w``; returns ``(w, loss)``."""
    return reg_logistic_regression(y, tx, 0.0, initial_w, max_iters, gamma)


def reg_logistic_regression(y, tx, lambda_: float, initial_w, max_iters: int, gamma: float):
    """Gradient descent on the logistic loss plus ``lambda ||w||^2``; returns ``(w, loss)`` with the loss without the
    penalty (the course's convention)."""
    yv, tx, w0, shape = _inputs(y, tx, initial_w)
    _binary(yv)
    _iters_gamma(max_iters, gamma)
    check_scalar(lambda_, "lambda_", numbers.Real, low=0.0)
    n, lam = yv.size, float(lambda_)

    def fun(w):
        t = tx @ w
        value = float(np.mean(np.logaddexp(0.0, t) - yv * t)) + lam * float(w @ w)
        return value, tx.T @ (expit(t) - yv) / n + 2.0 * lam * w

    w = _run_gd(fun, w0, max_iters, gamma)
    return _shaped(w, shape), compute_logistic_loss(yv, tx, w)
