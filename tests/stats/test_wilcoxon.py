"""Wilcoxon signed-rank and sign tests: Demsar (2006) worked example, SciPy on every zero method."""

import numpy as np
import pytest
from scipy import stats

from replearn.stats import sign_test, wilcoxon

# Demsar (2006), Table 2 (= the first two columns of Table 6): AUC of C4.5 and C4.5+m on 14 data sets.
C45 = np.array([0.763, 0.599, 0.954, 0.628, 0.882, 0.936, 0.661, 0.583, 0.775, 1.000, 0.940, 0.619, 0.972, 0.957])
C45M = np.array([0.768, 0.591, 0.971, 0.661, 0.888, 0.931, 0.668, 0.583, 0.838, 1.000, 0.962, 0.666, 0.981, 0.978])


def test_demsar_table_2_rank_sums():
    r = wilcoxon(C45M, C45, decimals=3)
    # Demsar: R+ = 93, R- = 12 (the two zero differences split 1.5 / 1.5), T = min = 12
    assert r.extra["r_plus"] == 93.0 and r.extra["r_minus"] == 12.0
    assert r.statistic == 12.0
    assert r.extra["n_zero"] == 2 and r.extra["n_ranked"] == 14
    # critical value of T for N = 14 at alpha = 0.05 is 21: the difference is significant
    assert r.pvalue < 0.05 and r.extra["method_used"] == "exact"
    # Demsar's normal approximation, z = (T - N(N+1)/4) / sqrt(N(N+1)(2N+1)/24) = -2.54
    approx = wilcoxon(C45M, C45, decimals=3, method="approx", tie_correction=False)
    assert abs(approx.extra["z"]) == pytest.approx(40.5 / np.sqrt(14 * 15 * 29 / 24), rel=1e-12)
    assert abs(approx.extra["z"]) == pytest.approx(2.54, abs=0.005)
    assert r.effect_size == pytest.approx((93 - 12) / 105)


def test_demsar_example_exact_pvalue_by_brute_force_enumeration():
    d = np.round(C45M - C45, 3)
    ranks = stats.rankdata(np.abs(d))
    signs = np.where((np.arange(2**14)[:, None] >> np.arange(14)) & 1, 1.0, -1.0)
    signs[:, d == 0] = 0.0  # zeros keep their split share: R+ = sum of positive ranks + 1.5
    r_plus = (signs > 0) @ ranks + 1.5
    expected = 2 * min(np.mean(r_plus <= 93.0), np.mean(r_plus >= 93.0))
    assert wilcoxon(d).pvalue == pytest.approx(expected, rel=1e-10)


def test_rounding_before_ranking_creates_ties():
    a = np.array([0.1 + 0.2, 0.5, 0.9, 0.2])
    b = np.array([0.3, 0.4, 0.7, 0.5])
    raw = wilcoxon(a, b, zero_method="wilcox")
    rounded = wilcoxon(a, b, zero_method="wilcox", decimals=6)
    assert raw.extra["n_ranked"] == 4  # 0.1 + 0.2 - 0.3 = 5.6e-17 is not zero
    assert rounded.extra["n_ranked"] == 3 and rounded.conventions["decimals"] == 6


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_matches_scipy_without_ties(seed, alternative):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(0.3, 1, 17), rng.normal(0, 1, 17)
    r = wilcoxon(a, b, alternative=alternative)
    ref = stats.wilcoxon(a, b, alternative=alternative, method="exact")
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_exact_with_ties_and_zeros_matches_scipy_permutation(zero_method, alternative):
    d = np.array([0.0, 0.02, -0.01, 0.02, 0.03, 0.0, -0.02, 0.05, 0.03])
    r = wilcoxon(d, zero_method=zero_method, alternative=alternative)
    ref = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative, method="auto")  # n <= 13: enumeration
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_normal_approximation_matches_scipy(zero_method, correction, alternative):
    rng = np.random.default_rng(4)
    d = np.round(rng.normal(0.2, 1, 60), 1)  # ties and zeros
    r = wilcoxon(d, zero_method=zero_method, method="approx", correction=correction, alternative=alternative)
    ref = stats.wilcoxon(
        d, zero_method=zero_method, method="asymptotic", correction=correction, alternative=alternative
    )
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.extra["method_used"] == "approx"


def test_auto_switches_to_the_normal_approximation_above_50():
    d = np.random.default_rng(5).normal(size=51)
    assert wilcoxon(d).extra["method_used"] == "approx"
    assert wilcoxon(d[:50]).extra["method_used"] == "exact"


def test_demsar_drops_one_zero_when_their_number_is_odd():
    d = np.array([0.0, 0.0, 0.0, 0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7])
    demsar = wilcoxon(d)
    zsplit_one_less = wilcoxon(d[1:], zero_method="zsplit")
    assert demsar.extra["n_ranked"] == 9
    assert demsar.statistic == zsplit_one_less.statistic and demsar.pvalue == zsplit_one_less.pvalue
    assert wilcoxon(d, zero_method="zsplit").extra["n_ranked"] == 10


def test_swapping_the_models_mirrors_the_result():
    rng = np.random.default_rng(6)
    a, b = rng.normal(0.2, 1, 20), rng.normal(0, 1, 20)
    ab, ba = wilcoxon(a, b), wilcoxon(b, a)
    assert ab.pvalue == pytest.approx(ba.pvalue) and ab.statistic == ba.statistic
    assert ab.effect_size == pytest.approx(-ba.effect_size)
    assert wilcoxon(a, b, alternative="greater").pvalue == pytest.approx(wilcoxon(b, a, alternative="less").pvalue)


def test_all_differences_zero():
    r = wilcoxon([0.5, 0.7, 0.9], [0.5, 0.7, 0.9], zero_method="wilcox")
    assert r.pvalue == 1.0 and r.effect_size == 0.0
    assert wilcoxon(np.zeros(4)).pvalue == 1.0


def test_wilcoxon_rejects_bad_input():
    with pytest.raises(ValueError, match="zero_method must be one of"):
        wilcoxon([1.0, 2.0], zero_method="drop")
    with pytest.raises(ValueError, match="paired"):
        wilcoxon([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="method must be"):
        wilcoxon([1.0, 2.0], method="permutation")
    with pytest.raises(ValueError, match="decimals"):
        wilcoxon([1.0, 2.0], decimals=1.5)


# ----------------------------------------------------------------------------- sign test
def test_sign_test_demsar_example():
    r = sign_test(C45M, C45, decimals=3)
    assert (r.extra["wins"], r.extra["losses"], r.extra["ties"]) == (10, 2, 2)
    # Demsar: ties are split evenly, so C4.5+m wins 11 of 14
    assert r.statistic == 11.0 and r.extra["n"] == 14
    assert r.pvalue == pytest.approx(2 * (364 + 91 + 14 + 1) / 2**14)
    assert r.pvalue == pytest.approx(stats.binomtest(11, 14, 0.5).pvalue)
    dropped = sign_test(C45M, C45, decimals=3, ties="drop")
    assert dropped.extra["n"] == 12 and dropped.pvalue == pytest.approx(stats.binomtest(10, 12).pvalue)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_sign_test_matches_binomtest(alternative):
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.3, 1, 25), rng.normal(0, 1, 25)
    r = sign_test(a, b, ties="drop", alternative=alternative)
    wins = int(np.sum(a > b))
    ref = stats.binomtest(wins, 25, 0.5, alternative=alternative)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    ci = ref.proportion_ci(method="exact")
    assert r.ci == pytest.approx((ci.low, ci.high)) and r.effect_size == pytest.approx(wins / 25)


def test_sign_test_odd_ties_drop_one_and_all_ties():
    r = sign_test([1, 1, 1, 2, 0], [1, 1, 1, 1, 1])
    assert r.extra["ties"] == 3 and r.statistic == 2.0 and r.extra["n"] == 4  # 1 + 1 of the 3 ties
    assert sign_test([1, 2], [1, 2]).pvalue == 1.0
    with pytest.raises(ValueError, match="ties must be"):
        sign_test([1, 2], [2, 1], ties="half")
