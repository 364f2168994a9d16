"""FiniteMDP validation, the gamma = 1 properness check and sampling."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from replearn.exceptions import ReplearnError
from replearn.rl import FiniteMDP, ImproperMDPError, MDPValidationError
from replearn.rl.envs import russell_norvig_4x3


def _chain(gamma=0.9):
    """Two states, two actions: action 0 stays, action 1 switches."""
    P = np.zeros((2, 2, 2))
    P[0, 0, 0] = P[1, 0, 1] = 1.0
    P[0, 1, 1] = P[1, 1, 0] = 1.0
    return FiniteMDP(P, [0.0, 1.0], gamma)


def test_rows_not_summing_to_one_are_rejected_with_the_offending_pair():
    P = np.full((3, 2, 3), 1 / 3)
    P[1, 0] = [0.5, 0.4, 0.0]
    with pytest.raises(MDPValidationError, match=r"P\[s=1, a=0, :\] sums to 0.9"):
        FiniteMDP(P, np.zeros(3), 0.9)


def test_negative_probabilities_and_nan_are_rejected():
    P = np.full((2, 1, 2), 0.5)
    P[0, 0] = [1.5, -0.5]
    with pytest.raises(MDPValidationError, match="non-negative"):
        FiniteMDP(P, np.zeros(2), 0.5)
    P[0, 0] = [np.nan, 0.5]
    with pytest.raises(MDPValidationError, match="NaN"):
        FiniteMDP(P, np.zeros(2), 0.5)


@pytest.mark.parametrize("gamma", [-0.1, 1.01, float("nan"), "0.9", True])
def test_discount_outside_unit_interval_is_rejected(gamma):
    with pytest.raises(MDPValidationError, match="gamma"):
        FiniteMDP(np.ones((1, 1, 1)), [0.0], gamma)


def test_errors_are_replearn_value_errors():
    assert issubclass(MDPValidationError, ReplearnError) and issubclass(MDPValidationError, ValueError)
    assert issubclass(ImproperMDPError, MDPValidationError)


@pytest.mark.parametrize(
    "P_shape, R_shape, match",
    [
        ((3, 2, 4), (3,), "transitions must have shape"),
        ((3, 2), (3,), "transitions must have shape"),
        ((3, 2, 3), (2,), "rewards must have shape"),
        ((3, 2, 3), (3, 3), "rewards must have shape"),
    ],
)
def test_mismatched_shapes_are_rejected(P_shape, R_shape, match):
    P = np.ones(P_shape) / P_shape[-1]
    with pytest.raises(MDPValidationError, match=match):
        FiniteMDP(P, np.zeros(R_shape), 0.9)


def test_sparse_transitions_need_a_multiple_of_the_state_count():
    with pytest.raises(MDPValidationError, match="n_states \\* n_actions"):
        FiniteMDP(sp.csr_matrix(np.ones((5, 2)) / 2), np.zeros(2), 0.9)


def test_gamma_one_without_an_absorbing_state_is_improper():
    with pytest.raises(ImproperMDPError, match="has none"):
        _chain(gamma=1.0)


def test_gamma_one_where_some_policy_loops_forever_for_free_is_improper():
    # state 0 can stay put with reward 0 forever (action 0); state 1 is absorbing with reward 0
    P = np.zeros((3, 2, 3))
    P[0, 0, 0] = 1.0
    P[0, 1, 2] = 1.0
    P[1, :, 1] = 1.0
    P[2, :, 1] = 1.0
    with pytest.raises(ImproperMDPError, match="action 0 in state 0"):
        FiniteMDP(P, [0.0, 0.0, 5.0], 1.0)
    # with a cost for looping, every improper policy has value -inf: well posed
    mdp = FiniteMDP(P, np.array([[-1.0, 0.0], [0.0, 0.0], [5.0, 5.0]]), 1.0)
    assert mdp.absorbing_set.tolist() == [False, True, False]


def test_gamma_one_with_a_state_that_cannot_reach_the_absorbing_set_is_improper():
    P = np.zeros((3, 1, 3))
    P[0, 0, 1] = 1.0
    P[1, 0, 1] = 1.0
    P[2, 0, 2] = 1.0  # state 2 loops with reward -1: never reaches state 1
    with pytest.raises(ImproperMDPError, match=r"states \[2\] cannot"):
        FiniteMDP(P, [-1.0, 0.0, -1.0], 1.0)


def test_4x3_world_is_proper_only_with_a_negative_living_reward():
    mdp = russell_norvig_4x3(living_reward=-0.04).to_mdp(1.0)
    assert mdp.absorbing_set.sum() == 1 and mdp.absorbing_set[11]
    pol = mdp.proper_policy()
    assert mdp.policy_is_proper(pol).all()
    for living in (0.0, 0.1):
        with pytest.raises(ImproperMDPError):
            russell_norvig_4x3(living_reward=living).to_mdp(1.0)
    # discounting makes any living reward fine
    russell_norvig_4x3(living_reward=0.1).to_mdp(0.99)


def test_policy_validation():
    mdp = _chain()
    with pytest.raises(MDPValidationError, match="one action per state"):
        mdp.policy_probabilities([0, 1, 0])
    with pytest.raises(MDPValidationError, match=r"lie in \[0, 1\]"):
        mdp.policy_probabilities([0, 2])
    with pytest.raises(MDPValidationError, match="probability distribution"):
        mdp.policy_probabilities([[0.5, 0.6], [1.0, 0.0]])


def test_sampling_matches_the_transition_probabilities_dense_and_sparse():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(4) * 0.7, size=(4, 2))
    P[0, 1] = [0.0, 0.3, 0.0, 0.7]  # zero entries are never drawn
    for trans in (P, sp.csr_matrix(P.reshape(8, 4))):
        mdp = FiniteMDP(trans, np.zeros(4), 0.9)
        n = 40_000
        s = np.repeat(np.arange(4), n // 4)
        for a in range(2):
            nxt = mdp.sample_next_states(s, np.full(s.size, a), np.random.default_rng(1))
            freq = np.array([np.bincount(nxt[s == k], minlength=4) for k in range(4)]) / (n // 4)
            assert np.max(np.abs(freq - P[:, a])) < 0.02
            if a == 1:
                assert not np.any(nxt[s == 0] == 0) and not np.any(nxt[s == 0] == 2)
