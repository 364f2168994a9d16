"""Attention and positional encodings (Vaswani et al. 2017; CS480/680 §11, seed 003 L1125-1185).

* :func:`scaled_dot_product_attention`: ``softmax(Q K^T / sqrt(d_k) + M) V`` over the last two axes,
  where ``M`` is ``-inf`` (here ``-1e9``, so that a fully masked row stays finite) at the positions a
  query may not see. Each output row is a convex combination of the rows of ``V`` (seed 003
  L1157-1161, whose formula was lost in extraction).
* :func:`causal_mask`: ``mask[i, j] = j <= i`` -- position ``i`` attends to itself and the past only
  (the decoder's masked attention, seed 003 L1165-1171), so the prediction at ``i`` never depends on
  a later token (tested).
* :func:`sinusoidal_positional_encoding`: ``P[t, 2i] = sin(t / 10000^(2i/d))``,
  ``P[t, 2i+1] = cos(t / 10000^(2i/d))`` (seed 003 L1145-1147: ``P[0, 2i] = 0``, ``P[0, 2i+1] = 1``).
* :class:`MultiHeadAttention`: ``h`` heads of width ``d/h`` from one ``d x 3d`` projection, each head
  attending separately, concatenated and mixed by ``W_o`` (seed 003: ``W_q, W_k, W_v`` of 512 x 64,
  h = 8, "concatenated -> linear").
* :class:`MultiHeadCrossAttention`: the decoder's encoder-decoder attention (seed 003 L1171-1173: "K = V =
  encoder, Q = decoder") -- queries from the decoder states ``(B, T_out, d)``, keys and values from the
  encoder's output ``(B, T_in, d)``; every output position may look at every input position.
"""

from __future__ import annotations

import numpy as np

from ..autodiff import Tensor, ops
from ..autodiff.tensor import as_tensor
from .layers import Linear, Module

__all__ = [
    "scaled_dot_product_attention",
    "causal_mask",
    "sinusoidal_positional_encoding",
    "MultiHeadAttention",
    "MultiHeadCrossAttention",
]

_MASKED = -1e9


def causal_mask(T: int) -> np.ndarray:
    """Boolean ``(T, T)`` array, True where query ``i`` may attend to key ``j`` (``j <= i``)."""
    return np.tril(np.ones((T, T), dtype=bool))


def scaled_dot_product_attention(q, k, v, mask=None) -> tuple[Tensor, Tensor]:
    """Return ``(output, weights)`` for queries ``(..., Tq, d_k)``, keys ``(..., Tk, d_k)``, values ``(..., Tk, d_v)``.

    ``mask`` (broadcastable to ``(..., Tq, Tk)``) is True where attention is allowed.
    """
    q, k, v = as_tensor(q), as_tensor(k), as_tensor(v)
    scores = (q @ k.swapaxes(-1, -2)) / float(np.sqrt(q.shape[-1]))
    if mask is not None:
        scores = ops.where(np.asarray(mask, dtype=bool), scores, _MASKED)
    weights = ops.softmax(scores, axis=-1)
    return weights @ v, weights


def sinusoidal_positional_encoding(T: int, d: int) -> np.ndarray:
    """The ``(T, d)`` table of sines and cosines of geometrically spaced frequencies."""
    t = np.arange(T)[:, None]
    i2 = np.arange(0, d, 2)[None, :]
    angle = t / np.power(10000.0, i2 / d)
    pe = np.zeros((T, d))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d // 2])
    return pe


class MultiHeadAttention(Module):
    """Self-attention with ``n_heads`` heads over inputs ``(B, T, d_model)``."""

    def __init__(self, d_model: int, n_heads: int, rng: np.random.Generator):
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        self.n_heads = int(n_heads)
        self.qkv = Linear(d_model, 3 * d_model, rng)
        self.out = Linear(d_model, d_model, rng)
        self.last_weights: np.ndarray | None = None

    def forward(self, x, mask=None):
        x = as_tensor(x)
        B, T, d = x.shape
        h, dh = self.n_heads, d // self.n_heads
        qkv = self.qkv(x).reshape(B, T, 3, h, dh).transpose(2, 0, 3, 1, 4)  # (3, B, h, T, dh)
        out, weights = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], mask)
        self.last_weights = weights.data
        return self.out(out.transpose(0, 2, 1, 3).reshape(B, T, d))


class MultiHeadCrossAttention(Module):
    """Encoder-decoder attention with ``n_heads`` heads: queries ``x`` (B, Tq, d) attend to ``memory`` (B, Tk, d).

    ``W_q`` (d x d) projects the decoder states, one ``d x 2d`` map gives the keys and values of the encoder
    output; heads are concatenated and mixed by ``W_o``. ``last_weights`` (B, h, Tq, Tk) keeps the attention
    of the last call (each row a distribution over the input positions).
    """

    def __init__(self, d_model: int, n_heads: int, rng: np.random.Generator):
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        self.n_heads = int(n_heads)
        self.q = Linear(d_model, d_model, rng)
        self.kv = Linear(d_model, 2 * d_model, rng)
        self.out = Linear(d_model, d_model, rng)
        self.last_weights: np.ndarray | None = None

    def forward(self, x, memory, mask=None):
        x, memory = as_tensor(x), as_tensor(memory)
        B, Tq, d = x.shape
        Tk = memory.shape[1]
        if memory.shape[0] != B or memory.shape[2] != d:
            raise ValueError(f"memory must have shape ({B}, T_in, {d}), got {memory.shape}")
        h, dh = self.n_heads, d // self.n_heads
        q = self.q(x).reshape(B, Tq, h, dh).transpose(0, 2, 1, 3)  # (B, h, Tq, dh)
        kv = self.kv(memory).reshape(B, Tk, 2, h, dh).transpose(2, 0, 3, 1, 4)  # (2, B, h, Tk, dh)
        out, weights = scaled_dot_product_attention(q, kv[0], kv[1], mask)
        self.last_weights = weights.data
        return self.out(out.transpose(0, 2, 1, 3).reshape(B, Tq, d))
