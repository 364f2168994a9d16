"""CIML's regularized linear classifier: surrogate loss + regularizer, by (stochastic) (sub)gradient descent."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning, InputScaleError
from ...linalg import add_intercept
from ...optim._kernels import LOSS_CODES, PENALTY_CODES, margin_sgd_epoch
from ...optim.proximal import soft_threshold
from ...optim.stochastic import SCHEDULES, stochastic_gradient_descent
from ...validation import check_classification_targets, check_random_state, check_X_y
from ._binary import LinearScoresMixin, binary_problems, store_fit

_LOSSES = ("exponential", "hinge", "logistic", "squared")
_PENALTIES = ("l1", "l2", "lp", None)
_SOLVERS = ("gd", "sgd", "truncated_gradient")
_LN2 = np.log(2.0)
#: the most one step may move a margin ``y w^T x`` (the losses change on the scale of 1): larger steps cannot
#: settle, and the fit is refused before it starts (see ``LinearClassifier``, "Feature scale")
MAX_STEP_MARGIN = 1e4


def margin_loss(loss: str, z: np.ndarray) -> np.ndarray:
    """CIML eqs. 7.4-7.7 (seed 001 L2265-2273) as functions of the margin ``z = y * yhat``, ``y = +-1``.

    hinge ``max(0, 1 - z)``; logistic ``log(1 + e^{-z}) / log 2`` (the 1/log 2 makes ``l(0) = 1``,
    L2275); exponential ``e^{-z}``; squared ``(y - yhat)^2 = (1 - z)^2``.
    """
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - z)
    if loss == "logistic":
        return np.logaddexp(0.0, -z) / _LN2
    if loss == "exponential":
        return np.exp(-z)
    if loss == "squared":
        return (1.0 - z) ** 2
    raise ValueError(f"loss must be one of {list(_LOSSES)}, got {loss!r}")


def margin_loss_derivative(loss: str, z: np.ndarray) -> np.ndarray:
    """``d loss / d z`` (a subgradient for the hinge: ``-1`` where ``z <= 1``, as in CIML Alg. 22)."""
    if loss == "hinge":
        return np.where(z <= 1.0, -1.0, 0.0)
    if loss == "logistic":
        return -expit(-z) / _LN2
    if loss == "exponential":
        return -np.exp(-z)
    if loss == "squared":
        return -2.0 * (1.0 - z)
    raise ValueError(f"loss must be one of {list(_LOSSES)}, got {loss!r}")


class LinearClassifier(LinearScoresMixin, ClassifierMixin, BaseEstimator):
    """Regularized linear classifier: CIML ch. 7's optimization framework and ch. 14's stochastic variants.

    Objective (CIML eq. 7.8, seed 001 L2229-2291, written with the *mean* loss)::

        minimize_{w, b}  (1/n) sum_i loss(y_i, w^T x_i + b) + alpha * R(w),     y_i in {-1, +1}

    Losses (CIML eqs. 7.4-7.7, L2265-2273; ``z = y (w^T x + b)``): ``"hinge"`` max(0, 1 - z),
    ``"logistic"`` log(1 + e^{-z}) / log 2, ``"exponential"`` e^{-z}, ``"squared"`` (y - w^T x - b)^2.
    Regularizers (CIML §7.3, L2307-2321; the bias is never regularized, L2321): ``"l2"``
    ``1/2 ||w||^2`` (the ``lambda/2 ||w||^2`` of Alg. 22), ``"l1"`` ``||w||_1`` (subgradient 0 at 0,
    CIML L4420), ``"lp"`` ``(1/p) sum_d |w_d|^p`` with ``p >= 1`` (a smooth version of eq. 7.10's
    p-norm for p > 1), or None.

    Solvers (all through :func:`replearn.optim.stochastic.stochastic_gradient_descent`):

    * ``"gd"`` -- batch (sub)gradient descent, CIML Alg. 21 (L2356-2371) and, for the hinge loss
      with ``"l2"``, exactly Alg. 22 HingeRegularizedGD (L2445-2468) with CIML's step
      ``eta_CIML = learning_rate / n`` and ``lambda = n * alpha``. The hinge subgradient is
      ``-y x`` where ``y (w^T x + b) <= 1`` (eq. 7.27; CIML erratum 11: the text at L2440 inverts
      the regions -- the code follows Alg. 22). ``max_iter`` counts iterations.
    * ``"sgd"`` -- stochastic (sub)gradient descent, CIML Alg. 34 (§14.2, L4372-4388): batches of
      ``batch_size`` examples, a fresh permutation every epoch (L4406), the regularizer's gradient
      added in full to each batch-mean gradient (its share of the mean objective; L4398-4400), and
      by default CIML's step ``eta_k = eta_0 / sqrt(k)`` (``schedule="inverse_sqrt"``, L4402).
      ``max_iter`` counts epochs.
    * ``"truncated_gradient"`` -- the sparse variant of CIML §14.3 (L4412-4428), for
      ``penalty="l1"``: an SGD step on the loss, then every weight that the L1 step would carry
      across 0 is set to 0, i.e. ``w := S(w, eta alpha)`` (soft thresholding). CIML's eq. 14.8
      zeroes the *gradient* coordinate instead, which lands on 0 only by accident (erratum 16); the
      code implements the stated intent (L4424).

    Subgradient methods are not monotone; the loss history is recorded per epoch (per iteration for
    ``"gd"``) and the fit stops when the objective has not improved on its best value by
    ``tol * max(|best|, 1)`` for ``n_iter_no_change`` epochs. NaN or infinite values (e.g. the
    exponential loss with too large a step) or growth well beyond the starting objective (see
    :func:`~replearn.optim.stochastic.stochastic_gradient_descent`) raise
    :class:`~replearn.exceptions.DivergenceError`; ending a little above the start (noise of the
    subgradient steps) does not.

    Feature scale: one step of size ``eta`` on example ``x`` moves its margin by up to
    ``eta (||x||^2 + 1)`` (the gradient of a margin loss is a multiple of ``x``). Where the first step
    ``learning_rate`` times the largest ``||x_i||^2 + 1`` (the mean for ``"gd"``) exceeds
    ``MAX_STEP_MARGIN`` = 1e4 -- unstandardized features, e.g. raw breast-cancer areas of ~1e3 -- the
    iterates jump by orders of magnitude past the losses' scale of 1 and the objective grows instead of
    settling (the hinge and logistic losses at 1e5, the others sooner). ``fit`` then raises
    :class:`~replearn.exceptions.InputScaleError` before any step, saying to standardize the features or
    which ``learning_rate`` would do.

    The stochastic solvers' epochs run compiled (numba, :mod:`replearn._jit`; the plain Python loop
    without it): the same per-example updates in the same order for a given ``random_state``.

    Labels: ``classes_[1]`` is +1 and ``classes_[0]`` is -1. With K > 2 classes one binary
    problem is fitted per class (one-vs-all, CIML Alg. 13-14, with the scores ``w_k^T x + b_k``
    as confidences) and ``predict`` takes the largest score.

    Parameters
    ----------
    loss : {"hinge", "logistic", "exponential", "squared"}, default "hinge"
    penalty : {"l2", "l1", "lp", None}, default "l2"
    alpha : float >= 0, default 1e-3
        Regularization strength on the mean-loss scale (CIML's ``lambda = n alpha``).
    p : float >= 1, default 2.0
        Exponent of ``penalty="lp"``.
    solver : {"gd", "sgd", "truncated_gradient"}, default "sgd"
    learning_rate : float > 0, default 0.1
        ``eta_0``.
    schedule : {"constant", "inverse", "inverse_sqrt"}, default "inverse_sqrt"
    decay : float >= 0, default 1.0
    batch_size : int >= 1, default 1
        Batch size of the stochastic solvers.
    max_iter : int >= 1, default 1000
    tol : float >= 0, default 1e-3
    n_iter_no_change : int >= 1, default 5
    fit_intercept : bool, default True
    random_state : None, int or numpy Generator

    Attributes
    ----------
    classes_ : array (n_classes,)
    coef_ : array (1, n_features) or (n_classes, n_features)
    intercept_ : array (1,) or (n_classes,)
    n_iter_ : int array, one entry per binary problem
    loss_history_ : float array (n_problems, max(n_iter_) + 1), NaN-padded
    n_features_in_ : int

    scikit-learn equivalents (same objective): ``SGDClassifier(loss="hinge", penalty="l2",
    alpha=alpha)`` for the hinge with ``"l2"`` (its l2 penalty is also ``1/2 ||w||^2``); the
    optimum of ``"hinge"``+``"l2"`` is ``SVC(kernel="linear", C=1/(n alpha))``; of
    ``"logistic"``+``"l2"`` is ``LogisticRegression(C=1/(n alpha log 2))``; of ``"squared"``+``"l2"``
    is ``Ridge(alpha=n alpha / 2)`` on targets +-1 (scikit-learn's SGD ``squared_error`` is half of
    CIML's squared loss).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "loss": Options(set(_LOSSES)),
        "penalty": (None, Options({"l1", "l2", "lp"})),
        "alpha": Interval(float, 0.0, None),
        "p": Interval(float, 1.0, None),
        "solver": Options(set(_SOLVERS)),
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
        loss="hinge",
        penalty="l2",
        alpha=1e-3,
        p=2.0,
        solver="sgd",
        learning_rate=0.1,
        schedule="inverse_sqrt",
        decay=1.0,
        batch_size=1,
        max_iter=1000,
        tol=1e-3,
        n_iter_no_change=5,
        fit_intercept=True,
        random_state=None,
    ):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.p = p
        self.solver = solver
        self.learning_rate = learning_rate
        self.schedule = schedule
        self.decay = decay
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def _validate_params(self) -> None:
        super()._validate_params()  # the declared table; then the combination it cannot express
        if self.solver == "truncated_gradient" and self.penalty != "l1":
            raise ValueError(
                "solver='truncated_gradient' is the sparse SGD of CIML §14.3 and needs penalty='l1', "
                f"got {self.penalty!r}"
            )

    # -- objective ---------------------------------------------------------------------------------
    def _reg_value(self, w: np.ndarray) -> float:
        if self.penalty == "l2":
            return 0.5 * float(w @ w)
        if self.penalty == "l1":
            return float(np.abs(w).sum())
        if self.penalty == "lp":
            return float(np.sum(np.abs(w) ** self.p)) / float(self.p)
        return 0.0

    def _reg_grad(self, w: np.ndarray) -> np.ndarray:
        if self.penalty == "l2":
            return w
        if self.penalty == "l1":
            return np.sign(w)
        if self.penalty == "lp":
            return np.sign(w) * np.abs(w) ** (float(self.p) - 1.0)
        return np.zeros_like(w)

    def objective(self, theta: np.ndarray, Xa: np.ndarray, s: np.ndarray) -> float:
        """Mean loss + alpha R(w) at ``theta = [w, b]`` for ``s in {-1, +1}``."""
        d = Xa.shape[1] - int(self.fit_intercept)
        z = s * (Xa @ theta)
        return float(np.mean(margin_loss(self.loss, z))) + float(self.alpha) * self._reg_value(theta[:d])

    def gradient(self, theta: np.ndarray, Xa: np.ndarray, s: np.ndarray, *, with_l1: bool = True) -> np.ndarray:
        """(Sub)gradient of :meth:`objective` (batch mean of the loss part)."""
        d = Xa.shape[1] - int(self.fit_intercept)
        z = s * (Xa @ theta)
        g = Xa.T @ (s * margin_loss_derivative(self.loss, z)) / Xa.shape[0]
        if self.penalty is not None and (with_l1 or self.penalty != "l1"):
            g[:d] += float(self.alpha) * self._reg_grad(theta[:d])
        return g

    # -- fitting -----------------------------------------------------------------------------------
    def fit(self, X, y):
        """Fit one binary problem (or one per class); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y)
        classes = check_classification_targets(y)
        n, d = X.shape
        Xa = add_intercept(X) if self.fit_intercept else X
        self._check_step_scale(Xa)
        rng = check_random_state(self.random_state)
        thetas, histories, n_iters = [], [], []
        for t, label in binary_problems(y, classes):
            theta, history, n_iter = self._fit_binary(Xa, np.where(t, 1.0, -1.0), rng, label)
            thetas.append(theta)
            histories.append(history)
            n_iters.append(n_iter)
        store_fit(self, classes, thetas, histories, n_iters, d)
        return self

    def _check_step_scale(self, Xa: np.ndarray) -> None:
        """Refuse features so large that the first step moves a margin by more than ``MAX_STEP_MARGIN``."""
        sq = np.einsum("ij,ij->i", Xa, Xa) + (0.0 if self.fit_intercept else 1.0)
        size = float(np.mean(sq)) if self.solver == "gd" else float(np.max(sq))
        move = float(self.learning_rate) * size
        if move > MAX_STEP_MARGIN:
            i = int(np.argmax(sq))
            raise InputScaleError(
                f"X is on too large a scale for LinearClassifier's steps: row {i} has squared norm {sq[i]:.3g}, so "
                f"one step of learning_rate={self.learning_rate:g} moves a margin by up to {move:.3g} (the losses "
                f"change on the scale of 1; above {MAX_STEP_MARGIN:.0e} the iteration cannot settle); standardize "
                "the features (replearn.features.scaling.Standardize) or lower learning_rate below "
                f"{MAX_STEP_MARGIN / size:.2g}"
            )

    def _fit_binary(self, Xa, s, rng, label):
        n, p = Xa.shape
        d = p - int(self.fit_intercept)
        truncate = self.solver == "truncated_gradient"
        alpha = float(self.alpha)
        lam = np.zeros(p)
        lam[:d] = alpha

        def grad(theta, idx):
            return self.gradient(theta, Xa[idx], s[idx], with_l1=not truncate)

        def objective(theta):
            return self.objective(theta, Xa, s)

        full_batch = self.solver == "gd"
        epoch_fn = None
        if not full_batch:  # the same per-example (per-batch) updates, compiled (replearn._jit)
            Xc = np.ascontiguousarray(Xa, dtype=np.float64)
            sc = np.ascontiguousarray(s, dtype=np.float64)
            codes = (
                int(self.batch_size),
                d,
                LOSS_CODES[self.loss],
                PENALTY_CODES[self.penalty],
                alpha,
                float(self.p),
                truncate,
            )

            def epoch_fn(theta, order, etas):
                margin_sgd_epoch(Xc, sc, order, etas, theta, *codes)

        result = stochastic_gradient_descent(
            grad,
            objective,
            np.zeros(p),
            n,
            learning_rate=self.learning_rate,
            batch_size=n if full_batch else self.batch_size,
            schedule=self.schedule,
            decay=self.decay,
            max_epochs=self.max_iter,
            tol=self.tol,
            n_iter_no_change=self.n_iter_no_change,
            shuffle=not full_batch,
            random_state=rng,
            prox=(lambda theta, eta: soft_threshold(theta, eta * lam)) if truncate else None,
            warn=False,
            name=f"LinearClassifier(loss={self.loss!r}, solver={self.solver!r})",
            epoch_fn=epoch_fn,
        )
        if not result.converged:
            warnings.warn(
                f"LinearClassifier(loss={self.loss!r}, solver={self.solver!r}) did not converge for class "
                f"{label!r} in max_iter={self.max_iter} {'iterations' if full_batch else 'epochs'}: the objective "
                f"still improved by more than tol={self.tol:g}; increase max_iter or learning_rate",
                ConvergenceWarning,
                stacklevel=3,
            )
        return result.params, result.loss_history, result.n_iter

    # -- prediction --------------------------------------------------------------------------------
    @property
    def predict_proba(self):
        """``p(y = +1 | x) = sigmoid(w^T x + b)``; only for ``loss="logistic"`` (others are not probabilistic)."""
        if self.loss != "logistic":
            raise AttributeError(f"predict_proba is only available for loss='logistic', not loss={self.loss!r}")
        return self._predict_proba

    def _predict_proba(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p1 = expit(scores)
            return np.column_stack([1.0 - p1, p1])
        proba = expit(scores)
        return proba / proba.sum(axis=1, keepdims=True)
