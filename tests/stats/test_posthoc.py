"""Friedman post-hoc tests on average ranks: Demsar's (2006) Holm example, Nemenyi = CD, invariants."""

import numpy as np
import pytest

from replearn.stats import friedman_posthoc, nemenyi_cd, rank_scores

from .test_friedman import DEMSAR_AUC, NAMES


def _paper_rank_matrix():
    ranks = rank_scores(DEMSAR_AUC)
    ranks[3, 2] = ranks[3, 3] = 2.5  # the paper's average ranks 3.143 / 2.000 / 2.893 / 1.964
    return ranks


def test_demsar_comparisons_with_control_c45_holm():
    r = friedman_posthoc(_paper_rank_matrix(), names=NAMES, control="C4.5", method="holm", higher_is_better=False)
    rows = {c["b"]: c for c in r.comparisons}
    se = np.sqrt(4 * 5 / (6 * 14))
    assert se == pytest.approx(0.488, abs=5e-4)
    # Demsar section 3.2.2: z = (3.143 - 2.000) / 0.488 = 2.342 etc.; p = 0.019, 0.016, 0.607
    # (z is positive when the first model, here the control, ranks better: C4.5 ranks worse)
    assert rows["C4.5+m"]["z"] == pytest.approx(-2.342, abs=2e-3)
    assert rows["C4.5+m+cf"]["z"] == pytest.approx(-2.416, abs=2e-3)
    assert rows["C4.5+cf"]["z"] == pytest.approx(-0.512, abs=2e-3)
    assert rows["C4.5+m"]["pvalue"] == pytest.approx(0.019, abs=1e-3)
    assert rows["C4.5+m+cf"]["pvalue"] == pytest.approx(0.016, abs=1e-3)
    assert rows["C4.5+cf"]["pvalue"] == pytest.approx(0.607, abs=2e-3)
    # Holm rejects the first two (0.016 < 0.05/3, 0.019 < 0.05/2), not C4.5+cf
    assert [rows[n]["significant"] for n in ("C4.5+m+cf", "C4.5+m", "C4.5+cf")] == [True, True, False]
    bd = friedman_posthoc(
        _paper_rank_matrix(), names=NAMES, control="C4.5", method="bonferroni_dunn", higher_is_better=False
    )
    assert {c["b"]: c["pvalue_adjusted"] for c in bd.comparisons}["C4.5+m"] == pytest.approx(
        3 * rows["C4.5+m"]["pvalue"]
    )


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_nemenyi_adjusted_pvalues_agree_with_the_critical_difference(alpha):
    r = friedman_posthoc(DEMSAR_AUC, names=NAMES, method="nemenyi", alpha=alpha)
    cd = nemenyi_cd(4, 14, alpha)
    for c in r.comparisons:
        assert c["significant"] == (abs(c["rank_difference"]) >= cd)


@pytest.mark.parametrize("method", ["holm", "shaffer", "bergmann_hommel", "hommel", "nemenyi"])
def test_invariant_under_reordering_datasets(method):
    perm = np.random.default_rng(0).permutation(14)
    r1 = friedman_posthoc(DEMSAR_AUC, names=NAMES, method=method)
    r2 = friedman_posthoc(DEMSAR_AUC[perm], names=NAMES, method=method)
    assert [c["pvalue_adjusted"] for c in r1.comparisons] == pytest.approx(
        [c["pvalue_adjusted"] for c in r2.comparisons]
    )


def test_power_order_and_effect_size_orientation():
    get = lambda m: np.array([c["pvalue_adjusted"] for c in friedman_posthoc(DEMSAR_AUC, method=m).comparisons])  # noqa: E731
    assert np.all(get("bergmann_hommel") <= get("shaffer") + 1e-15)
    assert np.all(get("shaffer") <= get("holm") + 1e-15)
    better = friedman_posthoc(DEMSAR_AUC, names=NAMES).comparisons[0]  # C4.5 vs C4.5+m: C4.5+m is better
    assert better["rank_difference"] < 0 and better["z"] < 0
    assert better["rank_biserial"] < 0 and better["cliffs_delta"] < 0
    flipped = friedman_posthoc(-DEMSAR_AUC, names=NAMES, higher_is_better=False).comparisons[0]
    assert flipped["rank_biserial"] == pytest.approx(better["rank_biserial"])
    assert flipped["z"] == pytest.approx(better["z"])


def test_rejects_bad_combinations():
    with pytest.raises(ValueError, match="not for comparisons with a control"):
        friedman_posthoc(DEMSAR_AUC, names=NAMES, control="C4.5", method="shaffer")
    with pytest.raises(ValueError, match="not for all pairwise"):
        friedman_posthoc(DEMSAR_AUC, method="bonferroni_dunn")
    with pytest.raises(ValueError, match="control 'J48' is not one of"):
        friedman_posthoc(DEMSAR_AUC, names=NAMES, control="J48")
    with pytest.raises(ValueError, match="4 distinct model names"):
        friedman_posthoc(DEMSAR_AUC, names=NAMES[:3])
