"""Bayesian correlated t-test and signed-rank test (Benavoli et al. 2017): hand computations, invariants."""

import numpy as np
import pytest
from scipy import stats

from replearn.stats import bayesian_correlated_ttest, bayesian_signed_rank, corrected_resampled_ttest

D = np.random.default_rng(0).normal(0.012, 0.02, 50)


def test_correlated_ttest_by_hand():
    r = bayesian_correlated_ttest(D, n_train=90, n_test=10, rope=0.01)
    rho = 0.1
    scale = np.sqrt((1 / 50 + rho / (1 - rho)) * D.var(ddof=1))
    post = stats.t(49, loc=D.mean(), scale=scale)
    assert r.p_left == pytest.approx(post.cdf(-0.01), rel=1e-12)
    assert r.p_right == pytest.approx(post.sf(0.01), rel=1e-12)
    assert r.p_left + r.p_rope + r.p_right == pytest.approx(1.0, abs=1e-12)
    assert r.extra["rho"] == pytest.approx(rho) and r.credible_interval == pytest.approx(post.interval(0.95))


def test_correlated_ttest_without_rope_is_the_corrected_t_test():
    a = D + 0.8
    b = np.full(50, 0.8)
    r = bayesian_correlated_ttest(a, b, n_train=90, n_test=10, rope=0.0)
    t = corrected_resampled_ttest(a, b, 90, 10, alternative="greater")
    assert r.p_left == pytest.approx(t.pvalue, rel=1e-10)
    assert bayesian_correlated_ttest(a, b, rho=0.1, rope=0.0).p_left == pytest.approx(r.p_left)


def test_correlated_ttest_swap_and_degenerate():
    a, b = D + 0.5, np.full(50, 0.5)
    ab, ba = bayesian_correlated_ttest(a, b, rho=0.1), bayesian_correlated_ttest(b, a, rho=0.1)
    assert ab.p_left == pytest.approx(ba.p_right) and ab.p_rope == pytest.approx(ba.p_rope)
    flat = bayesian_correlated_ttest(np.full(10, 0.02), rho=0.1, rope=0.01)
    assert flat.probabilities == (0.0, 0.0, 1.0)
    edge = bayesian_correlated_ttest(np.full(10, 0.01), rho=0.1, rope=0.01)
    assert edge.p_rope == 1.0
    with pytest.raises(ValueError, match="pass rho=, or n_train= and n_test="):
        bayesian_correlated_ttest(D)
    with pytest.raises(ValueError, match=r"rho must lie in \[0, 1\)"):
        bayesian_correlated_ttest(D, rho=1.0)


def test_signed_rank_single_observation_known_case():
    # z = (0, 10), weights (w0, 1 - w0) with w0 ~ Beta(0.5, 1); rope 0.5:
    # theta_right = w1^2 + 2 w0 w1 > theta_rope = w0^2  iff  w0 < 1/sqrt(2): P = (1/sqrt 2)^0.5 = 2^-1/4
    r = bayesian_signed_rank([10.0], rope=0.5, n_samples=200_000, seed=1)
    assert r.p_right == pytest.approx(2**-0.25, abs=0.004)
    assert r.p_rope == pytest.approx(1 - 2**-0.25, abs=0.004) and r.p_left == 0.0


def test_signed_rank_thetas_match_the_double_sum():
    d = np.array([0.03, -0.01, 0.005, 0.02])
    r = bayesian_signed_rank(d, rope=0.01, n_samples=5, seed=7)
    z = np.r_[0.0, d]
    w = np.random.default_rng(7).dirichlet(np.r_[0.5, np.ones(4)], 5)
    thetas = np.zeros((5, 3))
    for s in range(5):
        for i in range(5):
            for j in range(5):
                v = z[i] + z[j]
                region = 0 if v < -0.02 else (2 if v > 0.02 else 1)
                thetas[s, region] += w[s, i] * w[s, j]
    np.testing.assert_allclose(r.extra["theta_mean"], thetas.mean(axis=0), rtol=1e-12)
    winners = np.bincount(thetas.argmax(axis=1), minlength=3) / 5
    assert r.probabilities == pytest.approx(tuple(winners))


@pytest.mark.parametrize("decimals", [2, 3, 6])
def test_signed_rank_shortcut_decides_every_draw_as_the_explicit_double_sum(decimals):
    # the cumulative-sum shortcut (bayesian._signed_rank_thetas) against w' M w by matrix products, on differences
    # with ties (rounded), on the ROPE's edge and of both signs: the same winner in every draw, ~1e-16 apart
    from replearn.stats.bayesian import _signed_rank_thetas

    rng = np.random.default_rng(decimals)
    for n, rope in [(1, 0.01), (5, 0.0), (20, 0.005), (43, 0.01)]:
        d = np.round(rng.normal(0, 0.02, n), decimals)
        d[: n // 3] = 0.01  # differences exactly on the ROPE's edge (z_i + z_j = 2 rope)
        z = np.r_[0.0, d]
        w = rng.dirichlet(np.r_[0.5, np.ones(n)], 3000)
        pair = z[:, None] + z[None, :]
        masks = (pair < -2 * rope, np.abs(pair) <= 2 * rope, pair > 2 * rope)
        explicit = np.stack([((w @ m.astype(np.float64)) * w).sum(axis=1) for m in masks], axis=1)
        fast = _signed_rank_thetas(w, z, masks)
        np.testing.assert_allclose(fast, explicit, rtol=0, atol=1e-13)
        np.testing.assert_array_equal(fast.argmax(axis=1), explicit.argmax(axis=1))
    # a draw whose two largest thetas are near-tied is decided by the double sum itself (a near-tie threshold
    # above every gap makes every draw one)
    import replearn.stats.bayesian as bayes

    old, bayes._NEAR_TIE = bayes._NEAR_TIE, 10.0
    try:
        np.testing.assert_array_equal(_signed_rank_thetas(w, z, masks), explicit)
    finally:
        bayes._NEAR_TIE = old


def test_signed_rank_invariants():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.8, 0.05, 12), rng.normal(0.79, 0.05, 12)
    ab, ba = bayesian_signed_rank(a, b, n_samples=4000), bayesian_signed_rank(b, a, n_samples=4000)
    assert ab.p_left == ba.p_right and ab.p_right == ba.p_left and ab.p_rope == ba.p_rope
    assert sum(ab.probabilities) == pytest.approx(1.0)
    assert bayesian_signed_rank(a, b, rope=1.0, n_samples=1000).p_rope == 1.0
    perm = rng.permutation(12)  # reordering the data sets changes nothing
    assert bayesian_signed_rank(a[perm], b[perm], n_samples=4000).extra["theta_mean"] == pytest.approx(
        ab.extra["theta_mean"], rel=0.05
    )
    assert bayesian_signed_rank(a + 0.2, b, n_samples=2000).p_right > 0.99
    with pytest.raises(ValueError, match="prior_strength"):
        bayesian_signed_rank(a, b, prior_strength=0)
