"""iLQR / DDP: exact LQR on a linear system, cost reduction on the pendulum swing-up."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.control import (
    ControlInputError,
    QuadraticCost,
    ddp,
    finite_difference_jacobians,
    ilqr,
    lqr,
)
from replearn.rl.envs import pendulum_dynamics

A = np.array([[1.0, 0.1], [0.0, 1.0]])
B = np.array([[0.0], [0.1]])
Q, R = np.eye(2), np.array([[0.1]])


def test_matches_lqr_on_a_linear_system():
    T, x0 = 25, np.array([1.0, 0.5])
    res = ilqr(lambda x, u: A @ x + B @ u, QuadraticCost(Q, R), x0, np.zeros((T, 1)))
    ref = lqr(A, B, Q, R, T)
    xs = [x0]
    for t in range(T):
        xs.append(A @ xs[-1] - B @ (ref.gains[t] @ xs[-1]))
    np.testing.assert_allclose(res.states, np.array(xs), atol=1e-8)
    np.testing.assert_allclose(res.gains, -ref.gains, atol=1e-7)
    assert res.cost == pytest.approx(x0 @ ref.cost_to_go[0] @ x0, rel=1e-9)
    assert res.step_history[0] == 1.0 and res.converged and ddp is ilqr


def test_reduces_cost_on_the_pendulum_swing_up():
    def f(x, u):
        return pendulum_dynamics(x, u[0])

    def jac(x, u, dt=0.05):  # analytic Jacobians of the Euler step (m = l = 1, g = 9.8, b = 0.1)
        fx = np.array([[1.0, dt], [dt * 9.8 * np.cos(x[0]), 1 - dt * 0.1]])
        return fx, np.array([[0.0], [dt]])

    x0 = np.array([np.pi, 0.0])
    fx, fu = finite_difference_jacobians(f, x0 + 0.3, np.array([0.5]))
    jx, ju = jac(x0 + 0.3, None)
    np.testing.assert_allclose(fx, jx, atol=1e-8)
    np.testing.assert_allclose(fu, ju, atol=1e-8)
    cost = QuadraticCost(np.diag([0.1, 0.01]), np.array([[0.01]]), Qf=np.diag([100.0, 10.0]))
    res = ilqr(f, cost, x0, np.zeros((80, 1)), dynamics_jacobians=jac, max_iter=100)
    assert np.all(np.diff(res.cost_history) <= 0)
    assert res.cost < 0.05 * res.cost_history[0]
    assert abs(res.states[-1, 0]) < 0.05 and abs(res.states[-1, 1]) < 0.1  # upright at the end
    # the returned controls reproduce the trajectory through the true dynamics
    x = x0
    for u in res.controls:
        x = f(x, u)
    np.testing.assert_allclose(x, res.states[-1], atol=1e-10)


def test_bad_inputs():
    with pytest.raises(ControlInputError, match="controls_init"):
        ilqr(lambda x, u: x, QuadraticCost(Q, R), np.zeros(2), np.zeros((0, 1)))
    with pytest.raises(ControlInputError, match="stage"):
        ilqr(lambda x, u: x, object(), np.zeros(2), np.zeros((3, 1)))
