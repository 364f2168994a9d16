"""Properties every test must have: p-values in [0, 1], symmetry under swapping the learners,
invariance under reordering the data sets (or the paired examples)."""

import numpy as np
import pytest

from replearn import stats as st

SEEDS = range(8)


def _pair(seed, n=12):
    """Paired scores with ties, zeros and, for some seeds, a real difference or constant values."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.uniform(0.6, 0.9, n), 2)
    b = np.round(a + rng.normal(0.01 * (seed % 3), 0.03, n), 2)
    if seed == 5:
        b = a.copy()  # every difference zero
    if seed == 6:
        b = a - 0.02  # constant difference
    return a, b


# two-sided tests of two paired samples: name -> f(a, b) -> TestResult
PAIRED = {
    "paired_ttest": lambda a, b: st.paired_ttest(a, b),
    "corrected_resampled_ttest": lambda a, b: st.corrected_resampled_ttest(a, b, 90, 10),
    "wilcoxon": lambda a, b: st.wilcoxon(a, b),
    "wilcoxon_approx": lambda a, b: st.wilcoxon(a, b, method="approx", correction=True),
    "sign_test": lambda a, b: st.sign_test(a, b),
    "permutation_test": lambda a, b: st.permutation_test(a, b, n_resamples=999, seed=1),
    "paired_bootstrap_test": lambda a, b: st.paired_bootstrap_test(a, b, n_resamples=499, seed=1),
    "cv52_ttest": lambda a, b: st.cv52_ttest(a[:10], b[:10]),
    "cv52_ftest": lambda a, b: st.cv52_ftest(a[:10], b[:10]),
}
# tests whose statistic does not depend on the order of the pairs (cv52 does: repeat 1 fold 1 is special)
ORDER_FREE = [n for n in PAIRED if not n.startswith("cv52")]


@pytest.mark.parametrize("name", sorted(PAIRED))
@pytest.mark.parametrize("seed", SEEDS)
def test_pvalue_in_unit_interval_and_symmetric(name, seed):
    a, b = _pair(seed)
    ab, ba = PAIRED[name](a, b), PAIRED[name](b, a)
    assert 0.0 <= ab.pvalue <= 1.0
    assert ab.pvalue == pytest.approx(ba.pvalue, rel=1e-9, abs=1e-12)
    if ab.effect_size is not None and name not in ("sign_test",):
        assert ab.effect_size == pytest.approx(-ba.effect_size, abs=1e-12)


@pytest.mark.parametrize("name", ORDER_FREE)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_invariant_under_reordering_pairs(name, seed):
    a, b = _pair(seed)
    perm = np.random.default_rng(100 + seed).permutation(a.size)
    r1, r2 = PAIRED[name](a, b), PAIRED[name](a[perm], b[perm])
    if name in ("permutation_test", "paired_bootstrap_test"):  # resampling: same distribution, other draws
        assert r1.statistic == pytest.approx(r2.statistic)
        assert abs(r1.pvalue - r2.pvalue) < 0.1
    else:
        assert r1.pvalue == pytest.approx(r2.pvalue, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_mcnemar_and_cochran(seed):
    rng = np.random.default_rng(seed)
    ca, cb = rng.random(50) < 0.8, rng.random(50) < 0.75
    for method in ("exact", "midp", "chi2", "chi2_cc"):
        r1, r2 = st.mcnemar(ca, cb, method=method), st.mcnemar(cb, ca, method=method)
        assert 0 <= r1.pvalue <= 1 and r1.pvalue == pytest.approx(r2.pvalue)
    q = st.cochrans_q(np.column_stack([ca, cb, rng.random(50) < 0.7]))
    assert 0 <= q.pvalue <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_many_models_on_many_datasets(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.uniform(0.5, 1, (10, 4)) + np.array([0, 0.02, 0.05, 0.0]) * (seed % 2), 2)
    perm_rows = rng.permutation(10)
    perm_cols = np.array([2, 0, 3, 1])
    f1, f2 = st.friedman(scores), st.friedman(scores[perm_rows])
    assert 0 <= f1.pvalue <= 1 and 0 <= f1.extra["f_pvalue"] <= 1
    assert f1.statistic == pytest.approx(f2.statistic) and f1.extra["f_pvalue"] == pytest.approx(f2.extra["f_pvalue"])
    f3 = st.friedman(scores[:, perm_cols])  # relabelling the models permutes their ranks only
    assert f3.statistic == pytest.approx(f1.statistic)
    np.testing.assert_allclose(np.asarray(f3.extra["average_ranks"]), np.asarray(f1.extra["average_ranks"])[perm_cols])
    for method in ("nemenyi", "holm", "shaffer", "bergmann_hommel"):
        p1 = [c["pvalue_adjusted"] for c in st.friedman_posthoc(scores, method=method).comparisons]
        p2 = [c["pvalue_adjusted"] for c in st.friedman_posthoc(scores[perm_rows], method=method).comparisons]
        assert all(0 <= p <= 1 for p in p1) and p1 == pytest.approx(p2)


@pytest.mark.parametrize("seed", SEEDS)
def test_bayesian_probabilities(seed):
    a, b = _pair(seed)
    for r1, r2 in (
        (st.bayesian_correlated_ttest(a, b, rho=0.1), st.bayesian_correlated_ttest(b, a, rho=0.1)),
        (st.bayesian_signed_rank(a, b, n_samples=2000), st.bayesian_signed_rank(b, a, n_samples=2000)),
    ):
        assert all(0 <= p <= 1 for p in r1.probabilities) and sum(r1.probabilities) == pytest.approx(1.0)
        assert r1.p_left == pytest.approx(r2.p_right) and r1.p_rope == pytest.approx(r2.p_rope)


@pytest.mark.parametrize("seed", SEEDS)
def test_adjusted_pvalues_stay_in_unit_interval_and_above_raw(seed):
    p = np.random.default_rng(seed).uniform(0, 1, 6) ** 3
    for name in ("bonferroni", "holm", "hochberg", "hommel", "shaffer", "bergmann_hommel"):
        adj = st.adjust(p, name)
        assert np.all((adj >= p - 1e-15) & (adj <= 1.0))
