"""Bayesian networks: d-separation on textbook graphs (checked against numerical independence),
variable elimination against the brute-force joint, Markov blankets, fitting and sampling."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from replearn.graphical import DiscreteBayesianNetwork, Factor


def _random_network(nodes, edges, rng, card=2):
    bn = DiscreteBayesianNetwork(nodes, edges, cardinalities={v: card for v in nodes})
    for v in nodes:
        shape = tuple(card for _ in bn.parents(v)) + (card,)
        alpha = np.ones(card) * 0.7
        bn.set_cpt(v, rng.dirichlet(alpha, size=shape[:-1]) if shape[:-1] else rng.dirichlet(alpha))
    return bn


def _numerically_independent(bn, x, y, z) -> bool:
    """X _||_ Y | Z in the joint table: p(x, y | z) = p(x | z) p(y | z) for every z."""
    J = bn.joint()
    rest = [v for v in J.variables if v not in {x, y, *z}]
    P = J.marginalize(rest).transpose([x, y, *z]).values
    pz = P.sum(axis=(0, 1), keepdims=True)
    px = P.sum(axis=1, keepdims=True)
    py = P.sum(axis=0, keepdims=True)
    return bool(np.allclose(P * pz, px * py, atol=1e-12))


# the student network (Koller and Friedman, Fig. 3.4) and the three canonical structures (EPFL L1948-1999)
STUDENT = (["D", "I", "G", "S", "L"], [("D", "G"), ("I", "G"), ("I", "S"), ("G", "L")])
CHAIN = (["X", "Z", "Y"], [("X", "Z"), ("Z", "Y")])
FORK = (["X", "Z", "Y"], [("Z", "X"), ("Z", "Y")])
COLLIDER = (["X", "Z", "Y", "W"], [("X", "Z"), ("Y", "Z"), ("Z", "W")])


@pytest.mark.parametrize(
    "graph, x, y, z, expected",
    [
        (CHAIN, "X", "Y", [], False),
        (CHAIN, "X", "Y", ["Z"], True),
        (FORK, "X", "Y", [], False),
        (FORK, "X", "Y", ["Z"], True),
        (COLLIDER, "X", "Y", [], True),
        (COLLIDER, "X", "Y", ["Z"], False),
        (COLLIDER, "X", "Y", ["W"], False),  # a descendant of the collider opens it (explaining away)
        (STUDENT, "D", "I", [], True),
        (STUDENT, "D", "I", ["G"], False),
        (STUDENT, "D", "I", ["L"], False),
        (STUDENT, "D", "S", [], True),
        (STUDENT, "D", "S", ["G"], False),
        (STUDENT, "D", "S", ["G", "I"], True),
        (STUDENT, "L", "S", ["I"], True),
        (STUDENT, "L", "S", ["G"], True),
        (STUDENT, "L", "S", [], False),
        (STUDENT, "D", "L", ["G"], True),
        (STUDENT, "D", "L", ["S"], False),
    ],
)
def test_d_separation_textbook_cases(graph, x, y, z, expected):
    bn = DiscreteBayesianNetwork(*graph)
    assert bn.d_separated(x, y, z) is expected


def test_d_separation_agrees_with_numerical_independence_on_random_cpts():
    rng = np.random.default_rng(0)
    nodes = ["A", "B", "C", "D", "E", "F"]
    edges = [("A", "C"), ("B", "C"), ("C", "D"), ("B", "E"), ("E", "F"), ("D", "F")]
    bn = _random_network(nodes, edges, rng)
    checked = 0
    for x, y in itertools.combinations(nodes, 2):
        others = [v for v in nodes if v not in (x, y)]
        for r in range(3):
            for z in itertools.combinations(others, r):
                sep = bn.d_separated(x, y, list(z))
                # d-separated => independent for every CPT; with random CPTs, connected => dependent
                assert sep == _numerically_independent(bn, x, y, list(z)), (x, y, z)
                checked += 1
    assert checked > 100


def test_markov_blanket_and_relations():
    bn = DiscreteBayesianNetwork(*STUDENT)
    assert bn.markov_blanket("G") == {"D", "I", "L"}
    assert bn.markov_blanket("I") == {"G", "S", "D"}  # D is a co-parent of G
    assert bn.markov_blanket("L") == {"G"}
    assert bn.descendants("I") == {"G", "S", "L"}
    rng = np.random.default_rng(1)
    net = _random_network(*STUDENT, rng)
    # given its blanket, G is independent of S (the only other node)
    assert _numerically_independent(net, "G", "S", sorted(net.markov_blanket("G")))


def test_variable_elimination_matches_the_joint():
    rng = np.random.default_rng(2)
    bn = _random_network(*STUDENT, rng, card=3)
    J = bn.joint()
    for targets, evidence in [(["L"], {}), (["I"], {"L": 2, "S": 0}), (["D", "S"], {"L": 1}), (["G"], {"D": 0})]:
        got = bn.query(targets, evidence)
        reduced = J.reduce(evidence)
        expect = reduced.marginalize([v for v in reduced.variables if v not in targets]).normalize().transpose(targets)
        np.testing.assert_allclose(got.values, expect.values, atol=1e-12)


def test_fit_recovers_cpts_and_sampling_matches_marginals():
    rng = np.random.default_rng(3)
    true = _random_network(*STUDENT, rng)
    X = true.sample(20000, random_state=4)
    fitted = DiscreteBayesianNetwork(*STUDENT, alpha=1.0).fit(X)
    col = {v: i for i, v in enumerate(STUDENT[0])}
    for v in STUDENT[0]:
        pa = fitted.parents(v)
        for config in np.ndindex(*(2 for _ in pa)):
            rows = np.all([X[:, col[p]] == c for p, c in zip(pa, config)], axis=0) if pa else np.ones(len(X), bool)
            n = int(rows.sum())
            # counting with pseudo-count 1: within 5 standard errors (+ the prior's pull) of the truth
            bound = 5 * np.sqrt(0.25 / max(n, 1)) + 2.0 / (n + 2)
            np.testing.assert_array_less(np.abs(fitted.cpts_[v][config] - true.cpts_[v][config]), bound)
            counts = np.bincount(X[rows, col[v]], minlength=2)
            np.testing.assert_allclose(fitted.cpts_[v][config], (counts + 1) / (n + 2))
    # sample frequencies match the exact marginal of L
    freq = np.bincount(X[:, 4], minlength=2) / len(X)
    np.testing.assert_allclose(freq, true.query(["L"]).values, atol=0.015)
    assert fitted.score(X) == pytest.approx(np.mean(true.log_likelihood(X)), abs=0.01)


def test_structure_and_input_checks():
    with pytest.raises(ValueError, match="cycle"):
        DiscreteBayesianNetwork(["A", "B"], [("A", "B"), ("B", "A")]).fit(np.zeros((2, 2), dtype=int))
    bn = DiscreteBayesianNetwork(["A", "B"], [("A", "B")], cardinalities={"A": 2, "B": 2})
    with pytest.raises(ValueError, match="shape"):
        bn.set_cpt("B", np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="rows summing to 1"):
        bn.set_cpt("A", np.array([0.5, 0.6]))
    with pytest.raises(ValueError, match="shape"):
        DiscreteBayesianNetwork(["A", "B"], [("A", "B")]).fit(np.zeros((3, 3), dtype=int))


def test_factor_operations():
    f = Factor(["A", "B"], [[1.0, 2.0], [3.0, 4.0]])
    g = Factor(["B", "C"], [[1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    h = f * g
    assert h.variables == ("A", "B", "C")
    np.testing.assert_allclose(h.values[1, 1, 0], 4.0 * 2.0)
    np.testing.assert_allclose(h.marginalize(["B"]).values, np.einsum("ab,bc->ac", f.values, g.values))
    np.testing.assert_allclose(f.reduce({"A": 1}).values, [3.0, 4.0])
    with pytest.raises(ValueError, match="cardinality"):
        f * Factor(["B"], [1.0, 2.0, 3.0])
