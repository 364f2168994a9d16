"""VAE: the ELBO bounds the exact log-likelihood of a linear-Gaussian model; digits are modelled
better than by independent pixels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from replearn.deep import VAE

DIGITS = Path(__file__).resolve().parents[2] / "data" / "uci" / "digits.csv"


def _exact_and_analytic_elbo(vae, X):
    """Exact log N(x; b, W^T W + s^2 I) of the fitted linear decoder, and the ELBO in closed form."""
    dec = vae.decoder_.layers[-1]
    W, b = dec.weight.data, dec.bias.data  # x = z W + b + noise
    s2 = np.exp(2 * vae.log_sigma_.data)
    d = X.shape[1]
    cov = W.T @ W + s2 * np.eye(d)
    diff = X - b
    _, logdet = np.linalg.slogdet(cov)
    exact = -0.5 * (np.sum(diff @ np.linalg.inv(cov) * diff, axis=1) + logdet + d * np.log(2 * np.pi))
    mu, logvar = vae.encode(X)
    v = np.exp(logvar)
    mean_x = mu @ W + b
    # E_q log N(x; zW + b, s2 I) = log N(x; mu W + b, s2 I) - (1 / 2 s2) sum_j v_j ||W_j||^2
    rec = -0.5 * (np.sum((X - mean_x) ** 2, axis=1) / s2 + d * np.log(2 * np.pi * s2))
    rec -= 0.5 * (v @ np.sum(W**2, axis=1)) / s2
    kl = 0.5 * np.sum(v + mu**2 - 1 - logvar, axis=1)
    return exact, rec - kl


def test_linear_gaussian_elbo_is_a_lower_bound_and_nearly_tight():
    rng = np.random.default_rng(0)
    W_true = rng.normal(size=(2, 5))
    X = rng.normal(size=(400, 2)) @ W_true + 0.3 * rng.normal(size=(400, 5)) + 1.0
    vae = VAE(
        n_components=2,
        hidden_layer_sizes=(),
        likelihood="gaussian",
        max_iter=150,
        batch_size=100,
        learning_rate=2e-2,
        random_state=0,
    ).fit(X)
    exact, elbo = _exact_and_analytic_elbo(vae, X)
    assert np.all(elbo <= exact + 1e-9)
    assert np.mean(exact - elbo) < 0.2  # a linear encoder can represent the (nearly diagonal) posterior
    mc = vae.elbo(X, n_samples=400, random_state=1)
    np.testing.assert_allclose(mc.mean(), elbo.mean(), atol=0.05)
    # and the fitted model is close to the maximum-likelihood PPCA fit (sample covariance explained)
    C = np.cov(X.T, bias=True)
    evals = np.linalg.eigvalsh(C)[::-1]
    s2_ml = evals[2:].mean()
    ll_ml = -0.5 * X.shape[1] * np.log(2 * np.pi) - 0.5 * (np.sum(np.log(evals[:2])) + 3 * np.log(s2_ml)) - 2.5
    assert exact.mean() > ll_ml - 0.05


def test_elbo_never_exceeds_log_likelihood_on_an_untrained_model():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    vae = VAE(
        n_components=2, hidden_layer_sizes=(), likelihood="gaussian", decoder_variance=0.5, max_iter=1, random_state=0
    ).fit(X)
    exact, elbo = _exact_and_analytic_elbo(vae, X)
    assert np.all(elbo <= exact + 1e-9)
    assert np.mean(exact - elbo) > 0.01  # untrained encoder: the bound is loose, and the check is not vacuous


@pytest.fixture(scope="module")
def binary_digits():
    D = np.loadtxt(DIGITS, delimiter=",", skiprows=1)
    X = (D[:, :64] >= 8).astype(float)
    perm = np.random.default_rng(0).permutation(len(X))
    return X[perm[:1400]], X[perm[1400:]]


def test_vae_on_digits_beats_independent_pixels(binary_digits):
    X_train, X_test = binary_digits
    q = np.clip(X_train.mean(axis=0), 1e-3, 1 - 1e-3)
    independent = np.mean(np.sum(X_test * np.log(q) + (1 - X_test) * np.log(1 - q), axis=1))
    vae = VAE(
        n_components=4, hidden_layer_sizes=(64,), max_iter=20, batch_size=64, learning_rate=3e-3, random_state=0
    ).fit(X_train)
    elbo = vae.elbo(X_test, n_samples=10, random_state=0).mean()
    iwae = vae.score_samples(X_test, n_importance=100, random_state=0).mean()
    assert elbo > independent + 3.0  # nats per image
    assert iwae >= elbo  # the importance-weighted bound is tighter
    assert vae.loss_history_[-1] < vae.loss_history_[0]
    assert vae.transform(X_test).shape == (len(X_test), 4)
    samples = vae.sample(5, random_state=0)
    assert samples.shape == (5, 64) and np.all((samples >= 0) & (samples <= 1))


def test_vae_with_batchnorm_trains_and_predicts_one_row(binary_digits):
    X_train, _ = binary_digits
    vae = VAE(n_components=2, hidden_layer_sizes=(32,), batchnorm=True, max_iter=3, random_state=0).fit(X_train[:300])
    assert np.isfinite(vae.elbo(X_train[:1])).all()


def test_vae_rejects_bad_input():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        VAE(max_iter=1).fit(np.array([[0.0, 2.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="likelihood"):
        VAE(likelihood="poisson").fit(np.zeros((2, 2)))
