"""Mean-field VI (CAVI) for a Bayesian Gaussian mixture: monotone ELBO, a bound on the evidence, EM agreement."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from replearn.exceptions import ConvergenceWarning
from replearn.models.mixture.gaussian_mixture import GaussianMixture
from replearn.variational import MeanFieldGaussianMixture


def _three_blobs(n=600, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    labels = rng.integers(0, 3, n)
    return centers[labels] + rng.normal(size=(n, 2)), labels


def test_elbo_increases_monotonically():
    X, _ = _three_blobs(300, seed=1)
    for seed in range(3):
        m = MeanFieldGaussianMixture(3, tol=0.0, max_iter=30, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m.fit(X)
        assert np.all(np.diff(m.elbo_history_) >= -1e-9 * np.abs(m.elbo_history_[:-1]))
        assert m.elbo_history_[-1] > m.elbo_history_[0]


def _log_evidence(x, K, sig2, lam):
    """log p(x) of the 1-D model by summing over every assignment and integrating the means exactly."""
    total = []
    for c in itertools.product(range(K), repeat=len(x)):
        c = np.array(c)
        lp = -len(x) * np.log(K)
        for k in range(K):
            xs = x[c == k]
            n = xs.size
            # x_k ~ N(0, lam I + sig2 11^T)
            cov = lam * np.eye(n) + sig2 * np.ones((n, n))
            if n:
                lp += -0.5 * (xs @ np.linalg.solve(cov, xs) + np.linalg.slogdet(cov)[1] + n * np.log(2 * np.pi))
        total.append(lp)
    total = np.array(total)
    return total.max() + np.log(np.exp(total - total.max()).sum())


def test_elbo_is_below_the_exact_log_evidence():
    x = np.array([-2.1, -1.7, 0.2, 2.5, 3.1, 2.2])
    m = MeanFieldGaussianMixture(2, prior_variance=4.0, noise_variance=0.8, random_state=0, n_init=3).fit(x[:, None])
    log_evidence = _log_evidence(x, 2, 4.0, 0.8)
    assert m.elbo_ <= log_evidence
    assert m.elbo_ > log_evidence - 2.0  # a sensible bound, not a vacuous one (log 2! label symmetry costs 0.69)


def test_cavi_means_agree_with_em():
    X, labels = _three_blobs()
    cavi = MeanFieldGaussianMixture(3, random_state=0, n_init=3).fit(X)
    em = GaussianMixture(n_components=3, covariance_type="spherical", random_state=0).fit(X)
    order = [int(np.argmin(np.linalg.norm(em.means_ - m, axis=1))) for m in cavi.means_]
    assert sorted(order) == [0, 1, 2]
    np.testing.assert_allclose(cavi.means_, em.means_[order], atol=0.05)
    assert np.all(cavi.mean_variances_ < 0.01)  # ~1 / n_k: the posterior over each mean is concentrated
    agree = np.mean(np.array(order)[cavi.predict(X)] == em.predict(X))
    assert agree > 0.98


def test_parameter_checks():
    with pytest.raises(ValueError, match="prior_variance"):
        MeanFieldGaussianMixture(prior_variance=0.0).fit(np.zeros((4, 1)))
    with pytest.raises(ValueError, match="fewer than n_components"):
        MeanFieldGaussianMixture(5).fit(np.zeros((3, 1)))
