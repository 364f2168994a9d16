"""Learning A and B from rollouts (CS229 §15.4.2): known systems recovered from noisy simulated trials, the
least-squares solution against a direct solve and scikit-learn, the noise covariance, consistency in N, an LQR
controller designed on the learned model, and the identifiability check."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.control import ControlInputError, fit_linear_dynamics, lqr, simulate_linear_rollouts

A_TRUE = np.array([[1.0, 0.1, 0.0], [0.0, 1.0, 0.1], [-0.05, 0.0, 0.95]])  # a slightly damped chain
B_TRUE = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.2]])
SIGMA = np.diag([0.01, 0.02, 0.005]) ** 2 * 4


def rollouts(n_trials=50, horizon=40, seed=0, noise=SIGMA):
    return simulate_linear_rollouts(A_TRUE, B_TRUE, n_trials, horizon, noise_cov=noise, random_state=seed)


def test_noiseless_rollouts_give_A_and_B_exactly():
    S, U = rollouts(5, 10, noise=None)
    model = fit_linear_dynamics(S, U)
    np.testing.assert_allclose(model.A, A_TRUE, atol=1e-10)
    np.testing.assert_allclose(model.B, B_TRUE, atol=1e-10)
    assert model.n_transitions == 50 and model.rank == 5


def test_noisy_rollouts_recover_A_B_and_Sigma():
    S, U = rollouts(200, 50, seed=1)
    model = fit_linear_dynamics(S, U)
    np.testing.assert_allclose(model.A, A_TRUE, atol=0.01)
    np.testing.assert_allclose(model.B, B_TRUE, atol=0.01)
    np.testing.assert_allclose(model.noise_cov, SIGMA, rtol=0.05, atol=4e-5)  # 5 standard errors at N = 10,000
    assert np.all(np.diag(model.noise_cov) > np.diag(model.noise_cov_mle))  # N - p vs N


def test_it_is_the_least_squares_of_the_notes_objective():
    """argmin_{A,B} sum_i sum_t ||s_{t+1} - (A s_t + B a_t)||^2: a direct normal-equations solve, one
    scikit-learn LinearRegression per state coordinate, and a gradient of the objective that vanishes."""
    from sklearn.linear_model import LinearRegression

    S, U = rollouts(10, 20, seed=2)
    model = fit_linear_dynamics(S, U)
    Z = np.concatenate([np.hstack([s[:-1], u]) for s, u in zip(S, U)])
    Y = np.concatenate([s[1:] for s in S])
    M = np.linalg.solve(Z.T @ Z, Z.T @ Y)
    np.testing.assert_allclose(np.hstack([model.A, model.B]), M.T, rtol=1e-8, atol=1e-12)
    sk = LinearRegression(fit_intercept=False).fit(Z, Y)
    np.testing.assert_allclose(np.hstack([model.A, model.B]), sk.coef_, rtol=1e-8, atol=1e-12)
    grad = -2 * Z.T @ (Y - Z @ np.hstack([model.A, model.B]).T)
    assert np.max(np.abs(grad)) < 1e-10 * np.max(np.abs(Z.T @ Y))


def test_the_error_shrinks_like_one_over_root_n():
    errors = []
    for trials in (10, 100, 1000):
        model = fit_linear_dynamics(*rollouts(trials, 20, seed=3))
        errors.append(np.linalg.norm(np.hstack([model.A - A_TRUE, model.B - B_TRUE])))
    assert errors[0] > errors[1] > errors[2]
    assert 1.5 < errors[0] / errors[1] < 6 and 1.5 < errors[1] / errors[2] < 6  # sqrt(10) = 3.2


def test_variable_length_trials_an_offset_and_the_learned_simulator():
    rng = np.random.default_rng(4)
    c = np.array([0.5, -0.2, 0.1])
    S, U = [], []
    for T in (5, 17, 30, 8) * 10:
        s = np.empty((T + 1, 3))
        s[0] = rng.normal(size=3)
        u = rng.normal(size=(T, 2))
        for t in range(T):
            s[t + 1] = A_TRUE @ s[t] + B_TRUE @ u[t] + c + 0.01 * rng.normal(size=3)
        S.append(s)
        U.append(u)
    model = fit_linear_dynamics(S, U, fit_offset=True)
    np.testing.assert_allclose(model.offset, c, atol=0.01)
    np.testing.assert_allclose(model.A, A_TRUE, atol=0.02)
    np.testing.assert_allclose(model.predict(S[0][:-1], U[0]), S[0][1:], atol=0.05)
    path = model.simulate(S[0][0], U[0], stochastic=False)
    assert path.shape == (6, 3)
    np.testing.assert_allclose(path[1], model.A @ S[0][0] + model.B @ U[0][0] + model.offset)
    a, b = (model.simulate(S[0][0], U[0], random_state=7) for _ in range(2))
    np.testing.assert_array_equal(a, b)


def test_an_lqr_controller_designed_on_the_learned_model_is_nearly_optimal():
    """The notes' use of a learned model: plan on it. The infinite-horizon LQR gain from the learned (A, B)
    differs little from the true one, and its closed loop is stable with a cost within 1% of the optimum."""
    model = fit_linear_dynamics(*rollouts(100, 40, seed=5))
    Q, R = np.eye(3), 0.1 * np.eye(2)
    K_true = lqr(A_TRUE, B_TRUE, Q, R).gains
    K_learned = lqr(model.A, model.B, Q, R).gains
    np.testing.assert_allclose(K_learned, K_true, atol=0.1 * np.abs(K_true).max())

    def cost(K):
        closed = A_TRUE - B_TRUE @ K
        assert np.max(np.abs(np.linalg.eigvals(closed))) < 1
        # sum_t x^T (Q + K^T R K) x from x_0 ~ N(0, I): trace of the Lyapunov solution
        import scipy.linalg

        P = scipy.linalg.solve_discrete_lyapunov(closed.T, Q + K.T @ R @ K)
        return np.trace(P)

    assert cost(K_learned) <= cost(K_true) * 1.01


def test_unidentifiable_rollouts_and_bad_shapes_are_refused():
    S, U = rollouts(5, 10, seed=6)
    with pytest.raises(ControlInputError, match="not identifiable.*excite the system"):
        fit_linear_dynamics(S, np.zeros_like(U))  # the actions never vary: B is undetermined
    with pytest.raises(ControlInputError, match=r"11 states need 10 actions"):
        fit_linear_dynamics(S, U[:, :-1])
    with pytest.raises(ControlInputError, match="5 trials but actions has 4"):
        fit_linear_dynamics(S, U[:4])
    with pytest.raises(ValueError, match=r"NaN or infinite"):
        fit_linear_dynamics(np.where(S > 1, np.nan, S), U)
    with pytest.raises(ControlInputError, match="non-empty list"):
        fit_linear_dynamics([], [])
    with pytest.raises(TypeError, match="fit_offset must be a bool"):
        fit_linear_dynamics(S, U, fit_offset="yes")
