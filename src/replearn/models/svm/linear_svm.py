"""Linear SVM: stochastic subgradient descent on the primal (Pegasos) or coordinate ascent on the dual."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning, DivergenceError
from ...validation import (
    check_classification_targets,
    check_random_state,
    check_X_y,
)
from ._kernels import block_objectives, dual_cd_solve, pegasos_epoch

_SOLVERS = ("dual_cd", "pegasos")


class LinearSVM(ClassifierMixin, BaseEstimator):
    """Linear soft-margin SVM (hinge loss), one-vs-rest for more than two classes.

    Objective, per binary problem with labels y in {-1, +1} (CIML §7.7 eq. 7.48, seed 001
    L2554-2634; CS229 notes §6.7, seed 000 L2325-2377; EPFL notes L1016-1048, seed 004)::

        P(w, b) = 1/2 (||w||^2 + b^2) + C sum_i max(0, 1 - y_i (w . x_i + b))

    The intercept is learned as the weight of a constant feature 1 appended to x, so it is
    penalized like the weights (LIBLINEAR's convention, scikit-learn's ``LinearSVC(loss="hinge",
    intercept_scaling=1)``); CIML Alg. 22 (L2445-2468) leaves b unpenalized, which would add the
    equality constraint sum_i a_i y_i = 0 to the dual (that is the kernel SVM's SMO, see ``svm``).

    Solvers
    -------
    ``"dual_cd"`` (EPFL notes L1050-1095, seed 004; Hsieh et al. 2008): coordinate ascent on the dual
    max_{0 <= a <= C} sum_i a_i - 1/2 ||sum_i a_i y_i x_i||^2, with w = sum_i a_i y_i x_i kept up to
    date. One coordinate is maximized exactly: a_i <- clip(a_i - (y_i w . x_i - 1) / ||x_i||^2, 0, C)
    (the notes' update with lambda = 1/C), visiting the examples in a fresh random order each epoch.
    Stops when the spread of the projected gradient over an epoch is below ``tol`` (LIBLINEAR's
    rule; scikit-learn's ``tol``).

    ``"pegasos"`` (CIML §7.5-7.7 hinge subgradient eq. 7.27 and SGD §14.2; Shalev-Shwartz et al.
    2007): stochastic subgradient descent on P / (C n) = lambda/2 ||w||^2 + (1/n) sum_i hinge with
    lambda = 1/(C n), mini-batches of ``batch_size`` examples, step 1/(lambda t), the projection onto
    the ball ||w|| <= 1/sqrt(lambda) that contains the optimum, and the average of the iterates of the
    second half of training (suffix averaging). Runs ``max_iter`` epochs (no tolerance: the objective
    of SGD is noisy); it approaches the optimum at rate O(1/(lambda t)).

    Parameters
    ----------
    C : float > 0; solver : {"dual_cd", "pegasos"}; fit_intercept : bool;
    tol : float > 0 (dual_cd); max_iter : int, epochs; batch_size : int (pegasos);
    random_state : int, Generator or None (example order / mini-batches).

    Attributes
    ----------
    classes_; coef_ (n_problems, n_features); intercept_ (n_problems,); n_iter_ : epochs run;
    loss_history_ : P summed over the binary problems after each epoch.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "C": Interval(float, 0.0, None, closed="neither"),
        "solver": Options({"dual_cd", "pegasos"}),
        "tol": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 1, None),
        "batch_size": Interval(int, 1, None),
        "fit_intercept": Boolean(),
    }

    def __init__(
        self, C=1.0, solver="dual_cd", fit_intercept=True, tol=1e-4, max_iter=1000, batch_size=16, random_state=None
    ):
        self.C = C
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.random_state = random_state

    def fit(self, X, y):
        """Fit one binary SVM per class (one if there are two classes); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y)
        classes = check_classification_targets(y)
        rng = check_random_state(self.random_state)
        codes = np.searchsorted(classes, y)
        if classes.size == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[:, None]
        else:
            Y = np.where(codes[:, None] == np.arange(classes.size), 1.0, -1.0)
        Xa = np.hstack([X, np.ones((X.shape[0], 1))]) if self.fit_intercept else np.ascontiguousarray(X)
        solve = _dual_cd if self.solver == "dual_cd" else _pegasos
        W, history, n_iter, converged = solve(Xa, Y, float(self.C), self, rng)
        if not np.all(np.isfinite(W)):
            raise DivergenceError("the linear SVM weights became NaN or infinite; scale the features")
        if not converged:
            warnings.warn(
                f"dual coordinate ascent reached max_iter={self.max_iter} epochs before the projected "
                f"gradient spread fell below tol={self.tol}; raise max_iter or scale the features",
                ConvergenceWarning,
                stacklevel=2,
            )
        d = X.shape[1]
        self.coef_ = np.ascontiguousarray(W[:d].T)
        self.intercept_ = W[d].copy() if self.fit_intercept else np.zeros(W.shape[1])
        self.loss_history_ = np.asarray(history, dtype=np.float64)
        self.n_iter_ = int(n_iter)
        self.classes_ = classes
        self.n_features_in_ = d
        return self

    def decision_function(self, X) -> np.ndarray:
        """w . x + b: shape (n,) for two classes (positive = ``classes_[1]``), else (n, n_classes)."""
        X = self._validate_predict_input(X)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


def primal_objective(Xa: np.ndarray, Y: np.ndarray, W: np.ndarray, C: float) -> float:
    """sum over problems of 1/2 ||w||^2 + C sum_i hinge(y_i w . x_i) (intercept included in w)."""
    margins = Y * (Xa @ W)
    return float(0.5 * np.sum(W * W) + C * np.sum(np.maximum(0.0, 1.0 - margins)))


def _dual_cd(Xa, Y, C, est, rng):
    n, k = Y.shape
    W = np.zeros((Xa.shape[1], k))
    histories, epochs, all_converged = [], 0, True
    for c in range(k):
        w, hist, n_ep, conv = _dual_cd_binary(Xa, Y[:, c], C, est.tol, est.max_iter, rng)
        W[:, c] = w
        histories.append(hist)
        epochs = max(epochs, n_ep)
        all_converged &= conv
    # objective of all problems together, per epoch (a finished problem keeps its last value)
    history = [sum(h[min(e, len(h) - 1)] for h in histories) for e in range(epochs)]
    return W, history, epochs, all_converged


_HIST_ROWS = 64  # epochs of w kept before their primal objectives are computed (one pass over X per block)


def _dual_cd_binary(Xa, y, C, tol, max_iter, rng):
    """LIBLINEAR's dual coordinate descent for the L1-loss SVM, with shrinking (Hsieh et al. 2008, Alg. 3).

    The epochs, their permutations (drawn from ``rng``) and the stopping rule run in the compiled
    :func:`._kernels.dual_cd_solve`; it stores ``w`` after every epoch, and the primal objectives of a
    block of epochs are computed at once (:func:`._kernels.block_objectives`) for ``loss_history_``.
    """
    n = Xa.shape[0]
    Xa = np.ascontiguousarray(Xa, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    w = np.zeros(Xa.shape[1])
    alpha = np.zeros(n)
    Qd = np.einsum("ij,ij->i", Xa, Xa)
    index = np.flatnonzero(Qd > 0.0).astype(np.int64)  # an all-zero example never changes w
    # epoch, active, full, converged flag (1; -1: w not finite), rows of hist used
    istate = np.array([0, index.size, index.size, 0, 0], dtype=np.int64)
    fstate = np.array([np.inf, -np.inf])  # last epoch's max / min projected gradient
    hist = np.empty((min(_HIST_ROWS, max_iter), Xa.shape[1]))
    norms = np.sqrt(Qd)
    history = []
    while True:
        status = dual_cd_solve(Xa, y, Qd, alpha, w, index, istate, fstate, C, tol, max_iter, rng, hist)
        block = hist[: istate[4]]
        if block.shape[0]:
            history.extend(block_objectives(Xa, y, norms, block, C))
        istate[4] = 0
        if status == 0:
            break
    return w, history, int(istate[0]), bool(istate[3] == 1)


def _pegasos(Xa, Y, C, est, rng):
    """Mini-batch Pegasos; each epoch's steps are :func:`._kernels.pegasos_epoch` (compiled)."""
    n, k = Y.shape
    Xa = np.ascontiguousarray(Xa, dtype=np.float64)
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    lam = 1.0 / (C * n)
    radius = 1.0 / np.sqrt(lam)
    W = np.zeros((Xa.shape[1], k))
    W_sum = np.zeros_like(W)
    n_avg = 0
    bs = min(int(est.batch_size), n)
    steps_per_epoch = -(-n // bs)
    total = est.max_iter * steps_per_epoch
    history = []
    t = 0
    for _ in range(est.max_iter):
        order = rng.permutation(n)
        t, summed = pegasos_epoch(Xa, Y, order, W, W_sum, t, lam, radius, bs, total)
        n_avg += summed
        history.append(primal_objective(Xa, Y, W_sum / n_avg if n_avg else W, C))
        if not np.isfinite(history[-1]):
            break
    W_out = W_sum / n_avg if n_avg else W
    return W_out, history, est.max_iter, True


def dual_coordinate_step(X, y, alpha, w, n: int, C: float) -> tuple[np.ndarray, np.ndarray]:
    """One coordinate-ascent step of the linear SVM dual on example ``n`` (EPFL notes L1050-1095, seed 004):
    the compiled pass ``linear_svm(solver="dual_cd")`` runs, on an active set holding only ``n``, without
    shrinking or an intercept.

    ``alpha`` (N,) are the dual variables in LIBLINEAR's scale (``0 <= alpha_n <= C``), ``w = sum_n alpha_n y_n
    x_n`` the matching primal vector; returns the updated ``(alpha, w)`` (new arrays). With EPFL's
    ``alpha_epfl in [0, 1]`` and ``w = 1/(lambda N) sum alpha_epfl y x`` this is ``C = 1/(lambda N)``,
    ``alpha = C alpha_epfl``.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    alpha = np.array(alpha, dtype=np.float64)
    w = np.array(w, dtype=np.float64)
    N = len(y)
    if X.ndim != 2 or X.shape[0] != N or alpha.shape != (N,) or w.shape != (X.shape[1],):
        raise ValueError(
            f"X (N, d), y (N,), alpha (N,) and w (d,) must agree, got {X.shape}, {y.shape}, {alpha.shape}, {w.shape}"
        )
    if not 0 <= int(n) < N:
        raise ValueError(f"n must index an example (0..{N - 1}), got {n}")
    if not set(np.unique(y)) <= {-1.0, 1.0}:
        raise ValueError("y must hold labels -1 and +1")
    Qd = np.einsum("ij,ij->i", X, X)
    index = np.array([int(n)] + [i for i in range(N) if i != int(n)], dtype=np.int64)
    istate = np.array([0, 1, 1, 0, 0], dtype=np.int64)  # epoch, active (only n), full, converged, hist rows used
    fstate = np.array([np.inf, -np.inf])  # no shrinking
    hist = np.empty((1, X.shape[1]))
    dual_cd_solve(X, y, Qd, alpha, w, index, istate, fstate, float(C), -1.0, 1, np.random.default_rng(0), hist)
    return alpha, w
