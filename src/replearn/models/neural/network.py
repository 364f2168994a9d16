"""The training loop shared by :class:`~replearn.models.neural.mlp.MLP` and
:class:`~replearn.models.neural.cnn.CNN`: mini-batch stochastic optimization of a layer stack.

Objective of one mini-batch B (the one scikit-learn's ``MLPClassifier`` minimizes)::

    J_B(theta) = (1/|B|) sum_{i in B} loss(f_theta(x_i), y_i) + alpha / (2 |B|) * sum_layers ||W||_F^2

The penalty covers every weight matrix and convolution kernel, never a bias. In CS229's form
J + (lambda/2)||theta||^2 with a mean loss (§9.1 weight decay, seed 000 L3845-3915) this is
lambda = alpha / |B|: scikit-learn's alpha, not a batch-size-free lambda.

One epoch (CS229 notes §7.1, seed 000 L2599-2629; annotation L2500-2531):

* ``sampling="shuffle"``: shuffle the training set, then sweep it in consecutive batches of
  ``batch_size`` (the last one smaller) — scikit-learn's ``shuffle=True``;
* ``sampling="replacement"``: ceil(n / batch_size) steps, each on ``batch_size`` examples drawn
  uniformly without replacement *within* the step, independently across steps (Alg. 2; with
  ``batch_size=1`` Alg. 1's "sample j uniformly").

Each step: forward pass storing the z's and a's, fused output loss giving
delta^[r] = dJ/dz^[r] (prediction minus target), backward pass (Alg. 3-5: delta^[k] =
(W^[k+1])^T delta^[k+1] ⊙ g'(z^[k]), dJ/dW^[k] = delta^[k] a^[k-1]^T), weight decay added to the
weight gradients, then one optimizer step (:mod:`replearn.optim.optimizers`) with the epoch's learning
rate (:mod:`replearn.optim.schedules`).

Stopping (as scikit-learn's): without early stopping, training stops when the epoch's objective
has not improved on the best one by more than ``tol`` for more than ``n_iter_no_change``
consecutive epochs. With ``early_stopping`` the same rule watches the validation loss instead, and
the weights of the epoch with the lowest validation loss are restored at the end (CIML §10.2 uses
early stopping instead of regularization, seed 001 L3353, L3452-3458; scikit-learn watches the
validation *accuracy / R²* instead of the loss). Reaching ``max_iter`` warns
:class:`~replearn.exceptions.ConvergenceWarning`. A NaN/inf loss or weight raises
:class:`~replearn.exceptions.DivergenceError`, and so does a mini-batch objective above
1e6 * max(first mini-batch objective, 1): a cross-entropy network with far too large a step makes
its logits grow geometrically for many epochs before they overflow, and the "no improvement" rule
would otherwise stop it quietly with a useless model.

Recorded per epoch: ``loss_curve_`` (mean data loss over the epoch's mini-batches, computed while
training — with dropout active and the weights moving, as scikit-learn's ``loss_curve_`` but without
the penalty), ``loss_history_`` (the same plus the penalty: the objective), and
``validation_loss_curve_`` (data loss on the held-out part at the end of the epoch, dropout off;
empty without a validation split).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator
from ...exceptions import ConvergenceWarning, DivergenceError
from ...optim.optimizers import OPTIMIZERS, make_optimizer
from ...optim.schedules import SCHEDULES, make_schedule
from ...validation import check_random_state
from .init import INITS
from .losses import LOSSES
from .normalization import NORMALIZATIONS

__all__ = ["NeuralNetworkBase", "forward", "backward", "validation_split"]

_SAMPLING = ("shuffle", "replacement")
#: a mini-batch objective this many times the first one (and above 1) counts as divergence
_BLOWUP = 1e6


def forward(layers, X: np.ndarray, training: bool = False) -> np.ndarray:
    """Output of the layer stack (pre-activation of the output layer)."""
    for layer in layers:
        X = layer.forward(X, training=training)
    return X


def backward(layers, grad: np.ndarray) -> None:
    """Back-propagate dJ/d(output) through the stack; the first layer's input gradient is skipped."""
    for k in range(len(layers) - 1, -1, -1):
        grad = layers[k].backward(grad, need_input_grad=k > 0)


def validation_split(n: int, fraction: float, labels: np.ndarray | None, rng: np.random.Generator):
    """Indices (train, validation); stratified by ``labels`` when given (each class split in proportion,
    at least one validation example per class with two or more members)."""
    perm = rng.permutation(n)
    if labels is None:
        n_val = min(max(int(round(fraction * n)), 1), n - 1)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])
    order = perm[np.argsort(labels[perm], kind="stable")]  # grouped by class, shuffled within
    _, starts, counts = np.unique(labels[order], return_index=True, return_counts=True)
    take = np.where(counts >= 2, np.maximum(np.round(fraction * counts).astype(int), 1), 0)
    take = np.minimum(take, counts - 1)
    is_val = np.zeros(n, dtype=bool)
    for s, k in zip(starts, take):
        is_val[s : s + k] = True
    if not is_val.any():
        raise ValueError("the validation split is empty; use a larger validation_fraction or more data")
    return np.sort(order[~is_val]), np.sort(order[is_val])


_UNIT = Interval(float, 0.0, 1.0, closed="left")

#: the training hyperparameters shared by the MLP and the CNN and their valid values (replearn._constraints;
#: the optimizers check their own settings the same way)
NETWORK_CONSTRAINTS = {
    "solver": Options(set(OPTIMIZERS)),
    "learning_rate_init": Interval(float, 0.0, None, closed="neither"),
    "lr_schedule": Options(set(SCHEDULES)),
    "lr_decay": (None, Interval(float, 0.0, None)),
    "batch_size": (None, Interval(int, 1, None)),
    "max_iter": Interval(int, 1, None),
    "alpha": Interval(float, 0.0, None),
    "dropout": _UNIT,
    "momentum": _UNIT,
    "beta_1": _UNIT,
    "beta_2": _UNIT,
    "rho": _UNIT,
    "epsilon": Interval(float, 0.0, None, closed="neither"),
    "sampling": Options(set(_SAMPLING)),
    "early_stopping": (None, Boolean()),
    "validation_fraction": (None, _UNIT),
    "n_iter_no_change": Interval(int, 1, None),
    "tol": Interval(float, 0.0, None),
    "init": Options(set(INITS) | {"auto"}),
    "normalization": (None, Options(set(NORMALIZATIONS))),
    "warm_start": Boolean(),
}


class NeuralNetworkBase(BaseEstimator):
    """Shared hyperparameter checks, training loop and prediction of the neural models.

    Subclasses define ``_build_layers(n_features, n_outputs, rng) -> list of layers`` and
    ``_hidden_activation`` (for ``init="auto"``).
    """

    # -- hyperparameters -------------------------------------------------------------------------
    def _check_training_params(self) -> None:
        """The hyperparameters against the class's ``_constraints`` (:data:`NETWORK_CONSTRAINTS` and its own)."""
        self._validate_params()

    def _early_stopping(self) -> bool:
        """``early_stopping`` resolved: ``None`` means on for regression, off for classification."""
        if self.early_stopping is None:
            return getattr(self, "task", "classification") == "regression"
        return bool(self.early_stopping)

    def _validation_fraction(self) -> float:
        early_stopping = self._early_stopping()
        if self.validation_fraction is None:
            return 0.1 if early_stopping else 0.0
        if early_stopping and self.validation_fraction == 0:
            raise ValueError("early_stopping=True needs validation_fraction > 0 (or None for 0.1)")
        return float(self.validation_fraction)

    # -- training --------------------------------------------------------------------------------
    def _train(self, X: np.ndarray, T: np.ndarray, output: str, n_outputs: int, stratify: np.ndarray | None) -> None:
        """Fit the layers to inputs ``X`` and encoded targets ``T`` (integer labels for ``output="softmax"``,
        else an (n, n_outputs) array) with the output non-linearity ``output`` fused into the loss."""
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        frac = self._validation_fraction()
        if frac > 0:
            if n < 2:
                raise ValueError("a validation split needs at least 2 samples")
            tr, va = validation_split(n, frac, stratify, rng)
            X_tr, T_tr, X_va, T_va = X[tr], T[tr], X[va], T[va]
        else:
            X_tr, T_tr, X_va, T_va = X, T, None, None
        n_tr = X_tr.shape[0]

        layers = getattr(self, "layers_", None) if self.warm_start else None
        if layers is None or not self._compatible(layers, X.shape[1], n_outputs):
            layers = self._build_layers(X.shape[1], n_outputs, rng)
        for layer in layers:
            layer._rng = rng
        params = [p for layer in layers for p in layer.parameters()]
        # back-propagation stops at the lowest layer with parameters: below it (a Reshape, a Dropout on the
        # inputs) nothing is learned, so its input gradient is never needed
        trained = layers[next((k for k, layer in enumerate(layers) if layer.parameters()), 0) :]
        state = params + [b for layer in layers for b in layer.buffers()]  # what early stopping restores
        early_stopping = self._early_stopping()
        decayed = [k for k, flag in enumerate(f for layer in layers for f in layer.decayed()) if flag]
        loss_fn = LOSSES[output]
        optimizer = make_optimizer(
            self.solver,
            learning_rate=self.learning_rate_init,
            momentum=self.momentum,
            beta_1=self.beta_1,
            beta_2=self.beta_2,
            rho=self.rho,
            epsilon=self.epsilon,
        )
        schedule = make_schedule(
            self.lr_schedule, self.learning_rate_init, decay=self.lr_decay, max_epochs=self.max_iter
        )
        B = min(200, n_tr) if self.batch_size is None else min(int(self.batch_size), n_tr)
        n_steps = -(-n_tr // B)
        alpha = float(self.alpha)

        data_curve, objective_curve, val_curve = [], [], []
        best, no_improvement, best_params, best_epoch = np.inf, 0, None, None
        first_loss = None
        stopped = False
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            for epoch in range(self.max_iter):
                optimizer.learning_rate = schedule(epoch)
                if self.sampling == "shuffle":
                    perm = rng.permutation(n_tr)
                    batches = (perm[i : i + B] for i in range(0, n_tr, B))
                else:
                    batches = (rng.choice(n_tr, size=B, replace=False) for _ in range(n_steps))
                data_sum = pen_sum = 0.0
                seen = 0
                for idx in batches:
                    b = idx.shape[0]
                    out = forward(layers, X_tr[idx], training=True)
                    loss, grad = loss_fn(out, T_tr[idx])
                    backward(trained, grad)
                    grads = [g for layer in layers for g in layer.gradients()]
                    penalty = 0.0
                    if alpha > 0:
                        scale = alpha / b
                        for k in decayed:
                            grads[k] += scale * params[k]
                            penalty += float(np.vdot(params[k], params[k]))
                        penalty *= 0.5 * scale
                    if first_loss is None:
                        first_loss = loss + penalty
                    if not np.isfinite(loss + penalty):
                        self._diverged(epoch, "loss became NaN or infinite")
                    if loss + penalty > _BLOWUP * max(first_loss, 1.0):
                        self._diverged(epoch, f"loss grew from {first_loss:.3g} to {loss + penalty:.3g}")
                    optimizer.step(params, grads)
                    data_sum += loss * b
                    pen_sum += penalty * b
                    seen += b
                if not all(np.isfinite(p).all() for p in params):
                    self._diverged(epoch, "weights became NaN or infinite")
                data_curve.append(data_sum / seen)
                objective_curve.append((data_sum + pen_sum) / seen)
                if X_va is not None:
                    val_loss, _ = loss_fn(forward(layers, X_va), T_va, need_grad=False)
                    if not np.isfinite(val_loss):
                        self._diverged(epoch, "validation loss became NaN or infinite")
                    val_curve.append(val_loss)
                watched = val_curve[-1] if early_stopping else objective_curve[-1]
                no_improvement = no_improvement + 1 if watched > best - self.tol else 0
                if watched < best:
                    best = watched
                    if early_stopping:
                        best_params = [p.copy() for p in state]
                        best_epoch = epoch + 1
                if no_improvement > self.n_iter_no_change:
                    stopped = True
                    break

        if early_stopping and best_params is not None:
            for p, q in zip(state, best_params):
                p[...] = q
        for layer in layers:
            layer._rng = None
        self.layers_ = layers
        self.n_iter_ = len(data_curve)
        self.loss_curve_ = np.asarray(data_curve, dtype=np.float64)
        self.loss_history_ = np.asarray(objective_curve, dtype=np.float64)
        self.validation_loss_curve_ = np.asarray(val_curve, dtype=np.float64)
        self.best_epoch_ = best_epoch
        self.best_validation_loss_ = float(best) if early_stopping else None
        if not stopped:
            what = "validation loss" if early_stopping else "training objective"
            warnings.warn(
                f"{type(self).__name__} stopped at max_iter={self.max_iter} epochs while the {what} was still "
                f"improving by more than tol={self.tol:g}; increase max_iter or learning_rate_init",
                ConvergenceWarning,
                stacklevel=3,
            )

    def _diverged(self, epoch: int, what: str):
        raise DivergenceError(
            f"the {what} in epoch {epoch + 1}; the learning rate "
            f"{self.learning_rate_init:g} ({self.solver}) is too large for this network — lower "
            "learning_rate_init or standardize the features"
        )

    @staticmethod
    def _compatible(layers, n_features: int, n_outputs: int) -> bool:
        dense = [layer for layer in layers if hasattr(layer, "coef_")]
        if not dense:
            return False
        first, last = dense[0], dense[-1]
        n_in = first.input_shape_ if hasattr(first, "input_shape_") else [first.coef_.shape[0]]
        return int(np.prod(n_in)) == n_features and last.coef_.shape[-1] == n_outputs

    # -- prediction ------------------------------------------------------------------------------
    def _forward_eval(self, X) -> np.ndarray:
        X = self._validate_predict_input(X)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            return forward(self.layers_, X)
