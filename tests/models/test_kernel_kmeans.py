"""Kernel k-means (CIML §11.3, cross-term sign corrected): linear kernel == k-means, invariants."""

import numpy as np
import pytest

from replearn.evaluation.clustering import adjusted_rand_index
from replearn.exceptions import ConvergenceWarning
from replearn.models import create
from replearn.models.cluster.kernel_kmeans import KernelKMeans, _distances
from replearn.models.cluster.kmeans import KMeans
from replearn.models.decomposition.kernels import kernel_diagonal, kernel_matrix


def circles(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    r = np.where(y == 0, 1.0, 4.0) + 0.15 * rng.normal(size=n)
    t = rng.uniform(0, 2 * np.pi, size=n)
    return np.c_[r * np.cos(t), r * np.sin(t)], y


def blobs(n=300, k=4, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(k, 2))
    y = rng.integers(0, k, size=n)
    return centers[y] + rng.normal(size=(n, 2)), y


def test_registry():
    assert isinstance(create("kernel_kmeans"), KernelKMeans)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_kernel_is_kmeans_from_the_same_initial_centres(seed):
    X, _ = blobs(seed=seed)
    idx = np.random.default_rng(seed).choice(len(X), 4, replace=False)
    ours = KernelKMeans(4, kernel="linear", init=idx).fit(X)
    ref = KMeans(4, init=X[idx], tol=0.0).fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    assert ours.converged_


def test_feature_space_distances_match_an_explicit_feature_map():
    # (x.z + 1)^2 in 2-D is phi(x).phi(z) with phi = (x1^2, x2^2, sqrt2 x1 x2, sqrt2 x1, sqrt2 x2, 1)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    s2 = np.sqrt(2.0)
    phi = np.c_[X[:, 0] ** 2, X[:, 1] ** 2, s2 * X[:, 0] * X[:, 1], s2 * X[:, 0], s2 * X[:, 1], np.ones(30)]
    K = kernel_matrix(X, X, kernel="poly", gamma=1.0, degree=2, coef0=1.0)
    np.testing.assert_allclose(K, phi @ phi.T, rtol=1e-12, atol=1e-12)
    labels = rng.integers(0, 3, size=30)
    d2, sizes, norms = _distances(K, np.diag(K).copy(), labels, 3)
    means = np.array([phi[labels == k].mean(axis=0) for k in range(3)])
    explicit = ((phi[:, None, :] - means[None]) ** 2).sum(axis=2)
    np.testing.assert_allclose(d2, explicit, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(norms, (means**2).sum(axis=1), rtol=1e-12)
    # the text's printed sign (+ cross term) would rank the means differently
    cross = K @ np.eye(3)[labels] / sizes
    printed = norms + cross
    assert not np.array_equal(np.argmin(printed, axis=1), np.argmin(explicit, axis=1))


def test_rbf_kernel_separates_concentric_circles_where_kmeans_cannot():
    X, y = circles()
    kk = KernelKMeans(2, kernel="rbf", gamma=1.0, n_init=10, random_state=0).fit(X)
    km = KMeans(2, random_state=0).fit(X)
    assert adjusted_rand_index(y, kk.labels_) > 0.95
    assert adjusted_rand_index(y, km.labels_) < 0.3


@pytest.mark.parametrize("init", ["k-means++", "random", "furthest-first"])
def test_distortion_history_non_increasing_and_predict_consistent(init):
    X, _ = blobs(n=200, k=5, seed=3)
    model = KernelKMeans(5, kernel="rbf", gamma=0.5, init=init, n_init=3, random_state=1).fit(X)
    h = model.distortion_history_
    assert np.all(np.diff(h) <= 1e-9 * max(h[0], 1.0))
    assert h[-1] == pytest.approx(model.inertia_, rel=1e-9, abs=1e-9)
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    assert -model.score(X) == pytest.approx(model.inertia_, rel=1e-9)
    assert np.bincount(model.labels_, minlength=5).min() >= 1


def test_same_seed_same_clustering():
    X, _ = blobs(seed=4)
    a = KernelKMeans(4, random_state=5, n_init=3).fit(X)
    b = KernelKMeans(4, random_state=5, n_init=3).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_kernel_diagonal_matches_full_matrix():
    X = np.random.default_rng(1).normal(size=(10, 3))
    for kernel in ("linear", "poly", "rbf", "sigmoid"):
        K = kernel_matrix(X, X, kernel=kernel, gamma=0.3, degree=3, coef0=0.5)
        np.testing.assert_allclose(
            kernel_diagonal(X, kernel=kernel, gamma=0.3, degree=3, coef0=0.5), np.diag(K), rtol=1e-12
        )


def test_max_iter_warns():
    X, _ = circles(seed=2)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        KernelKMeans(6, kernel="rbf", gamma=1.0, max_iter=1, n_init=1, random_state=0).fit(X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_clusters": 2, "init": [0, 0]}, "distinct"),
        ({"n_clusters": 2, "init": [0, 1, 2]}, "must be 2 integer example indices"),
        ({"kernel": "cosine"}, "kernel must be one of"),
        ({"gamma": -1.0}, "gamma must be > 0"),
        ({"n_clusters": 500}, "should be >= n_clusters=500"),
    ],
)
def test_invalid_parameters(params, match):
    X, _ = blobs()
    with pytest.raises(ValueError, match=match):
        KernelKMeans(**params).fit(X)
