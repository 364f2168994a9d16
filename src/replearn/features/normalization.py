"""CIML §5.3 feature and example normalization, and §5.4's log transform (seed 001 L1400-1470).

Feature normalization works on each feature across the training examples; its statistics are
computed on the training data only and stored, then applied unchanged to new data (L1437)::

    Centering          x_{n,d} <- x_{n,d} - mu_d                       (eq. 5.1, mu_d = mean, 5.4)
    Variance scaling   x_{n,d} <- x_{n,d} / sigma_d                    (eq. 5.2, sigma_d = std, 5.5)
    Absolute scaling   x_{n,d} <- x_{n,d} / r_d                        (eq. 5.3, r_d = max_n |x_{n,d}|, 5.6)

Example normalization works on each example: ``x_n <- x_n / ||x_n||`` (eq. 5.7). A feature (or
an example) that is zero / constant keeps scale 1, so no division by zero happens. CIML advises
against centering sparse data (it destroys sparsity, L1439); the scalings alone keep zeros.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Interval, Options
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features

_NORMS = ("l1", "l2", "max")


class _Fitted(TransformerMixin, BaseEstimator):
    _state = "n_features_in_"

    def _input(self, X):
        check_is_fitted(self, self._state)
        X = check_array(X)
        check_n_features(self, X)
        return X


class Center(_Fitted):
    """Centering (CIML eq. 5.1): subtract each feature's training mean ``mu_d`` (eq. 5.4).

    scikit-learn equivalent: ``StandardScaler(with_std=False)``.
    """

    _state = "mean_"

    def __init__(self):  # no hyperparameters
        pass

    def fit(self, X, y=None):
        X = check_array(X)
        self.mean_ = X.mean(axis=0)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        return self._input(X) - self.mean_


class VarianceScale(_Fitted):
    """Variance scaling (CIML eq. 5.2): divide each feature by its training standard deviation.

    ``sigma_d = sqrt(1/(n - ddof) sum_n (x_{n,d} - mu_d)^2)``; CIML eq. 5.5 uses ``N - 1``
    (``ddof=1``, the default here); scikit-learn's ``StandardScaler`` uses ``ddof=0``. The data are
    not centred (CIML's scaling formulas assume centred data, L1423: chain ``center`` first, or use
    ``standardize``). A constant feature keeps scale 1.

    scikit-learn equivalent: ``StandardScaler(with_mean=False)`` with ``ddof=0``.
    """

    _state = "scale_"

    _constraints = {"ddof": Interval(int, 0, 1)}

    def __init__(self, ddof: int = 1):
        self.ddof = ddof

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        if X.shape[0] <= self.ddof:
            raise ValueError(f"ddof={self.ddof} needs at least {self.ddof + 1} training examples")
        std = X.std(axis=0, ddof=self.ddof)
        self.scale_ = np.where(std > np.finfo(float).eps * np.maximum(1.0, np.abs(X.mean(axis=0))), std, 1.0)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        return self._input(X) / self.scale_


class MaxAbsScale(_Fitted):
    """Absolute scaling (CIML eq. 5.3): divide each feature by ``r_d = max_n |x_{n,d}|`` (eq. 5.6),
    so every feature has maximum absolute value 1 on the training data (target (b), L1419). Keeps
    zeros (sparsity); an all-zero feature keeps scale 1.

    scikit-learn equivalent: ``MaxAbsScaler()``.
    """

    _state = "scale_"

    def __init__(self):  # no hyperparameters
        pass

    def fit(self, X, y=None):
        X = check_array(X)
        r = np.abs(X).max(axis=0)
        self.scale_ = np.where(r > 0, r, 1.0)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        return self._input(X) / self.scale_


class Normalize(_Fitted):
    """Example normalization (CIML eq. 5.7, L1443): ``x_n <- x_n / ||x_n||`` for each example.

    ``norm="l2"`` is CIML's unit length; ``"l1"`` and ``"max"`` are also offered. Stateless apart
    from the number of features; an all-zero example stays zero.

    scikit-learn equivalent: ``Normalizer(norm=norm)``.
    """

    _constraints = {"norm": Options(_NORMS)}

    def __init__(self, norm: str = "l2"):
        self.norm = norm

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        X = self._input(X)
        if self.norm == "l2":
            nrm = np.sqrt(np.einsum("ij,ij->i", X, X))
        elif self.norm == "l1":
            nrm = np.abs(X).sum(axis=1)
        else:
            nrm = np.abs(X).max(axis=1)
        return X / np.where(nrm > 0, nrm, 1.0)[:, None]


class LogTransform(_Fitted):
    """CIML's log transform (§5.4, L1470): ``x_d -> log2(|x_d| + 1) sign(x_d)``.

    For counts (``x >= 0``) this is ``log2(x + 1)``: it keeps zeros (and so sparsity) and damps
    large counts (Fig. 5.12: word counts vs log counts). ``base`` changes the logarithm (the map is
    then only rescaled). Stateless apart from the number of features.
    """

    _constraints = {"base": Interval(float, 1.0, None, closed="neither")}

    def __init__(self, base: float = 2.0):
        self.base = base

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        X = self._input(X)
        return np.sign(X) * np.log1p(np.abs(X)) / np.log(float(self.base))
