"""Few-run statistics (replearn.stats.fewruns) against independent computations and their invariants."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from replearn import stats
from replearn.stats import fewruns
from replearn.stats.registry import REGISTRY


def _scores(seed=0, runs=7, tasks=3, shift=0.0):
    return np.random.default_rng(seed).normal(size=(runs, tasks)) + shift


# -- interquartile mean ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 1), (7, 3), (10, 4), (3, 2)])
def test_iqm_is_scipys_trimmed_mean_of_the_flattened_scores(shape):
    x = np.random.default_rng(sum(shape)).normal(size=shape)
    assert fewruns.iqm(x) == pytest.approx(sps.trim_mean(x.ravel(), 0.25))


def test_iqm_is_the_mean_of_the_middle_half():
    x = np.array([[100.0, 1.0], [2.0, 3.0], [4.0, -50.0], [5.0, 6.0]])  # 8 values: drop 2 at each end
    assert fewruns.iqm(x) == pytest.approx(np.mean([2.0, 3.0, 4.0, 5.0]))
    assert fewruns.iqm([1.0, 2.0, 3.0]) == pytest.approx(2.0)


def test_iqm_refuses_nan_and_empty():
    with pytest.raises(ValueError, match="NaN"):
        fewruns.iqm([1.0, np.nan])
    with pytest.raises(ValueError, match="at least one"):
        fewruns.iqm([])


# -- probability of improvement ----------------------------------------------------------------------
def test_probability_of_improvement_is_mann_whitney_u_over_nm_averaged_over_tasks():
    x, y = _scores(1, runs=6, tasks=4), _scores(2, runs=5, tasks=4, shift=0.3)
    x[0, 0] = y[0, 0]  # a tie counts one half
    per_task = [sps.mannwhitneyu(x[:, t], y[:, t]).statistic / (6 * 5) for t in range(4)]
    assert fewruns.probability_of_improvement(x, y) == pytest.approx(np.mean(per_task))


def test_probability_of_improvement_invariants():
    x, y = _scores(3), _scores(4, shift=0.5)
    assert fewruns.probability_of_improvement(x, x) == pytest.approx(0.5)
    assert fewruns.probability_of_improvement(x, y) + fewruns.probability_of_improvement(y, x) == pytest.approx(1.0)
    assert fewruns.probability_of_improvement(x + 100, x) == 1.0
    assert fewruns.probability_of_improvement([1.0, 2.0], [1.0, 2.0]) == 0.5  # 1-D: one task
    with pytest.raises(ValueError, match="same number of tasks"):
        fewruns.probability_of_improvement(np.zeros((3, 2)), np.zeros((3, 3)))


def test_probability_of_improvement_ci_contains_the_estimate_and_is_seeded():
    x, y = _scores(5, runs=5, tasks=1), _scores(6, runs=5, tasks=1, shift=1.0)
    r = fewruns.probability_of_improvement_ci(x, y, n_resamples=1000, seed=11)
    assert r.estimate == pytest.approx(fewruns.probability_of_improvement(x, y))
    assert r.ci[0] <= r.estimate <= r.ci[1]
    assert 0.0 <= r.ci[0] and r.ci[1] <= 1.0
    again = fewruns.probability_of_improvement_ci(x, y, n_resamples=1000, seed=11)
    assert again.ci == r.ci and np.array_equal(again.distribution, r.distribution)
    assert fewruns.probability_of_improvement_ci(x, y, n_resamples=1000, seed=12).ci != r.ci
    same = fewruns.probability_of_improvement_ci(x, x, n_resamples=500, seed=1)
    assert same.estimate == 0.5 and same.ci[0] < 0.5 < same.ci[1]


# -- stratified bootstrap ----------------------------------------------------------------------------
def test_stratified_bootstrap_is_deterministic_by_seed_and_contains_the_estimate():
    x = _scores(7, runs=6, tasks=3)
    a = fewruns.stratified_bootstrap_ci(x, "iqm", n_resamples=2000, confidence=0.95, seed=3)
    b = fewruns.stratified_bootstrap_ci(x, fewruns.iqm, n_resamples=2000, confidence=0.95, seed=3)
    assert a.ci == b.ci and np.array_equal(a.distribution, b.distribution)
    assert a.estimate == pytest.approx(fewruns.iqm(x))
    assert a.ci[0] <= a.estimate <= a.ci[1]
    assert a.method == "percentile" and a.seed == 3 and a.n_resamples == 2000
    assert fewruns.stratified_bootstrap_ci(x, "iqm", 2000, 0.95, seed=4).ci != a.ci


def test_stratified_bootstrap_resamples_within_each_task():
    x = np.column_stack([np.arange(5.0), 100 + np.arange(5.0), 1000 + np.arange(5.0)])
    seen = []

    def check(sample):
        for t in range(3):
            assert set(sample[:, t]) <= set(x[:, t])  # runs never move between tasks
        seen.append(sample.copy())
        return float(sample.mean())

    fewruns.stratified_bootstrap_ci(x, check, n_resamples=50, seed=0)
    assert len(seen) == 51  # the estimate, then every resample
    assert any(len(set(s[:, 0])) < 5 for s in seen[1:])  # with replacement


def test_stratified_bootstrap_percentile_interval_matches_a_direct_computation():
    """The same draws (default_rng(seed).integers(0, runs, (B, runs, tasks))) done by hand."""
    x = _scores(8, runs=5, tasks=2)
    r = fewruns.stratified_bootstrap_ci(x, "mean", n_resamples=300, confidence=0.9, seed=21)
    idx = np.random.default_rng(21).integers(0, 5, (300, 5, 2))
    theta = np.array([np.mean([x[idx[b, :, t], t] for t in range(2)]) for b in range(300)])
    assert np.allclose(np.sort(r.distribution), np.sort(theta))
    assert r.ci == pytest.approx(tuple(np.quantile(theta, [0.05, 0.95])))


def test_stratified_bootstrap_standard_error_of_the_mean_matches_theory():
    """The ideal stratified bootstrap variance of the grand mean: sum_t s_t^2 / (T^2 n), s_t^2 with ddof=0."""
    x = _scores(9, runs=8, tasks=3)
    r = fewruns.stratified_bootstrap_ci(x, "mean", n_resamples=40_000, seed=5)
    expected = math.sqrt(np.sum(x.var(axis=0, ddof=0)) / (3**2 * 8))
    assert r.standard_error == pytest.approx(expected, rel=0.03)


def test_stratified_bootstrap_with_one_task_is_the_ordinary_bootstrap():
    x = _scores(10, runs=6, tasks=1)
    a = fewruns.stratified_bootstrap_ci(x, "median", 500, seed=2)
    b = fewruns.stratified_bootstrap_ci(x[:, 0], "median", 500, seed=2)
    assert a.ci == b.ci
    idx = np.random.default_rng(2).integers(0, 6, (500, 6))
    assert np.allclose(a.distribution, np.median(x[:, 0][idx], axis=1))


def test_stratified_bootstrap_refuses_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        fewruns.stratified_bootstrap_ci([[1.0], [np.nan]])
    with pytest.raises(ValueError, match="confidence"):
        fewruns.stratified_bootstrap_ci([1.0, 2.0], confidence=1.5)
    with pytest.raises(ValueError, match="seed"):
        fewruns.stratified_bootstrap_ci([1.0, 2.0], seed=-1)
    with pytest.raises(ValueError, match="unknown statistic"):
        fewruns.stratified_bootstrap_ci([1.0, 2.0], "mode")


# -- performance profile -----------------------------------------------------------------------------
def test_performance_profile_counts_runs_above_each_threshold():
    x = _scores(12, runs=5, tasks=3)
    taus = np.linspace(-2, 2, 9)
    expected = [np.mean([np.mean(x[:, t] > tau) for t in range(3)]) for tau in taus]
    prof = fewruns.performance_profile(x, taus)
    assert np.allclose(prof, expected)
    assert np.all(np.diff(prof) <= 0)


def test_performance_profile_normalises_per_task():
    x = np.array([[0.0, 10.0], [5.0, 20.0], [10.0, 30.0]])
    prof = fewruns.performance_profile(x, [0.0, 0.4, 0.6, 1.0], low=[0.0, 10.0], high=[10.0, 30.0])
    assert np.allclose(prof, [2 / 3, 2 / 3, 1 / 3, 0.0])
    flat = fewruns.performance_profile(np.ones((3, 1)), [0.0], low=1.0, high=1.0)  # no spread: all 0
    assert flat.tolist() == [0.0]
    with pytest.raises(ValueError, match="both low and high"):
        fewruns.performance_profile(x, [0.5], low=0.0)


# -- what few replicates can show --------------------------------------------------------------------
def _enumerated_wilcoxon_min_p(n):
    """Smallest exact two-sided p of the signed-rank test over all 2^n sign patterns of ranks 1..n."""
    ranks = np.arange(1, n + 1)
    sums = np.array([ranks[list(s)].sum() for k in range(n + 1) for s in itertools.combinations(range(n), k)])
    best = 1.0
    for r in np.unique(sums):
        best = min(best, min(1.0, 2 * min(np.mean(sums <= r), np.mean(sums >= r))))
    return best


def _enumerated_sign_min_p(n):
    wins = np.array([k for k in range(n + 1) for _ in itertools.combinations(range(n), k)])
    return min(min(1.0, 2 * min(np.mean(wins <= w), np.mean(wins >= w))) for w in range(n + 1))


@pytest.mark.parametrize("n", range(1, 11))
def test_smallest_attainable_pvalue_is_the_enumerated_null_minimum(n):
    assert fewruns.smallest_attainable_pvalue("replicate_wilcoxon", n) == pytest.approx(_enumerated_wilcoxon_min_p(n))
    assert fewruns.smallest_attainable_pvalue("replicate_sign_test", n) == pytest.approx(_enumerated_sign_min_p(n))
    # and what the tests of replearn.stats (and scipy) return when every difference has the same sign
    d = np.arange(1.0, n + 1)
    assert stats.wilcoxon(d).pvalue == pytest.approx(fewruns.smallest_attainable_pvalue("wilcoxon", n))
    assert stats.sign_test(d).pvalue == pytest.approx(fewruns.smallest_attainable_pvalue("sign_test", n))
    assert sps.binomtest(n, n).pvalue == pytest.approx(fewruns.smallest_attainable_pvalue("sign_test", n))
    assert fewruns.smallest_attainable_pvalue("replicate_ttest", n) == (0.0 if n >= 2 else 1.0)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "hochberg", "hommel", "shaffer", "bergmann_hommel"])
@pytest.mark.parametrize("k", [2, 3, 4, 6])
def test_smallest_adjusted_pvalue_is_the_adjustment_of_all_pvalues_at_the_minimum(correction, k):
    m = k * (k - 1) // 2
    for n in (4, 5, 6, 7, 9):
        p = fewruns.smallest_attainable_pvalue("replicate_wilcoxon", n)
        expected = float(np.min(stats.adjust([p] * m, correction)))
        assert fewruns.smallest_adjusted_pvalue("replicate_wilcoxon", n, m, correction) == pytest.approx(expected)
        # and no other pattern of p-values (each >= the minimum) adjusts lower
        rng = np.random.default_rng(n * 10 + k)
        for _ in range(20):
            ps = p + rng.uniform(0, 0.2, m) * rng.integers(0, 2, m)
            assert np.min(stats.adjust(list(ps), correction)) >= expected - 1e-12


def test_min_replicates():
    for test in ("replicate_wilcoxon", "replicate_sign_test"):
        assert fewruns.min_replicates(test, 0.05, 1, "holm") == 6  # 2/32 > 0.05 >= 2/64
        assert fewruns.min_replicates(test, 0.05, 3, "holm") == 7  # 3 * 2/64 > 0.05 >= 3 * 2/128
        assert fewruns.min_replicates(test, 0.05, 3, "hochberg") == 6
        assert fewruns.min_replicates(test, 0.05, 15, "holm") == 10
        assert fewruns.min_replicates(test, 0.01, 1, "none") == 8
        assert fewruns.smallest_adjusted_pvalue(test, 5, 3, "holm") == pytest.approx(0.1875)
    assert fewruns.min_replicates("replicate_ttest", 0.05, 15, "holm") == 2


def test_min_replicates_agrees_with_the_tests_and_holm_on_real_scores():
    """With n = min_replicates the tests on all-positive differences reject after Holm; with one fewer, never."""
    for test, func in (("replicate_wilcoxon", stats.wilcoxon), ("replicate_sign_test", stats.sign_test)):
        for m in (1, 3, 6):
            n = fewruns.min_replicates(test, 0.05, m, "holm")
            for size, rejects in ((n, True), (n - 1, False)):
                p = func(np.linspace(0.1, 1.0, size)).pvalue
                assert bool(min(stats.holm([p] * m)) <= 0.05) is rejects


def test_registry_min_n_of_the_replicate_tests_is_the_smallest_n_that_can_reject_once():
    for name in ("replicate_ttest", "replicate_wilcoxon", "replicate_sign_test"):
        assert REGISTRY[name].min_n == fewruns.min_replicates(name, 0.05, 1, "none")
    assert REGISTRY["replicate_wilcoxon"].min_n == 6


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown replicate test"):
        fewruns.smallest_attainable_pvalue("mcnemar", 5)
    with pytest.raises(ValueError, match="unknown correction"):
        fewruns.smallest_adjusted_pvalue("replicate_wilcoxon", 5, 3, "sidak")


# -- power of the paired t-test ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 5, 6, 8, 12])
def test_paired_t_power_is_the_noncentral_t_tail(n):
    crit = sps.t.ppf(0.975, n - 1)
    nc = 0.8 * math.sqrt(n)
    expected = 1 - sps.nct.cdf(crit, n - 1, nc) + sps.nct.cdf(-crit, n - 1, nc)
    assert fewruns.paired_t_power(0.8, n, 0.05) == pytest.approx(expected, rel=1e-9)


def test_paired_t_power_matches_a_seeded_monte_carlo():
    rng = np.random.default_rng(2021)
    for n, effect in ((5, 1.0), (6, 1.0), (8, 1.0), (6, 0.5)):
        d = rng.normal(effect, 1.0, size=(20_000, n))
        p = sps.ttest_1samp(d, 0.0, axis=1).pvalue
        assert np.mean(p <= 0.05) == pytest.approx(fewruns.paired_t_power(effect, n, 0.05), abs=0.012)
    # with 3 comparisons under Holm the worst-case level is alpha / 3
    d = rng.normal(1.0, 1.0, size=(20_000, 6))
    p = sps.ttest_1samp(d, 0.0, axis=1).pvalue
    assert np.mean(p <= 0.05 / 3) == pytest.approx(fewruns.paired_t_power(1.0, 6, 0.05, 3, "holm"), abs=0.012)


def test_power_at_one_sd_with_few_seeds_is_low():
    powers = [fewruns.paired_t_power(1.0, n) for n in (5, 6, 8)]
    assert [round(p, 2) for p in powers] == [0.40, 0.51, 0.68]
    assert fewruns.paired_t_power(0.0, 6) == pytest.approx(0.05)


def test_minimum_detectable_effect_has_the_requested_power():
    for n in (3, 5, 6, 10, 30):
        for m in (1, 3):
            mde = fewruns.minimum_detectable_effect(n, 0.05, 0.8, m, "holm")
            assert fewruns.paired_t_power(mde, n, 0.05, m, "holm") == pytest.approx(0.8, abs=1e-8)
            assert mde == pytest.approx(fewruns.minimum_detectable_effect(n, 0.05 / m, 0.8, 1, "holm"))
    mdes = [fewruns.minimum_detectable_effect(n) for n in range(3, 20)]
    assert all(a > b for a, b in zip(mdes, mdes[1:]))
    assert fewruns.minimum_detectable_effect(10) == pytest.approx(1.0, abs=0.01)
    assert fewruns.minimum_detectable_effect(6, n_comparisons=3, correction="none") == pytest.approx(
        fewruns.minimum_detectable_effect(6)
    )


def test_exported_from_replearn_stats():
    for name in (
        "iqm",
        "stratified_bootstrap_ci",
        "probability_of_improvement",
        "probability_of_improvement_ci",
        "performance_profile",
        "minimum_detectable_effect",
        "paired_t_power",
        "smallest_attainable_pvalue",
        "smallest_adjusted_pvalue",
        "min_replicates",
    ):
        assert getattr(stats, name) is getattr(fewruns, name)


def test_registry_replicates_needed():
    from replearn.stats.registry import replicates_needed

    assert replicates_needed("replicate_wilcoxon", 0.05, 1, "holm") == 6
    assert replicates_needed("replicate_wilcoxon", 0.1, 1, "holm") == 5
    assert replicates_needed("replicate_sign_test", 0.05, 3, "holm") == 7
    assert replicates_needed("replicate_ttest", 0.05, 15, "holm") == 2
    with pytest.raises(ValueError, match="not a test for independent replicates"):
        replicates_needed("mcnemar", 0.05)
