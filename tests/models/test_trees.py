"""Decision trees: against scikit-learn, CIML's course-ratings tree, criteria, tie-breaking, pruning."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from replearn.models import supports
from replearn.models.trees._criteria import cost, impurity
from replearn.models.trees.decision_tree import DecisionTree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))  # continuous: no value ties
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=600), [-0.5, 0.5])
    return X, y, rng.normal(size=(300, 5))


def sk_tree_arrays(ref):
    t = ref.tree_
    feature = np.where(t.feature < 0, -1, t.feature)
    return t.node_count, feature, t.threshold, t.n_node_samples


def same_structure(ours, ref):
    """Compare trees node by node (scikit-learn numbers depth-first, ours breadth-first)."""
    t = ref.tree_

    def walk(a, b):
        assert (ours.feature_[a] < 0) == (t.feature[b] < 0)
        assert ours.n_node_samples_[a] == t.n_node_samples[b]
        if ours.feature_[a] >= 0:
            assert ours.feature_[a] == t.feature[b]
            assert ours.threshold_[a] == pytest.approx(t.threshold[b], abs=1e-6)  # scikit-learn: float32
            walk(ours.children_left_[a], t.children_left[b])
            walk(ours.children_right_[a], t.children_right[b])

    walk(0, 0)
    assert ours.node_count_ == t.node_count


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth, min_samples_leaf", [(1, 1), (3, 1), (3, 15), (6, 15)])
def test_classifier_matches_sklearn(data, criterion, max_depth, min_samples_leaf):
    """Node by node on data without ties. (In small or nearly pure nodes several features often give
    splits of exactly equal cost; scikit-learn then picks one at random, we pick the lowest index, so
    full-depth trees are compared by their fit instead.)"""
    X, y, X_test = data
    ours = DecisionTree(criterion=criterion, max_depth=max_depth, min_samples_leaf=min_samples_leaf).fit(X, y)
    ref = DecisionTreeClassifier(
        criterion=criterion, max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=0
    ).fit(X, y)
    same_structure(ours, ref)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))
    np.testing.assert_allclose(ours.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-10)
    np.testing.assert_allclose(ours.impurity_[0], ref.tree_.impurity[0], rtol=1e-12)


def test_full_depth_classifier_fits_the_training_data(data):
    X, y, _ = data
    ours = DecisionTree().fit(X, y)
    ref = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert ours.score(X, y) == 1.0
    assert ours.node_count_ == ref.tree_.node_count and ours.max_depth_ == ref.get_depth()


@pytest.mark.parametrize("max_depth, min_samples_leaf", [(2, 1), (5, 3), (None, 8)])
def test_regressor_matches_sklearn(data, max_depth, min_samples_leaf):
    X, _, X_test = data
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    ours = DecisionTree(task="regression", max_depth=max_depth, min_samples_leaf=min_samples_leaf).fit(X, y)
    ref = DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=0).fit(X, y)
    same_structure(ours, ref)
    np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-10)
    np.testing.assert_allclose(ours.impurity_[0], np.var(y), rtol=1e-10)


def test_sample_weights_equal_duplicated_rows(data):
    X, y, X_test = data
    counts = np.random.default_rng(1).integers(0, 3, len(X))
    weighted = DecisionTree(max_depth=4).fit(X, y, sample_weight=counts.astype(float))
    duplicated = DecisionTree(max_depth=4).fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(weighted.predict_proba(X_test), duplicated.predict_proba(X_test), atol=1e-12)
    weighted = DecisionTree(max_depth=4, min_samples_leaf=10).fit(X, y, sample_weight=counts.astype(float))
    ref = DecisionTreeClassifier(max_depth=4, min_samples_leaf=10, random_state=0).fit(X, y, sample_weight=counts)
    np.testing.assert_allclose(weighted.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-12)


# -- CIML chapter 1 -----------------------------------------------------------------------------
@pytest.fixture
def ratings():
    df = pd.read_csv(FIXTURES / "ciml_course_ratings.csv")
    X = df[["easy", "ai", "systems", "theory", "morning"]].astype(int).to_numpy(dtype=float)
    y = np.where(df["rating"] >= 0, 1, -1)  # 0, +1, +2: like; -1, -2: hate (CIML L165)
    return X, y


def test_ciml_course_ratings_tree(ratings):
    """CIML §1.3 Alg. 1 (misclassification score), Appendix Table 1: root "systems?" with 18/20 right."""
    X, y = ratings
    errors = {}
    for depth in range(6):
        tree = DecisionTree(criterion="misclassification", max_depth=depth).fit(X, y)
        errors[depth] = 1 - tree.score(X, y)
    assert errors[0] == pytest.approx(0.40)  # the empty tree says "like" (12 of 20), L453
    stump = DecisionTree(criterion="misclassification", max_depth=1).fit(X, y)
    assert stump.feature_[0] == 2  # systems
    assert stump.weighted_n_node_samples_[0] * (1 - stump.impurity_[0]) == 12
    # the root question's score: majority answers in each branch, 10 (no: 10+/0-) + 8 (yes: 2+/8-) = 18
    left, right = stump.children_left_[0], stump.children_right_[0]
    assert (stump.value_[left, 1] * 10, stump.value_[right, 1] * 10) == (10, 2)
    assert errors[1] == pytest.approx(0.10) and errors[2] == pytest.approx(0.10)
    # rows 5 and 18 are identical with opposite labels: 1/20 is the floor (the book's 0/20 is wrong, L455)
    assert errors[3] == errors[4] == errors[5] == pytest.approx(0.05)


def test_ciml_ties_go_to_the_first_feature(ratings):
    """Under "systems = yes" (2+/8-) all four other features score 8/10: the lowest index (easy) wins."""
    X, y = ratings
    tree = DecisionTree(criterion="misclassification", max_depth=2).fit(X, y)
    right = tree.children_right_[0]
    assert tree.feature_[right] == 0


# -- criteria -----------------------------------------------------------------------------------
def test_cs229_split_example():
    """CS229 summaries L1384-1398: parent 500 (100 minority). Split A: 250 (100 minority) + 250 pure;
    split B: 400 (100 minority) + 100 pure. Misclassification sees no gain in either; cross-entropy and
    Gini prefer A."""
    parent = np.array([400.0, 100.0])
    A = (np.array([150.0, 100.0]), np.array([250.0, 0.0]))
    B = (np.array([300.0, 100.0]), np.array([100.0, 0.0]))

    def gain(criterion, split):
        kids = sum(cost(c[:, None], np.array([c.sum()]), criterion)[0] for c in split)
        return impurity(parent[:, None], criterion)[0] - kids / 500

    assert impurity(parent[:, None], "misclassification")[0] == pytest.approx(0.2)
    assert gain("misclassification", A) == pytest.approx(0.0, abs=1e-12)
    assert gain("misclassification", B) == pytest.approx(0.0, abs=1e-12)
    assert impurity(parent[:, None], "entropy")[0] == pytest.approx(0.72193, abs=1e-5)
    assert gain("entropy", A) == pytest.approx(0.23645, abs=1e-5)
    assert gain("entropy", B) == pytest.approx(0.07291, abs=1e-5)
    assert impurity(parent[:, None], "gini")[0] == pytest.approx(0.32)
    assert gain("gini", A) == pytest.approx(0.08) and gain("gini", B) == pytest.approx(0.02)


def test_entropy_picks_the_split_misclassification_ties_on():
    # feature 0 realizes split B, feature 1 split A (see test_cs229_split_example)
    y = np.r_[np.zeros(400), np.ones(100)].astype(int)
    f0 = np.r_[np.zeros(300), np.ones(100), np.zeros(100)]  # x0 = 1 on 100 majority rows: pure child of 100
    f1 = np.r_[np.zeros(150), np.ones(250), np.zeros(100)]  # x1 = 1 on 250 majority rows: pure child of 250
    X = np.c_[f0, f1]
    assert DecisionTree(criterion="entropy", max_depth=1).fit(X, y).feature_[0] == 1
    assert DecisionTree(criterion="gini", max_depth=1).fit(X, y).feature_[0] == 1
    # both splits leave 100 errors (zero gain); the tie goes to the lowest feature index
    assert DecisionTree(criterion="misclassification", max_depth=1).fit(X, y).feature_[0] == 0


def test_ties_between_identical_features_go_to_the_lowest_index(data):
    X, y, _ = data
    Xd = np.c_[X[:, [3, 0]], X[:, 0], X[:, 1:]]  # column 1 and 2 are equal copies of the best feature
    tree = DecisionTree(max_depth=3).fit(Xd, y)
    assert 2 not in tree.feature_
    assert tree.feature_[0] == 1


# -- limits, categorical features, pruning -------------------------------------------------------
def test_depth_and_leaf_size_limits(data):
    X, y, _ = data
    tree = DecisionTree(max_depth=4, min_samples_leaf=7, min_samples_split=20).fit(X, y)
    leaves = tree.children_left_ < 0
    assert tree.max_depth_ <= 4
    assert tree.n_node_samples_[leaves].min() >= 7
    assert np.all(tree.n_node_samples_[~leaves] >= 20)
    assert tree.n_leaves_ == leaves.sum()
    big = DecisionTree(min_impurity_decrease=0.05).fit(X, y)
    assert big.node_count_ < DecisionTree().fit(X, y).node_count_


def test_categorical_split_asks_equality_questions():
    rng = np.random.default_rng(4)
    cat = rng.integers(0, 4, 200).astype(float)
    noise = rng.normal(size=200)
    y = (cat == 2).astype(int)
    tree = DecisionTree(max_depth=1, categorical_features=[0]).fit(np.c_[cat, noise], y)
    assert tree.feature_[0] == 0 and tree.split_kind_[0] == 1 and tree.threshold_[0] == 2.0
    assert tree.score(np.c_[cat, noise], y) == 1.0
    # the same question on a one-hot column is the threshold split x > 0.5
    onehot = DecisionTree(max_depth=1).fit(np.c_[cat == 2, noise].astype(float), y)
    assert onehot.threshold_[0] == 0.5
    np.testing.assert_array_equal(tree.predict(np.c_[cat, noise]), onehot.predict(np.c_[cat == 2, noise].astype(float)))


def test_reduced_error_pruning_does_not_hurt_the_validation_set():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 3))
    y = ((X[:, 0] > 0) ^ (rng.random(400) < 0.2)).astype(int)  # 20% label noise
    X_val, y_val = X[300:], y[300:]
    tree = DecisionTree().fit(X[:300], y[:300])
    before_nodes, before_acc = tree.node_count_, tree.score(X_val, y_val)
    tree.prune(X_val, y_val)
    assert tree.node_count_ < before_nodes and tree.n_pruned_ == before_nodes - tree.node_count_
    assert tree.score(X_val, y_val) >= before_acc
    # the compacted arrays are a valid breadth-first tree
    inner = np.flatnonzero(tree.children_left_ >= 0)
    assert np.all(tree.children_left_[inner] > inner) and np.all(tree.children_right_[inner] > inner)
    held_out = DecisionTree(validation_fraction=0.25, random_state=0).fit(X, y)
    assert held_out.node_count_ < DecisionTree().fit(X, y).node_count_


def test_pruning_on_the_training_data_keeps_the_training_accuracy(data):
    X, y, _ = data
    tree = DecisionTree(max_depth=5).fit(X, y)
    acc = tree.score(X, y)
    tree.prune(X, y)
    assert tree.score(X, y) == acc


def test_max_features_subsamples_and_is_seeded(data):
    X, y, X_test = data
    a = DecisionTree(max_features=2, random_state=3).fit(X, y)
    b = DecisionTree(max_features=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.feature_, b.feature_)
    assert a.max_features_ == 2
    assert DecisionTree(max_features="sqrt").fit(X, y).max_features_ == 2
    assert DecisionTree(max_features=0.6).fit(X, y).max_features_ == 3


def test_tasks_and_regression_has_no_predict_proba(data):
    X, _, _ = data
    assert supports("decision_tree", "classification") and supports("decision_tree", "regression")
    tree = DecisionTree(task="regression").fit(X, X[:, 0])
    with pytest.raises(AttributeError, match="only available with task='classification'"):
        tree.predict_proba(X)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"criterion": "variance"}, ValueError, r"criterion must be one of \['entropy', 'gini', 'misclassification'\]"),
        ({"max_depth": -1}, ValueError, "max_depth must be >= 0"),
        ({"min_samples_split": 1}, ValueError, "min_samples_split must be >= 2"),
        ({"min_samples_leaf": 0}, ValueError, "min_samples_leaf must be >= 1"),
        ({"max_features": "half"}, ValueError, r"max_features must be one of \['log2', 'sqrt'\]"),
        ({"max_features": 1.5}, ValueError, "max_features must be <= 1.0"),
        ({"categorical_features": [9]}, ValueError, r"categorical_features \[9\] are out of range"),
        ({"categorical_features": "all"}, TypeError, "categorical_features must be a list"),
        ({"validation_fraction": 1.0}, ValueError, "validation_fraction must be < 1.0"),
    ],
)
def test_bad_hyperparameters(data, params, error, match):
    X, y, _ = data
    with pytest.raises(error, match=match):
        DecisionTree(**params).fit(X, y)


def test_bad_sample_weight(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        DecisionTree().fit(X, y, sample_weight=-np.ones(len(X)))
    with pytest.raises(ValueError, match="sample_weight has 3 entries, X has 600 samples"):
        DecisionTree().fit(X, y, sample_weight=np.ones(3))
