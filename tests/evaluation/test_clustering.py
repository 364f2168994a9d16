"""Clustering metrics: adjusted Rand index and friends against scikit-learn; distortion; Amari index."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score, rand_score
from sklearn.metrics.cluster import contingency_matrix as sk_contingency

from replearn.evaluation.clustering import adjusted_rand_index, amari_index, contingency_matrix, distortion, rand_index
from replearn.models.cluster.kmeans import KMeans


@pytest.mark.parametrize("seed", range(8))
def test_ari_and_rand_index_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    a = rng.integers(0, int(rng.integers(1, 6)), size=n)
    b = np.where(rng.uniform(size=n) < 0.6, a, rng.integers(0, 4, size=n))
    assert adjusted_rand_index(a, b) == pytest.approx(adjusted_rand_score(a, b), abs=1e-12)
    assert rand_index(a, b) == pytest.approx(rand_score(a, b), abs=1e-12)
    np.testing.assert_array_equal(contingency_matrix(a, b), sk_contingency(a, b))


def test_ari_is_invariant_to_renaming_and_handles_edge_cases():
    a = np.array([0, 0, 1, 1, 2, 2])
    assert adjusted_rand_index(a, np.array([5, 5, 3, 3, 9, 9])) == 1.0
    assert adjusted_rand_index(["x", "x", "y"], ["p", "p", "q"]) == 1.0
    for t, p in [([0, 0, 0], [1, 1, 1]), ([0, 1, 2], [2, 0, 1]), ([0], [0]), ([0, 0, 1, 1], [0, 1, 0, 1])]:
        assert adjusted_rand_index(t, p) == pytest.approx(adjusted_rand_score(t, p), abs=1e-12)
    assert adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1]) < 0  # worse than chance
    with pytest.raises(ValueError, match="different lengths"):
        adjusted_rand_index([0, 1], [0, 1, 2])


def test_random_labelings_have_ari_near_zero():
    rng = np.random.default_rng(0)
    vals = [adjusted_rand_index(rng.integers(0, 4, 500), rng.integers(0, 4, 500)) for _ in range(20)]
    assert abs(np.mean(vals)) < 0.01


def test_distortion_is_the_mean_of_kmeans_inertia():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 3))
    km = KMeans(4, random_state=0).fit(X)
    assert distortion(X, km.labels_, km.cluster_centers_) == pytest.approx(km.inertia_ / 100, rel=1e-12)
    with pytest.raises(ValueError, match="labels must lie in"):
        distortion(X, np.full(100, 7), km.cluster_centers_)


def test_amari_index():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(4, 4))
    perm = np.eye(4)[[2, 0, 3, 1]] * np.array([[1.5], [-2.0], [0.3], [7.0]])
    W = perm @ np.linalg.inv(A)  # recovers the sources up to permutation, scale and sign
    assert amari_index(A, W) == pytest.approx(0.0, abs=1e-12)
    mixed = amari_index(A, np.eye(4))
    assert 0.0 < mixed <= 1.0
    assert amari_index(np.eye(3), np.ones((3, 3))) == pytest.approx(1.0)  # complete mixing
    with pytest.raises(ValueError, match="must be square"):
        amari_index(np.ones((4, 2)), np.ones((3, 4)))
