"""Discretization and fitted value iteration on a 1-d system whose optimal policy is known (CS229 §15.4)."""

from __future__ import annotations

import numpy as np
import pytest

from replearn import rl
from replearn.rl import (
    MDPValidationError,
    StateGrid,
    discretize_mdp,
    fitted_value_iteration,
)
from replearn.rl.envs import CARTPOLE_CONSTANTS, cartpole_dynamics

U = np.array([-1.0, 0.0, 1.0])


def sim(S, a, rng):
    """x' = clip(x + 0.1 u_a, -1, 1): move left, stay, move right."""
    return np.clip(S + 0.1 * U[a], -1.0, 1.0)


def noisy_sim(S, a, rng):
    return np.clip(S + 0.1 * U[a] + 0.02 * rng.standard_normal(S.shape), -1.0, 1.0)


def reward(S):
    return -(S[:, 0] ** 2)


@pytest.fixture(scope="module")
def fine_solution():
    grid = StateGrid([-1.0], [1.0], 201)
    mdp = discretize_mdp(sim, reward, grid, 3, 0.9, samples_per_cell=5, random_state=0)
    return grid, rl.value_iteration(mdp, tol=1e-10)


def test_grid_indexing_and_centres():
    g = StateGrid([0.0, -1.0], [1.0, 1.0], [4, 2])
    assert g.n_cells == 8
    np.testing.assert_array_equal(g.index([[0.1, -0.5], [0.9, 0.5], [5.0, -9.0]]), [0, 7, 6])
    np.testing.assert_allclose(g.centers()[g.index([[0.6, 0.3]])[0]], [0.625, 0.5])
    with pytest.raises(MDPValidationError, match="low < high"):
        StateGrid([0.0], [0.0], 3)
    with pytest.raises(MDPValidationError, match="dimensions"):
        g.index(np.zeros((2, 3)))


def test_discretized_policy_moves_towards_the_origin(fine_solution):
    grid, sol = fine_solution
    x = grid.centers()[:, 0]
    assert np.all(sol.policy[x > 0.06] == 0)  # push left
    assert np.all(sol.policy[x < -0.06] == 2)  # push right
    # value at the centre: staying at 0 forever costs almost nothing
    assert sol.values[grid.index([[0.0]])[0]] > -0.01
    # the discrete transition rows are distributions and a push moves about 0.1 / 0.01 = 10 cells
    P = rl.discretize_mdp(sim, reward, grid, 3, 0.9, samples_per_cell=5, random_state=0).transitions
    i = grid.index([[0.0]])[0]
    assert abs(np.argmax(P[i, 2]) - i - 10) <= 1


def test_fitted_value_iteration_linear_and_kernel_find_the_policy(fine_solution):
    grid, sol = fine_solution
    X = np.linspace(-1, 1, 101)[:, None]
    test = np.array([[-0.8], [-0.5], [-0.25], [0.25], [0.5], [0.8]])
    expected = [2, 2, 2, 0, 0, 0]
    lin = fitted_value_iteration(sim, reward, X, 3, gamma=0.9, regressor="linear", random_state=0)
    assert lin.converged and lin.theta.shape == (3,)
    assert lin.theta[2] < 0  # V is concave with a maximum at the origin
    np.testing.assert_array_equal(lin.policy(test), expected)
    ker = fitted_value_iteration(sim, reward, X, 3, gamma=0.9, regressor="kernel", random_state=0)
    assert ker.converged
    np.testing.assert_array_equal(ker.policy(test), expected)
    # the kernel averager tracks the fine discretization's V* closely
    err = np.max(np.abs(ker.value(test) - sol.values[grid.index(test)]))
    assert err < 0.15
    # residuals of the averager contract (fixed, deterministic next states)
    r = ker.residuals[5:]
    assert np.all(r[1:] <= 0.9 * r[:-1] + 1e-12)


def test_fitted_value_iteration_with_a_stochastic_simulator_averages_k_samples():
    X = np.linspace(-1, 1, 61)[:, None]
    res = fitted_value_iteration(noisy_sim, reward, X, 3, gamma=0.9, k=5, max_iter=60, random_state=1)
    np.testing.assert_array_equal(res.policy([[-0.6], [0.6]], k=5, random_state=0), [2, 0])
    assert res.conventions["k"] == 5
    a = fitted_value_iteration(noisy_sim, reward, X, 3, gamma=0.9, k=2, max_iter=5, random_state=3)
    b = fitted_value_iteration(noisy_sim, reward, X, 3, gamma=0.9, k=2, max_iter=5, random_state=3)
    np.testing.assert_array_equal(a.theta, b.theta)


def test_terminal_states_in_discretization_and_fitted_vi():
    grid = StateGrid([-1.0], [1.0], 20)
    mdp = discretize_mdp(
        sim, reward, grid, 3, 0.9, terminal=lambda S: S[:, 0] >= 0.95, terminal_reward=-5.0, random_state=0
    )
    assert mdp.n_states == 22 and mdp.absorbing_set[-1] and mdp.rewards[20, 0] == -5.0
    res = fitted_value_iteration(
        sim,
        reward,
        np.linspace(-1, 1, 41)[:, None],
        3,
        gamma=0.9,
        terminal=lambda S: S[:, 0] >= 0.95,
        terminal_value=-5.0,
        regressor="kernel",
    )
    assert res.value([[0.99]])[0] == -5.0


def test_bad_inputs():
    X = np.linspace(-1, 1, 11)[:, None]
    with pytest.raises(MDPValidationError, match="gamma < 1"):
        fitted_value_iteration(sim, reward, X, 3, gamma=1.0)
    with pytest.raises(MDPValidationError, match="simulator returned shape"):
        fitted_value_iteration(lambda S, a, rng: S[:, :0], reward, X, 3, gamma=0.9)
    with pytest.raises(MDPValidationError, match="one finite number per state"):
        fitted_value_iteration(sim, lambda S: np.zeros(3), X, 3, gamma=0.9)
    with pytest.raises(ValueError, match="regressor"):
        fitted_value_iteration(sim, reward, X, 3, gamma=0.9, regressor="tree")


def test_cartpole_discretization_gives_a_valid_mdp():
    """The PS4 setting: discretize the pole angle and angular velocity, failure -> absorbing."""
    grid = StateGrid([-0.25, -2.0], [0.25, 2.0], [6, 6])

    def simulate(S, a, rng):  # 2-d slice (theta, theta_dot) of the 4-d state, cart at rest
        full = np.column_stack([np.zeros(len(S)), np.zeros(len(S)), S])
        return cartpole_dynamics(full, 10.0 * (2 * a - 1))[:, 2:]

    mdp = discretize_mdp(
        simulate,
        lambda S: np.zeros(len(S)),
        grid,
        2,
        0.95,
        samples_per_cell=4,
        terminal=lambda S: np.abs(S[:, 0]) > CARTPOLE_CONSTANTS["theta_threshold"],
        terminal_reward=-1.0,
        random_state=0,
    )
    sol = rl.value_iteration(mdp, tol=1e-8)
    # leaning right with the pole falling right: push right (action 1) to get under it
    i = grid.index([[0.1, 0.5]])[0]
    assert sol.policy[i] == 1 and np.all(sol.values <= 0)
    assert sol.policy[grid.index([[-0.1, -0.5]])[0]] == 0
