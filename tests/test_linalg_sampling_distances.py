"""The Cholesky sampler x = L n + mu (CS480/680 notes L1252-1260) and the Euclidean distance helpers of
replearn.linalg (CIML eq. 3.1): against numpy's and SciPy's, and the moments the notes derive."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist

from replearn.linalg import (
    SingularMatrixError,
    cholesky_transform,
    euclidean_distances,
    gaussian_sample,
    paired_distances,
    pairwise_distances,
)

MU = np.array([1.0, -2.0, 0.5])
S = np.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])


def test_gaussian_sample_equals_numpys_cholesky_sampler_draw_for_draw():
    ours = gaussian_sample(MU, S, 1000, random_state=7)
    ref = np.random.default_rng(7).multivariate_normal(MU, S, size=1000, method="cholesky")
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
    L = np.linalg.cholesky(S)
    n = np.random.default_rng(1).standard_normal((5, 3))
    np.testing.assert_allclose(cholesky_transform(n, MU, S), n @ L.T + MU, atol=1e-14)


def test_the_moments_the_notes_derive():
    """E[L n + mu] = mu and Cov[L n + mu] = L L' = S, within 4 standard errors of 100k draws."""
    x = gaussian_sample(MU, S, 100_000, random_state=0)
    se_mean = np.sqrt(np.diag(S) / x.shape[0])
    assert np.max(np.abs(x.mean(axis=0) - MU) / se_mean) < 4
    se_cov = np.sqrt((S**2 + np.outer(np.diag(S), np.diag(S))) / x.shape[0])
    assert np.max(np.abs(np.cov(x.T) - S) / se_cov) < 4


def test_a_covariance_without_a_cholesky_factor_is_refused():
    with pytest.raises(SingularMatrixError, match="not positive definite"):
        gaussian_sample(np.zeros(2), np.array([[1.0, 1.0], [1.0, 1.0]]), 5, random_state=0)
    with pytest.raises(ValueError, match="symmetric"):
        gaussian_sample(np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]), 5)
    with pytest.raises(ValueError, match="mean"):
        gaussian_sample(np.zeros(3), np.eye(2), 5)


def test_distances_equal_scipys_and_are_exact_for_equal_points():
    rng = np.random.default_rng(0)
    X, Z = rng.random((200, 7)), rng.random((50, 7))
    np.testing.assert_allclose(pairwise_distances(X), pdist(X), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(euclidean_distances(X, Z), cdist(X, Z), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(paired_distances(X[:50], Z), np.linalg.norm(X[:50] - Z, axis=1), rtol=1e-14)
    far = 1e4 + X[:5]
    D = euclidean_distances(np.vstack([far, far[:1] + 1e-7]))
    assert np.all(np.diag(D) == 0.0) and D[0, 5] == pytest.approx(1e-7 * np.sqrt(7), rel=1e-4)
    assert pairwise_distances(X[:1]).size == 0
    with pytest.raises(ValueError, match="features"):
        euclidean_distances(X, Z[:, :3])
