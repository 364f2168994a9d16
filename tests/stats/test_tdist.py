"""The Student-t helpers the t-tests and the Bayesian correlated t-test use equal scipy.stats.t bit for bit."""

import numpy as np
import pytest
from scipy import stats

from replearn.stats._tdist import t_cdf, t_ppf, t_sf


def _cases(n=400, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        df = float(rng.integers(1, 200)) if rng.random() < 0.7 else float(rng.uniform(0.5, 300))
        x = float(rng.normal() * rng.choice([0.01, 1.0, 10.0, 1e3]))
        loc = float(rng.normal() * 0.1)
        scale = float(abs(rng.normal()) * 0.05 + 1e-6)
        q = float(rng.uniform(1e-9, 1 - 1e-9))
        yield df, x, loc, scale, q


@pytest.mark.parametrize("seed", [0, 1])
def test_equal_to_scipy_stats_t(seed):
    for df, x, loc, scale, q in _cases(seed=seed):
        assert t_cdf(x, df, loc, scale) == float(stats.t.cdf(x, df, loc=loc, scale=scale))
        assert t_sf(x, df, loc, scale) == float(stats.t.sf(x, df, loc=loc, scale=scale))
        assert t_ppf(q, df, loc, scale) == float(stats.t.ppf(q, df, loc=loc, scale=scale))
        assert t_sf(x, df) == float(stats.t.sf(x, df))


@pytest.mark.parametrize("x, cdf", [(np.inf, 1.0), (-np.inf, 0.0), (0.0, 0.5)])
def test_limits(x, cdf):
    assert t_cdf(x, 3.0) == cdf
    assert t_sf(x, 3.0) == 1.0 - cdf


def test_interval_matches_scipy():
    lo, hi = (1 - 0.95) / 2, (1 + 0.95) / 2
    got = (t_ppf(lo, 9.0, 0.3, 0.02), t_ppf(hi, 9.0, 0.3, 0.02))
    assert got == tuple(float(v) for v in stats.t.interval(0.95, 9.0, loc=0.3, scale=0.02))
