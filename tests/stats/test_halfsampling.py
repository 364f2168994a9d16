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
    t_s = h.mean(axis=1)[:, 0]
    noise = np.mean(h[:, :, 0].var(axis=1, ddof=1)) / 3
    for k in (1.0, 1.3):
        mc = stats.mean_covariance(x, half_scores=h, n_examples=100, subsample_size=50, noise_factor=k)
        expected = max(t_s.var(ddof=1) - k * noise, 0.0)  # factor m / (n - m) = 1 for halves
        assert mc.between[0, 0] == pytest.approx(expected)
        assert mc.cov[0, 0] == pytest.approx(expected + x[:, 0].var(ddof=1) / 20)
        assert mc.df == 9 and mc.df_noise == 20 and mc.noise_factor == k
        mc2 = stats.mean_covariance(x, half_scores=h, n_examples=150, subsample_size=100, noise_factor=k)  # f = 2
        assert mc2.between[0, 0] == pytest.approx(2 * expected)


def test_the_extra_noise_subtracted_is_capped_by_the_within_term():
    """k = 1 + min(NOISE_FACTOR - 1, NOISE_SHARE * within / (f S2)): the extra subtraction never exceeds
    NOISE_SHARE times the within term, and k never exceeds NOISE_FACTOR."""
    rng = np.random.default_rng(11)
    h = rng.normal(size=(20, 6, 1))
    noise = np.mean(h[:, :, 0].var(axis=1, ddof=1)) / 6
    for scale in (0.05, 1.0, 30.0):
        x = rng.normal(size=(10, 1)) * scale
        mc = stats.mean_covariance(x, half_scores=h, n_examples=150, subsample_size=50)
        within = x[:, 0].var(ddof=1) / 10
        expected = 1.0 + min(
            stats.halfsampling.NOISE_FACTOR - 1.0, stats.halfsampling.NOISE_SHARE * within / (0.5 * noise)
        )
        assert mc.noise_factor == pytest.approx(expected)
        assert 1.0 <= mc.noise_factor <= stats.halfsampling.NOISE_FACTOR
        assert (mc.noise_factor - 1.0) * 0.5 * noise <= stats.halfsampling.NOISE_SHARE * within + 1e-15
    with pytest.raises(ValueError, match="noise_factor"):
        stats.mean_covariance(x, half_scores=h, n_examples=150, subsample_size=50, noise_factor=0.5)


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
    mc = stats.mean_covariance(
        (a - b)[:, None], repeat=kw["repeat"], half_scores=(ha - hb)[:, :, None], n_examples=150, subsample_size=75
    )
    s1 = mc.factor * mc.spread[0, 0]
    s2 = mc.factor * mc.noise_factor * mc.noise[0, 0]
    assert vb == pytest.approx(max(s1 - s2, 0.0))
    if vb > 0:  # Satterthwaite over within (3 repeats), the subsets' spread (19) and their noise (20 x 2)
        assert r1.df == pytest.approx((vb + vw) ** 2 / (s1**2 / 19 + s2**2 / 40 + vw**2 / 2))
    else:
        assert r1.df == 2
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


def test_selected_contrast_without_a_choice_is_students_t():
    cov = np.array([[0.010, 0.004], [0.004, 0.012]])
    r = stats.selected_contrast([0.81, 0.77], cov, 14.0, [0], [1])
    se = np.sqrt(0.010 + 0.012 - 0.008)
    q = sps.t.ppf(0.975, 14.0)
    assert r.estimate == pytest.approx(0.04) and r.se == pytest.approx(se)
    assert r.pvalue == pytest.approx(2 * sps.t.sf(0.04 / se, 14.0))
    assert r.interval == pytest.approx((0.04 - q * se, 0.04 + q * se))


def test_selected_contrast_interval_and_test_agree_and_lean_against_the_selection():
    """The best of five correlated points minus a fixed model: the interval reaches further below the estimate
    (the choice biases it upwards) than above, never less than Student's quantile on either side, and the
    p-value is below alpha exactly when the interval excludes 0."""
    cov = 0.004 * (np.eye(6) + 0.5 * (1 - np.eye(6)))
    q = sps.t.ppf(0.975, 19.0)
    for shift in (0.0, 0.05, 0.12, 0.2):
        means = np.array([0.80, 0.81, 0.80 + shift, 0.79, 0.80, 0.78])
        r = stats.selected_contrast(means, cov, 19.0, [0, 1, 2, 3, 4], [5], seed=3)
        assert r.estimate == pytest.approx(means[:5].max() - 0.78)
        assert r.upper > q and r.lower >= q - 1e-12
        lo, hi = r.interval
        assert (r.pvalue <= 0.05) == (lo > 0 or hi < 0)
    r_min = stats.selected_contrast(-means, cov, 19.0, [0, 1, 2, 3, 4], [5], maximize=False, seed=3)
    assert r_min.estimate == pytest.approx(-r.estimate) and r_min.pvalue == pytest.approx(r.pvalue)


def test_selected_contrast_covers_under_equal_means_and_a_clear_choice():
    """Coverage of the chosen contrast's true value: about 95 % when every point is equal (the selection bias
    is largest), and at least about 95 % when one point is clearly best (no bias)."""
    rng = np.random.default_rng(5)
    cov = 0.004 * (np.eye(6) + 0.5 * (1 - np.eye(6)))
    root = np.linalg.cholesky(cov)
    for truth, band in ((np.zeros(6), (0.93, 0.97)), (np.array([0, 0, 0.5, 0, 0, 0.0]), (0.93, 0.975))):
        hits = 0
        reps = 400
        for i in range(reps):
            m = truth + root @ rng.standard_normal(6) / np.sqrt(rng.chisquare(19) / 19)
            r = stats.selected_contrast(m, cov, 19.0, [0, 1, 2, 3, 4], [5], n_sim=4000, seed=i)
            chosen = int(np.argmax(m[:5]))
            lo, hi = r.interval
            hits += lo <= truth[chosen] - truth[5] <= hi
        assert band[0] <= hits / reps <= band[1]


def test_selected_contrast_refuses_overlapping_or_empty_sides():
    with pytest.raises(ValueError, match="disjoint"):
        stats.selected_contrast([0.1, 0.2], np.eye(2), 5.0, [0, 1], [1])
    with pytest.raises(ValueError, match="disjoint"):
        stats.selected_contrast([0.1, 0.2], np.eye(2), 5.0, [], [1])
    with pytest.raises(ValueError, match="alpha"):
        stats.selected_contrast([0.1, 0.2], np.eye(2), 5.0, [0], [1], alpha=1.5)


def test_selected_neighbours_holds_its_level_on_a_flat_curve_and_finds_a_peak():
    """Five correlated points with equal means: the best point is called better than a neighbour in about 5 %
    of draws (testing it on the replicates it was chosen on, without the re-choice, gives far more); a clear
    peak is found with both neighbours significant."""
    rng = np.random.default_rng(7)
    cov = 0.002 * (np.eye(5) + 0.6 * (1 - np.eye(5)))
    root = np.linalg.cholesky(cov)
    reps, hits, naive = 600, 0, 0
    for i in range(reps):
        m = root @ rng.standard_normal(5) / np.sqrt(rng.chisquare(19) / 19)
        best, p = stats.selected_neighbours(m, cov, 19.0, n_sim=4000, seed=i)
        assert best == int(np.argmax(m)) and set(p) == {j for j in (best - 1, best + 1) if 0 <= j < 5}
        hits += min(p.values()) <= 0.05
        se = np.sqrt(2 * 0.002 * 0.4)
        naive += any(2 * sps.t.sf(abs(m[best] - m[j]) / se, 19) <= 0.05 for j in p)
    assert 0.03 <= hits / reps <= 0.07
    assert naive / reps > 0.12
    peak = np.array([0.0, 0.0, 0.2, 0.0, 0.0])
    best, p = stats.selected_neighbours(peak, cov, 19.0, seed=1)
    assert best == 2 and max(p.values()) < 0.001
    best, p = stats.selected_neighbours(-peak, cov, 19.0, maximize=False, seed=1)
    assert best == 2 and max(p.values()) < 0.001


def test_one_partition_takes_its_within_term_from_the_inner_repeats():
    """One repeat of k-fold (issue 39): the folds of one partition are not independent given the data set, and
    var(folds) / K counts the test-sample noise the between term already holds. The within term is then the
    inner repeats' partition variance scaled to n, R * S2 * m / n, on S2's degrees of freedom."""
    rng = np.random.default_rng(5)
    h = rng.normal(size=(20, 6, 1))
    x = rng.normal(size=(10, 1)) * 10.0  # a huge fold spread: it must not enter
    noise = np.mean(h[:, :, 0].var(axis=1, ddof=1)) / 6
    mc = stats.mean_covariance(x, repeat=np.zeros(10), half_scores=h, n_examples=150, subsample_size=50)
    assert mc.within[0, 0] == pytest.approx(6 * noise * 50 / 150)
    assert mc.df_within == 20 * 5 and mc.within_noise == pytest.approx(2.0)
    assert mc.cov[0, 0] == pytest.approx(mc.between[0, 0] + mc.within[0, 0])
    # two repeats: the repeat means are independent given D, as before
    mc2 = stats.mean_covariance(x, repeat=np.repeat([0, 1], 5), half_scores=h, n_examples=150, subsample_size=50)
    assert mc2.within_noise is None and mc2.df_within == 1
    # Satterthwaite on the combined coefficient of S2 (within and the noise term are one mean square)
    f, k = 0.5, mc.noise_factor
    s1, s2 = f * mc.spread[0, 0], mc.noise[0, 0]
    if mc.between[0, 0] > 0:
        df = mc.cov[0, 0] ** 2 / (s1**2 / 19 + ((2.0 - f * k) * s2) ** 2 / 100)
        assert mc.contrast_df([1.0]) == pytest.approx(max(df, stats.halfsampling.MIN_DF))
