"""Co-occurrence counts, GloVe and skip-gram with negative sampling on a corpus with known structure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from replearn.autodiff import Tensor, numerical_gradient
from replearn.embeddings import (
    GloVe,
    SkipGramNS,
    Vocabulary,
    analogy,
    cooccurrence_matrix,
    make_analogy_corpus,
    most_similar,
    skipgram_pairs,
    split_sentences,
    tokenize,
)
from replearn.embeddings.glove import glove_loss_and_gradients

TEXT_DIR = Path(__file__).resolve().parents[2] / "data" / "text"


def test_cooccurrence_counts_by_hand():
    sentences = [["a", "b", "c", "a"]]
    vocab = Vocabulary(sentences)
    assert vocab.words == ["a", "b", "c"]
    C = cooccurrence_matrix(vocab.encode(sentences), 3, window=2, weighting="harmonic")
    # pairs: (a,b) d1, (b,c) d1, (c,a) d1, (a,c) d2, (b,a) d2
    expected = np.array([[0, 1 + 0.5, 1 + 0.5], [1.5, 0, 1], [1.5, 1, 0]])
    np.testing.assert_allclose(C, expected)
    U = cooccurrence_matrix(vocab.encode(sentences), 3, window=1, weighting="uniform")
    np.testing.assert_allclose(U, [[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    assert len(skipgram_pairs(vocab.encode(sentences), 2)) == 2 * (3 + 2)


def test_tokenizer_on_the_shipped_text():
    text = (TEXT_DIR / "gettysburg_address.txt").read_text(encoding="utf-8")
    sentences = split_sentences(text)
    assert sentences[0][:4] == ["four", "score", "and", "seven"]
    vocab = Vocabulary(sentences)
    assert vocab.words[0] == "that"  # the most frequent word of the address
    assert tokenize("Nature's God") == ["nature's", "god"]
    C = cooccurrence_matrix(vocab.encode(sentences), len(vocab), window=3)
    np.testing.assert_allclose(C, C.T)
    assert C[vocab.index["the"], vocab.index["people"]] > 0


def test_glove_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    V, K = 4, 2
    C = rng.integers(0, 5, size=(V, V)).astype(float)
    F = np.where(C > 0, np.minimum(1, (C / 3) ** 0.75), 0.0)
    logC = np.log(np.where(C > 0, C, 1))
    arrays = [rng.normal(size=(V, K)), rng.normal(size=(V, K)), rng.normal(size=V), rng.normal(size=V)]
    _, grads = glove_loss_and_gradients(*arrays, F, logC)
    tensors = [Tensor(a) for a in arrays]

    def loss(*ts):
        return Tensor(glove_loss_and_gradients(*(t.data for t in ts), F, logC)[0])

    for g, n in zip(grads, numerical_gradient(loss, tensors)):
        np.testing.assert_allclose(g, n, atol=1e-6)


@pytest.fixture(scope="module")
def corpus():
    sentences = make_analogy_corpus(2000, random_state=0)
    vocab = Vocabulary(sentences)
    return vocab, vocab.encode(sentences)


ANALOGIES = [
    ("man", "king", "woman", "queen"),
    ("man", "boy", "woman", "girl"),
    ("queen", "king", "girl", "boy"),
    ("woman", "girl", "man", "boy"),
]


def _check_structure(E, words):
    for a, b, c, d in ANALOGIES:
        assert analogy(E, words, a, b, c)[0][0] == d, (a, b, c)
    top = [w for w, _ in most_similar(E, words, "king", topn=3)]
    assert "queen" in top


def test_glove_recovers_the_analogies(corpus):
    vocab, encoded = corpus
    C = cooccurrence_matrix(encoded, len(vocab), window=4)
    model = GloVe(n_components=8, x_max=20.0, max_iter=500, random_state=0).fit(C)
    assert model.loss_history_[-1] < 0.05 * model.loss_history_[0]
    _check_structure(model.embeddings_, vocab.words)


def test_skipgram_recovers_the_analogies(corpus):
    vocab, encoded = corpus
    model = SkipGramNS(n_components=8, window=4, max_iter=2, batch_size=1024, learning_rate=0.02, random_state=0)
    model.fit(encoded, vocab_size=len(vocab))
    assert model.loss_history_[-1] < model.loss_history_[0]
    _check_structure(model.embeddings_, vocab.words)


def test_glove_input_checks():
    with pytest.raises(ValueError, match="square"):
        GloVe().fit(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        GloVe().fit(-np.ones((2, 2)))
    with pytest.raises(KeyError, match="not in the vocabulary"):
        most_similar(np.eye(2), ["a", "b"], "c")
