"""One-hot encoding of categorical columns (CIML §3.1, seed 001 L622-633)."""

from __future__ import annotations

import numpy as np

from .._constraints import Options
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features

_UNKNOWN = ("error", "ignore")


class OneHot(TransformerMixin, BaseEstimator):
    """Replace each categorical column with ``V`` indicator columns, one per value seen in training.

    CIML §3.1 (L622-633): a categorical feature with ``V`` values becomes ``V`` binary indicators
    (not ``log2 V`` bits, which would impose a spurious structure). Categories are the sorted
    distinct training values of the column (numeric codes: the pipeline passes numeric matrices).
    A value not seen in training gives all zeros in its block (``handle_unknown="ignore"``, CIML's
    "unknown" / CS229's UNK idea) or raises (``"error"``).

    ``columns`` selects the columns to encode (None: all); the others pass through unchanged, and
    the output keeps the column order (each encoded column is replaced by its block).

    Parameters
    ----------
    columns : list of int or None, default None
    handle_unknown : {"ignore", "error"}, default "ignore"

    Attributes
    ----------
    categories_ : array (n_encoded, max_categories), NaN-padded
    n_categories_ : int array (n_encoded,)
    encoded_columns_ : int array (n_encoded,)
    n_features_in_ : int

    scikit-learn equivalent: ``OneHotEncoder(handle_unknown=..., sparse_output=False)`` (with a
    ``ColumnTransformer`` when only some columns are encoded).
    """

    _constraints = {"handle_unknown": Options(_UNKNOWN)}

    def __init__(self, columns=None, handle_unknown: str = "ignore"):
        self.columns = columns
        self.handle_unknown = handle_unknown

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        d = X.shape[1]
        cols = np.arange(d) if self.columns is None else np.asarray(self.columns, dtype=np.int64).ravel()
        if cols.size and (cols.min() < -d or cols.max() >= d):
            raise ValueError(f"columns {cols.tolist()} out of range for X with {d} features")
        cols = np.unique(cols % d)
        cats = [np.unique(X[:, j]) for j in cols]
        width = max((c.size for c in cats), default=0)
        table = np.full((cols.size, width), np.nan)
        for i, c in enumerate(cats):
            table[i, : c.size] = c
        self.categories_ = table
        self.n_categories_ = np.asarray([c.size for c in cats], dtype=np.int64)
        self.encoded_columns_ = cols.astype(np.int64)
        self.n_features_in_ = d
        return self

    def transform(self, X):
        check_is_fitted(self, "categories_")
        X = check_array(X)
        check_n_features(self, X)
        blocks = []
        encoded = {int(j): i for i, j in enumerate(self.encoded_columns_)}
        for j in range(X.shape[1]):
            if j not in encoded:
                blocks.append(X[:, j : j + 1])
                continue
            i = encoded[j]
            cats = self.categories_[i, : self.n_categories_[i]]
            pos = np.searchsorted(cats, X[:, j])
            pos_c = np.minimum(pos, cats.size - 1)
            known = cats[pos_c] == X[:, j]
            if not np.all(known) and self.handle_unknown == "error":
                bad = X[~known, j][0]
                raise ValueError(f"column {j} has the value {bad!r}, not seen in training; use handle_unknown='ignore'")
            block = np.zeros((X.shape[0], cats.size))
            rows = np.flatnonzero(known)
            block[rows, pos_c[known]] = 1.0
            blocks.append(block)
        return np.hstack(blocks)
