"""The minimum detectable effect printed on every "not significant" (stats/power.py, issue 39)."""

import numpy as np
import pytest
from scipy import stats as sps

from replearn import stats


def test_the_large_sample_limit_is_z_plus_z():
    expected = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)  # 2.80 standard errors
    assert stats.detectable_difference(1.0, np.inf) == pytest.approx(expected, rel=1e-3)
    assert stats.detectable_difference(0.02, 1e6) == pytest.approx(0.02 * expected, rel=1e-3)


@pytest.mark.parametrize("df", [2.0, 4.5, 12.0, 60.0])
def test_the_power_at_the_detectable_difference_is_the_asked_power(df):
    mde = stats.detectable_difference(0.03, df, alpha=0.025, power=0.8)
    assert stats.t_power(mde, 0.03, df, alpha=0.025) == pytest.approx(0.8, abs=1e-6)
    # a Monte-Carlo check of the noncentral t: the two-sided t-test at the detectable difference
    rng = np.random.default_rng(int(df))
    t = (mde + 0.03 * rng.standard_normal(20000)) / (0.03 * np.sqrt(rng.chisquare(df, 20000) / df))
    assert np.mean(np.abs(t) > sps.t.ppf(1 - 0.0125, df)) == pytest.approx(0.8, abs=0.015)


def test_fewer_degrees_of_freedom_and_lower_levels_need_larger_differences():
    assert stats.detectable_difference(1.0, 3) > stats.detectable_difference(1.0, 30)
    assert stats.detectable_difference(1.0, 30, alpha=0.01) > stats.detectable_difference(1.0, 30, alpha=0.05)
    assert stats.detectable_difference(0.0, 10) == 0.0


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        stats.detectable_difference(np.nan, 10)
    with pytest.raises(ValueError):
        stats.detectable_difference(1.0, 0)
    with pytest.raises(ValueError):
        stats.detectable_difference(1.0, 10, alpha=0.9, power=0.8)
