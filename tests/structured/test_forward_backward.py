"""The forward algorithm and forward-backward marginals: a worked HMM by hand, enumeration of every label
sequence, consistency of node and edge marginals, long sequences in log space, sampling frequencies."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.structured import hmm_viterbi, make_hmm_params, sample_hmm, viterbi
from replearn.structured.forward_backward import (
    backward,
    brute_force_marginals,
    forward,
    hmm_log_likelihood,
    hmm_posteriors,
    hmm_scores,
    sequence_marginals,
)

# The "healthy / fever" HMM (the standard Viterbi example, e.g. Wikipedia's "Viterbi algorithm"): states
# (healthy, fever), symbols (normal, cold, dizzy).
START = np.array([0.6, 0.4])
TRANS = np.array([[0.7, 0.3], [0.4, 0.6]])
EMIT = np.array([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6]])


def test_the_worked_hmm_by_hand():
    """x = (normal, cold, dizzy). alpha_1 = (0.6*0.5, 0.4*0.1) = (0.3, 0.04);
    alpha_2 = ((0.3*0.7 + 0.04*0.4)*0.4, (0.3*0.3 + 0.04*0.6)*0.3) = (0.0904, 0.0342);
    alpha_3 = ((0.0904*0.7 + 0.0342*0.4)*0.1, (0.0904*0.3 + 0.0342*0.6)*0.6) = (0.007696, 0.028584);
    p(x) = 0.03628. The best path (healthy, healthy, fever) has p = 0.01512."""
    x = np.array([0, 1, 2])
    log_alpha, log_z = forward(*hmm_scores(x, START, TRANS, EMIT))
    np.testing.assert_allclose(np.exp(log_alpha), [[0.3, 0.04], [0.0904, 0.0342], [0.007696, 0.028584]], rtol=1e-12)
    assert np.exp(log_z) == pytest.approx(0.03628, rel=1e-12)
    assert hmm_log_likelihood(x, START, TRANS, EMIT) == pytest.approx(np.log(0.03628), rel=1e-12)
    path, score = viterbi(*hmm_scores(x, START, TRANS, EMIT))
    assert path.tolist() == [0, 0, 1] and np.exp(score) == pytest.approx(0.01512, rel=1e-12)
    post = hmm_posteriors(x, START, TRANS, EMIT)
    # p(y_3 = fever | x) = alpha_3(fever) / p(x) (beta_3 = 1)
    assert post.node[2, 1] == pytest.approx(0.028584 / 0.03628, rel=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_marginals_equal_enumeration_of_every_sequence(seed):
    rng = np.random.default_rng(seed)
    L, K = int(rng.integers(1, 7)), int(rng.integers(2, 4))
    unary, transition = rng.normal(size=(L, K)) * 2, rng.normal(size=(K, K)) * 2
    got, ref = sequence_marginals(unary, transition), brute_force_marginals(unary, transition)
    assert got.log_partition == pytest.approx(ref.log_partition, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(got.node, ref.node, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got.edge, ref.edge, rtol=1e-10, atol=1e-13)


def test_a_tiny_hmm_against_enumeration_of_hidden_states():
    """log p(x) = log sum_y p(x, y) and p(y_l | x) for every one of the 3^5 state sequences, written out."""
    start, trans, emit = make_hmm_params(3, 4, random_state=1)
    x = np.array([0, 3, 3, 1, 2])
    joint = {}
    for y in np.ndindex(*(3,) * len(x)):
        p = start[y[0]] * emit[y[0], x[0]]
        for pos in range(1, len(x)):
            p *= trans[y[pos - 1], y[pos]] * emit[y[pos], x[pos]]
        joint[y] = p
    px = sum(joint.values())
    assert hmm_log_likelihood(x, start, trans, emit) == pytest.approx(np.log(px), rel=1e-12)
    post = hmm_posteriors(x, start, trans, emit)
    for pos in range(len(x)):
        for k in range(3):
            want = sum(p for y, p in joint.items() if y[pos] == k) / px
            assert post.node[pos, k] == pytest.approx(want, rel=1e-10)
    want = sum(p for y, p in joint.items() if y[1] == 2 and y[2] == 0) / px
    assert post.edge[1, 2, 0] == pytest.approx(want, rel=1e-10)


def test_node_and_edge_marginals_are_consistent():
    rng = np.random.default_rng(3)
    m = sequence_marginals(rng.normal(size=(12, 4)), rng.normal(size=(4, 4)))
    np.testing.assert_allclose(m.node.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(m.edge.sum(axis=2), m.node[:-1], rtol=1e-10, atol=1e-14)  # sum over y_l
    np.testing.assert_allclose(m.edge.sum(axis=1), m.node[1:], rtol=1e-10, atol=1e-14)  # sum over y_{l-1}
    # log Z is the same read from any position: logsumexp_k (log_alpha + log_beta)[l] for every l
    from scipy.special import logsumexp

    np.testing.assert_allclose(logsumexp(m.log_alpha + m.log_beta, axis=1), m.log_partition, rtol=1e-12)


def test_log_partition_lies_between_the_best_sequence_and_all_of_them():
    rng = np.random.default_rng(4)
    unary, transition = rng.normal(size=(20, 3)), rng.normal(size=(3, 3))
    _, best = viterbi(unary, transition)
    _, log_z = forward(unary, transition)
    assert best < log_z <= best + 20 * np.log(3)


def test_long_sequences_do_not_underflow_and_posteriors_match_frequencies():
    """5,000 positions: p(x) ~ 1e-3000 is far below float64, the log-space forward pass stays finite. Sampling
    states and symbols from the HMM, the posterior of the true state averages to the frequency of being right."""
    start, trans, emit = make_hmm_params(3, 6, self_transition=0.6, random_state=2)
    data = sample_hmm(start, trans, emit, n_sequences=1, length=5000, random_state=3)
    x, y = data.symbols[0], data.y[0]
    post = hmm_posteriors(x, start, trans, emit)
    assert np.isfinite(post.log_partition) and post.log_partition < -3000
    assert np.all(np.isfinite(post.node)) and np.allclose(post.node.sum(axis=1), 1.0)
    # calibration: the maximum-posterior decoder is right with probability max_k p(y_l = k | x), so its accuracy
    # is the mean of those maxima; the posterior of the drawn state averages to E[sum_k p_k^2]
    mpm = np.argmax(post.node, axis=1)
    assert abs(np.mean(mpm == y) - np.mean(np.max(post.node, axis=1))) < 0.02
    assert abs(np.mean(post.node[np.arange(y.size), y]) - np.mean(np.sum(post.node**2, axis=1))) < 0.02
    # per position it is at least as accurate as the single best sequence (Viterbi), up to noise
    assert np.mean(mpm == y) >= np.mean(hmm_viterbi(x, start, trans, emit) == y) - 0.01


def test_impossible_transitions_have_zero_marginal():
    trans = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])  # a cycle with forbidden moves
    emit = np.full((3, 2), 0.5)
    post = hmm_posteriors(np.array([0, 1, 0, 1]), np.array([1.0, 0.0, 0.0]), trans, emit)
    assert np.all(post.edge[:, 0, 2] == 0) and np.all(post.node[0, 1:] == 0)
    ref = brute_force_marginals(*hmm_scores(np.array([0, 1, 0, 1]), np.array([1.0, 0.0, 0.0]), trans, emit))
    np.testing.assert_allclose(post.node, ref.node, atol=1e-14)


def test_backward_at_the_start_gives_the_likelihood():
    x = np.array([0, 1, 2, 2, 0])
    unary, transition = hmm_scores(x, START, TRANS, EMIT)
    from scipy.special import logsumexp

    assert logsumexp(unary[0] + backward(unary, transition)[0]) == pytest.approx(
        hmm_log_likelihood(x, START, TRANS, EMIT), rel=1e-12
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: forward(np.ones((3, 2)), np.ones((3, 3))), r"transition must have shape \(K, K\) = \(2, 2\)"),
        (lambda: forward(np.full((3, 2), np.nan), np.ones((2, 2))), "NaN or infinite"),
        (lambda: forward(np.full((3, 2), -np.inf), np.ones((2, 2))), "probability 0"),
        (lambda: forward(np.ones(3), np.ones((2, 2))), "must be 2-D"),
        (lambda: hmm_log_likelihood([0, 5], START, TRANS, EMIT), r"symbols must lie in \[0, 2\]"),
        (lambda: hmm_log_likelihood([0.5], START, TRANS, EMIT), "integer symbol ids"),
        (lambda: hmm_log_likelihood([0], [0.5, 0.6], TRANS, EMIT), "probability vectors"),
        (lambda: brute_force_marginals(np.zeros((30, 3)), np.zeros((3, 3))), "use sequence_marginals"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
