"""REINFORCE: log-probability gradients, unbiasedness against the exact gradient, the baseline's variance."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.rl import (
    FiniteMDP,
    GaussianPolicy,
    MDPValidationError,
    SoftmaxPolicy,
    Trajectories,
    exact_policy_gradient,
    expected_return,
    policy_gradient,
    reinforce,
    sample_mdp_trajectories,
)
from replearn.rl.envs import LinearGaussianSystem


def small_mdp(gamma=0.9, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(3), size=(3, 2))
    return FiniteMDP(P, rng.normal(size=(3, 2)), gamma)


def _fd(f, theta, eps=1e-6):
    return np.array([(f(theta + eps * e) - f(theta - eps * e)) / (2 * eps) for e in np.eye(theta.size)])


def test_softmax_log_prob_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    pol = SoftmaxPolicy(n_actions=3, n_features=4)
    theta = rng.normal(size=pol.n_params)
    obs = rng.normal(size=(5, 4))
    acts = np.array([0, 2, 1, 1, 0])
    g = pol.grad_log_prob(theta, obs, acts)
    for i in range(5):
        fd = _fd(lambda th, i=i: pol.log_prob(th, obs[i : i + 1], acts[i : i + 1])[0], theta)
        np.testing.assert_allclose(g[i], fd, atol=1e-8)
    np.testing.assert_allclose(pol.probabilities(theta, obs).sum(axis=1), 1.0)


@pytest.mark.parametrize("learn_std", [True, False])
def test_gaussian_log_prob_gradient_matches_finite_differences(learn_std):
    rng = np.random.default_rng(1)
    pol = GaussianPolicy(action_dim=2, n_features=3, learn_std=learn_std, log_std=-0.3)
    theta = rng.normal(size=pol.n_params) * 0.5
    obs = rng.normal(size=(4, 3))
    acts = rng.normal(size=(4, 2))
    g = pol.grad_log_prob(theta, obs, acts)
    for i in range(4):
        fd = _fd(lambda th, i=i: pol.log_prob(th, obs[i : i + 1], acts[i : i + 1])[0], theta)
        np.testing.assert_allclose(g[i], fd, atol=1e-7)
    # log_prob is the Gaussian log-density
    W, log_std = pol._split(theta)
    mu, sd = obs @ W.T, np.exp(log_std)
    expect = np.sum(-0.5 * ((acts - mu) / sd) ** 2 - np.log(sd * np.sqrt(2 * np.pi)), axis=1)
    np.testing.assert_allclose(pol.log_prob(theta, obs, acts), expect, atol=1e-12)


def test_exact_gradient_matches_finite_differences_of_the_exact_return():
    mdp = small_mdp()
    pol = SoftmaxPolicy.tabular(3, 2)
    theta = np.random.default_rng(2).normal(size=6)
    g = exact_policy_gradient(mdp, pol, theta, horizon=4)
    fd = _fd(lambda th: expected_return(mdp, pol, th, 4), theta)
    np.testing.assert_allclose(g, fd, atol=1e-8)


@pytest.fixture(scope="module")
def batch():
    mdp = small_mdp()
    pol = SoftmaxPolicy.tabular(3, 2)
    theta = np.random.default_rng(2).normal(size=6)
    tr = sample_mdp_trajectories(mdp, pol, theta, 30_000, 4, random_state=3)
    return mdp, pol, theta, tr


def _exact_values(mdp, pol, theta, horizon):
    """V_t(s) of the finite-horizon policy (reward-to-go from t), a baseline that depends on s_t only."""
    probs = pol.probabilities(theta, np.arange(3))
    V = np.zeros((horizon + 1, 3))
    for t in range(horizon - 1, -1, -1):
        V[t] = np.sum(probs * (mdp.rewards + mdp.gamma * mdp.expected_next_values(V[t + 1])), axis=1)
    return V


def test_reinforce_gradient_is_unbiased_with_and_without_baseline(batch):
    mdp, pol, theta, tr = batch
    exact = exact_policy_gradient(mdp, pol, theta, horizon=4)
    V = _exact_values(mdp, pol, theta, 4)
    variances = {}
    for name, kw in {
        "total": {"estimator": "total"},
        "reward_to_go": {},
        "value_baseline": {"baseline": lambda t, s: V[t][s]},
    }.items():
        est, samples = policy_gradient(tr, pol, theta, gamma=0.9, **kw)
        se = samples.std(axis=0, ddof=1) / np.sqrt(tr.n)
        assert np.all(np.abs(est - exact) <= 4 * se), name
        variances[name] = samples.var(axis=0, ddof=1).sum()
    # dropping past rewards (17.10) and subtracting a baseline (17.11) both cut the variance
    assert variances["reward_to_go"] < variances["total"]
    assert variances["value_baseline"] < 0.7 * variances["reward_to_go"]


def test_fitted_baseline_lowers_the_variance(batch):
    mdp, pol, theta, tr = batch
    _, plain = policy_gradient(tr, pol, theta, gamma=0.9)
    est, fitted = policy_gradient(tr, pol, theta, gamma=0.9, baseline="fitted")
    assert fitted.var(axis=0).sum() < 0.8 * plain.var(axis=0).sum()
    exact = exact_policy_gradient(mdp, pol, theta, horizon=4)
    assert np.all(np.abs(est - exact) <= 4 * fitted.std(axis=0, ddof=1) / np.sqrt(tr.n))


def test_notes_baseline_example_1001_and_998():
    """Notes footnote L6030: returns 1001 / 998 with scores z / -z; baseline 1000 gives z and 2z."""
    mdp = FiniteMDP(np.ones((1, 2, 1)), np.array([[1001.0, 998.0]]), 0.9)
    pol = SoftmaxPolicy.tabular(1, 2)
    theta = np.zeros(2)  # uniform: grad log pi(a=0) = (1/2, -1/2) = z, grad log pi(a=1) = -z
    tr = Trajectories(
        np.zeros((2, 1), dtype=int), np.array([[0], [1]]), np.array([[1001.0], [998.0]]), np.ones((2, 1), dtype=bool)
    )
    z = np.array([0.5, -0.5])
    _, plain = policy_gradient(tr, pol, theta, gamma=0.9)
    np.testing.assert_allclose(plain, [1001 * z, -998 * z])
    _, based = policy_gradient(tr, pol, theta, gamma=0.9, baseline=lambda t, s: np.full(len(s), 1000.0))
    np.testing.assert_allclose(based, [z, 2 * z])
    np.testing.assert_allclose(plain.mean(axis=0), based.mean(axis=0))  # same mean 1.5 z
    assert based.var(axis=0).sum() < plain.var(axis=0).sum() / 1000
    assert mdp.n_states == 1


def test_score_has_zero_mean(batch):
    """Eq. 17.9: E[sum_t grad log pi(a_t | s_t)] = 0 (constant reward f = 1)."""
    _, pol, theta, tr = batch
    ones = Trajectories(tr.observations, tr.actions, np.ones_like(tr.rewards), tr.mask)
    est, samples = policy_gradient(ones, pol, theta, gamma=1.0, estimator="total")
    assert np.all(np.abs(est) <= 4 * samples.std(axis=0, ddof=1) / np.sqrt(tr.n))


def test_reinforce_improves_the_return_and_records_variance():
    mdp = small_mdp()
    pol = SoftmaxPolicy.tabular(3, 2)
    theta0 = np.zeros(6)
    out = {}
    for baseline in (None, "fitted"):
        res = reinforce(
            mdp,
            pol,
            theta0,
            n_iter=60,
            n_episodes=40,
            horizon=4,
            gamma=0.9,
            learning_rate=0.5,
            baseline=baseline,
            random_state=0,
        )
        assert res.theta_history.shape == (61, 6) and res.grad_variances.shape == (60,)
        assert expected_return(mdp, pol, res.theta, 4) > expected_return(mdp, pol, theta0, 4) + 0.5
        out[baseline] = res
    assert np.median(out["fitted"].grad_variances) < np.median(out[None].grad_variances)
    again = reinforce(mdp, pol, theta0, n_iter=3, n_episodes=5, horizon=4, gamma=0.9, random_state=7)
    twice = reinforce(mdp, pol, theta0, n_iter=3, n_episodes=5, horizon=4, gamma=0.9, random_state=7)
    np.testing.assert_array_equal(again.theta, twice.theta)


def test_gaussian_reinforce_on_a_scalar_linear_system_learns_a_stabilizing_gain():
    """x' = x + u + w, reward -(x^2 + u^2); policy u ~ N(k x, 0.3^2): k moves towards the LQR gain -0.618."""
    env = LinearGaussianSystem(
        [[1.0]],
        [[1.0]],
        process_cov=[[0.01]],
        initial_mean=[1.0],
        initial_cov=[[0.25]],
        observe_state=True,
        max_steps=10,
    )
    pol = GaussianPolicy(1, 1, learn_std=False, log_std=np.log(0.3))
    res = reinforce(
        env,
        pol,
        np.zeros(1),
        n_iter=25,
        n_episodes=16,
        horizon=10,
        gamma=1.0,
        learning_rate=0.002,
        baseline="fitted",
        random_state=0,
    )
    assert -0.8 < res.theta[0] < -0.45
    assert res.mean_returns[-5:].mean() > res.mean_returns[:3].mean()


def test_bad_inputs():
    mdp = small_mdp()
    pol = SoftmaxPolicy.tabular(3, 2)
    tr = sample_mdp_trajectories(mdp, pol, np.zeros(6), 5, 3, random_state=0)
    with pytest.raises(MDPValidationError, match="theta must have shape"):
        policy_gradient(tr, pol, np.zeros(5), gamma=0.9)
    with pytest.raises(MDPValidationError, match="reward-to-go"):
        policy_gradient(tr, pol, np.zeros(6), gamma=0.9, estimator="total", baseline="fitted")
    with pytest.raises(MDPValidationError, match="baseline must be"):
        policy_gradient(tr, pol, np.zeros(6), gamma=0.9, baseline="mean")
    with pytest.raises(MDPValidationError, match="initial_distribution"):
        sample_mdp_trajectories(mdp, pol, np.zeros(6), 5, 3, initial_distribution=[0.5, 0.5])


def test_collect_trajectories_from_a_discrete_environment():
    from replearn.rl import collect_trajectories
    from replearn.rl.envs import russell_norvig_4x3

    env = russell_norvig_4x3(max_steps=30)
    pol = SoftmaxPolicy.tabular(12, 4)
    tr = collect_trajectories(env, pol, np.zeros(48), 6, 30, random_state=0)
    assert tr.observations.shape == (6, 30) and tr.actions.dtype.kind == "i"
    assert np.all(tr.observations[:, 0] == 7)  # every episode starts at (1, 1)
    lengths = tr.mask.sum(axis=1)
    assert np.all(lengths >= 1) and np.all(tr.rewards[~tr.mask] == 0)
    # an episode that ended early stopped on a terminal's +-1
    ended = np.flatnonzero(lengths < 30)
    for i in ended:
        assert abs(tr.rewards[i, lengths[i] - 1]) == 1.0
    g, samples = policy_gradient(tr, pol, np.zeros(48), gamma=1.0)
    assert samples.shape == (6, 48) and np.all(np.isfinite(g))
