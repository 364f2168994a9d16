"""The linear SVM's sequential loops, compiled lazily by numba (:mod:`replearn._jit`).

Dual coordinate descent is sequential (each coordinate step uses the ``w`` the previous one left), and
Pegasos takes one small step per mini-batch; both run here over scalars. The callers draw the
per-epoch permutations, so the compiled loops and the plain Python ones (without numba) make the same
steps in the same order for a given ``random_state``.
"""

from __future__ import annotations

import math

import numpy as np

from ..._jit import jit


@jit
def dual_cd_pass(Xa, y, Qd, alpha, w, index, active, C, pg_max_old, pg_min_old):
    """One epoch of LIBLINEAR's dual coordinate descent with shrinking (Hsieh et al. 2008, Alg. 3).

    Visits ``index[:active]`` in order; for each ``i``: ``G = y_i w.x_i - 1``; an example at a bound
    whose gradient points outside by more than last epoch's extreme projected gradient is shrunk
    (swapped behind ``active``); otherwise ``a_i := clip(a_i - G / Q_ii, 0, C)`` and
    ``w += (a_i^new - a_i) y_i x_i``. Returns ``(active, max PG, min PG)`` of the epoch.
    """
    P = Xa.shape[1]
    pg_max = -np.inf
    pg_min = np.inf
    s = 0
    while s < active:
        i = index[s]
        yi = y[i]
        ai = alpha[i]
        acc = 0.0
        for j in range(P):
            acc += Xa[i, j] * w[j]
        G = yi * acc - 1.0
        PG = 0.0
        if ai == 0.0:
            if G > pg_max_old:  # shrink: stays at 0 (KKT satisfied with room to spare)
                active -= 1
                index[s], index[active] = index[active], index[s]
                continue
            if G < 0.0:
                PG = G
        elif ai == C:
            if G < pg_min_old:  # shrink: stays at C
                active -= 1
                index[s], index[active] = index[active], index[s]
                continue
            if G > 0.0:
                PG = G
        else:
            PG = G
        if PG > pg_max:
            pg_max = PG
        if PG < pg_min:
            pg_min = PG
        if abs(PG) > 1e-12:
            new = min(max(ai - G / Qd[i], 0.0), C)
            alpha[i] = new
            step = (new - ai) * yi
            for j in range(P):
                w[j] += step * Xa[i, j]
        s += 1
    return active, pg_max, pg_min


@jit
def pegasos_epoch(Xa, Y, order, W, W_sum, t, lam, radius, batch, total):
    """One epoch of mini-batch Pegasos on every binary problem (the columns of ``W``), in place.

    Per batch ``I`` (t counts batches from 1): ``eta = 1/(lam t)``, ``W := (1 - eta lam) W +
    (eta/|I|) sum_{i in I, y_i w.x_i < 1} y_i x_i``, then projection onto ``||w|| <= radius``; the
    iterates of the second half of training (``2 t > total``) are summed into ``W_sum``. Returns
    ``(t, number of iterates summed this epoch)``.
    """
    n, P = Xa.shape
    K = W.shape[1]
    margins = np.empty((batch, K))
    n_avg = 0
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        size = stop - start
        t += 1
        for b in range(size):  # the hinge's active set is decided before the step
            i = order[start + b]
            for k in range(K):
                acc = 0.0
                for j in range(P):
                    acc += Xa[i, j] * W[j, k]
                margins[b, k] = Y[i, k] * acc
        eta = 1.0 / (lam * t)
        shrink = 1.0 - eta * lam
        scale = eta / size
        for k in range(K):
            for j in range(P):
                W[j, k] *= shrink
            for j in range(P):
                acc = 0.0
                for b in range(size):
                    if margins[b, k] < 1.0:
                        i = order[start + b]
                        acc += Xa[i, j] * Y[i, k]
                W[j, k] += scale * acc
            norm2 = 0.0
            for j in range(P):
                norm2 += W[j, k] * W[j, k]
            factor = min(1.0, radius / max(math.sqrt(norm2), 1e-300))
            for j in range(P):
                W[j, k] *= factor
        if 2 * t > total:
            for j in range(P):
                for k in range(K):
                    W_sum[j, k] += W[j, k]
            n_avg += 1
    return t, n_avg
