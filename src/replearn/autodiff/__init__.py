"""Reverse-mode automatic differentiation over numpy arrays.

* :class:`Tensor` (:mod:`.tensor`): an array with its computation graph; ``loss.backward()`` fills
  ``.grad`` of the leaves created with ``requires_grad=True``.
* :mod:`.ops`: the differentiable operations (broadcasting arithmetic, batched matmul, reductions,
  reshapes, gathers, element-wise non-linearities, softmax, concatenation, masking).
* :mod:`.optim`: :class:`SGD`, :class:`Adam` and :func:`clip_grad_norm`.
* :mod:`.gradcheck`: finite-difference checks used by the tests of every op, layer and loss.

The models built on it are in :mod:`replearn.deep`.
"""

from . import ops
from .gradcheck import check_gradients, numerical_gradient
from .optim import SGD, Adam, clip_grad_norm
from .tensor import Tensor, as_tensor, unbroadcast

__all__ = [
    "Tensor",
    "as_tensor",
    "unbroadcast",
    "ops",
    "SGD",
    "Adam",
    "clip_grad_norm",
    "check_gradients",
    "numerical_gradient",
]
