"""Bootstrap intervals (same draws as SciPy), CIML Alg. 10, and the paired bootstrap test."""

import numpy as np
import pytest
from scipy import stats

from replearn.evaluation import f1
from replearn.stats import bootstrap_ci, bootstrap_indices, bootstrap_metric, paired_bootstrap_test

X = np.random.default_rng(5).exponential(size=37)
Y = X + np.random.default_rng(6).normal(size=37)


def test_indices_are_the_documented_draws():
    np.testing.assert_array_equal(bootstrap_indices(9, 4, 11), np.random.default_rng(11).integers(0, 9, (4, 9)))


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_matches_scipy_bootstrap_with_the_same_generator(method, alternative):
    ours = bootstrap_ci(X, "mean", n_resamples=1999, method=method, seed=3, alternative=alternative, confidence=0.9)
    ref = stats.bootstrap(
        (X,),
        np.mean,
        n_resamples=1999,
        method=method,
        confidence_level=0.9,
        alternative=alternative,
        rng=np.random.default_rng(3),
    )
    np.testing.assert_allclose(ours.ci, (ref.confidence_interval.low, ref.confidence_interval.high), rtol=1e-12)
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
    np.testing.assert_allclose(ours.distribution, ref.bootstrap_distribution, rtol=1e-14)
    assert ours.estimate == pytest.approx(X.mean())


def test_paired_samples_and_non_vectorized_statistic_match_scipy():
    def corr(a, b):
        return np.corrcoef(a, b)[0, 1]

    ours = bootstrap_ci((X, Y), corr, n_resamples=400, seed=1)
    ref = stats.bootstrap((X, Y), corr, paired=True, vectorized=False, n_resamples=400, rng=np.random.default_rng(1))
    np.testing.assert_allclose(ours.ci, (ref.confidence_interval.low, ref.confidence_interval.high), rtol=1e-10)
    assert ours.conventions["paired_samples"] == 2


def test_reproducible_and_seed_recorded():
    a = bootstrap_ci(X, "median", n_resamples=300, seed=8)
    b = bootstrap_ci(X, "median", n_resamples=300, seed=8)
    assert a.ci == b.ci and a.seed == 8 and a.n_resamples == 300
    assert bootstrap_ci(X, "median", n_resamples=300, seed=9).ci != a.ci
    d = a.to_dict()
    assert "distribution" not in d and len(a.to_dict(distribution=True)["distribution"]) == 300


def test_degenerate_bca_gives_nan_with_a_warning():
    with pytest.warns(RuntimeWarning, match="degenerate"):
        r = bootstrap_ci(np.ones(10), n_resamples=50)
    assert np.isnan(r.ci[0]) and np.isnan(r.ci[1])


def test_ciml_bootstrap_evaluate_of_a_non_decomposable_metric():
    rng = np.random.default_rng(0)
    yt = rng.integers(0, 2, 200)
    yp = np.where(rng.random(200) < 0.8, yt, 1 - yt)
    r = bootstrap_metric(yt, yp, "f1", n_resamples=100, seed=4)
    idx = np.random.default_rng(4).integers(0, 200, (100, 200))
    by_hand = np.array([f1(yt[i], yp[i]) for i in idx])  # CIML Alg. 10: F on each resample
    assert r.extra["mean"] == pytest.approx(by_hand.mean()) and r.extra["std"] == pytest.approx(by_hand.std(ddof=1))
    assert r.estimate == pytest.approx(f1(yt, yp)) and r.method == "percentile" and r.n_resamples == 100
    np.testing.assert_allclose(r.ci, np.quantile(by_hand, [0.025, 0.975]))
    callable_metric = bootstrap_metric(yt, yp, lambda a, b: f1(a, b), n_resamples=100, seed=4)
    assert callable_metric.extra["mean"] == pytest.approx(r.extra["mean"])


def test_paired_bootstrap_test_by_hand():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.2, 1, 30), rng.normal(0, 1, 30)
    r = paired_bootstrap_test(a, b, n_resamples=999, seed=5)
    idx = np.random.default_rng(5).integers(0, 30, (999, 30))
    delta = a.mean() - b.mean()
    star = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    assert r.statistic == pytest.approx(delta)
    assert r.pvalue == pytest.approx((1 + np.sum(np.abs(star - delta) >= abs(delta))) / 1000)
    greater = paired_bootstrap_test(a, b, n_resamples=999, seed=5, alternative="greater")
    assert greater.pvalue == pytest.approx((1 + np.sum(star - delta >= delta)) / 1000)
    swapped = paired_bootstrap_test(b, a, n_resamples=999, seed=5)
    assert swapped.pvalue == pytest.approx(r.pvalue) and swapped.statistic == pytest.approx(-delta)


def test_paired_bootstrap_on_predictions_with_a_metric():
    rng = np.random.default_rng(3)
    yt = rng.integers(0, 2, 80)
    pa = np.where(rng.random(80) < 0.9, yt, 1 - yt)
    pb = np.where(rng.random(80) < 0.6, yt, 1 - yt)
    r = paired_bootstrap_test(pa, pb, y_true=yt, metric="f1", n_resamples=199, seed=0)
    assert r.statistic == pytest.approx(f1(yt, pa) - f1(yt, pb))
    assert 0 < r.pvalue <= 0.05 and r.ci[0] > 0
    with pytest.raises(ValueError, match="pass metric="):
        paired_bootstrap_test(pa, pb, y_true=yt)


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        bootstrap_ci(X, method="studentized")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        bootstrap_ci(X, seed=-1)
    with pytest.raises(ValueError, match="same length"):
        bootstrap_ci((X, X[:-1]))
    with pytest.raises(ValueError, match="unknown statistic"):
        bootstrap_ci(X, "mode")
