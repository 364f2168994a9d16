"""5x2cv t-test (Dietterich 1998) and combined F test (Alpaydin 1999): hand computation and conventions."""

import numpy as np
import pytest
from scipy import stats

from replearn.stats import cv52_ftest, cv52_ttest

# p_i^(j): differences of error rates on the 5 repeats x 2 folds (made-up numbers)
P = np.array([[0.02, 0.04], [0.01, -0.01], [0.03, 0.00], [0.05, 0.01], [-0.02, 0.02]])


def _by_hand():
    s2 = [(r[0] - r.mean()) ** 2 + (r[1] - r.mean()) ** 2 for r in P]
    # s2 = [2e-4, 2e-4, 4.5e-4, 8e-4, 8e-4]
    t = 0.02 / np.sqrt(sum(s2) / 5)
    f = np.sum(P**2) / (2 * sum(s2))
    return s2, t, f


def test_t_statistic_by_hand():
    s2, t, _ = _by_hand()
    np.testing.assert_allclose(s2, [2e-4, 2e-4, 4.5e-4, 8e-4, 8e-4], rtol=1e-10)
    r = cv52_ttest(P)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.statistic == pytest.approx(0.02 / np.sqrt(0.00245 / 5), rel=1e-12)
    assert r.df == 5.0
    assert r.pvalue == pytest.approx(2 * stats.t.sf(t, 5), rel=1e-12)
    se = np.sqrt(0.00245 / 5)
    assert r.ci == pytest.approx((0.02 - stats.t.ppf(0.975, 5) * se, 0.02 + stats.t.ppf(0.975, 5) * se))
    assert r.extra["s2"] == pytest.approx(s2)


def test_f_statistic_by_hand():
    _, _, f = _by_hand()
    r = cv52_ftest(P)
    assert r.statistic == pytest.approx(f, rel=1e-12)
    assert r.statistic == pytest.approx(0.0065 / 0.0049, rel=1e-12)
    assert r.df == (10.0, 5.0)
    assert r.pvalue == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-12)


def test_flat_split_order_and_score_pairs_are_the_same_test():
    a = np.random.default_rng(0).uniform(0.7, 0.9, 10)
    b = a - P.ravel()
    for test in (cv52_ttest, cv52_ftest):
        ref = test(P)
        assert test(P.ravel()).statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert test(a, b).statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert test(a.reshape(5, 2), b.reshape(5, 2)).pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_swapping_models():
    t_ab, t_ba = cv52_ttest(P), cv52_ttest(-P)
    assert t_ab.statistic == pytest.approx(-t_ba.statistic) and t_ab.pvalue == pytest.approx(t_ba.pvalue)
    assert cv52_ftest(P).statistic == pytest.approx(cv52_ftest(-P).statistic)
    assert cv52_ttest(P, alternative="greater").pvalue == pytest.approx(cv52_ttest(-P, alternative="less").pvalue)


def test_only_the_first_difference_enters_the_t_numerator():
    q = P.copy()
    q[1:, :] = q[1:, ::-1]  # swapping the folds of repeats 2-5 changes nothing
    assert cv52_ttest(q).statistic == pytest.approx(cv52_ttest(P).statistic)
    q = P.copy()
    q[0] = q[0, ::-1]  # swapping the first repeat's folds does
    assert cv52_ttest(q).statistic != pytest.approx(cv52_ttest(P).statistic)


def test_zero_variance_conventions():
    same = np.full((5, 2), 0.03)
    t = cv52_ttest(same)
    assert t.statistic == np.inf and t.pvalue == 0.0
    f = cv52_ftest(same)
    assert f.statistic == np.inf and f.pvalue == 0.0
    zero = np.zeros((5, 2))
    assert cv52_ttest(zero).pvalue == 1.0 and cv52_ftest(zero).pvalue == 1.0


def test_rejects_other_shapes():
    with pytest.raises(ValueError, match=r"shape \(5, 2\) or 10 values"):
        cv52_ttest(np.zeros(8))
    with pytest.raises(ValueError, match="NaN"):
        cv52_ftest(np.r_[np.zeros(9), np.nan])
