"""Bag of words over token-id matrices, document-frequency pruning and feature hashing."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import VarianceThreshold

from replearn import features
from replearn.features.hashing import hash64


def corpus(n=40, vocab=30, length=12, seed=0):
    """Token-id documents (Zipf-like word frequencies), right-padded with -1."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1)
    docs = np.full((n, length), -1.0)
    for i in range(n):
        k = rng.integers(3, length + 1)
        docs[i, :k] = rng.choice(vocab, size=k, p=p / p.sum())
    return docs


def as_text(docs):
    return [" ".join(f"w{int(t)}" for t in row if t >= 0) for row in docs]


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("min_df", [1, 3])
def test_bag_of_words_matches_count_vectorizer(binary, min_df):
    docs = corpus()
    ours = features.create("bag_of_words", binary=binary, min_df=min_df, unk=False).fit(docs)
    ref = CountVectorizer(binary=binary, min_df=min_df, token_pattern=r"\S+").fit(as_text(docs))
    # same vocabulary; CountVectorizer orders its columns by the token string
    np.testing.assert_array_equal(sorted(f"w{v}" for v in ours.vocabulary_), sorted(ref.vocabulary_))
    cols = [ref.vocabulary_[f"w{v}"] for v in ours.vocabulary_]
    np.testing.assert_array_equal(ours.transform(docs), ref.transform(as_text(docs)).toarray()[:, cols])


def test_bag_of_words_unk_column_counts_pruned_and_unseen_words():
    docs = corpus(seed=1)
    t = features.create("bag_of_words", min_df=2).fit(docs)
    Z = t.transform(docs)
    n_tokens = np.sum(docs >= 0, axis=1)
    np.testing.assert_array_equal(Z.sum(axis=1), n_tokens)  # every token lands in a column
    new = np.full((1, 12), -1.0)
    new[0, :3] = [1000, 1000, 0]  # an unseen word twice
    z = t.transform(new)[0]
    assert z[-1] == 2 + (0 not in t.vocabulary_)
    with pytest.raises(ValueError, match="integer word ids"):
        t.transform(docs + 0.5)
    with pytest.raises(ValueError, match="token ids must be >= 0"):
        t.transform(np.full((1, 12), -3.0))


def test_bag_of_words_max_features_keeps_the_most_frequent():
    docs = corpus(seed=2)
    t = features.create("bag_of_words", max_features=5, unk=False).fit(docs)
    ref = CountVectorizer(max_features=5, token_pattern=r"\S+").fit(as_text(docs))
    assert sorted(f"w{v}" for v in t.vocabulary_) == sorted(ref.vocabulary_)


def test_df_prune_matches_count_vectorizer_and_variance_threshold():
    docs = corpus(seed=3)
    counts = features.create("bag_of_words", unk=False).fit_transform(docs)
    for min_df, max_df in [(3, 1.0), (2, 0.5), (0.1, 30)]:
        t = features.create("df_prune", min_df=min_df, max_df=max_df).fit(counts)
        ref = CountVectorizer(min_df=min_df, max_df=max_df, token_pattern=r"\S+").fit(as_text(docs))
        kept = features.create("bag_of_words", unk=False).fit(docs).vocabulary_[t.support_]
        assert sorted(f"w{v}" for v in kept) == sorted(ref.vocabulary_)
        np.testing.assert_array_equal(t.transform(counts), counts[:, t.support_])
    t = features.create("df_prune", min_variance=0.5).fit(counts)
    np.testing.assert_array_equal(t.transform(counts), VarianceThreshold(0.5).fit_transform(counts))
    with pytest.raises(ValueError, match="removed every feature"):
        features.create("df_prune", min_df=1000).fit(counts)


def test_hashing_invariants():
    rng = np.random.default_rng(4)
    X = rng.poisson(1.0, size=(30, 500)).astype(float)
    unsigned = features.create("hashing", n_features=64, alternate_sign=False).fit(X)
    Z = unsigned.transform(X)
    np.testing.assert_allclose(Z.sum(axis=1), X.sum(axis=1))  # x_hat_{h(d)} += x_d conserves the mass
    np.testing.assert_array_equal(
        Z, features.create("hashing", n_features=64, alternate_sign=False).fit(X).transform(X)
    )
    assert not np.array_equal(
        Z, features.create("hashing", n_features=64, alternate_sign=False, seed=1).fit(X).transform(X)
    )
    # buckets are spread evenly: each of 64 buckets gets about 500/64 features
    counts = np.bincount(unsigned.bucket_, minlength=64)
    assert counts.min() >= 1 and counts.max() <= 25
    # with random signs the hashed inner product is unbiased (CIML eq. 14.14's collision terms have mean 0)
    x, z = X[0], X[1]
    est = [np.dot(*features.create("hashing", n_features=64, seed=s).fit(X).transform(X[:2])) for s in range(300)]
    assert np.mean(est) == pytest.approx(x @ z, rel=0.05)
    big = features.create("hashing", n_features=2**16, seed=0).fit(X).transform(X[:2])
    assert np.dot(*big) == pytest.approx(x @ z, rel=0.05)  # few collisions with many buckets


def test_hashing_token_ids_is_a_hashed_bag_of_words():
    docs = corpus(seed=5)
    hashed = features.create("hashing", input="token_ids", n_features=16, alternate_sign=False).fit(docs)
    bow = features.create("bag_of_words", unk=False).fit(docs)
    counts = bow.transform(docs)
    buckets = (hash64(bow.vocabulary_, 0) % np.uint64(16)).astype(int)
    expected = np.zeros((len(docs), 16))
    for j, b in enumerate(buckets):
        expected[:, b] += counts[:, j]
    np.testing.assert_array_equal(hashed.transform(docs), expected)


def test_hash64_is_deterministic_and_mixes():
    h = hash64(np.arange(1000), 0)
    assert h.dtype == np.uint64 and len(np.unique(h)) == 1000
    np.testing.assert_array_equal(h, hash64(np.arange(1000), 0))
    bits = ((h[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(float)
    assert np.all(np.abs(bits.mean(axis=0) - 0.5) < 0.08)  # every bit is ~ a fair coin
