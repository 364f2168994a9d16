"""LQG by certainty equivalence: expected cost formula (with its covariance term) against Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.control import ControlInputError, lqg, lqr, simulate_lqg

A = np.array([[1.0, 0.1], [0.0, 1.0]])
B = np.array([[0.0], [0.1]])
C = np.array([[1.0, 0.0]])
Q, R = np.eye(2), np.array([[0.1]])
W, V = 0.01 * np.eye(2), np.array([[0.1]])
m0, P0 = np.array([1.0, 0.0]), 0.1 * np.eye(2)


def test_expected_cost_matches_monte_carlo_and_exceeds_full_information():
    res = lqg(A, B, C, Q, R, W, V, m0, P0, horizon=30)
    costs = simulate_lqg(res, 20_000, random_state=0)
    se = costs.std() / np.sqrt(costs.size)
    assert abs(costs.mean() - res.expected_cost) < 4 * se
    full = simulate_lqg(res, 20_000, random_state=1, full_state=True)
    expected_full = res.cost_terms["initial"] + res.cost_terms["process_noise"]
    assert abs(full.mean() - expected_full) < 4 * full.std() / np.sqrt(full.size)
    # acting on an estimate costs exactly the covariance term, which is positive
    assert res.cost_terms["estimation"] > 0
    assert res.expected_cost == pytest.approx(sum(res.cost_terms.values()))


def test_lqg_uses_lqr_gains_and_vanishing_sensor_noise_removes_the_estimation_cost():
    res = lqg(A, B, np.eye(2), Q, R, W, 1e-12 * np.eye(2), m0, P0, horizon=20)
    np.testing.assert_allclose(res.lqr.gains, lqr(A, B, Q, R, 20, noise_cov=W).gains)
    assert res.cost_terms["estimation"] < 1e-9
    assert np.max(np.abs(res.filtered_covs)) < 1e-9


def test_bad_shapes():
    with pytest.raises(ControlInputError, match="C"):
        lqg(A, B, np.ones((1, 3)), Q, R, W, V, m0, P0, horizon=5)
    with pytest.raises(ControlInputError, match="obs_cov"):
        lqg(A, B, C, Q, R, W, np.eye(2), m0, P0, horizon=5)
