"""Factor graphs and sum-product belief propagation (EPFL notes, seed 004 L2062-2072; Kschischang,
Frey and Loeliger 2001; Bishop §8.4.4).

A factor graph is bipartite: variable nodes and factor nodes, a factor linked to the variables of
its table; ``p(x) propto prod_a f_a(x_a)``. Sum-product passes messages along the edges::

    variable -> factor:  mu_{x->f}(x) = prod_{g in N(x) \\ f} mu_{g->x}(x)
    factor -> variable:  mu_{f->x}(x) = sum_{x_f \\ x} f(x_f) prod_{y in N(f) \\ x} mu_{y->f}(y)

and the marginal is ``p(x) propto prod_{f in N(x)} mu_{f->x}(x)``. Schedule: "flooding" -- all
factor-to-variable messages from the previous variable-to-factor ones, then all variable-to-factor
messages -- starting from uniform messages, each normalized to sum 1 (a scale that cancels in the
marginals and keeps long chains from underflowing). On a tree the messages stop changing after
as many sweeps as the graph's diameter, and the marginals are exact (tested against brute-force
enumeration). With cycles the same updates are loopy belief propagation: approximate, and not
guaranteed to converge (``converged_`` says whether the change fell below ``tol``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_scalar
from .factor import Factor

__all__ = ["FactorGraph"]


class FactorGraph:
    """A list of factors over shared discrete variables.

    Attributes (after :meth:`sum_product`)
    ----------
    n_iter_ : int
        Sweeps run.
    converged_ : bool
    """

    def __init__(self, factors: list[Factor]):
        self.factors = list(factors)
        if not self.factors:
            raise ValueError("a factor graph needs at least one factor")
        self.cardinalities: dict = {}
        for f in self.factors:
            for v, n in f.cardinalities.items():
                if self.cardinalities.setdefault(v, n) != n:
                    raise ValueError(f"variable {v!r} has cardinality {self.cardinalities[v]} and {n}")
        self.variables = list(self.cardinalities)

    def is_tree(self) -> bool:
        """True when the bipartite graph is a forest (no cycle): then sum-product is exact."""
        n_nodes = len(self.variables) + len(self.factors)
        n_edges = sum(len(f.variables) for f in self.factors)
        parent = list(range(n_nodes))
        vid = {v: i for i, v in enumerate(self.variables)}

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        components = n_nodes
        for a, f in enumerate(self.factors):
            for v in f.variables:
                ra, rb = find(len(self.variables) + a), find(vid[v])
                if ra == rb:
                    return False
                parent[ra] = rb
                components -= 1
        return n_edges == n_nodes - components

    def sum_product(self, max_iter: int = 100, tol: float = 1e-12) -> dict:
        """Marginals ``{variable: p(variable)}`` by flooding-schedule sum-product."""
        check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
        check_scalar(tol, "tol", numbers.Real, low=0.0)
        card = self.cardinalities
        to_var = {(a, v): np.full(card[v], 1.0 / card[v]) for a, f in enumerate(self.factors) for v in f.variables}
        to_fac = dict(to_var)
        self.converged_ = False
        for it in range(int(max_iter)):
            new_to_var = {}
            for a, f in enumerate(self.factors):
                for i, v in enumerate(f.variables):
                    t = f.values
                    for j, u in enumerate(f.variables):
                        if j != i:
                            shape = [1] * t.ndim
                            shape[j] = card[u]
                            t = t * to_fac[(a, u)].reshape(shape)
                    m = t.sum(axis=tuple(j for j in range(t.ndim) if j != i))
                    s = m.sum()
                    new_to_var[(a, v)] = m / s if s > 0 else np.full(card[v], 1.0 / card[v])
            new_to_fac = {}
            for a, v in to_var:
                m = np.ones(card[v])
                for (b, u), msg in new_to_var.items():
                    if u == v and b != a:
                        m = m * msg
                s = m.sum()
                new_to_fac[(a, v)] = m / s if s > 0 else np.full(card[v], 1.0 / card[v])
            change = max(float(np.max(np.abs(new_to_var[k] - to_var[k]))) for k in to_var)
            change = max(change, max(float(np.max(np.abs(new_to_fac[k] - to_fac[k]))) for k in to_fac))
            to_var, to_fac = new_to_var, new_to_fac
            self.n_iter_ = it + 1
            if change <= tol:
                self.converged_ = True
                break
        marginals = {}
        for v in self.variables:
            m = np.ones(card[v])
            for (_a, u), msg in to_var.items():
                if u == v:
                    m = m * msg
            marginals[v] = m / m.sum()
        return marginals

    def brute_force_marginals(self) -> dict:
        """Exact marginals by multiplying every factor into the full joint (small graphs only)."""
        joint = self.factors[0]
        for f in self.factors[1:]:
            joint = joint * f
        joint = joint.normalize()
        return {v: joint.marginalize([u for u in joint.variables if u != v]).values for v in self.variables}
