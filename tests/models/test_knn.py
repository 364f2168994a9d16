"""KNearestNeighbors: against scikit-learn (brute), ties, exact matches, bad inputs."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from replearn.models import supports
from replearn.models.neighbors.knn import KNearestNeighbors


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=150), [-0.5, 0.5])  # 3 classes
    X_test = rng.normal(size=(60, 4))  # continuous random data: no distance ties
    return X, y, X_test


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("k", [1, 4, 7])
def test_classifier_matches_sklearn(data, weights, k):
    X, y, X_test = data
    ours = KNearestNeighbors(n_neighbors=k, weights=weights).fit(X, y)
    ref = KNeighborsClassifier(n_neighbors=k, weights=weights, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))
    np.testing.assert_allclose(ours.predict_proba(X_test), ref.predict_proba(X_test), rtol=1e-10, atol=1e-12)
    ref_dist, ref_ind = ref.kneighbors(X_test)
    dist, ind = ours.kneighbors(X_test)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-9)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_regressor_matches_sklearn(data, weights):
    X, _, X_test = data
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    ours = KNearestNeighbors(n_neighbors=5, weights=weights, task="regression").fit(X, y)
    ref = KNeighborsRegressor(n_neighbors=5, weights=weights, algorithm="brute").fit(X, y)
    np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-10)
    assert ours.score(X_test, ref.predict(X_test)) == pytest.approx(1.0)


def test_one_nn_on_training_data_is_perfect(data):
    X, y, _ = data
    model = KNearestNeighbors(n_neighbors=1).fit(X, y)
    assert model.score(X, y) == 1.0
    dist, ind = model.kneighbors(X)
    np.testing.assert_array_equal(ind[:, 0], np.arange(len(X)))
    np.testing.assert_array_equal(dist[:, 0], 0.0)  # exact, despite the GEMM distance identity


def test_distance_weights_give_exact_matches_all_the_weight(data):
    X, y, _ = data
    model = KNearestNeighbors(n_neighbors=7, weights="distance").fit(X, y)
    proba = model.predict_proba(X[:10])
    expected = np.eye(3)[y[:10]]
    np.testing.assert_array_equal(proba, expected)
    reg = KNearestNeighbors(n_neighbors=7, weights="distance", task="regression").fit(X, y.astype(float))
    np.testing.assert_array_equal(reg.predict(X[:10]), y[:10])


def test_duplicate_training_points_share_the_weight():
    X = np.array([[0.0], [0.0], [5.0]])
    y = np.array([0, 1, 1])
    model = KNearestNeighbors(n_neighbors=3, weights="distance").fit(X, y)
    np.testing.assert_array_equal(model.predict_proba([[0.0]]), [[0.5, 0.5]])


def test_vote_ties_go_to_the_smallest_class():
    X = np.array([[-1.0], [1.0], [-2.0], [2.0]])
    y = np.array([7, 3, 7, 3])
    model = KNearestNeighbors(n_neighbors=2).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba([[0.0]]), [[0.5, 0.5]])
    assert model.predict([[0.0]])[0] == 3  # classes_ = [3, 7]


def test_distance_ties_go_to_the_smaller_training_index():
    # query 0 is equidistant (1.0) from the points at -1 and +1; only one fits in k=2
    X = np.array([[5.0], [1.0], [0.5], [-1.0]])
    y = np.array([0, 1, 0, 1])
    model = KNearestNeighbors(n_neighbors=2).fit(X, y)
    dist, ind = model.kneighbors([[0.0]])
    np.testing.assert_array_equal(ind, [[2, 1]])
    np.testing.assert_allclose(dist, [[0.5, 1.0]])
    # the same with the tied points listed the other way round
    model = KNearestNeighbors(n_neighbors=2).fit(X[[0, 3, 2, 1]], y[[0, 3, 2, 1]])
    np.testing.assert_array_equal(model.kneighbors([[0.0]])[1], [[2, 1]])


def test_many_rows_use_several_chunks(data, monkeypatch):
    import replearn.linalg as linalg

    X, y, X_test = data
    full = KNearestNeighbors(n_neighbors=3).fit(X, y).predict_proba(X_test)
    monkeypatch.setattr(linalg, "_CHUNK_BYTES", 8 * 150 * 7)  # 7 query rows per chunk
    np.testing.assert_array_equal(KNearestNeighbors(n_neighbors=3).fit(X, y).predict_proba(X_test), full)


def test_estimator_type_follows_task():
    assert KNearestNeighbors()._estimator_type == "classifier"
    assert KNearestNeighbors(task="regression")._estimator_type == "regressor"
    assert supports("knn", "classification") and supports("knn", "regression")


def test_regression_task_has_no_predict_proba(data):
    X, _, _ = data
    model = KNearestNeighbors(task="regression").fit(X, X[:, 0])
    with pytest.raises(AttributeError, match="only available with task='classification'"):
        model.predict_proba(X)


def test_too_many_neighbours_raises(data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"n_neighbors=151 is larger than the number of training samples \(150\)"):
        KNearestNeighbors(n_neighbors=151).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_neighbors": 0}, "n_neighbors must be >= 1"),
        ({"weights": "gaussian"}, r"weights must be one of \['distance', 'uniform'\]"),
        ({"task": "ranking"}, r"task must be one of \['classification', 'regression'\]"),
    ],
)
def test_bad_hyperparameters(data, params, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=match):
        KNearestNeighbors(**params).fit(X, y)


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([["a"], ["b"]], [0, 1], "must be numeric"),
        ([1.0, 2.0], [0, 1], "must be 2-D"),
        ([[np.nan], [2.0]], [0, 1], "NaN"),
        ([[1.0], [2.0]], [0], "X has 2, y has 1"),
        ([[1.0], [2.0]], [4, 4], r"1 class\(es\)"),
    ],
)
def test_bad_inputs(X, y, match):
    with pytest.raises(ValueError, match=match):
        KNearestNeighbors(n_neighbors=1).fit(X, y)


@pytest.mark.parametrize("n", [30, 5000])
def test_k_smallest_selection_is_exact_with_ties(n):
    from replearn.models.neighbors.knn import _k_smallest

    rng = np.random.default_rng(3)
    D = rng.integers(0, 40, size=(25, n)).astype(float)  # many ties, also at the k-th place
    for k in (1, 7, 30):
        np.testing.assert_array_equal(_k_smallest(D, k), np.argsort(D, axis=1, kind="stable")[:, :k])


def test_k_smallest_survives_nan_rows():
    from replearn.models.neighbors.knn import _k_smallest

    D = np.array([[np.nan, 1.0, 0.5, 2.0], [3.0, 2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(_k_smallest(D, 2), [[2, 1], [3, 2]])
