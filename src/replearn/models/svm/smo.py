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
arrays. The code keeps F = -y * G instead of G, so that the selection works on one array.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ...exceptions import DivergenceError
from ...kernels import KernelRows

_TAU = 1e-12  # LIBSVM's TAU: curvature used when a_it <= 0 (non-PSD kernels, duplicate points)


class PrecomputedRows:
    """Kernel rows from a full kernel matrix held in memory."""

    def __init__(self, K: np.ndarray):
        self.K = K
        self.diag = np.ascontiguousarray(np.diagonal(K))

    def row(self, i: int) -> np.ndarray:
        return self.K[i]


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
    """Solve the SVM dual for labels ``y`` in {-1, +1}; ``rows`` gives kernel rows and the diagonal."""
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    pos = y > 0
    alpha = np.zeros(n)
    F = y.copy()  # F = -y * G with G = Q a - e = -e at a = 0
    up = pos.copy()  # I_up: (y = +1, a < C) or (y = -1, a > 0)
    low = ~pos  # I_low: (y = +1, a > 0) or (y = -1, a < C)
    Kd = rows.diag
    hard = not np.isfinite(C)
    buf_f = np.empty(n)
    buf_b = np.empty(n)
    buf_a = np.empty(n)
    ninf = np.full(n, -np.inf)
    pinf = np.full(n, np.inf)
    W = 0.0
    history = []
    converged = False
    gap = np.nan
    it = 0
    while it < max_iter:
        # --- working-set selection (WSS2) ------------------------------------------------
        np.copyto(buf_f, ninf)
        np.copyto(buf_f, F, where=up)
        i = int(np.argmax(buf_f))
        Gmax = buf_f[i]
        np.copyto(buf_b, pinf)
        np.copyto(buf_b, F, where=low)
        gap = Gmax - buf_b.min()
        if not gap >= tol:  # also stops on an empty I_up / I_low (gap = -inf) or NaN
            converged = gap < tol
            break
        Ki = rows.row(i)
        np.subtract(Gmax, buf_b, out=buf_b)  # b_it (-inf outside I_low)
        np.multiply(Ki, -2.0, out=buf_a)
        buf_a += Kd
        buf_a += Kd[i]  # a_it = K_ii + K_tt - 2 K_it
        np.maximum(buf_a, _TAU, out=buf_a)
        np.multiply(buf_b, buf_b, out=buf_f)
        buf_f /= buf_a
        np.negative(buf_f, out=buf_f)
        buf_f[buf_b <= 0] = np.inf  # only t with -y_t G_t < -y_i G_i
        j = int(np.argmin(buf_f))
        Kj = rows.row(j)

        # --- two-variable subproblem (LIBSVM's update, in terms of F) -------------------------
        yi, yj = y[i], y[j]
        ai, aj = alpha[i], alpha[j]
        Gi, Gj = -yi * F[i], -yj * F[j]
        quad = Kd[i] + Kd[j] - 2.0 * Ki[j]
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
            F -= (yi * di) * Ki
        if dj != 0.0:
            F -= (yj * dj) * Kj
        # change of f = 1/2 a^T Q a - e^T a for a step d on (i, j); W = -f
        W -= Gi * di + Gj * dj + 0.5 * (Kd[i] * di * di + Kd[j] * dj * dj) + yi * yj * Ki[j] * di * dj
        history.append(W)
        for t, a_t, y_t in ((i, ai_new, yi), (j, aj_new, yj)):
            below, above = a_t < C, a_t > 0
            up[t] = below if y_t > 0 else above
            low[t] = above if y_t > 0 else below
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
