"""Learning curves: training and held-out score as a function of the training-set size.

Course basis: CIML §5.8 (seed 001, L1709): "train on 80% of your training data; if the
held-out error drops a lot when you use all of it, more data will help" -- the learning curve
generalises this check to a range of sizes; a large gap between training and test error that
closes slowly points to variance, two high curves that meet early to bias (CIML §5.9, L1713-1727;
CS229 §8, seed 000 L3267-3511).

For every split and every size ``m``: the training examples of the split are put in a random
order ``default_rng(repeat_seed(seed, split.index)).permutation(split.train)`` and the model is
fitted on the **first m** of them -- so the subsets of one split are nested -- then scored on
those m examples (training score) and on the split's whole test part.  Sizes given as
fractions in (0, 1] are fractions of each split's training size, ``max(1, floor(f n_train))``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._fitting import build, resolve_metric, task_classes
from .splits import Split, repeat_seed

__all__ = ["learning_curve"]


def _sizes(train_sizes, n_train: int) -> np.ndarray:
    arr = np.asarray(train_sizes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"train_sizes must be a non-empty 1-D list, got {train_sizes!r}")
    if arr.dtype.kind == "f":
        if np.any(arr <= 0) or np.any(arr > 1):
            raise ValueError(f"fractional train_sizes must lie in (0, 1], got {arr.tolist()}")
        out = np.maximum(1, np.floor(arr * n_train)).astype(np.int64)
    elif arr.dtype.kind in "iu":
        out = arr.astype(np.int64)
        if np.any(out < 1) or np.any(out > n_train):
            raise ValueError(f"train_sizes must lie in [1, {n_train}] (the smallest training part), got {out.tolist()}")
    else:
        raise ValueError(f"train_sizes must be fractions or counts, got {train_sizes!r}")
    return out


def learning_curve(
    model,
    X,
    y,
    splits: list[Split],
    *,
    train_sizes=(0.1, 0.325, 0.55, 0.775, 1.0),
    metric="accuracy",
    greater_is_better=None,
    params: dict | None = None,
    seed: int = 0,
) -> dict:
    """Training and test scores for growing training sets (see the module docstring).

    Returns ``{"train_sizes": [m per size] (from the first split), "train_scores": (n_sizes,
    n_splits) list, "test_scores": same, "train_mean", "test_mean", "metric",
    "greater_is_better", "splits", "seed"}``.
    """
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if not splits:
        raise ValueError("splits is empty")
    X = np.asarray(X)
    y = np.asarray(y)
    name, score, gib = resolve_metric(metric, greater_is_better)
    classes = task_classes(y, name)
    sizes_by_split = [_sizes(train_sizes, s.train.size) for s in splits]
    k = sizes_by_split[0].size
    train_scores = np.empty((k, len(splits)))
    test_scores = np.empty((k, len(splits)))
    for j, s in enumerate(splits):
        order = np.random.default_rng(repeat_seed(int(seed), s.index)).permutation(s.train)
        for i, m in enumerate(sizes_by_split[j]):
            sub = order[:m]
            est = build(model, params).fit(X[sub], y[sub])
            train_scores[i, j] = score(est, X[sub], y[sub], classes)
            test_scores[i, j] = score(est, X[s.test], y[s.test], classes)
    return {
        "train_sizes": sizes_by_split[0].tolist(),
        "train_scores": train_scores.tolist(),
        "test_scores": test_scores.tolist(),
        "train_mean": train_scores.mean(axis=1).tolist(),
        "test_mean": test_scores.mean(axis=1).tolist(),
        "metric": name,
        "greater_is_better": gib,
        "splits": [s.meta() for s in splits],
        "seed": int(seed),
    }
