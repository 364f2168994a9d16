"""Bell-Sejnowski ICA (CS229 notes ch. 13): recovery of synthetic sources, gradient check, erratum."""

import numpy as np
import pytest
from sklearn.decomposition import FastICA

from replearn.evaluation.clustering import amari_index
from replearn.exceptions import DivergenceError
from replearn.models import create
from replearn.models.decomposition.ica import ICA, log_likelihood_gradient


def mixtures(n=2000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.laplace(size=(n, d))  # super-Gaussian, as the sigmoid prior assumes
    A = rng.normal(size=(d, d))
    return S @ A.T + rng.normal(size=d), S, A


def test_registry():
    assert isinstance(create("ica"), ICA)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("params", [{}, {"algorithm": "gradient", "learning_rate": 0.5}])
def test_recovers_laplace_sources_up_to_permutation_and_scale(seed, params):
    X, S, A = mixtures(seed=seed)
    model = ICA(random_state=0, **params).fit(X)
    assert model.converged_
    assert amari_index(A, model.components_) < 0.05
    # every estimated source is (almost) a scaled copy of one true source
    Y = model.transform(X)
    corr = np.abs(np.corrcoef(Y.T, S.T)[:3, 3:])
    assert np.all(corr.max(axis=1) > 0.98)
    assert sorted(corr.argmax(axis=1).tolist()) == [0, 1, 2]


def test_as_good_as_fastica_on_the_same_data():
    X, _, A = mixtures(seed=3)
    ours = amari_index(A, ICA(random_state=0).fit(X).components_)
    ref = amari_index(A, FastICA(random_state=0, whiten="unit-variance").fit(X).components_)
    assert ours < 1.5 * ref + 0.01


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    Z = rng.laplace(size=(50, 3))
    W = np.eye(3) + 0.3 * rng.normal(size=(3, 3))
    G = log_likelihood_gradient(Z, W)
    num = np.zeros_like(W)
    h = 1e-6
    for i in range(3):
        for j in range(3):
            E = np.zeros_like(W)
            E[i, j] = h
            num[i, j] = (ICA.log_likelihood(Z, W + E) - ICA.log_likelihood(Z, W - E)) / (2 * h)
    np.testing.assert_allclose(G, num, rtol=1e-6, atol=1e-8)


def test_step_size_multiplies_both_terms_of_the_update():
    # erratum L5108: W := W + alpha([1 - 2g(Wx)] x^T + (W^T)^{-1}); one full-batch step from a known W
    X, _, _ = mixtures(n=200, seed=4)
    model = ICA(algorithm="gradient", learning_rate=0.01, max_iter=1, whiten=False, tol=0.0, random_state=7)
    with pytest.warns(Warning):
        model.fit(X)
    W0 = np.eye(3) + 0.01 * np.random.default_rng(7).standard_normal((3, 3))
    Z = X - X.mean(axis=0)
    expected = W0 + 0.01 * log_likelihood_gradient(Z, W0)
    np.testing.assert_allclose(model.components_, expected, rtol=1e-12)


def test_log_likelihood_rises_and_inverse_transform_round_trips():
    X, _, _ = mixtures(seed=5)
    model = ICA(random_state=1).fit(X)
    h = model.log_likelihood_history_
    assert h[-1] > h[0]
    assert np.all(np.diff(h) >= -1e-9)  # full-batch natural gradient at the default rate
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(model.components_ @ model.mixing_, np.eye(3), atol=1e-10)


def test_fewer_components_than_features_with_whitening():
    rng = np.random.default_rng(6)
    S = rng.laplace(size=(2000, 2))
    A = rng.normal(size=(5, 2))
    X = S @ A.T + 0.01 * rng.normal(size=(2000, 5))
    model = ICA(n_components=2, random_state=0).fit(X)
    assert model.components_.shape == (2, 5) and model.mixing_.shape == (5, 2)
    assert amari_index(A, model.components_) < 0.05


def test_too_large_a_step_diverges():
    X, _, _ = mixtures(n=300, seed=7)
    with pytest.raises(DivergenceError, match="lower learning_rate"):
        ICA(algorithm="gradient", whiten=False, learning_rate=1e150, max_iter=5, random_state=0).fit(X * 1e150)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 2, "whiten": False}, "needs whiten=True"),
        ({"n_components": 4}, "n_components must be <= 3"),
        ({"algorithm": "fastica"}, "algorithm must be one of"),
        ({"learning_rate": 0.0}, "learning_rate must be > 0"),
        ({"batch_size": 0}, "batch_size must be >= 1"),
    ],
)
def test_invalid_parameters(params, match):
    X, _, _ = mixtures(n=100)
    with pytest.raises(ValueError, match=match):
        ICA(**params).fit(X)
