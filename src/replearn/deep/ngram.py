"""A character (or any token) n-gram language model with smoothing: the baseline for the transformer.

``p(x_t | x_{t-n+1..t-1})`` from counts (Shannon 1948; Jurafsky and Martin, *Speech and Language
Processing*, ch. 3; CS229's autoregressive factorization p(x_1..x_T) = prod_t p(x_t | x_{<t}),
seed 000 L5188-5231, with a fixed-length history):

* ``smoothing="interpolated"`` (default; MacKay and Peto's hierarchical Dirichlet smoothing): with
  history ``h`` and its one-shorter suffix ``h'``,
  ``p(c | h) = (N(h, c) + alpha p(c | h')) / (N(h) + alpha)``, down to ``p(c | empty) =
  (N(c) + alpha / V) / (N + alpha)``. Unseen histories fall back to ``p(c | h')`` exactly.
* ``smoothing="add_k"`` (Lidstone; Laplace for ``alpha = 1``): ``p(c | h) = (N(h, c) + alpha) / (N(h) + alpha V)``.

The first ``n - 1`` tokens of a sequence use the shorter history that exists. ``bits_per_token`` is
``-(1/m) sum_t log2 p(x_t | history)`` over tokens ``1..m`` (the first token, with an empty history,
is not scored, as in the transformer's evaluation).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from .._constraints import Interval, Options
from ..base import BaseEstimator
from ..validation import check_is_fitted

__all__ = ["NGramLM"]


class NGramLM(BaseEstimator):
    """Smoothed n-gram model over integer tokens ``0..vocab_size-1``.

    Parameters
    ----------
    order : int >= 1, default 3
        ``n``: the history is the previous ``n - 1`` tokens.
    smoothing : {"interpolated", "add_k"}, default "interpolated"
    alpha : float > 0, default 1.0
        Dirichlet strength (interpolated) or ``k`` (add-k).
    vocab_size : int or None
        ``None`` takes ``max(X) + 1``.

    Attributes
    ----------
    counts_ : list of dict
        ``counts_[k][history]`` (a tuple of ``k`` tokens) is the array of next-token counts.
    vocab_size_ : int
    """

    _constraints = {
        "order": Interval(int, 1, None),
        "smoothing": Options({"interpolated", "add_k"}),
        "alpha": Interval(float, 0.0, None, closed="neither"),
    }

    def __init__(self, order=3, smoothing="interpolated", alpha=1.0, vocab_size=None):
        self.order = order
        self.smoothing = smoothing
        self.alpha = alpha
        self.vocab_size = vocab_size

    @staticmethod
    def _ids(X) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 1 or X.size < 2 or X.dtype.kind not in "iu" or X.min() < 0:
            raise ValueError("X must be a 1-D array of at least 2 non-negative integer token ids")
        return X.astype(np.intp)

    def fit(self, X, y=None):
        """Count every history of length ``0..order-1`` and its next token in the sequence ``X``."""
        self._validate_params()
        X = self._ids(X)
        V = int(self.vocab_size) if self.vocab_size is not None else int(X.max()) + 1
        if X.max() >= V:
            raise ValueError(f"X has token id {X.max()} but vocab_size={V}")
        counts = [defaultdict(lambda: np.zeros(V)) for _ in range(int(self.order))]
        for t in range(X.size):
            for k in range(min(int(self.order) - 1, t) + 1):
                counts[k][tuple(X[t - k : t])][X[t]] += 1
        self.counts_ = [dict(c) for c in counts]
        self.vocab_size_ = V
        return self

    def _distribution(self, history: tuple) -> np.ndarray:
        V, a = self.vocab_size_, float(self.alpha)
        if self.smoothing == "add_k":
            for k in range(len(history), -1, -1):  # the longest history that was seen
                c = self.counts_[k].get(history[len(history) - k :])
                if c is not None:
                    return (c + a) / (c.sum() + a * V)
            return np.full(V, 1.0 / V)
        p = np.full(V, 1.0 / V)
        for k in range(0, len(history) + 1):
            c = self.counts_[k].get(history[len(history) - k :])
            if c is None:
                break  # a longer history containing this one was not seen either
            p = (c + a * p) / (c.sum() + a)
        return p

    def predict_proba(self, history) -> np.ndarray:
        """``p(next token | history)`` (the last ``order - 1`` tokens of ``history`` are used)."""
        check_is_fitted(self, "counts_")
        h = tuple(int(t) for t in np.asarray(history, dtype=np.intp).ravel())
        if int(self.order) > 1:
            h = h[-(int(self.order) - 1) :]
        else:
            h = ()
        return self._distribution(h)

    def log_likelihood(self, X) -> np.ndarray:
        """``log p(x_t | history)`` (nats) for ``t = 1..len(X)-1``."""
        check_is_fitted(self, "counts_")
        X = self._ids(X)
        if X.max() >= self.vocab_size_:
            raise ValueError(f"X has token id {X.max()} outside the fitted vocabulary of {self.vocab_size_}")
        n1 = int(self.order) - 1
        out = np.empty(X.size - 1)
        for t in range(1, X.size):
            h = tuple(X[max(0, t - n1) : t]) if n1 > 0 else ()
            out[t - 1] = np.log(self._distribution(h)[X[t]])
        return out

    def bits_per_token(self, X) -> float:
        """Mean cross-entropy in bits of tokens ``1..len(X)-1`` of ``X``."""
        return float(-self.log_likelihood(X).mean() / np.log(2.0))

    def score(self, X, y=None) -> float:
        """Mean log-likelihood (nats) per scored token; higher is better."""
        return float(self.log_likelihood(X).mean())
