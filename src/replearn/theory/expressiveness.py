"""How powerful are neural nets? Two constructive demos of the EPFL notes (seed 004 L1725-1769).

**Riemann rectangles** ("approximation in average", after Nielsen ch. 4). A sigmoid step
``sigma(w (x - a))`` equals 1/2 at ``x = a`` (the transition point), has slope ``w / 4`` there and a
transition of width of order ``1 / w``; the difference of two steps is a rectangle of height ``h`` on
``[a, b]``::

    rect(x) = h [sigma(w (x - a)) - sigma(w (x - b))]

-- a network with two hidden sigmoid nodes (weights w, w; biases -w a, -w b; output weights h, -h). A
Riemann sum of n rectangles is one hidden layer of 2n nodes approximating any Riemann-integrable f on a
bounded interval, in the L1 sense, as closely as wanted (large n, large w). :func:`rectangle_network`,
:func:`riemann_network` build these networks; :func:`l1_error` measures ``int |f - f_n|``.

**Barron's rate.** If f has a Fourier transform f-tilde with ``C = int |omega| |f-tilde(omega)| d omega``
finite (f(x) = int e^{i omega x} f-tilde(omega) d omega), then for every n there is a one-hidden-layer
network ``f_n = sum_{j<=n} c_j sigma(x w_j + b_j) + c_0`` with ``int_{|x|<=r} (f - f_n)^2 mu(dx) <= (2 C r)^2 / n``
(Barron 1993; the notes' statement lost its symbols in extraction, the catalogue reconstructs it; mu is a
probability measure on the ball -- here the uniform one). :func:`barron_bound` is the right-hand side;
:func:`greedy_sigmoid_fit` is a constructive demo of the rate -- the relaxed greedy algorithm of Jones and
Barron, ``f_k = (1 - alpha_k) f_{k-1} + alpha_k g_k`` with each new unit ``g_k = gamma sigma(x w + b)``,
``|gamma| <= 2 C r``, chosen from a dictionary of steepnesses and offsets to minimize the squared error on a
grid of the interval (and ``alpha_k`` by exact line search) -- whose error the tests hold under the bound for
every n. The constant ``c_0`` is the target's value at 0 (Barron approximates ``f - f(0)``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ..validation import check_scalar

__all__ = [
    "SigmoidNetwork",
    "sigmoid_step",
    "rectangle_network",
    "riemann_network",
    "l1_error",
    "barron_bound",
    "greedy_sigmoid_fit",
]


@dataclass(frozen=True)
class SigmoidNetwork:
    """``f(x) = c_0 + sum_j c_j sigma(w_j x + b_j)`` for scalar x: one hidden layer of sigmoid nodes.

    weights, biases, coefficients : arrays (n_hidden,); offset : c_0. ``errors`` holds, for networks built
    by :func:`greedy_sigmoid_fit`, the squared error after each added unit.
    """

    weights: np.ndarray
    biases: np.ndarray
    coefficients: np.ndarray
    offset: float = 0.0
    errors: tuple = ()

    @property
    def n_hidden(self) -> int:
        return int(self.weights.size)

    def hidden(self, x) -> np.ndarray:
        """The hidden activations (len(x), n_hidden)."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, 1)
        return expit(x * self.weights[None, :] + self.biases[None, :])

    def __call__(self, x) -> np.ndarray:
        return self.offset + self.hidden(x) @ self.coefficients


def sigmoid_step(x, a: float, w: float) -> np.ndarray:
    """``sigma(w (x - a))``: 1/2 at ``x = a``, slope ``w / 4`` there, from 0 to 1 over a width of order 1/w."""
    return expit(w * (np.asarray(x, dtype=np.float64) - a))


def _check_interval(a, b, w) -> None:
    check_scalar(a, "a", numbers.Real)
    check_scalar(b, "b", numbers.Real)
    check_scalar(w, "w", numbers.Real, low=0.0, low_inclusive=False)
    if not a < b:
        raise ValueError(f"a rectangle needs a < b, got a = {a!r}, b = {b!r}")


def rectangle_network(a: float, b: float, w: float, height: float = 1.0) -> SigmoidNetwork:
    """The two-node network ``h [sigma(w (x - a)) - sigma(w (x - b))]``: a rectangle of height ``h`` on [a, b]."""
    _check_interval(a, b, w)
    check_scalar(height, "height", numbers.Real)
    return SigmoidNetwork(
        weights=np.array([w, w], dtype=float),
        biases=np.array([-w * a, -w * b], dtype=float),
        coefficients=np.array([height, -height], dtype=float),
    )


def riemann_network(f: Callable, lo: float, hi: float, n_rectangles: int, w: float) -> SigmoidNetwork:
    """A Riemann sum of ``n_rectangles`` equal-width rectangles under ``f`` on [lo, hi], each of height f at the
    midpoint, as one hidden layer of ``2 n_rectangles`` sigmoid nodes of steepness ``w``."""
    _check_interval(lo, hi, w)
    check_scalar(n_rectangles, "n_rectangles", numbers.Integral, low=1)
    edges = np.linspace(lo, hi, int(n_rectangles) + 1)
    mids = 0.5 * (edges[:-1] + edges[1:])
    heights = np.asarray(f(mids), dtype=np.float64)
    if heights.shape != mids.shape or not np.all(np.isfinite(heights)):
        raise ValueError("f must return one finite value per point of an array")
    weights = np.full(2 * mids.size, float(w))
    biases = np.concatenate([-w * edges[:-1], -w * edges[1:]])
    coefficients = np.concatenate([heights, -heights])
    return SigmoidNetwork(weights, biases, coefficients)


def l1_error(f: Callable, g: Callable, lo: float, hi: float, n_points: int = 20001) -> float:
    """``int_lo^hi |f(x) - g(x)| dx`` by the trapezoidal rule on ``n_points`` points."""
    x = np.linspace(lo, hi, int(n_points))
    return float(np.trapezoid(np.abs(np.asarray(f(x)) - np.asarray(g(x))), x))


def barron_bound(C: float, r: float, n: int) -> float:
    """Barron's bound ``(2 C r)^2 / n`` on the mean squared error over the ball of radius ``r`` of the best
    n-unit network, for a target with Fourier moment ``C = int |omega| |f-tilde(omega)| d omega``."""
    check_scalar(C, "C", numbers.Real, low=0.0)
    check_scalar(r, "r", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(n, "n", numbers.Integral, low=1)
    return (2.0 * C * r) ** 2 / n


def greedy_sigmoid_fit(
    f: Callable,
    r: float,
    n_units: int,
    C: float,
    *,
    grid_size: int = 401,
    steepness=None,
    n_offsets: int = 81,
) -> SigmoidNetwork:
    """Barron's relaxed greedy construction on [-r, r] (module docstring): ``n_units`` sigmoid units added one at
    a time, each ``gamma sigma(w x + b)`` with ``|gamma| <= 2 C r``, ``w`` from ``steepness`` (default: 1/r to
    400/r, geometric) and the transition ``-b / w`` on ``n_offsets`` points of [-r, r]; ``errors[k-1]`` is the
    mean squared error over the uniform grid of [-r, r] after k units (the measure mu of the bound)."""
    check_scalar(r, "r", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(n_units, "n_units", numbers.Integral, low=1)
    check_scalar(C, "C", numbers.Real, low=0.0, low_inclusive=False)
    x = np.linspace(-r, r, int(grid_size))
    target = np.asarray(f(x), dtype=np.float64) - float(np.asarray(f(np.zeros(1)))[0])
    ws = np.geomspace(1.0 / r, 400.0 / r, 16) if steepness is None else np.asarray(steepness, dtype=float)
    ts = np.linspace(-r, r, int(n_offsets))
    W, T = np.meshgrid(ws, ts, indexing="ij")
    w_all, b_all = W.ravel(), (-W * T).ravel()
    atoms = expit(np.outer(x, w_all) + b_all[None, :])  # (grid, n_atoms)
    bound = 2.0 * C * r
    current = np.zeros_like(target)
    weights, biases, coefs, errors = [], [], [], []
    for k in range(1, int(n_units) + 1):
        resid = target - current
        best = None
        for sign in (1.0, -1.0):
            g = sign * bound * atoms  # candidate units
            diff = g - current[:, None]
            # min over alpha in [0, 1] of ||resid - alpha (g - current)||^2
            num = diff.T @ resid
            den = np.einsum("ij,ij->j", diff, diff)
            alpha = np.clip(np.divide(num, den, out=np.zeros_like(num), where=den > 0), 0.0, 1.0)
            err = resid @ resid - 2 * alpha * num + alpha**2 * den
            j = int(np.argmin(err))
            if best is None or err[j] < best[0]:
                best = (err[j], sign, j, alpha[j])
        _, sign, j, alpha = best
        if k == 1:
            alpha = 1.0 if alpha == 0 else alpha
        coefs = [(1.0 - alpha) * c for c in coefs] + [alpha * sign * bound]
        weights.append(w_all[j])
        biases.append(b_all[j])
        current = (1.0 - alpha) * current + alpha * sign * bound * atoms[:, j]
        errors.append(float(np.mean((target - current) ** 2)))
    return SigmoidNetwork(
        np.asarray(weights),
        np.asarray(biases),
        np.asarray(coefs),
        offset=float(np.asarray(f(np.zeros(1)))[0]),
        errors=tuple(errors),
    )
