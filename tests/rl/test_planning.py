"""Value iteration, policy iteration and policy evaluation on the 4x3 world and random MDPs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from replearn import rl
from replearn.exceptions import ConvergenceWarning
from replearn.rl import FiniteMDP, ImproperMDPError, MDPValidationError
from replearn.rl.envs import random_grid_world, russell_norvig_4x3

# AIMA Fig. 17.3 (gamma = 1, living reward -0.04, noise 0.2); state indices from envs.gridworld's docstring
RN_VALUES = {7: 0.705, 0: 0.812, 2: 0.918, 10: 0.388}
NON_TERMINAL = [0, 1, 2, 4, 5, 7, 8, 9, 10]


def random_mdp(S=6, A=3, gamma=0.9, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(S) * 0.5, size=(S, A))
    return FiniteMDP(P, rng.normal(size=(S, A)), gamma)


@pytest.fixture(scope="module")
def world():
    return russell_norvig_4x3(living_reward=-0.04, noise=0.2).to_mdp(1.0)


def test_public_import_paths():
    assert rl.value_iteration is rl.planning.value_iteration
    assert rl.policy_iteration is rl.planning.policy_iteration
    assert rl.policy_evaluation is rl.planning.policy_evaluation


@pytest.mark.parametrize("update", ["synchronous", "gauss-seidel"])
def test_4x3_value_iteration_reproduces_russell_norvig(world, update):
    vi = rl.value_iteration(world, tol=1e-10, update=update)
    assert vi.converged
    for s, v in RN_VALUES.items():
        assert round(vi.values[s], 3) == v
    assert vi.values[3] == pytest.approx(1.0) and vi.values[6] == pytest.approx(-1.0) and vi.values[11] == 0.0


def test_4x3_value_and_policy_iteration_agree(world):
    vi = rl.value_iteration(world, tol=1e-12)
    pi = rl.policy_iteration(world)
    assert pi.converged and pi.error_bound == 0.0
    np.testing.assert_allclose(vi.values, pi.values, atol=1e-9)
    np.testing.assert_array_equal(vi.policy[NON_TERMINAL], pi.policy[NON_TERMINAL])
    # AIMA's optimal policy: up the left column, right along the top, left along the bottom, up at (3,2)
    up, right, left = 0, 1, 3
    expected = {0: right, 1: right, 2: right, 4: up, 5: up, 7: up, 8: left, 9: left, 10: left}
    assert {s: int(pi.policy[s]) for s in expected} == expected
    # and its exact evaluation is V*
    ev = rl.policy_evaluation(world, pi.policy)
    np.testing.assert_allclose(ev.values, pi.values, atol=1e-12)


def test_sparse_and_dense_mdps_give_the_same_solutions():
    gw = random_grid_world(7, 9, random_state=3)
    dense, sparse = gw.to_mdp(0.95, sparse=False), gw.to_mdp(0.95, sparse=True)
    assert sparse.is_sparse and not dense.is_sparse
    for fn in (
        lambda m: rl.value_iteration(m, tol=1e-10),
        rl.policy_iteration,
        lambda m: rl.value_iteration(m, tol=1e-10, update="gauss-seidel"),
    ):
        a, b = fn(dense), fn(sparse)
        np.testing.assert_allclose(a.values, b.values, atol=1e-9)
        np.testing.assert_array_equal(a.policy, b.policy)


def test_value_iteration_bound_holds_at_every_iteration():
    mdp = random_mdp(gamma=0.9)
    v_star = rl.policy_iteration(mdp).values
    for update in ("synchronous", "gauss-seidel"):
        vi = rl.value_iteration(mdp, tol=1e-9, update=update, keep_values=True)
        errors = np.max(np.abs(vi.value_history[1:] - v_star), axis=1)
        assert np.all(errors <= vi.bounds + 1e-12)
        np.testing.assert_allclose(vi.bounds, 0.9 * vi.residuals / 0.1)
        assert vi.error_bound <= 1e-9 and errors[-1] <= 1e-9
        # contraction (notes §16.1): the error shrinks at least by gamma per sweep
        assert np.all(errors[1:] <= 0.9 * errors[:-1] + 1e-12)
        # the greedy policy's loss is within the Williams-Baird bound
        loss = np.max(np.abs(rl.policy_evaluation(mdp, vi.policy).values - v_star))
        assert loss <= vi.policy_loss_bound + 1e-12


def test_gauss_seidel_needs_no_more_sweeps_than_synchronous():
    # no walls: every cell drains into a terminal (a walled-off pocket decays at rate gamma under either scheme)
    mdp = random_grid_world(10, 10, wall_fraction=0.0, random_state=0).to_mdp(0.95)
    sync = rl.value_iteration(mdp, tol=1e-6)
    gs = rl.value_iteration(mdp, tol=1e-6, update="gauss-seidel")
    assert gs.n_iter < sync.n_iter


def test_policy_iteration_terminates_within_the_number_of_policies():
    for seed in range(5):
        mdp = random_mdp(S=4, A=3, seed=seed)
        pi = rl.policy_iteration(mdp, initial_policy="random", random_state=seed)
        assert pi.converged and pi.n_iter <= 3**4
        assert pi.policy_changes[-1] == 0
        # exact optimality: brute force over all 81 deterministic policies
        best = max(rl.policy_evaluation(mdp, np.array(p)).values.sum() for p in itertools.product(range(3), repeat=4))
        assert pi.values.sum() == pytest.approx(best, abs=1e-10)


def test_algorithm_8_interpolates_between_value_and_policy_iteration():
    mdp = random_mdp(S=8, A=3, gamma=0.95, seed=4)
    exact = rl.policy_iteration(mdp)
    for k in (1, 5, 50):
        res = rl.policy_iteration(mdp, evaluation_steps=k, tol=1e-8)
        assert res.converged
        np.testing.assert_array_equal(res.policy, exact.policy)
        assert np.max(np.abs(res.values - exact.values)) <= res.error_bound + 1e-12
    assert (
        rl.policy_iteration(mdp, evaluation_steps=50, tol=1e-8).n_iter
        < rl.policy_iteration(mdp, evaluation_steps=1, tol=1e-8).n_iter
    )


def test_policy_evaluation_exact_iterative_and_stochastic():
    mdp = random_mdp(gamma=0.8)
    pol = np.array([0, 1, 2, 0, 1, 2])
    exact = rl.policy_evaluation(mdp, pol)
    it = rl.policy_evaluation(mdp, pol, method="iterative", tol=1e-11)
    np.testing.assert_allclose(it.values, exact.values, atol=1e-10)
    # Bellman equation V = R_pi + gamma P_pi V by hand
    P, R = mdp.transitions, mdp.rewards
    idx = np.arange(6)
    np.testing.assert_allclose(exact.values, R[idx, pol] + 0.8 * P[idx, pol] @ exact.values, atol=1e-12)
    # a stochastic policy that mixes two deterministic ones: values by linear solve of the mixture
    probs = np.full((6, 3), 1 / 3)
    v = rl.policy_evaluation(mdp, probs).values
    P_mix, R_mix = P.mean(axis=1), R.mean(axis=1)
    np.testing.assert_allclose(v, np.linalg.solve(np.eye(6) - 0.8 * P_mix, R_mix), atol=1e-12)


def test_improper_policy_evaluation_with_gamma_one_raises(world):
    bump = np.array([3, 0, 3, 0, 3, 3, 0, 3, 2, 2, 2, 0])  # keep walking into walls: never terminates
    with pytest.raises(ImproperMDPError, match="never reaches"):
        rl.policy_evaluation(world, bump)


def test_max_iter_warns_and_bad_arguments_raise(world):
    with pytest.warns(ConvergenceWarning):
        res = rl.value_iteration(world, max_iter=3)
    assert not res.converged and res.n_iter == 3
    with pytest.raises(ValueError, match="update"):
        rl.value_iteration(world, update="jacobi")
    with pytest.raises(MDPValidationError, match="shape"):
        rl.value_iteration(world, initial_values=np.zeros(3))
    with pytest.raises(MDPValidationError, match="permutation"):
        rl.value_iteration(world, update="gauss-seidel", order=np.zeros(12, dtype=int))
    with pytest.raises(TypeError, match="FiniteMDP"):
        rl.value_iteration("not an mdp")


def test_warm_start_from_the_solution_converges_immediately():
    mdp = random_mdp(gamma=0.9)
    sol = rl.value_iteration(mdp, tol=1e-10)
    again = rl.value_iteration(mdp, tol=1e-8, initial_values=sol.values)
    assert again.n_iter == 1


def test_history_lengths_match_iterations(world):
    vi = rl.value_iteration(world, tol=1e-6)
    assert len(vi.residuals) == len(vi.times) == len(vi.bounds) == vi.n_iter
    assert np.all(np.isinf(vi.bounds))  # gamma = 1: no sup-norm bound
    pi = rl.policy_iteration(world)
    assert len(pi.policy_changes) == pi.n_iter and pi.residuals[-1] < 1e-10
