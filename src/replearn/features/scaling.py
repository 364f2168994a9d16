"""Standardization: centre each feature and divide by its standard deviation (CIML §5.3, "feature
normalization"; CS229 notes §12 preprocessing for PCA, seed 000 L4889-4910).

    z_j = (x_j - mu_j) / sigma_j,   mu_j, sigma_j^2 = mean and variance (1/n) over the training data

A feature that is constant on the training data keeps scale 1 (it is only centred), so no division
by zero happens. Same as scikit-learn's ``StandardScaler`` (population variance, ddof = 0).
"""

from __future__ import annotations

import numpy as np

from .._constraints import Boolean
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features


class Standardize(TransformerMixin, BaseEstimator):
    """Centre (``with_mean``) and scale to unit variance (``with_std``), fitted on training data."""

    _constraints = {"with_mean": Boolean(), "with_std": Boolean()}

    def __init__(self, with_mean: bool = True, with_std: bool = True):
        self.with_mean = with_mean
        self.with_std = with_std

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        self.mean_ = X.mean(axis=0) if self.with_mean else np.zeros(X.shape[1])
        if self.with_std:
            std = X.std(axis=0)
            self.scale_ = np.where(std > np.finfo(float).eps * np.maximum(1.0, np.abs(self.mean_)), std, 1.0)
        else:
            self.scale_ = np.ones(X.shape[1])
        return self

    def transform(self, X):
        check_is_fitted(self, "mean_")
        X = check_array(X)
        check_n_features(self, X)
        return (X - self.mean_) / self.scale_

    def inverse_transform(self, Z):
        check_is_fitted(self, "mean_")
        return check_array(Z) * self.scale_ + self.mean_
