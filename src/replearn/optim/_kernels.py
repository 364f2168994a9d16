"""Compiled epochs of (mini-batch) SGD for the linear models, the ``epoch_fn`` of
:func:`replearn.optim.stochastic.stochastic_gradient_descent`.

Each function runs every update of one epoch in place -- for each consecutive batch ``I`` of the
given order, ``theta := theta - eta_k g_I(theta)`` with the batch-mean gradient -- exactly the loop of
``stochastic_gradient_descent`` with the models' ``grad_fn`` (same order, same steps, same
arithmetic up to the summation order of dot products). They are compiled lazily by numba
(:mod:`replearn._jit`) and run as plain Python without it.

:func:`least_squares_gd` is the whole loop of :func:`replearn.optim.gradient.gradient_descent` on the
least-squares objective (``LinearRegression(solver="gd")``, via
:func:`replearn.optim.gradient.least_squares_gradient_descent`): same iterates, stopping rules and
divergence test, without the per-iteration Python overhead.
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


@jit(fastmath={"reassoc"})
def least_squares_loss_grad(XT, YT, WT, GT, R):
    """``J = 1/(2n) ||X W - Y||_F^2`` (returned) and its gradient ``(1/n) X^T (X W - Y)`` (written to ``GT``),
    with every matrix stored transposed: ``XT`` (d, n), ``YT`` (n, k) as (k, n), ``WT`` and ``GT`` (k, d);
    ``R`` (n,) is workspace.

    Per target c: the residual ``r = X w_c - y_c`` column by column of ``X`` (``r += x_j w_jc``, each
    ``r_i`` summed over j in order, as a dot product would), then ``||r||^2`` and ``g_jc = x_j . r / n``.
    The two reductions over the examples may be reassociated (``fastmath={"reassoc"}``: vectorized
    partial sums; rounding only -- no assumption about NaN or inf, which the caller tests).
    """
    d, n = XT.shape
    k = YT.shape[0]
    rr = 0.0
    for c in range(k):
        for i in range(n):
            R[i] = 0.0
        for j in range(d):
            w = WT[c, j]
            for i in range(n):
                R[i] += XT[j, i] * w
        s2 = 0.0
        for i in range(n):
            v = R[i] - YT[c, i]
            R[i] = v
            s2 += v * v
        rr += s2
        for j in range(d):
            s = 0.0
            for i in range(n):
                s += XT[j, i] * R[i]
            GT[c, j] = s / n
    return 0.5 * rr / n


@jit
def _finite_loss_grad(loss, G):
    """Whether ``loss`` and every entry of ``G`` (2-D) are finite (the test of ``check_finite_step``)."""
    if not math.isfinite(loss):
        return False
    a, b = G.shape
    for j in range(a):
        for c in range(b):
            if not math.isfinite(G[j, c]):
                return False
    return True


@jit
def _grad_sq_norm_max(G):
    """``(||G||_F^2, max |G_jc|)`` of a 2-D ``G``."""
    a, b = G.shape
    ss = 0.0
    gmax = 0.0
    for j in range(a):
        for c in range(b):
            v = G[j, c]
            ss += v * v
            av = abs(v)
            if av > gmax:
                gmax = av
    return ss, gmax


@jit
def least_squares_gd(XT, YT, WT, GT, R, learning_rate, max_iter, tol, gtol, grad_rtol, history):
    """Batch gradient descent on ``J(W) = 1/(2n) ||X W - Y||_F^2`` from ``W`` (``WT`` updated in place; the
    arrays as in :func:`least_squares_loss_grad`): the loop of :func:`replearn.optim.gradient.gradient_descent`
    with ``fun`` = :func:`least_squares_loss_grad`.

    ``W := W - learning_rate * G`` until ``|J_k - J_{k+1}| / max(|J_k|, |J_{k+1}|, 1) <= tol`` (``tol > 0``),
    ``max |G| <= gtol`` (``gtol >= 0``; negative disables) or ``||G||_F <= grad_rtol ||G_0||_F``
    (``grad_rtol >= 0``; negative disables), or ``max_iter`` updates. ``history[k]`` receives ``J`` after
    ``k`` updates and ``GT`` the last gradient. Returns ``(n_iter, converged, finite, g0_norm)``: ``finite``
    is False when ``J`` or ``G`` became NaN/inf after ``n_iter`` updates (the loop stops there, the caller
    raises); ``g0_norm`` is ``||G_0||_F``.
    """
    loss = least_squares_loss_grad(XT, YT, WT, GT, R)
    history[0] = loss
    if not _finite_loss_grad(loss, GT):
        return 0, False, False, 0.0
    ss, gmax = _grad_sq_norm_max(GT)
    g0_norm = math.sqrt(ss)
    converged = (gtol >= 0.0 and gmax <= gtol) or (grad_rtol >= 0.0 and g0_norm == 0.0)
    k, d = WT.shape
    step = -learning_rate
    n_iter = 0
    while not converged and n_iter < max_iter:
        for c in range(k):
            for j in range(d):
                WT[c, j] += step * GT[c, j]
        new_loss = least_squares_loss_grad(XT, YT, WT, GT, R)
        n_iter += 1
        history[n_iter] = new_loss
        if not _finite_loss_grad(new_loss, GT):
            return n_iter, False, False, g0_norm
        if tol > 0.0 and abs(loss - new_loss) / max(abs(loss), abs(new_loss), 1.0) <= tol:
            converged = True
        ss, gmax = _grad_sq_norm_max(GT)
        if gtol >= 0.0 and gmax <= gtol:
            converged = True
        if grad_rtol >= 0.0 and math.sqrt(ss) <= grad_rtol * g0_norm:
            converged = True
        loss = new_loss
    return n_iter, converged, True, g0_norm
