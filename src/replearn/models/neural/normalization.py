"""Batch normalization and layer normalization, with hand-written backward passes.

Both standardize their input and then apply a learned per-feature gain and offset::

    x_hat = (x - mu) / sqrt(var + eps),    out = gamma * x_hat + beta

and differ only in the axes the statistics are taken over.

* **Batch normalization** (Ioffe & Szegedy, 2015; CS480/680 §9, seed 003 L1040: "batch
  normalization to ensure that the mean and variance of all the minibatches are the same" — the
  notes name it only): mu and var are taken per feature over the examples of the mini-batch — per
  column of an (n, d) input; per channel over the examples and all positions of an (n, C, H, W) input
  (the convolutional form, so a channel keeps one gain). While training the batch statistics are used
  and exponential moving averages are kept, ``running = (1 - momentum) running + momentum batch``
  (``running_var_`` from the biased batch variance, as Keras; PyTorch uses the unbiased one);
  at prediction time (``training=False``) the running averages are used, so a prediction does not
  depend on the other examples of its batch.
* **Layer normalization** (Ba, Kiros & Hinton, 2016; CS480/680 names it in the transformer, seed 003
  L1175): mu and var are taken per example over its features (over all of (C, H, W) for an image
  tensor), the same computation in training and prediction; the gain and offset are per feature
  (per channel for image tensors, as a group normalization with one group).

Backward pass, for the m values x_1..m that share one mu and var (``g = dJ/dout``)::

    dJ/dgamma = sum g * x_hat,   dJ/dbeta = sum g   (summed over the normalized axes for BN,
                                                     over the examples for LN)
    d = g * gamma
    dJ/dx = (d - mean(d) - x_hat * mean(d * x_hat)) / sqrt(var + eps)

(the means over the m values), which accounts for mu and var depending on every x. In prediction mode
batch normalization is a fixed affine map and ``dJ/dx = g * gamma / sqrt(running_var + eps)``.
"""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval
from .layers import Layer

__all__ = ["BatchNorm", "LayerNorm", "NORMALIZATIONS"]

_EPS = Interval(float, 0.0, None, closed="neither")


def _feature_view(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Shape of the per-feature parameters broadcast against a batch: (1, d) or (1, C, 1, 1)."""
    return (1, shape[0]) if len(shape) == 1 else (1, shape[0]) + (1,) * (len(shape) - 1)


class _Normalization(Layer):
    """Shared parameters (gain ``gamma_`` = 1, offset ``beta_`` = 0) of the two normalizations."""

    def build(self, input_shape, rng):
        self._validate_params()
        shape = tuple(int(s) for s in input_shape)
        if len(shape) not in (1, 3):
            raise ValueError(
                f"{type(self).__name__} expects inputs of shape (features,) or (channels, height, width), got {shape}"
            )
        self.gamma_ = np.ones(shape[0])
        self.beta_ = np.zeros(shape[0])
        return shape

    def _affine(self, X_hat: np.ndarray) -> np.ndarray:
        view = _feature_view(X_hat.shape[1:])
        return X_hat * self.gamma_.reshape(view) + self.beta_.reshape(view)

    def _param_grads(self, grad: np.ndarray) -> None:
        axes = (0,) if grad.ndim == 2 else (0, 2, 3)
        self._grads = [np.sum(grad * self._X_hat, axis=axes), np.sum(grad, axis=axes)]

    def _input_grad(self, grad: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        """dJ/dx for x_hat standardized over ``axes`` (stored ``_X_hat``, ``_inv_std``)."""
        d = grad * self.gamma_.reshape(_feature_view(grad.shape[1:]))
        X_hat = self._X_hat
        mean_d = d.mean(axis=axes, keepdims=True)
        mean_dx = (d * X_hat).mean(axis=axes, keepdims=True)
        return (d - mean_d - X_hat * mean_dx) * self._inv_std

    def parameters(self):
        return [self.gamma_, self.beta_]

    def decayed(self):
        return [False, False]


class BatchNorm(_Normalization):
    """Batch normalization of (n, d) or (n, C, H, W) inputs (statistics per feature / channel).

    Parameters
    ----------
    momentum : float in (0, 1], default 0.1
        Weight of the current batch in the running averages (PyTorch's convention; Keras' momentum
        0.99 is ``momentum=0.01`` here).
    eps : float > 0, default 1e-5

    Learned: ``gamma_``, ``beta_`` (trained), ``running_mean_``, ``running_var_`` (moving averages,
    starting at 0 and 1).
    """

    _constraints = {"momentum": Interval(float, 0.0, 1.0, closed="right"), "eps": _EPS}

    def __init__(self, momentum=0.1, eps=1e-5):
        self.momentum = momentum
        self.eps = eps

    def build(self, input_shape, rng):
        shape = super().build(input_shape, rng)
        self.running_mean_ = np.zeros(shape[0])
        self.running_var_ = np.ones(shape[0])
        return shape

    def forward(self, X, training=False):
        axes = (0,) if X.ndim == 2 else (0, 2, 3)
        view = _feature_view(X.shape[1:])
        self._training = training
        if training:
            mu = X.mean(axis=axes)
            var = X.var(axis=axes)
            m = float(self.momentum)
            self.running_mean_ *= 1.0 - m
            self.running_mean_ += m * mu
            self.running_var_ *= 1.0 - m
            self.running_var_ += m * var
        else:
            mu, var = self.running_mean_, self.running_var_
        inv_std = 1.0 / np.sqrt(var + self.eps)
        self._inv_std = inv_std.reshape(view)
        self._X_hat = (X - mu.reshape(view)) * self._inv_std
        return self._affine(self._X_hat)

    def backward(self, grad, need_input_grad=True):
        self._param_grads(grad)
        if not need_input_grad:
            return None
        if not self._training:  # a fixed affine map
            return grad * (self.gamma_.reshape(self._inv_std.shape) * self._inv_std)
        return self._input_grad(grad, (0,) if grad.ndim == 2 else (0, 2, 3))

    def buffers(self):
        return [self.running_mean_, self.running_var_]


class LayerNorm(_Normalization):
    """Layer normalization of (n, d) or (n, C, H, W) inputs (statistics per example).

    Parameters
    ----------
    eps : float > 0, default 1e-5

    Learned: ``gamma_``, ``beta_`` (one per feature, or per channel for image tensors).
    """

    _constraints = {"eps": _EPS}

    def __init__(self, eps=1e-5):
        self.eps = eps

    def forward(self, X, training=False):
        axes = tuple(range(1, X.ndim))
        mu = X.mean(axis=axes, keepdims=True)
        var = X.var(axis=axes, keepdims=True)
        self._inv_std = 1.0 / np.sqrt(var + self.eps)
        self._X_hat = (X - mu) * self._inv_std
        return self._affine(self._X_hat)

    def backward(self, grad, need_input_grad=True):
        self._param_grads(grad)
        if not need_input_grad:
            return None
        return self._input_grad(grad, tuple(range(1, grad.ndim)))


#: the ``normalization`` hyperparameter of the MLP and the CNN -> layer class
NORMALIZATIONS: dict[str, type[Layer]] = {"batch": BatchNorm, "layer": LayerNorm}
