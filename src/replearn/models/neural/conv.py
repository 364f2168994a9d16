"""2-D convolution and pooling on (n, C, H, W) batches, vectorized im2col-style.

Convolution (CS480/680 §10, seed 003 L1042-1121; EPFL notes CNN, seed 004 L1867-1910) is the
cross-correlation every deep-learning library calls convolution (CS480/680 Example 10.1 takes the
inner product of the kernel with each window, no flip)::

    out[i, f, r, c] = b[f] + sum_{ch, u, v} W[f, ch, u, v] * Xpad[i, ch, r*s + u, c*s + v]

with zero padding ``p`` on each side and stride ``s``; the output has
``floor(1 + (H + 2p - kh) / s)`` rows (CS480/680 L1072), likewise columns. "Same" padding for
stride 1 and odd kernel k is p = (k - 1) / 2 (the notes' general formula at L1078 has a typo,
"m(s-a)" for "m(s-1)").

im2col: all windows are gathered at once with ``numpy.lib.stride_tricks.sliding_window_view`` into a
matrix of shape (n * Ho * Wo, C * kh * kw), so the forward pass is a single matrix product with the
(F, C * kh * kw) kernel matrix — the circulant-matrix view of CS480/680 (L1090-1112) with the zeros
left out. Backward: dW = dOut^T cols and dcols = dOut W, and col2im scatters dcols back with one
vectorized slice-add per kernel offset (kh * kw of them), never a loop over pixels. Since a shared
weight's gradient is the sum of the gradients of all the edges that use it (EPFL notes L1905-1910),
dW is summed over the batch and all positions by the product.

Pooling (CS480/680 L1114-1116): max or average over (ph, pw) windows with a stride (default: the
window, non-overlapping). Max pooling sends the gradient to the first maximal entry of each window.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..._constraints import Interval
from ...validation import check_scalar
from .init import initialize
from .layers import Layer

__all__ = ["Conv2D", "MaxPool2D", "AvgPool2D", "conv_output_size", "im2col", "col2im"]


def _pair(value, name: str) -> tuple[int, int]:
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) != 2:
            raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}")
        a, b = (int(v) for v in value)
    else:
        check_scalar(value, name, numbers.Integral)
        a = b = int(value)
    return a, b


def conv_output_size(size: int, kernel: int, stride: int, padding: int) -> int:
    """``floor(1 + (size + 2 padding - kernel) / stride)`` (CS480/680 §10, seed 003 L1072)."""
    return (size + 2 * padding - kernel) // stride + 1


def _windows(X: np.ndarray, kh: int, kw: int, sh: int, sw: int) -> np.ndarray:
    """View of shape (n, C, Ho, Wo, kh, kw) of the (kh, kw) windows of X (n, C, H, W) at stride (sh, sw)."""
    return sliding_window_view(X, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]


def im2col(X: np.ndarray, kh: int, kw: int, stride=(1, 1), padding=(0, 0)) -> np.ndarray:
    """Rows = windows (ordered by image, output row, output column), columns = (channel, u, v)."""
    sh, sw = stride
    ph, pw = padding
    if ph or pw:
        X = np.pad(X, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = _windows(X, kh, kw, sh, sw)
    n, C, Ho, Wo = win.shape[:4]
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(n * Ho * Wo, C * kh * kw)


def col2im(cols: np.ndarray, input_shape, kh: int, kw: int, stride=(1, 1), padding=(0, 0)) -> np.ndarray:
    """Adjoint of :func:`im2col`: add every window row back onto the (unpadded) input positions."""
    n, C, H, W = input_shape
    sh, sw = stride
    ph, pw = padding
    Ho = conv_output_size(H, kh, sh, ph)
    Wo = conv_output_size(W, kw, sw, pw)
    blocks = cols.reshape(n, Ho, Wo, C, kh, kw).transpose(0, 3, 4, 5, 1, 2)  # (n, C, kh, kw, Ho, Wo)
    out = np.zeros((n, C, H + 2 * ph, W + 2 * pw))
    for u in range(kh):
        for v in range(kw):
            out[:, :, u : u + sh * (Ho - 1) + 1 : sh, v : v + sw * (Wo - 1) + 1 : sw] += blocks[:, :, u, v]
    return out[:, :, ph : ph + H, pw : pw + W]


class Conv2D(Layer):
    """2-D convolution with ``filters`` output channels, bias per channel.

    Parameters
    ----------
    filters : int >= 1
        Number of kernels = output channels (CS480/680 L1066).
    kernel_size : int or [kh, kw]
    stride : int or [sh, sw]
    padding : int or [ph, pw]
        Zeros added on each side ("valid" = 0; "same" for stride 1 = (k - 1) / 2).
    init : str
        Weight initialization rule, with fan_in = C kh kw and fan_out = filters kh kw.

    Learned: ``coef_`` (filters, C, kh, kw), ``intercept_`` (filters,), ``input_shape_`` [C, H, W].
    """

    _constraints = {"filters": Interval(int, 1, None)}

    def __init__(self, filters=8, kernel_size=3, stride=1, padding=0, init="he_normal"):
        self.filters = filters
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.init = init

    def _geometry(self):
        return _pair(self.kernel_size, "kernel_size"), _pair(self.stride, "stride"), _pair(self.padding, "padding")

    def build(self, input_shape, rng):
        self._validate_params()
        if len(input_shape) != 3:
            raise ValueError(f"Conv2D expects inputs of shape (channels, height, width), got {tuple(input_shape)}")
        (kh, kw), (sh, sw), (ph, pw) = self._geometry()
        if min(kh, kw, sh, sw) < 1 or min(ph, pw) < 0:
            raise ValueError("kernel_size and stride must be >= 1 and padding >= 0")
        C, H, W = (int(s) for s in input_shape)
        Ho, Wo = conv_output_size(H, kh, sh, ph), conv_output_size(W, kw, sw, pw)
        if Ho < 1 or Wo < 1:
            raise ValueError(
                f"a {kh}x{kw} kernel with padding {ph},{pw} does not fit in a {H}x{W} input; "
                "use a smaller kernel or more padding"
            )
        F = int(self.filters)
        self.coef_ = initialize((F, C, kh, kw), C * kh * kw, F * kh * kw, self.init, rng)
        self.intercept_ = np.zeros(F)
        self.input_shape_ = [C, H, W]
        return (F, Ho, Wo)

    def forward(self, X, training=False):
        (kh, kw), stride, padding = self._geometry()
        n, _, H, W = X.shape
        F = self.coef_.shape[0]
        Ho = conv_output_size(H, kh, stride[0], padding[0])
        Wo = conv_output_size(W, kw, stride[1], padding[1])
        cols = im2col(X, kh, kw, stride, padding)
        self._cols, self._in_shape = cols, X.shape
        out = cols @ self.coef_.reshape(F, -1).T + self.intercept_
        return out.reshape(n, Ho, Wo, F).transpose(0, 3, 1, 2)

    def backward(self, grad, need_input_grad=True):
        (kh, kw), stride, padding = self._geometry()
        F = self.coef_.shape[0]
        g = grad.transpose(0, 2, 3, 1).reshape(-1, F)
        self._grads = [(g.T @ self._cols).reshape(self.coef_.shape), g.sum(axis=0)]
        if not need_input_grad:
            return None
        return col2im(g @ self.coef_.reshape(F, -1), self._in_shape, kh, kw, stride, padding)

    def parameters(self):
        return [self.coef_, self.intercept_]

    def decayed(self):
        return [True, False]


class _Pool2D(Layer):
    def __init__(self, pool_size=2, stride=None):
        self.pool_size = pool_size
        self.stride = stride

    def _geometry(self):
        p = _pair(self.pool_size, "pool_size")
        s = p if self.stride is None else _pair(self.stride, "stride")
        return p, s

    def build(self, input_shape, rng):
        (ph, pw), (sh, sw) = self._geometry()
        if min(ph, pw, sh, sw) < 1:
            raise ValueError("pool_size and stride must be >= 1")
        C, H, W = (int(s) for s in input_shape)
        Ho, Wo = conv_output_size(H, ph, sh, 0), conv_output_size(W, pw, sw, 0)
        if Ho < 1 or Wo < 1:
            raise ValueError(f"a {ph}x{pw} pooling window does not fit in a {H}x{W} feature map")
        return (C, Ho, Wo)

    def _scatter(self, per_offset, in_shape, Ho, Wo):
        """Sum ``per_offset(u, v)`` (n, C, Ho, Wo) onto the window positions, one slice-add per offset."""
        (ph, pw), (sh, sw) = self._geometry()
        out = np.zeros(in_shape)
        for u in range(ph):
            for v in range(pw):
                out[:, :, u : u + sh * (Ho - 1) + 1 : sh, v : v + sw * (Wo - 1) + 1 : sw] += per_offset(u, v)
        return out


class MaxPool2D(_Pool2D):
    """Maximum over each (ph, pw) window; ``stride`` defaults to the window size.

    Non-overlapping windows (stride = window, the default) take a reshape-only path in both
    directions; overlapping ones scatter the gradient with one slice-add per window offset.
    """

    def forward(self, X, training=False):
        (ph, pw), (sh, sw) = self._geometry()
        n, C, H, W = X.shape
        self._in_shape = X.shape
        self._tiled = (sh, sw) == (ph, pw)
        if self._tiled:
            Ho, Wo = H // ph, W // pw
            blocks = X[:, :, : Ho * ph, : Wo * pw].reshape(n, C, Ho, ph, Wo, pw)
            flat = blocks.transpose(0, 1, 2, 4, 3, 5).reshape(n, C, Ho, Wo, ph * pw)
        else:
            win = _windows(X, ph, pw, sh, sw)
            Ho, Wo = win.shape[2:4]
            flat = win.reshape(n, C, Ho, Wo, ph * pw)
        self._arg = np.argmax(flat, axis=4)[..., None]
        return np.take_along_axis(flat, self._arg, axis=4)[..., 0]

    def backward(self, grad, need_input_grad=True):
        (ph, pw), _ = self._geometry()
        n, C, Ho, Wo = grad.shape
        if self._tiled:
            flat = np.zeros((n, C, Ho, Wo, ph * pw))
            np.put_along_axis(flat, self._arg, grad[..., None], axis=4)
            out = np.zeros(self._in_shape)
            blocks = flat.reshape(n, C, Ho, Wo, ph, pw).transpose(0, 1, 2, 4, 3, 5)
            out[:, :, : Ho * ph, : Wo * pw] = blocks.reshape(n, C, Ho * ph, Wo * pw)
            return out
        arg = self._arg[..., 0]
        return self._scatter(lambda u, v: grad * (arg == u * pw + v), self._in_shape, Ho, Wo)


class AvgPool2D(_Pool2D):
    """Mean over each (ph, pw) window; ``stride`` defaults to the window size."""

    def forward(self, X, training=False):
        (ph, pw), (sh, sw) = self._geometry()
        self._in_shape = X.shape
        return _windows(X, ph, pw, sh, sw).mean(axis=(4, 5))

    def backward(self, grad, need_input_grad=True):
        (ph, pw), _ = self._geometry()
        Ho, Wo = grad.shape[2:]
        g = grad / (ph * pw)
        return self._scatter(lambda u, v: g, self._in_shape, Ho, Wo)
