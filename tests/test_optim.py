"""replearn.optim.gradient_descent: convergence, ascent, divergence and max_iter warnings."""

import numpy as np
import pytest

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.optim import OptimizeResult, gradient_descent

A = np.array([[3.0, 1.0], [1.0, 2.0]])
B = np.array([1.0, -1.0])
X_STAR = np.linalg.solve(A, B)


def quadratic(x):
    """f(x) = 1/2 x^T A x - b^T x, minimized at A^{-1} b."""
    return 0.5 * x @ A @ x - B @ x, A @ x - B


def test_descent_reaches_the_minimizer_monotonically():
    res = gradient_descent(quadratic, np.zeros(2), learning_rate=0.2, max_iter=1000, tol=0.0, gtol=1e-12)
    assert isinstance(res, OptimizeResult)
    assert res.converged
    np.testing.assert_allclose(res.params, X_STAR, rtol=1e-10)
    assert len(res.loss_history) == res.n_iter + 1
    assert res.loss_history[0] == 0.0  # f(0)
    assert np.all(np.diff(res.loss_history) <= 1e-15)
    assert res.grad_max <= 1e-12


def test_relative_loss_change_stops_early():
    loose = gradient_descent(quadratic, np.zeros(2), learning_rate=0.2, max_iter=1000, tol=1e-3)
    tight = gradient_descent(quadratic, np.zeros(2), learning_rate=0.2, max_iter=1000, tol=1e-12)
    assert loose.converged and tight.converged
    assert loose.n_iter < tight.n_iter


def test_ascent_maximizes():
    def concave(x):
        f, g = quadratic(x)
        return -f, -g

    res = gradient_descent(concave, np.zeros(2), learning_rate=0.2, max_iter=1000, tol=0.0, gtol=1e-10, maximize=True)
    np.testing.assert_allclose(res.params, X_STAR, rtol=1e-8)
    assert np.all(np.diff(res.loss_history) >= -1e-15)


def test_start_at_the_optimum_takes_no_step():
    res = gradient_descent(quadratic, X_STAR, learning_rate=0.1, max_iter=10, gtol=1e-8)
    assert res.n_iter == 0 and res.converged


def test_x0_is_not_modified():
    x0 = np.zeros(2)
    gradient_descent(quadratic, x0, learning_rate=0.1, max_iter=5, tol=0.0, warn=False)
    np.testing.assert_array_equal(x0, 0.0)


def test_too_large_step_raises_divergence_error_with_advice():
    with pytest.raises(DivergenceError, match=r"loss became inf at iteration \d+; the learning rate 5 is too large"):
        gradient_descent(quadratic, np.ones(2), learning_rate=5.0, max_iter=100000, tol=0.0)


def test_nan_gradient_is_reported():
    def bad(x):
        return 1.0, np.array([np.nan, 0.0])

    with pytest.raises(DivergenceError, match="gradient became nan at iteration 0"):
        gradient_descent(bad, np.zeros(2), learning_rate=0.1, max_iter=3)


def test_max_iter_warns_convergence_warning():
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=3"):
        res = gradient_descent(quadratic, np.zeros(2), learning_rate=0.01, max_iter=3, tol=1e-12)
    assert not res.converged and res.n_iter == 3


def test_invalid_settings_raise():
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        gradient_descent(quadratic, np.zeros(2), learning_rate=0.0, max_iter=3)
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        gradient_descent(quadratic, np.zeros(2), learning_rate=0.1, max_iter=0)


def test_relative_gradient_norm_stops_close_to_the_minimizer():
    g0 = np.linalg.norm(quadratic(np.zeros(2))[1])
    for rtol in (1e-3, 1e-8):
        res = gradient_descent(quadratic, np.zeros(2), learning_rate=0.2, max_iter=10_000, tol=0.0, grad_rtol=rtol)
        assert res.converged
        assert np.linalg.norm(quadratic(res.params)[1]) <= rtol * g0
        # ||x - x*|| <= ||g|| / lambda_min(A)
        assert np.linalg.norm(res.params - X_STAR) <= rtol * g0 / np.linalg.eigvalsh(A).min()


def test_relative_gradient_norm_is_scale_free():
    def scaled(x):
        f, g = quadratic(x)
        return 1e6 * f, 1e6 * g

    a = gradient_descent(quadratic, np.zeros(2), learning_rate=0.2, max_iter=10_000, tol=0.0, grad_rtol=1e-6)
    b = gradient_descent(scaled, np.zeros(2), learning_rate=0.2e-6, max_iter=10_000, tol=0.0, grad_rtol=1e-6)
    assert a.n_iter == b.n_iter
