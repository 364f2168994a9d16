"""A node of the computation graph: an array, the arrays it came from, and how to send a gradient back.

Reverse-mode differentiation (CS229 notes §7.3, seed 000 L2846-3183: "backward pass ... the chain
rule applied in reverse order"; the per-op rules are the vector-Jacobian products of
:mod:`replearn.autodiff.ops`). ``loss.backward()``

1. orders the graph below ``loss`` topologically (iterative depth-first search, so deep graphs do
   not hit Python's recursion limit);
2. walks it from ``loss`` down, handing each node the sum of the gradients its consumers sent it
   and asking its ``_vjp`` for its parents' gradients;
3. adds the result into ``.grad`` of every leaf created with ``requires_grad=True``.

Intermediate gradients live in a dictionary local to the call: there is no global tape, and two
graphs never interfere. A node keeps its parents only when one of them needs a gradient, so
arithmetic on constants builds no graph.

Broadcasting: an op whose inputs were broadcast sums the incoming gradient back to each input's
shape (:func:`unbroadcast`), the adjoint of numpy's broadcasting rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["Tensor", "as_tensor", "unbroadcast"]


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes numpy broadcast to reach it from ``shape``."""
    if grad.shape == tuple(shape):
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad.reshape(shape)


class Tensor:
    """An array that remembers how it was computed.

    Parameters
    ----------
    data : array-like
        Stored as a floating-point array (float64 unless a float32 array is given).
    requires_grad : bool
        Whether ``backward`` should accumulate d(output)/d(this) into ``.grad``.

    Attributes
    ----------
    data : ndarray
    grad : ndarray or None
        The accumulated gradient (same shape as ``data``) after ``backward``; ``None`` before.
    """

    __array_priority__ = 100  # ndarray (op) Tensor defers to Tensor's reflected operators

    __slots__ = ("data", "grad", "requires_grad", "_parents", "_vjp", "op")

    def __init__(
        self,
        data,
        requires_grad: bool = False,
        _parents: Sequence[Tensor] = (),
        _vjp: Callable | None = None,
        op: str = "",
    ):
        arr = np.asarray(data)
        if arr.dtype != np.float32:
            arr = arr.astype(np.float64, copy=False)
        self.data = arr
        self.grad = None
        self.requires_grad = bool(requires_grad)
        self._parents = tuple(_parents)
        self._vjp = _vjp
        self.op = op

    # -- basic facts ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def T(self) -> Tensor:
        from . import ops

        return ops.transpose(self)

    def numpy(self) -> np.ndarray:
        """The value as a plain array (a view: do not modify)."""
        return self.data

    def item(self) -> float:
        return float(self.data.item())

    def detach(self) -> Tensor:
        """The same value as a constant: no gradient flows through it."""
        return Tensor(self.data)

    def zero_grad(self) -> None:
        self.grad = None

    def __repr__(self) -> str:
        flag = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor(shape={self.shape}{flag}, op={self.op or 'leaf'!r})"

    def __len__(self) -> int:
        return len(self.data)

    # -- differentiation -----------------------------------------------------------------------
    def backward(self, grad=None) -> None:
        """Accumulate d(self)/d(leaf) into ``leaf.grad`` for every leaf that requires a gradient.

        ``grad`` is the upstream gradient (same shape as ``self``); it defaults to 1 for a
        scalar and must be given otherwise.
        """
        if grad is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() without a gradient needs a scalar output, got shape {self.shape}; "
                    "pass grad= of the same shape"
                )
            grad = np.ones_like(self.data)
        grad = np.asarray(grad, dtype=self.data.dtype)
        if grad.shape != self.shape:
            raise ValueError(f"grad has shape {grad.shape}, expected {self.shape}")
        if not self.requires_grad:
            return
        order = _topological_order(self)
        grads: dict[int, np.ndarray] = {id(self): grad}
        for node in reversed(order):
            g = grads.pop(id(node), None)
            if g is None:
                continue
            if not node._parents:
                node.grad = g.copy() if node.grad is None else node.grad + g
                continue
            for parent, pg in zip(node._parents, node._vjp(g)):
                if pg is None or not parent.requires_grad:
                    continue
                key = id(parent)
                grads[key] = pg if key not in grads else grads[key] + pg

    # -- operators (the rules are in ops.py) -----------------------------------------------------
    def __add__(self, other):
        from . import ops

        return ops.add(self, other)

    def __radd__(self, other):
        from . import ops

        return ops.add(other, self)

    def __sub__(self, other):
        from . import ops

        return ops.sub(self, other)

    def __rsub__(self, other):
        from . import ops

        return ops.sub(other, self)

    def __mul__(self, other):
        from . import ops

        return ops.mul(self, other)

    def __rmul__(self, other):
        from . import ops

        return ops.mul(other, self)

    def __truediv__(self, other):
        from . import ops

        return ops.div(self, other)

    def __rtruediv__(self, other):
        from . import ops

        return ops.div(other, self)

    def __neg__(self):
        from . import ops

        return ops.neg(self)

    def __pow__(self, exponent):
        from . import ops

        return ops.power(self, exponent)

    def __matmul__(self, other):
        from . import ops

        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        from . import ops

        return ops.matmul(other, self)

    def __getitem__(self, index):
        from . import ops

        return ops.getitem(self, index)

    # -- methods mirroring numpy ------------------------------------------------------------------
    def sum(self, axis=None, keepdims=False):
        from . import ops

        return ops.sum(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        from . import ops

        return ops.mean(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        from . import ops

        return ops.max(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape):
        from . import ops

        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return ops.reshape(self, shape)

    def transpose(self, *axes):
        from . import ops

        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return ops.transpose(self, axes or None)

    def swapaxes(self, a: int, b: int):
        from . import ops

        return ops.swapaxes(self, a, b)

    def exp(self):
        from . import ops

        return ops.exp(self)

    def log(self):
        from . import ops

        return ops.log(self)

    def tanh(self):
        from . import ops

        return ops.tanh(self)

    def sigmoid(self):
        from . import ops

        return ops.sigmoid(self)

    def relu(self):
        from . import ops

        return ops.relu(self)


def as_tensor(x) -> Tensor:
    """``x`` itself if it is a :class:`Tensor`, else a constant wrapping it."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _topological_order(root: Tensor) -> list[Tensor]:
    """Nodes that need a gradient, each after all of its parents (iterative post-order DFS)."""
    order: list[Tensor] = []
    visited: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for parent in node._parents:
            if parent.requires_grad and id(parent) not in visited:
                stack.append((parent, False))
    return order
