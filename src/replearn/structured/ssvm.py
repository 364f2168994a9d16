"""The structured SVM trained by stochastic subgradient descent (CIML §17.4, Alg. 41)."""

from __future__ import annotations

import numpy as np

from .._constraints import Interval, Options
from ._base import COMMON_CONSTRAINTS, SequenceLabelerBase
from .features import split_weights
from .viterbi import sequence_score, viterbi


class StructuredSVM(SequenceLabelerBase):
    """Structured SVM with Hamming loss (CIML Alg. 41 StochSubGradStructSVM, §17.4, seed 001 L5237-5258).

    Objective (eq. 17.24 with lambda = 1/(2C), L5260)::

        sum_n l^(s-h)(y_n, x_n, w) + (lambda / 2) ||w||^2,
        l^(s-h) = max{0, max_yhat [w . phi(x_n, yhat) + Hamming(y_n, yhat)] - w . phi(x_n, y_n)}   (17.22)

    Update rule, per training pair (x, y) in each pass: ``yhat = argmax_y' w . phi(x, y') +
    Hamming(y, y')`` (loss-augmented Viterbi, eq. 17.53); if ``yhat != y``: ``w <- w + phi(x, y) -
    phi(x, yhat)`` (the negative subgradient 17.29, step size 1); then, for every example,
    ``w <- w - (lambda / N) w`` (the regularizer's share). Differences from Alg. 40: the loss-augmented
    argmax and the shrinking.

    Alg. 41's implicit step size is 1 (``schedule="constant"``, ``eta0=1``, the default, exactly the
    text). A constant step makes the objective jump from pass to pass; ``schedule="invsqrt"`` uses
    CIML §14.2's eta_k = eta0 / sqrt(k) (L4402, k = examples seen) for both steps, i.e.
    ``w <- w + eta_k (phi(x, y) - phi(x, yhat))`` and ``w <- (1 - eta_k lambda / N) w``.

    Parameters
    ----------
    alpha : float > 0 — the regularization strength lambda of Alg. 41 (= 1/(2C)); must be < N so the
        shrink factor 1 - lambda/N stays positive.
    max_iter : int — passes over the data; shuffle : bool; random_state.
    eta0 : float > 0 — the step size (Alg. 41: 1); schedule : "constant" or "invsqrt".

    Attributes
    ----------
    As :class:`~replearn.structured._base.SequenceLabelerBase`, plus ``objective_history_`` (the
    objective above after each pass).
    """

    _constraints = {
        **COMMON_CONSTRAINTS,
        "alpha": Interval(float, 0.0, None, closed="neither"),
        "eta0": Interval(float, 0.0, None, closed="neither"),
        "schedule": Options({"constant", "invsqrt"}),
    }

    def __init__(self, alpha=0.1, max_iter=10, eta0=1.0, schedule="constant", shuffle=True, random_state=None):
        self.alpha = alpha
        self.max_iter = max_iter
        self.eta0 = eta0
        self.schedule = schedule
        self.shuffle = shuffle
        self.random_state = random_state

    def objective(self, w, X, codes) -> float:
        """sum_n structured hinge + (lambda/2)||w||^2 for flat weights ``w`` (codes: label indices)."""
        W_u, W_t = split_weights(w, self.n_features_in_, self._K)
        total = 0.0
        for x, y in zip(X, codes):
            unary = x @ W_u
            _, aug = viterbi(unary, W_t, gold=y)
            total += max(0.0, aug - sequence_score(unary, W_t, y))
        return total + 0.5 * float(self.alpha) * float(w @ w)

    def fit(self, X_seqs, Y_seqs):
        """Run Alg. 41; returns ``self``."""
        self._validate_params()
        X, codes, rng = self._prepare(X_seqs, Y_seqs)
        N = len(X)
        if self.eta0 * self.alpha >= N:
            raise ValueError(
                f"eta0 * alpha = {self.eta0 * self.alpha} must be smaller than the number of sequences "
                f"N={N}: the shrink w <- (1 - eta alpha/N) w would flip or zero the weights"
            )
        k = 0
        w = np.zeros(self._K * (self.n_features_in_ + self._K))
        mistakes, hamming, objective = [], [], []
        order = np.arange(N)
        for _ in range(int(self.max_iter)):
            if self.shuffle:
                order = rng.permutation(N)
            m = 0
            for i in order:
                k += 1
                eta = self.eta0 if self.schedule == "constant" else self.eta0 / np.sqrt(k)
                yhat = self._decode(w, X[i], gold=codes[i])  # loss-augmented argmax (line 4)
                if not np.array_equal(yhat, codes[i]):
                    w += eta * (self._phi(X[i], codes[i]) - self._phi(X[i], yhat))
                    m += 1
                w *= 1.0 - eta * float(self.alpha) / N  # line 8, every example
            mistakes.append(m)
            hamming.append(self._hamming_rate(w, X, codes))
            objective.append(self.objective(w, X, codes))
        self.coef_ = w
        self.n_iter_ = len(mistakes)
        self.mistake_history_ = mistakes
        self.hamming_history_ = hamming
        self.objective_history_ = objective
        return self
