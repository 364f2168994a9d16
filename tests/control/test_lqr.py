"""LQR: DARE agreement, the corrected notes' formulas (errata), the noise term by Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from replearn.control import ControlInputError, lqr
from replearn.exceptions import ReplearnError

A = np.array([[1.0, 0.1], [0.0, 1.0]])
B = np.array([[0.005], [0.1]])
Q = np.diag([1.0, 0.1])
R = np.array([[0.01]])


def test_infinite_horizon_equals_the_dare_solution():
    res = lqr(A, B, Q, R)
    assert res.converged and res.horizon is None
    P = scipy.linalg.solve_discrete_are(A, B, Q, R)
    np.testing.assert_allclose(res.cost_to_go, P, rtol=1e-8)
    np.testing.assert_allclose(res.gains, np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A), rtol=1e-7)
    # closed loop is stable
    assert np.max(np.abs(np.linalg.eigvals(A - B @ res.gains))) < 1


def test_random_systems_match_dare():
    rng = np.random.default_rng(0)
    for _ in range(3):
        n, m = 4, 2
        A_ = rng.normal(size=(n, n)) / 2
        B_ = rng.normal(size=(n, m))
        M = rng.normal(size=(n, n))
        Q_ = M @ M.T + 0.1 * np.eye(n)
        R_ = np.eye(m)
        np.testing.assert_allclose(
            lqr(A_, B_, Q_, R_).cost_to_go, scipy.linalg.solve_discrete_are(A_, B_, Q_, R_), rtol=1e-8
        )


def test_finite_horizon_converges_to_the_stationary_solution():
    res = lqr(A, B, Q, R, horizon=400)
    assert res.gains.shape == (400, 1, 2) and res.cost_to_go.shape == (401, 2, 2)
    np.testing.assert_allclose(res.cost_to_go[-1], Q)
    np.testing.assert_allclose(res.cost_to_go[0], lqr(A, B, Q, R).cost_to_go, rtol=1e-6)


def test_corrected_notes_formulas_and_printed_errata():
    """Notes §16.2 in reward form: Phi_t = -P_t and L_t = -K_t with the corrected equations."""
    T = 5
    res = lqr(A, B, Q, R, horizon=T)
    L, Phi, _ = res.notes_form()
    U, W = Q, R
    for t in range(T):
        Pn = Phi[t + 1]
        L_notes = np.linalg.solve(W - B.T @ Pn @ B, B.T @ Pn @ A)
        Phi_notes = A.T @ (Pn - Pn @ B @ np.linalg.solve(B.T @ Pn @ B - W, B.T @ Pn)) @ A - U
        np.testing.assert_allclose(L[t], L_notes, rtol=1e-10)
        np.testing.assert_allclose(Phi[t], Phi_notes, rtol=1e-10)
    # the printed gain (B^T Phi B - W)^{-1} B Phi A is not even conformable here (B is 2x1)
    Pn = Phi[1]
    with pytest.raises(ValueError):
        np.linalg.solve(B.T @ Pn @ B - W, B @ Pn @ A)
    # the optimal action maximizes the one-step Q-function: gradient zero at a = L s
    s = np.array([0.3, -0.2])
    a = L[0] @ s

    def q(a_):
        nxt = A @ s + B @ a_
        return -s @ U @ s - a_ @ W @ a_ + nxt @ Pn @ nxt

    grad = np.array([(q(a + 1e-6) - q(a - 1e-6)) / 2e-6])
    assert np.abs(grad).max() < 1e-6


def test_noise_term_has_the_corrected_sign_by_monte_carlo():
    """Expected cost x0^T P_0 x0 + c_0 with c_t = c_{t+1} + tr(Sigma P_{t+1}) (notes print -tr)."""
    T, Sigma = 15, np.diag([0.02, 0.05])
    res = lqr(A, B, Q, R, horizon=T, noise_cov=Sigma)
    # the gains do not depend on the noise (notes' Fact 3)
    np.testing.assert_allclose(res.gains, lqr(A, B, Q, R, horizon=T).gains)
    assert res.offsets[0] > 0
    rng = np.random.default_rng(0)
    n = 20_000
    x0 = np.array([1.0, -0.5])
    x = np.tile(x0, (n, 1))
    cost = np.zeros(n)
    for t in range(T):
        u = -x @ res.gains[t].T
        cost += np.einsum("ni,ij,nj->n", x, Q, x) + np.einsum("ni,ij,nj->n", u, R, u)
        x = x @ A.T + u @ B.T + rng.multivariate_normal(np.zeros(2), Sigma, size=n)
    cost += np.einsum("ni,ij,nj->n", x, Q, x)
    expected = x0 @ res.cost_to_go[0] @ x0 + res.offsets[0]
    assert abs(cost.mean() - expected) < 4 * cost.std() / np.sqrt(n)
    assert abs(cost.mean() - (x0 @ res.cost_to_go[0] @ x0 - res.offsets[0])) > 10 * cost.std() / np.sqrt(n)


def test_time_varying_matrices():
    T = 4
    As = np.stack([A * (1 + 0.1 * t) for t in range(T)])
    res = lqr(As, B, Q, R, horizon=T)
    P = Q.copy()
    for t in range(T - 1, -1, -1):
        K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ As[t])
        P = Q + As[t].T @ P @ As[t] - As[t].T @ P @ B @ K
        np.testing.assert_allclose(res.gains[t], K)
    with pytest.raises(ControlInputError, match="A must have shape"):
        lqr(As, B, Q, R)  # no horizon: time-varying arrays are not accepted


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"B": np.ones((3, 1))}, "B must have shape"),
        ({"Q": np.ones((3, 3))}, "Q must have shape"),
        ({"R": np.array([[0.0]])}, "R must be positive definite"),
        ({"Q": np.array([[1.0, 2.0], [0.0, 1.0]])}, "Q must be symmetric"),
        ({"Q": -np.eye(2)}, "positive semi-definite"),
        ({"A": np.array([[np.nan, 0], [0, 1]])}, "NaN"),
    ],
)
def test_bad_inputs_raise(kwargs, match):
    args = {"A": A, "B": B, "Q": Q, "R": R} | kwargs
    with pytest.raises(ControlInputError, match=match):
        lqr(**args, horizon=3)
    assert issubclass(ControlInputError, ReplearnError)
