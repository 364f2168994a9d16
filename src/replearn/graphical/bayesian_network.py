"""Discrete Bayesian networks: factorization, exact inference by variable elimination, d-separation
and Markov blankets (EPFL notes, graphical models, seed 004 L1912-2072).

A DAG over variables ``X_1..X_D`` with one conditional probability table (CPT) per node gives
``p(x_1..x_D) = prod_d p(x_d | x_pa(d))`` -- the chain rule with the edges that encode no
independence deleted (L1912-1946). A factorization is valid exactly when the graph is acyclic
(checked). Arrows allow dependence; they do not prove it, and they are not causal.

* ``fit(X)`` learns every CPT from complete data by counting, with a symmetric Dirichlet prior
  ``alpha`` (``alpha = 0`` is maximum likelihood; unseen parent configurations then become uniform).
  :meth:`set_cpt` sets a table directly. Layout: ``cpt[pa_1, ..., pa_m, x]`` with the parents in
  :meth:`parents` order (the order of ``nodes``), each row summing to 1.
* :meth:`query` computes ``p(targets | evidence)`` by variable elimination (Koller and Friedman,
  Alg. 9.1): reduce every CPT by the evidence, then repeatedly multiply the factors that mention
  the variable with the fewest neighbours (min-degree order) and sum it out.
* :meth:`d_separated` decides ``X _||_ Y | Z`` with the Bayes-ball reachability algorithm (Koller
  and Friedman, Alg. 3.1; Shachter 1998): a trail is blocked by ``Z`` iff it has a head-to-tail or
  tail-to-tail node in ``Z`` or a head-to-head node with neither it nor a descendant in ``Z``
  (L2001-2041; the text's rule was stripped in extraction and its six worked queries lost their
  figure, so the tests use textbook graphs and brute-force independence checks instead).
* :meth:`markov_blanket`: parents, children and the children's other parents (L2043-2050).
* :meth:`sample` draws ancestrally (parents first, L2052-2060); :meth:`to_factor_graph` gives the
  CPTs as factors for :class:`~replearn.graphical.factor_graph.FactorGraph`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from .._constraints import Interval
from ..base import BaseEstimator
from ..validation import check_is_fitted, check_random_state
from .factor import Factor

__all__ = ["DiscreteBayesianNetwork"]


class DiscreteBayesianNetwork(BaseEstimator):
    """A Bayesian network over discrete variables with values ``0..k-1``.

    Parameters
    ----------
    nodes : sequence of hashable
        The variables; the columns of ``X`` in ``fit``/``log_likelihood`` follow this order.
    edges : sequence of (parent, child)
    cardinalities : mapping node -> int, or None
        Number of values of each node; ``None`` (in ``fit``) takes ``max(column) + 1``.
    alpha : float >= 0, default 1.0
        Dirichlet pseudo-count of each CPT entry in ``fit``.

    Attributes
    ----------
    cpts_ : dict node -> ndarray
    cardinalities_ : dict node -> int
    order_ : list
        A topological order of the nodes.
    """

    _constraints = {"alpha": Interval(float, 0.0, None)}

    def __init__(self, nodes=(), edges=(), cardinalities=None, alpha=1.0):
        self.nodes = nodes
        self.edges = edges
        self.cardinalities = cardinalities
        self.alpha = alpha

    # -- structure --------------------------------------------------------------------------------
    def _structure(self) -> None:
        nodes = list(self.nodes)
        if len(set(nodes)) != len(nodes):
            raise ValueError("nodes contain duplicates")
        known = set(nodes)
        for p, c in self.edges:
            if p not in known or c not in known:
                raise ValueError(f"edge ({p!r}, {c!r}) names a node that is not in nodes")
            if p == c:
                raise ValueError(f"self-loop on {p!r}")
        pos = {v: i for i, v in enumerate(nodes)}
        self._parents = {v: sorted({p for p, c in self.edges if c == v}, key=pos.get) for v in nodes}
        self._children = {v: sorted({c for p, c in self.edges if p == v}, key=pos.get) for v in nodes}
        # Kahn's algorithm: a topological order exists iff the graph is acyclic
        indeg = {v: len(self._parents[v]) for v in nodes}
        ready = [v for v in nodes if indeg[v] == 0]
        order = []
        while ready:
            v = ready.pop(0)
            order.append(v)
            for c in self._children[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        if len(order) != len(nodes):
            cyc = sorted(map(str, (v for v in nodes if indeg[v] > 0)))
            raise ValueError(f"the graph has a directed cycle through {cyc}; a Bayesian network needs a DAG")
        self.order_ = order

    def _ensure_structure(self) -> None:
        if not hasattr(self, "order_"):
            self._structure()

    def parents(self, node) -> list:
        self._ensure_structure()
        return list(self._parents[node])

    def children(self, node) -> list:
        self._ensure_structure()
        return list(self._children[node])

    def descendants(self, node) -> set:
        self._ensure_structure()
        seen, stack = set(), list(self._children[node])
        while stack:
            v = stack.pop()
            if v not in seen:
                seen.add(v)
                stack.extend(self._children[v])
        return seen

    def markov_blanket(self, node) -> set:
        """Parents, children and co-parents (the children's other parents) of ``node``."""
        self._ensure_structure()
        if node not in self._parents:
            raise KeyError(f"{node!r} is not a node")
        mb = set(self._parents[node]) | set(self._children[node])
        for c in self._children[node]:
            mb |= set(self._parents[c])
        mb.discard(node)
        return mb

    def d_separated(self, x: Iterable, y: Iterable, z: Iterable = ()) -> bool:
        """True when every trail between a node of ``x`` and a node of ``y`` is blocked by ``z``."""
        self._ensure_structure()
        X, Y, Z = set(_as_set(x)), set(_as_set(y)), set(_as_set(z))
        for v in X | Y | Z:
            if v not in self._parents:
                raise KeyError(f"{v!r} is not a node")
        if X & Y:
            return False
        # nodes with a descendant in Z (Z included): a head-to-head node among them is open
        ancestors_of_z, stack = set(), list(Z)
        while stack:
            v = stack.pop()
            if v not in ancestors_of_z:
                ancestors_of_z.add(v)
                stack.extend(self._parents[v])
        # Bayes ball: states (node, direction) with "up" = arrived from a child, "down" = from a parent
        visited, reachable = set(), set()
        stack = [(v, "up") for v in X]
        while stack:
            v, direction = stack.pop()
            if (v, direction) in visited:
                continue
            visited.add((v, direction))
            if v not in Z:
                reachable.add(v)
            if direction == "up" and v not in Z:
                stack.extend((p, "up") for p in self._parents[v])
                stack.extend((c, "down") for c in self._children[v])
            elif direction == "down":
                if v not in Z:
                    stack.extend((c, "down") for c in self._children[v])
                if v in ancestors_of_z:
                    stack.extend((p, "up") for p in self._parents[v])
        return not (reachable & Y)

    # -- parameters -------------------------------------------------------------------------------
    def _check_cpt(self, node, table: np.ndarray) -> np.ndarray:
        shape = tuple(self.cardinalities_[p] for p in self._parents[node]) + (self.cardinalities_[node],)
        table = np.asarray(table, dtype=float)
        if table.shape != shape:
            raise ValueError(
                f"CPT of {node!r} has shape {table.shape}, expected {shape} "
                f"(parents {self._parents[node]}, then the node)"
            )
        if np.any(table < 0) or not np.allclose(table.sum(axis=-1), 1.0, atol=1e-8):
            raise ValueError(f"CPT of {node!r} must be non-negative with rows summing to 1 over the node's values")
        return table

    def set_cpt(self, node, table) -> DiscreteBayesianNetwork:
        """Set ``p(node | parents)``; ``cardinalities`` must be given. Returns ``self``."""
        self._ensure_structure()
        if not hasattr(self, "cardinalities_"):
            if self.cardinalities is None:
                raise ValueError("set_cpt needs the cardinalities hyperparameter")
            self.cardinalities_ = {v: int(self.cardinalities[v]) for v in self.nodes}
            self.cpts_ = {}
        self.cpts_[node] = self._check_cpt(node, table)
        return self

    def fit(self, X, y=None):
        """Estimate every CPT from complete discrete data ``X`` (columns in ``nodes`` order)."""
        self._validate_params()
        self._structure()
        X = self._check_X(X, fitted=False)
        col = {v: i for i, v in enumerate(self.nodes)}
        if self.cardinalities is None:
            self.cardinalities_ = {v: int(X[:, col[v]].max()) + 1 for v in self.nodes}
        else:
            self.cardinalities_ = {v: int(self.cardinalities[v]) for v in self.nodes}
        self.cpts_ = {}
        for v in self.nodes:
            fam = self._parents[v] + [v]
            shape = tuple(self.cardinalities_[u] for u in fam)
            counts = np.zeros(shape)
            np.add.at(counts, tuple(X[:, col[u]] for u in fam), 1.0)
            counts += float(self.alpha)
            totals = counts.sum(axis=-1, keepdims=True)
            self.cpts_[v] = np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), 1.0 / shape[-1])
        return self

    def _check_X(self, X, fitted=True) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != len(self.nodes):
            raise ValueError(
                f"X must have shape (n_samples, {len(self.nodes)}) with columns {list(self.nodes)}, got {X.shape}"
            )
        if X.dtype.kind not in "iu" or X.min() < 0:
            raise ValueError("X must hold non-negative integer values")
        if fitted:
            for i, v in enumerate(self.nodes):
                if X[:, i].max() >= self.cardinalities_[v]:
                    raise ValueError(f"column {v!r} has value {X[:, i].max()}, cardinality is {self.cardinalities_[v]}")
        return X.astype(np.intp)

    def _check_fitted(self) -> None:
        check_is_fitted(self, "cpts_")
        missing = [v for v in self.nodes if v not in self.cpts_]
        if missing:
            raise ValueError(f"no CPT for {missing}; call fit or set_cpt")

    # -- inference --------------------------------------------------------------------------------
    def factors(self) -> list[Factor]:
        """One factor ``p(x_v | x_pa(v))`` per node."""
        self._check_fitted()
        return [Factor(self._parents[v] + [v], self.cpts_[v]) for v in self.nodes]

    def log_likelihood(self, X) -> np.ndarray:
        """``log p(x)`` of each complete row of ``X``."""
        self._check_fitted()
        X = self._check_X(X)
        col = {v: i for i, v in enumerate(self.nodes)}
        out = np.zeros(X.shape[0])
        for v in self.nodes:
            fam = self._parents[v] + [v]
            with np.errstate(divide="ignore"):
                out += np.log(self.cpts_[v][tuple(X[:, col[u]] for u in fam)])
        return out

    def score(self, X, y=None) -> float:
        return float(self.log_likelihood(X).mean())

    def query(self, targets, evidence: Mapping | None = None) -> Factor:
        """``p(targets | evidence)`` as a normalized :class:`Factor` over ``targets`` (in the order given)."""
        self._check_fitted()
        targets = list(_as_set(targets)) if not isinstance(targets, (list, tuple)) else list(targets)
        evidence = dict(evidence or {})
        for v in list(targets) + list(evidence):
            if v not in self.cpts_:
                raise KeyError(f"{v!r} is not a node")
        if set(targets) & set(evidence):
            raise ValueError("a variable cannot be both a target and evidence")
        factors = [f.reduce(evidence) for f in self.factors()]
        hidden = [v for v in self.order_ if v not in targets and v not in evidence]
        result = eliminate(factors, hidden)
        return result.normalize().transpose(targets)

    def joint(self) -> Factor:
        """The full joint table (exponential in the number of nodes: for checks on small networks)."""
        f = self.factors()
        out = f[0]
        for g in f[1:]:
            out = out * g
        return out.transpose(list(self.nodes))

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """``n`` joint draws, ancestrally; columns in ``nodes`` order."""
        self._check_fitted()
        rng = check_random_state(random_state)
        col = {v: i for i, v in enumerate(self.nodes)}
        out = np.zeros((int(n), len(self.nodes)), dtype=np.intp)
        for v in self.order_:
            pa = self._parents[v]
            if pa:
                probs = self.cpts_[v][tuple(out[:, col[p]] for p in pa)]
            else:
                probs = np.broadcast_to(self.cpts_[v], (int(n), self.cardinalities_[v]))
            u = rng.random(int(n))[:, None]
            out[:, col[v]] = np.minimum((u > np.cumsum(probs, axis=1)).sum(axis=1), probs.shape[1] - 1)
        return out

    def to_factor_graph(self, evidence: Mapping | None = None):
        """The CPTs (reduced by ``evidence``) as a :class:`~replearn.graphical.factor_graph.FactorGraph`."""
        from .factor_graph import FactorGraph

        evidence = dict(evidence or {})
        return FactorGraph([f.reduce(evidence) for f in self.factors()])


def eliminate(factors: list[Factor], hidden: list) -> Factor:
    """Sum the ``hidden`` variables out of the product of ``factors`` (min-degree order); return the product."""
    factors = list(factors)
    hidden = list(hidden)
    while hidden:

        def degree(v, factors=factors):
            return len(set().union(*(f.variables for f in factors if v in f.variables)) - {v})

        v = min(hidden, key=lambda u: (degree(u), hidden.index(u)))
        hidden.remove(v)
        touching = [f for f in factors if v in f.variables]
        if not touching:
            continue
        prod = touching[0]
        for f in touching[1:]:
            prod = prod * f
        factors = [f for f in factors if v not in f.variables] + [prod.marginalize([v])]
    out = factors[0]
    for f in factors[1:]:
        out = out * f
    return out


def _as_set(x) -> list:
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        return [x]
    return list(x)
