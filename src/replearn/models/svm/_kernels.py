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
def dual_cd_solve(Xa, y, Qd, alpha, w, index, istate, fstate, C, tol, max_iter, rng, hist):
    """Epochs of LIBLINEAR's dual coordinate descent with shrinking (Hsieh et al. 2008, Alg. 3), in place.

    Each epoch shuffles the active examples ``index[:active]`` (Fisher-Yates with ``active`` 32-bit draws
    ``u`` from ``rng``: position t, from the last down to 1, swaps with floor(u_t (t + 1) / 2^32); numba's
    ``rng.shuffle`` took ~90 ns per element, more than the coordinate step) and visits them in order; for
    each ``i``:
    ``G = y_i w.x_i - 1``; an example at a bound whose gradient points outside by more than last epoch's
    extreme projected gradient is shrunk (swapped behind ``active``); otherwise
    ``a_i := clip(a_i - G / Q_ii, 0, C)`` and ``w += (a_i^new - a_i) y_i x_i``. After the epoch, ``w`` is
    copied into the next row of ``hist`` (the caller turns the rows into primal objectives). Stopping
    rule (LIBLINEAR's): the spread max PG - min PG of the epoch is at most ``tol`` with every example
    active; when it is reached on a shrunk set, all examples are made active again and checked once more.

    ``istate``: epoch, active, number of examples with Q_ii > 0, converged flag, rows of ``hist`` used;
    ``fstate``: last epoch's max PG and min PG (the shrinking thresholds). Returns 0 when done (converged,
    ``max_iter`` epochs, or ``w`` not finite: flag -1), 1 when ``hist`` is full (the caller empties it and
    calls again).
    """
    P = Xa.shape[1]
    epoch = istate[0]
    active = istate[1]
    full = istate[2]
    used = istate[4]
    pg_max_old = fstate[0]
    pg_min_old = fstate[1]
    status = 0
    while epoch < max_iter:
        if used == hist.shape[0]:
            status = 1
            break
        # Fisher-Yates shuffle of the active set: position t swaps with floor(u_t (t + 1) / 2^32)
        draws = rng.integers(0, 2**32, active, dtype=np.uint32)
        for t in range(active - 1, 0, -1):
            r = (np.int64(draws[t]) * (t + 1)) >> 32
            index[t], index[r] = index[r], index[t]
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
        epoch += 1
        norm = 0.0
        for j in range(P):
            hist[used, j] = w[j]
            norm += w[j] * w[j]
        used += 1
        if not np.isfinite(norm):
            istate[3] = -1
            break
        if pg_max - pg_min <= tol:
            if active == full:
                istate[3] = 1
                break
            active = full  # check the shrunk examples once more
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0 else np.inf
        pg_min_old = pg_min if pg_min < 0 else -np.inf
    istate[0] = epoch
    istate[1] = active
    istate[4] = used
    fstate[0] = pg_max_old
    fstate[1] = pg_min_old
    return status


@jit
def block_objectives(Xa, y, norms, block, C):
    """P(w) = 1/2 ||w||^2 + C sum_i max(0, 1 - y_i w.x_i) for each row ``w`` of ``block`` (consecutive epochs).

    Rows whose hinge is 0 for every ``w`` of the block are skipped: with ``w_ref`` the block's last row and
    ``r`` the largest distance of a row from it, y_i w.x_i >= y_i w_ref.x_i - ||x_i|| r (Cauchy-Schwarz), so a
    margin above 1 + ||x_i|| r at ``w_ref`` (plus a rounding allowance) stays above 1. Late in training ``w``
    moves little within a block and most examples are such; the sums are those over all rows (a skipped row
    would add exact zeros). Plain loops, no BLAS: these small products ran 5x slower with two BLAS threads
    on a busy machine.
    """
    n, P = Xa.shape
    E = block.shape[0]
    ref = E - 1
    r2 = 0.0
    wnorm2 = 0.0
    for j in range(P):
        wnorm2 += block[ref, j] * block[ref, j]
    for e in range(E):
        d2 = 0.0
        for j in range(P):
            diff = block[e, j] - block[ref, j]
            d2 += diff * diff
        if d2 > r2:
            r2 = d2
    r = math.sqrt(r2)
    wnorm = math.sqrt(wnorm2)
    blockT = np.ascontiguousarray(block.T)
    hinge = np.zeros(E)
    acc = np.empty(E)
    for i in range(n):
        m = 0.0
        for j in range(P):
            m += Xa[i, j] * block[ref, j]
        m *= y[i]
        if m - norms[i] * r - 1e-9 * (1.0 + norms[i] * wnorm) > 1.0:
            continue
        for e in range(E):
            acc[e] = 0.0
        for j in range(P):
            xij = Xa[i, j]
            for e in range(E):
                acc[e] += xij * blockT[j, e]
        yi = y[i]
        for e in range(E):
            h = 1.0 - yi * acc[e]
            if h > 0.0:
                hinge[e] += h
    out = np.empty(E)
    for e in range(E):
        sq = 0.0
        for j in range(P):
            sq += block[e, j] * block[e, j]
        out[e] = 0.5 * sq + C * hinge[e]
    return out


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


# -- SMO (kernel SVM) ---------------------------------------------------------------------------------
NEED_ROW = 1  # smo_run: a kernel row is missing from the cache; the caller writes it and calls again
HISTORY_FULL = 2  # smo_run: the history buffer is full; the caller enlarges it and calls again
DONE = 0


@jit
def smo_run(
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
    C,
    tol,
    max_iter,
    istate,
    fstate,
    history,
    tau,
):
    """SMO iterations (WSS2 selection, LIBSVM's two-variable update) of :func:`..smo.smo`, over scalars.

    The same operations in the same order as the numpy loop in :mod:`..smo` (which documents the
    algorithm), so both give the same multipliers; one scan per iteration applies the last step's
    gradient update and finds the next ``i`` (the numpy loop takes five passes), a second one ``j``.
    Kernel rows come from the caller's LRU cache ``block`` (``slot_of[r]``: slot of row r or -1);
    when a row is missing this returns ``NEED_ROW`` (row and slot in ``istate[3:5]``), the caller
    computes it into ``block[slot]`` and calls again, which restarts the interrupted iteration (the
    selection is deterministic). ``istate``: iteration, LRU clock, slots used, needed row, its slot,
    converged flag; ``fstate``: W, final gap. Returns ``DONE``, ``NEED_ROW`` or ``HISTORY_FULL``.
    """
    n = y.shape[0]
    capacity = row_of_slot.shape[0]
    it = istate[0]
    W = fstate[0]
    pend_i = False  # a gradient update F -= K_i (y_i d_i), F -= K_j (y_j d_j) still to apply
    pend_j = False
    ci = 0.0
    cj = 0.0
    Ki = block[0]
    Kj = block[0]
    stop = False
    while True:
        # --- scan: pending gradient update; i = first argmax of F + pen_up (NaN first, as np.argmax);
        # the minimum of F + pen_low (NaN if any) ---
        i = 0
        Gmax = 0.0
        up_nan = False
        low_min = np.inf
        low_nan = False
        for t in range(n):
            f = F[t]
            if pend_i:
                f -= Ki[t] * ci
            if pend_j:
                f -= Kj[t] * cj
            if pend_i or pend_j:
                F[t] = f
            v = f + pen_up[t]
            if t == 0:
                Gmax = v
                up_nan = math.isnan(v)
            elif not up_nan:
                if math.isnan(v):
                    i = t
                    Gmax = v
                    up_nan = True
                elif v > Gmax:
                    i = t
                    Gmax = v
            w = f + pen_low[t]
            if math.isnan(w):
                low_nan = True
            elif w < low_min:
                low_min = w
        if low_nan:
            low_min = np.nan
        pend_i = False
        pend_j = False
        if stop or it >= max_iter:
            break
        if it >= history.shape[0]:
            istate[0] = it
            fstate[0] = W
            return 2
        # --- working-set selection (WSS2) ---
        gap = Gmax - low_min
        fstate[1] = gap
        if not gap >= tol:
            istate[5] = 1 if gap < tol else 0
            break
        # kernel row i: its cache slot (LRU), or a miss left for the caller to fill
        clock = istate[1] + 1
        istate[1] = clock
        si = slot_of[i]
        if si >= 0:
            stamp[si] = clock
        else:
            if istate[2] < capacity:
                si = istate[2]
                istate[2] = si + 1
            else:
                si = 0
                for s in range(1, capacity):
                    if stamp[s] < stamp[si]:
                        si = s
                slot_of[row_of_slot[si]] = -1
            slot_of[i] = si
            row_of_slot[si] = i
            stamp[si] = clock
            istate[3] = i
            istate[4] = si
            istate[0] = it
            fstate[0] = W
            return 1
        Ki = block[si]
        j = 0
        best = -1.0
        Kdi = Kd[i]
        for t in range(n):
            b = Gmax - (F[t] + pen_low[t])
            if b < 0.0:  # noqa: PLR1730 (as np.maximum: a NaN stays NaN)
                b = 0.0
            if unit_diag:
                a = (1.0 - Ki[t]) * 2.0
            else:
                a = Ki[t] * -2.0 + Kd[t] + Kdi
            if a < tau:  # noqa: PLR1730 (as np.maximum: a NaN stays NaN)
                a = tau
            score = b * b / a
            if t == 0:
                best = score
                if math.isnan(score):
                    break
            elif math.isnan(score):
                j = t
                break
            elif score > best:
                j = t
                best = score
        # kernel row j: its cache slot (LRU), or a miss left for the caller to fill
        clock = istate[1] + 1
        istate[1] = clock
        sj = slot_of[j]
        if sj >= 0:
            stamp[sj] = clock
        else:
            if istate[2] < capacity:
                sj = istate[2]
                istate[2] = sj + 1
            else:
                sj = 0
                for s in range(1, capacity):
                    if stamp[s] < stamp[sj]:
                        sj = s
                slot_of[row_of_slot[sj]] = -1
            slot_of[j] = sj
            row_of_slot[sj] = j
            stamp[sj] = clock
            istate[3] = j
            istate[4] = sj
            istate[0] = it
            fstate[0] = W
            return 1
        Kj = block[sj]

        # --- two-variable subproblem ---
        yi = y[i]
        yj = y[j]
        ai = alpha[i]
        aj = alpha[j]
        Gi = -yi * F[i]
        Gj = -yj * F[j]
        Kij = Ki[j]
        quad = Kd[i] + Kd[j] - 2.0 * Kij
        if quad <= 0:
            quad = tau
        if yi != yj:
            delta = (-Gi - Gj) / quad
            diff = ai - aj
            ai_new = ai + delta
            aj_new = aj + delta
            if diff > 0:
                if aj_new < 0:
                    aj_new = 0.0
                    ai_new = diff
            elif ai_new < 0:
                ai_new = 0.0
                aj_new = -diff
            if not hard:
                if diff > 0:
                    if ai_new > C:
                        ai_new = C
                        aj_new = C - diff
                elif aj_new > C:
                    aj_new = C
                    ai_new = C + diff
        else:
            delta = (Gi - Gj) / quad
            s_ij = ai + aj
            ai_new = ai - delta
            aj_new = aj + delta
            if not hard and s_ij > C:
                if ai_new > C:
                    ai_new = C
                    aj_new = s_ij - C
            elif aj_new < 0:
                aj_new = 0.0
                ai_new = s_ij
            if not hard and s_ij > C:
                if aj_new > C:
                    aj_new = C
                    ai_new = s_ij - C
            elif ai_new < 0:
                ai_new = 0.0
                aj_new = s_ij
        di = ai_new - ai
        dj = aj_new - aj
        alpha[i] = ai_new
        alpha[j] = aj_new

        # --- dual objective and I_up / I_low membership; the gradient update waits for the next scan ---
        pend_i = di != 0.0
        pend_j = dj != 0.0
        ci = yi * di
        cj = yj * dj
        W -= Gi * di + Gj * dj + 0.5 * (Kd[i] * di * di + Kd[j] * dj * dj) + yi * yj * Kij * di * dj
        history[it] = W
        for k in range(2):
            t = i if k == 0 else j
            a_t = ai_new if k == 0 else aj_new
            y_t = yi if k == 0 else yj
            below = a_t < C
            above = a_t > 0
            if below if y_t > 0 else above:
                pen_up[t] = 0.0
            else:
                pen_up[t] = -np.inf
            if above if y_t > 0 else below:
                pen_low[t] = 0.0
            else:
                pen_low[t] = np.inf
        it += 1
        if it % 1000 == 0 and not np.isfinite(W):
            stop = True
    istate[0] = it
    fstate[0] = W
    return 0
