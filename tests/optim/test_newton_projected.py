"""Newton's method in one dimension (CS229 §2.3), projected (S)GD (EPFL constrained optimization) and CIML's
truncated gradient step (§14.3): against SciPy's solvers, the texts' numbers and the defining properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.optim import (
    newton_optimize,
    newton_root,
    project_box,
    project_l1_ball,
    project_l2_ball,
    project_simplex,
    projected_gradient_descent,
    projected_sgd,
    soft_threshold,
    truncated_gradient_step,
)


@pytest.mark.parametrize(
    ("f", "fp", "x0"),
    [
        (lambda t: t**3 - 2 * t - 5, lambda t: 3 * t**2 - 2, 2.0),
        (lambda t: math.cos(t) - t, lambda t: -math.sin(t) - 1, 0.5),
        (lambda t: math.exp(t) - 4.5, lambda t: math.exp(t), 4.5),
    ],
)
def test_newton_root_equals_scipys_newton(f, fp, x0):
    ours = newton_root(f, fp, x0)
    ref = optimize.newton(f, x0, fprime=fp, tol=1e-14, maxiter=100)
    assert ours.converged and ours.root == pytest.approx(ref, rel=1e-12, abs=1e-14)
    assert abs(f(ours.root)) < 1e-12
    assert ours.iterates[0] == x0 and ours.iterates.size == ours.n_iter + 1


def test_each_step_is_where_the_tangent_crosses_zero_and_convergence_is_quadratic():
    f, fp = (lambda t: t**2 - 2.0), (lambda t: 2.0 * t)
    r = newton_root(f, fp, 4.5)
    th = r.iterates
    for a, b in zip(th[:-1], th[1:]):
        assert f(a) + fp(a) * (b - a) == pytest.approx(0.0, abs=1e-12)  # the tangent at a vanishes at b
    err = np.abs(th - math.sqrt(2))
    ok = err[1:] > 1e-15
    ratios = err[1:][ok] / err[:-1][ok] ** 2  # e_{k+1} / e_k^2 -> |f''| / (2 |f'|) = 1 / (2 sqrt 2)
    assert ratios[-1] == pytest.approx(1 / (2 * math.sqrt(2)), rel=0.05)


def test_newton_optimize_maximizes_and_refuses_to_call_a_minimum_a_maximum():
    # l(theta) = -(theta - 1.3)^2 (theta^2 + 1) has its maximum at 1.3
    dl = lambda t: -2 * (t - 1.3) * (t**2 + 1) - 2 * t * (t - 1.3) ** 2  # noqa: E731
    d2l = lambda t: optimize.approx_fprime([t], lambda v: dl(v[0]), 1e-7)[0]  # noqa: E731
    r = newton_optimize(dl, d2l, 2.0)
    assert r.kind == "maximum" and r.root == pytest.approx(1.3, abs=1e-7)
    with pytest.raises(ValueError, match="minimum of l"):
        newton_optimize(lambda t: 2 * t, lambda t: 2.0, 3.0)  # l = t^2: the step finds its minimum
    assert newton_optimize(lambda t: 2 * t, lambda t: 2.0, 3.0, maximize=False).kind == "minimum"


def test_newton_errors_and_warnings():
    with pytest.raises(DivergenceError, match="horizontal"):
        newton_root(lambda t: t**2 + 1, lambda t: 2 * t, 0.0)
    with pytest.warns(ConvergenceWarning):
        newton_root(lambda t: math.atan(t), lambda t: 1 / (1 + t * t), 0.5, max_iter=2)
    with pytest.raises(DivergenceError):  # atan from 1.5: the iterates run away to inf
        newton_root(lambda t: math.atan(t), lambda t: 1 / (1 + t * t), 1.5, max_iter=50, warn=False)
    with pytest.raises(TypeError):
        newton_root(math.sin, math.cos, "1")


# ---------------------------------------------------------------------------------------------- projections


@pytest.mark.parametrize(
    "project",
    [project_box(-0.5, 0.7), project_l2_ball(1.3), project_l1_ball(0.8), project_simplex(2.0)],
    ids=["box", "l2", "l1", "simplex"],
)
def test_projections_are_idempotent_nonexpansive_and_obtuse(project):
    """The characterization of P_C for closed convex C: P(P(v)) = P(v), ||P(u) - P(v)|| <= ||u - v||, and
    <v - P(v), c - P(v)> <= 0 for every c in C."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        u, v = rng.normal(scale=2, size=(2, 6))
        pu, pv = project(u), project(v)
        np.testing.assert_allclose(project(pv), pv, atol=1e-12)
        assert np.linalg.norm(pu - pv) <= np.linalg.norm(u - v) + 1e-12
        c = project(rng.normal(scale=2, size=6))  # a point of C
        assert (v - pv) @ (c - pv) <= 1e-10


def test_projections_against_scipys_constrained_least_squares():
    rng = np.random.default_rng(1)
    for _ in range(10):
        v = rng.normal(scale=2, size=5)
        for project, cons in (
            (project_l2_ball(1.0), {"type": "ineq", "fun": lambda u: 1.0 - u @ u}),
            (project_simplex(1.0), {"type": "eq", "fun": lambda u: u.sum() - 1.0}),
        ):
            bounds = [(0, None)] * 5 if cons["type"] == "eq" else None
            ref = optimize.minimize(
                lambda u, v=v: 0.5 * np.sum((u - v) ** 2),
                np.zeros(5),
                constraints=[cons],
                bounds=bounds,
                method="SLSQP",
                options={"ftol": 1e-14, "maxiter": 500},
            ).x
            np.testing.assert_allclose(project(v), ref, atol=1e-6)
    with pytest.raises(ValueError, match="empty"):
        project_box(1.0, 0.0)


def _quadratic(A, b):
    return lambda w: (0.5 * w @ A @ w - b @ w, A @ w - b)


def test_projected_gradient_descent_reaches_scipys_box_constrained_minimum():
    rng = np.random.default_rng(2)
    M = rng.normal(size=(6, 4))
    A, b = M.T @ M + 0.1 * np.eye(4), rng.normal(scale=3, size=4)
    lo, hi = -0.3 * np.ones(4), 0.4 * np.ones(4)
    L = np.linalg.eigvalsh(A).max()
    res = projected_gradient_descent(
        _quadratic(A, b), np.zeros(4), project_box(lo, hi), learning_rate=1 / L, max_iter=5000
    )
    ref = optimize.minimize(
        _quadratic(A, b),
        np.zeros(4),
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lo, hi)),
        options={"ftol": 1e-15, "gtol": 1e-12},
    )
    assert res.converged
    np.testing.assert_allclose(res.params, ref.x, atol=1e-6)
    assert np.all(res.extra["path"] >= lo - 1e-15) and np.all(res.extra["path"] <= hi + 1e-15)  # every iterate feasible
    assert np.all(np.diff(res.loss_history) <= 1e-12)  # step 1/L: monotone
    # the fixed point of the projected step is the optimality condition
    np.testing.assert_allclose(project_box(lo, hi)(res.params - (A @ res.params - b) / L), res.params, atol=1e-8)


def test_projected_sgd_stays_feasible_and_approaches_the_constrained_least_squares_solution():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = X @ np.array([2.0, -1.0, 0.5]) + 0.1 * rng.normal(size=400)
    ball = project_l2_ball(1.0)
    path = []

    def grad(w, idx):
        path.append(np.linalg.norm(w))
        return X[idx].T @ (X[idx] @ w - y[idx]) / idx.size

    res = projected_sgd(
        grad,
        400,
        np.zeros(3),
        ball,
        learning_rate=0.05,
        n_epochs=30,
        batch_size=10,
        decay=0.01,
        objective=lambda w: 0.5 * np.mean((X @ w - y) ** 2),
        random_state=0,
    )
    assert max(path) <= 1.0 + 1e-12 and np.linalg.norm(res.params) <= 1.0 + 1e-12
    ref = optimize.minimize(
        lambda w: 0.5 * np.mean((X @ w - y) ** 2),
        np.zeros(3),
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": lambda w: 1 - w @ w}],
    ).x
    np.testing.assert_allclose(res.params, ref, atol=0.02)
    assert res.loss_history[-1] < res.loss_history[0]


def test_projected_gradient_descent_errors():
    with pytest.raises(DivergenceError):
        projected_gradient_descent(
            lambda w: (float(w @ w), w * 1e200), np.ones(2), project_box(), learning_rate=1e200, max_iter=3
        )
    with pytest.warns(ConvergenceWarning):
        projected_gradient_descent(
            _quadratic(np.eye(2), np.ones(2)), np.zeros(2), project_box(), learning_rate=1e-3, max_iter=3
        )


# ---------------------------------------------------------------------------------------------- truncated gradient


def test_truncated_gradient_step_is_cimls_example_and_its_corrected_rule():
    # CIML §14.3 L4420: 0.6 - 0.8 = -0.2 (oversteps), then -0.2 + 0.3 = 0.1; truncated: the first step gives 0
    assert truncated_gradient_step(np.array([0.6]), np.array([0.8]), truncate=False)[0] == pytest.approx(-0.2)
    assert truncated_gradient_step(np.array([-0.2]), np.array([-0.3]), truncate=False)[0] == pytest.approx(0.1)
    assert truncated_gradient_step(np.array([0.6]), np.array([0.8]))[0] == 0.0
    # not eq. 14.8 as printed (g -> 0 leaves w at 0.6), and not soft thresholding when g points away from zero
    w, g = np.array([-0.6, 0.6, 0.0, 0.3]), np.array([0.8, -0.5, 0.4, 0.2])
    out = truncated_gradient_step(w, g, 1.0)
    np.testing.assert_allclose(out, [-1.4, 1.1, -0.4, 0.1])
    assert not np.allclose(out, soft_threshold(w, g))
    rng = np.random.default_rng(4)
    for _ in range(100):  # with g = lam sign(w) the two coincide (the L1 part of a lasso step)
        w, lam, eta = rng.normal(size=5), abs(rng.normal()), abs(rng.normal())
        np.testing.assert_allclose(truncated_gradient_step(w, lam * np.sign(w), eta), soft_threshold(w, eta * lam))
    with pytest.raises(ValueError, match="same shape"):
        truncated_gradient_step(np.zeros(2), np.zeros(3))
