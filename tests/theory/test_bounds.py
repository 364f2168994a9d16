"""Hoeffding, uniform convergence, ERM, Occam and test-set bounds: the texts' formulas and numbers."""

import math

import numpy as np
import pytest

from replearn.theory import (
    complete_tree_class_size,
    conjunction_class_size,
    deviates,
    erm_generalization_bound,
    hoeffding_bound,
    hoeffding_sample_size,
    hoeffding_simulation,
    occam_error_bound,
    occam_sample_size,
    test_set_bound,
    uniform_convergence_gap,
)


def test_cs229_sample_complexity_example():
    # n >= (1/(2 gamma^2)) log(2k/delta) (CS229 L3726); gamma = 0.1, delta = 0.05, k = 1000: log(40000)/0.02 = 529.83
    assert math.log(2 * 1000 / 0.05) / (2 * 0.1**2) == pytest.approx(529.83, abs=0.005)
    n = hoeffding_sample_size(0.1, 0.05, 1000)
    assert n == 530
    assert hoeffding_bound(n, 0.1, 1000) <= 0.05 < hoeffding_bound(n - 1, 0.1, 1000)


@pytest.mark.parametrize("eps, delta, k", [(0.05, 0.1, 1), (0.2, 0.01, 10**6), (0.01, 0.5, 7)])
def test_sample_size_is_the_smallest_n_meeting_the_bound(eps, delta, k):
    n = hoeffding_sample_size(eps, delta, k)
    assert 2 * k * math.exp(-2 * eps**2 * n) <= delta
    assert n == 1 or 2 * k * math.exp(-2 * eps**2 * (n - 1)) > delta
    # the gap for that n is at most eps (the two forms of the same bound, L3736)
    assert uniform_convergence_gap(n, delta, k) <= eps + 1e-12


def test_erm_bound_is_best_error_plus_twice_the_gap():
    gap = math.sqrt(math.log(2 * 50 / 0.05) / (2 * 400))
    assert erm_generalization_bound(400, 0.05, 50, best_error=0.1) == pytest.approx(0.1 + 2 * gap)


def test_epfl_test_set_bound_numbers():
    # catalogue 004: delta = 0.05, [0, 1] loss
    cases = {(100, 1): 0.1358, (1000, 1): 0.0429, (1000, 10): 0.0547, (100, 100): 0.2036, (1000, 100): 0.0644}
    for (n, k), value in cases.items():
        assert test_set_bound(n, 0.05, k) == pytest.approx(value, abs=5e-5)
    # the loss range scales the deviation linearly
    assert test_set_bound(100, 0.05, 1, loss_range=(-1, 1)) == pytest.approx(2 * 0.13581, abs=1e-4)


def test_occam_and_class_sizes():
    assert conjunction_class_size(4) == 4**4  # CIML L4117
    assert complete_tree_class_size(3) == 3 * 4**3  # D 2^(D-1) 2^(D+1) = D 4^D, L4121
    H = conjunction_class_size(10)
    n = occam_sample_size(0.05, 0.1, H)  # CIML's PAC illustration eps = 0.05, delta = 0.1 (L3998)
    assert n == math.ceil((10 * math.log(4) + math.log(10)) / 0.05) == 324
    assert occam_error_bound(n, 0.1, H) <= 0.05 < occam_error_bound(n - 1, 0.1, H)
    assert occam_sample_size(0.1, 0.05, 2**200) > 0  # huge classes as Python ints


def test_hoeffding_simulation_respects_the_bound():
    sim = hoeffding_simulation(phi=0.3, n=[10, 50, 200, 800], gamma=0.1, n_trials=4000, random_state=0)
    assert sim.holds
    assert np.all(np.diff(sim.deviation_rate) <= 0)  # more tosses, fewer large deviations
    np.testing.assert_allclose(sim.bound, np.minimum(1, 2 * np.exp(-0.02 * np.array([10, 50, 200, 800]))))
    again = hoeffding_simulation(phi=0.3, n=[10, 50, 200, 800], gamma=0.1, n_trials=4000, random_state=0)
    np.testing.assert_array_equal(sim.deviation_rate, again.deviation_rate)


def _exact_deviation_probability(n, phi, gamma):
    """P(|K/n - phi| > gamma) for K ~ Binomial(n, phi), from integer boundaries (no floating-point ties)."""
    from fractions import Fraction

    from scipy import stats as sps

    p, g = Fraction(phi).limit_denominator(10**6), Fraction(gamma).limit_denominator(10**6)
    return sum(sps.binom.pmf(k, n, phi) for k in range(n + 1) if abs(Fraction(k, n) - p) > g)


def test_exact_ties_are_not_deviations():
    """phi = 0.3, gamma = 0.1, n = 20: k = 8 (0.4) and k = 4 (0.2) lie exactly gamma away: neither deviates."""
    assert not deviates(8, 20, 0.3, 0.1) and not deviates(4, 20, 0.3, 0.1)
    assert deviates(9, 20, 0.3, 0.1) and deviates(3, 20, 0.3, 0.1)
    assert abs(8 / 20 - 0.3) > 0.1  # the floating-point comparison this replaces gets k = 8 wrong


@pytest.mark.parametrize("n", [20, 50])
def test_hoeffding_simulation_matches_the_exact_probability(n):
    exact = _exact_deviation_probability(n, 0.3, 0.1)
    sim = hoeffding_simulation(phi=0.3, n=[n], gamma=0.1, n_trials=200_000, random_state=1)
    se = np.sqrt(exact * (1 - exact) / 200_000)
    assert abs(sim.deviation_rate[0] - exact) < 4 * se
    if n == 20:
        assert exact == pytest.approx(0.2204, abs=5e-4)


def test_errors():
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        hoeffding_sample_size(0.0, 0.05)
    with pytest.raises(ValueError, match="delta must be < 1"):
        hoeffding_sample_size(0.1, 1.0)
    with pytest.raises(TypeError, match="n_hypotheses must be an integer"):
        hoeffding_sample_size(0.1, 0.05, "ten")
    with pytest.raises(ValueError, match="loss_range must satisfy a < b"):
        test_set_bound(10, 0.05, loss_range=(1, 0))
    with pytest.raises(ValueError, match="n must be a positive integer"):
        hoeffding_simulation(n=[0, 10])
