"""CIML Alg. 33: random complete trees, leaves filled from the data, majority vote."""

import numpy as np
import pytest

from replearn.models import create


def binary_data(n=400, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.5).astype(float)
    y = (X[:, 0] + X[:, 1] + X[:, 2] >= 2).astype(int)
    return X, y


def test_leaves_are_filled_from_the_data_by_a_plain_loop():
    X, y = binary_data(n=60)
    model = create("random_structure_forest", n_estimators=4, max_depth=2, random_state=0).fit(X, y)
    assert model.features_.shape == (4, 3) and model.leaf_value_.shape == (4, 4, 2)
    for k in range(4):
        leaves = []
        for x in X:  # walk the complete tree: node i has children 2i+1 (x <= tau) and 2i+2 (x > tau)
            node = 0
            while node < 3:
                node = 2 * node + 1 + int(x[model.features_[k, node]] > model.thresholds_[k, node])
            leaves.append(node - 3)
        leaves = np.array(leaves)
        for leaf in range(4):
            hit = leaves == leaf
            assert model.leaf_count_[k, leaf] == hit.sum()
            if hit.any():
                np.testing.assert_allclose(model.leaf_value_[k, leaf], np.bincount(y[hit], minlength=2) / hit.sum())


def test_prediction_is_the_majority_vote_of_the_trees():
    X, y = binary_data()
    model = create("random_structure_forest", n_estimators=7, max_depth=3, random_state=1).fit(X, y)
    votes = np.argmax(model._tree_outputs(X), axis=2)
    np.testing.assert_array_equal(model.predict(X), (votes.mean(axis=1) > 0.5).astype(int))
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], votes.mean(axis=1))


def test_structure_ignores_the_labels_and_the_forest_learns():
    X, y = binary_data()
    a = create("random_structure_forest", random_state=0).fit(X, y)
    b = create("random_structure_forest", random_state=0).fit(X, 1 - y)
    np.testing.assert_array_equal(a.features_, b.features_)  # only the leaves saw y (L4311)
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    Xt, yt = binary_data(seed=1)
    assert (
        create("random_structure_forest", max_depth=3, n_estimators=200, random_state=0).fit(X, y).score(Xt, yt) > 0.85
    )


def test_regression_empty_leaves_and_errors():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 2))
    model = create("random_structure_forest", task="regression", max_depth=6, n_estimators=3, random_state=0).fit(
        X, X[:, 0]
    )
    assert np.any(model.leaf_count_ == 0)  # 64 leaves, 50 points: empty leaves take their ancestor's mean
    assert np.all(np.isfinite(model.predict(rng.normal(size=(20, 2)))))
    flat = create("random_structure_forest", max_depth=0, random_state=0).fit(X, (X[:, 0] > 1).astype(int))
    np.testing.assert_array_equal(flat.predict(X), 0)  # depth 0: a single leaf, the majority class
    with pytest.raises(ValueError, match="max_depth must be >= 0"):
        create("random_structure_forest", max_depth=-1).fit(X, X[:, 0] > 0)
