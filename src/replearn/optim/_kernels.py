"""Compiled epochs of (mini-batch) SGD for the linear models, the ``epoch_fn`` of
:func:`replearn.optim.stochastic.stochastic_gradient_descent`.

Each function runs every update of one epoch in place -- for each consecutive batch ``I`` of the
given order, ``theta := theta - eta_k g_I(theta)`` with the batch-mean gradient -- exactly the loop of
``stochastic_gradient_descent`` with the models' ``grad_fn`` (same order, same steps, same
arithmetic up to the summation order of dot products). They are compiled lazily by numba
(:mod:`replearn._jit`) and run as plain Python without it.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit

#: margin losses of CIML eqs. 7.4-7.7, in the order the codes below use
LOSS_CODES = {"hinge": 0, "logistic": 1, "exponential": 2, "squared": 3}
#: regularizers of CIML §7.3
PENALTY_CODES = {None: 0, "l2": 1, "l1": 2, "lp": 3}
_LN2 = math.log(2.0)


@jit
def margin_sgd_epoch(Xa, s, order, etas, theta, batch, d, loss_code, penalty_code, alpha, p, truncate):
    """One epoch of CIML Alg. 34 on ``mean_i loss(s_i theta^T xa_i) + alpha R(w)`` (``w = theta[:d]``).

    Per batch: ``g = (1/B) sum_i s_i loss'(z_i) xa_i`` plus ``alpha R'(w)`` (unless ``truncate``:
    then the L1 part is applied afterwards as soft thresholding, CIML §14.3), and
    ``theta := theta - eta_k g``.
    """
    n, P = Xa.shape
    g = np.empty(P)
    k = 0
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        for j in range(P):
            g[j] = 0.0
        for t in range(start, stop):
            i = order[t]
            z = 0.0
            for j in range(P):
                z += Xa[i, j] * theta[j]
            si = s[i]
            z *= si
            # d loss / d z (CIML eqs. 7.4-7.7; the hinge's subgradient is -1 where z <= 1)
            if loss_code == 0:
                dl = -1.0 if z <= 1.0 else 0.0
            elif loss_code == 1:
                dl = -(1.0 / (1.0 + math.exp(z))) / _LN2  # -expit(-z) / log 2
            elif loss_code == 2:
                dl = -math.exp(-z)
            else:
                dl = -2.0 * (1.0 - z)
            coef = si * dl
            for j in range(P):
                g[j] += Xa[i, j] * coef
        size = stop - start
        for j in range(P):
            g[j] /= size
        if penalty_code != 0 and not (truncate and penalty_code == 2):
            for j in range(d):
                v = theta[j]
                if penalty_code == 1:
                    r = v
                else:
                    r = 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)  # sign(v), 0 at 0
                    if penalty_code == 3:
                        r *= abs(v) ** (p - 1.0)
                g[j] += alpha * r
        eta = etas[k]
        for j in range(P):
            theta[j] -= eta * g[j]
        if truncate:  # w := S(w, eta alpha); the intercept is not penalized
            a = eta * alpha
            for j in range(d):
                v = theta[j]
                shrunk = abs(v) - a
                if shrunk > 0.0:
                    theta[j] = shrunk if v > 0.0 else -shrunk
                else:
                    theta[j] = 0.0
        k += 1


@jit
def least_squares_sgd_epoch(X, y, order, etas, w, batch):
    """One epoch of the LMS rule (batch 1) or mini-batch SGD on ``1/(2n) ||X w - y||^2``:
    ``w := w - eta_k (1/B) sum_{i in I} (w^T x_i - y_i) x_i`` (CS229 notes §1.1 eq. 1.2, §7.1 Alg. 2)."""
    n, d = X.shape
    g = np.empty(d)
    k = 0
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        for j in range(d):
            g[j] = 0.0
        for t in range(start, stop):
            i = order[t]
            r = 0.0
            for j in range(d):
                r += X[i, j] * w[j]
            r -= y[i]
            for j in range(d):
                g[j] += X[i, j] * r
        size = stop - start
        eta = etas[k]
        for j in range(d):
            w[j] -= eta * (g[j] / size)
        k += 1
