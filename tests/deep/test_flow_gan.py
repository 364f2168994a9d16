"""Normalizing flow (exact density) and GAN (sample quality) on a ring of Gaussians."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.deep import GAN, RealNVP, gaussian_ring_log_density, make_gaussian_ring, mode_coverage, ring_centers


@pytest.fixture(scope="module")
def ring():
    X, _ = make_gaussian_ring(1000, n_modes=8, radius=2.0, std=0.25, random_state=0)
    X_test, _ = make_gaussian_ring(1000, n_modes=8, radius=2.0, std=0.25, random_state=1)
    return X, X_test


@pytest.fixture(scope="module")
def flow(ring):
    X, _ = ring
    return RealNVP(n_couplings=4, hidden_layer_sizes=(32, 32), max_iter=25, batch_size=100, random_state=0).fit(X)


def _grid_mass(model, half_width=7.0, n=281):
    g = np.linspace(-half_width, half_width, n)
    G = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    return float(np.exp(model.score_samples(G)).sum() * (g[1] - g[0]) ** 2)


def test_flow_density_integrates_to_one(flow):
    assert _grid_mass(flow) == pytest.approx(1.0, abs=0.01)


def test_untrained_random_flow_also_integrates_to_one(ring):
    X, _ = ring
    f = RealNVP(n_couplings=3, hidden_layer_sizes=(8,), max_iter=1, learning_rate=0.05, random_state=3).fit(X)
    assert _grid_mass(f) == pytest.approx(1.0, abs=0.01)


def test_flow_likelihood_beats_a_gaussian_and_approaches_the_truth(flow, ring):
    X, X_test = ring
    m, C = X.mean(axis=0), np.cov(X.T)
    diff = X_test - m
    gauss = np.mean(-0.5 * np.sum(diff @ np.linalg.inv(C) * diff, axis=1) - 0.5 * np.log(np.linalg.det(2 * np.pi * C)))
    truth = gaussian_ring_log_density(X_test, 8, 2.0, 0.25).mean()
    ll = flow.score(X_test)
    assert ll > gauss + 0.5
    assert ll < truth + 0.05  # no model beats the true density on fresh data (up to sampling noise)


def test_flow_inverse_and_sampling(flow, ring):
    _, X_test = ring
    np.testing.assert_allclose(flow.inverse_transform(flow.transform(X_test[:20])), X_test[:20], atol=1e-10)
    S = flow.sample(2000, random_state=0)
    radius = np.linalg.norm(S, axis=1)
    assert abs(np.median(radius) - 2.0) < 0.3


def test_gan_covers_the_modes():
    X, _ = make_gaussian_ring(2000, n_modes=4, radius=2.0, std=0.2, random_state=0)
    gan = GAN(max_iter=40, batch_size=100, learning_rate=1e-3, random_state=0).fit(X)
    S = gan.sample(2000, random_state=1)
    covered, quality = mode_coverage(S, ring_centers(4, 2.0), 0.2)
    assert covered == 1.0 and quality > 0.6
    untrained = GAN(max_iter=1, random_state=0).fit(X[:10]).sample(2000, random_state=1)
    assert mode_coverage(untrained, ring_centers(4, 2.0), 0.2)[1] < quality
    assert gan.decision_function(X[:5]).shape == (5,)


def test_ring_density_is_normalized():
    g = np.linspace(-5, 5, 401)
    G = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    mass = np.exp(gaussian_ring_log_density(G, 8, 2.0, 0.25)).sum() * (g[1] - g[0]) ** 2
    assert mass == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("which", ["gan_generator", "gan_discriminator", "flow", "vae"])
def test_hidden_widths_are_declared_once_and_one_integer_is_one_layer(which):
    """The widths are in each model's own table (read by the generative units and the config): one integer is one
    hidden layer, a width of 0 is refused by name before any fitting."""
    from replearn.deep.flow import RealNVP
    from replearn.deep.gan import GAN
    from replearn.deep.vae import VAE

    cls, key = {
        "gan_generator": (GAN, "generator_hidden"),
        "gan_discriminator": (GAN, "discriminator_hidden"),
        "flow": (RealNVP, "hidden_layer_sizes"),
        "vae": (VAE, "hidden_layer_sizes"),
    }[which]
    X = np.random.default_rng(0).normal(size=(40, 2))
    kw = {"likelihood": "gaussian"} if cls is VAE else {}
    one = cls(**{key: 8}, **kw, max_iter=2, random_state=0).fit(X)
    same = cls(**{key: (8,)}, **kw, max_iter=2, random_state=0).fit(X)
    assert one.loss_history_ == same.loss_history_
    with pytest.raises(ValueError, match=rf"^{key} must"):
        cls(**{key: [8, 0]}, **kw, max_iter=2).fit(X)
