"""Paired permutation test: exact enumeration equals SciPy's, approximate randomization is add-one."""

import numpy as np
import pytest
from scipy import stats

from replearn.evaluation import f1
from replearn.stats import permutation_test

RNG = np.random.default_rng(0)
A, B = RNG.normal(0.4, 1, 11), RNG.normal(0, 1, 11)


def _diff(stat):
    return lambda x, y, axis=-1: stat(x, axis=axis) - stat(y, axis=axis)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("name, func", [("mean", np.mean), ("median", np.median)])
def test_exact_matches_scipy(alternative, name, func):
    r = permutation_test(A, B, statistic=name, alternative=alternative)
    ref = stats.permutation_test(
        (A, B), _diff(func), permutation_type="samples", n_resamples=np.inf, alternative=alternative
    )
    assert r.extra["exact"] and r.extra["n_permutations"] == 2**11
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_approximate_randomization_add_one_by_hand():
    r = permutation_test(A, B, n_resamples=499, seed=3)
    assert not r.extra["exact"]
    # the documented patterns: 2 bytes per row (11 examples), example 8 j + k swapped by bit k of byte j
    raw = np.frombuffer(np.random.default_rng(3).bytes(499 * 2), dtype=np.uint8).reshape(499, 2)
    swap = np.array([[(row[i // 8] >> (i % 8)) & 1 for i in range(11)] for row in raw], dtype=bool)
    d = A - B
    t_star = np.where(swap, -d, d).mean(axis=1)
    count = np.sum(np.abs(t_star) >= abs(d.mean()) * (1 - 1e-13))
    assert r.pvalue == pytest.approx((1 + count) / 500)
    assert r.pvalue > 0


def test_predictions_mode_exact_by_brute_force():
    rng = np.random.default_rng(1)
    yt = rng.integers(0, 2, 10)
    yt[:2] = [0, 1]
    pa = np.where(rng.random(10) < 0.9, yt, 1 - yt)
    pb = np.where(rng.random(10) < 0.5, yt, 1 - yt)
    r = permutation_test(pa, pb, y_true=yt, metric=f1, exact=True)
    t_obs = f1(yt, pa) - f1(yt, pb)
    count = 0
    for code in range(2**10):
        swap = ((code >> np.arange(10)) & 1).astype(bool)
        a2, b2 = np.where(swap, pb, pa), np.where(swap, pa, pb)
        count += abs(f1(yt, a2) - f1(yt, b2)) >= abs(t_obs) - 1e-12
    assert r.statistic == pytest.approx(t_obs) and r.pvalue == pytest.approx(count / 2**10)


def test_symmetry_and_reproducibility():
    big_a, big_b = RNG.normal(0.2, 1, 40), RNG.normal(0, 1, 40)
    r1 = permutation_test(big_a, big_b, n_resamples=999, seed=2)
    r2 = permutation_test(big_b, big_a, n_resamples=999, seed=2)
    assert r1.pvalue == r2.pvalue and r1.statistic == pytest.approx(-r2.statistic)
    assert permutation_test(big_a, big_b, n_resamples=999, seed=2).pvalue == r1.pvalue


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="limited to n <= 20"):
        permutation_test(np.zeros(21), np.ones(21), exact=True)
    with pytest.raises(ValueError, match="exact must be"):
        permutation_test(A, B, exact="yes")
    with pytest.raises(ValueError, match="needs y_true"):
        permutation_test(A, B, metric="f1")


@pytest.mark.parametrize("n", [9, 300, 1500])
@pytest.mark.parametrize("values", [(-1.0, 0.0, 0.0, 0.0, 1.0), (-1.0, 1.0), (0.25, -0.5, 0.0)])
def test_swapped_sums_equal_the_pattern_matrix_on_every_path(n, values, monkeypatch):
    # the table look-up (zero bytes skipped; integral d summed in integers, compiled above the threshold) equals the
    # documented patterns times d: exactly for integral d, to rounding otherwise
    from replearn.stats import permutation as P

    d = np.random.default_rng(n).choice(values, size=n)
    d[: n // 3] = 0.0  # whole bytes of zeros (both models right) are skipped
    bits = np.unpackbits(P._swap_bytes(n, 999, 5), axis=1, count=n, bitorder="little").astype(float)
    expected = bits @ d
    results = []
    for threshold in (0, 10**18):  # compiled loop (where numba is available), numpy's look-up
        monkeypatch.setattr(P, "COMPILED_MIN_LOOKUPS", threshold)
        results.append(P._swapped_sums(d, 999, 5))
    if np.all(d == np.trunc(d)):
        assert np.array_equal(results[0], expected) and np.array_equal(results[1], expected)
    else:
        assert np.allclose(results[0], expected, rtol=0, atol=1e-9) and np.array_equal(results[0], results[1])


def test_swapped_sums_of_all_zero_differences_are_zero():
    from replearn.stats import permutation as P

    assert np.array_equal(P._swapped_sums(np.zeros(17), 10, 1), np.zeros(10))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [12, 15, 18])
def test_zero_one_scores_get_the_exact_p_value_in_closed_form(alternative, n):
    """Differences in {-1, 0, +1}: "auto" gives the enumeration's p-value where enumerating is too costly."""
    rng = np.random.default_rng(n)
    a, b = (rng.random(n) < 0.75).astype(float), (rng.random(n) < 0.5).astype(float)
    closed = permutation_test(a, b, n_resamples=999, alternative=alternative)  # 2^n > 999: no enumeration
    enumerated = permutation_test(a, b, exact=True, alternative=alternative)
    assert closed.conventions["method"].startswith("exact (closed form")
    assert closed.pvalue == pytest.approx(enumerated.pvalue, rel=1e-12, abs=1e-15)
    assert closed.statistic == enumerated.statistic and closed.effect_size == enumerated.effect_size


def test_the_closed_form_is_mcnemars_exact_test_and_exact_false_still_resamples():
    from replearn.stats import mcnemar

    rng = np.random.default_rng(3)
    ca, cb = rng.random(2000) < 0.81, rng.random(2000) < 0.78
    res = permutation_test(ca.astype(float), cb.astype(float), n_resamples=1999, seed=1)
    assert res.pvalue == mcnemar(ca, cb, method="exact").pvalue and res.extra["exact"]
    assert res.extra["n_nonzero"] == int(np.sum(ca != cb))
    y = rng.integers(0, 3, 2000)  # predictions mode, accuracy: the same differences
    pa, pb = np.where(ca, y, (y + 1) % 3), np.where(cb, y, (y + 2) % 3)
    pred = permutation_test(pa, pb, y_true=y, metric="accuracy", n_resamples=1999, seed=1)
    assert pred.pvalue == res.pvalue and pred.conventions["method"] == res.conventions["method"]
    approx = permutation_test(ca.astype(float), cb.astype(float), n_resamples=1999, seed=1, exact=False)
    assert approx.conventions["method"] == "approximate randomization"
    assert abs(approx.pvalue - res.pvalue) < 0.05  # the same p-value, up to Monte Carlo error
    same = permutation_test(np.ones(50), np.ones(50), n_resamples=999)
    assert same.pvalue == 1.0 and same.extra["n_nonzero"] == 0
    halves = permutation_test(rng.random(60).round(1), rng.random(60).round(1), n_resamples=999)  # not 0/1
    assert halves.conventions["method"] == "approximate randomization"
