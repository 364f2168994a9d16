"""``replearn.compare`` against the peer libraries on the same table (test-only references: autorank, baycomp,
scikit-posthocs, scipy, statsmodels).

Where a library implements the same procedure the numbers must agree: Friedman's statistic and p-value and the
Nemenyi critical difference (autorank, scipy), the Nemenyi and Holm adjusted p-values of the post-hoc comparisons
on the average ranks (scikit-posthocs' ``posthoc_nemenyi_friedman`` and ``posthoc_siegel_friedman``), the
Wilcoxon signed-rank p-values of every pair with Holm's correction (scipy, statsmodels) and the Bayesian
signed-rank probabilities within Monte-Carlo error (baycomp). Shaffer's and Bergmann-Hommel's procedures have no
implementation in these libraries; tests/stats/test_allpairs.py checks them against their definitions.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from replearn import compare

autorank = pytest.importorskip("autorank")
baycomp = pytest.importorskip("baycomp")
sp = pytest.importorskip("scikit_posthocs")


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """20 datasets x 5 models, the datasets differing much more than the models (the issue's shape)."""
    rng = np.random.default_rng(2026)
    base = rng.uniform(0.6, 0.95, (20, 1))
    scores = base + np.array([0.0, 0.01, 0.02, 0.03, 0.05]) + rng.normal(0, 0.015, (20, 5))
    return pd.DataFrame(scores, columns=["m1", "m2", "m3", "m4", "m5"], index=[f"d{i:02d}" for i in range(20)])


def _frame(table: pd.DataFrame) -> pd.DataFrame:
    return table.rename_axis("dataset").reset_index()


def test_friedman_statistic_pvalue_and_cd_equal_autoranks(table):
    res = compare(_frame(table), higher_is_better=True, bayesian=False)
    across = res["across_datasets"]
    from scipy import stats

    chi2, p = stats.friedmanchisquare(*[table[c].to_numpy() for c in table.columns])
    ar = autorank.autorank(table, alpha=0.05, verbose=False, force_mode="nonparametric")
    assert ar.omnibus == "friedman"
    assert across["friedman"]["statistic"] == pytest.approx(chi2, rel=1e-12)
    assert across["friedman"]["pvalue_method"] == "chi2"  # N = 20 > 10
    assert across["friedman"]["pvalue"] == pytest.approx(ar.pvalue, rel=1e-9)
    # autorank's q_alpha is statsmodels' qsturng, an interpolation of the studentized range's tables (within 1e-5);
    # replearn's is scipy's studentized_range quantile itself
    assert across["nemenyi"]["cd"] == pytest.approx(ar.cd, rel=2e-5)
    from scipy.stats import studentized_range

    q = studentized_range.ppf(0.95, 5, np.inf) / np.sqrt(2)
    assert across["nemenyi"]["cd"] == pytest.approx(q * np.sqrt(5 * 6 / (6 * 20)), rel=1e-12)
    ranks = dict(zip(ar.rankdf.index, ar.rankdf["meanrank"]))
    assert across["average_ranks"] == pytest.approx(ranks, rel=1e-12)


@pytest.mark.parametrize(("posthoc", "reference"), [("nemenyi", "nemenyi"), ("holm", "siegel_holm")])
def test_posthoc_adjusted_pvalues_equal_scikit_posthocs(table, posthoc, reference):
    res = compare(_frame(table), higher_is_better=True, posthoc=posthoc, bayesian=False)
    ph = res["across_datasets"]["posthoc"]
    assert ph["ran"] and ph["method_used"] == posthoc
    values = table.to_numpy()
    ref = (
        sp.posthoc_nemenyi_friedman(values)
        if reference == "nemenyi"
        else sp.posthoc_siegel_friedman(values, p_adjust="holm")
    ).to_numpy()
    col = {m: j for j, m in enumerate(table.columns)}
    assert len(ph["comparisons"]) == 10
    for c in ph["comparisons"]:
        assert c["pvalue_adjusted"] == pytest.approx(ref[col[c["a"]], col[c["b"]]], rel=1e-6, abs=1e-12)
    assert any(c["significant"] for c in ph["comparisons"])  # the references are compared where it matters


def test_wilcoxon_pairs_with_holm_equal_scipy_and_statsmodels(table):
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    res = compare(_frame(table), higher_is_better=True, bayesian=False)
    rows = res["across_pairs"]["rows"]
    pairs = list(itertools.combinations(sorted(table.columns), 2))
    assert [(r["model_a"], r["model_b"]) for r in rows] == pairs
    raw = [stats.wilcoxon(table[a], table[b], method="exact").pvalue for a, b in pairs]
    adjusted = multipletests(raw, method="holm")[1]
    for r, p, q in zip(rows, raw, adjusted):
        assert r["exact"] and r["pvalue"] == pytest.approx(p, rel=1e-10)
        assert r["pvalue_adjusted"] == pytest.approx(q, rel=1e-10)


def test_bayesian_signed_rank_probabilities_agree_with_baycomp_within_monte_carlo_error(table):
    res = compare(_frame(table), higher_is_better=True, rope=0.01, seed=3)
    rows = {(r["model_a"], r["model_b"]): r["bayesian_signed_rank"] for r in res["across_pairs"]["rows"]}
    n_ours, n_ref = 20000, 20000
    for a, b in [("m1", "m5"), ("m2", "m3"), ("m3", "m4")]:
        ours = rows[(a, b)]
        assert ours["n_samples"] == n_ours
        # baycomp's differences are y - x: p_left is "x (here a) better by more than the ROPE"
        left, rope, right = baycomp.SignedRankTest.probs(
            table[a].to_numpy(), table[b].to_numpy(), rope=0.01, nsamples=n_ref, random_state=11
        )
        for mine, theirs in [(ours["p_a_better"], left), (ours["p_equivalent"], rope), (ours["p_b_better"], right)]:
            p = (mine + theirs) / 2
            se = np.sqrt(max(p * (1 - p), 1e-4) * (1 / n_ours + 1 / n_ref))
            assert abs(mine - theirs) <= 5 * se, (a, b, mine, theirs)
