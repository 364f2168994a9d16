"""One pass of the perceptron updates over the examples in a given order, compiled by :mod:`replearn._jit`.

Written over scalars so numba can compile it; the same functions run as plain Python without numba.
The per-epoch permutation is drawn by the caller (same ``random_state`` stream as ever), so the
compiled and the Python loop visit the examples in the same order and make the same updates.
"""

from __future__ import annotations

import numpy as np

from ..._jit import jit


@jit
def binary_pass(X, s, order, w, u, state, counts, keep_votes, vw, vb, vc):
    """CIML Alg. 5 (and Alg. 7's cached sums) over ``X[order]``; updates ``w``, ``u`` in place.

    ``state = [b, beta, bias]`` (``bias`` is 1 with an intercept, else 0), ``counts = [c, survival]``
    (Alg. 7's example counter and the current vector's survival time). With ``keep_votes`` the vector
    in force before each update (and its survival time) is written to ``vw[k], vb[k], vc[k]``.
    Returns ``(mistakes, number of stored votes)``.
    """
    d = X.shape[1]
    b = state[0]
    beta = state[1]
    bias = state[2]
    c = counts[0]
    survival = counts[1]
    m = 0
    nv = 0
    for t in range(order.shape[0]):
        i = order[t]
        a = 0.0
        for j in range(d):
            a += w[j] * X[i, j]
        a += b
        yi = s[i]
        if yi * a <= 0.0:
            if keep_votes and survival > 0:
                for j in range(d):
                    vw[nv, j] = w[j]
                vb[nv] = b
                vc[nv] = survival
                nv += 1
            yc = yi * c
            for j in range(d):
                w[j] += yi * X[i, j]
                u[j] += yc * X[i, j]
            if bias != 0.0:
                b += yi
                beta += yc
            m += 1
            survival = 1
        else:
            survival += 1
        c += 1
    state[0] = b
    state[1] = beta
    counts[0] = c
    counts[1] = survival
    return m, nv


@jit
def multiclass_pass(X, codes, order, W, b, U, beta, counts, bias, keep_votes, vw, vb, vc):
    """CIML Alg. 39 (and Alg. 7's averaging) over ``X[order]``; updates ``W, b, U, beta`` in place.

    A tie between the true class and the best other class counts as a mistake. ``counts = [c,
    survival]``; ``bias`` is 1.0 with an intercept, else 0.0. Returns ``(mistakes, stored votes)``.
    """
    K, d = W.shape
    c = counts[0]
    survival = counts[1]
    m = 0
    nv = 0
    scores = np.empty(K)
    for t in range(order.shape[0]):
        i = order[t]
        for k in range(K):
            acc = 0.0
            for j in range(d):
                acc += W[k, j] * X[i, j]
            scores[k] = acc + b[k]
        yi = codes[i]
        true = scores[yi]
        scores[yi] = -np.inf
        yhat = 0
        for k in range(1, K):
            if scores[k] > scores[yhat]:
                yhat = k
        if scores[yhat] >= true:
            if keep_votes and survival > 0:
                for k in range(K):
                    vb[nv, k] = b[k]
                    for j in range(d):
                        vw[nv, k, j] = W[k, j]
                vc[nv] = survival
                nv += 1
            for j in range(d):
                x = X[i, j]
                W[yi, j] += x
                W[yhat, j] -= x
                U[yi, j] += c * x
                U[yhat, j] -= c * x
            b[yi] += bias
            b[yhat] -= bias
            beta[yi] += c * bias
            beta[yhat] -= c * bias
            m += 1
            survival = 1
        else:
            survival += 1
        c += 1
    counts[0] = c
    counts[1] = survival
    return m, nv
