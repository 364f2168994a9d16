"""Sequential minimal optimization (SMO) for the SVM dual, with second-order working-set selection.

The soft-margin SVM dual (CS229 notes §6.6-6.7, seed 000 L2245-2377; CIML eq. 11.38, seed 001
L3816-3918), written as a minimization:

    min_a  f(a) = 1/2 a^T Q a - e^T a    s.t.  0 <= a_i <= C,  y^T a = 0,    Q_ij = y_i y_j K_ij.

SMO (Platt 1998; CS229 §6.8.2, seed 000 L2379-2478) changes two multipliers at a time, so the
equality constraint can be kept, and solves that two-variable problem in closed form (clipping to
the box). The notes leave the choice of the pair and the bias to Platt; here they follow LIBSVM
(Fan, Chen & Lin, JMLR 6, 2005):

* gradient G = Q a - e, kept up to date with two kernel rows per step (a vectorized axpy);
* working-set selection WSS2: i = argmax_{t in I_up} -y_t G_t, then j minimizes the second-order
  decrease -b_it^2 / a_it over t in I_low with -y_t G_t < -y_i G_i, where b_it = -y_i G_i + y_t G_t
  and a_it = K_ii + K_tt - 2 K_it;
* stopping (the KKT conditions up to ``tol``): m(a) - M(a) < tol with m = max_{I_up} -y G and
  M = min_{I_low} -y G (scikit-learn's / LIBSVM's ``tol``);
* bias (CS229 erratum L2367: the notes do not give it): b = y_i - sum_j a_j y_j K_ij averaged over
  the free support vectors 0 < a_i < C, or the midpoint of the feasible interval if there are none.

``C = inf`` gives the hard-margin SVM (CS229 §6.6; seed 003 §6: C -> infinity); it converges only
on separable data.

The loop runs over SMO iterations only; each iteration is a few numpy operations over length-n
arrays (:func:`smo_numpy`), or, with numba, the same operations over scalars in one compiled loop
(:func:`._kernels.smo_run`: LIBSVM-like ~µs per iteration instead of ~25 µs of numpy call overhead,
which dominated at n ≲ 1000); both give the same multipliers. The code keeps F = -y * G instead of
G, so that the selection works on one array.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..._jit import jit_available
from ...exceptions import DivergenceError
from ...kernels import KernelRows
from . import _kernels

_TAU = 1e-12  # LIBSVM's TAU: curvature used when a_it <= 0 (non-PSD kernels, duplicate points)


class CachedRows:
    """Kernel rows computed on demand (one matrix-vector product each) and kept in an LRU cache.

    The cache is one preallocated (capacity x n) block, so no row is allocated twice; SMO touches
    far fewer distinct rows than n in most problems (mostly those of the support vectors), which is
    why this beats forming the whole n x n matrix.
    """

    def __init__(self, X: np.ndarray, kernel: str, params: dict, cache_bytes: int):
        self.rows = KernelRows(X, kernel, **params)
        self.diag = self.rows.diag
        n = X.shape[0]
        capacity = int(min(n, max(2, cache_bytes // (8 * max(n, 1)))))
        self.block = np.empty((capacity, n))
        self.slots: OrderedDict[int, int] = OrderedDict()

    def row(self, i: int) -> np.ndarray:
        slot = self.slots.get(i)
        if slot is not None:
            self.slots.move_to_end(i)
            return self.block[slot]
        if len(self.slots) < self.block.shape[0]:
            slot = len(self.slots)
        else:
            _, slot = self.slots.popitem(last=False)
        self.slots[i] = slot
        return self.rows.row(i, self.block[slot])


@dataclass
class SMOResult:
    alpha: np.ndarray
    b: float
    n_iter: int
    converged: bool
    objective: float  # dual objective W(a) = e^T a - 1/2 a^T Q a (to be maximized)
    history: list = field(default_factory=list)  # W(a) after every iteration
    gap: float = np.nan  # final m(a) - M(a)


def smo(rows, y: np.ndarray, C: float, tol: float, max_iter: int) -> SMOResult:
    """Solve the SVM dual for labels ``y`` in {-1, +1}; ``rows`` gives kernel rows and the diagonal.

    With numba (:mod:`replearn._jit`) and a :class:`CachedRows` cache the iterations run compiled
    (:func:`._kernels.smo_run`, the same operations as :func:`smo_numpy`, so the same multipliers);
    otherwise the numpy loop of :func:`smo_numpy` runs.
    """
    if isinstance(rows, CachedRows) and jit_available():
        return smo_compiled(rows, y, C, tol, max_iter)
    return smo_numpy(rows, y, C, tol, max_iter)


def smo_compiled(rows: CachedRows, y: np.ndarray, C: float, tol: float, max_iter: int) -> SMOResult:
    """:func:`smo_numpy`'s iterations in :func:`._kernels.smo_run`; kernel rows computed here on a cache miss."""
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    pos = y > 0
    alpha = np.zeros(n)
    F = y.copy()
    pen_up = np.where(pos, 0.0, -np.inf)
    pen_low = np.where(pos, np.inf, 0.0)
    Kd = np.ascontiguousarray(rows.diag, dtype=np.float64)
    unit_diag = bool(np.all(Kd == 1.0))
    hard = not np.isfinite(C)
    block = rows.block
    slot_of = np.full(n, -1, dtype=np.int64)
    row_of_slot = np.zeros(block.shape[0], dtype=np.int64)
    stamp = np.zeros(block.shape[0], dtype=np.int64)
    istate = np.zeros(6, dtype=np.int64)  # iteration, LRU clock, slots used, missing row, its slot, converged
    fstate = np.array([0.0, np.nan])  # W, gap
    history = np.empty(min(max_iter, max(1024, 4 * n)))
    while True:
        status = _kernels.smo_run(
            block,
            slot_of,
            row_of_slot,
            stamp,
            y,
            alpha,
            F,
            pen_up,
            pen_low,
            Kd,
            unit_diag,
            hard,
            float(C),
            float(tol),
            int(max_iter),
            istate,
            fstate,
            history,
            _TAU,
        )
        if status == _kernels.NEED_ROW:
            rows.rows.row(int(istate[3]), block[int(istate[4])])
        elif status == _kernels.HISTORY_FULL:
            history = np.concatenate([history, np.empty(min(history.size, max_iter - history.size))])
        else:
            break
    it = int(istate[0])
    W = float(fstate[0])
    if not (np.all(np.isfinite(alpha)) and np.isfinite(W)):
        raise DivergenceError(
            "SMO produced non-finite multipliers; with C=inf (hard margin) the data must be linearly "
            "separable in the kernel's feature space — use a finite C"
        )
    b = _bias(alpha, y, F, C)
    return SMOResult(alpha, b, it, bool(istate[5]), W, history[:it].copy(), float(fstate[1]))


def smo_numpy(rows, y: np.ndarray, C: float, tol: float, max_iter: int) -> SMOResult:
    """The SMO loop in numpy (one iteration: a few vectorized operations over length-n arrays)."""
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    pos = y > 0
    alpha = np.zeros(n)
    F = y.copy()  # F = -y * G with G = Q a - e = -e at a = 0
    # membership of I_up / I_low as additive penalties: 0 inside, -inf / +inf outside
    # I_up: (y = +1, a < C) or (y = -1, a > 0);  I_low: (y = +1, a > 0) or (y = -1, a < C)
    pen_up = np.where(pos, 0.0, -np.inf)
    pen_low = np.where(pos, np.inf, 0.0)
    Kd = rows.diag
    unit_diag = bool(np.all(Kd == 1.0))  # rbf / laplace: a_it = 2 (1 - K_it)
    hard = not np.isfinite(C)
    buf = np.empty(n)
    b_it = np.empty(n)
    a_it = np.empty(n)
    W = 0.0
    history = []
    converged = False
    gap = np.nan
    it = 0
    while it < max_iter:
        # --- working-set selection (WSS2) ------------------------------------------------
        np.add(F, pen_up, out=buf)
        i = int(np.argmax(buf))
        Gmax = buf[i]
        np.add(F, pen_low, out=b_it)
        gap = Gmax - b_it.min()
        if not gap >= tol:  # also stops on an empty I_up / I_low (gap = -inf) or NaN
            converged = gap < tol
            break
        Ki = rows.row(i)
        np.subtract(Gmax, b_it, out=b_it)  # b_it = -y_i G_i + y_t G_t (-inf outside I_low)
        np.maximum(b_it, 0.0, out=b_it)  # only t with -y_t G_t < -y_i G_i can score > 0
        if unit_diag:
            np.subtract(1.0, Ki, out=a_it)
            a_it *= 2.0
        else:
            np.multiply(Ki, -2.0, out=a_it)
            a_it += Kd
            a_it += Kd[i]  # a_it = K_ii + K_tt - 2 K_it
        np.maximum(a_it, _TAU, out=a_it)
        np.multiply(b_it, b_it, out=buf)
        buf /= a_it
        j = int(np.argmax(buf))  # argmin of -b^2 / a
        Kj = rows.row(j)

        # --- two-variable subproblem (LIBSVM's update, in terms of F) -------------------------
        yi, yj = y[i], y[j]
        ai, aj = alpha[i], alpha[j]
        Gi, Gj = -yi * F[i], -yj * F[j]
        Kij = Ki[j]
        quad = Kd[i] + Kd[j] - 2.0 * Kij
        if quad <= 0:
            quad = _TAU
        if yi != yj:
            delta = (-Gi - Gj) / quad
            diff = ai - aj
            ai_new, aj_new = ai + delta, aj + delta
            if diff > 0:
                if aj_new < 0:
                    aj_new, ai_new = 0.0, diff
            elif ai_new < 0:
                ai_new, aj_new = 0.0, -diff
            if not hard:
                if diff > 0:
                    if ai_new > C:
                        ai_new, aj_new = C, C - diff
                elif aj_new > C:
                    aj_new, ai_new = C, C + diff
        else:
            delta = (Gi - Gj) / quad
            s = ai + aj
            ai_new, aj_new = ai - delta, aj + delta
            if not hard and s > C:
                if ai_new > C:
                    ai_new, aj_new = C, s - C
            elif aj_new < 0:
                aj_new, ai_new = 0.0, s
            if not hard and s > C:
                if aj_new > C:
                    aj_new, ai_new = C, s - C
            elif ai_new < 0:
                ai_new, aj_new = 0.0, s
        di, dj = ai_new - ai, aj_new - aj
        alpha[i], alpha[j] = ai_new, aj_new

        # --- gradient and dual objective ---------------------------------------------------
        if di != 0.0:
            np.multiply(Ki, yi * di, out=buf)
            F -= buf
        if dj != 0.0:
            np.multiply(Kj, yj * dj, out=buf)
            F -= buf
        # change of f = 1/2 a^T Q a - e^T a for a step d on (i, j); W = -f
        W -= Gi * di + Gj * dj + 0.5 * (Kd[i] * di * di + Kd[j] * dj * dj) + yi * yj * Kij * di * dj
        history.append(W)
        for t, a_t, y_t in ((i, ai_new, yi), (j, aj_new, yj)):
            below, above = a_t < C, a_t > 0
            pen_up[t] = 0.0 if (below if y_t > 0 else above) else -np.inf
            pen_low[t] = 0.0 if (above if y_t > 0 else below) else np.inf
        it += 1
        if it % 1000 == 0 and not np.isfinite(W):
            break
    if not (np.all(np.isfinite(alpha)) and np.isfinite(W)):
        raise DivergenceError(
            "SMO produced non-finite multipliers; with C=inf (hard margin) the data must be linearly "
            "separable in the kernel's feature space — use a finite C"
        )
    b = _bias(alpha, y, F, C)
    return SMOResult(alpha, b, it, converged, float(W), history, float(gap))


def _bias(alpha: np.ndarray, y: np.ndarray, F: np.ndarray, C: float) -> float:
    """b = y_i - sum_j a_j y_j K_ij (= F_i) averaged over free SVs; else the middle of the feasible range."""
    free = (alpha > 0) & (alpha < C)
    if free.any():
        return float(F[free].mean())
    # b must satisfy F_t >= b for points pushed to one side and F_t <= b for the other:
    # at a = 0: y = +1 needs y f >= 1 -> b >= F_t; at a = C: y = +1 needs b <= F_t (and mirrored for y = -1)
    at_zero = alpha <= 0
    lower = np.concatenate([F[at_zero & (y > 0)], F[~at_zero & (y < 0)]])
    upper = np.concatenate([F[at_zero & (y < 0)], F[~at_zero & (y > 0)]])
    lb = lower.max() if lower.size else -np.inf
    ub = upper.min() if upper.size else np.inf
    if np.isfinite(lb) and np.isfinite(ub):
        return float(0.5 * (lb + ub))
    return float(lb if np.isfinite(lb) else ub if np.isfinite(ub) else 0.0)
