"""Half-sampling variance (delete-d jackknife), its t-test, and the single-step max-t adjustment."""

import numpy as np
import pytest
from scipy import stats as sps

from replearn import stats
from replearn.pipeline.compare import bayesian_decisions


def test_without_half_samples_the_covariance_is_the_replicates():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 3))
    mc = stats.mean_covariance(x)
    np.testing.assert_allclose(mc.cov, np.cov(x, rowvar=False) / 12)
    assert mc.between is None and mc.df == 11
    rep = np.repeat(np.arange(4), 3)  # 4 repeats of 3 folds: the repeat means are the independent units
    mc = stats.mean_covariance(x, repeat=rep)
    means = np.stack([x[rep == r].mean(0) for r in range(4)])
    np.testing.assert_allclose(mc.cov, np.cov(means, rowvar=False) / 4)
    assert mc.df == 3


def test_between_term_is_the_delete_d_jackknife_minus_inner_noise():
    rng = np.random.default_rng(1)
    h = rng.normal(size=(10, 3, 1))
    x = rng.normal(size=(20, 1))
    mc = stats.mean_covariance(x, half_scores=h, n_examples=100, subsample_size=50)
    t_s = h.mean(axis=1)[:, 0]
    noise = np.mean(h[:, :, 0].var(axis=1, ddof=1)) / 3
    expected = max(t_s.var(ddof=1) - noise, 0.0)  # factor m / (n - m) = 1 for halves
    assert mc.between[0, 0] == pytest.approx(expected)
    assert mc.cov[0, 0] == pytest.approx(expected + x[:, 0].var(ddof=1) / 20)
    assert mc.df == 9
    mc2 = stats.mean_covariance(x, half_scores=h, n_examples=150, subsample_size=100)  # factor 2
    assert mc2.between[0, 0] == pytest.approx(2 * expected)


def test_inner_noise_alone_gives_no_between_variance():
    """Subsamples that all estimate the same value with inner noise only: the between term is clipped at 0."""
    h = np.zeros((8, 2, 1))
    h[:, 0, 0], h[:, 1, 0] = 0.1, -0.1  # every subsample has mean 0: var_S(T_S) = 0 < the inner noise
    mc = stats.mean_covariance(np.array([[0.0], [1.0], [2.0]]), half_scores=h, n_examples=10, subsample_size=5)
    assert mc.between[0, 0] == 0.0


def test_half_sampling_ttest_is_antisymmetric_and_its_interval_is_centred():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.8, 0.05, 30), rng.normal(0.78, 0.05, 30)
    ha, hb = rng.normal(0.8, 0.05, (20, 3)), rng.normal(0.78, 0.05, (20, 3))
    kw = {"n_examples": 150, "subsample_size": 75, "repeat": np.repeat(np.arange(3), 10)}
    r1 = stats.half_sampling_ttest(a, b, half_a=ha, half_b=hb, **kw)
    r2 = stats.half_sampling_ttest(b, a, half_a=hb, half_b=ha, **kw)
    assert r1.statistic == pytest.approx(-r2.statistic) and r1.pvalue == pytest.approx(r2.pvalue)
    vb, vw = r1.extra["variance_between"], r1.extra["variance_within"]
    assert r1.df == pytest.approx((vb + vw) ** 2 / (vb**2 / 19 + vw**2 / 2))  # Satterthwaite: 3 repeats
    se = r1.extra["standard_error"]
    assert se**2 == pytest.approx(r1.extra["variance_between"] + r1.extra["variance_within"])
    assert r1.pvalue == pytest.approx(2 * sps.t.sf(abs(np.mean(a - b)) / se, r1.df))
    lo, hi = r1.ci
    assert (lo + hi) / 2 == pytest.approx(np.mean(a - b))
    assert hi - lo == pytest.approx(2 * sps.t.ppf(0.975, r1.df) * se)


def test_half_sampling_ttest_refuses_bad_shapes():
    with pytest.raises(ValueError, match="half_a and half_b"):
        stats.half_sampling_ttest(
            [1, 2, 3], [1, 2, 4], half_a=np.ones((3, 2)), half_b=np.ones((4, 2)), n_examples=10, subsample_size=5
        )
    with pytest.raises(ValueError, match="subsample_size"):
        stats.half_sampling_ttest(
            [1, 2, 3], [1, 2, 4], half_a=np.ones((3, 2)), half_b=np.ones((3, 2)), n_examples=10, subsample_size=10
        )


def test_population_size_on_a_linear_statistic():
    """Per-example scores whose CV estimate is a plain mean: the half-sampling t-test keeps its level."""
    rng = np.random.default_rng(3)
    n, reps, rejections = 60, 1000, 0
    for _ in range(reps):
        e = rng.normal(size=n)  # per-example differences with mean 0 (the null)
        main = e.mean() + rng.normal(0, 0.03, 20)  # 20 splits: the data set's mean plus split noise
        subs = []
        for _ in range(20):
            s = rng.permutation(n)[: n // 2]
            # a cross-validation of the whole half covers every example: only training noise between repeats
            subs.append([e[s].mean() + rng.normal(0, 0.03) for _ in range(3)])
        res = stats.half_sampling_ttest(
            main, np.zeros(20), half_a=np.array(subs), half_b=np.zeros((20, 3)), n_examples=n, subsample_size=n // 2
        )
        rejections += res.pvalue <= 0.05
    assert 0.025 <= rejections / reps <= 0.08


def test_max_t_with_one_contrast_is_the_t_test():
    p = stats.max_t_adjusted([0.5], [[0.04]], 19, n_sim=200_000, seed=1)
    assert p[0] == pytest.approx(2 * sps.t.sf(0.5 / 0.2, 19), abs=3e-3)


def test_max_t_for_independent_contrasts_is_sidak():
    p = stats.max_t_adjusted([2.0, 0.0, 0.0], np.eye(3), np.inf, n_sim=200_000, seed=2)
    single = 2 * sps.norm.sf(2.0)
    assert p[0] == pytest.approx(1 - (1 - single) ** 3, abs=3e-3)
    assert p[1] == 1.0 and p[0] < p[1]
    again = stats.max_t_adjusted([2.0, 0.0, 0.0], np.eye(3), np.inf, n_sim=200_000, seed=2)
    np.testing.assert_array_equal(p, again)  # deterministic for a seed


def test_bayesian_decisions_use_the_same_multiplicity_as_the_pvalues():
    rows = [
        {"p_a_better": 0.98, "p_equivalent": 0.01, "p_b_better": 0.01},  # 2(1 - 0.98) = 0.04 <= 0.05 alone
        {"p_a_better": 0.50, "p_equivalent": 0.49, "p_b_better": 0.01},
        {"p_a_better": 0.02, "p_equivalent": 0.97, "p_b_better": 0.01},
    ]
    one = [dict(rows[0])]
    bayesian_decisions(one, {"alpha": 0.05, "correction": "holm"})
    assert one[0]["decision"] == "a_better"
    bayesian_decisions(rows, {"alpha": 0.05, "correction": "holm"})
    assert rows[0]["decision"] == "undecided"  # Holm over three pairs: 3 x 0.04 > 0.05
    assert rows[1]["decision"] == "undecided" and rows[2]["decision"] == "equivalent"
    fewer = [{"p_a_better": 0.96, "p_equivalent": 0.03, "p_b_better": 0.01}]
    bayesian_decisions(fewer, {"alpha": 0.05, "correction": "holm"})
    assert fewer[0]["decision"] == "undecided"  # 0.96 < 1 - alpha/2: the old 0.95 threshold is gone


def test_max_t_critical_is_the_simultaneous_quantile():
    assert stats.max_t_critical([[1.0]], 19, 0.05, n_sim=200_000, seed=3) == pytest.approx(
        sps.t.ppf(0.975, 19), abs=0.02
    )
    sidak = sps.norm.ppf(1 - (1 - (1 - 0.05) ** (1 / 3)) / 2)  # three independent contrasts
    assert stats.max_t_critical(np.eye(3), np.inf, 0.05, n_sim=200_000, seed=3) == pytest.approx(sidak, abs=0.02)
