"""CIML §17.6: the argmax of a sequence-labelling score as an integer linear program (eqs. 17.32-17.34)
equals Viterbi's and brute force's, loss-augmented too, and its LP relaxation is already integral."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.structured import brute_force_argmax, ilp_argmax, sequence_score, viterbi


@pytest.mark.parametrize("seed", range(6))
def test_the_ilp_argmax_is_the_viterbi_and_brute_force_argmax(seed):
    rng = np.random.default_rng(seed)
    L, K = int(rng.integers(1, 6)), int(rng.integers(2, 4))
    unary, transition = rng.normal(size=(L, K)), rng.normal(size=(K, K))
    res = ilp_argmax(unary, transition)
    labels, score = viterbi(unary, transition)
    np.testing.assert_array_equal(res.labels, labels)
    np.testing.assert_array_equal(res.labels, brute_force_argmax(unary, transition)[0])
    assert res.score == pytest.approx(score, abs=1e-9) == pytest.approx(sequence_score(unary, transition, res.labels))
    assert res.integral
    assert res.n_variables == K + (L - 1) * K * K  # z_{l,k',k} of eq. 17.33
    assert res.n_constraints == L + (L - 1) * K  # one active z per position, consistency per (l, k)


def test_the_loss_augmented_ilp_and_the_lp_relaxation():
    rng = np.random.default_rng(10)
    unary, transition = rng.normal(size=(5, 3)), rng.normal(size=(3, 3))
    gold = np.array([0, 2, 1, 1, 0])
    aug = ilp_argmax(unary, transition, gold=gold)
    ref = brute_force_argmax(unary, transition, gold=gold)
    np.testing.assert_array_equal(aug.labels, ref[0])
    assert aug.score == pytest.approx(ref[1], abs=1e-9)
    relaxed = ilp_argmax(unary, transition, relax=True)  # a chain's program is a shortest-path flow: integral
    assert relaxed.integral and relaxed.score == pytest.approx(viterbi(unary, transition)[1], abs=1e-9)


def test_cimls_viterbi_step_through_the_ilp():
    """§17.7 L5342-5359: after 'monsters eat' (alpha = 2, 9, -1), 'tasty' as adj scores 12.7 via verb."""
    unary = np.array([[2.0, 9.0, -1.0], [-50.0, -50.0, 1.2]])
    transition = np.zeros((3, 3))
    transition[:, 2] = [-5.0, 2.5, 2.2]
    res = ilp_argmax(unary, transition)
    assert list(res.labels) == [1, 2] and res.score == pytest.approx(12.7)
    assert res.z[1][1, 2] == pytest.approx(1.0)  # z_{2, verb, adj}


def test_bad_inputs():
    with pytest.raises(ValueError, match="transition"):
        ilp_argmax(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="gold"):
        ilp_argmax(np.zeros((3, 2)), np.zeros((2, 2)), gold=[0, 1])
