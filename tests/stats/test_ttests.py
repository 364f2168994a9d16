"""Paired and corrected resampled t-tests (vs SciPy and hand numbers), effect sizes, TestResult."""

import json

import numpy as np
import pytest
from scipy import stats

from replearn.evaluation import make_splits
from replearn.stats import (
    TestResult,
    cliffs_delta,
    cohens_dz,
    corrected_resampled_ttest,
    paired_ttest,
    rank_biserial,
)

# CIML L1642-1650: 5-fold F-scores
CIML_FOLDS = np.array([92.4, 93.9, 96.1, 92.2, 94.4])


@pytest.fixture
def pair():
    rng = np.random.default_rng(0)
    a = rng.normal(0.80, 0.03, size=12)
    b = a - rng.normal(0.01, 0.02, size=12)
    return a, b


# ----------------------------------------------------------------------------- paired t
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_paired_matches_scipy_ttest_rel(pair, alternative):
    a, b = pair
    ours = paired_ttest(a, b, alternative=alternative, confidence=0.9)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert ours.df == ref.df == 11
    lo, hi = ref.confidence_interval(confidence_level=0.9)
    np.testing.assert_allclose(ours.ci, (lo, hi), rtol=1e-12)
    assert ours.alternative == alternative


def test_paired_is_ciml_eq_5_15(pair):
    a, b = pair
    ah, bh = a - a.mean(), b - b.mean()
    n = a.size
    t = (a.mean() - b.mean()) * np.sqrt(n * (n - 1) / np.sum((ah - bh) ** 2))
    assert paired_ttest(a, b).statistic == pytest.approx(t, rel=1e-12)


def test_ciml_fold_example_standard_deviation():
    # CIML eq. 5.16-5.18: sigma = 1.595 for the five fold scores (mean 93.8)
    r = paired_ttest(CIML_FOLDS, np.zeros(5))
    assert r.extra["mean_difference"] == pytest.approx(93.8)
    assert r.extra["sd_difference"] == pytest.approx(1.5953, abs=1e-4)


# ----------------------------------------------------------------------------- corrected t
def test_corrected_hand_computed():
    a = np.array([0.82, 0.85, 0.80, 0.84, 0.83])
    b = np.array([0.80, 0.82, 0.81, 0.80, 0.81])
    # d = [0.02, 0.03, -0.01, 0.04, 0.02]; mean 0.02; var (ddof 1) = 0.00035
    r = corrected_resampled_ttest(a, b, n_train=80, n_test=20)
    se = np.sqrt((1 / 5 + 20 / 80) * 0.00035)
    assert r.extra["mean_difference"] == pytest.approx(0.02, abs=1e-14)
    assert r.extra["sd_difference"] ** 2 == pytest.approx(0.00035, rel=1e-10)
    assert r.statistic == pytest.approx(0.02 / se, rel=1e-10)
    assert r.statistic == pytest.approx(1.5936381457791915, rel=1e-10)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(0.02 / se, 4), rel=1e-10)
    assert r.df == 4
    half = stats.t.ppf(0.975, 4) * se
    np.testing.assert_allclose(r.ci, (0.02 - half, 0.02 + half), rtol=1e-10)
    assert r.effect_size == pytest.approx(0.02 / np.sqrt(0.00035), rel=1e-10)
    assert r.effect_size_name == "cohens_dz"
    assert r.conventions["variance_correction"] == "1/J + n_test/n_train"
    assert r.conventions["n_test_over_n_train"] == pytest.approx(0.25)


def test_corrected_reduces_to_paired_with_a_different_variance_factor(pair):
    a, b = pair
    j = a.size
    plain = paired_ttest(a, b)
    corr = corrected_resampled_ttest(a, b, n_train=90, n_test=10)
    factor = (1 / j + 10 / 90) / (1 / j)
    assert corr.statistic == pytest.approx(plain.statistic / np.sqrt(factor), rel=1e-12)
    assert abs(corr.statistic) < abs(plain.statistic) and corr.pvalue > plain.pvalue
    assert corr.effect_size == pytest.approx(plain.effect_size, rel=1e-12)


def test_corrected_per_split_sizes_use_the_mean_ratio(pair):
    a, b = pair
    n_test = np.array([10, 11] * 6)
    n_train = 105 - n_test
    r = corrected_resampled_ttest(a, b, n_train, n_test)
    ratio = np.mean(n_test / n_train)
    assert r.conventions["n_test_over_n_train"] == pytest.approx(ratio, rel=1e-12)
    expected = corrected_resampled_ttest(a, b, n_train=1.0, n_test=ratio)
    assert r.statistic == pytest.approx(expected.statistic, rel=1e-12)


@pytest.mark.parametrize("test", ["paired", "corrected"])
def test_swapping_a_and_b_negates_statistic_keeps_p(pair, test):
    a, b = pair
    f = paired_ttest if test == "paired" else lambda x, y, **kw: corrected_resampled_ttest(x, y, 90, 10, **kw)
    ab, ba = f(a, b), f(b, a)
    assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-12)
    assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-12)
    assert 0 <= ab.pvalue <= 1
    # one-sided: "greater" for (a, b) is "less" for (b, a), and the two one-sided p add to 1
    g, l_ = f(a, b, alternative="greater"), f(a, b, alternative="less")
    assert f(b, a, alternative="less").pvalue == pytest.approx(g.pvalue, rel=1e-12)
    assert g.pvalue + l_.pvalue == pytest.approx(1.0, abs=1e-12)
    assert min(g.pvalue, l_.pvalue) == pytest.approx(ab.pvalue / 2, rel=1e-12)
    assert g.ci[1] == np.inf and l_.ci[0] == -np.inf


def test_zero_variance_conventions():
    same = corrected_resampled_ttest([0.8, 0.9, 0.7], [0.8, 0.9, 0.7], 90, 10)
    assert (same.statistic, same.pvalue, same.effect_size) == (0.0, 1.0, 0.0)
    assert corrected_resampled_ttest([0.8, 0.9, 0.7], [0.8, 0.9, 0.7], 90, 10, alternative="greater").pvalue == 1.0
    up = corrected_resampled_ttest([1.0, 2.0, 3.0], [0.5, 1.5, 2.5], 90, 10)
    assert up.statistic == np.inf and up.pvalue == 0.0 and up.effect_size == np.inf
    assert corrected_resampled_ttest([1.0, 2.0, 3.0], [0.5, 1.5, 2.5], 90, 10, alternative="less").pvalue == 1.0
    down = paired_ttest([0.5, 1.5, 2.5], [1.0, 2.0, 3.0])
    assert down.statistic == -np.inf and down.pvalue == 0.0


def test_input_errors():
    with pytest.raises(ValueError, match="same length"):
        paired_ttest([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least 2 pairs"):
        paired_ttest([1.0], [2.0])
    with pytest.raises(ValueError, match="NaN"):
        paired_ttest([1.0, np.nan], [2.0, 1.0])
    with pytest.raises(ValueError, match="alternative must be one of"):
        paired_ttest([1.0, 2.0], [2.0, 1.0], alternative="bigger")
    with pytest.raises(ValueError, match="confidence must lie in"):
        paired_ttest([1.0, 2.0], [2.0, 1.0], confidence=95)
    with pytest.raises(ValueError, match="n_train must be positive"):
        corrected_resampled_ttest([1.0, 2.0], [2.0, 1.0], 0, 10)
    with pytest.raises(ValueError, match="one entry per split"):
        corrected_resampled_ttest([1.0, 2.0], [2.0, 1.0], [90, 90, 90], 10)


def test_plain_t_rejects_too_often_on_repeated_cv_corrected_holds_its_level():
    """Null simulation: two equally good learners scored by 5 x 10-fold CV on 150 data sets.

    y = x1 + x2 + noise; learner A regresses y on x1 only, learner B on x2 only, so by symmetry
    their expected errors are equal and H0 is true.  The 50 split scores share training data
    (and every example is tested 5 times), so the plain paired t-test rejects far more often
    than 5%; the corrected test stays near its level (Bouckaert & Frank 2004).
    """
    rng = np.random.default_rng(42)
    n, k, runs = 40, 10, 150
    splits = make_splits("repeated_kfold", np.zeros(n), folds=k, repeats=5, seed=0)
    rej_plain = rej_corr = 0
    for _ in range(runs):
        X = rng.normal(size=(n, 2))
        y = X.sum(axis=1) + rng.normal(size=n)
        sa, sb = [], []
        for s in splits:
            xa, xb, yt = X[s.train, 0], X[s.train, 1], y[s.train]
            ba, bb = xa @ yt / (xa @ xa), xb @ yt / (xb @ xb)
            sa.append(np.mean((y[s.test] - ba * X[s.test, 0]) ** 2))
            sb.append(np.mean((y[s.test] - bb * X[s.test, 1]) ** 2))
        rej_plain += paired_ttest(sa, sb).pvalue < 0.05
        rej_corr += corrected_resampled_ttest(sa, sb, n - n // k, n // k).pvalue < 0.05
    assert rej_plain / runs > 0.25
    assert rej_corr / runs < 0.10


# ----------------------------------------------------------------------------- effect sizes
def test_cohens_dz(pair):
    a, b = pair
    d = a - b
    assert cohens_dz(a, b) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert cohens_dz(a, b) == pytest.approx(stats.ttest_rel(a, b).statistic / np.sqrt(a.size), rel=1e-12)
    assert cohens_dz([1.0, 2.0], [1.0, 2.0]) == 0.0


def test_rank_biserial_hand_example_and_wilcoxon():
    a = np.array([5.0, 3.0, 4.0, 6.0, 2.0, 7.0])
    b = np.array([3.0, 4.0, 4.0, 2.0, 2.5, 4.0])
    # d = [2, -1, 0, 4, -0.5, 3]; drop 0; |d| ranks: 0.5->1, 1->2, 2->3, 3->4, 4->5
    # R+ = 3 + 5 + 4 = 12, R- = 2 + 1 = 3 -> (12 - 3) / 15
    assert rank_biserial(a, b) == pytest.approx(0.6)
    r_plus = stats.wilcoxon(a, b, zero_method="wilcox", alternative="greater").statistic
    assert rank_biserial(a, b) == pytest.approx((2 * r_plus - 15) / 15)
    assert rank_biserial([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert rank_biserial(b, a) == pytest.approx(-0.6)


def test_cliffs_delta_matches_brute_force():
    rng = np.random.default_rng(9)
    a = np.round(rng.normal(size=13), 1)
    b = np.round(rng.normal(0.3, size=9), 1)
    brute = np.mean(np.sign(a[:, None] - b[None, :]))
    assert cliffs_delta(a, b) == pytest.approx(brute, abs=1e-12)
    assert cliffs_delta([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]) == pytest.approx(-5 / 9)
    assert cliffs_delta([10.0, 11.0], [1.0, 2.0, 3.0]) == 1.0


# ----------------------------------------------------------------------------- TestResult
def test_result_to_dict_is_json_ready(pair):
    a, b = pair
    r = paired_ttest(a, b, alternative="greater")
    d = r.to_dict()
    assert set(d) == {
        "test",
        "statistic",
        "pvalue",
        "df",
        "effect_size",
        "effect_size_name",
        "ci",
        "alternative",
        "conventions",
        "extra",
    }
    assert d["ci"][1] == "inf" and type(d["statistic"]) is float
    json.dumps(d, allow_nan=False)
    odd = TestResult("x", np.float64(np.nan), np.float32(0.5), df=(np.int64(2), 3), extra={"a": np.arange(2)})
    assert odd.to_dict()["statistic"] is None
    assert odd.to_dict()["df"] == [2, 3] and odd.to_dict()["extra"] == {"a": [0, 1]}
    assert type(odd.to_dict()["pvalue"]) is float
