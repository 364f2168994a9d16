"""Cochran's Q against statsmodels; k = 2 is McNemar's uncorrected chi-square."""

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q

from replearn.stats import cochrans_q, mcnemar


@pytest.mark.parametrize("seed, shape", [(0, (40, 3)), (1, (25, 5)), (2, (60, 2))])
def test_matches_statsmodels(seed, shape):
    x = (np.random.default_rng(seed).random(shape) < np.linspace(0.5, 0.8, shape[1])).astype(int)
    r, ref = cochrans_q(x), sm_cochrans_q(x)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.df == ref.df


def test_two_models_is_mcnemar_chi2():
    rng = np.random.default_rng(3)
    a, b = rng.random(80) < 0.8, rng.random(80) < 0.7
    q = cochrans_q(np.column_stack([a, b]))
    m = mcnemar(a, b, method="chi2")
    assert q.statistic == pytest.approx(m.statistic) and q.pvalue == pytest.approx(m.pvalue)


def test_no_disagreement_and_column_order():
    x = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1]])
    r = cochrans_q(x)
    assert r.statistic == 0.0 and r.pvalue == 1.0 and r.extra["n_discordant_rows"] == 0
    y = np.random.default_rng(4).integers(0, 2, (30, 4))
    assert cochrans_q(y).pvalue == pytest.approx(cochrans_q(y[:, ::-1]).pvalue)
    assert cochrans_q(y).pvalue == pytest.approx(cochrans_q(y[::-1]).pvalue)


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="0/1"):
        cochrans_q([[0, 2], [1, 1]])
    with pytest.raises(ValueError, match="k >= 2"):
        cochrans_q([[0], [1]])
