"""The structured perceptron for sequence labelling (CIML §17.2, Alg. 40)."""

from __future__ import annotations

import numpy as np

from .._constraints import Boolean
from ._base import COMMON_CONSTRAINTS, SequenceLabelerBase


class StructuredPerceptron(SequenceLabelerBase):
    """Structured perceptron (CIML Alg. 40 StructuredPerceptronTrain, §17.2, seed 001 L5091-5110).

    Update rule: for each training pair (x, y), ``yhat = argmax_{y'} w . phi(x, y')`` (Viterbi,
    Alg. 42); if ``yhat != y``: ``w <- w + phi(x, y) - phi(x, yhat)``. ``phi`` is the joint feature
    map of :mod:`replearn.structured.features` (unary features (outer) label plus label-transition
    indicators, K(D + K) weights). It is Alg. 39 (the multiclass perceptron) with the argmax over the
    K^L label sequences.

    Parameters
    ----------
    max_iter : int — passes over the data (CIML's MaxIter); training stops early after a pass
        without mistakes.
    shuffle : bool — visit the sequences in a new random order every pass (CIML L1039).
    average : bool — return the averaged weights (Alg. 7's trick, L5048 "averaging helps"):
        ``w - u / c`` with ``u`` the count-weighted sum of updates.
    random_state : None, int or Generator — the shuffling order.

    Attributes: see :class:`~replearn.structured._base.SequenceLabelerBase`.
    """

    _constraints = {**COMMON_CONSTRAINTS, "average": Boolean()}

    def __init__(self, max_iter=10, shuffle=True, average=False, random_state=None):
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.average = average
        self.random_state = random_state

    def fit(self, X_seqs, Y_seqs):
        """Run Alg. 40; returns ``self``."""
        self._validate_params()
        X, codes, rng = self._prepare(X_seqs, Y_seqs)
        dim = self._K * (self.n_features_in_ + self._K)
        w = np.zeros(dim)
        u = np.zeros(dim)  # Alg. 7's sum of c * update
        c = 1
        mistakes, hamming = [], []
        order = np.arange(len(X))
        for _ in range(int(self.max_iter)):
            if self.shuffle:
                order = rng.permutation(len(X))
            m = 0
            for i in order:
                yhat = self._decode(w, X[i])
                if not np.array_equal(yhat, codes[i]):
                    delta = self._phi(X[i], codes[i]) - self._phi(X[i], yhat)
                    w += delta
                    u += c * delta
                    m += 1
                c += 1
            mistakes.append(m)
            current = w - u / c if self.average else w
            hamming.append(self._hamming_rate(current, X, codes))
            if m == 0:
                break
        self.coef_ = w - u / c if self.average else w
        self.n_iter_ = len(mistakes)
        self.mistake_history_ = mistakes
        self.hamming_history_ = hamming
        return self
