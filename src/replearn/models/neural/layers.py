"""Layers with explicit forward and backward passes, vectorized over the batch (rows are examples).

Every layer is a small :class:`~replearn.base.BaseEstimator`: its settings are ``__init__`` arguments
and its learned arrays end in ``_`` (``coef_``, ``intercept_``), so a network saved by
:mod:`replearn.persistence` stores its layers as nested estimators. The protocol:

* ``build(input_shape, rng) -> output_shape`` creates the parameters (shapes exclude the batch axis);
* ``forward(X, training=False)`` computes the output and keeps what ``backward`` needs;
* ``backward(grad, need_input_grad=True)`` takes dJ/d(output), stores dJ/d(parameter) (see
  :meth:`Layer.gradients`) and returns dJ/d(input) (``None`` when not needed: the first layer);
* ``parameters()``, ``gradients()`` and ``decayed()`` list the trainable arrays (updated in place by
  :mod:`replearn.optim.optimizers`), their gradients, and whether weight decay applies to each;
  ``buffers()`` the state that training changes without gradients (batch normalization's running
  averages), which early stopping restores with the parameters.

The backward rules are the lemmas of CS229 notes §7.3.4 (seed 000 L3065-3125), written for a batch
stored as rows (X is n x d, so z = x W + b instead of the notes' z = W x + b, L3143-3217):

* dense, z = X W + b:  dJ/dW = X^T dJ/dZ,  dJ/db = sum over rows of dJ/dZ,  dJ/dX = dJ/dZ W^T;
* element-wise a = g(z):  dJ/dz = dJ/da * g'(z).
"""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval
from ...base import BaseEstimator
from .init import initialize

#: scikit-learn's MLP initialization (``Dense(init="sklearn")``): weights *and* biases uniform on
#: ±sqrt(factor / (fan_in + fan_out)), factor 6, or 2 for the logistic activation ("sklearn_logistic")
SKLEARN_INITS = {"sklearn": 6.0, "sklearn_logistic": 2.0}

__all__ = ["Layer", "Dense", "Maxout", "Dropout", "Flatten", "Reshape"]


class Layer(BaseEstimator):
    """Base class: a layer without parameters that passes its input through."""

    #: random generator used while training (dropout masks); set by the network, never saved
    _rng: np.random.Generator | None = None

    def __init__(self):
        pass

    def build(self, input_shape: tuple[int, ...], rng: np.random.Generator) -> tuple[int, ...]:
        """Create the parameters for inputs of ``input_shape`` (without the batch axis); return the output shape."""
        return tuple(input_shape)

    def forward(self, X: np.ndarray, training: bool = False) -> np.ndarray:
        return X

    def backward(self, grad: np.ndarray, need_input_grad: bool = True) -> np.ndarray | None:
        return grad

    def parameters(self) -> list[np.ndarray]:
        return []

    def gradients(self) -> list[np.ndarray]:
        return list(getattr(self, "_grads", []))

    def decayed(self) -> list[bool]:
        return []

    def buffers(self) -> list[np.ndarray]:
        return []


class Dense(Layer):
    """Fully connected layer ``Z = X W + b`` with W of shape (n_inputs, units).

    CS229 notes §7.2 (seed 000 L2704-2812), CS480/680 §9 (seed 003 L896-1018), EPFL notes NN
    (seed 004 L1807-1843). Weight decay applies to W, not to b.

    Parameters
    ----------
    units : int >= 1
    init : str
        One of ``replearn.models.neural.init.INITS`` (biases start at 0), or "sklearn" /
        "sklearn_logistic": scikit-learn's MLP rule (:data:`SKLEARN_INITS`), biases drawn too.
    """

    _constraints = {"units": Interval(int, 1, None)}

    def __init__(self, units=1, init="glorot_uniform"):
        self.units = units
        self.init = init

    def build(self, input_shape, rng):
        self._validate_params()
        if len(input_shape) != 1:
            raise ValueError(f"Dense expects flat inputs, got shape {tuple(input_shape)}; add a Flatten layer first")
        d = int(input_shape[0])
        if self.init in SKLEARN_INITS:
            bound = np.sqrt(SKLEARN_INITS[self.init] / (d + self.units))
            self.coef_ = rng.uniform(-bound, bound, size=(d, self.units))
            self.intercept_ = rng.uniform(-bound, bound, size=self.units)
            return (int(self.units),)
        self.coef_ = initialize((d, self.units), d, self.units, self.init, rng)
        self.intercept_ = np.zeros(self.units)
        return (int(self.units),)

    def forward(self, X, training=False):
        self._X = X
        Z = X @ self.coef_
        Z += self.intercept_  # in place: one pass, no second array
        return Z

    def backward(self, grad, need_input_grad=True):
        self._grads = [self._X.T @ grad, grad.sum(axis=0)]
        return grad @ self.coef_.T if need_input_grad else None

    def parameters(self):
        return [self.coef_, self.intercept_]

    def decayed(self):
        return [True, False]


class Maxout(Layer):
    """Maxout units (EPFL notes, seed 004 L1803-1805): ``a_j = max_k (x . w_jk + b_jk)``, k = 1..pieces.

    The weights of unit j, piece k are column ``j * pieces + k`` of ``coef_`` (n_inputs, units * pieces).
    The gradient flows only through the piece that attained the maximum (ties: the first piece).
    """

    _constraints = {"units": Interval(int, 1, None), "pieces": Interval(int, 1, None)}

    def __init__(self, units=1, pieces=2, init="he_normal"):
        self.units = units
        self.pieces = pieces
        self.init = init

    def build(self, input_shape, rng):
        self._validate_params()
        if len(input_shape) != 1:
            raise ValueError(f"Maxout expects flat inputs, got shape {tuple(input_shape)}")
        d, m = int(input_shape[0]), int(self.units) * int(self.pieces)
        self.coef_ = initialize((d, m), d, int(self.units), self.init, rng)
        self.intercept_ = np.zeros(m)
        return (int(self.units),)

    def forward(self, X, training=False):
        n = X.shape[0]
        Z = (X @ self.coef_ + self.intercept_).reshape(n, self.units, self.pieces)
        self._X = X
        self._arg = np.argmax(Z, axis=2)[:, :, None]
        return np.take_along_axis(Z, self._arg, axis=2)[:, :, 0]

    def backward(self, grad, need_input_grad=True):
        n = grad.shape[0]
        dZ = np.zeros((n, self.units, self.pieces))
        np.put_along_axis(dZ, self._arg, grad[:, :, None], axis=2)
        dZ = dZ.reshape(n, -1)
        self._grads = [self._X.T @ dZ, dZ.sum(axis=0)]
        return dZ @ self.coef_.T if need_input_grad else None

    def parameters(self):
        return [self.coef_, self.intercept_]

    def decayed(self):
        return [True, False]


class Dropout(Layer):
    """Inverted dropout: while training, zero each input with probability ``rate`` and scale the
    kept ones by ``1 / (1 - rate)``; at prediction time the layer is the identity.

    CS480/680 §9 (seed 003 L1038): keep each hidden unit with probability q = 1 - ``rate`` per
    mini-batch and multiply by 1/q so the expectation is unchanged; EPFL notes (seed 004
    L1859-1865) scale by p at test time instead, which gives the same predictions up to the
    constant factor. ``rate`` is the probability of *dropping* (Keras' convention; q = 0.8 in the
    EPFL notes is ``rate=0.2``).
    """

    _constraints = {"rate": Interval(float, 0.0, 1.0, closed="left")}

    def __init__(self, rate=0.5):
        self.rate = rate

    def build(self, input_shape, rng):
        self._validate_params()
        return tuple(input_shape)

    def forward(self, X, training=False, mask=None):
        """``mask`` (optional, already scaled by 1/(1-rate)) replaces the random draw, for tests."""
        if not training or (self.rate == 0 and mask is None):
            self._mask = None
            return X
        if mask is None:
            rng = self._rng if self._rng is not None else np.random.default_rng()
            keep = 1.0 - self.rate
            mask = rng.random(X.shape)
            np.less(mask, keep, out=mask)  # 1.0 where kept, 0.0 where dropped
            mask /= keep
        self._mask = mask
        return X * mask

    def backward(self, grad, need_input_grad=True):
        return grad if self._mask is None else grad * self._mask


class Flatten(Layer):
    """(n, C, H, W) -> (n, C*H*W), row-major (channel, row, column)."""

    def build(self, input_shape, rng):
        return (int(np.prod(input_shape)),)

    def forward(self, X, training=False):
        self._shape = X.shape
        return X.reshape(X.shape[0], -1)

    def backward(self, grad, need_input_grad=True):
        return grad.reshape(self._shape)


class Reshape(Layer):
    """(n, prod(shape)) -> (n, *shape); used to turn flattened images into (n, C, H, W)."""

    def __init__(self, shape=None):
        self.shape = shape

    def build(self, input_shape, rng):
        shape = tuple(int(s) for s in self.shape)
        if int(np.prod(input_shape)) != int(np.prod(shape)):
            raise ValueError(f"cannot reshape inputs of shape {tuple(input_shape)} into {shape}")
        return shape

    def forward(self, X, training=False):
        return X.reshape((X.shape[0],) + tuple(int(s) for s in self.shape))

    def backward(self, grad, need_input_grad=True):
        return grad.reshape(grad.shape[0], -1)
