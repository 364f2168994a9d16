"""Discrete factors: non-negative tables over named variables (EPFL notes, factor graphs, seed 004
L2062-2072; the operations of variable elimination and sum-product).

A :class:`Factor` ``phi(X_1..X_m)`` stores ``values`` with one axis per variable, in the order of
``variables``. ``product`` aligns the two tables on the union of their variables (broadcasting);
``marginalize`` sums variables out; ``reduce`` fixes observed values; ``normalize`` divides by the
total.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

__all__ = ["Factor"]


class Factor:
    """A table over discrete variables.

    Parameters
    ----------
    variables : sequence of hashable
        One name per axis of ``values`` (no repeats).
    values : array-like
        Non-negative entries; ``values.ndim == len(variables)``.
    """

    def __init__(self, variables: Iterable, values):
        self.variables = tuple(variables)
        self.values = np.asarray(values, dtype=float)
        if len(set(self.variables)) != len(self.variables):
            raise ValueError(f"repeated variable in {self.variables}")
        if self.values.ndim != len(self.variables):
            raise ValueError(
                f"values have {self.values.ndim} axes but {len(self.variables)} variables were named {self.variables}"
            )
        if np.any(self.values < 0) or not np.all(np.isfinite(self.values)):
            raise ValueError("factor values must be finite and non-negative")

    @property
    def cardinalities(self) -> dict:
        return dict(zip(self.variables, self.values.shape))

    def __repr__(self) -> str:
        return f"Factor({self.variables}, shape={self.values.shape})"

    def _aligned(self, order: tuple) -> np.ndarray:
        """``values`` transposed to ``order`` (a superset of the variables), with size-1 axes for the rest."""
        present = [v for v in order if v in self.variables]
        t = np.transpose(self.values, [self.variables.index(v) for v in present])
        shape = [self.values.shape[self.variables.index(v)] if v in self.variables else 1 for v in order]
        return t.reshape(shape)

    def product(self, other: Factor) -> Factor:
        order = self.variables + tuple(v for v in other.variables if v not in self.variables)
        for v in set(self.variables) & set(other.variables):
            if self.cardinalities[v] != other.cardinalities[v]:
                raise ValueError(f"variable {v!r} has cardinality {self.cardinalities[v]} and {other.cardinalities[v]}")
        return Factor(order, self._aligned(order) * other._aligned(order))

    def __mul__(self, other: Factor) -> Factor:
        return self.product(other)

    def marginalize(self, variables: Iterable) -> Factor:
        """Sum out ``variables``."""
        drop = set(variables)
        unknown = drop - set(self.variables)
        if unknown:
            raise ValueError(f"cannot sum out {sorted(map(str, unknown))}: not in {self.variables}")
        axes = tuple(i for i, v in enumerate(self.variables) if v in drop)
        keep = tuple(v for v in self.variables if v not in drop)
        return Factor(keep, self.values.sum(axis=axes))

    def reduce(self, evidence: Mapping) -> Factor:
        """Fix the observed variables at their values (they leave the factor)."""
        index = []
        keep = []
        for v, n in zip(self.variables, self.values.shape):
            if v in evidence:
                val = int(evidence[v])
                if not 0 <= val < n:
                    raise ValueError(f"evidence {v}={val} outside 0..{n - 1}")
                index.append(val)
            else:
                index.append(slice(None))
                keep.append(v)
        return Factor(keep, self.values[tuple(index)])

    def normalize(self) -> Factor:
        total = self.values.sum()
        if total <= 0:
            raise ValueError("the factor sums to 0 (impossible evidence?)")
        return Factor(self.variables, self.values / total)

    def transpose(self, order: Iterable) -> Factor:
        """The same factor with its axes in ``order`` (a permutation of ``variables``)."""
        order = tuple(order)
        if set(order) != set(self.variables) or len(order) != len(self.variables):
            raise ValueError(f"{order} is not a permutation of {self.variables}")
        return Factor(order, self._aligned(order))
