"""Low-rank matrix factorization for ratings with missing entries, by ALS or SGD (EPFL notes)."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator
from ...exceptions import ConvergenceWarning, DivergenceError, InputScaleError
from ...validation import check_array, check_is_fitted, check_random_state

_SOLVERS = ("als", "sgd")


def check_ratings(R, name: str = "R") -> np.ndarray:
    """``R`` as a 2-D float array in which NaN marks a missing entry; infinities are rejected.

    The shared input check (:func:`replearn.validation.check_array` with ``allow_nan``: types, shape,
    emptiness, infinities, overflow-scale values), then at least one observed entry.
    """
    if R is None:
        raise ValueError(f"{name} is None; expected a 2-D array of ratings with NaN for missing entries")
    arr = check_array(R, name=name, allow_nan=True)
    if not np.any(np.isfinite(arr)):
        raise ValueError(f"{name} has no observed entry (all NaN)")
    return arr


class MatrixFactorization(BaseEstimator):
    """Fill in a partially observed matrix as ``R ~ mu + W Z^T`` with ``k`` latent factors.

    Objective (EPFL notes, seed 004 L1433-1471; there ``X`` is movies x users, here rows x
    columns -- e.g. users x items)::

        L(W, Z) = 1/2 sum_{(d,n) in Omega} (r_dn - mu - w_d^T z_n)^2 + lambda_w/2 ||W||_F^2 + lambda_z/2 ||Z||_F^2

    over the observed entries ``Omega``; ``W`` is ``n_rows x k``, ``Z`` is ``n_cols x k``. ``mu`` is
    the mean observed rating when ``center=True`` (a fixed global bias, not in the notes, which
    fit ``W Z^T`` to the raw ratings; ``center=False`` gives exactly their model) and 0 otherwise.
    ``L`` is not jointly convex and ``W, Z`` are identified only up to an invertible ``k x k``
    transform (L1457-1461).

    Solvers
    -------
    * ``"als"`` -- alternating least squares (L1493-1513): with ``Z`` fixed each row of ``W`` solves
      a ridge problem over its observed columns,
      ``(sum_{n in Omega_d} z_n z_n^T + lambda_w I) w_d = sum_{n in Omega_d} (r_dn - mu) z_n``,
      then symmetrically for ``Z``. The ``k x k`` systems of all rows are built with one matrix
      product and solved as one batch (no inverse). Each half-step minimizes ``L`` exactly over
      its block, so ``loss_history_`` never increases (tested). A row with no observation gets
      ``w_d = 0`` (needs ``lambda_w > 0``). With every entry observed a half-step is the closed
      form ``Z^T = (W^T W + lambda_z I)^{-1} W^T R`` of the notes.
    * ``"sgd"`` -- the notes' stochastic rule (L1473-1491): for an observed ``(d, n)`` with
      ``e = r_dn - mu - w_d^T z_n``,
      ``w_d += gamma (e z_n - lambda_w / |Omega_d| w_d)`` and
      ``z_n += gamma (e w_d - lambda_z / |Omega_n| z_n)``. The notes leave open where the
      regularizer enters; dividing it by the row's and column's number of observations makes the
      per-entry losses sum to ``L`` exactly, so SGD and ALS minimize the same objective. Entries
      are visited in a fresh random order every epoch, in mini-batches of ``batch_size`` whose
      updates are summed (``batch_size=1`` is the per-entry rule; larger batches vectorize).

    ``loss_history_`` holds ``L / |Omega|`` after each sweep (entry 0: the start). ALS stops when a
    sweep lowers it by less than ``tol`` relative; SGD, whose loss fluctuates, when a sweep changes
    it by less than ``tol`` relative; both stop after ``max_iter`` sweeps (``ConvergenceWarning``);
    NaN/inf raises :class:`~replearn.exceptions.DivergenceError` (lower ``learning_rate``).

    Not an ``X, y`` estimator: ``fit(R)`` takes the ratings matrix with ``np.nan`` for missing
    entries; ``predict(rows, cols)`` predicts entries, ``predict_matrix()`` the completed matrix.

    Randomness: ``random_state`` draws the initial factors (``N(0, init_scale^2)``) and the SGD
    visiting order.

    Parameters
    ----------
    n_components : int >= 1, default 10
    solver : {"als", "sgd"}, default "als"
    lambda_w, lambda_z : float >= 0, default 1.0
        On the *sum* of squared errors (the notes' scaling), so their effect shrinks as rows and
        columns get more observations. Small values make ALS crawl along the scaling ambiguity.
    center : bool, default True
    learning_rate : float > 0, default 0.01 (SGD only)
    batch_size : int >= 1, default 256 (SGD only)
    max_iter : int >= 1, default 100 (sweeps / epochs)
    tol : float >= 0, default 1e-5
    init_scale : float > 0, default 0.1
    random_state : None, int or numpy Generator

    Attributes
    ----------
    row_factors_ : array (n_rows, k) -- ``W``
    col_factors_ : array (n_cols, k) -- ``Z``
    mean_ : float -- ``mu``
    loss_history_ : array (n_iter_ + 1,)
    n_iter_ : int
    converged_ : bool
    n_rows_, n_features_in_ : int -- the shape of ``R``

    scikit-learn has no matrix completion; checks are the monotone ALS loss, the Eckart-Young
    optimum when every entry is observed, and held-out RMSE against the global-mean baseline.
    """

    _estimator_type = "recommender"
    _allow_nan = True  # NaN marks a missing rating
    _tasks = ("matrix_completion",)

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_components": Interval(int, 1, None),
        "solver": Options(set(_SOLVERS)),
        "lambda_w": Interval(float, 0.0, None),
        "lambda_z": Interval(float, 0.0, None),
        "center": Boolean(),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "init_scale": Interval(float, 0.0, None, closed="neither"),
    }

    def __init__(
        self,
        n_components=10,
        solver="als",
        lambda_w=1.0,
        lambda_z=1.0,
        center=True,
        learning_rate=0.01,
        batch_size=256,
        max_iter=100,
        tol=1e-5,
        init_scale=0.1,
        random_state=None,
    ):
        self.n_components = n_components
        self.solver = solver
        self.lambda_w = lambda_w
        self.lambda_z = lambda_z
        self.center = center
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.init_scale = init_scale
        self.random_state = random_state

    def fit(self, R, y=None):
        """Factorize the observed entries of ``R`` (NaN = missing); returns ``self``."""
        self._validate_params()
        R = check_ratings(R)
        mask = np.isfinite(R)
        D, N = R.shape
        k = int(self.n_components)
        rng = check_random_state(self.random_state)
        mu = float(R[mask].mean()) if self.center else 0.0
        Rc = np.where(mask, R - mu, 0.0)
        W = self.init_scale * rng.standard_normal((D, k))
        Z = self.init_scale * rng.standard_normal((N, k))
        lw, lz = float(self.lambda_w), float(self.lambda_z)
        if self.solver == "als":
            for name, counts, lam in (("row", mask.sum(axis=1), lw), ("column", mask.sum(axis=0), lz)):
                if lam == 0 and np.any(counts == 0):
                    raise ValueError(
                        f"{name} {int(np.argmin(counts))} has no observed entry; its factor is undefined "
                        f"without regularization (set lambda_{'w' if name == 'row' else 'z'} > 0)"
                    )
        n_obs = int(mask.sum())
        loss = _objective(Rc, mask, W, Z, lw, lz) / n_obs
        history = [loss]
        converged = False
        n_iter = 0
        if self.solver == "sgd":
            rows, cols = np.nonzero(mask)
            vals = Rc[rows, cols]
            row_count = np.maximum(mask.sum(axis=1), 1).astype(np.float64)
            col_count = np.maximum(mask.sum(axis=0), 1).astype(np.float64)
        for n_iter in range(1, int(self.max_iter) + 1):
            if self.solver == "als":
                W = _als_half_step(Rc, mask, Z, lw)
                Z = _als_half_step(Rc.T, mask.T, W, lz)
            else:
                self._sgd_epoch(rows, cols, vals, W, Z, row_count, col_count, lw, lz, rng)
            loss = _objective(Rc, mask, W, Z, lw, lz) / n_obs
            if not np.isfinite(loss):
                raise DivergenceError(
                    f"matrix factorization diverged at sweep {n_iter} (loss {loss}); lower learning_rate "
                    f"(now {self.learning_rate})"
                )
            prev = history[-1]
            history.append(loss)
            change = prev - loss if self.solver == "als" else abs(prev - loss)
            if change < self.tol * max(prev, np.finfo(np.float64).tiny):
                converged = True
                break
        self.row_factors_ = W
        self.col_factors_ = Z
        self.mean_ = mu
        self.loss_history_ = np.asarray(history)
        self.n_iter_ = n_iter
        self.converged_ = converged
        self.n_rows_ = D
        self.n_features_in_ = N
        if not converged:
            warnings.warn(
                f"MatrixFactorization did not converge in max_iter={self.max_iter} sweeps (tol={self.tol})",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _sgd_epoch(self, rows, cols, vals, W, Z, row_count, col_count, lw, lz, rng) -> None:
        lr = float(self.learning_rate)
        order = rng.permutation(rows.size)
        b = int(self.batch_size)
        for start in range(0, order.size, b):
            idx = order[start : start + b]
            d, n = rows[idx], cols[idx]
            Wd, Zn = W[d], Z[n]
            e = vals[idx] - np.einsum("ij,ij->i", Wd, Zn)
            step_w = e[:, None] * Zn - (lw / row_count[d])[:, None] * Wd
            step_z = e[:, None] * Wd - (lz / col_count[n])[:, None] * Zn
            np.add.at(W, d, lr * step_w)
            np.add.at(Z, n, lr * step_z)

    # -- prediction ---------------------------------------------------------------------------------
    def predict(self, rows, cols) -> np.ndarray:
        """Predicted entries ``mu + w_rows . z_cols`` for index arrays ``rows`` and ``cols``."""
        check_is_fitted(self, "row_factors_")
        rows = np.asarray(rows)
        cols = np.asarray(cols)
        if rows.shape != cols.shape or rows.ndim != 1:
            raise ValueError(
                f"rows and cols must be 1-D index arrays of the same length, got {rows.shape} and {cols.shape}"
            )
        if rows.dtype.kind not in "iu" or cols.dtype.kind not in "iu":
            raise ValueError("rows and cols must be integer indices")
        for name, idx, size in (("rows", rows, self.n_rows_), ("cols", cols, self.n_features_in_)):
            if idx.size and (idx.min() < 0 or idx.max() >= size):
                raise ValueError(f"{name} must lie in [0, {size})")
        return self.mean_ + np.einsum("ij,ij->i", self.row_factors_[rows], self.col_factors_[cols])

    def predict_matrix(self) -> np.ndarray:
        """The completed matrix ``mu + W Z^T``, shape (n_rows, n_cols)."""
        check_is_fitted(self, "row_factors_")
        return self.mean_ + self.row_factors_ @ self.col_factors_.T

    def rmse(self, R) -> float:
        """Root mean squared error on the observed (non-NaN) entries of ``R`` (same shape as in fit)."""
        check_is_fitted(self, "row_factors_")
        R = check_ratings(R)
        if R.shape != (self.n_rows_, self.n_features_in_):
            raise ValueError(f"R has shape {R.shape}, the model was fitted on {(self.n_rows_, self.n_features_in_)}")
        mask = np.isfinite(R)
        diff = (R - self.predict_matrix())[mask]
        return float(np.sqrt(np.mean(diff**2)))

    def score(self, R, y=None) -> float:
        """``-rmse(R)`` (higher is better)."""
        return -self.rmse(R)


def _objective(Rc, mask, W, Z, lw, lz) -> float:
    resid = np.where(mask, Rc - W @ Z.T, 0.0)
    return 0.5 * float(np.sum(resid**2)) + 0.5 * lw * float(np.sum(W**2)) + 0.5 * lz * float(np.sum(Z**2))


def _als_half_step(Rc: np.ndarray, mask: np.ndarray, Z: np.ndarray, lam: float) -> np.ndarray:
    """Rows of ``W`` minimizing ``L`` with ``Z`` fixed: batched ``k x k`` ridge solves."""
    N, k = Z.shape
    outer = (Z[:, :, None] * Z[:, None, :]).reshape(N, k * k)
    G = (mask.astype(np.float64) @ outer).reshape(-1, k, k)
    G[:, np.arange(k), np.arange(k)] += lam
    B = Rc @ Z
    try:
        return np.linalg.solve(G, B[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError as exc:
        top = float(np.max(np.abs(G))) if G.size else 0.0
        if lam > 0 and top * np.finfo(np.float64).eps > lam:
            # the ridge term is below rounding error against factors of this size: the ratings' scale, not the mask
            raise InputScaleError(
                f"an ALS system is singular in float64: its entries reach {top:.3g}, against which lambda = {lam:g} "
                "is below rounding error (ratings of this magnitude); standardize or rescale the ratings "
                "(e.g. to unit variance) before fitting"
            ) from exc
        raise ValueError(
            "an ALS system is singular (a row or column has fewer observed entries than n_components); "
            "use lambda_w, lambda_z > 0"
        ) from exc
