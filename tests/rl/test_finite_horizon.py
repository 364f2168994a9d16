"""Backward induction for finite-horizon MDPs (CS229 §16.1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from replearn import rl
from replearn.rl import FiniteMDP, MDPValidationError, finite_horizon_dp


def two_goal_chain():
    """States 0..6 then a sink (7); +1 at state 0, +10 at state 6 (the notes' L5658 example).

    Actions 0 = left, 1 = right, deterministic; a goal pays its reward and moves to the sink; every
    other step costs 0.1 (so that dawdling is never optimal and the policy has no ties).
    """
    S = 8
    P = np.zeros((S, 2, S))
    for s in range(1, 6):
        P[s, 0, s - 1] = 1.0
        P[s, 1, s + 1] = 1.0
    P[[0, 6, 7], :, 7] = 1.0
    R = np.full(S, -0.1)
    R[0], R[6], R[7] = 1.0, 10.0, 0.0
    return P, R


def test_policy_is_non_stationary_near_the_end():
    P, R = two_goal_chain()
    sol = finite_horizon_dp(P, R, horizon=10)
    # from state 2: with time to spare go right for +10 (4 steps); with 2 steps left, go left for +1
    assert sol.policy[0, 2] == 1 and sol.values[0, 2] == pytest.approx(10.0 - 0.4)
    assert sol.policy[8, 2] == 0 and sol.values[8, 2] == pytest.approx(1.0 - 0.2)
    assert sol.values.shape == (11, 8) and sol.policy.shape == (11, 8) and sol.q_values.shape == (11, 8, 2)


def test_equals_brute_force_over_action_sequences_and_value_iteration():
    rng = np.random.default_rng(0)
    S, A, T = 3, 2, 3
    P = rng.dirichlet(np.ones(S), size=(T, S, A))
    R = rng.normal(size=(T + 1, S, A))
    sol = finite_horizon_dp(P, R, horizon=T)
    # brute force over deterministic non-stationary policies (each pi^(t) maps S -> A)
    best = np.full(S, -np.inf)
    for pols in itertools.product(itertools.product(range(A), repeat=S), repeat=T + 1):
        V = R[T][np.arange(S), pols[T]]
        for t in range(T - 1, -1, -1):
            a = np.array(pols[t])
            V = R[t][np.arange(S), a] + P[t][np.arange(S), a] @ V
        best = np.maximum(best, V)
    np.testing.assert_allclose(sol.values[0], best, atol=1e-12)
    # stationary case: T + 1 sweeps of undiscounted value iteration from V = 0 give V_0*
    mdp = FiniteMDP(P[0], R[0], 0.7)
    fh = finite_horizon_dp(mdp, None, horizon=4, gamma=0.7)
    V = np.zeros(S)
    for _ in range(5):
        V = mdp.bellman_backup(V)
    np.testing.assert_allclose(fh.values[0], V, atol=1e-12)


def test_bad_shapes_raise():
    P, R = two_goal_chain()
    with pytest.raises(MDPValidationError, match="horizon = 5 slices"):
        finite_horizon_dp(np.stack([P] * 3), R, horizon=5)
    with pytest.raises(MDPValidationError, match="rewards must have shape"):
        finite_horizon_dp(P, np.zeros((4, 8)), horizon=5)
    bad = P.copy()
    bad[1, 0, 0] = 0.5
    with pytest.raises(MDPValidationError, match="sum to 1"):
        finite_horizon_dp(bad, R, horizon=5)
    with pytest.raises(ValueError, match="horizon"):
        finite_horizon_dp(P, R, horizon=-1)
    assert rl.finite_horizon_dp is finite_horizon_dp
