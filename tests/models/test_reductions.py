"""Reductions (CIML ch. 6): OvA/AvA vs scikit-learn, the tree reduction, imbalanced data, pairwise ranking."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier

from replearn.exceptions import ConfigError
from replearn.models import create
from replearn.models.linear.logistic import LogisticRegression


def multiclass(n=300, k=4, d=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) + 1.5 * rng.normal(size=(k, d))[y]
    return X, y


LOGISTIC = {"C": 1.0, "tol": 1e-12}


def sk_logistic():
    return SkLogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12)


def test_one_vs_all_matches_sklearn_one_vs_rest():
    X, y = multiclass()
    ours = create("one_vs_all", estimator="logistic_regression", estimator_params=LOGISTIC).fit(X, y)
    ref = OneVsRestClassifier(sk_logistic()).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert len(ours.estimators_) == 4


def test_all_vs_all_matches_sklearn_one_vs_one():
    X, y = multiclass(seed=1)
    ours = create("all_vs_all", estimator="logistic_regression", estimator_params=LOGISTIC).fit(X, y)
    ref = OneVsOneClassifier(sk_logistic()).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert len(ours.estimators_) == 4 * 3 // 2


def test_all_vs_all_votes_are_algorithm_16():
    X, y = multiclass(k=3, seed=2)
    model = create("all_vs_all", estimator="perceptron", estimator_params={"shuffle": False}).fit(X, y)
    score = np.zeros((len(X), 3))
    k = 0
    for i in range(3):
        for j in range(i + 1, 3):
            f = np.where(model.estimators_[k].predict(X) == 1, -1.0, 1.0)  # +1 = class i (CIML's orientation)
            score[:, i] += f
            score[:, j] -= f
            k += 1
    votes = np.floor(model.decision_function(X) + 0.5)  # the tie-break adds less than 1/3
    np.testing.assert_array_equal(2 * votes - 2, score)  # score_i = wins_i - losses_i = 2 wins_i - (K - 1)


def test_one_vs_all_hard_votes_with_first_class_ties():
    X, y = multiclass(seed=3)
    model = create("one_vs_all", estimator="perceptron", use_scores=False, random_state=0).fit(X, y)
    votes = np.column_stack([np.where(e.predict(X) == 1, 1.0, -1.0) for e in model.estimators_])
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(votes, axis=1)])
    assert not hasattr(model, "predict_proba")  # perceptrons are not probabilistic


def test_tree_reduction_structure_for_eight_classes():
    """CIML Fig. 6.2: K = 8, the root separates {1, 2, 3, 4} from {5, 6, 7, 8}; K - 1 classifiers."""
    X, y = multiclass(n=800, k=8, d=4, seed=4)
    model = create("tree_reduction", estimator="logistic_regression").fit(X, y)
    assert len(model.estimators_) == 7
    assert (model.node_lo_[0], model.node_mid_[0], model.node_hi_[0]) == (0, 4, 8)
    leaves = sorted(-1 - v for v in np.concatenate([model.node_left_, model.node_right_]) if v < 0)
    assert leaves == list(range(8))  # every class is exactly one leaf
    assert model.score(X, y) > 0.6


def test_tree_reduction_walks_the_tree():
    """With a perfect base learner the walk from the root reaches the right leaf."""
    y = np.arange(5).repeat(20)
    X = y[:, None] + 0.1 * np.random.default_rng(5).normal(size=(100, 1))
    model = create("tree_reduction", estimator="logistic_regression", estimator_params={"C": 100.0}).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    assert model.node_mid_[0] == 3  # 5 classes: {0, 1, 2} left, {3, 4} right


def test_imbalanced_subsample_balances_exactly_and_helps_the_rare_class():
    rng = np.random.default_rng(6)
    y = (rng.random(1000) < 0.05).astype(int)
    X = rng.normal(size=(1000, 2)) + 1.2 * y[:, None]
    model = create("imbalanced", strategy="subsample", random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.class_counts_, [y.sum(), y.sum()])
    plain = LogisticRegression().fit(X, y)
    rare = y == 1
    assert np.mean(model.predict(X[rare]) == 1) > np.mean(plain.predict(X[rare]) == 1) + 0.3


def test_imbalanced_subsample_with_alpha_keeps_one_in_alpha():
    rng = np.random.default_rng(7)
    y = (rng.random(4000) < 0.2).astype(int)
    X = rng.normal(size=(4000, 2))
    model = create("imbalanced", strategy="subsample", alpha=4.0, random_state=0).fit(X, y)
    assert model.class_counts_[1] == y.sum()  # every rare example kept (CIML Alg. 11)
    assert model.class_counts_[0] == pytest.approx(np.sum(y == 0) / 4, rel=0.1)


def test_oversampling_is_training_on_copies():
    rng = np.random.default_rng(8)
    y = (rng.random(300) < 0.1).astype(int)
    X = rng.normal(size=(300, 2)) + y[:, None]
    model = create("imbalanced", strategy="oversample", alpha=5, estimator_params={"tol": 1e-12}).fit(X, y)
    copies = np.concatenate([np.flatnonzero(y == 0), np.repeat(np.flatnonzero(y == 1), 5)])
    direct = LogisticRegression(tol=1e-12).fit(X[copies], y[copies])
    np.testing.assert_allclose(model.estimator_.coef_, direct.coef_, rtol=1e-10)
    np.testing.assert_array_equal(model.class_counts_, [np.sum(y == 0), 5 * y.sum()])
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=1e-10)


def test_pairwise_ranking_recovers_a_linear_order():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -2.0, 0.5])
    model = create("pairwise_ranking", estimator_params={"C": 100.0}).fit(X, y)
    assert model.n_pairs_ == 60 * 59  # both orientations of every pair with different relevance
    assert model.score(X, y) > 0.99
    Xt = rng.normal(size=(30, 3))
    assert model.score(Xt, Xt @ np.array([1.0, -2.0, 0.5])) > 0.97
    np.testing.assert_array_equal(model.rank(X)[:3], np.argsort(-y)[:3])


def test_pairwise_ranking_scores_are_algorithm_18():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(8, 2))
    y = rng.integers(0, 3, size=8).astype(float)
    model = create("pairwise_ranking", use_scores=False).fit(X, y)
    score = np.zeros(8)
    for i in range(8):
        for j in range(8):
            if i != j:
                f = 1.0 if model.estimator_.predict((X[i] - X[j])[None, :])[0] == 1 else -1.0
                score[i] += f
                score[j] -= f
    np.testing.assert_allclose(model.predict(X), score)


def test_pairwise_ranking_pairs_stay_within_queries():
    rng = np.random.default_rng(11)
    q = np.repeat([0.0, 1.0, 2.0], 10)
    F = rng.normal(size=(30, 2))
    y = F[:, 0] + 5 * q  # across queries the relevance is not comparable
    X = np.column_stack([q, F])
    model = create("pairwise_ranking", group_column=0, estimator_params={"C": 100.0}).fit(X, y)
    assert model.n_pairs_ == 3 * 10 * 9
    assert model.estimator_.n_features_in_ == 2
    assert model.score(X, y) == 1.0  # within-query order by feature 0


def test_errors():
    X, y = multiclass()
    with pytest.raises(ConfigError, match="unknown model 'svm_rbf'"):
        create("one_vs_all", estimator="svm_rbf").fit(X, y)
    with pytest.raises(ConfigError, match="is not a classifier"):
        create("one_vs_all", estimator="ridge").fit(X, y)
    with pytest.raises(TypeError, match="estimator_params must be a dict"):
        create("all_vs_all", estimator_params=[1, 2]).fit(X, y)
    with pytest.raises(ValueError, match="integer alpha"):
        create("imbalanced", strategy="oversample", alpha=2.5).fit(X, y)
    with pytest.raises(ValueError, match="no pair of items"):
        create("pairwise_ranking").fit(X, np.ones(len(X)))
