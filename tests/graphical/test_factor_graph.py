"""Sum-product belief propagation: exact on trees (against enumeration), approximate on loops."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.graphical import DiscreteBayesianNetwork, Factor, FactorGraph


def _random_tree_graph(rng, n_vars=7):
    """A random tree over the variables (pairwise factors) plus unary factors; cardinalities 2-4."""
    card = {f"x{i}": int(rng.integers(2, 5)) for i in range(n_vars)}
    names = list(card)
    factors = []
    for i in range(1, n_vars):
        j = int(rng.integers(0, i))  # attach to an earlier node: a tree
        factors.append(Factor([names[j], names[i]], rng.random((card[names[j]], card[names[i]])) + 0.05))
    for v in names[::2]:
        factors.append(Factor([v], rng.random(card[v]) + 0.05))
    factors.append(
        Factor(
            [
                names[1],
            ],
            rng.random(card[names[1]]) + 0.05,
        )
    )
    return FactorGraph(factors)


@pytest.mark.parametrize("seed", range(5))
def test_sum_product_is_exact_on_trees(seed):
    fg = _random_tree_graph(np.random.default_rng(seed))
    assert fg.is_tree()
    bp = fg.sum_product()
    exact = fg.brute_force_marginals()
    assert fg.converged_
    for v in fg.variables:
        np.testing.assert_allclose(bp[v], exact[v], atol=1e-10)


def test_tree_with_a_three_way_factor_and_evidence_from_a_network():
    rng = np.random.default_rng(7)
    nodes = ["A", "B", "C", "D", "E"]
    edges = [("A", "C"), ("B", "C"), ("C", "D"), ("C", "E")]  # the factor p(C | A, B) has three variables
    bn = DiscreteBayesianNetwork(nodes, edges, cardinalities={v: 3 for v in nodes})
    for v in nodes:
        k = len(bn.parents(v))
        bn.set_cpt(v, rng.dirichlet(np.ones(3), size=(3,) * k) if k else rng.dirichlet(np.ones(3)))
    fg = bn.to_factor_graph(evidence={"D": 2})
    assert fg.is_tree()
    bp = fg.sum_product()
    for v in ["A", "B", "C", "E"]:
        np.testing.assert_allclose(bp[v], bn.query([v], {"D": 2}).values, atol=1e-10)


def test_loopy_graph_is_detected_and_bp_is_only_approximate():
    rng = np.random.default_rng(3)
    names = ["a", "b", "c", "d"]
    factors = [Factor([names[i], names[(i + 1) % 4]], np.exp(1.5 * rng.normal(size=(2, 2)))) for i in range(4)]
    fg = FactorGraph(factors)
    assert not fg.is_tree()
    bp = fg.sum_product(max_iter=200)
    exact = fg.brute_force_marginals()
    err = max(np.max(np.abs(bp[v] - exact[v])) for v in names)
    assert 1e-6 < err < 0.3


def test_chain_needs_as_many_sweeps_as_its_length():
    rng = np.random.default_rng(4)
    names = [f"v{i}" for i in range(6)]
    factors = [Factor([names[i], names[i + 1]], rng.random((2, 2)) + 0.1) for i in range(5)]
    factors.append(Factor([names[0]], np.array([0.9, 0.1])))
    fg = FactorGraph(factors)
    short = fg.sum_product(max_iter=2)
    exact = fg.brute_force_marginals()
    assert np.max(np.abs(short["v5"] - exact["v5"])) > 1e-6  # evidence from v0 has not arrived yet
    full = fg.sum_product()
    np.testing.assert_allclose(full["v5"], exact["v5"], atol=1e-12)
