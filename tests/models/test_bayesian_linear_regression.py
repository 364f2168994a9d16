"""Bayesian linear regression (CS229 §9.4): the posterior (eq. 9.3) and predictive (eq. 9.4) against a direct
computation by conditioning the joint Gaussian of (theta, y), the evidence against scipy's multivariate normal,
MAP = ridge, coverage of the predictive intervals, posterior concentration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from replearn.models import create
from replearn.models.linear.bayesian import BayesianLinearRegression


def data(n=40, d=3, seed=0, sigma=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 1.5
    theta = rng.normal(size=d)
    return X, X @ theta + 2.0 + sigma * rng.normal(size=n), theta


def joint_gaussian_posterior(X, y, s2, t2):
    """Direct: (theta, y) is jointly Gaussian with cov(theta) = t2 I, cov(y) = t2 X X^T + s2 I, cov(theta, y) =
    t2 X^T; theta | y is the Gaussian conditional (n x n solves -- the other side of Woodbury)."""
    n = X.shape[0]
    K = t2 * X @ X.T + s2 * np.eye(n)
    mean = t2 * X.T @ np.linalg.solve(K, y)
    cov = t2 * np.eye(X.shape[1]) - t2**2 * X.T @ np.linalg.solve(K, X)
    return mean, cov


@pytest.mark.parametrize("s2, t2", [(1.0, 1.0), (0.25, 4.0), (2.0, 0.1)])
def test_posterior_and_predictive_equal_the_joint_gaussian_conditional(s2, t2):
    X, y, _ = data()
    model = BayesianLinearRegression(prior_variance=t2, noise_variance=s2, fit_intercept=False).fit(X, y)
    mean, cov = joint_gaussian_posterior(X, y, s2, t2)
    np.testing.assert_allclose(model.coef_, mean, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.coef_cov_, cov, rtol=1e-8, atol=1e-12)
    X_new = np.random.default_rng(1).normal(size=(5, 3))
    m, sd = model.predict(X_new, return_std=True)
    np.testing.assert_allclose(m, X_new @ mean, rtol=1e-9)
    np.testing.assert_allclose(sd**2, np.einsum("ij,jk,ik->i", X_new, cov, X_new) + s2, rtol=1e-8)
    ref = multivariate_normal(np.zeros(len(y)), s2 * np.eye(len(y)) + t2 * X @ X.T).logpdf(y)
    assert model.log_evidence_ == pytest.approx(ref, rel=1e-10)


def test_flat_prior_intercept_is_the_limit_of_a_wide_gaussian_one():
    """fit_intercept=True puts a flat prior on b: the posterior and predictive of the model with a column of ones
    under N(0, v) tend to it as v grows; the evidence is that of the data projected off the constant vector."""
    X, y, _ = data(seed=2)
    s2, t2, v = 0.5, 2.0, 1e8
    model = BayesianLinearRegression(prior_variance=t2, noise_variance=s2).fit(X, y)
    A = np.column_stack([X, np.ones(len(y))])
    n, d = X.shape
    prec = A.T @ A / s2 + np.diag(np.r_[np.full(d, 1 / t2), 1 / v])
    cov = np.linalg.inv(prec)
    mean = cov @ A.T @ y / s2
    np.testing.assert_allclose(model.coef_, mean[:d], rtol=1e-6)
    assert model.intercept_ == pytest.approx(mean[d], rel=1e-6)
    assert model.intercept_var_ == pytest.approx(cov[d, d], rel=1e-6)
    np.testing.assert_allclose(model.coef_cov_, cov[:d, :d], rtol=1e-6)
    X_new = np.random.default_rng(3).normal(size=(4, d))
    A_new = np.column_stack([X_new, np.ones(4)])
    _, sd = model.predict(X_new, return_std=True)
    np.testing.assert_allclose(sd**2, np.einsum("ij,jk,ik->i", A_new, cov, A_new) + s2, rtol=1e-6)
    Q = np.linalg.qr(np.column_stack([np.ones(n), np.eye(n)[:, : n - 1]]))[0][:, 1:]  # basis of 1-perp
    ref = multivariate_normal(np.zeros(n - 1), s2 * np.eye(n - 1) + t2 * Q.T @ X @ X.T @ Q).logpdf(Q.T @ y)
    assert model.log_evidence_ == pytest.approx(ref, rel=1e-10)


def test_the_posterior_mean_is_the_map_estimate_ridge():
    """CS229 eq. 9.5 with theta ~ N(0, tau^2 I): the MAP estimate is ridge with alpha = sigma^2 / tau^2."""
    from sklearn.linear_model import Ridge as SkRidge

    X, y, _ = data(seed=4)
    for s2, t2 in [(1.0, 1.0), (0.3, 0.05)]:
        bayes = create("bayesian_linear_regression", prior_variance=t2, noise_variance=s2).fit(X, y)
        ours = create("ridge", alpha=s2 / t2).fit(X, y)
        sk = SkRidge(alpha=s2 / t2).fit(X, y)
        np.testing.assert_allclose(bayes.coef_, ours.coef_, rtol=1e-9)
        np.testing.assert_allclose(bayes.coef_, sk.coef_, rtol=1e-8)
        assert bayes.intercept_ == pytest.approx(sk.intercept_, rel=1e-8)


def test_predictive_intervals_cover_as_stated_when_the_model_is_right():
    """theta drawn from the prior, y from the likelihood: the 90% predictive interval of eq. 9.4 covers fresh
    targets 90% of the time (averaged over 400 worlds)."""
    rng = np.random.default_rng(5)
    s2, t2, hits, total = 0.3, 1.5, 0, 0
    for _ in range(400):
        theta = rng.normal(scale=np.sqrt(t2), size=2)
        X = rng.normal(size=(8, 2))
        y = X @ theta + rng.normal(scale=np.sqrt(s2), size=8)
        model = BayesianLinearRegression(t2, s2, fit_intercept=False).fit(X, y)
        X_new = rng.normal(size=(5, 2)) * 2
        m, sd = model.predict(X_new, return_std=True)
        y_new = X_new @ theta + rng.normal(scale=np.sqrt(s2), size=5)
        hits += int(np.sum(np.abs(y_new - m) <= 1.6449 * sd))
        total += 5
    assert abs(hits / total - 0.90) < 0.025


def test_posterior_concentrates_and_predictive_variance_shrinks_to_the_noise():
    stds = []
    for n in (10, 100, 10_000):
        X, y, theta = data(n=n, seed=6)
        model = BayesianLinearRegression(noise_variance=0.25).fit(X, y)
        stds.append(np.sqrt(np.diag(model.coef_cov_)).max())
        _, sd = model.predict(X[:3], return_std=True)
        assert np.all(sd**2 >= 0.25)
    assert stds[0] > stds[1] > stds[2] and stds[2] < 0.01
    np.testing.assert_allclose(model.coef_, theta, atol=0.03)
    assert np.allclose(sd**2, 0.25, rtol=1e-2)
    draws = model.sample_coef(2000, random_state=0)
    np.testing.assert_allclose(draws.mean(axis=0), model.coef_, atol=4 * stds[2] / np.sqrt(2000) * 3)


def test_evidence_prefers_the_true_noise_level():
    X, y, _ = data(n=400, seed=7, sigma=0.5)
    ev = {s2: BayesianLinearRegression(noise_variance=s2).fit(X, y).log_evidence_ for s2 in (0.05, 0.25, 1.0)}
    assert max(ev, key=ev.get) == 0.25


def test_predictive_log_density_and_bad_arguments():
    X, y, _ = data(seed=8)
    model = BayesianLinearRegression().fit(X, y)
    m, sd = model.predict(X[:4], return_std=True)
    from scipy.stats import norm

    np.testing.assert_allclose(model.predictive_log_density(X[:4], y[:4]), norm(m, sd).logpdf(y[:4]), rtol=1e-12)
    with pytest.raises(TypeError, match="return_std must be a bool"):
        model.predict(X, return_std="yes")
    with pytest.raises(ValueError, match="noise_variance must be > 0"):
        BayesianLinearRegression(noise_variance=0.0).fit(X, y)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        model.sample_coef(0)
