"""Ordinary least squares: normal equations, QR/SVD least squares, or batch gradient descent.

Objective (CS229 notes §1, seed 000 L172-186; §1.1 eq. 1.1, L200-236)::

    J(w, b) = 1/(2n) * sum_i (w^T x_i + b - y_i)^2

The notes write J with a plain sum, ``1/2 sum_i``; the minimizer is the same, but with the mean
the gradient ``(1/n) X^T (X w + b - y)`` does not grow with n, so one learning rate works for
any sample size. (EPFL's notes use the same 1/(2N) scaling, seed 004 L152-173.)

Weighted least squares (``fit(X, y, sample_weight=w)``; CS229 notes §1.4, seed 000 L438-472; CS229
PS1 5a(i)-(iii), seed 002 L2728-2796: the normal equations ``X^T W X theta = X^T W y``, and the heteroscedastic
model ``y_i ~ N(theta^T x_i, sigma_i^2)`` whose maximum-likelihood fit has weights ``1 / sigma_i^2``)::

    J_w(w, b) = 1/(2 sum_i w_i) * sum_i w_i (w^T x_i + b - y_i)^2

the weighted mean of the squared residuals, so integer weights are the same as repeating rows.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, RegressorMixin
from ...linalg import SingularMatrixError, center, solve_spd
from ...optim._kernels import least_squares_sgd_epoch
from ...optim.gradient import least_squares_gradient_descent
from ...optim.stochastic import SCHEDULES as SGD_SCHEDULES
from ...optim.stochastic import stochastic_gradient_descent
from ...validation import check_array, check_X_y

_SOLVERS = ("gd", "lstsq", "minibatch", "normal", "sgd")


class LinearRegression(RegressorMixin, BaseEstimator):
    """Least-squares linear regression ``y ~ X w + b``.

    Minimizes ``J(w, b) = 1/(2n) sum_i (w^T x_i + b - y_i)^2``. The three solvers find the same
    minimizer (up to rounding) when ``X`` has full column rank:

    * ``"normal"``: the normal equations ``X^T X w = X^T y`` (CS229 notes §1.2, seed 000 L280-349),
      solved by Cholesky. When ``X^T X`` is singular (e.g. a duplicated column) or its estimated
      condition number exceeds ``1/(d * eps)``, the fit falls back to ``"lstsq"`` on ``X`` itself,
      which returns the minimum-norm solution (the notes' footnote L361 assumes invertibility; the
      CS229 summaries recommend the pseudo-inverse, seed 002 L213). ``solver_used_`` records which
      one ran. This is the fastest solver for n >> d, but squares the condition number of ``X``.
    * ``"lstsq"``: ``scipy.linalg.lstsq`` (LAPACK ``gelsd``, SVD based) on ``X``: the numerically
      sound choice for ill-conditioned ``X``; minimum-norm solution when ``X`` is rank deficient.
      This is what ``sklearn.linear_model.LinearRegression`` does.
    * ``"gd"``: batch gradient descent (CS229 notes §1.1 eq. 1.1, seed 000 L220-236) from
      ``w = 0`` with step ``learning_rate``: ``w := w - alpha (1/n) X^T (X w + b - y)``. Needs
      standardized features in practice (the Portland data's living areas in ft^2 need a step
      below ~1e-7). Raises :class:`~replearn.exceptions.DivergenceError` on overflow and warns
      :class:`~replearn.exceptions.ConvergenceWarning` at ``max_iter``.
    * ``"sgd"``: stochastic gradient descent, the LMS / Widrow-Hoff rule (CS229 notes §1.1 eq. 1.2,
      seed 000 L210-216 and L254-278): one example at a time,
      ``w := w - eta_t (w^T x_i + b - y_i) x_i``, the examples reshuffled every epoch (a fresh
      permutation from ``random_state``), with the step ``eta_t`` given by ``learning_rate``,
      ``schedule`` and ``decay`` (a decaying step makes it converge instead of oscillating around
      the minimum: the notes' footnote L298). ``max_iter`` counts *epochs*; ``loss_history_`` holds
      ``J`` after each epoch. Uses :func:`replearn.optim.stochastic.stochastic_gradient_descent`.
    * ``"minibatch"``: the same with batches of ``batch_size`` examples and the batch-mean gradient
      (CS229 notes §7.1 Alg. 2, seed 000 L2618-2629; EPFL notes L189-197, seed 004).

    The intercept is not penalized and is handled by centring: the weights are fitted on centred
    ``X`` and ``y`` and ``b = mean(y) - mean(X) @ w``, which is the exact minimizer over ``b`` for
    any ``w`` (for ``"gd"`` this profiles the intercept out instead of carrying the notes'
    ``x_0 = 1`` feature; it is the same objective and converges faster).

    **Weighted least squares** (``sample_weight``): the objective becomes the weighted mean
    ``J_w = 1/(2 sum w) sum_i w_i (w^T x_i + b - y_i)^2`` (CS229 notes §1.4, seed 000 L438-472; the
    heteroscedastic model of CS229 PS1 5a(iii), seed 002 L2782-2796, where ``w_i = 1 / sigma_i^2`` makes
    it the maximum-likelihood fit; locally weighted regression, :mod:`~replearn.models.linear.lwr`, is the same
    solve with weights that depend on the query). Every solver runs unchanged on transformed data:
    the centring uses the weighted means ``x_w = sum w_i x_i / sum w``, ``y_w`` (so
    ``b = y_w - x_w @ w``), and each centred row is multiplied by ``sqrt(w_i n / sum w)``, which turns
    ``J_w`` into the unweighted ``1/(2n) ||X' w - y'||^2``. The normal equations become
    ``X^T W X w = X^T W y``; gradient descent follows the weighted-mean gradient; an SGD step on
    example i is the LMS step scaled by ``w_i n / sum w`` (an unbiased estimate of the weighted
    gradient; integer weights give the same objective as repeated rows, though not the same random
    steps). Weights must be finite, non-negative and not all zero; zero-weight rows are ignored.
    Multiplying all weights by a constant changes nothing.

    **Multi-output** ``y`` of shape (n, k) fits k independent least-squares problems at once
    (``coef_`` (k, d), ``intercept_`` (k,), predictions (n, k), scikit-learn's layout) with
    ``"normal"``, ``"lstsq"`` or ``"gd"`` (whose objective is then the sum of the k columns' J and
    whose stopping rule uses the Frobenius norm of the gradient); ``"sgd"`` / ``"minibatch"`` take
    one target (fit one model per column).

    Parameters
    ----------
    fit_intercept : bool, default True
        Fit ``b``; otherwise ``b = 0`` and the data are not centred.
    solver : {"normal", "lstsq", "gd", "sgd", "minibatch"}, default "normal"
    learning_rate : float > 0, default 0.01
        Step size alpha of ``"gd"``; initial step ``eta_0`` of ``"sgd"`` / ``"minibatch"``.
    max_iter : int >= 1, default 1000
        Iteration cap of ``"gd"``; epoch cap of ``"sgd"`` / ``"minibatch"``.
    tol : float >= 0, default 1e-6
        ``"gd"`` stops when the gradient's norm falls to ``tol`` times its norm at ``w = 0``
        (``||grad J(w_k)|| <= tol ||grad J(0)||``; a small change of ``J`` is a weak test in a flat
        valley: on the standardized Portland living area + bedrooms it stopped the coefficients 0.7%
        short of the normal equations); ``"sgd"`` /
        ``"minibatch"`` stop when ``J`` has not improved on its best value by ``tol * max(J_best, 1)``
        for ``n_iter_no_change`` consecutive epochs (scikit-learn's SGD rule).
    batch_size : int >= 1, default 32
        Batch size of ``"minibatch"`` (``"sgd"`` always uses 1).
    schedule : {"constant", "inverse", "inverse_sqrt"}, default "constant"
        Step-size schedule of ``"sgd"`` / ``"minibatch"``: ``eta_0``, ``eta_0 / (1 + decay t)`` or
        ``eta_0 / sqrt(1 + decay t)`` after ``t`` updates.
    decay : float >= 0, default 1.0
    random_state : None, int or numpy Generator
        Seeds the per-epoch permutations of ``"sgd"`` / ``"minibatch"``.
    n_iter_no_change : int >= 1, default 5
        Patience of the ``"sgd"`` / ``"minibatch"`` stopping rule.

    Attributes
    ----------
    coef_ : array (n_features,), or (n_targets, n_features) for multi-output y
    intercept_ : float, or array (n_targets,) for multi-output y
    n_iter_ : int or None
        Gradient-descent iterations, or SGD epochs (None for the closed-form solvers).
    loss_history_ : array or None
        ``J`` after each gradient-descent update (SGD: after each epoch), starting at ``w = 0``
        (None for the closed-form solvers).
    solver_used_ : str
        "cholesky", "lstsq", "gd", "sgd" or "minibatch".
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.linear_model.LinearRegression(fit_intercept=...)``; for
    ``"sgd"``: ``SGDRegressor(loss="squared_error", penalty=None, learning_rate="constant" or
    "invscaling", eta0=learning_rate)`` (whose loss is the same mean ``1/2 (y - w^T x - b)^2``;
    it carries the intercept as a parameter instead of centring).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "fit_intercept": Boolean(),
        "solver": Options(set(_SOLVERS)),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "batch_size": Interval(int, 1, None),
        "schedule": Options(set(SGD_SCHEDULES)),
        "decay": Interval(float, 0.0, None),
        "n_iter_no_change": Interval(int, 1, None),
    }

    def __init__(
        self,
        fit_intercept=True,
        solver="normal",
        learning_rate=0.01,
        max_iter=1000,
        tol=1e-6,
        batch_size=32,
        schedule="constant",
        decay=1.0,
        random_state=None,
        n_iter_no_change=5,
    ):
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.batch_size = batch_size
        self.schedule = schedule
        self.decay = decay
        self.random_state = random_state
        self.n_iter_no_change = n_iter_no_change

    def fit(self, X, y, sample_weight=None):
        """Fit the weights and intercept to ``X`` (n, d) and ``y`` (n,) or (n, k); returns ``self``.

        ``sample_weight`` (n,): non-negative finite weights of the examples (weighted least squares);
        None gives every example weight 1.
        """
        self._validate_params()
        X, y = _check_X_y_multi(X, y, self)
        n, d = X.shape
        if y.ndim == 2 and self.solver in ("sgd", "minibatch"):
            raise ValueError(
                f"solver={self.solver!r} fits one target, but y has shape {y.shape} (multi-output); use solver "
                "'normal', 'lstsq' or 'gd', or fit one model per column of y"
            )
        if sample_weight is None:
            if self.fit_intercept:
                Xc, x_mean, yc, y_mean = center(X, y)
            else:
                Xc, yc, x_mean, y_mean = X, y, np.zeros(d), np.zeros(y.shape[1:])
        else:
            Xc, yc, x_mean, y_mean = _weighted_design(X, y, check_sample_weight(sample_weight, n), self.fit_intercept)

        self.n_iter_ = None
        self.loss_history_ = None
        if self.solver == "normal":
            try:
                w = solve_spd(Xc.T @ Xc, Xc.T @ yc, fallback="raise", overwrite_a=True)
                self.solver_used_ = "cholesky"
            except SingularMatrixError:
                w = _lstsq(Xc, yc)
                self.solver_used_ = "lstsq"
        elif self.solver == "lstsq":
            w = _lstsq(Xc, yc)
            self.solver_used_ = "lstsq"
        elif self.solver in ("sgd", "minibatch"):
            batch = 1 if self.solver == "sgd" else int(self.batch_size)
            Xs, ys = np.ascontiguousarray(Xc), np.ascontiguousarray(yc)
            result = stochastic_gradient_descent(
                lambda w, idx: _batch_grad(w, Xc[idx], yc[idx]),
                lambda w: _mse_loss_grad(w, Xc, yc)[0],
                np.zeros(d),
                n,
                learning_rate=self.learning_rate,
                batch_size=1 if self.solver == "sgd" else self.batch_size,
                schedule=self.schedule,
                decay=self.decay,
                max_epochs=self.max_iter,
                tol=self.tol,
                n_iter_no_change=self.n_iter_no_change,
                random_state=self.random_state,
                name=f"LinearRegression(solver={self.solver!r})",
                epoch_fn=lambda w, order, etas: least_squares_sgd_epoch(Xs, ys, order, etas, w, batch),
            )
            w = result.params
            self.n_iter_ = result.n_iter
            self.loss_history_ = result.loss_history
            self.solver_used_ = self.solver
        else:
            # gradient_descent on _mse_loss_grad, run as one compiled loop (same iterates and stopping rule)
            result = least_squares_gradient_descent(
                Xc,
                yc,
                learning_rate=self.learning_rate,
                max_iter=self.max_iter,
                tol=0.0,
                grad_rtol=self.tol,
            )
            w = result.params
            self.n_iter_ = result.n_iter
            self.loss_history_ = result.loss_history
            self.solver_used_ = "gd"

        w = np.asarray(w, dtype=np.float64)
        if y.ndim == 2:
            self.coef_ = np.ascontiguousarray(w.T)
            self.intercept_ = (y_mean - x_mean @ w) if self.fit_intercept else np.zeros(y.shape[1])
        else:
            self.coef_ = w
            self.intercept_ = float(y_mean - x_mean @ w) if self.fit_intercept else 0.0
        self.n_features_in_ = d
        return self

    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_`` (``X @ coef_.T + intercept_`` for multi-output y)."""
        X = self._validate_predict_input(X)
        coef = self.coef_
        return X @ (coef.T if coef.ndim == 2 else coef) + self.intercept_


def check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """``sample_weight`` as a float64 array of length ``n``: finite, non-negative, not all zero."""
    w = check_array(sample_weight, name="sample_weight", ndim=1)
    if w.shape[0] != n:
        raise ValueError(f"sample_weight has {w.shape[0]} entries, but X has {n} samples; give one weight per sample")
    if np.any(w < 0):
        i = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"sample_weight must be non-negative (>= 0), got {float(w[i])!r} at index {i}")
    if not w.any():
        raise ValueError("sample_weight is zero for every sample; at least one weight must be > 0")
    return w


def _weighted_design(X: np.ndarray, y: np.ndarray, sw: np.ndarray, fit_intercept: bool):
    """``(X', y', x_w, y_w)``: rows centred on the weighted means (if ``fit_intercept``) and scaled by
    ``sqrt(w_i n / sum w)``, so that ``1/(2n) ||X' w - y'||^2`` is the weighted objective ``J_w``."""
    n, d = X.shape
    total = float(sw.sum())
    if fit_intercept:
        x_mean = sw @ X / total
        y_mean = sw @ y / total
        Xc, yc = X - x_mean, y - y_mean
    else:
        x_mean, y_mean, Xc, yc = np.zeros(d), np.zeros(y.shape[1:]), X, y
    root = np.sqrt(sw * (n / total))
    Xs = Xc * root[:, None]
    ys = yc * (root[:, None] if y.ndim == 2 else root)
    return Xs, ys, x_mean, y_mean if y.ndim == 2 else float(y_mean)


def _check_X_y_multi(X, y, estimator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`check_X_y` for one target; a 2-D ``y`` with two or more columns is kept (multi-output)."""
    y_arr = y if sp.issparse(y) else np.asarray(y) if y is not None else None
    if y_arr is None or y_arr.ndim != 2 or y_arr.shape[1] < 2:
        return check_X_y(X, y, y_numeric=True, estimator=estimator)
    X, _ = check_X_y(X, np.zeros(y_arr.shape[0]), y_numeric=True, estimator=estimator)
    return X, check_array(y_arr, name="y", ndim=2)


def _lstsq(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The minimum-norm least-squares solution: singular values below ``max(n, d) * eps * s_max`` count as zero
    (numpy's ``rcond`` default). SciPy's default cutoff (``eps * s_max``) keeps the rounding noise of a duplicated
    column as a tiny singular value and returns coefficients of order 1e12 that cancel, not the minimum-norm
    solution that the double-descent and implicit-regularization claims (CS229 §9.2) rest on."""
    cond = max(X.shape) * np.finfo(np.float64).eps
    w, *_ = scipy.linalg.lstsq(X, y, cond=cond, check_finite=False)
    return w


def _batch_grad(w: np.ndarray, Xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
    """Batch-mean gradient ``(1/B) X_B^T (X_B w - y_B)`` (the LMS rule for B = 1)."""
    return Xb.T @ (Xb @ w - yb) / Xb.shape[0]


def _mse_loss_grad(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """``J = 1/(2n) ||X w - y||^2`` and its gradient ``(1/n) X^T (X w - y)`` (``w``, ``y`` 1-D, or 2-D for
    several targets: then ``J`` sums over them)."""
    r = X @ w - y
    n = X.shape[0]
    rr = float(r @ r) if r.ndim == 1 else float(np.vdot(r, r))
    return 0.5 * rr / n, (X.T @ r) / n
