"""Holm and Bonferroni adjustments against statsmodels (reference only)."""

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from replearn.stats import bonferroni, holm


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method, func", [("holm", holm), ("bonferroni", bonferroni)])
def test_matches_statsmodels(seed, method, func):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, size=12) ** 2
    p[3] = p[7]  # a tie
    ref = multipletests(p, method=method)[1]
    np.testing.assert_allclose(func(p), ref, rtol=1e-12, atol=0)


def test_holm_hand_example_input_order_and_monotone():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max(0.06, 0.04) = 0.06
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    adj = holm(p)
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0)
    assert np.all(adj >= p)
    assert np.all(holm(p) <= bonferroni(p))


def test_clipped_at_one_and_empty():
    np.testing.assert_array_equal(holm([0.5, 0.9, 0.6]), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(bonferroni([0.5, 0.1]), [1.0, 0.2])
    assert holm([]).size == 0 and bonferroni([]).size == 0
    assert holm([0.03]) == pytest.approx([0.03])


def test_rejects_invalid_pvalues():
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        holm([0.1, 1.2])
    with pytest.raises(ValueError, match="NaN"):
        bonferroni([0.1, np.nan])
    with pytest.raises(ValueError, match="1-D"):
        holm([[0.1, 0.2]])


# ----------------------------------------------------------------------------- Hochberg, Hommel, dispatch
from replearn.stats import adjust, bonferroni_dunn, hochberg, hommel  # noqa: E402


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method, func", [("simes-hochberg", hochberg), ("hommel", hommel)])
def test_step_up_procedures_match_statsmodels(seed, method, func):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.3, size=int(rng.integers(2, 15))) ** 2
    p[0] = p[-1]  # a tie
    np.testing.assert_allclose(func(p), multipletests(p, method=method)[1], rtol=1e-12, atol=1e-15)


def test_order_of_power():
    p = np.random.default_rng(9).uniform(0, 0.1, 20)
    assert np.all(hommel(p) <= hochberg(p) + 1e-15)
    assert np.all(hochberg(p) <= holm(p) + 1e-15)
    assert np.all(holm(p) <= bonferroni(p) + 1e-15)


def test_hand_examples():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # Hochberg: sorted 0.005, 0.01, 0.03, 0.04 -> min over j >= i of (m-j+1) p_(j): 0.02, 0.03, 0.04, 0.04
    np.testing.assert_allclose(hochberg(p), [0.03, 0.04, 0.04, 0.02])
    np.testing.assert_allclose(bonferroni_dunn([0.01, 0.2]), [0.02, 0.4])
    assert hommel([0.2]) == pytest.approx([0.2]) and hochberg([]).size == 0


def test_adjust_dispatch():
    p = [0.01, 0.02, 0.03]
    np.testing.assert_allclose(adjust(p, "holm"), holm(p))
    np.testing.assert_allclose(adjust(p, "none"), p)
    assert adjust(p, "shaffer").shape == (3,)  # 3 = all pairs of 3 models
    with pytest.raises(ValueError, match="unknown p-value adjustment 'sidak'"):
        adjust(p, "sidak")


# ----------------------------------------------------------------------------- the graphical procedure (issue 39)
from replearn.stats import graphical  # noqa: E402


@pytest.mark.parametrize("seed", range(5))
def test_graphical_holm_graph_is_holm(seed):
    """Equal weights with every rejected hypothesis passing its level equally to the others: Holm exactly."""
    p = np.random.default_rng(seed).uniform(0, 0.2, size=5)
    g = (np.ones((5, 5)) - np.eye(5)) / 4
    assert np.allclose(graphical(p, np.full(5, 0.2), g), holm(p))


def test_graphical_fixed_sequence_and_gate():
    """A chain 1 -> 2 with all the weight on 1: hypothesis 2 is never rejected before 1 (its adjusted p-value
    is at least 1's), and once 1 is rejected 2 gets the full level."""
    g = np.array([[0.0, 1.0], [0.0, 0.0]])
    adj = graphical([0.2, 0.001], [1.0, 0.0], g)
    assert adj.tolist() == [0.2, 0.2]
    adj = graphical([0.01, 0.04], [1.0, 0.0], g)
    assert adj.tolist() == [0.01, 0.04]


def test_graphical_controls_the_familywise_error_under_the_global_null():
    """Two gated pairs (cv -> sealed, sealed -> the other cv): rejections of independent true nulls <= alpha."""
    rng = np.random.default_rng(0)
    w = np.array([0.5, 0.5, 0.0, 0.0])
    g = np.array([[0, 0.5, 0.5, 0], [0.5, 0, 0, 0.5], [0, 1.0, 0, 0], [1.0, 0, 0, 0]])
    any_rej = [np.any(graphical(rng.uniform(size=4), w, g) <= 0.05) for _ in range(4000)]
    assert np.mean(any_rej) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)


def test_graphical_rejects_invalid_graphs():
    with pytest.raises(ValueError, match="weights"):
        graphical([0.1, 0.2], [0.7, 0.7], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="transitions"):
        graphical([0.1, 0.2], [0.5, 0.5], np.array([[0.5, 0.5], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="shape"):
        graphical([0.1, 0.2], [0.5], np.zeros((2, 2)))
