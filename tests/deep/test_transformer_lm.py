"""The causal transformer on copy/reverse tasks and on shipped text, and the n-gram baseline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from replearn.deep import CharVocabulary, NGramLM, TransformerLM, make_copy_task, sequence_accuracy, strided_windows

TEXT_DIR = Path(__file__).resolve().parents[2] / "data" / "text"


@pytest.mark.parametrize("task", ["copy", "reverse"])
def test_transformer_solves_copy_and_reverse(task):
    X, mask = make_copy_task(600, 4, 5, task=task, random_state=0)
    X_test, _ = make_copy_task(200, 4, 5, task=task, random_state=1)
    lm = TransformerLM(
        d_model=24, n_heads=2, n_layers=1, max_iter=8, batch_size=40, learning_rate=1e-2, random_state=0
    ).fit(X, target_mask=mask)
    exact, per_symbol = sequence_accuracy(lm, X_test, 4)
    assert exact >= 0.95 and per_symbol >= 0.98
    assert lm.loss_history_[-1] < 0.1 * lm.loss_history_[0]


def test_copy_task_layout():
    X, mask = make_copy_task(3, 4, 6, task="reverse", random_state=0)
    assert X.shape == (3, 9) and np.all(X[:, 4] == 6)
    np.testing.assert_array_equal(X[:, 5:], X[:, :4][:, ::-1])
    assert mask[:, 5:].all() and not mask[:, :5].any()


def _corpus():
    texts = [p.read_text(encoding="utf-8") for p in sorted(TEXT_DIR.glob("*.txt"))]
    vocab = CharVocabulary("".join(texts))
    cut = [int(0.85 * len(t)) for t in texts]
    train = vocab.encode("\n".join(t[:c] for t, c in zip(texts, cut)))
    test = vocab.encode("\n".join(t[c:] for t, c in zip(texts, cut)))
    return vocab, train, test


def test_character_transformer_beats_unigram_and_bigram_baselines():
    vocab, train, test = _corpus()
    V = len(vocab)
    W, _ = strided_windows(train, 33, 16)
    Wt, Mt = strided_windows(test, 33, 16)
    lm = TransformerLM(
        vocab_size=V, d_model=32, n_heads=2, n_layers=1, max_iter=8, batch_size=32, learning_rate=5e-3, random_state=0
    ).fit(W)
    bpc = lm.bits_per_token(Wt, Mt)
    unigram = NGramLM(order=1, alpha=1.0, vocab_size=V).fit(train).bits_per_token(test)
    bigram = NGramLM(order=2, alpha=1.0, vocab_size=V).fit(train).bits_per_token(test)
    assert bpc < unigram - 0.8
    assert bpc < bigram
    sample = lm.generate(vocab.encode("We hold")[None], 20, greedy=False, random_state=0)
    assert sample.shape == (1, 27) and sample.max() < V


def test_strided_windows_score_every_token_once():
    ids = np.arange(50)
    W, M = strided_windows(ids, 10, 4)
    targets = W[M]
    np.testing.assert_array_equal(np.sort(targets), np.arange(1, 50))
    W2, M2 = strided_windows(ids, 10, 9)
    np.testing.assert_array_equal(np.sort(W2[M2]), np.arange(1, 50))


def test_ngram_probabilities_and_smoothing_formulas():
    X = np.array([0, 1, 0, 1, 2, 0, 1])
    add1 = NGramLM(order=2, smoothing="add_k", alpha=1.0, vocab_size=4).fit(X)
    # history (0,): next tokens 1, 1, 1 -> (3 + 1) / (3 + 4)
    assert add1.predict_proba([0])[1] == pytest.approx(4 / 7)
    interp = NGramLM(order=2, alpha=2.0, vocab_size=4).fit(X)
    uni = (np.bincount(X, minlength=4) + 2.0 / 4) / (7 + 2.0)
    expected = (np.array([0, 3, 0, 0]) + 2.0 * uni) / (3 + 2.0)
    np.testing.assert_allclose(interp.predict_proba([0]), expected)
    np.testing.assert_allclose(interp.predict_proba([3]), uni)  # unseen history backs off exactly
    for model in (add1, interp):
        for h in ([0], [1], [2], [3]):
            assert model.predict_proba(h).sum() == pytest.approx(1.0)
    assert interp.bits_per_token(X) == pytest.approx(-interp.log_likelihood(X).mean() / np.log(2))


def test_transformer_input_checks():
    with pytest.raises(ValueError, match="integer token ids"):
        TransformerLM(max_iter=1).fit(np.array([[0.5, 1.0, 2.0]]))
    with pytest.raises(ValueError, match="divisible"):
        TransformerLM(d_model=5, n_heads=2).fit(np.array([[0, 1, 2]]))
    lm = TransformerLM(max_iter=1, d_model=8, random_state=0).fit(np.array([[0, 1, 2], [2, 1, 0]]))
    with pytest.raises(ValueError, match="outside"):
        lm.predict(np.array([[0, 5]]))
    assert lm.predict(np.array([[0, 1]])).shape == (1, 2)
    with pytest.raises(ValueError, match="context length"):
        lm.predict(np.zeros((1, 3), dtype=int))


def test_shipped_texts_match_their_documented_checksums():
    import hashlib
    import re

    readme = (TEXT_DIR / "README.md").read_text(encoding="utf-8")
    listed = dict((name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+\.txt)$", readme, re.M))
    files = sorted(p.name for p in TEXT_DIR.glob("*.txt"))
    assert sorted(listed) == files
    for name in files:
        data = (TEXT_DIR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == listed[name], name
        data.decode("ascii")
