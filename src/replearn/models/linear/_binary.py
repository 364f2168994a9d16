"""One-vs-rest plumbing shared by the linear classifiers fitted as one binary problem per class."""

from __future__ import annotations

import numpy as np


def binary_problems(y: np.ndarray, classes: np.ndarray) -> list[tuple[np.ndarray, object]]:
    """``[(is_positive, label)]``: one problem for two classes (positive = ``classes[1]``), else one per class.

    Labels are plain Python scalars, ready for messages.
    """
    pairs = [(y == classes[1], classes[1])] if classes.size == 2 else [(y == c, c) for c in classes]
    return [(t, label.item() if isinstance(label, np.generic) else label) for t, label in pairs]


def store_fit(estimator, classes, thetas, histories, n_iters, n_features: int) -> None:
    """Set ``classes_``, ``coef_``, ``intercept_``, ``n_iter_``, ``loss_history_`` and ``n_features_in_``.

    ``thetas[k]`` is ``[w, b]`` (``b`` only with ``fit_intercept``) of problem ``k``; the loss histories,
    one per problem and of different lengths, are stacked into a NaN-padded 2-D array so the safe model
    format can store them.
    """
    thetas = np.vstack(thetas)
    d = n_features
    estimator.classes_ = classes
    estimator.coef_ = np.ascontiguousarray(thetas[:, :d])
    estimator.intercept_ = thetas[:, d].copy() if estimator.fit_intercept else np.zeros(len(thetas))
    estimator.n_iter_ = np.asarray(n_iters, dtype=np.int64)
    width = max(len(h) for h in histories)
    estimator.loss_history_ = np.full((len(histories), width), np.nan)
    for k, h in enumerate(histories):
        estimator.loss_history_[k, : len(h)] = h
    estimator.n_features_in_ = d


class LinearScoresMixin:
    """``decision_function`` and ``predict`` of a linear classifier fitted by :func:`store_fit`."""

    def decision_function(self, X):
        """Scores ``X @ coef_.T + intercept_``: shape (n,) for two classes, (n, n_classes) otherwise."""
        X = self._validate_predict_input(X)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """``classes_[1]`` where the score is > 0 (two classes), else the class with the largest score
        (ties go to the class that comes first in ``classes_``)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
