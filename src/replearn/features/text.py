"""Bag of words over token-id matrices, and feature pruning by document frequency.

The pipeline passes numeric matrices, so text enters as **token ids**: each row of ``X`` is one
document, its entries are non-negative integer word ids (as produced by any tokenizer + vocabulary
lookup, e.g. the CS229 spam data's word indices), right-padded with ``pad`` (default -1) to a
common length. :class:`BagOfWords` turns that into a count (or binary) matrix with one column per
vocabulary word plus an UNK column; :class:`DocumentFrequencyPrune` prunes the columns of any
count/binary matrix (e.g. an existing bag-of-words matrix).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._constraints import Boolean, Interval
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features, check_scalar


def _token_ids(X, pad) -> np.ndarray:
    """Validate a token-id matrix; returns int64 ids with ``pad`` entries as -1."""
    X = check_array(X)
    if not np.all(np.mod(X, 1) == 0):
        raise ValueError("a token-id matrix must hold integer word ids (and the pad value)")
    ids = X.astype(np.int64)
    is_pad = ids == int(pad)
    if np.any((ids < 0) & ~is_pad):
        raise ValueError(f"token ids must be >= 0 (padding is {pad}); found a negative id")
    return np.where(is_pad, -1, ids)


def _document_frequency(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ids, their document frequency and their total count (ignoring -1)."""
    n = ids.shape[0]
    rows = np.repeat(np.arange(n), ids.shape[1])
    flat = ids.ravel()
    keep = flat >= 0
    rows, flat = rows[keep], flat[keep]
    vocab, inverse, total = np.unique(flat, return_inverse=True, return_counts=True)
    pairs = np.unique(rows.astype(np.int64) * (vocab.size + 1) + inverse)
    df = np.bincount(pairs % (vocab.size + 1), minlength=vocab.size)[: vocab.size]
    return vocab, df, total


def _df_threshold(value, n: int, name: str) -> float:
    """An int is a number of documents, a float in (0, 1] a fraction of them."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        check_scalar(value, name, numbers.Integral, low=0)
        return float(value)
    check_scalar(value, name, numbers.Real, low=0.0, high=1.0)
    return float(value) * n


class BagOfWords(TransformerMixin, BaseEstimator):
    """Bag-of-words counts from a token-id matrix (CIML §5.1, seed 001 L1317; CS229 notes §4.2,
    seed 000 L1357-1531; Waterloo notes §1, seed 003 L74-100).

    Output column ``k`` counts the occurrences of vocabulary word ``vocabulary_[k]`` in the document
    (``binary=True``: 1 if it occurs -- the multivariate-Bernoulli features of CS229 §4.2 / the
    Waterloo notes; counts feed the multinomial event model of §4.2.2). Word order is discarded.

    The vocabulary is learned on the training documents: words in at least ``min_df`` documents
    (CIML §5.3's pruning of rare words; CS229's footnote L1383 on stop words), optionally only the
    ``max_features`` most frequent ones (ties: smaller id first), sorted by id. With ``unk=True`` a
    last column counts every other token -- training words pruned away and words never seen in
    training -- the UNK token of the CS229 notes' annotation (L1523-1531) and summaries (seed 002
    L972: top 10000 words + "UNK").

    Parameters
    ----------
    binary : bool, default False
    min_df : int >= 1, default 1
    max_features : int or None, default None
    unk : bool, default True
    pad : int, default -1
        Padding value in the token-id matrix (ignored).

    Attributes
    ----------
    vocabulary_ : int array (V,)
        Word ids of the output columns, increasing.
    n_features_in_ : int
        Width of the token-id matrix.

    scikit-learn equivalent: ``CountVectorizer(binary=..., min_df=..., max_features=...)`` applied
    to the documents as strings of word tokens (it has no UNK column).
    """

    _constraints = {
        "binary": Boolean(),
        "min_df": Interval(int, 1, None),
        "max_features": (None, Interval(int, 1, None)),
        "unk": Boolean(),
        "pad": Interval(int),
    }

    def __init__(self, binary: bool = False, min_df: int = 1, max_features=None, unk: bool = True, pad: int = -1):
        self.binary = binary
        self.min_df = min_df
        self.max_features = max_features
        self.unk = unk
        self.pad = pad

    def fit(self, X, y=None):
        self._validate_params()
        ids = _token_ids(X, self.pad)
        vocab, df, total = _document_frequency(ids)
        keep = df >= int(self.min_df)
        vocab, total = vocab[keep], total[keep]
        if self.max_features is not None and vocab.size > self.max_features:
            order = np.lexsort((vocab, -total))[: int(self.max_features)]  # most frequent, then smaller id
            vocab = np.sort(vocab[order])
        if vocab.size == 0 and not self.unk:
            raise ValueError("the vocabulary is empty (min_df too large?) and unk=False")
        self.vocabulary_ = vocab.astype(np.int64)
        self.n_features_in_ = ids.shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self, "vocabulary_")
        ids = _token_ids(X, self.pad)
        check_n_features(self, ids)
        V = self.vocabulary_.size
        width = V + int(self.unk)
        n = ids.shape[0]
        rows = np.repeat(np.arange(n), ids.shape[1])
        flat = ids.ravel()
        real = flat >= 0
        rows, flat = rows[real], flat[real]
        pos = np.searchsorted(self.vocabulary_, flat)
        pos_c = np.minimum(pos, max(V - 1, 0))
        known = (V > 0) & (self.vocabulary_[pos_c] == flat) if V else np.zeros(flat.size, dtype=bool)
        col = np.where(known, pos_c, V)
        if not self.unk:
            rows, col = rows[known], col[known]
        out = np.zeros((n, width))
        np.add.at(out, (rows, col), 1.0)
        if self.binary:
            out = (out > 0).astype(np.float64)
        return out


class DocumentFrequencyPrune(TransformerMixin, BaseEstimator):
    """Drop features by document frequency (and optionally low variance), CIML §5.3 (seed 001 L1379-1398).

    On a count or binary matrix, the document frequency of feature ``j`` is the number of training
    rows where it is non-zero. CIML removes a feature that appears in ``<= K`` documents (rare words,
    ``K`` in {1, 2, 5, 10, 20, 50}, L1381) and optionally those in all but ``K`` documents ("the"). In
    scikit-learn's terms, kept features have ``min_df <= df <= max_df`` (CIML's ``K`` is
    ``min_df = K + 1``); an integer is a number of documents, a float in [0, 1] a fraction. For
    real-valued features CIML prunes low-variance ones instead (L1398): ``min_variance`` drops the
    features whose training variance is ``<= min_variance``. Computed on the training data only.

    Parameters
    ----------
    min_df : int or float, default 1
    max_df : int or float, default 1.0
    min_variance : float or None, default None

    Attributes
    ----------
    document_frequency_ : int array (n_features_in_,)
    support_ : bool array (n_features_in_,)
        The kept columns.
    n_features_in_ : int

    scikit-learn equivalents: ``CountVectorizer(min_df=..., max_df=...)``'s vocabulary pruning;
    ``VarianceThreshold(threshold=min_variance)``.
    """

    _constraints = {
        # an int is a number of documents, a float in [0, 1] a fraction of them (_df_threshold)
        "min_df": (Interval(int, 0, None), Interval(float, 0.0, 1.0)),
        "max_df": (Interval(int, 0, None), Interval(float, 0.0, 1.0)),
        "min_variance": (None, Interval(float, 0.0, None)),
    }

    def __init__(self, min_df=1, max_df=1.0, min_variance=None):
        self.min_df = min_df
        self.max_df = max_df
        self.min_variance = min_variance

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        n = X.shape[0]
        lo = _df_threshold(self.min_df, n, "min_df")
        hi = _df_threshold(self.max_df, n, "max_df")
        df = np.count_nonzero(X, axis=0)
        keep = (df >= lo) & (df <= hi)
        if self.min_variance is not None:
            keep &= X.var(axis=0) > float(self.min_variance)
        if not np.any(keep):
            raise ValueError(
                f"pruning removed every feature (min_df={self.min_df}, max_df={self.max_df}, "
                f"min_variance={self.min_variance}); loosen the thresholds"
            )
        self.document_frequency_ = df.astype(np.int64)
        self.support_ = keep
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self, "support_")
        X = check_array(X)
        check_n_features(self, X)
        return X[:, self.support_]
