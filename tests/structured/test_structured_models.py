"""Structured perceptron (Alg. 40) and structured SVM (Alg. 41) on the joint feature map, and the HMM data."""

import numpy as np
import pytest

from replearn.exceptions import NotFittedError
from replearn.structured import (
    StructuredPerceptron,
    StructuredSVM,
    hmm_viterbi,
    joint_features,
    make_hmm_sequences,
    sequence_score,
    split_weights,
)


@pytest.fixture(scope="module")
def hmm():
    return make_hmm_sequences(90, (5, 9), n_states=3, n_symbols=6, self_transition=0.6, random_state=3)


def bayes_accuracy(d, sl):
    pred = [hmm_viterbi(s, d.start_prob, d.transmat, d.emissionprob) for s in d.symbols[sl]]
    return np.mean(np.concatenate([p == y for p, y in zip(pred, d.y[sl])]))


def test_joint_features_have_k_v_plus_k_entries_and_decompose():
    rng = np.random.default_rng(0)
    x, y, K = rng.normal(size=(5, 4)), np.array([0, 2, 2, 1, 0]), 3
    phi = joint_features(x, y, K)
    assert phi.size == K * (4 + K)  # CIML L5112: K(V + K)
    w = rng.normal(size=phi.size)
    W_u, W_t = split_weights(w, 4, K)
    np.testing.assert_allclose(w @ phi, sequence_score(x @ W_u, W_t, y))  # eqs. 17.15-17.16
    assert split_weights(phi, 4, K)[1].sum() == 4  # L - 1 transitions


def test_perceptron_first_update_is_phi_truth_minus_phi_prediction():
    x = np.eye(3)[[0, 1, 2, 1]]
    y = np.array([1, 0, 0, 1])
    model = StructuredPerceptron(max_iter=1, shuffle=False).fit([x], [y])
    # w = 0: every sequence scores 0 and Viterbi's ties give all-zeros; one update w = phi(y) - phi(0000)
    expected = joint_features(x, [1, 0, 0, 1], 2) - joint_features(x, [0, 0, 0, 0], 2)
    np.testing.assert_array_equal(model.coef_, expected)
    assert model.mistake_history_ == [1]


def test_ssvm_first_step_is_loss_augmented_then_shrunk():
    x = np.eye(3)[[0, 1, 2]]
    y = np.array([0, 1, 0])
    N_alpha = 0.5
    model = StructuredSVM(alpha=N_alpha, max_iter=1, shuffle=False).fit([x, x], [y, y])
    # first example, w = 0: the loss-augmented argmax is the all-wrong sequence [1, 0, 1]
    w = joint_features(x, y, 2) - joint_features(x, [1, 0, 1], 2)
    w *= 1 - N_alpha / 2
    # second example: check the loss-augmented argmax it faces and apply the same rule
    W_u, W_t = split_weights(w, 3, 2)
    from replearn.structured import loss_augmented_viterbi

    yhat, _ = loss_augmented_viterbi(x @ W_u, W_t, y)
    if not np.array_equal(yhat, y):
        w = w + joint_features(x, y, 2) - joint_features(x, yhat, 2)
    w *= 1 - N_alpha / 2
    np.testing.assert_allclose(model.coef_, w)


def test_perceptron_learns_hmm_labels_near_the_bayes_decoder(hmm):
    tr, te = slice(0, 60), slice(60, 90)
    model = StructuredPerceptron(max_iter=8, average=True, random_state=0).fit(hmm.X[tr], hmm.y[tr])
    acc = model.score(hmm.X[te], hmm.y[te])
    assert acc > bayes_accuracy(hmm, te) - 0.06
    assert acc > 0.6  # well above the 1/3 of guessing
    assert len(model.hamming_history_) == model.n_iter_ <= 8


def test_ssvm_lowers_its_objective_and_learns(hmm):
    tr, te = slice(0, 60), slice(60, 90)
    model = StructuredSVM(alpha=1.0, max_iter=6, schedule="invsqrt", random_state=0).fit(hmm.X[tr], hmm.y[tr])
    at_zero = sum(len(y) for y in hmm.y[tr])  # w = 0: hinge = L_n (all-wrong imposter), no penalty
    assert model.objective_history_[-1] < 0.6 * at_zero
    np.testing.assert_allclose(model.objective(model.coef_, hmm.X[tr], hmm.y[tr]), model.objective_history_[-1])
    assert model.score(hmm.X[te], hmm.y[te]) > bayes_accuracy(hmm, te) - 0.08


def test_labels_keep_their_type_and_inputs_are_checked():
    x = [np.eye(2)[[0, 1, 1]], np.eye(2)[[1, 0]]]
    y = [np.array(["a", "b", "b"]), np.array(["b", "a"])]
    model = StructuredPerceptron(max_iter=5, random_state=0).fit(x, y)
    assert [p.tolist() for p in model.predict(x)] == [["a", "b", "b"], ["b", "a"]]
    with pytest.raises(NotFittedError):
        StructuredSVM().predict(x)
    with pytest.raises(ValueError, match="Y_seqs\\[1\\] must be a 1-D sequence of 2 labels"):
        StructuredPerceptron().fit(x, [y[0], y[0]])
    with pytest.raises(ValueError, match="has 3 features per position, but the model was fitted with 2"):
        model.predict([np.zeros((2, 3))])
    with pytest.raises(ValueError, match="at least 2 are needed"):
        StructuredPerceptron().fit(x, [np.array(["a"] * 3), np.array(["a"] * 2)])
    with pytest.raises(ValueError, match="must be smaller than the number of sequences"):
        StructuredSVM(alpha=5.0).fit(x, y)


def test_hmm_data_are_reproducible_and_valid():
    a = make_hmm_sequences(5, (2, 4), 3, 4, random_state=7)
    b = make_hmm_sequences(5, (2, 4), 3, 4, random_state=7)
    for xa, xb, ya, yb in zip(a.X, b.X, a.y, b.y):
        np.testing.assert_array_equal(xa, xb)
        np.testing.assert_array_equal(ya, yb)
        assert 2 <= len(ya) <= 4 and np.all(xa.sum(axis=1) == 1)
    np.testing.assert_allclose(a.transmat.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="length must satisfy"):
        make_hmm_sequences(2, (4, 2))
