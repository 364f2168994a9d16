"""McNemar's test against statsmodels (reference only) and hand numbers."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from replearn.stats import mcnemar


def _vectors(n00, n01, n10, n11):
    """Per-example correctness of A and B with the given 2x2 counts (n_ij: A==i, B==j)."""
    a = np.array([0] * n00 + [0] * n01 + [1] * n10 + [1] * n11, dtype=bool)
    b = np.array([0] * n00 + [1] * n01 + [0] * n10 + [1] * n11, dtype=bool)
    return a, b


TABLES = [(10, 3, 12, 75), (5, 0, 7, 40), (20, 15, 9, 56), (1, 30, 2, 3)]


@pytest.mark.parametrize("table", TABLES)
def test_exact_matches_statsmodels(table):
    a, b = _vectors(*table)
    ref = sm_mcnemar([[table[0], table[1]], [table[2], table[3]]], exact=True)
    r = mcnemar(a, b, method="exact")
    assert r.statistic == ref.statistic
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("correction", [False, True])
def test_chi2_matches_statsmodels(table, correction):
    a, b = _vectors(*table)
    ref = sm_mcnemar([[table[0], table[1]], [table[2], table[3]]], exact=False, correction=correction)
    r = mcnemar(a, b, method="chi2_cc" if correction else "chi2")
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.df == 1


def test_midp_hand_value():
    a, b = _vectors(0, 3, 12, 0)
    # 2 P(X <= 3) - P(X = 3), X ~ Bin(15, 1/2)
    expected = 2 * stats.binom.cdf(3, 15, 0.5) - stats.binom.pmf(3, 15, 0.5)
    r = mcnemar(a, b, method="midp")
    assert r.pvalue == pytest.approx(expected, rel=1e-12)
    assert r.pvalue < mcnemar(a, b, method="exact").pvalue


def test_counts_direction_and_accuracies():
    a, b = _vectors(10, 3, 12, 75)
    r = mcnemar(a, b)
    assert (r.extra["n00"], r.extra["n01"], r.extra["n10"], r.extra["n11"]) == (10, 3, 12, 75)
    assert r.conventions["n01"] == "A wrong, B right"
    assert r.extra["accuracy_a"] == pytest.approx(0.87) and r.extra["accuracy_b"] == pytest.approx(0.78)
    assert r.effect_size == pytest.approx(0.09)
    swapped = mcnemar(b, a)
    assert swapped.extra["n01"] == 12 and swapped.pvalue == pytest.approx(r.pvalue)
    assert swapped.effect_size == pytest.approx(-0.09)


@pytest.mark.parametrize("method", ["exact", "midp", "chi2", "chi2_cc"])
def test_no_discordant_pairs_gives_p_one(method):
    a = np.array([1, 1, 0, 1], dtype=bool)
    r = mcnemar(a, a.copy(), method=method)
    assert (r.statistic, r.pvalue) == (0.0, 1.0)


def test_continuity_correction_is_zero_when_counts_are_equal():
    # statsmodels gives (|b - c| - 1)^2 / (b + c) = 0.1 here; Edwards' correction is max(0, .)
    a, b = _vectors(3, 5, 5, 7)
    r = mcnemar(a, b, method="chi2_cc")
    assert r.statistic == 0.0 and r.pvalue == 1.0


def test_accepts_zero_one_integers_and_rejects_bad_input():
    a, b = _vectors(2, 4, 9, 5)
    assert mcnemar(a.astype(int), b.astype(float)).pvalue == mcnemar(a, b).pvalue
    with pytest.raises(ValueError, match="method must be one of"):
        mcnemar(a, b, method="fisher")
    with pytest.raises(ValueError, match="booleans or 0/1"):
        mcnemar([0, 2, 1], [1, 1, 0])
    with pytest.raises(ValueError, match="same test examples"):
        mcnemar([0, 1, 1], [1, 1])


def test_to_dict_round_trip():
    a, b = _vectors(10, 3, 12, 75)
    d = mcnemar(a, b, method="chi2").to_dict()
    assert d["test"] == "mcnemar" and d["df"] == 1.0 and d["extra"]["n10"] == 12
