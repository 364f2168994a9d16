"""k-means (CS229 notes ch. 10, CIML §3.4/§15.1): against scikit-learn, published numbers, invariants."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.cluster import KMeans as SKKMeans

from replearn.exceptions import ConvergenceWarning
from replearn.models import create
from replearn.models.cluster.kmeans import KMeans, assign, cluster_means
from replearn.models.cluster.seeding import euclidean_d2_to, furthest_first_indices, kmeans_plusplus_indices

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def ex7():
    return np.loadtxt(FIXTURES / "coursera_ex7data2_kmeans.csv", delimiter=",", skiprows=1)


@pytest.fixture(scope="module")
def faithful():
    return np.loadtxt(FIXTURES / "old_faithful.csv", delimiter=",", skiprows=1)


def blobs(n=400, k=6, d=3, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=4.0, size=(k, d))
    y = rng.integers(0, k, size=n)
    return centers[y] + spread * rng.normal(size=(n, d)), y


def test_registry_creates_kmeans():
    model = create("kmeans", n_clusters=3)
    assert isinstance(model, KMeans) and model._estimator_type == "clusterer" and model._tasks == ("clustering",)


def test_coursera_ex7_published_first_step(ex7):
    # ex7.pdf: initial centroids [[3,3],[6,2],[8,5]] -> closest centroids of the first 3 examples 1 3 2
    # (1-based), centroids after one update [2.428301 3.157924; 5.813503 2.633656; 7.119387 3.616684]
    init = np.array([[3.0, 3.0], [6.0, 2.0], [8.0, 5.0]])
    labels = assign(ex7, init)
    np.testing.assert_array_equal(labels[:3], [0, 2, 1])
    expected = [[2.428301, 3.157924], [5.813503, 2.633656], [7.119387, 3.616684]]
    np.testing.assert_allclose(cluster_means(ex7, labels, 3), expected, atol=5e-7)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = KMeans(3, init=init, max_iter=1).fit(ex7)
    np.testing.assert_allclose(model.cluster_centers_, expected, atol=5e-7)


@pytest.mark.parametrize("k, seed", [(2, 0), (3, 1), (5, 2), (8, 3)])
def test_identical_to_sklearn_lloyd_from_given_centres(faithful, k, seed):
    rng = np.random.default_rng(seed)
    for X in (faithful, blobs(seed=seed)[0]):
        init = X[rng.choice(len(X), k, replace=False)]
        ours = KMeans(k, init=init, n_init=1).fit(X)
        ref = SKKMeans(k, init=init, n_init=1, algorithm="lloyd").fit(X)
        np.testing.assert_array_equal(ours.labels_, ref.labels_)
        np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-12, atol=1e-12)
        assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-12)
        assert ours.n_iter_ == ref.n_iter_
        assert ours.converged_


def test_init_as_list_of_lists_is_accepted(faithful):
    init = [[2.0, 55.0], [4.5, 80.0]]
    a = KMeans(2, init=init).fit(faithful)
    b = KMeans(2, init=np.array(init)).fit(faithful)
    np.testing.assert_array_equal(a.labels_, b.labels_)


@pytest.mark.parametrize("init", ["k-means++", "random", "furthest-first"])
def test_distortion_history_is_non_increasing(init):
    X, _ = blobs(n=600, k=8, spread=2.5, seed=4)
    model = KMeans(8, init=init, n_init=3, random_state=0).fit(X)
    h = model.distortion_history_
    assert h.size >= 2
    assert np.all(np.diff(h) <= 1e-9 * h[0])
    assert h[-1] == pytest.approx(model.inertia_, rel=1e-12)
    assert model.inertia_ == pytest.approx(-model.score(X), rel=1e-12)


def test_kmeans_plus_plus_is_deterministic_given_the_seed():
    X, _ = blobs(seed=5)
    a = KMeans(6, random_state=42, n_init=2).fit(X)
    b = KMeans(6, random_state=42, n_init=2).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    rng = np.random.default_rng(7)
    seeds = {tuple(kmeans_plusplus_indices(len(X), 6, euclidean_d2_to(X), np.random.default_rng(s))) for s in range(5)}
    assert len(seeds) > 1  # different seeds draw different centres
    idx = kmeans_plusplus_indices(len(X), 6, euclidean_d2_to(X), rng)
    assert len(set(idx.tolist())) == 6


def test_kmeans_plus_plus_draws_proportionally_to_squared_distance():
    # points 0 and 1 at distance 1 from point 2, point 3 at distance 3: after the first pick of
    # point 2 the second centre is 3 with probability 9 / (1 + 1 + 9)
    X = np.array([[-1.0], [1.0], [0.0], [3.0]])
    picks = []
    for s in range(3000):
        rng = np.random.default_rng(s)
        idx = kmeans_plusplus_indices(4, 2, euclidean_d2_to(X), rng)
        if idx[0] == 2:
            picks.append(idx[1])
    frac = np.mean(np.asarray(picks) == 3)
    assert frac == pytest.approx(9 / 11, abs=0.05)


def test_furthest_first_picks_the_furthest_point():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 0.0], [0.0, 4.0], [5.0, 5.0]])
    rng = np.random.default_rng(0)
    idx = furthest_first_indices(len(X), 3, euclidean_d2_to(X), rng)
    first = idx[0]
    d2 = ((X - X[first]) ** 2).sum(axis=1)
    assert idx[1] == np.argmax(d2)
    closest = np.minimum(d2, ((X - X[idx[1]]) ** 2).sum(axis=1))
    assert idx[2] == np.argmax(closest)


def test_more_restarts_never_do_worse():
    X, _ = blobs(n=500, k=10, spread=2.0, seed=6)
    one = KMeans(10, init="random", n_init=1, random_state=3).fit(X)
    many = KMeans(10, init="random", n_init=8, random_state=3).fit(X)
    assert many.inertia_ <= one.inertia_


def test_empty_cluster_is_refilled_with_the_furthest_point(faithful):
    init = np.array([[2.0, 55.0], [4.5, 80.0], [100.0, 1000.0]])  # the third centre attracts nobody
    model = KMeans(3, init=init).fit(faithful)
    assert model.n_relocated_ >= 1
    assert np.all(np.isfinite(model.cluster_centers_))
    assert np.bincount(model.labels_, minlength=3).min() >= 1
    assert np.all(np.diff(model.distortion_history_) <= 1e-9 * model.distortion_history_[0])
    # scikit-learn relocates empty clusters by the same rule: the same partition and centres
    ref = SKKMeans(3, init=init, n_init=1, algorithm="lloyd").fit(faithful)
    assert model.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    np.testing.assert_allclose(
        np.sort(model.cluster_centers_, axis=0), np.sort(ref.cluster_centers_, axis=0), rtol=1e-9
    )


def test_duplicate_points_fewer_distinct_than_k():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5)
    model = KMeans(3, random_state=0, n_init=2).fit(X)
    assert model.inertia_ == pytest.approx(0.0, abs=1e-12)
    assert np.all(np.isfinite(model.cluster_centers_))


def test_predict_transform_and_score(faithful):
    model = KMeans(2, random_state=0).fit(faithful)
    np.testing.assert_array_equal(model.predict(faithful), model.labels_)
    np.testing.assert_array_equal(model.fit_predict(faithful), model.labels_)
    D = model.transform(faithful)
    assert D.shape == (len(faithful), 2)
    np.testing.assert_array_equal(np.argmin(D, axis=1), model.labels_)
    assert model.score(faithful) == pytest.approx(-model.inertia_, rel=1e-12)


def test_old_faithful_two_clusters_match_sklearn_best_of_restarts(faithful):
    ours = KMeans(2, n_init=10, random_state=0).fit(faithful)
    ref = SKKMeans(2, n_init=10, random_state=0).fit(faithful)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_clusters": 0}, "n_clusters must be >= 1"),
        ({"n_clusters": 400}, "n_samples=272 should be >= n_clusters=400"),
        ({"init": "kmeans"}, "init must be one of"),
        ({"n_clusters": 2, "init": [[1.0, 2.0]]}, r"init has shape \(1, 2\)"),
        ({"n_init": 0}, "n_init must be >= 1"),
        ({"tol": -1.0}, "tol must be >= 0"),
    ],
)
def test_invalid_parameters(faithful, params, match):
    with pytest.raises(ValueError, match=match):
        KMeans(**params).fit(faithful)
