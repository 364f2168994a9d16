"""Bell-Sejnowski ICA (CS229 notes ch. 13): recovery of synthetic sources, gradient check, erratum."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
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
@pytest.mark.parametrize(
    "params", [{}, {"algorithm": "natural"}, {"algorithm": "gradient", "learning_rate": 0.5}, {"fun": "cube"}]
)
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
    model = ICA(algorithm="natural", random_state=1).fit(X)
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
        ({"algorithm": "jade"}, "algorithm must be one of"),
        ({"fun": "tanh"}, "fun must be one of"),
        ({"extended": True}, "extended=True is extended infomax"),
        ({"whiten": False}, "needs whiten=True"),
        ({"learning_rate": 0.0}, "learning_rate must be > 0"),
        ({"batch_size": 0}, "batch_size must be >= 1"),
    ],
)
def test_invalid_parameters(params, match):
    X, _, _ = mixtures(n=100)
    with pytest.raises(ValueError, match=match):
        ICA(**params).fit(X)


def mixed_sources(n=2000, seed=0):
    """A square wave and sin^3 (sub-Gaussian) with Laplace noise (super-Gaussian), randomly mixed."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 8, n)
    S = np.c_[np.sign(np.sin(3 * t)), rng.laplace(size=n), np.sin(2 * t) ** 3]
    return S @ rng.normal(size=(3, 3)).T, S


def matched_correlations(Y, S):
    """|correlation| of each true source with its estimate, after the best one-to-one matching."""
    C = np.abs(np.corrcoef(Y.T, S.T)[: S.shape[1], S.shape[1] :])
    rows, cols = linear_sum_assignment(-C)
    return C[rows, cols]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_separates_sub_and_super_gaussian_sources(seed):
    X, S = mixed_sources(seed=seed)
    model = ICA(random_state=seed).fit(X)
    assert model.converged_
    assert matched_correlations(model.transform(X), S).min() >= 0.99
    ref = FastICA(random_state=seed, whiten="unit-variance").fit(X)
    assert matched_correlations(model.transform(X), S).min() >= matched_correlations(ref.transform(X), S).min() - 1e-3


@pytest.mark.parametrize("fun", ["logcosh", "exp", "cube"])
def test_fixed_point_contrasts_separate_and_give_orthonormal_whitened_unmixing(fun):
    X, S = mixed_sources(seed=3)
    model = ICA(fun=fun, random_state=0).fit(X)
    assert model.converged_ and model.n_iter_ < 50
    assert matched_correlations(model.transform(X), S).min() >= 0.98
    W = model.unmixing_whitened_
    np.testing.assert_allclose(W @ W.T, np.eye(3), atol=1e-10)
    assert model.log_likelihood_history_.shape == (model.n_iter_ + 1,)


def test_fixed_point_matches_fastica_sources():
    X, _ = mixed_sources(seed=4)
    ours = ICA(tol=1e-8, random_state=0).fit(X).transform(X)
    ref = FastICA(tol=1e-8, max_iter=1000, random_state=0, whiten="unit-variance").fit(X).transform(X)
    assert matched_correlations(ours, ref).min() > 0.9999


def test_the_texts_rule_cannot_but_extended_infomax_can_separate_sub_gaussian_sources():
    X, S = mixed_sources(seed=0)
    plain = ICA(algorithm="natural", max_iter=300, random_state=0)
    with pytest.warns(Warning):
        plain.fit(X)
    assert matched_correlations(plain.transform(X), S).min() < 0.9  # the sigmoid prior is super-Gaussian
    ext = ICA(algorithm="natural", extended=True, learning_rate=0.4, max_iter=2000, random_state=0).fit(X)
    assert ext.converged_
    assert matched_correlations(ext.transform(X), S).min() >= 0.97
