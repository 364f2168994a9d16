"""Activation layers: ReLU, leaky ReLU, ELU, sigmoid, tanh, identity (element-wise) and softmax (per row).

Each layer's backward pass multiplies the incoming gradient by the derivative (CS229 notes §7.3.4
Lemma, seed 000 L3100-3125: a = g(z) => dJ/dz = dJ/da * g'(z)):

* ReLU(z) = max(z, 0) (CS229 L2635-2652), derivative 1{z > 0} (0 at z = 0, the subgradient
  scikit-learn also uses). CS229's annotations L3153/L3183 print "⊙ ReLU(z)"; the factor is ReLU'(z).
* leaky ReLU(z) = max(a z, z) with slope a in [0, 1) (EPFL notes, seed 004 L1795-1801).
* ELU(z) = z for z > 0, a (e^z - 1) for z <= 0 (a = 1 by default; Clevert et al. 2016), derivative 1 for
  z > 0 and a e^z = ELU(z) + a for z <= 0. CS480/680 lists it (seed 003 L923) as
  "elu(t) = t_+ + t_-(exp(t) 1)", garbled in extraction: the function is t_+ + (exp(t_-) - 1) with
  t_- = min(t, 0), not the product t_- (e^t - 1) (which is positive for t < 0); the tests check the values.
* sigmoid s(z) = 1 / (1 + e^-z), derivative s(z) (1 - s(z)). CIML eq. 9.41 (seed 001 L3178) states
  ds/dz = z s(z)^2, which is wrong (erratum 12 of its catalogue); tests check s(1-s) numerically.
* tanh, derivative 1 - tanh^2 (CIML §10.2, seed 001 L3359-3417). CS480/680 (seed 003 L925) prints
  "tanh = 1 - 2 sgm(t)"; the identity is tanh(t) = 2 sgm(2t) - 1 (checked in the tests).
* softmax(z)_k = e^{z_k} / sum_j e^{z_j} (CS229 §3.2.3, seed 000 L839-961), computed after subtracting
  the row maximum; backward: dJ/dz = s * (dJ/ds - <dJ/ds, s>) per row (Jacobian diag(s) - s s^T).
  Networks never use this layer at the output during training: the softmax is fused with the
  cross-entropy (:mod:`replearn.models.neural.losses`) for stability.

The maxout unit has its own weights and lives in :mod:`replearn.models.neural.layers`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..._constraints import Interval
from .layers import Layer

__all__ = ["ReLU", "LeakyReLU", "ELU", "Sigmoid", "Tanh", "Identity", "Softmax", "ACTIVATIONS", "softmax"]


def softmax(Z: np.ndarray) -> np.ndarray:
    """Row-wise softmax, computed stably."""
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


class ReLU(Layer):
    """max(z, 0)."""

    def forward(self, X, training=False):
        self._mask = X > 0
        # fmax, not maximum: NaN -> 0 like where(z > 0, z, 0) (a scalar where is ~10x slower)
        return np.fmax(X, 0.0)

    def backward(self, grad, need_input_grad=True):
        return grad * self._mask


class LeakyReLU(Layer):
    """max(a z, z) for slope a = ``negative_slope`` in [0, 1)."""

    _constraints = {"negative_slope": Interval(float, 0.0, 1.0, closed="left")}

    def __init__(self, negative_slope=0.01):
        self.negative_slope = negative_slope

    def build(self, input_shape, rng):
        self._validate_params()
        return tuple(input_shape)

    def forward(self, X, training=False):
        self._slope = np.where(X > 0, 1.0, self.negative_slope)
        return X * self._slope

    def backward(self, grad, need_input_grad=True):
        return grad * self._slope


class ELU(Layer):
    """Exponential linear unit: z for z > 0, ``alpha (e^z - 1)`` for z <= 0 (``alpha`` > 0, default 1)."""

    _constraints = {"alpha": Interval(float, 0.0, None, closed="neither")}

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def build(self, input_shape, rng):
        self._validate_params()
        return tuple(input_shape)

    def forward(self, X, training=False):
        a = float(self.alpha)
        pos = X > 0
        out = np.where(pos, X, a * np.expm1(np.minimum(X, 0.0)))
        self._slope = np.where(pos, 1.0, out + a)  # d/dz a (e^z - 1) = a e^z = out + a
        return out

    def backward(self, grad, need_input_grad=True):
        return grad * self._slope


class Sigmoid(Layer):
    """1 / (1 + exp(-z)), derivative s (1 - s)."""

    def forward(self, X, training=False):
        self._out = expit(X)
        return self._out

    def backward(self, grad, need_input_grad=True):
        s = self._out
        return grad * s * (1.0 - s)


class Tanh(Layer):
    """tanh(z), derivative 1 - tanh(z)^2."""

    def forward(self, X, training=False):
        self._out = np.tanh(X)
        return self._out

    def backward(self, grad, need_input_grad=True):
        t = self._out
        return grad * (1.0 - t * t)


class Identity(Layer):
    """z (a linear layer stack collapses to one linear map, CS229 L2814-2834)."""


class Softmax(Layer):
    """Row-wise softmax with its full Jacobian-vector product in ``backward``."""

    def forward(self, X, training=False):
        self._out = softmax(X)
        return self._out

    def backward(self, grad, need_input_grad=True):
        s = self._out
        return s * (grad - np.sum(grad * s, axis=1, keepdims=True))


#: hidden-layer activation name -> layer class ("logistic" is scikit-learn's name for the sigmoid)
ACTIVATIONS: dict[str, type[Layer]] = {
    "relu": ReLU,
    "leaky_relu": LeakyReLU,
    "elu": ELU,
    "sigmoid": Sigmoid,
    "logistic": Sigmoid,
    "tanh": Tanh,
    "identity": Identity,
}
