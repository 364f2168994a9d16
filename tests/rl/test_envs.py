"""Environment interface, seeding, the 4x3 world's layout and the PS4 cart-pole dynamics."""

from __future__ import annotations

import numpy as np
import pytest

from replearn import rl
from replearn.rl.envs import (
    CARTPOLE_CONSTANTS,
    Box,
    CartPole,
    Discrete,
    GridWorld,
    LinearGaussianSystem,
    Pendulum,
    cartpole_dynamics,
    random_grid_world,
    russell_norvig_4x3,
)


def test_4x3_layout_and_state_numbering():
    w = russell_norvig_4x3()
    assert w.n_states == 12 and w.sink == 11 and w.start_state == 7
    # AIMA (x, y) -> state index, as documented
    aima = {(1, 1): 7, (1, 3): 0, (3, 3): 2, (4, 1): 10, (4, 3): 3, (4, 2): 6, (3, 2): 5}
    for (x, y), s in aima.items():
        assert w.state_of(3 - y, x - 1) == s
    with pytest.raises(ValueError, match="wall"):
        w.state_of(1, 1)
    np.testing.assert_allclose(w.state_rewards, [-0.04] * 3 + [1.0] + [-0.04] * 2 + [-1.0] + [-0.04] * 4 + [0.0])
    P = w.to_mdp(1.0).transitions
    # from (1,1) moving up: 0.8 to (1,2), 0.1 right to (2,1), 0.1 left into the edge (stay)
    np.testing.assert_allclose(P[7, 0, [4, 8, 7]], [0.8, 0.1, 0.1])
    # from (3,2) moving left: into the wall (stay 0.8), slips up to (3,3) / down to (3,1)
    np.testing.assert_allclose(P[5, 3, [5, 2, 9]], [0.8, 0.1, 0.1])
    assert np.all(P[3, :, 11] == 1.0) and np.all(P[11, :, 11] == 1.0)
    grid = w.value_grid(np.arange(12))
    assert np.isnan(grid[1, 1]) and grid[2, 0] == 7


def test_episodes_are_seeded_and_returns_estimate_v_star():
    w = russell_norvig_4x3(random_state=0, max_steps=200)
    mdp = w.to_mdp(1.0)
    sol = rl.policy_iteration(mdp)
    returns = []
    obs, _ = w.reset(seed=123)
    first = []
    for ep in range(400):
        s, _ = w.reset() if ep else (obs, None)
        total, done = 0.0, False
        while not done:
            s, r, term, trunc, _ = w.step(int(sol.policy[s]))
            total += r
            if ep == 0:
                first.append(s)
            done = term or trunc
        returns.append(total)
    se = np.std(returns) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - sol.values[7]) < 4 * se
    # same seed, same episode
    w.reset(seed=123)
    replay = []
    done = False
    s = 7
    while not done:
        s, r, term, trunc, _ = w.step(int(sol.policy[s]))
        replay.append(s)
        done = term or trunc
    assert replay == first


def test_step_contract_and_errors():
    w = russell_norvig_4x3()
    with pytest.raises(RuntimeError, match="reset"):
        w.step(0)
    w.reset(seed=0)
    with pytest.raises(ValueError, match="action space"):
        w.step(4)
    obs, reward, terminated, truncated, info = w.step(0)
    assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(info, dict)
    assert obs in (4, 7, 8) and truncated is False
    assert w.observation_space == Discrete(12) and w.action_space.n == 4
    with pytest.raises(ValueError, match="terminal_rewards"):
        GridWorld(["..T"], {})


def test_random_grid_world_is_reproducible():
    a, b = random_grid_world(8, 8, random_state=5), random_grid_world(8, 8, random_state=5)
    assert a.layout == b.layout and a.n_states == b.n_states
    assert sum(r.count("T") for r in a.layout) == 2
    assert random_grid_world(30, 30, random_state=1).to_mdp(0.9).is_sparse


def test_cartpole_dynamics_match_ps4_and_failure_rule():
    c = CARTPOLE_CONSTANTS
    assert (c["mass_cart"], c["mass_pole"], c["length"], c["force_mag"], c["tau"]) == (1.0, 0.3, 0.7, 10.0, 0.02)
    s = np.array([0.1, -0.2, 0.05, 0.3])
    # PS4's simulate() written out by hand
    x, xd, th, thd = s
    F, m, mp, half_len, g, tau = 10.0, 1.3, 0.3, 0.7, 9.8, 0.02
    temp = (F + mp * half_len * thd**2 * np.sin(th)) / m
    tha = (g * np.sin(th) - temp * np.cos(th)) / (half_len * (4 / 3 - mp * np.cos(th) ** 2 / m))
    xa = temp - mp * half_len * tha * np.cos(th) / m
    np.testing.assert_allclose(cartpole_dynamics(s, F), [x + tau * xd, xd + tau * xa, th + tau * thd, thd + tau * tha])
    env = CartPole(init_noise=0.0, random_state=0)
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs, 0.0)
    steps, done = 0, False
    while not done:
        obs, r, done, _, _ = env.step(1)  # always push right: the pole falls left
        steps += 1
    assert r == -1.0 and obs[2] < -c["theta_threshold"] and steps < 100
    assert isinstance(env.observation_space, Box)


def test_pendulum_and_linear_gaussian_system():
    p = Pendulum(random_state=0)
    s, _ = p.reset()
    assert abs(s[0] - np.pi) <= 0.1
    with pytest.raises(ValueError, match="action space"):
        p.step(np.array([5.0]))  # beyond the torque limit
    _, r, term, trunc, _ = p.step(np.array([2.0]))
    assert r < 0 and not term
    lg = LinearGaussianSystem(
        [[1.0, 0.1], [0, 1]],
        [[0], [0.1]],
        [[1.0, 0.0]],
        process_cov=0.01 * np.eye(2),
        obs_cov=[[0.1]],
        initial_mean=[1.0, 0.0],
        random_state=1,
        max_steps=3,
    )
    y, _ = lg.reset()
    assert y.shape == (1,)
    for _t in range(3):
        y, r, term, trunc, info = lg.step([0.5])
    assert trunc and info["state"].shape == (2,)
    with pytest.raises(ValueError, match="C must be"):
        LinearGaussianSystem(np.eye(2), np.ones((2, 1)), np.ones((1, 3)))
