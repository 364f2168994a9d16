"""Grid search on shared folds (vs scikit-learn's GridSearchCV), nested CV, learning curves."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from replearn.evaluation import expand_grid, grid_search, learning_curve, make_splits, nested_cross_validate


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.8 * X[:, 1] + rng.normal(scale=0.8, size=n) > 0).astype(int)
    return X, y


def test_expand_grid_order():
    assert expand_grid({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"},
        {"a": 1, "b": "y"},
        {"a": 2, "b": "x"},
        {"a": 2, "b": "y"},
    ]
    assert expand_grid([{"a": [1]}, {"b": [2, 3]}]) == [{"a": 1}, {"b": 2}, {"b": 3}]
    with pytest.raises(ValueError, match="non-empty list"):
        expand_grid({"a": []})


def test_grid_search_matches_sklearn_on_the_same_splits():
    X, y = _data()
    splits = make_splits("repeated_stratified_kfold", y, folds=4, repeats=2, seed=1)
    grid = {"n_neighbors": [1, 5, 15], "weights": ["uniform", "distance"]}
    ours = grid_search(KNeighborsClassifier(), grid, X, y, splits, metric="accuracy")
    ref = GridSearchCV(KNeighborsClassifier(), grid, cv=[(s.train, s.test) for s in splits]).fit(X, y)
    # scikit-learn orders the settings by sorted parameter name; here: dict order, last key fastest (the same)
    assert ours.settings == list(ref.cv_results_["params"])
    per_split = np.column_stack([ref.cv_results_[f"split{j}_test_score"] for j in range(len(splits))])
    np.testing.assert_allclose(ours.scores, per_split)
    assert ours.best_params == ref.best_params_
    assert ours.best_estimator.get_params()["n_neighbors"] == ref.best_params_["n_neighbors"]
    assert len(ours.splits) == 8 and set(ours.splits[0]) == {"index", "repeat", "fold", "n_train", "n_test", "seed"}


def test_registry_model_and_ciml_tie_rule():
    X, y = _data()
    splits = make_splits("stratified_kfold", y, folds=3, seed=0)
    # 'error' is lower-is-better; duplicated settings tie exactly: the first one wins (CIML Alg. 8's strict <)
    gs = grid_search("knn", {"n_neighbors": [7, 7, 3]}, X, y, splits, metric="error", refit=False)
    assert not gs.greater_is_better and gs.best_estimator is None
    assert gs.scores[0].tolist() == gs.scores[1].tolist()
    assert gs.best_index == (0 if gs.mean[0] <= gs.mean[2] else 2)
    manual = []
    from replearn.models import create

    for s in splits:
        m = create("knn", n_neighbors=3).fit(X[s.train], y[s.train])
        manual.append(np.mean(m.predict(X[s.test]) != y[s.test]))
    np.testing.assert_allclose(gs.scores[2], manual)


def test_callable_metric_needs_direction():
    X, y = _data(60)
    splits = make_splits("kfold", y, folds=3, seed=0)
    with pytest.raises(ValueError, match="greater_is_better"):
        grid_search("knn", {"n_neighbors": [1]}, X, y, splits, metric=lambda a, b: 0.0)
    gs = grid_search(
        "knn", {"n_neighbors": [1, 9]}, X, y, splits, metric=lambda a, b: np.mean(a == b), greater_is_better=True
    )
    assert gs.metric == "<lambda>"


def test_nested_cv_uses_only_the_outer_training_part():
    X, y = _data(90)
    outer = make_splits("stratified_kfold", y, folds=3, seed=2)
    grid = {"max_depth": [1, 3]}
    res = nested_cross_validate(
        DecisionTreeClassifier(random_state=0),
        grid,
        X,
        y,
        outer,
        inner_scheme="stratified_kfold",
        inner_folds=3,
        seed=5,
    )
    assert len(res["outer_scores"]) == 3 and len(res["best_params"]) == 3
    from replearn.evaluation.splits import repeat_seed

    for i, s in enumerate(outer):  # the same procedure by hand
        inner = make_splits("stratified_kfold", y[s.train], folds=3, seed=repeat_seed(5, i))
        gs = grid_search(DecisionTreeClassifier(random_state=0), grid, X[s.train], y[s.train], inner)
        assert res["best_params"][i] == gs.best_params
        assert res["outer_scores"][i] == pytest.approx(np.mean(gs.best_estimator.predict(X[s.test]) == y[s.test]))
    assert res["mean"] == pytest.approx(np.mean(res["outer_scores"]))


def test_learning_curve_nested_subsets_and_sizes():
    X, y = _data(100)
    splits = make_splits("kfold", y, folds=4, seed=0)
    lc = learning_curve("knn", X, y, splits, train_sizes=[0.2, 0.5, 1.0], metric="error", params={"n_neighbors": 1})
    assert lc["train_sizes"] == [15, 37, 75]
    train = np.asarray(lc["train_scores"])
    assert np.all(train == 0.0)  # 1-NN reproduces its training labels (no duplicated points)
    test = np.asarray(lc["test_scores"])
    assert test.shape == (3, 4) and lc["test_mean"] == pytest.approx(test.mean(axis=1).tolist())
    counts = learning_curve("knn", X, y, splits, train_sizes=[5, 75], metric="accuracy")
    assert counts["train_sizes"] == [5, 75]
    with pytest.raises(ValueError, match="must lie in \\[1, 75\\]"):
        learning_curve("knn", X, y, splits, train_sizes=[80])
    with pytest.raises(ValueError, match="fractional train_sizes"):
        learning_curve("knn", X, y, splits, train_sizes=[0.0, 0.5])
