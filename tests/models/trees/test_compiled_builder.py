"""The compiled tree builder (numba node loop on presorted features) against the vectorized level-by-level one
and scikit-learn: the same splits, thresholds, node ids, ``max_features`` draws; ensembles' shortcuts (one
sort for all trees) against fitting each tree on its own."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from replearn import _jit
from replearn.models.ensemble.adaboost import AdaBoost
from replearn.models.ensemble.random_forest import RandomForest
from replearn.models.trees import _builder, _kernels
from replearn.models.trees import decision_tree as dt_module
from replearn.models.trees.decision_tree import DecisionTree

pytestmark = pytest.mark.skipif(not _jit.jit_available(), reason="the compiled builder needs numba")

NODE_ARRAYS = ("feature_", "children_left_", "children_right_", "n_node_samples_", "split_kind_")
VALUE_ARRAYS = ("threshold_", "value_", "impurity_", "weighted_n_node_samples_")


def data(seed=0, n=600, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, y


def assert_same_tree(a, b, rtol=1e-9):
    for name in NODE_ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for name in VALUE_ARRAYS:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=rtol, atol=1e-12, err_msg=name)


def fit_with(compiled, monkeypatch, model, *args, **kwargs):
    original = _builder.build_tree
    monkeypatch.setattr(dt_module, "build_tree", lambda *a, **k: original(*a, compiled=compiled, **k))
    try:
        return model.fit(*args, **kwargs)
    finally:
        monkeypatch.setattr(dt_module, "build_tree", original)


X0, y0 = data()
Xi = np.round(X0 * 2)  # few distinct values: ties between thresholds and between features
W_INT = np.random.default_rng(1).integers(0, 4, 600).astype(float)
W_FRAC = np.random.default_rng(1).random(600)

CASES = {
    "gini": ({}, X0, y0, None),
    "entropy depth 3 leaf 15": ({"criterion": "entropy", "max_depth": 3, "min_samples_leaf": 15}, X0, y0, None),
    "misclassification, ties": ({"criterion": "misclassification"}, Xi, y0, None),
    "gini, ties": ({}, Xi, y0, None),
    "max_features": ({"max_features": 2, "random_state": 3}, X0, y0, None),
    "max_features, ties": ({"max_features": 2, "random_state": 4}, Xi, y0, None),
    "regression": ({"task": "regression", "min_samples_leaf": 5}, X0, X0[:, 0] + X0[:, 1] ** 2, None),
    "regression, ties": ({"task": "regression"}, Xi, Xi[:, 0] * Xi[:, 1], None),
    "integer weights": ({}, Xi, y0, W_INT),
    "fractional weights, entropy": ({"criterion": "entropy"}, Xi, y0, W_FRAC),
    "categorical": ({"categorical_features": [0, 2]}, Xi, y0, None),
    "categorical regression": ({"task": "regression", "categorical_features": [1]}, Xi, X0[:, 0], None),
    "categorical, max_features": ({"categorical_features": [0, 2], "max_features": 3, "random_state": 1}, Xi, y0, None),
    "min_impurity_decrease": ({"min_impurity_decrease": 0.01}, X0, y0, None),
    "min_samples_split, depth": ({"min_samples_split": 30, "max_depth": 6}, X0, y0, None),
    "validation_fraction": ({"validation_fraction": 0.3, "random_state": 2}, X0, y0, None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_compiled_and_vectorized_builders_grow_the_same_tree(case, monkeypatch):
    params, X, y, w = CASES[case]
    compiled = fit_with(True, monkeypatch, DecisionTree(**params), X, y, sample_weight=w)
    vectorized = fit_with(False, monkeypatch, DecisionTree(**params), X, y, sample_weight=w)
    assert compiled.node_count_ > 1
    assert_same_tree(compiled, vectorized)


@pytest.mark.parametrize("case", ["gini, ties", "max_features", "regression", "categorical, max_features"])
def test_compiled_kernel_and_its_python_function_agree(case, monkeypatch):
    params, X, y, w = CASES[case]
    compiled = DecisionTree(**params).fit(X[:200], y[:200])
    for kernel in (_kernels.grow_tree, _kernels.class_cost, _kernels.keep_rows, _kernels.apply_tree):
        monkeypatch.setattr(kernel, "_impl", kernel.py_func)
    python = DecisionTree(**params).fit(X[:200], y[:200])
    assert_same_tree(compiled, python, rtol=1e-12)
    np.testing.assert_array_equal(compiled.apply(X), python.apply(X))


def test_many_categories_with_few_rows():
    """More categories (all of X's values) than rows the tree is grown on (validation_fraction holds some out)."""
    X, y = data(n=60, d=3)
    tree = DecisionTree(criterion="entropy", categorical_features=[2], validation_fraction=0.3, random_state=0)
    assert tree.fit(X, y).node_count_ >= 1


def test_compiled_apply_matches_the_level_by_level_walk(monkeypatch):
    tree = DecisionTree(categorical_features=[0]).fit(Xi, y0)
    compiled = tree.apply(X0)
    monkeypatch.setattr(dt_module, "jit_available", lambda: False)
    np.testing.assert_array_equal(compiled, tree.apply(X0))


def test_keep_rows_is_the_presort_of_the_kept_rows():
    X = np.round(np.random.default_rng(3).normal(size=(300, 4)), 1)
    rows = np.random.default_rng(4).random(300) < 0.6
    order = _builder.presort(X, np.zeros(4, dtype=bool)).order
    kept = _kernels.keep_rows(order, rows.astype(np.int8), int(rows.sum()))
    for j in range(4):
        assert set(kept[j]) == set(np.flatnonzero(rows))
        assert np.all(np.diff(X[kept[j], j]) >= 0)  # in value order
        # ties keep the row order (stable), as a stable sort of the kept rows would
        np.testing.assert_array_equal(kept[j], np.flatnonzero(rows)[np.argsort(X[rows, j], kind="stable")])


def test_forest_shortcut_grows_the_trees_fit_would(monkeypatch):
    """RandomForest sorts once and calls the trees' internal fit; each tree equals DecisionTree.fit on the same
    bootstrap weights and seed."""
    forest = RandomForest(n_estimators=4, random_state=0).fit(X0, y0)
    rng = np.random.default_rng(0)
    for tree in forest.estimators_:
        seed = int(rng.integers(2**31 - 1))
        weight = np.bincount(rng.integers(0, 600, 600), minlength=600).astype(float)
        alone = DecisionTree(max_features="sqrt", random_state=seed).fit(X0, y0, sample_weight=weight)
        assert tree.random_state == seed
        assert_same_tree(tree, alone, rtol=0)


def test_adaboost_shortcut_matches_the_generic_loop(monkeypatch):
    fast = AdaBoost(n_estimators=10).fit(Xi, y0)
    monkeypatch.setattr("replearn.models.ensemble.adaboost.DecisionTree", type("NotATree", (), {}))
    generic = AdaBoost(n_estimators=10).fit(Xi, y0)
    np.testing.assert_allclose(fast.estimator_weights_, generic.estimator_weights_, rtol=1e-12)
    np.testing.assert_allclose(fast.sample_weight_, generic.sample_weight_, rtol=1e-12)
    for a, b in zip(fast.estimators_, generic.estimators_):
        assert_same_tree(a, b, rtol=0)


# -- against scikit-learn, where both must grow the same tree ----------------------------------------------------
def sk_same_structure(ours, ref):
    t = ref.tree_

    def walk(a, b):
        assert (ours.feature_[a] < 0) == (t.feature[b] < 0)
        assert ours.n_node_samples_[a] == t.n_node_samples[b]
        if ours.feature_[a] >= 0:
            assert ours.feature_[a] == t.feature[b]
            assert ours.threshold_[a] == pytest.approx(t.threshold[b], abs=1e-6)
            walk(ours.children_left_[a], t.children_left[b])
            walk(ours.children_right_[a], t.children_right[b])

    walk(0, 0)
    assert ours.node_count_ == t.node_count


def test_regression_tree_matches_sklearn_node_by_node():
    """Continuous targets and features, leaves of at least 10 rows: no two features split a node into the same
    parts (in nodes of 5 rows some do, and scikit-learn then picks one at random), so the trees are equal."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(800, 6))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=800)
    ours = DecisionTree(task="regression", min_samples_leaf=10).fit(X, y)
    ref = DecisionTreeRegressor(min_samples_leaf=10, random_state=0).fit(X, y)
    assert ours.node_count_ > 100
    sk_same_structure(ours, ref)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, rtol=1e-8)


def test_many_class_tree_matches_sklearn_in_impurity_decrease():
    """26 classes on 16-valued features (like KEEL's letter): the tree at depth 4 is scikit-learn's, node by node."""
    rng = np.random.default_rng(6)
    X = rng.integers(0, 16, size=(3000, 8)).astype(float)
    y = (X[:, 0] + 2 * X[:, 1] + rng.integers(0, 3, 3000)) % 26
    ours = DecisionTree(max_depth=4).fit(X, y)
    ref = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    sk_same_structure(ours, ref)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, rtol=1e-10)
