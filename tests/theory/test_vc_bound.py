"""Vapnik's VC generalization bound (CS229 §8.3.3): the tail inequality it inverts, hand-computed numbers, the
notes' O(.) form, the Corollary's linear sample complexity, and a simulation it must cover."""

from __future__ import annotations

import math

import numpy as np
import pytest

from replearn.theory import (
    log_growth_function_bound,
    uniform_convergence_gap,
    vc_erm_bound,
    vc_generalization_bound,
    vc_sample_size,
)


def test_sauer_bound_counts_labelings():
    assert math.exp(log_growth_function_bound(3, 3)) == pytest.approx(8)  # m <= D: all 2^m labelings
    assert math.exp(log_growth_function_bound(5, 1)) == pytest.approx(6)  # thresholds on 5 points: m + 1
    assert math.exp(log_growth_function_bound(4, 2)) == pytest.approx(11)  # 1 + 4 + 6
    for m, D in [(50, 3), (1000, 10), (10**6, 5)]:  # Sauer <= (e m / D)^D
        assert log_growth_function_bound(m, D) <= D * math.log(math.e * m / D) + 1e-12


@pytest.mark.parametrize("n, delta, D", [(1000, 0.05, 3), (200, 0.1, 1), (50_000, 0.01, 10)])
def test_the_bound_inverts_vapniks_tail_inequality(n, delta, D):
    """4 Pi(2n) exp(-n gamma^2 / 8) = delta at the returned gamma, with Pi from exact binomial sums."""
    gamma = vc_generalization_bound(n, delta, D)
    pi_2n = sum(math.comb(2 * n, i) for i in range(D + 1))
    assert math.log(4.0) + math.log(pi_2n) - n * gamma**2 / 8.0 == pytest.approx(math.log(delta), abs=1e-9)
    assert n * gamma**2 >= 2.0  # the theorem's condition n >= 2 / gamma^2


def test_hand_computed_value():
    # n = 1000, D = 3, delta = 0.05: Pi(2000) = 1 + 2000 + 1,999,000 + 1,331,334,000 = 1,333,335,001
    # gamma = sqrt(8 (ln 1,333,335,001 + ln 80) / 1000) = sqrt(8 (21.010949 + 4.382027) / 1000) = 0.450715
    assert vc_generalization_bound(1000, 0.05, 3) == pytest.approx(0.450715, abs=1e-6)
    assert vc_erm_bound(1000, 0.05, 3, best_error=0.1) == pytest.approx(0.1 + 2 * 0.450715, abs=2e-6)


def test_it_has_the_notes_big_o_form():
    """gamma / sqrt((D/n) log(n/D) + (1/n) log(1/delta)) stays within fixed constants (the theorem's O(.), with
    the confidence term under the root: the seed's misplaced parenthesis would let the ratio grow like sqrt(n)
    when log(1/delta) dominates)."""
    ratios = []
    for D in (1, 3, 10, 30):
        for n in (10 * D, 100 * D, 10_000 * D):
            for delta in (0.1, 1e-3, 1e-9):
                form = math.sqrt((D / n) * math.log(n / D) + math.log(1.0 / delta) / n)
                ratios.append(vc_generalization_bound(n, delta, D) / form)
    assert 2.0 < min(ratios) and max(ratios) < 8.0


def test_sample_size_is_linear_in_the_vc_dimension():
    """Corollary (L3837): n = O_{gamma,delta}(D); doubling D at most a little more than doubles n."""
    sizes = [vc_sample_size(0.1, 0.05, D) for D in (5, 10, 20, 40, 80)]
    for a, b in zip(sizes, sizes[1:]):
        assert 1.8 < b / a < 2.3
    for D in (1, 7):
        n = vc_sample_size(0.2, 0.05, D)
        assert vc_generalization_bound(n, 0.05, D) <= 0.2 < vc_generalization_bound(n - 1, 0.05, D)


def test_it_is_weaker_than_the_finite_class_bound_it_generalizes():
    """Thresholds on n grid points are a finite class (k = n + 1 distinct labelings) of VC dimension 1: both bounds
    hold; the VC one pays for not counting hypotheses (constant 8 vs 1/2, Pi(2n) vs 2k)."""
    for n in (100, 1000, 10_000):
        assert uniform_convergence_gap(n, 0.05, n + 1) < vc_generalization_bound(n, 0.05, 1)


def test_a_simulation_never_exceeds_the_bound():
    """Thresholds h_t(x) = 1{x >= t} (VC dimension 1), x ~ U(0, 1), y = 1{x >= 0.3} with 20% label noise: the
    exact worst deviation sup_t |eps(h_t) - eps_hat(h_t)| over 300 samples of n = 400 stays below the bound at
    delta = 0.05 (it is loose: the largest deviation seen is ~0.1 against 0.37)."""
    rng = np.random.default_rng(0)
    n, noise, cut = 400, 0.2, 0.3
    gamma = vc_generalization_bound(n, 0.05, 1)
    worst = []
    for _ in range(300):
        x = np.sort(rng.random(n))
        y = (x >= cut) ^ (rng.random(n) < noise)
        # candidate thresholds: at each data point and beyond the last; eps_hat(t) by prefix counts
        ones_below = np.concatenate([[0], np.cumsum(y)])  # y = 1 among x < x_(j)
        zeros_above = (n - np.arange(n + 1)) - (y.sum() - ones_below)
        emp = (ones_below + zeros_above) / n
        t = np.concatenate([x, [1.0]])
        # true error of h_t: P(h_t(x) != y) with y = 1{x >= cut} xor noise
        disagree = np.abs(t - cut)  # mass where h_t differs from the noiseless rule
        true = noise + (1 - 2 * noise) * disagree
        worst.append(np.max(np.abs(true - emp)))
    assert max(worst) < gamma
    assert 0.03 < np.median(worst) < 0.1  # the deviation is real: the bound is not checked against nothing


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: vc_generalization_bound(0, 0.05, 3), "n must be >= 1"),
        (lambda: vc_generalization_bound(100, 1.5, 3), "delta must be < 1"),
        (lambda: vc_generalization_bound(100, 0.05, -1), "vc_dim must be >= 0"),
        (lambda: vc_generalization_bound(100, "0.05", 3), "delta must be a number"),
        (lambda: vc_sample_size(0.0, 0.05, 3), "gamma must be > 0"),
        (lambda: vc_erm_bound(100, 0.05, 3, best_error=2.0), "best_error must be <= 1"),
    ],
)
def test_bad_arguments(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
