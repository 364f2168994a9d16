"""The differentiable operations: a forward numpy expression and its vector-Jacobian product each.

For ``y = f(x)`` and the gradient ``g = dL/dy`` arriving from above, each op returns
``dL/dx = J_f(x)^T g`` without forming the Jacobian. The rules (with ``*`` element-wise):

* ``a + b``: ``g, g``; ``a * b``: ``g * b, g * a``; ``a / b``: ``g / b, -g a / b^2`` -- each summed
  back over broadcast axes (:func:`~replearn.autodiff.tensor.unbroadcast`);
* ``A @ B`` (batched over leading axes): ``g B^T, A^T g`` -- CS229 notes §7.3.4's lemma
  ``dJ/dW = (dJ/dz) u^T``, ``dJ/du = W^T dJ/dz`` (seed 000 L3065-3125);
* ``sum``/``mean`` over axes: ``g`` broadcast back (divided by the count for the mean);
* ``reshape``/``transpose``: the inverse reshape/permutation of ``g``;
* ``x[idx]`` (gather): ``g`` scattered into zeros with ``np.add.at``, so repeated indices add up;
* ``exp``: ``g * y``; ``log``: ``g / x``; ``tanh``: ``g (1 - y^2)``; ``sigmoid``: ``g y (1 - y)``;
  ``relu``: ``g 1[x > 0]``; ``elu``: ``g`` for ``x > 0`` else ``g (y + alpha)``;
  ``softplus``: ``g sigmoid(x)``;
* ``softmax`` along an axis: ``y * (g - sum(g y))``; ``log_softmax``: ``g - softmax * sum(g)``;
* ``concat``: ``g`` split back; ``where(c, a, b)``: ``g`` where ``c``, else 0 (and the converse).

The subgradient at a kink (``relu``, ``max``, ``abs``) is the one numpy's comparisons give: 0 at
``x = 0`` for ``relu``; ``max`` shares ``g`` equally among tied maxima.

Numerics: ``sigmoid``, ``softplus``, ``log_softmax`` and ``softmax`` are computed in forms that
never overflow (``softplus(x) = max(x, 0) + log1p(exp(-|x|))``, max-shifted softmax).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from .tensor import Tensor, as_tensor, unbroadcast

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "power",
    "matmul",
    "sum",
    "mean",
    "max",
    "reshape",
    "transpose",
    "swapaxes",
    "getitem",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "sigmoid",
    "relu",
    "elu",
    "softplus",
    "abs",
    "softmax",
    "log_softmax",
    "logsumexp",
    "concat",
    "stack",
    "where",
    "square",
]


def _result(data: np.ndarray, parents: Sequence[Tensor], vjp, op: str) -> Tensor:
    """The output node; it keeps its parents only when one of them needs a gradient."""
    if builtins.any(p.requires_grad for p in parents):
        return Tensor(data, requires_grad=True, _parents=parents, _vjp=vjp, op=op)
    return Tensor(data, op=op)


# -- arithmetic ---------------------------------------------------------------------------------
def add(a, b) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    return _result(a.data + b.data, (a, b), lambda g: (unbroadcast(g, a.shape), unbroadcast(g, b.shape)), "add")


def sub(a, b) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    return _result(a.data - b.data, (a, b), lambda g: (unbroadcast(g, a.shape), unbroadcast(-g, b.shape)), "sub")


def mul(a, b) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    return _result(
        a.data * b.data, (a, b), lambda g: (unbroadcast(g * b.data, a.shape), unbroadcast(g * a.data, b.shape)), "mul"
    )


def div(a, b) -> Tensor:
    a, b = as_tensor(a), as_tensor(b)
    out = a.data / b.data

    def vjp(g):
        ga = unbroadcast(g / b.data, a.shape) if a.requires_grad else None
        gb = unbroadcast(-g * out / b.data, b.shape) if b.requires_grad else None
        return ga, gb

    return _result(out, (a, b), vjp, "div")


def neg(a) -> Tensor:
    a = as_tensor(a)
    return _result(-a.data, (a,), lambda g: (-g,), "neg")


def power(a, exponent: float) -> Tensor:
    """``a ** exponent`` for a constant (non-tensor) exponent."""
    a = as_tensor(a)
    if isinstance(exponent, Tensor):
        raise TypeError("power takes a constant exponent; use exp(b * log(a)) for a tensor exponent")
    p = float(exponent)
    out = a.data**p
    return _result(out, (a,), lambda g: (g * p * a.data ** (p - 1.0),), "power")


def square(a) -> Tensor:
    a = as_tensor(a)
    return _result(a.data * a.data, (a,), lambda g: (2.0 * g * a.data,), "square")


def matmul(a, b) -> Tensor:
    """``a @ b`` for arrays of 2 or more dimensions (leading axes batch and broadcast)."""
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul needs operands with at least 2 dimensions, got shapes {a.shape} and {b.shape}")
    out = a.data @ b.data
    shared_b = b.ndim == 2 and a.ndim > 2  # a weight matrix applied to every row of a batch

    def vjp(g):
        ga = unbroadcast(g @ np.swapaxes(b.data, -1, -2), a.shape) if a.requires_grad else None
        if not b.requires_grad:
            gb = None
        elif shared_b:  # one (k x N)(N x m) product instead of a batch of them summed afterwards
            lead = tuple(range(a.ndim - 1))
            gb = np.tensordot(a.data, g, axes=(lead, lead))
        else:
            gb = unbroadcast(np.swapaxes(a.data, -1, -2) @ g, b.shape)
        return ga, gb

    return _result(out, (a, b), vjp, "matmul")


# -- reductions -----------------------------------------------------------------------------------
def _normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(int(ax) % ndim for ax in axes))


def _expand(g: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    """Re-insert the reduced axes of ``g`` so that it broadcasts against the input."""
    if keepdims:
        return g
    for ax in axes:
        g = np.expand_dims(g, ax)
    return g


def sum(a, axis=None, keepdims: bool = False) -> Tensor:
    a = as_tensor(a)
    axes = _normalize_axes(axis, a.ndim)
    out = a.data.sum(axis=axes, keepdims=keepdims)
    return _result(out, (a,), lambda g: (np.broadcast_to(_expand(g, axes, keepdims), a.shape).copy(),), "sum")


def mean(a, axis=None, keepdims: bool = False) -> Tensor:
    a = as_tensor(a)
    axes = _normalize_axes(axis, a.ndim)
    count = int(np.prod([a.shape[ax] for ax in axes])) if axes else 1
    out = a.data.mean(axis=axes, keepdims=keepdims)
    return _result(out, (a,), lambda g: (np.broadcast_to(_expand(g, axes, keepdims) / count, a.shape).copy(),), "mean")


def max(a, axis=None, keepdims: bool = False) -> Tensor:
    """Maximum over axes; the gradient is shared equally among tied maxima."""
    a = as_tensor(a)
    axes = _normalize_axes(axis, a.ndim)
    out_keep = a.data.max(axis=axes, keepdims=True)
    out = out_keep if keepdims else np.squeeze(out_keep, axis=axes)

    def vjp(g):
        mask = (a.data == out_keep).astype(a.data.dtype)
        mask /= mask.sum(axis=axes, keepdims=True)
        return (mask * _expand(g, axes, keepdims),)

    return _result(out, (a,), vjp, "max")


def logsumexp(a, axis=-1, keepdims: bool = False) -> Tensor:
    """``log sum exp`` over one axis, shifted by the maximum; gradient ``softmax * g``."""
    a = as_tensor(a)
    m = a.data.max(axis=axis, keepdims=True)
    s = np.exp(a.data - m)
    tot = s.sum(axis=axis, keepdims=True)
    out_keep = m + np.log(tot)
    out = out_keep if keepdims else np.squeeze(out_keep, axis=axis)

    def vjp(g):
        gk = g if keepdims else np.expand_dims(g, axis)
        return (gk * s / tot,)

    return _result(out, (a,), vjp, "logsumexp")


# -- shape ----------------------------------------------------------------------------------------
def reshape(a, shape) -> Tensor:
    a = as_tensor(a)
    return _result(a.data.reshape(shape), (a,), lambda g: (g.reshape(a.shape),), "reshape")


def transpose(a, axes=None) -> Tensor:
    a = as_tensor(a)
    if axes is None:
        axes = tuple(range(a.ndim))[::-1]
    axes = tuple(int(ax) % a.ndim for ax in axes)
    inverse = tuple(np.argsort(axes))
    return _result(np.transpose(a.data, axes), (a,), lambda g: (np.transpose(g, inverse),), "transpose")


def swapaxes(a, axis1: int, axis2: int) -> Tensor:
    a = as_tensor(a)
    return _result(np.swapaxes(a.data, axis1, axis2), (a,), lambda g: (np.swapaxes(g, axis1, axis2),), "swapaxes")


def getitem(a, index) -> Tensor:
    """``a[index]`` with numpy's basic or advanced indexing (a gather); repeated indices add up."""
    a = as_tensor(a)
    if isinstance(index, Tensor):
        index = index.data.astype(np.intp)
    out = a.data[index]

    basic = _is_basic_index(index)

    def vjp(g):
        full = np.zeros_like(a.data)
        if basic:  # a view: every entry is hit at most once
            full[index] = g
        else:
            np.add.at(full, index, g)
        return (full,)

    return _result(np.array(out, copy=True), (a,), vjp, "getitem")


def _is_basic_index(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (slice, int, np.integer)) for i in items)


def concat(tensors: Sequence, axis: int = 0) -> Tensor:
    ts = [as_tensor(t) for t in tensors]
    out = np.concatenate([t.data for t in ts], axis=axis)
    bounds = np.cumsum([t.shape[axis] for t in ts])[:-1]
    return _result(out, ts, lambda g: tuple(np.split(g, bounds, axis=axis)), "concat")


def stack(tensors: Sequence, axis: int = 0) -> Tensor:
    ts = [as_tensor(t) for t in tensors]
    out = np.stack([t.data for t in ts], axis=axis)
    n = len(ts)
    return _result(out, ts, lambda g: tuple(np.squeeze(p, axis=axis) for p in np.split(g, n, axis=axis)), "stack")


def where(condition, a, b) -> Tensor:
    """``a`` where ``condition`` holds, else ``b`` (masking); the condition is a constant."""
    cond = np.asarray(condition.data if isinstance(condition, Tensor) else condition, dtype=bool)
    a, b = as_tensor(a), as_tensor(b)
    out = np.where(cond, a.data, b.data)

    def vjp(g):
        return unbroadcast(np.where(cond, g, 0.0), a.shape), unbroadcast(np.where(cond, 0.0, g), b.shape)

    return _result(out, (a, b), vjp, "where")


# -- element-wise functions -----------------------------------------------------------------------
def exp(a) -> Tensor:
    a = as_tensor(a)
    out = np.exp(a.data)
    return _result(out, (a,), lambda g: (g * out,), "exp")


def log(a) -> Tensor:
    a = as_tensor(a)
    return _result(np.log(a.data), (a,), lambda g: (g / a.data,), "log")


def sqrt(a) -> Tensor:
    a = as_tensor(a)
    out = np.sqrt(a.data)
    return _result(out, (a,), lambda g: (g * 0.5 / out,), "sqrt")


def abs(a) -> Tensor:
    a = as_tensor(a)
    return _result(np.abs(a.data), (a,), lambda g: (g * np.sign(a.data),), "abs")


def tanh(a) -> Tensor:
    a = as_tensor(a)
    out = np.tanh(a.data)
    return _result(out, (a,), lambda g: (g * (1.0 - out * out),), "tanh")


def _stable_sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def sigmoid(a) -> Tensor:
    a = as_tensor(a)
    out = _stable_sigmoid(a.data)
    return _result(out, (a,), lambda g: (g * out * (1.0 - out),), "sigmoid")


def relu(a) -> Tensor:
    a = as_tensor(a)
    return _result(np.maximum(a.data, 0.0), (a,), lambda g: (g * (a.data > 0),), "relu")


def elu(a, alpha: float = 1.0) -> Tensor:
    """``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise (Clevert et al. 2016; CS480/680 §9, seed 003 L923)."""
    a = as_tensor(a)
    neg_part = alpha * np.expm1(np.minimum(a.data, 0.0))
    out = np.where(a.data > 0, a.data, neg_part)
    return _result(out, (a,), lambda g: (g * np.where(a.data > 0, 1.0, neg_part + alpha),), "elu")


def softplus(a) -> Tensor:
    """``log(1 + exp(x))`` without overflow."""
    a = as_tensor(a)
    out = np.maximum(a.data, 0.0) + np.log1p(np.exp(-np.abs(a.data)))
    return _result(out, (a,), lambda g: (g * _stable_sigmoid(a.data),), "softplus")


def softmax(a, axis: int = -1) -> Tensor:
    a = as_tensor(a)
    e = np.exp(a.data - a.data.max(axis=axis, keepdims=True))
    out = e / e.sum(axis=axis, keepdims=True)
    return _result(out, (a,), lambda g: (out * (g - (g * out).sum(axis=axis, keepdims=True)),), "softmax")


def log_softmax(a, axis: int = -1) -> Tensor:
    a = as_tensor(a)
    shifted = a.data - a.data.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    out = shifted - lse

    def vjp(g):
        return (g - np.exp(out) * g.sum(axis=axis, keepdims=True),)

    return _result(out, (a,), vjp, "log_softmax")
