"""Friedman / Iman-Davenport test and Nemenyi analysis: SciPy and Demsar (2006) numbers."""

import numpy as np
import pytest
from scipy import stats

from replearn.stats import friedman, nemenyi_cd, nemenyi_cliques, nemenyi_pairwise, nemenyi_q, rank_scores

# Demsar (2006), Table 6: AUC of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf on 14 UCI data sets (rows).
NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = np.array(
    [
        [0.763, 0.768, 0.771, 0.798],
        [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898],
        [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685],
        [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962],
        [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975],
        [0.957, 0.978, 0.946, 0.970],
    ]
)
PAPER_RANKS = {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}


# ----------------------------------------------------------------------------- Friedman
@pytest.mark.parametrize("seed, shape", [(0, (10, 3)), (1, (7, 5)), (2, (25, 4))])
def test_tie_corrected_matches_scipy(seed, shape):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=shape), 0)  # coarse rounding: many ties
    r = friedman(scores, tie_correction=True, exact=False)
    ref = stats.friedmanchisquare(*scores.T)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.chi2_pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.df == shape[1] - 1


def test_without_ties_correction_changes_nothing():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(9, 4))
    assert friedman(scores).statistic == pytest.approx(friedman(scores, tie_correction=True).statistic, rel=1e-12)
    assert friedman(scores).statistic == pytest.approx(stats.friedmanchisquare(*scores.T).statistic, rel=1e-12)


def test_demsar_table_6_ranks_and_statistics():
    r = friedman(DEMSAR_AUC)
    avg = r.extra["average_ranks"]
    # the printed 3-decimal table gives exactly these ranks ...
    np.testing.assert_allclose(avg, [44 / 14, 28 / 14, 41 / 14, 27 / 14], rtol=1e-12)
    # ... which are the paper's up to half a rank moved between C4.5+cf and C4.5+m+cf on one
    # data set (a tie at the paper's full precision, presumably)
    np.testing.assert_allclose(avg, list(PAPER_RANKS.values()), atol=0.04)
    assert r.extra["df_f"] == [3, 39]
    assert r.extra["n_datasets"] == 14 and r.extra["k_models"] == 4
    # Demsar: F(3, 39) critical value at 0.05 is 2.85 and the null hypothesis is rejected
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.01)
    assert r.extra["f_statistic"] > 2.85 and r.extra["f_pvalue"] < 0.05


def test_demsar_chi2_and_iman_davenport_from_the_paper_ranks():
    # rank matrix of Table 6 with the paper's average ranks (row 3 ranks C4.5+cf and C4.5+m+cf level)
    ranks = rank_scores(DEMSAR_AUC)
    ranks[3, 2] = ranks[3, 3] = 2.5
    np.testing.assert_allclose(ranks.mean(axis=0), list(PAPER_RANKS.values()), atol=5e-4)
    r = friedman(ranks, higher_is_better=False)
    assert r.statistic == pytest.approx(9.28, abs=0.005)
    assert r.extra["f_statistic"] == pytest.approx(3.69, abs=0.005)
    # the F_F formula on the published pair itself
    chi2 = 9.28
    assert (14 - 1) * chi2 / (14 * (4 - 1) - chi2) == pytest.approx(3.69, abs=0.005)
    assert r.extra["f_statistic"] == pytest.approx(13 * r.statistic / (42 - r.statistic), rel=1e-12)
    assert r.extra["f_pvalue"] == pytest.approx(stats.f.sf(r.extra["f_statistic"], 3, 39), rel=1e-12)
    assert r.effect_size == pytest.approx(r.statistic / (14 * 3), rel=1e-12)
    assert r.effect_size_name == "kendall_w"


def test_invariant_to_dataset_order_and_score_direction():
    rng = np.random.default_rng(4)
    scores = np.round(rng.normal(size=(12, 5)), 1)
    base = friedman(scores, tie_correction=True)
    shuffled = friedman(scores[rng.permutation(12)], tie_correction=True)
    assert shuffled.statistic == pytest.approx(base.statistic, rel=1e-12)
    for key in ("f_statistic", "f_pvalue", "tie_factor"):
        assert shuffled.extra[key] == pytest.approx(base.extra[key], rel=1e-12)
    assert shuffled.extra["average_ranks"] == pytest.approx(base.extra["average_ranks"], rel=1e-12)
    assert shuffled.pvalue == pytest.approx(base.pvalue, rel=1e-12)
    flipped = friedman(-scores, higher_is_better=False, tie_correction=True)
    assert flipped.extra["average_ranks"] == pytest.approx(base.extra["average_ranks"])
    lower = friedman(scores, higher_is_better=False)
    np.testing.assert_allclose(lower.extra["average_ranks"], 6 - np.array(base.extra["average_ranks"]))
    assert lower.statistic == pytest.approx(friedman(scores).statistic, rel=1e-12)


def test_rank_1_is_best_and_ties_share_ranks():
    r = rank_scores([[0.9, 0.8, 0.8, 0.7], [1, 2, 3, 4]])
    np.testing.assert_array_equal(r[0], [1, 2.5, 2.5, 4])
    np.testing.assert_array_equal(rank_scores([[0.1, 0.3, 0.2], [1, 2, 3]], higher_is_better=False)[0], [1, 3, 2])


def test_degenerate_cases():
    tied = friedman(np.ones((5, 3)), tie_correction=True)
    assert (tied.statistic, tied.pvalue, tied.extra["f_statistic"], tied.extra["f_pvalue"]) == (0.0, 1.0, 0.0, 1.0)
    assert friedman(np.ones((5, 3))).statistic == 0.0
    same_order = friedman(np.tile([3.0, 2.0, 1.0], (6, 1)))
    assert same_order.statistic == pytest.approx(6 * 2)  # the maximum N (k - 1)
    assert same_order.extra["f_statistic"] == np.inf and same_order.extra["f_pvalue"] == 0.0
    assert same_order.effect_size == pytest.approx(1.0)
    d = same_order.to_dict()
    assert d["extra"]["f_statistic"] == "inf"


def test_friedman_errors():
    with pytest.raises(ValueError, match="at least 2 data sets"):
        friedman(np.ones((1, 3)))
    with pytest.raises(ValueError, match="at least 2 models"):
        friedman(np.ones((4, 1)))
    with pytest.raises(ValueError, match="2-D"):
        friedman(np.ones(4))
    with pytest.raises(ValueError, match="data set 1, model 0"):
        friedman([[1.0, 2.0], [np.nan, 1.0]])


# ----------------------------------------------------------------------------- Nemenyi
def test_q_alpha_matches_demsar_table_5():
    table = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), table):
        assert nemenyi_q(k, 0.05) == pytest.approx(q, abs=1e-3)
    # alpha = 0.10 row, k = 2, 4, 10
    for k, q in [(2, 1.645), (4, 2.291), (10, 2.920)]:
        assert nemenyi_q(k, 0.10) == pytest.approx(q, abs=1e-3)


def test_critical_difference_demsar_example():
    assert nemenyi_cd(4, 14) == pytest.approx(1.25, abs=0.005)
    assert nemenyi_cd(4, 14, alpha=0.10) == pytest.approx(1.12, abs=0.005)
    assert nemenyi_cd(4, 14) == pytest.approx(nemenyi_q(4) * np.sqrt(20 / 84), rel=1e-12)


def test_cliques_demsar_example():
    # alpha = 0.05: even best vs worst (1.179) is below CD = 1.25: one group
    assert nemenyi_cliques(PAPER_RANKS, nemenyi_cd(4, 14)) == [["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]]
    # alpha = 0.10 (CD = 1.12): C4.5 is worse than C4.5+m and C4.5+m+cf; C4.5+cf is in both groups
    assert nemenyi_cliques(PAPER_RANKS, nemenyi_cd(4, 14, 0.10)) == [
        ["C4.5+m+cf", "C4.5+m", "C4.5+cf"],
        ["C4.5+cf", "C4.5"],
    ]


def test_cliques_hand_example():
    ranks = {"a": 1.0, "b": 1.5, "c": 2.2, "d": 3.0, "e": 4.6}
    # cd = 1.3: from a the run reaches c (2.2 - 1.0 = 1.2 < 1.3); from b it also ends at c (nested);
    # from c it reaches d (0.8); from d nothing (4.6 - 3.0 = 1.6); e is alone
    assert nemenyi_cliques(ranks, 1.3) == [["a", "b", "c"], ["c", "d"]]
    # sequence input: names are positions; a difference equal to cd is significant (not grouped)
    assert nemenyi_cliques([2.0, 1.0, 3.0], 1.0) == []
    assert nemenyi_cliques([2.0, 1.0, 3.0], 1.01) == [[1, 0], [0, 2]]
    assert nemenyi_cliques([2.0, 1.0, 3.0], 5.0) == [[1, 0, 2]]
    for group in nemenyi_cliques(ranks, 1.3):
        assert max(ranks[g] for g in group) - min(ranks[g] for g in group) < 1.3


def test_cliques_are_maximal_and_not_nested():
    rng = np.random.default_rng(5)
    for _ in range(20):
        r = np.sort(rng.uniform(1, 6, size=6))
        cd = rng.uniform(0.3, 2.5)
        groups = nemenyi_cliques(r, cd)
        for g in groups:
            assert r[g[-1]] - r[g[0]] < cd
            for h in groups:
                assert g is h or not set(g) <= set(h)
        # every pair closer than cd shares a group
        for i in range(6):
            for j in range(i + 1, 6):
                if r[j] - r[i] < cd:
                    assert any(i in g and j in g for g in groups)


def test_pairwise_pvalues():
    p = nemenyi_pairwise(PAPER_RANKS, 14)
    assert p.shape == (4, 4)
    np.testing.assert_allclose(p, p.T)
    np.testing.assert_array_equal(np.diag(p), 1.0)
    z = abs(3.143 - 1.964) / np.sqrt(4 * 5 / (6 * 14))
    assert p[0, 3] == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)
    # C4.5 vs C4.5+m: unadjusted p < 0.05 although Nemenyi's CD does not separate them
    assert p[0, 1] < 0.05 and abs(3.143 - 2.000) < nemenyi_cd(4, 14)


def test_nemenyi_errors():
    with pytest.raises(ValueError, match="integer >= 2"):
        nemenyi_cd(1, 10)
    with pytest.raises(ValueError, match="integer >= 1"):
        nemenyi_cd(4, 0)
    with pytest.raises(ValueError, match="alpha must lie in"):
        nemenyi_q(4, 1.5)
    with pytest.raises(ValueError, match="at least 2 models"):
        nemenyi_cliques([1.0], 1.0)
    with pytest.raises(ValueError, match="cd must be"):
        nemenyi_cliques([1.0, 2.0], -1.0)


def test_rounding_before_ranking():
    scores = np.array([[0.1 + 0.2, 0.3, 0.1], [0.5, 0.6, 0.7]])  # 0.1 + 0.2 > 0.3 in floating point
    assert rank_scores(scores)[0].tolist() == [1.0, 2.0, 3.0]
    assert rank_scores(scores, decimals=6)[0].tolist() == [1.5, 1.5, 3.0]
    r = friedman(scores, decimals=6)
    assert r.conventions["decimals"] == 6 and r.extra["average_ranks"][0] == pytest.approx((1.5 + 3) / 2)
    with pytest.raises(ValueError, match="decimals must be an integer"):
        rank_scores(scores, decimals=0.5)


# ----------------------------------------------------------------------------- exact small-sample p-values
def test_unanimous_ranking_of_three_models_on_three_datasets_has_exact_p_one_in_36():
    """All 3 data sets rank 3 models alike: under the null 6 of the 6^3 equally likely rankings do so."""
    r = friedman([[0.9, 0.8, 0.7], [0.95, 0.85, 0.6], [0.7, 0.6, 0.5]])
    assert r.pvalue_method == "exact"
    assert r.pvalue == pytest.approx(1 / 36, rel=1e-12)
    assert r.chi2_pvalue == pytest.approx(stats.chi2.sf(6.0, 2))  # 0.0498: the approximation is far off
    assert r.f_statistic == np.inf and r.df_f == (2, 4)
    assert (r.n_datasets, r.k_models) == (3, 3)


@pytest.mark.parametrize("seed, shape", [(0, (3, 3)), (1, (4, 3)), (2, (3, 4)), (3, (2, 5))])
def test_exact_pvalue_equals_brute_force_enumeration(seed, shape):
    import itertools

    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=shape), 0)  # ties included
    r = friedman(scores, exact=True)
    ranks = rank_scores(scores)
    observed = np.sum(ranks.sum(axis=0) ** 2)
    per_row = [sorted(set(itertools.permutations(row))) for row in ranks]
    hits = total = 0
    for combo in itertools.product(*per_row):
        total += 1
        hits += np.sum(np.sum(combo, axis=0) ** 2) >= observed - 1e-9
    assert r.pvalue == pytest.approx(hits / total, rel=1e-12)


def test_exact_pvalue_is_exact_in_size_where_iman_davenport_is_liberal():
    """Over every ranking configuration of N = 3, k = 3, the exact test rejects at most alpha of them."""
    import itertools

    perms = list(itertools.permutations([1.0, 2.0, 3.0]))
    configs = list(itertools.product(perms, repeat=3))
    exact_rej = sum(friedman(np.array(c), higher_is_better=False).pvalue <= 0.05 for c in configs) / len(configs)
    f_rej = sum(friedman(np.array(c), higher_is_better=False).f_pvalue <= 0.05 for c in configs) / len(configs)
    assert exact_rej <= 0.05
    assert f_rej > 0.15  # the liberal Iman-Davenport approximation at N = 3 (issue: 19 %)


def test_large_n_uses_the_chi_square_approximation():
    rng = np.random.default_rng(5)
    r = friedman(rng.normal(size=(14, 4)))
    assert r.pvalue_method == "chi2" and r.pvalue == r.chi2_pvalue
    with pytest.raises(ValueError, match="exact Friedman p-value needs k <= 6"):
        friedman(rng.normal(size=(3, 8)), exact=True)
