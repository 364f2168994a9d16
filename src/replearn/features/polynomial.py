"""Polynomial feature map (CS229 notes §1.4 and §5.1, seed 000 L416-429, L1684-1698).

phi(x) = all monomials x_{j1} x_{j2} ... x_{jk} of degree 1 <= k <= ``degree`` (j1 <= j2 <= ... <= jk),
plus the constant 1 when ``include_bias``; with ``interaction_only`` no variable is repeated.
The columns come in scikit-learn's ``PolynomialFeatures`` order (by degree, then lexicographic).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._constraints import Boolean, Interval
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features

#: The most output columns a polynomial map may produce unless raised (configuration: ``features.max_columns``;
#: in code: the ``max_columns`` attribute of an instance). 100,000 float64 columns are 800 kB per example.
MAX_COLUMNS = 100_000


def output_width(n_features: int, degree: int, interaction_only: bool = False, include_bias: bool = False) -> int:
    """The number of columns :class:`PolynomialFeatures` produces, computed without building them."""
    d = int(n_features)
    if interaction_only:
        width = sum(math.comb(d, k) for k in range(1, int(degree) + 1))
    else:
        width = math.comb(d + int(degree), int(degree)) - 1  # monomials of degree 1..degree in d variables
    return width + int(bool(include_bias))


class PolynomialFeatures(TransformerMixin, BaseEstimator):
    """Monomials of the input features up to ``degree``.

    ``fit`` estimates the output width first (:func:`output_width`) and refuses more than ``max_columns``
    (default :data:`MAX_COLUMNS`; a plain attribute, not a hyperparameter, so it is neither saved nor compared).
    """

    _constraints = {"degree": Interval(int, 1, 10), "interaction_only": Boolean(), "include_bias": Boolean()}
    max_columns: int = MAX_COLUMNS

    def __init__(self, degree: int = 2, interaction_only: bool = False, include_bias: bool = False):
        self.degree = degree
        self.interaction_only = interaction_only
        self.include_bias = include_bias

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        d = X.shape[1]
        width = output_width(d, self.degree, self.interaction_only, self.include_bias)
        if width > self.max_columns:
            raise ValueError(
                f"degree={self.degree} on {d} features gives {width} columns, more than the limit of "
                f"{self.max_columns}; lower the degree or raise the limit (features.max_columns)"
            )
        combos = []
        pick = itertools.combinations if self.interaction_only else itertools.combinations_with_replacement
        for k in range(1, self.degree + 1):
            combos.extend(pick(range(d), k))
        # powers_[i, j] = exponent of feature j in output column i (stored as an array: safe format)
        powers = np.zeros((len(combos), d), dtype=np.int64)
        for i, c in enumerate(combos):
            np.add.at(powers[i], list(c), 1)
        self.powers_ = powers
        self.n_features_in_ = d
        self.n_output_features_ = len(combos) + int(self.include_bias)
        return self

    def transform(self, X):
        check_is_fitted(self, "powers_")
        X = check_array(X)
        check_n_features(self, X)
        out = [np.ones((X.shape[0], 1))] if self.include_bias else []
        # group columns by degree: each degree-k column is a degree-(k-1) column times one feature
        cols = np.empty((X.shape[0], self.powers_.shape[0]))
        for i, p in enumerate(self.powers_):
            nz = np.flatnonzero(p)
            cols[:, i] = np.prod(X[:, nz] ** p[nz], axis=1)
        out.append(cols)
        return np.hstack(out)
