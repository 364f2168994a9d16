"""Binning (discretization) of continuous features into intervals.

CS229 notes §4.2 (seed 000 L1410-1419) discretize a continuous feature (living area into 5 bins)
so that naive Bayes can model it with a multinomial / categorical event model; the CS229 summaries
(seed 002 L1082-1096) note this can beat GDA when the features are not Gaussian. The bin edges
are learned on the training data only.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Interval, Options
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features

_STRATEGIES = ("quantile", "uniform")
_ENCODINGS = ("onehot", "ordinal")
_QUANTILE_METHODS = ("averaged_inverted_cdf", "inverted_cdf", "linear")


class Binning(TransformerMixin, BaseEstimator):
    """Discretize each feature into ``n_bins`` intervals.

    * ``strategy="uniform"``: equal-width bins between the training minimum and maximum.
    * ``strategy="quantile"``: edges at the ``0, 1/n_bins, ..., 1`` quantiles of the training values
      (``numpy.percentile`` with ``quantile_method``), so each bin holds about the same number of
      examples; bins narrower than 1e-8 (repeated values) are merged, so a feature may get fewer bins.

    A value is assigned bin ``k`` when ``edge_k <= x < edge_{k+1}`` using the inner edges only, so
    values below the training minimum go to the first bin and values above the maximum to the last.
    A feature that is constant on the training data gets a single bin. ``encode="ordinal"`` returns
    the bin index (0 .. n_bins - 1) per feature; ``"onehot"`` returns indicator columns, feature by
    feature.

    Parameters
    ----------
    n_bins : int >= 2, default 5
    strategy : {"quantile", "uniform"}, default "quantile"
    encode : {"ordinal", "onehot"}, default "ordinal"
    quantile_method : {"averaged_inverted_cdf", "inverted_cdf", "linear"}, default "averaged_inverted_cdf"

    Attributes
    ----------
    bin_edges_ : array (n_features, n_bins + 1)
        Edges per feature, NaN-padded on the right where a feature has fewer bins.
    n_bins_ : int array (n_features,)
    n_features_in_ : int

    scikit-learn equivalent: ``KBinsDiscretizer(n_bins, encode="ordinal" or "onehot-dense",
    strategy=..., quantile_method=...)`` (same edges and assignments).
    """

    _constraints = {
        "n_bins": Interval(int, 2, None),
        "strategy": Options(_STRATEGIES),
        "encode": Options(_ENCODINGS),
        "quantile_method": Options(_QUANTILE_METHODS),
    }

    def __init__(
        self,
        n_bins: int = 5,
        strategy: str = "quantile",
        encode: str = "ordinal",
        quantile_method: str = "averaged_inverted_cdf",
    ):
        self.n_bins = n_bins
        self.strategy = strategy
        self.encode = encode
        self.quantile_method = quantile_method

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        d = X.shape[1]
        nb = int(self.n_bins)
        edges = np.full((d, nb + 1), np.nan)
        counts = np.empty(d, dtype=np.int64)
        for j in range(d):
            col = X[:, j]
            lo, hi = col.min(), col.max()
            if lo == hi:
                e = np.array([-np.inf, np.inf])
            elif self.strategy == "uniform":
                e = np.linspace(lo, hi, nb + 1)
            else:
                e = np.percentile(col, np.linspace(0, 100, nb + 1), method=self.quantile_method)
                e = e[np.ediff1d(e, to_begin=np.inf) > 1e-8]
            edges[j, : e.size] = e
            counts[j] = e.size - 1
        self.bin_edges_ = edges
        self.n_bins_ = counts
        self.n_features_in_ = d
        return self

    def transform(self, X):
        check_is_fitted(self, "bin_edges_")
        X = check_array(X)
        check_n_features(self, X)
        codes = np.empty(X.shape, dtype=np.int64)
        for j in range(X.shape[1]):
            inner = self.bin_edges_[j, 1 : self.n_bins_[j]]
            codes[:, j] = np.searchsorted(inner, X[:, j], side="right")
        if self.encode == "ordinal":
            return codes.astype(np.float64)
        offsets = np.concatenate([[0], np.cumsum(self.n_bins_)])
        out = np.zeros((X.shape[0], int(offsets[-1])))
        out[np.arange(X.shape[0])[:, None], offsets[:-1] + codes] = 1.0
        return out
