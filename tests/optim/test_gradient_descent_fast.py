"""The faster gradient-descent loops against the loop as it was (a verbatim reference copy below).

* :func:`replearn.optim.gradient_descent` (the generic loop: one dot product for the finiteness test and
  the norm, ``math.isfinite``) must give the very same iterates, ``n_iter`` and loss history;
* :func:`replearn.optim.gradient.least_squares_gradient_descent` (the compiled least-squares loop) the
  same ``n_iter`` and the same history up to rounding, for 1-D and 2-D ``y``, and the same
  :class:`DivergenceError` (message and iteration);
* the kernel's ``py_func`` (what runs without numba) agrees with the compiled kernel.
"""

import warnings

import numpy as np
import pytest

from replearn import _jit
from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.models.linear.least_squares import LinearRegression, _mse_loss_grad
from replearn.optim import _kernels, check_finite_step, gradient_descent, relative_change
from replearn.optim.gradient import least_squares_gradient_descent

KERNELS = [
    _kernels.least_squares_gd,
    _kernels.least_squares_loss_grad,
    _kernels._finite_loss_grad,
    _kernels._grad_sq_norm_max,
]


@pytest.fixture(params=["compiled", "python"])
def mode(request, monkeypatch):
    """Run with the compiled kernels and with their plain-Python functions (True when compiled)."""
    if request.param == "python":
        for kernel in KERNELS:
            monkeypatch.setattr(kernel, "_impl", kernel.py_func)
        return False
    if _jit.jit_available():
        assert all(kernel.compiled for kernel in KERNELS)
    return _jit.jit_available()  # whether the kernels run compiled (then the problems are full size)


def ref_gradient_descent(fun, x0, *, learning_rate, max_iter, tol=1e-6, gtol=None, maximize=False, grad_rtol=None):
    """The loop of replearn.optim.gradient_descent before it was made faster (without the messages)."""
    sign = 1.0 if maximize else -1.0
    params = np.array(x0, dtype=np.float64, copy=True)
    history = np.empty(max_iter + 1, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        loss, grad = fun(params)
        loss = float(loss)
        check_finite_step(loss, grad, 0, learning_rate)
        history[0] = loss
        g0_norm = float(np.linalg.norm(grad))
        converged = (gtol is not None and float(np.max(np.abs(grad), initial=0.0)) <= gtol) or (
            grad_rtol is not None and g0_norm == 0.0
        )
        n_iter = 0
        while not converged and n_iter < max_iter:
            params = params + sign * learning_rate * grad
            new_loss, grad = fun(params)
            new_loss = float(new_loss)
            n_iter += 1
            check_finite_step(new_loss, grad, n_iter, learning_rate)
            history[n_iter] = new_loss
            if tol > 0 and relative_change(loss, new_loss) <= tol:
                converged = True
            if gtol is not None and float(np.max(np.abs(grad), initial=0.0)) <= gtol:
                converged = True
            if grad_rtol is not None and float(np.linalg.norm(grad)) <= grad_rtol * g0_norm:
                converged = True
            loss = new_loss
    return params, history[: n_iter + 1], n_iter, converged


def problem(n=350, d=10, k=None, seed=0):
    """A standardized, correlated least-squares problem like the diabetes data."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ (np.eye(d) + 0.6 * rng.normal(size=(d, d)) / np.sqrt(d))
    X = (X - X.mean(0)) / X.std(0)
    shape = (n,) if k is None else (n, k)
    y = X @ rng.normal(size=(d,) + shape[1:]) + rng.normal(size=shape)
    return X, y - y.mean(0)


SETTINGS = [
    dict(learning_rate=0.1, max_iter=20000, tol=0.0, grad_rtol=1e-9),
    dict(learning_rate=0.05, max_iter=300, tol=0.0, grad_rtol=1e-6),  # stops at max_iter
    dict(learning_rate=0.1, max_iter=5000, tol=1e-10),
    dict(learning_rate=0.1, max_iter=5000, tol=0.0, gtol=1e-8),
]


@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize("settings", SETTINGS)
def test_generic_loop_is_the_old_loop(k, settings):
    X, y = problem(k=k)
    x0 = np.zeros((X.shape[1],) + y.shape[1:])
    params, history, n_iter, converged = ref_gradient_descent(lambda w: _mse_loss_grad(w, X, y), x0, **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = gradient_descent(lambda w: _mse_loss_grad(w, X, y), x0, **settings)
    assert res.n_iter == n_iter and res.converged == converged
    np.testing.assert_array_equal(res.loss_history, history)
    np.testing.assert_array_equal(res.params, params)


@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("settings", SETTINGS)
def test_least_squares_loop_matches_the_generic_loop(mode, k, settings):
    X, y = problem(n=350 if mode else 40, d=10 if mode else 4, k=k, seed=1)
    x0 = np.zeros((X.shape[1],) + y.shape[1:])
    params, history, n_iter, converged = ref_gradient_descent(lambda w: _mse_loss_grad(w, X, y), x0, **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = least_squares_gradient_descent(X, y, **settings)
    assert res.n_iter == n_iter and res.converged == converged
    assert res.params.shape == x0.shape
    np.testing.assert_allclose(res.loss_history, history, rtol=1e-12, atol=0)
    np.testing.assert_allclose(res.params, params, rtol=1e-9, atol=1e-12)
    _, g = _mse_loss_grad(res.params, X, y)
    np.testing.assert_allclose(res.grad_max, np.max(np.abs(g)), rtol=1e-6)


def test_least_squares_loop_warns_like_the_generic_loop(mode):
    X, y = problem(n=60)
    kw = dict(learning_rate=0.05, max_iter=50, tol=0.0, grad_rtol=1e-9)
    with pytest.warns(ConvergenceWarning) as generic:
        gradient_descent(lambda w: _mse_loss_grad(w, X, y), np.zeros(X.shape[1]), **kw)
    with pytest.warns(ConvergenceWarning) as compiled:
        res = least_squares_gradient_descent(X, y, **kw)
    assert not res.converged and res.n_iter == 50
    assert str(compiled[0].message)[:40] == str(generic[0].message)[:40]
    assert compiled[0].filename == __file__  # stacklevel: the caller's line


@pytest.mark.parametrize("k", [None, 2])
@pytest.mark.parametrize("learning_rate", [5.0, 1e3])
def test_divergence_raised_at_the_same_iteration_with_the_same_message(mode, k, learning_rate):
    X, y = problem(n=60, k=k, seed=2)
    x0 = np.zeros((X.shape[1],) + y.shape[1:])
    with pytest.raises(DivergenceError) as old:
        ref_gradient_descent(lambda w: _mse_loss_grad(w, X, y), x0, learning_rate=learning_rate, max_iter=100000)
    with pytest.raises(DivergenceError) as generic:
        gradient_descent(lambda w: _mse_loss_grad(w, X, y), x0, learning_rate=learning_rate, max_iter=100000)
    with pytest.raises(DivergenceError) as compiled:
        least_squares_gradient_descent(X, y, learning_rate=learning_rate, max_iter=100000)
    assert str(generic.value) == str(old.value)
    assert str(compiled.value) == str(old.value)
    assert "at iteration" in str(old.value)


def test_linear_regression_gd_keeps_its_fit(mode):
    X, y = problem(n=350 if mode else 40, d=10 if mode else 4, k=2, seed=3)
    model = LinearRegression(solver="gd", learning_rate=0.1, max_iter=20000, tol=1e-9).fit(X, y)
    exact = LinearRegression().fit(X, y)
    assert model.coef_.shape == (2, X.shape[1]) and model.intercept_.shape == (2,)
    np.testing.assert_allclose(model.coef_, exact.coef_, rtol=1e-5, atol=1e-6)
    assert len(model.loss_history_) == model.n_iter_ + 1
    single = LinearRegression(solver="gd", learning_rate=0.1, max_iter=20000, tol=1e-9).fit(X, y[:, 0])
    np.testing.assert_allclose(single.coef_, model.coef_[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("k", [1, 3])
def test_kernel_py_func_agrees_with_compiled(k):
    if not _jit.jit_available():
        pytest.skip("numba is not available")
    X, y = problem(n=100, d=6, k=k, seed=4)
    XT, YT = np.ascontiguousarray(X.T), np.ascontiguousarray(y.reshape(len(y), k).T)
    args = (0.1, 2000, 0.0, -1.0, 1e-9)
    out = []
    for fn in (_kernels.least_squares_gd, _kernels.least_squares_gd.py_func):
        WT, GT, history = np.zeros((k, X.shape[1])), np.zeros((k, X.shape[1])), np.empty(2001)
        n_iter, converged, finite, g0 = fn(XT, YT, WT, GT, np.empty(len(X)), *args, history)
        out.append((n_iter, converged, finite, g0, WT, history[: n_iter + 1]))
    (n1, c1, f1, g1, W1, h1), (n2, c2, f2, g2, W2, h2) = out
    assert (n1, c1, f1) == (n2, c2, f2)
    np.testing.assert_allclose(g1, g2, rtol=1e-14)
    np.testing.assert_allclose(W1, W2, rtol=1e-12)
    np.testing.assert_allclose(h1, h2, rtol=1e-13)
