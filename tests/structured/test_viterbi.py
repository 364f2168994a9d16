"""Viterbi (CIML Alg. 42) against the text's worked step and against brute force over K^L sequences."""

import numpy as np
import pytest

from replearn.structured import (
    brute_force_argmax,
    hamming_loss,
    loss_augmented_viterbi,
    sequence_score,
    structured_hinge_loss,
    viterbi,
)

NOUN, VERB, ADJ = 0, 1, 2


def test_worked_step_alpha_3_adj_is_12_7_with_backpointer_verb():
    # CIML eqs. 17.38-17.40 (L5342-5359): alpha_2 = (2, 9, -1) for (noun, verb, adj) after "monsters eat";
    # w[tasty/adj] = 1.2, w[noun:adj] = -5, w[verb:adj] = 2.5, w[adj:adj] = 2.2.
    # Position 1 carries alpha_2 as its unary scores (and no transition into it); position 2 is "tasty".
    unary = np.array([[2.0, 9.0, -1.0], [-50.0, -50.0, 1.2]])  # only "tasty/adj" is a usable label at l = 3
    transition = np.zeros((3, 3))
    transition[[NOUN, VERB, ADJ], ADJ] = [-5.0, 2.5, 2.2]
    labels, score, alpha, zeta = viterbi(unary, transition, return_tables=True)
    np.testing.assert_allclose(alpha[1, ADJ], 12.7)
    assert zeta[1, ADJ] == VERB
    np.testing.assert_allclose(score, 12.7)
    np.testing.assert_array_equal(labels, [VERB, ADJ])


@pytest.mark.parametrize("seed", range(12))
def test_viterbi_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    L, K = rng.integers(1, 7), rng.integers(2, 4)
    unary, transition = rng.normal(size=(L, K)), rng.normal(size=(K, K))
    labels, score = viterbi(unary, transition)
    ref_labels, ref_score = brute_force_argmax(unary, transition)
    np.testing.assert_array_equal(labels, ref_labels)
    np.testing.assert_allclose(score, ref_score)
    np.testing.assert_allclose(sequence_score(unary, transition, labels), score)


@pytest.mark.parametrize("seed", range(8))
def test_loss_augmented_viterbi_equals_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    L, K = rng.integers(2, 6), 3
    unary, transition = rng.normal(size=(L, K)), rng.normal(size=(K, K))
    gold = rng.integers(0, K, size=L)
    labels, score = loss_augmented_viterbi(unary, transition, gold)
    ref_labels, ref_score = brute_force_argmax(unary, transition, gold=gold)
    np.testing.assert_array_equal(labels, ref_labels)
    np.testing.assert_allclose(score, ref_score)
    np.testing.assert_allclose(score, sequence_score(unary, transition, labels) + hamming_loss(gold, labels))


def test_structured_hinge_is_zero_only_with_a_margin_of_the_loss():
    gold = np.array([0, 1, 2])
    unary = np.full((3, 3), -1.0)
    unary[np.arange(3), gold] = 5.0  # the truth beats every imposter by far more than its Hamming loss
    assert structured_hinge_loss(unary, np.zeros((3, 3)), gold) == 0.0
    # with zero weights every sequence scores 0: the worst imposter is all-wrong, hinge = L = 3
    assert structured_hinge_loss(np.zeros((3, 3)), np.zeros((3, 3)), gold) == 3.0


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError, match=r"transition must have shape \(K, K\) = \(3, 3\)"):
        viterbi(np.zeros((4, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="gold must be a 1-D sequence of 4 label indices"):
        viterbi(np.zeros((4, 3)), np.zeros((3, 3)), gold=[0, 1])
    with pytest.raises(ValueError, match=r"gold label indices must lie in \[0, 2\]"):
        viterbi(np.zeros((2, 3)), np.zeros((3, 3)), gold=[0, 3])
    with pytest.raises(ValueError, match="NaN"):
        viterbi(np.array([[0.0, np.nan]]), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="use viterbi instead"):
        brute_force_argmax(np.zeros((30, 3)), np.zeros((3, 3)))
