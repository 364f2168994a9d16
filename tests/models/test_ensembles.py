"""Voting, bagging, random forests and AdaBoost: CIML's boosting example, scikit-learn, invariants."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier

from replearn.exceptions import ConfigError
from replearn.models import create
from replearn.models.ensemble.adaboost import AdaBoost
from replearn.models.ensemble.bagging import Bagging
from replearn.models.ensemble.random_forest import RandomForest
from replearn.models.ensemble.voting import Voting
from replearn.models.trees.decision_tree import DecisionTree


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.digitize(X[:, 0] + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=300), [-0.5, 0.5])
    return X, y, rng.normal(size=(100, 4))


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(X))
    return X[idx[:400]], y[idx[:400]], X[idx[400:]], y[idx[400:]]


# -- AdaBoost -----------------------------------------------------------------------------------
def test_ciml_adaboost_weight_example():
    """CIML §13.2 (seed 001 L4244-4252): 80 positives, 20 negatives, a majority-class weak learner:
    eps = 0.2, alpha = 1/2 log 4, new weights 1/160 (positives) and 1/40 (negatives), 1/2 per class."""
    X = np.zeros((100, 1))  # nothing to split on: the stump is the majority-class constant
    y = np.r_[np.ones(80), -np.ones(20)]
    model = AdaBoost(n_estimators=1).fit(X, y)
    assert model.estimator_errors_[0] == pytest.approx(0.2)
    assert model.estimator_weights_[0] == pytest.approx(0.5 * np.log(4))
    np.testing.assert_allclose(model.sample_weight_[:80], 1 / 160)
    np.testing.assert_allclose(model.sample_weight_[80:], 1 / 40)
    assert model.sample_weight_[:80].sum() == pytest.approx(0.5) == model.sample_weight_[80:].sum()
    # unnormalized: 1 * exp(-1/2 log 4) = 1/2 for the correct, exp(+1/2 log 4) = 2 for the wrong; Z = 80
    assert 80 * 0.5 + 20 * 2 == 80
    # round 2: the data is evenly weighted, so the constant learner has eps = 1/2 and boosting stops
    assert AdaBoost(n_estimators=5).fit(X, y).n_iter_ == 1


def test_first_learner_no_better_than_chance_raises():
    X = np.zeros((10, 1))
    y = np.r_[np.ones(5), np.zeros(5)]
    with pytest.raises(ValueError, match="no better than chance"):
        AdaBoost(n_estimators=3).fit(X, y)


def test_stump_minimizes_the_weighted_error(data):
    X, y, _ = data
    yb = (y == 2).astype(int)
    w = np.random.default_rng(2).random(len(X))
    w /= w.sum()
    stump = DecisionTree(max_depth=1, criterion="misclassification").fit(X, yb, sample_weight=w)
    err = w[stump.predict(X) != yb].sum()
    best = min(w[yb == 1].sum(), w[yb == 0].sum())  # brute force over every stump
    for f in range(X.shape[1]):
        for t in np.unique(X[:, f]):
            right = X[:, f] > t
            for left_label in (0, 1):
                for right_label in (0, 1):
                    pred = np.where(right, right_label, left_label)
                    best = min(best, w[pred != yb].sum())
    assert err == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("binary", [True, False])
def test_adaboost_matches_sklearn_samme_with_gini_stumps(data, binary):
    X, y, X_test = data
    if binary:
        y = (y == 2).astype(int)
    ours = AdaBoost(n_estimators=15, estimator_params={"max_depth": 1, "criterion": "gini"}).fit(X, y)
    ref = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=15, random_state=0).fit(X, y)
    assert ours.n_iter_ == len(ref.estimators_)
    np.testing.assert_allclose(2 * ours.estimator_weights_, ref.estimator_weights_[: ours.n_iter_], rtol=1e-10)
    np.testing.assert_allclose(ours.estimator_errors_, ref.estimator_errors_[: ours.n_iter_], rtol=1e-10)
    scale = 2.0 if binary else 1.0  # scikit-learn's binary score is (votes for 1 - votes for 0) / sum alpha
    np.testing.assert_allclose(scale * ours.decision_function(X_test), ref.decision_function(X_test), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


def test_adaboost_training_error_falls_and_errors_stay_below_chance(cancer):
    X, y, X_test, y_test = cancer
    model = AdaBoost(n_estimators=40).fit(X, y)
    assert np.all(model.estimator_errors_ < 0.5)
    one = AdaBoost(n_estimators=1).fit(X, y)
    assert model.score(X, y) > one.score(X, y) and model.score(X_test, y_test) > 0.93
    proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert -1 <= model.decision_function(X_test).min() and model.decision_function(X_test).max() <= 1


def test_adaboost_needs_sample_weights():
    with pytest.raises(ValueError, match="its fit does not take sample_weight"):
        AdaBoost(estimator="knn").fit(np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2)


# -- random forest ------------------------------------------------------------------------------
def test_random_forest_is_as_accurate_as_sklearn(cancer):
    X, y, X_test, y_test = cancer
    ours = RandomForest(n_estimators=30, random_state=0).fit(X, y)
    ref = RandomForestClassifier(n_estimators=30, random_state=0).fit(X, y)
    assert abs(ours.score(X_test, y_test) - ref.score(X_test, y_test)) <= 0.03
    assert ours.score(X_test, y_test) > 0.93
    assert ours.feature_importances_.sum() == pytest.approx(1.0)
    assert np.argmax(ours.feature_importances_) in np.argsort(ref.feature_importances_)[-5:]
    assert all(t.max_features_ == 5 for t in ours.estimators_)  # sqrt(30) = 5 per split


def test_random_forest_regression_is_as_accurate_as_sklearn(data):
    X, _, X_test = data
    f = lambda A: np.sin(A[:, 0]) + A[:, 1] ** 2  # noqa: E731
    ours = RandomForest(n_estimators=30, task="regression", random_state=0).fit(X, f(X))
    ref = RandomForestRegressor(n_estimators=30, random_state=0).fit(X, f(X))
    assert abs(ours.score(X_test, f(X_test)) - ref.score(X_test, f(X_test))) < 0.05


def test_forest_without_randomness_is_a_single_tree(data):
    X, y, X_test = data
    forest = RandomForest(n_estimators=3, bootstrap=False, max_features=1.0, random_state=0).fit(X, y)
    tree = DecisionTree().fit(X, y)
    np.testing.assert_array_equal(forest.predict_proba(X_test), tree.predict_proba(X_test))


def test_random_forest_is_reproducible(data):
    X, y, X_test = data
    a = RandomForest(n_estimators=5, random_state=7).fit(X, y).predict_proba(X_test)
    b = RandomForest(n_estimators=5, random_state=7).fit(X, y).predict_proba(X_test)
    c = RandomForest(n_estimators=5, random_state=8).fit(X, y).predict_proba(X_test)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


# -- bagging ------------------------------------------------------------------------------------
def test_bagging_without_resampling_is_the_base_model(data):
    X, y, X_test = data
    bag = Bagging(estimator="decision_tree", n_estimators=1, bootstrap=False, random_state=0).fit(X, y)
    np.testing.assert_array_equal(bag.predict(X_test), DecisionTree().fit(X, y).predict(X_test))


def test_bagging_reduces_the_variance_of_trees(cancer):
    X, y, X_test, y_test = cancer
    bag = Bagging(n_estimators=25, random_state=0).fit(X, y)
    single = DecisionTree().fit(X, y)
    assert bag.score(X_test, y_test) >= single.score(X_test, y_test)
    assert len(bag.estimators_) == 25


def test_bagging_votes_when_members_have_no_probabilities(data):
    X, y, X_test = data
    bag = Bagging(estimator="svm", n_estimators=3, random_state=0).fit(X, y)
    proba = bag.predict_proba(X_test)
    assert set(np.unique(proba * 3).round(10)) <= {0.0, 1.0, 2.0, 3.0}
    reg = Bagging(estimator="knn", task="regression", n_estimators=4, max_samples=0.5, random_state=0).fit(X, X[:, 0])
    assert reg.predict(X_test).shape == (len(X_test),)


# -- voting -------------------------------------------------------------------------------------
def test_voting_identical_members_equal_the_member(data):
    X, y, X_test = data
    vote = Voting(estimators=["decision_tree"] * 3, voting="hard").fit(X, y)
    np.testing.assert_array_equal(vote.predict(X_test), DecisionTree().fit(X, y).predict(X_test))


def test_soft_voting_averages_probabilities_with_weights(data):
    X, y, X_test = data
    vote = Voting(estimators=["gaussian_naive_bayes", "knn"], voting="soft", weights=[3.0, 1.0]).fit(X, y)
    nb = create("gaussian_naive_bayes").fit(X, y).predict_proba(X_test)
    knn = create("knn").fit(X, y).predict_proba(X_test)
    np.testing.assert_allclose(vote.predict_proba(X_test), (3 * nb + knn) / 4, rtol=1e-12)


def test_hard_voting_ties_go_to_the_smaller_class():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 1, 0])
    vote = Voting(estimators=["decision_tree", "knn"], estimator_params=[{"max_depth": 0}, {"n_neighbors": 1}]).fit(
        X, y
    )
    # the depth-0 tree says 0 (a 2-2 tie goes to the first class); 1-NN reproduces y: rows 1, 2 tie 1-1
    np.testing.assert_array_equal(vote.predict(X), [0, 0, 0, 0])


def test_voting_regression_is_the_weighted_mean(data):
    X, _, X_test = data
    t = X[:, 0] + X[:, 1]
    vote = Voting(estimators=["ridge", "knn"], weights=[1.0, 3.0], task="regression").fit(X, t)
    expect = (
        create("ridge").fit(X, t).predict(X_test) + 3 * create("knn", task="regression").fit(X, t).predict(X_test)
    ) / 4
    np.testing.assert_allclose(vote.predict(X_test), expect, rtol=1e-12)


@pytest.mark.parametrize(
    "model, error, match",
    [
        (Voting(estimators=["ridge"]), ConfigError, "cannot do classification"),
        (Voting(estimators=["knn"], estimator_params=[{"task": "regression"}]), ConfigError, "the ensemble's task"),
        (Voting(estimators=["knn", "svm"], voting="soft"), ValueError, r"needs predict_proba, which \['svm'\]"),
        (Voting(estimators=["knn"], weights=[1.0, 2.0]), ValueError, "weights must be 1 non-negative numbers"),
        (Voting(estimators=[]), ValueError, "non-empty list of registry names"),
        (Bagging(max_samples=0.0), ValueError, "max_samples must be > 0.0"),
        (Bagging(estimator_params=[1]), TypeError, "estimator_params must be a dict"),
        (RandomForest(n_estimators=0), ValueError, "n_estimators must be >= 1"),
        (AdaBoost(estimator="no_such_model"), ConfigError, "unknown model 'no_such_model'"),
    ],
)
def test_bad_configuration(data, model, error, match):
    X, y, _ = data
    with pytest.raises(error, match=match):
        model.fit(X, y)
