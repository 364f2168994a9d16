"""The sign-flip test of paired replicate differences (replearn diff's test): every exact path against brute-force
enumeration, the approximate path within Monte-Carlo error, its size under the null, the margin t-tests, BH."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from replearn import stats
from replearn.stats.signflip import LATTICE_MAX_RANGE, _on_lattice, lattice_pvalue, lattice_unit


def brute(d, alternative="two-sided"):
    d = np.asarray(d, dtype=float)
    nz = d[d != 0]
    s = nz.sum()
    tol = 1e-9
    sums = np.array([np.dot(signs, np.abs(nz)) for signs in itertools.product((-1, 1), repeat=nz.size)])
    if alternative == "two-sided":
        return np.mean(np.abs(sums) >= abs(s) - tol)
    if alternative == "greater":
        return np.mean(sums >= s - tol)
    return np.mean(sums <= s + tol)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_lattice_and_enumeration_equal_brute_force(alternative):
    rng = np.random.default_rng(1)
    for _ in range(6):
        sizes = rng.choice([42, 43], 14)
        d = rng.integers(-3, 4, 14) / sizes
        unit = lattice_unit(sizes)
        m = _on_lattice(d[d != 0], unit)
        assert m is not None
        want = brute(d, alternative)
        assert lattice_pvalue(m, alternative) == pytest.approx(want, abs=1e-12)
        assert stats.sign_flip_test(d, alternative=alternative).pvalue == pytest.approx(want, abs=1e-12)


def test_large_lattice_matches_enumeration_of_its_nonzero_part():
    """30 non-zero count differences: beyond enumeration, exact on the lattice (checked against 2^20 patterns of a
    20-difference subproblem and against the binomial for equal sizes)."""
    rng = np.random.default_rng(2)
    sizes = np.full(100, 43)
    c = np.zeros(100, dtype=int)
    c[:30] = rng.choice([-2, -1, 1, 3], 30)
    d = c / sizes
    res = stats.sign_flip_test(d, unit=lattice_unit(sizes))
    assert "lattice" in res.conventions["method"] and res.extra["exact"]
    signs_only = np.where(np.arange(40) < 27, -1.0, 1.0) / 43  # 27 of 40 worse by one example: a binomial tail
    p = stats.sign_flip_test(signs_only, unit=1 / 43).pvalue
    assert p == pytest.approx(sps.binomtest(27, 40, 0.5).pvalue, rel=1e-9)
    sub = c[:20] / 43.0
    assert stats.sign_flip_test(sub).pvalue == pytest.approx(brute(sub), abs=1e-12)


def test_approximate_randomization_is_within_monte_carlo_error():
    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.02, 22)  # continuous: no lattice, k = 22 > 20
    res = stats.sign_flip_test(d, n_resamples=99_999, seed=5)
    assert res.conventions["method"].startswith("approximate") and not res.extra["exact"]
    # the same statistic on the exact distribution of a random subset of 2^22 patterns is what it estimates:
    # compare with a t approximation loosely and with a second, independent Monte-Carlo run tightly
    other = stats.sign_flip_test(d, n_resamples=99_999, seed=6).pvalue
    se = np.sqrt(res.pvalue * (1 - res.pvalue) / 99_999)
    assert abs(res.pvalue - other) < 5 * se + 1e-4
    assert res.pvalue == stats.sign_flip_test(d, n_resamples=99_999, seed=5).pvalue  # seeded


def test_exact_size_under_the_null_never_exceeds_alpha():
    """Symmetric, heteroscedastic, discrete differences (a seed-only change): the rejection rate is at most alpha."""
    rng = np.random.default_rng(4)
    sizes = rng.choice([42, 43], 60)
    unit = lattice_unit(sizes)
    rejections = 0
    reps = 600
    for _ in range(reps):
        counts = rng.integers(0, 3, 60) * rng.choice([-1, 1], 60) * (rng.random(60) < 0.6)
        rejections += stats.sign_flip_test(counts / sizes, unit=unit).pvalue <= 0.05
    assert rejections / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


def test_sparse_differences_are_not_called_significant_as_a_t_test_would():
    """Five replicates each one example worse and 95 unchanged: the t-test says p = 0.026, the exact test 1/16."""
    d = np.zeros(100)
    d[:5] = -1 / 43
    exact = stats.sign_flip_test(d, unit=1 / 43)
    assert exact.pvalue == pytest.approx(2 / 32)
    assert sps.ttest_1samp(d, 0).pvalue < 0.05 < exact.pvalue


def test_zero_differences_and_result_fields():
    res = stats.sign_flip_test(np.zeros(10))
    assert res.pvalue == 1.0 and res.statistic == 0.0 and res.extra["n_nonzero"] == 0
    d = np.array([0.1, 0.2, -0.05, 0.15, 0.1, 0.0])
    res = stats.sign_flip_test(d)
    assert res.statistic == pytest.approx(d.mean())
    lo, hi = res.ci
    want = sps.ttest_1samp(d, 0).confidence_interval(0.95)
    assert (lo, hi) == pytest.approx((want.low, want.high))
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1))


@pytest.mark.parametrize(
    "bad, match",
    [([1.0], "at least 2"), ([[1.0, 2.0]], "1-D"), ([0.1, np.nan], "NaN"), ([0.1, np.inf], "NaN or infinite")],
)
def test_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        stats.sign_flip_test(np.asarray(bad))


def test_lattice_unit_and_its_limits():
    assert lattice_unit([42, 43]) == pytest.approx(1 / 1806)
    assert lattice_unit([]) is None and lattice_unit([0, 5]) is None
    assert lattice_unit(list(range(1000, 1100))) is None  # the lcm is far above the cap
    assert _on_lattice(np.array([0.1, np.pi / 100]), 1 / 10) is None
    assert _on_lattice(np.full(10, 1.0), 1 / (LATTICE_MAX_RANGE)) is None  # range above the cap


def test_shifted_ttest_is_the_one_sided_t_test_of_a_margin():
    rng = np.random.default_rng(7)
    d = rng.normal(-0.002, 0.01, 50)
    for shift, alt in ((-0.01, "greater"), (0.01, "less")):
        want = sps.ttest_1samp(d, shift, alternative=alt).pvalue
        assert stats.shifted_ttest(d, shift, alt) == pytest.approx(want)
    with pytest.raises(ValueError, match="greater"):
        stats.shifted_ttest(d, 0.0, "two-sided")


def test_benjamini_hochberg_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(8)
    for m in (1, 5, 40):
        p = np.concatenate([rng.uniform(0, 0.01, m // 3), rng.uniform(0, 1, m - m // 3)])
        want = multitest.multipletests(p, method="fdr_bh")[1]
        assert stats.benjamini_hochberg(p) == pytest.approx(want)
        assert stats.adjust(p, "bh") == pytest.approx(want)
