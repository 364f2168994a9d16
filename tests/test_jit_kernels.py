"""Compiled online loops (replearn._jit, numba) against pure-Python reference implementations.

The references are the loops as they were before compilation (numpy per example): same seed, same
order of examples, same updates, so the fitted parameters agree to rounding (~1e-12). Each kernel's
``py_func`` (what runs without numba) is checked too.
"""

import numpy as np
import pytest

from replearn import _jit
from replearn.models.cluster import _kernels as cluster_kernels
from replearn.models.cluster.kmeans import KMeans, assign, cluster_means
from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.linear_classifier import LinearClassifier
from replearn.models.perceptron import _kernels as perceptron_kernels
from replearn.models.perceptron.perceptron import (
    AveragedPerceptron,
    MulticlassPerceptron,
    Perceptron,
    VotedPerceptron,
)
from replearn.models.svm import _kernels as svm_kernels
from replearn.models.svm import smo as smo_module
from replearn.models.svm.linear_svm import LinearSVM, primal_objective
from replearn.models.svm.svm import SVM
from replearn.optim import _kernels as optim_kernels
from replearn.optim.proximal import soft_threshold
from replearn.optim.stochastic import stochastic_gradient_descent
from replearn.validation import check_random_state

pytestmark = pytest.mark.filterwarnings("ignore::replearn.exceptions.ConvergenceWarning")
RTOL = 1e-12
KERNELS = [
    perceptron_kernels.binary_pass,
    perceptron_kernels.multiclass_pass,
    svm_kernels.dual_cd_solve,
    svm_kernels.block_objectives,
    svm_kernels.pegasos_epoch,
    optim_kernels.margin_sgd_epoch,
    optim_kernels.least_squares_sgd_epoch,
    cluster_kernels.nearest_from_scores,
    cluster_kernels.cluster_sums,
    cluster_kernels.sq_dist_to_row,
    cluster_kernels.sum_sq_to_centers,
    svm_kernels.smo_run,
]


@pytest.fixture(params=["compiled", "python"])
def mode(request, monkeypatch):
    """Run each comparison with the compiled kernels and with their plain-Python functions."""
    if request.param == "python":
        for kernel in KERNELS:
            monkeypatch.setattr(kernel, "_impl", kernel.py_func)
    elif _jit.jit_available():
        assert all(kernel.compiled for kernel in KERNELS)
    return request.param


def blobs(n=300, d=5, k=2, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    return rng.normal(size=(n, d)) * scale + rng.normal(size=(k, d))[y], y


# -- reference loops (numpy per example, as before compilation) ---------------------------------------
def ref_train_binary(X, s, max_iter, shuffle, rng, fit_intercept, keep_votes):
    n, d = X.shape
    w, b, u, beta, c = np.zeros(d), 0.0, np.zeros(d), 0.0, 1
    mistakes, vw, vb, vc = [], [], [], []
    survival = 0
    order = np.arange(n)
    rows = list(X)
    for _ in range(max_iter):
        if shuffle:
            order = rng.permutation(n)
        m = 0
        for i in order:
            x, yi = rows[i], s[i]
            a = float(w @ x) + b
            if yi * a <= 0.0:
                if keep_votes and survival > 0:
                    vw.append(w.copy())
                    vb.append(b)
                    vc.append(survival)
                w += yi * x
                u += (yi * c) * x
                if fit_intercept:
                    b += yi
                    beta += yi * c
                m += 1
                survival = 1
            else:
                survival += 1
            c += 1
        mistakes.append(m)
        if m == 0:
            break
    vw.append(w.copy())
    vb.append(b)
    vc.append(survival)
    return w, b, u, beta, c, mistakes, (np.asarray(vw), np.asarray(vb), np.asarray(vc, dtype=float))


def ref_train_multiclass(X, codes, K, max_iter, shuffle, rng, fit_intercept, keep_votes):
    n, d = X.shape
    W, b, U, beta, c = np.zeros((K, d)), np.zeros(K), np.zeros((K, d)), np.zeros(K), 1
    mistakes, vw, vb, vc = [], [], [], []
    survival = 0
    order = np.arange(n)
    rows = list(X)
    bias = 1.0 if fit_intercept else 0.0
    for _ in range(max_iter):
        if shuffle:
            order = rng.permutation(n)
        m = 0
        for i in order:
            x, yi = rows[i], codes[i]
            scores = W @ x + b
            true = scores[yi]
            scores[yi] = -np.inf
            yhat = int(np.argmax(scores))
            if scores[yhat] >= true:
                if keep_votes and survival > 0:
                    vw.append(W.copy())
                    vb.append(b.copy())
                    vc.append(survival)
                W[yi] += x
                W[yhat] -= x
                b[yi] += bias
                b[yhat] -= bias
                U[yi] += c * x
                U[yhat] -= c * x
                beta[yi] += c * bias
                beta[yhat] -= c * bias
                m += 1
                survival = 1
            else:
                survival += 1
            c += 1
        mistakes.append(m)
        if m == 0:
            break
    vw.append(W.copy())
    vb.append(b.copy())
    vc.append(survival)
    return W, b, U, beta, c, mistakes, (np.asarray(vw), np.asarray(vb), np.asarray(vc, dtype=float))


def ref_dual_cd(Xa, y, C, tol, max_iter, rng):
    n = Xa.shape[0]
    w, alpha = np.zeros(Xa.shape[1]), np.zeros(n)
    Qd = np.einsum("ij,ij->i", Xa, Xa)
    rows, ys = list(Xa), y.tolist()
    index = [i for i in range(n) if Qd[i] > 0.0]
    active = len(index)
    pg_max_old, pg_min_old = np.inf, -np.inf
    epoch = 0
    while epoch < max_iter:
        pg_max, pg_min = -np.inf, np.inf
        draws = rng.integers(0, 2**32, active, dtype=np.uint32)  # Fisher-Yates, as dual_cd_solve
        for t in range(active - 1, 0, -1):
            r = (int(draws[t]) * (t + 1)) >> 32
            index[t], index[r] = index[r], index[t]
        s = 0
        while s < active:
            i = index[s]
            x, yi, ai = rows[i], ys[i], alpha[i]
            G = yi * float(x @ w) - 1.0
            PG = 0.0
            if ai == 0.0:
                if G > pg_max_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                if G < 0.0:
                    PG = G
            elif ai == C:
                if G < pg_min_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                if G > 0.0:
                    PG = G
            else:
                PG = G
            pg_max, pg_min = max(pg_max, PG), min(pg_min, PG)
            if abs(PG) > 1e-12:
                new = min(max(ai - G / Qd[i], 0.0), C)
                alpha[i] = new
                w += ((new - ai) * yi) * x
            s += 1
        epoch += 1
        if pg_max - pg_min <= tol:
            if active == len(index):
                break
            active = len(index)
            pg_max_old, pg_min_old = np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0 else np.inf
        pg_min_old = pg_min if pg_min < 0 else -np.inf
    return w, epoch


def ref_pegasos(Xa, Y, C, batch_size, max_iter, rng):
    n, k = Y.shape
    lam = 1.0 / (C * n)
    radius = 1.0 / np.sqrt(lam)
    W, W_sum, n_avg = np.zeros((Xa.shape[1], k)), np.zeros((Xa.shape[1], k)), 0
    bs = min(batch_size, n)
    total = max_iter * -(-n // bs)
    t = 0
    for _ in range(max_iter):
        order = rng.permutation(n)
        for start in range(0, n, bs):
            t += 1
            batch = order[start : start + bs]
            Xb, Yb = Xa[batch], Y[batch]
            active = (Yb * (Xb @ W)) < 1.0
            eta = 1.0 / (lam * t)
            W *= 1.0 - eta * lam
            W += (eta / batch.size) * (Xb.T @ (Yb * active))
            norms = np.sqrt(np.sum(W * W, axis=0))
            W *= np.minimum(1.0, radius / np.maximum(norms, 1e-300))
            if 2 * t > total:
                W_sum += W
                n_avg += 1
    return W_sum / n_avg


# -- tests --------------------------------------------------------------------------------------------
def test_disabled_jit_runs_the_python_function(monkeypatch):
    monkeypatch.setenv("REPLEARN_DISABLE_JIT", "1")
    _jit._numba.cache_clear()
    try:
        kernel = _jit.jit(lambda a: a + 1)
        assert kernel(1) == 2 and not kernel.compiled
    finally:
        _jit._numba.cache_clear()


@pytest.mark.parametrize("model_cls", [Perceptron, AveragedPerceptron, VotedPerceptron])
@pytest.mark.parametrize("shuffle", [True, False])
def test_binary_perceptrons_match_the_reference_loop(mode, model_cls, shuffle):
    X, y = blobs(seed=1, scale=2.0)
    model = model_cls(max_iter=7, shuffle=shuffle, random_state=3).fit(X, y)
    w, b, u, beta, c, mistakes, votes = ref_train_binary(
        X, np.where(y == 1, 1.0, -1.0), 7, shuffle, check_random_state(3), True, model_cls is VotedPerceptron
    )
    if model_cls is AveragedPerceptron:
        w, b = w - u / c, b - beta / c
    np.testing.assert_allclose(model.coef_[0], w, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(model.intercept_[0], b, rtol=RTOL, atol=1e-12)
    np.testing.assert_array_equal(model.mistakes_, mistakes)
    if model_cls is VotedPerceptron:
        np.testing.assert_allclose(model.vote_coef_[:, 0, :], votes[0], rtol=RTOL, atol=1e-12)
        np.testing.assert_allclose(model.vote_intercept_[:, 0], votes[1], rtol=RTOL, atol=1e-12)
        np.testing.assert_array_equal(model.vote_counts_, votes[2])


@pytest.mark.parametrize(
    "average,vote,fit_intercept", [(False, False, True), (True, False, False), (False, True, True)]
)
def test_multiclass_perceptron_matches_the_reference_loop(mode, average, vote, fit_intercept):
    X, y = blobs(n=240, d=4, k=4, seed=2, scale=1.5)
    if vote:
        model = VotedPerceptron(max_iter=5, random_state=1, fit_intercept=fit_intercept).fit(X, y)
    else:
        model = MulticlassPerceptron(max_iter=5, random_state=1, average=average, fit_intercept=fit_intercept).fit(X, y)
    W, b, U, beta, c, mistakes, votes = ref_train_multiclass(
        X, y, 4, 5, True, check_random_state(1), fit_intercept, vote
    )
    if average:
        W, b = W - U / c, b - beta / c
    np.testing.assert_allclose(model.coef_, W, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, b, rtol=RTOL, atol=1e-12)
    np.testing.assert_array_equal(model.mistakes_, mistakes)
    if vote:
        np.testing.assert_allclose(model.vote_coef_, votes[0], rtol=RTOL, atol=1e-12)
        np.testing.assert_array_equal(model.vote_counts_, votes[2])


@pytest.mark.parametrize("C", [0.01, 1.0])
def test_dual_cd_matches_the_reference_loop(mode, C):
    X, y = blobs(n=400, d=6, seed=3, scale=2.5)
    model = LinearSVM(C=C, tol=1e-4, random_state=5).fit(X, y)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    w, epochs = ref_dual_cd(Xa, np.where(y == 1, 1.0, -1.0), C, 1e-4, 1000, check_random_state(5))
    np.testing.assert_allclose(model.coef_[0], w[:-1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.intercept_[0], w[-1], rtol=1e-10, atol=1e-12)
    assert model.n_iter_ == epochs


def test_pegasos_matches_the_reference_loop(mode):
    X, y = blobs(n=300, d=5, k=3, seed=4, scale=2.0)
    model = LinearSVM(C=0.1, solver="pegasos", max_iter=6, batch_size=7, random_state=2).fit(X, y)
    Xa = np.hstack([X, np.ones((len(X), 1))])
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    W = ref_pegasos(Xa, Y, 0.1, 7, 6, check_random_state(2))
    np.testing.assert_allclose(model.coef_, W[:-1].T, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, W[-1], rtol=RTOL, atol=1e-12)
    assert np.isfinite(primal_objective(Xa, Y, W, 0.1))


@pytest.mark.parametrize(
    "loss,penalty,solver,batch_size",
    [
        ("hinge", "l2", "sgd", 1),
        ("logistic", "l2", "sgd", 1),
        ("exponential", None, "sgd", 3),
        ("squared", "lp", "sgd", 1),
        ("hinge", "l1", "sgd", 8),
        ("logistic", "l1", "truncated_gradient", 1),
    ],
)
def test_linear_classifier_sgd_matches_the_python_gradient_loop(mode, loss, penalty, solver, batch_size):
    X, y = blobs(n=250, d=4, seed=5)
    kw = dict(
        loss=loss,
        penalty=penalty,
        solver=solver,
        batch_size=batch_size,
        alpha=1e-2,
        p=1.5,
        learning_rate=0.05,
        max_iter=6,
        tol=0.0,
        n_iter_no_change=10,
        random_state=8,
    )
    model = LinearClassifier(**kw).fit(X, y)
    # the reference: stochastic_gradient_descent with the model's numpy gradient, batch by batch
    ref = LinearClassifier(**kw)
    ref._validate_params()
    Xa = np.column_stack([X, np.ones(len(X))])
    s = np.where(y == 1, 1.0, -1.0)
    truncate = solver == "truncated_gradient"
    lam = np.r_[np.full(4, 1e-2), 0.0]
    res = stochastic_gradient_descent(
        lambda th, idx: ref.gradient(th, Xa[idx], s[idx], with_l1=not truncate),
        lambda th: ref.objective(th, Xa, s),
        np.zeros(5),
        len(y),
        learning_rate=0.05,
        batch_size=batch_size,
        schedule="inverse_sqrt",
        decay=1.0,
        max_epochs=6,
        tol=0.0,
        n_iter_no_change=10,
        random_state=check_random_state(8),
        prox=(lambda th, eta: soft_threshold(th, eta * lam)) if truncate else None,
        warn=False,
    )
    np.testing.assert_allclose(np.append(model.coef_[0], model.intercept_), res.params, rtol=RTOL, atol=1e-13)
    np.testing.assert_allclose(model.loss_history_[0], res.loss_history, rtol=1e-11)


@pytest.mark.parametrize("solver,batch_size", [("sgd", 1), ("minibatch", 16)])
def test_lms_matches_the_python_gradient_loop(mode, solver, batch_size):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 4))
    y = X @ rng.normal(size=4) + 0.1 * rng.normal(size=300) + 2.0
    kw = dict(
        solver=solver,
        batch_size=batch_size,
        learning_rate=0.01,
        max_iter=5,
        tol=0.0,
        n_iter_no_change=10,
        schedule="inverse",
        decay=0.01,
        random_state=4,
    )
    model = LinearRegression(**kw).fit(X, y)
    Xc, yc = X - X.mean(0), y - y.mean()
    res = stochastic_gradient_descent(
        lambda w, idx: Xc[idx].T @ (Xc[idx] @ w - yc[idx]) / len(idx),
        lambda w: 0.5 * float((Xc @ w - yc) @ (Xc @ w - yc)) / len(yc),
        np.zeros(4),
        len(y),
        learning_rate=0.01,
        batch_size=batch_size,
        schedule="inverse",
        decay=0.01,
        max_epochs=5,
        tol=0.0,
        n_iter_no_change=10,
        random_state=4,
        warn=False,
    )
    np.testing.assert_allclose(model.coef_, res.params, rtol=RTOL)


def test_lloyd_steps_match_the_numpy_expressions(mode):
    X, _ = blobs(n=500, d=6, k=4, seed=9, scale=3.0)
    C = X[:5].copy()
    scores = X @ (-2.0 * C).T + np.einsum("ij,ij->i", C, C)
    x_sq = np.einsum("ij,ij->i", X, X)
    labels, d2 = assign(X, C, with_distances=True, x_sq=x_sq)
    np.testing.assert_array_equal(labels, np.argmin(scores, axis=1))
    np.testing.assert_array_equal(d2, np.maximum(scores[np.arange(len(X)), labels] + x_sq, 0.0))
    means = np.stack([X[labels == j].mean(axis=0) for j in range(5)])
    np.testing.assert_allclose(cluster_means(X, labels, 5), means, rtol=1e-12, atol=1e-13)
    model = KMeans(4, random_state=0).fit(X)
    np.testing.assert_allclose(model.inertia_, ((X - model.cluster_centers_[model.labels_]) ** 2).sum(), rtol=1e-12)
    from replearn.models.cluster.seeding import euclidean_d2_to

    np.testing.assert_allclose(euclidean_d2_to(X)(7), ((X - X[7]) ** 2).sum(axis=1), rtol=1e-13)


# -- kernel SVM: the compiled SMO loop against the numpy one (same rows, same steps) -------------------
def curved_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 - np.sin(2 * X[:, 2]) + 0.5 * rng.normal(size=n)
    return X, np.where(score > np.median(score), 1.0, -1.0)


@pytest.mark.parametrize(
    "kernel,params,C,cache_rows",
    [
        ("rbf", {"gamma": 0.5}, 1.0, None),
        ("polynomial", {"gamma": 0.5, "degree": 3, "coef0": 1.0}, 1.0, None),
        ("linear", {}, 0.5, None),
        ("rbf", {"gamma": 0.5}, 10.0, 3),  # a 3-row cache: rows evicted and recomputed
        ("polynomial", {"gamma": 0.5, "degree": 3, "coef0": 1.0}, 100.0, None),  # > 1024 steps: history grows
    ],
)
def test_smo_compiled_matches_the_numpy_loop(mode, kernel, params, C, cache_rows):
    X, y = curved_data(90, seed=5)
    cache = 8 * len(y) * (cache_rows or len(y))
    ref = smo_module.smo_numpy(smo_module.CachedRows(X, kernel, params, cache), y, C, 1e-3, 100_000)
    res = smo_module.smo_compiled(smo_module.CachedRows(X, kernel, params, cache), y, C, 1e-3, 100_000)
    assert ref.converged and res.converged
    assert res.n_iter == ref.n_iter > 10
    assert 0 < np.count_nonzero(res.alpha) < len(y)
    np.testing.assert_allclose(res.alpha, ref.alpha, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(res.b, ref.b, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(res.history, ref.history, rtol=RTOL)
    np.testing.assert_allclose([res.objective, res.gap], [ref.objective, ref.gap], rtol=RTOL)


def test_smo_compiled_stops_at_max_iter_like_the_numpy_loop(mode):
    X, y = curved_data(60, seed=6)
    ref = smo_module.smo_numpy(smo_module.CachedRows(X, "rbf", {"gamma": 0.5}, 2**20), y, 100.0, 1e-3, 7)
    res = smo_module.smo_compiled(smo_module.CachedRows(X, "rbf", {"gamma": 0.5}, 2**20), y, 100.0, 1e-3, 7)
    assert res.n_iter == ref.n_iter == 7 and not res.converged and not ref.converged
    np.testing.assert_allclose(res.alpha, ref.alpha, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(res.gap, ref.gap, rtol=RTOL)


def test_svm_fit_uses_the_compiled_loop_and_matches_numpy(mode, monkeypatch):
    X, y = curved_data(80, seed=7)
    y3 = np.where(X[:, 3] > 0.8, 2, (y > 0).astype(int))  # three classes: one SMO problem per pair
    kw = {"C": 2.0, "kernel": "polynomial", "gamma": 0.5, "degree": 2}
    calls = []
    compiled = smo_module.smo_compiled
    monkeypatch.setattr(smo_module, "smo_compiled", lambda *a: calls.append(1) or compiled(*a))
    ours = SVM(**kw).fit(X, y3)
    assert len(calls) == 3 if _jit.jit_available() else not calls
    monkeypatch.setattr(smo_module, "jit_available", lambda: False)
    ref = SVM(**kw).fit(X, y3)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=RTOL, atol=1e-12)
    np.testing.assert_array_equal(ours.n_iter_, ref.n_iter_)
    np.testing.assert_array_equal(ours.support_, ref.support_)
