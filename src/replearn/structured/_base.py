"""What the structured perceptron and the structured SVM share: label encoding, the joint feature
map's weights, Viterbi decoding and the per-epoch histories."""

from __future__ import annotations

import numpy as np

from .._constraints import Boolean, Interval
from ..base import BaseEstimator
from ..validation import check_is_fitted, check_random_state
from .features import check_sequences, joint_features, split_weights
from .viterbi import viterbi

#: the hyperparameters both sequence labellers have; each class's ``_constraints`` adds its own
COMMON_CONSTRAINTS = {"max_iter": Interval(int, 1, None), "shuffle": Boolean()}


class SequenceLabelerBase(BaseEstimator):
    """fit(X_seqs, Y_seqs) / predict(X_seqs) on lists of (L_i, D) inputs and (L_i,) label sequences.

    Learned: ``classes_`` (sorted labels), ``coef_`` (the flat weights over phi, length K(D + K)),
    ``n_features_in_`` (D), ``n_iter_`` (epochs run), ``mistake_history_`` (sequences whose
    (loss-augmented) argmax differed from the truth, per epoch) and ``hamming_history_`` (training
    Hamming loss per position of the weights after each epoch).
    """

    _estimator_type = "structured"

    def _prepare(self, X_seqs, Y_seqs):
        X, Y = check_sequences(X_seqs, Y_seqs)
        self.classes_ = np.unique(np.concatenate(Y))
        if self.classes_.size < 2:
            raise ValueError(f"Y_seqs hold {self.classes_.size} distinct label(s); at least 2 are needed")
        codes = [np.searchsorted(self.classes_, y).astype(np.int64) for y in Y]
        self.n_features_in_ = X[0].shape[1]
        return X, codes, check_random_state(self.random_state)

    @property
    def _K(self) -> int:
        return self.classes_.size

    def _decode(self, w: np.ndarray, x: np.ndarray, gold=None) -> np.ndarray:
        W_u, W_t = split_weights(w, self.n_features_in_, self._K)
        return viterbi(x @ W_u, W_t, gold=gold)[0]

    def _phi(self, x, y) -> np.ndarray:
        return joint_features(x, y, self._K)

    def _hamming_rate(self, w, X, codes) -> float:
        wrong = sum(int(np.sum(self._decode(w, x) != y)) for x, y in zip(X, codes))
        return wrong / sum(y.size for y in codes)

    def decode_scores(self, x) -> tuple[np.ndarray, np.ndarray]:
        """Viterbi's inputs for one sequence: (unary (L, K), transition (K, K)) under the learned weights."""
        check_is_fitted(self, "coef_")
        (x,) = check_sequences([x], n_features=self.n_features_in_)
        W_u, W_t = split_weights(self.coef_, self.n_features_in_, self._K)
        return x @ W_u, W_t.copy()

    def predict(self, X_seqs) -> list[np.ndarray]:
        """The Viterbi argmax label sequence of each input (CIML Alg. 42), in the original labels."""
        check_is_fitted(self, "coef_")
        X = check_sequences(X_seqs, n_features=self.n_features_in_)
        return [self.classes_[self._decode(self.coef_, x)] for x in X]

    def score(self, X_seqs, Y_seqs) -> float:
        """Per-position accuracy (1 - Hamming loss / total length)."""
        pred = self.predict(X_seqs)
        _, Y = check_sequences(X_seqs, Y_seqs)
        right = sum(int(np.sum(p == np.asarray(y))) for p, y in zip(pred, Y))
        return right / sum(len(y) for y in Y)
