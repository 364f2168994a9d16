"""The mini-batch loop shared by the :mod:`replearn.deep` estimators.

One epoch: shuffle the ``n`` training indices with the estimator's generator, sweep them in
consecutive batches of ``batch_size`` (the last one smaller), and for each batch compute the loss
graph, back-propagate, optionally clip the joint gradient norm, and take one Adam step. The epoch's
entry in the returned history is the mean of its batch losses (computed while the weights move,
as scikit-learn's ``loss_curve_``). A NaN or infinite loss raises
:class:`~replearn.exceptions.DivergenceError` (too large a learning rate, usually), so training never
stops quietly with a broken model. There is no tolerance-based stopping: the models here are trained
for a fixed number of epochs ``max_iter``, and ``loss_history_`` shows whether that was enough.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..autodiff import Adam, Tensor, clip_grad_norm
from ..exceptions import DivergenceError

__all__ = ["train_epochs", "check_finite_loss"]


def check_finite_loss(value: float, where: str) -> None:
    if not np.isfinite(value):
        raise DivergenceError(f"{where}: the loss became {value}; lower the learning rate")


def train_epochs(
    params: list[Tensor],
    batch_loss: Callable[[np.ndarray], Tensor],
    n: int,
    *,
    batch_size: int,
    max_iter: int,
    learning_rate: float,
    rng: np.random.Generator,
    grad_clip: float | None = None,
    weight_decay: float = 0.0,
    name: str = "training",
) -> list[float]:
    """Train ``params`` on the mini-batch loss ``batch_loss(indices)`` for ``max_iter`` epochs; return the history."""
    opt = Adam(params, lr=learning_rate, weight_decay=weight_decay)
    B = max(1, min(int(batch_size), n))
    history = []
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        for epoch in range(int(max_iter)):
            perm = rng.permutation(n)
            total, count = 0.0, 0
            for start in range(0, n, B):
                idx = perm[start : start + B]
                opt.zero_grad()
                loss = batch_loss(idx)
                value = loss.item()
                check_finite_loss(value, f"{name}, epoch {epoch}")
                loss.backward()
                if grad_clip is not None:
                    clip_grad_norm(params, grad_clip)
                opt.step()
                total += value * idx.size
                count += idx.size
            history.append(total / count)
    return history
