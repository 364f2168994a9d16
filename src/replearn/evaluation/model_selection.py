"""Hyperparameter selection: grid search on shared folds, and nested cross-validation.

Course basis: CIML Alg. 8 CrossValidate (§5.6, seed 001 L1546-1567) -- for every setting, the
mean error over the K folds; keep the setting with the lowest, ties going to the **first**
setting (its strict ``<``) -- and CIML §2.6 (L535-554): choose on development data, never on the
test data.  CS229 §9.3 (seed 000, L4020-4049) and the EPFL notes (seed 004, L627-661) for hold-out
and k-fold model selection.

* :func:`grid_search` scores every setting on the **same** splits, so the ``(n_settings,
  n_splits)`` score table is paired: two settings can be compared split by split (e.g. with
  :func:`replearn.stats.corrected_resampled_ttest`).
* :func:`nested_cross_validate` estimates the error of the *whole procedure* "tune by inner CV,
  then refit on all the training data": the outer test folds never take part in the choice.
  The best inner CV score is optimistically biased (it is the maximum of noisy estimates); the
  outer score is not (Cawley & Talbot 2010; Varma & Simon 2006).

``param_grid`` is a dict ``{name: [values]}`` (the Cartesian product, in the dict's key order
with the last key varying fastest) or a list of such dicts (their grids one after the other).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ._fitting import build, resolve_metric, task_classes
from .splits import Split, make_splits, repeat_seed

__all__ = ["GridSearchResult", "expand_grid", "grid_search", "nested_cross_validate"]


def expand_grid(param_grid) -> list[dict]:
    """All settings of a grid (see the module docstring), in order."""
    grids = [param_grid] if isinstance(param_grid, dict) else list(param_grid)
    if not grids:
        raise ValueError("param_grid is empty")
    settings = []
    for g in grids:
        if not isinstance(g, dict):
            raise ValueError(f"param_grid must be a dict of lists or a list of such dicts, got {type(g).__name__}")
        for name, values in g.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or len(list(values)) == 0:
                raise ValueError(f"param_grid[{name!r}] must be a non-empty list of values, got {values!r}")
        keys = list(g)
        for combo in itertools.product(*(list(g[k]) for k in keys)):
            settings.append(dict(zip(keys, combo)))
    return settings


@dataclass
class GridSearchResult:
    """``settings[i]`` was scored ``scores[i, j]`` on split j; ``mean``/``std`` (ddof=1) over the
    splits; ``best_index`` the first setting with the best mean; ``best_estimator`` the best
    setting refitted on all the data (when ``refit``); ``splits`` the split metadata."""

    settings: list[dict]
    scores: np.ndarray
    metric: str
    greater_is_better: bool
    best_index: int
    splits: list[dict]
    best_estimator: object = None
    extra: dict = field(default_factory=dict)

    @property
    def mean(self) -> np.ndarray:
        return self.scores.mean(axis=1)

    @property
    def std(self) -> np.ndarray:
        return self.scores.std(axis=1, ddof=1) if self.scores.shape[1] > 1 else np.zeros(len(self.settings))

    @property
    def best_params(self) -> dict:
        return dict(self.settings[self.best_index])

    @property
    def best_score(self) -> float:
        return float(self.mean[self.best_index])


def _best(mean: np.ndarray, greater_is_better: bool) -> int:
    """First index of the best mean (CIML Alg. 8: a later setting must be strictly better)."""
    best = 0
    for i in range(1, mean.size):
        if (mean[i] > mean[best]) if greater_is_better else (mean[i] < mean[best]):
            best = i
    return best


def grid_search(
    model,
    param_grid,
    X,
    y,
    splits: list[Split],
    *,
    metric="accuracy",
    greater_is_better=None,
    base_params: dict | None = None,
    refit: bool = True,
) -> GridSearchResult:
    """Score every setting of ``param_grid`` on every split (see the module docstring).

    ``model``: a registry name, an unfitted estimator or a factory (``base_params`` are the
    fixed hyperparameters, overridden by the grid's).  ``splits``: e.g. ``make_splits(...)``,
    shared by all settings.  Non-decomposable metrics are computed per split.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if not splits:
        raise ValueError("splits is empty; pass e.g. make_splits('stratified_kfold', y, folds=5)")
    settings = expand_grid(param_grid)
    name, score, gib = resolve_metric(metric, greater_is_better)
    classes = task_classes(y, name)
    base = dict(base_params or {})
    scores = np.empty((len(settings), len(splits)))
    for i, setting in enumerate(settings):
        for j, s in enumerate(splits):
            est = build(model, {**base, **setting}).fit(X[s.train], y[s.train])
            scores[i, j] = score(est, X[s.test], y[s.test], classes)
    best = _best(scores.mean(axis=1), gib)
    best_est = build(model, {**base, **settings[best]}).fit(X, y) if refit else None
    return GridSearchResult(
        settings=settings,
        scores=scores,
        metric=name,
        greater_is_better=gib,
        best_index=best,
        splits=[s.meta() for s in splits],
        best_estimator=best_est,
    )


def nested_cross_validate(
    model,
    param_grid,
    X,
    y,
    outer_splits: list[Split],
    *,
    inner_scheme: str = "kfold",
    inner_folds: int = 5,
    inner_repeats: int = 1,
    seed: int = 0,
    metric="accuracy",
    greater_is_better=None,
    base_params: dict | None = None,
) -> dict:
    """Nested cross-validation: tune on inner splits of each outer training part, test on the outer fold.

    For outer split i, the inner splits are ``make_splits(inner_scheme, y[train_i],
    folds=inner_folds, repeats=inner_repeats, seed=repeat_seed(seed, i))`` (indices into the
    training part); the best setting by :func:`grid_search` is refitted on the whole training
    part and scored on the outer test fold.  Returns ``{"outer_scores": [...], "mean", "std",
    "best_params": [per outer split], "inner_best_scores": [...], "metric", "greater_is_better",
    "splits": [outer split meta]}``.  ``mean`` estimates the performance of the tuning procedure.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if not outer_splits:
        raise ValueError("outer_splits is empty")
    name, score, gib = resolve_metric(metric, greater_is_better)
    classes = task_classes(y, name)
    outer, chosen, inner_best = [], [], []
    for i, s in enumerate(outer_splits):
        Xtr, ytr = X[s.train], y[s.train]
        inner = make_splits(inner_scheme, ytr, folds=inner_folds, repeats=inner_repeats, seed=repeat_seed(seed, i))
        gs = grid_search(
            model,
            param_grid,
            Xtr,
            ytr,
            inner,
            metric=metric,
            greater_is_better=greater_is_better,
            base_params=base_params,
            refit=True,
        )
        outer.append(score(gs.best_estimator, X[s.test], y[s.test], classes))
        chosen.append(gs.best_params)
        inner_best.append(gs.best_score)
    outer = np.asarray(outer)
    return {
        "outer_scores": outer.tolist(),
        "mean": float(outer.mean()),
        "std": float(outer.std(ddof=1)) if outer.size > 1 else 0.0,
        "best_params": chosen,
        "inner_best_scores": inner_best,
        "metric": name,
        "greater_is_better": gib,
        "splits": [s.meta() for s in outer_splits],
        "inner": {"scheme": inner_scheme, "folds": inner_folds, "repeats": inner_repeats, "seed": seed},
    }
