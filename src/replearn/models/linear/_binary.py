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
