"""Decision-tree meta-features (CIML §5.4): branches as conjunctions for a linear model."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from replearn import features
from replearn.features import FeaturePipeline
from replearn.models import create


def xor(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


def test_leaf_indicators_match_the_leaves_of_a_sklearn_tree():
    X, y = xor()
    fmap = features.create("tree_leaves", max_depth=3, include_original=False).fit(X, y)
    Z = fmap.transform(X)
    assert np.all(Z.sum(axis=1) == 1)
    ref = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y).apply(X)
    ours = np.argmax(Z, axis=1)
    # the same partition of the data, whatever the leaf numbering
    assert len(set(zip(ours, ref))) == len(set(ours)) == len(set(ref))


def test_meta_features_let_a_perceptron_learn_xor():
    X, y = xor()
    Xt, yt = xor(seed=1)
    plain = create("perceptron", random_state=0).fit(X, y).score(Xt, yt)
    fmap = features.create("tree_leaves", max_depth=3).fit(X, y)
    meta = create("perceptron", random_state=0).fit(fmap.transform(X), y).score(fmap.transform(Xt), yt)
    assert plain < 0.7
    assert meta > 0.95
    assert fmap.n_features_out_ == 2 + fmap.nodes_.size  # original features plus one column per branch


def test_path_length_truncates_the_branches_and_state_round_trips(tmp_path):
    X, y = xor()
    one = features.create("tree_leaves", max_depth=4, path_length=1, include_original=False).fit(X, y)
    assert one.nodes_.size == 2  # depth-1 conjunctions: the two sides of the root test
    pipe = FeaturePipeline([{"name": "tree_leaves", "params": {"max_depth": 3}}]).fit(X, y)
    pipe.save(tmp_path / "f")
    np.testing.assert_array_equal(FeaturePipeline.load(tmp_path / "f").transform(X), pipe.transform(X))
    with pytest.raises(ValueError, match="needs the targets"):
        features.create("tree_leaves").fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but TreeLeaves was fitted with 2"):
        one.transform(np.zeros((2, 3)))
