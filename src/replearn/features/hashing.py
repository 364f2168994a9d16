"""Feature hashing (the hashing trick), CIML §14.4 (seed 001 L4434-4466)."""

from __future__ import annotations

import numpy as np
import scipy.sparse

from .._constraints import Boolean, Interval, Options
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features
from .text import _token_ids

_INPUTS = ("columns", "token_ids")
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def hash64(keys: np.ndarray, seed: int) -> np.ndarray:
    """A 64-bit hash of non-negative integer keys: MurmurHash3's finalizer (fmix64) of ``key + seed * phi``.

    Deterministic across runs and platforms (no Python ``hash`` randomization); uint64 arithmetic
    wraps modulo 2^64 by design.
    """
    with np.errstate(over="ignore"):
        h = np.atleast_1d(np.asarray(keys, dtype=np.uint64)) + np.uint64(seed) * _GOLDEN
        h ^= h >> np.uint64(33)
        h *= _M1
        h ^= h >> np.uint64(33)
        h *= _M2
        h ^= h >> np.uint64(33)
    return h


class FeatureHasher(TransformerMixin, BaseEstimator):
    """Hash features into ``n_features`` buckets (CIML §14.4, eq. 14.9).

    ``phi(x)_p = sum_{d : h(d) = p} xi(d) x_d``: every input feature ``d`` is added into bucket
    ``h(d)`` -- CIML's loop ``x_hat_{h(d)} += x_d`` -- optionally with a random sign ``xi(d) = +-1``
    (``alternate_sign=True``), which makes the hashed inner product an *unbiased* estimate of the
    original one (CIML eq. 14.14's collision terms then have mean 0; without signs they are
    non-negative for non-negative data). No vocabulary is stored, so memory does not grow with the
    number of distinct features. ``h`` and ``xi`` come from a 64-bit integer hash
    (:func:`hash64`, MurmurHash3's finalizer) of the feature's index or id and ``seed`` -- not
    scikit-learn's MurmurHash3 of strings, so the buckets differ from ``FeatureHasher``'s, but the
    properties (determinism, unbiasedness, collision rate ~ 1/n_features) are the same.

    Inputs (``input``):

    * ``"columns"``: ``X`` is an ordinary matrix; feature ``d`` is column ``d``.
    * ``"token_ids"``: ``X`` is a token-id matrix (see :mod:`replearn.features.text`; padding
      ``pad``); feature ``d`` is word id ``d`` and each occurrence adds ``xi(d)`` -- hashed bag of
      words without a vocabulary.

    Parameters
    ----------
    n_features : int >= 1, default 1024
    alternate_sign : bool, default True
    input : {"columns", "token_ids"}, default "columns"
    seed : int >= 0, default 0
    pad : int, default -1

    Attributes
    ----------
    bucket_, sign_ : arrays (n_features_in_,) -- ``"columns"`` input only
    n_features_in_ : int

    scikit-learn equivalent: ``FeatureHasher(n_features, alternate_sign=...)`` (different hash).
    """

    _constraints = {
        "n_features": Interval(int, 1, None),
        "alternate_sign": Boolean(),
        "input": Options(_INPUTS),
        "seed": Interval(int, 0, None),
        "pad": Interval(int),
    }

    def __init__(
        self, n_features: int = 1024, alternate_sign: bool = True, input: str = "columns", seed: int = 0, pad: int = -1
    ):
        self.n_features = n_features
        self.alternate_sign = alternate_sign
        self.input = input
        self.seed = seed
        self.pad = pad

    def _hash(self, keys):
        h = hash64(keys, int(self.seed))
        bucket = (h % np.uint64(self.n_features)).astype(np.int64)
        if self.alternate_sign:
            sign = np.where((h >> np.uint64(63)) == 1, -1.0, 1.0)  # top bit: independent of the bucket bits
        else:
            sign = np.ones(bucket.shape)
        return bucket, sign

    def fit(self, X, y=None):
        self._validate_params()
        if self.input == "token_ids":
            ids = _token_ids(X, self.pad)
            self.n_features_in_ = ids.shape[1]
            return self
        X = check_array(X)
        self.bucket_, self.sign_ = self._hash(np.arange(X.shape[1]))
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self, "n_features_in_")
        m = int(self.n_features)
        if self.input == "token_ids":
            ids = _token_ids(X, self.pad)
            check_n_features(self, ids)
            rows = np.repeat(np.arange(ids.shape[0]), ids.shape[1])
            flat = ids.ravel()
            real = flat >= 0
            bucket, sign = self._hash(flat[real])
            out = np.zeros((ids.shape[0], m))
            np.add.at(out, (rows[real], bucket), sign)
            return out
        X = check_array(X)
        check_n_features(self, X)
        # a sparse d x m matrix: column d of X goes to bucket_[d] with sign_[d]
        P = scipy.sparse.csr_matrix((self.sign_, (np.arange(X.shape[1]), self.bucket_)), shape=(X.shape[1], m))
        return np.asarray(X @ P)
