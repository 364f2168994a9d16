"""replearn.optim.stochastic (SGD / mini-batch over epochs) and replearn.optim.proximal (ISTA/FISTA)."""

import numpy as np
import pytest

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.optim import gradient_descent
from replearn.optim.proximal import proximal_gradient, soft_threshold
from replearn.optim.stochastic import step_size, stochastic_gradient_descent


@pytest.fixture
def least_squares():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.3 * rng.normal(size=200)
    w_star = np.linalg.lstsq(X, y, rcond=None)[0]

    def grad(w, idx):
        Xb = X[idx]
        return Xb.T @ (Xb @ w - y[idx]) / len(idx)

    def objective(w):
        r = X @ w - y
        return 0.5 * float(r @ r) / len(y)

    return X, y, w_star, grad, objective


def test_schedules():
    t = np.arange(4)
    np.testing.assert_allclose(step_size("constant", 0.5, t, 2.0), [0.5] * 4)
    np.testing.assert_allclose(step_size("inverse", 0.5, t, 2.0), 0.5 / (1 + 2.0 * t))
    np.testing.assert_allclose(step_size("inverse_sqrt", 0.5, t, 1.0), 0.5 / np.sqrt(t + 1))  # CIML eta0/sqrt(k)
    with pytest.raises(ValueError, match="schedule must be one of"):
        step_size("cosine", 0.5, t, 1.0)


def test_sgd_with_decaying_step_reaches_the_minimizer(least_squares):
    X, y, w_star, grad, objective = least_squares
    res = stochastic_gradient_descent(
        grad,
        objective,
        np.zeros(4),
        len(y),
        learning_rate=0.05,
        batch_size=1,
        schedule="inverse",
        decay=0.01,
        max_epochs=300,
        tol=1e-9,
        random_state=0,
    )
    np.testing.assert_allclose(res.params, w_star, atol=5e-3)
    assert res.loss_history[-1] == pytest.approx(objective(w_star), rel=1e-4)
    assert len(res.loss_history) == res.n_iter + 1
    assert res.extra["n_updates"] == res.n_iter * len(y)


def test_loss_history_per_epoch_decreases_on_average(least_squares):
    X, y, w_star, grad, objective = least_squares
    res = stochastic_gradient_descent(
        grad, objective, np.zeros(4), len(y), learning_rate=0.01, batch_size=10, max_epochs=30, tol=None, random_state=1
    )
    h = res.loss_history
    assert res.n_iter == 30 and len(h) == 31
    assert h[-1] < 0.05 * h[0]
    # decreasing on average: each block of 5 epochs is better than the previous one, until the noise floor
    blocks = h[1:].reshape(6, 5).mean(axis=1)
    assert np.all(np.diff(blocks[:3]) < 0)
    assert np.mean(np.diff(h) < 0) > 0.5


def test_full_batch_without_shuffle_is_gradient_descent(least_squares):
    X, y, w_star, grad, objective = least_squares
    sgd = stochastic_gradient_descent(
        grad,
        objective,
        np.zeros(4),
        len(y),
        learning_rate=0.3,
        batch_size=len(y),
        shuffle=False,
        max_epochs=50,
        tol=None,
    )
    gd = gradient_descent(
        lambda w: (objective(w), grad(w, np.arange(len(y)))),
        np.zeros(4),
        learning_rate=0.3,
        max_iter=50,
        tol=0.0,
        warn=False,
    )
    np.testing.assert_allclose(sgd.params, gd.params, rtol=1e-12)
    np.testing.assert_allclose(sgd.loss_history, gd.loss_history, rtol=1e-12)


def test_reshuffling_is_seeded_and_happens_every_epoch(least_squares):
    X, y, w_star, grad, objective = least_squares
    seen = []

    def recording_grad(w, idx):
        seen.append(idx.copy())
        return grad(w, idx)

    kw = dict(learning_rate=0.01, batch_size=len(y), max_epochs=3, tol=None)
    a = stochastic_gradient_descent(recording_grad, objective, np.zeros(4), len(y), random_state=7, **kw)
    orders = [s for s in seen]
    assert len(orders) == 3 and all(sorted(o) == list(range(len(y))) for o in orders)
    assert not np.array_equal(orders[0], orders[1])  # a fresh permutation each epoch
    rng = np.random.default_rng(7)
    for o in orders:
        np.testing.assert_array_equal(o, rng.permutation(len(y)))
    b = stochastic_gradient_descent(grad, objective, np.zeros(4), len(y), random_state=7, **kw)
    np.testing.assert_array_equal(a.params, b.params)


def test_huge_step_raises_divergence_error(least_squares):
    X, y, w_star, grad, objective = least_squares
    with pytest.raises(DivergenceError, match=r"became nan or inf in epoch \d+; the learning rate 1e\+06 is too large"):
        stochastic_gradient_descent(
            grad, objective, np.zeros(4), len(y), learning_rate=1e6, max_epochs=50, random_state=0
        )


def test_outward_oscillation_without_overflow_raises(least_squares):
    X, y, w_star, grad, objective = least_squares
    # full-batch steps just above 2/L: the objective grows every epoch but stays finite for 5 epochs
    L = np.linalg.eigvalsh(X.T @ X / len(y)).max()
    with pytest.raises(DivergenceError, match="is diverging: the objective went from"):
        stochastic_gradient_descent(
            grad,
            objective,
            np.zeros(4),
            len(y),
            learning_rate=2.2 / L,
            batch_size=len(y),
            shuffle=False,
            max_epochs=100,
            tol=1e-6,
        )


def test_max_epochs_warns(least_squares):
    X, y, w_star, grad, objective = least_squares
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=2 epochs"):
        res = stochastic_gradient_descent(
            grad, objective, np.zeros(4), len(y), learning_rate=0.001, max_epochs=2, random_state=0
        )
    assert not res.converged and res.n_iter == 2


def test_bad_arguments(least_squares):
    X, y, w_star, grad, objective = least_squares
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        stochastic_gradient_descent(grad, objective, np.zeros(4), len(y), learning_rate=0.1, batch_size=0)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        stochastic_gradient_descent(grad, objective, np.zeros(4), len(y), learning_rate=0.0)


# -- proximal ------------------------------------------------------------------------------------------
def test_soft_threshold_and_cimls_truncated_gradient_example():
    np.testing.assert_array_equal(soft_threshold(np.array([-3.0, -0.5, 0.0, 0.5, 3.0]), 1.0), [-2, 0, 0, 0, 2])
    # CIML §14.3 (seed 001 L4422): w = 0.6 and an L1 (sub)gradient step of 0.8 (eta = 1) overshoots to -0.2;
    # the truncated-gradient (soft-thresholding) step stops exactly at 0 instead.
    assert 0.6 - 1.0 * 0.8 == pytest.approx(-0.2)
    assert soft_threshold(np.array([0.6]), 1.0 * 0.8)[0] == 0.0


@pytest.mark.parametrize("accelerated", [False, True])
def test_ista_fista_solve_a_lasso(least_squares, accelerated):
    X, y, w_star, grad, objective = least_squares
    n = len(y)
    alpha = 0.3
    L = np.linalg.eigvalsh(X.T @ X / n).max()

    def fun(w):
        return objective(w), grad(w, np.arange(n))

    res = proximal_gradient(fun, alpha, np.zeros(4), step=1.0 / L, max_iter=5000, tol=1e-12, accelerated=accelerated)
    assert res.converged
    # optimality (KKT): |x_j^T r| / n <= alpha, with equality and the sign of w_j where w_j != 0
    g = grad(res.params, np.arange(n))
    nz = res.params != 0
    np.testing.assert_allclose(g[nz], -alpha * np.sign(res.params[nz]), atol=1e-8)
    assert np.all(np.abs(g[~nz]) <= alpha + 1e-8)
    assert np.all(np.diff(res.loss_history) <= 1e-12)  # monotone (FISTA with restarts too)


def test_fista_needs_fewer_iterations(least_squares):
    X, y, w_star, grad, objective = least_squares
    L = np.linalg.eigvalsh(X.T @ X / len(y)).max()

    def fun(w):
        return objective(w), grad(w, np.arange(len(y)))

    kw = dict(step=0.2 / L, max_iter=20000, tol=1e-10)
    ista = proximal_gradient(fun, 0.1, np.zeros(4), accelerated=False, **kw)
    fista = proximal_gradient(fun, 0.1, np.zeros(4), accelerated=True, **kw)
    assert fista.n_iter < ista.n_iter
    np.testing.assert_allclose(fista.params, ista.params, atol=1e-8)
