"""Estimating P and R from counts (CS229 §15.3) and the execute / re-estimate / re-plan loop."""

from __future__ import annotations

import numpy as np
import pytest

from replearn import rl
from replearn.rl import MDPValidationError, ModelEstimator, model_based_rl
from replearn.rl.envs import russell_norvig_4x3


def test_counts_give_maximum_likelihood_ratios_and_stated_priors():
    est = ModelEstimator(3, 2, prior="uniform")
    est.update([0, 0, 0, 1], [1, 1, 1, 0], [1, 1, 2, 1], rewards=[1.0, 3.0, 2.0, -1.0])
    P = est.transition_estimate()
    np.testing.assert_allclose(P[0, 1], [0, 2 / 3, 1 / 3])  # eq. 15.5
    np.testing.assert_allclose(P[1, 0], [0, 1, 0])
    np.testing.assert_allclose(P[2, 0], [1 / 3] * 3)  # 0/0 -> 1/|S|
    R = est.reward_estimate()
    assert R[0, 1] == pytest.approx(2.0) and R[1, 0] == -1.0 and R[2, 1] == 0.0
    # counts accumulate across updates
    est.update([0], [1], [0], rewards=[6.0])
    np.testing.assert_allclose(est.transition_estimate()[0, 1], [0.25, 0.5, 0.25])
    assert est.reward_estimate()[0, 1] == pytest.approx(3.0)
    loop = ModelEstimator(3, 2, prior="self_loop").transition_estimate()
    np.testing.assert_allclose(loop[2, 1], [0, 0, 1])


def test_state_rewards_and_terminal_states():
    est = ModelEstimator(3, 2, reward_type="state")
    est.update([0, 0, 1], [0, 1, 0], [1, 1, 2], rewards=[1.0, 3.0, 5.0], terminated=[False, False, True])
    R = est.reward_estimate()
    np.testing.assert_allclose(R, [2.0, 5.0, 0.0])
    P = est.transition_estimate()
    np.testing.assert_allclose(P[2], [[0, 0, 1], [0, 0, 1]])  # terminal next state made absorbing
    mdp = est.to_mdp(0.9)
    assert mdp.state_rewards


def test_bad_updates_raise():
    est = ModelEstimator(3, 2)
    with pytest.raises(MDPValidationError, match="states must be integers"):
        est.update([3], [0], [0])
    with pytest.raises(MDPValidationError, match="same length"):
        est.update([0, 1], [0], [0, 1])
    with pytest.raises(ValueError, match="prior"):
        ModelEstimator(3, 2, prior="dirichlet")


def test_estimate_converges_to_the_true_model():
    mdp = russell_norvig_4x3().to_mdp(0.9)
    rng = np.random.default_rng(0)
    n = 20_000
    s = rng.integers(0, 12, size=n)
    a = rng.integers(0, 4, size=n)
    s2 = mdp.sample_next_states(s, a, rng)
    est = ModelEstimator(12, 4, reward_type="state").update(s, a, s2, rewards=mdp.rewards[s, a])
    assert np.max(np.abs(est.transition_estimate() - mdp.transitions)) < 0.05
    np.testing.assert_allclose(est.reward_estimate(), mdp.rewards[:, 0])


def test_model_based_loop_learns_the_optimal_4x3_policy():
    env = russell_norvig_4x3(random_state=0)
    res = model_based_rl(
        env,
        gamma=0.99,
        n_rounds=15,
        episodes_per_round=10,
        max_steps=60,
        epsilon=0.2,
        reward_type="state",
        random_state=0,
    )
    world = russell_norvig_4x3().to_mdp(0.99)
    opt = rl.value_iteration(world, tol=1e-10)
    # on the optimal path from the start (1,1) -> (1,2) -> (1,3) -> (2,3) -> (3,3) the actions agree
    path = [7, 4, 0, 1, 2]
    np.testing.assert_array_equal(res.policy[path], opt.policy[path])
    # and, in the true MDP, the learned policy is worth nearly V* from the start state
    v = rl.policy_evaluation(world, res.policy).values
    assert v[7] >= opt.values[7] - 0.02
    # along the way the returns improve and warm-started value iteration gets cheaper
    assert res.returns[-5:].mean() > res.returns[0].mean()
    assert res.vi_iterations[-1] < res.vi_iterations[0]
    # reproducible through random_state
    again = model_based_rl(russell_norvig_4x3(random_state=0), gamma=0.99, n_rounds=3, random_state=1)
    twice = model_based_rl(russell_norvig_4x3(random_state=0), gamma=0.99, n_rounds=3, random_state=1)
    np.testing.assert_array_equal(again.returns, twice.returns)
