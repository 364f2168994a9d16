"""Probabilistic graphical models (EPFL notes, seed 004 L1912-2072).

* :class:`Factor`: a table over discrete variables (product, marginalize, reduce);
* :class:`DiscreteBayesianNetwork`: CPTs on a DAG; variable elimination, d-separation (Bayes ball),
  Markov blankets, ancestral sampling, fitting CPTs by counting;
* :class:`FactorGraph`: sum-product belief propagation (exact on trees, loopy otherwise).
"""

from .bayesian_network import DiscreteBayesianNetwork, eliminate
from .factor import Factor
from .factor_graph import FactorGraph

__all__ = ["Factor", "DiscreteBayesianNetwork", "FactorGraph", "eliminate"]
