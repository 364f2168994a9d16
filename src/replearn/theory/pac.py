"""PAC learning of boolean conjunctions: CIML's "Throw Out Bad Terms" (§12.4, Alg. 31)."""

from __future__ import annotations

import numpy as np

from ..base import BaseEstimator, ClassifierMixin
from ..validation import check_is_fitted, check_X_y


class ConjunctionLearner(ClassifierMixin, BaseEstimator):
    """BinaryConjunctionTrain (CIML Alg. 31, §12.4, seed 001 L4053-4073).

    Start from f = x_1 and not x_1 and ... and x_D and not x_D (all 2D literals: everything is negative);
    for every positive example and every d, drop the literal the example contradicts: "x_d" if
    x_d = 0, else "not x_d". Negative examples are ignored. O(N D); the hypothesis only ever errs by
    calling a positive negative (L4049). Noise-free data from a true conjunction are assumed.

    Input: binary X (0/1). Labels: two classes; the larger one (e.g. +1 or 1) is positive.

    Attributes
    ----------
    positive_literals_ : (D,) bool — "x_d" is in f; negative_literals_ : (D,) bool — "not x_d" is in f.
    literal_history_ : (N + 1, 2, D) bool — f^0 .. f^N after each example (row 0 the positive
        literals, row 1 the negated ones), the text's trace f^0, f^1, f^2, f^3 (eqs. 12.3-12.6).
    classes_ ; n_features_in_.
    """

    def __init__(self):
        pass

    def fit(self, X, y):
        """Throw out the literals contradicted by each positive example; returns ``self``."""
        X, y = check_X_y(X, y)
        if not np.all((X == 0) | (X == 1)):
            raise ValueError("X must be binary (0/1) for boolean conjunctions")
        classes = np.unique(y)
        if classes.size > 2:
            raise ValueError(f"y has {classes.size} classes {classes.tolist()}; conjunctions are binary")
        self.classes_ = classes
        positive = classes[-1] if classes.size == 2 else None
        D = X.shape[1]
        pos_lit, neg_lit = np.ones(D, dtype=bool), np.ones(D, dtype=bool)
        history = [np.stack([pos_lit, neg_lit])]
        for x, label in zip(X, y):
            if positive is not None and label == positive:
                pos_lit &= x == 1  # x_d = 0 removes "x_d"
                neg_lit &= x == 0  # x_d = 1 removes "not x_d"
            history.append(np.stack([pos_lit, neg_lit]))
        self.positive_literals_ = pos_lit
        self.negative_literals_ = neg_lit
        self.literal_history_ = np.asarray(history)
        self.n_features_in_ = D
        return self

    def decision_function(self, X) -> np.ndarray:
        """1.0 where every literal of f is satisfied, else 0.0."""
        X = self._validate_predict_input(X)
        ok = np.all((X[:, self.positive_literals_] == 1), axis=1) & np.all((X[:, self.negative_literals_] == 0), axis=1)
        return ok.astype(np.float64)

    def predict(self, X):
        s = self.decision_function(X)
        if self.classes_.size == 1:
            return np.full(s.shape, self.classes_[0])
        return np.where(s > 0, self.classes_[-1], self.classes_[0])

    def formula(self, step: int | None = None) -> str:
        """f as text, e.g. "¬x1 ∧ x3 ∧ x4" (1-based variables); ``step`` k gives f^k of the trace."""
        check_is_fitted(self, "positive_literals_")
        pos, neg = (self.positive_literals_, self.negative_literals_) if step is None else self.literal_history_[step]
        terms = []
        for d in range(self.n_features_in_):
            if pos[d]:
                terms.append(f"x{d + 1}")
            if neg[d]:
                terms.append(f"¬x{d + 1}")
        return " ∧ ".join(terms) if terms else "True"
