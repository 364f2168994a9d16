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


#: CIML's information criteria for k-means (§15.1, eqs. 15.2-15.3): the penalty added to the objective L_K
_K_CRITERIA = ("bic", "aic")


@dataclass(frozen=True)
class ClusterCountSelection:
    """What :func:`select_n_clusters` returns: for each K of ``ks``, the k-means objective ``objective``
    (L-hat_K, the sum of squared distances, eq. 15.1), the ``penalty`` and ``scores = objective + penalty``;
    ``best_k`` minimizes the score (ties: the smallest K); ``criterion`` names the rule."""

    ks: tuple[int, ...]
    objective: np.ndarray
    penalty: np.ndarray
    scores: np.ndarray
    best_k: int
    criterion: str


def cluster_count_penalty(k: int, n_features: int, criterion: str) -> float:
    """CIML's penalty for K clusters in D dimensions: ``K log D`` (BIC, eq. 15.2) or ``2 K D`` (AIC, eq. 15.3).

    These are the book's forms -- not the Gaussian-likelihood BIC/AIC of ``gmm.bic``/``gmm.aic``: the objective
    is read as bits to send the data given the centres (L4585-4587), so both terms must be in the same units
    and the choice depends on the scale of the features. ``log`` is natural (the text does not say; at D = 1
    the BIC penalty is 0 and the criterion always prefers more clusters).
    """
    if criterion not in _K_CRITERIA:
        raise ValueError(f"criterion must be one of {list(_K_CRITERIA)}, got {criterion!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"K must be a positive integer, got {k!r}")
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    return float(k * np.log(n_features)) if criterion == "bic" else float(2 * k * n_features)


def select_n_clusters(X, ks, *, criterion: str = "bic", n_init: int = 10, max_iter: int = 300, random_state=0):
    """Choose the number of k-means clusters by CIML's information criteria (§15.1, eqs. 15.2-15.3).

    ``argmin_K L-hat_K + K log D`` (``criterion="bic"``) or ``argmin_K L-hat_K + 2 K D`` (``"aic"``), where
    ``L-hat_K`` is the objective (15.1) of the best of ``n_init`` k-means++ runs (``kmeans`` of the registry,
    ``inertia_``) for each K of ``ks``. "Increasing K is going to make L_K go down. However, if it doesn't go
    down 'by enough' then it's not worth doing" (L4583). Returns a :class:`ClusterCountSelection`.
    """
    from .. import models
    from ..validation import check_array

    X = check_array(X, name="X")
    ks = tuple(int(k) for k in ks)
    if not ks or any(k < 1 or k > X.shape[0] for k in ks):
        raise ValueError(f"ks must be cluster counts between 1 and n_samples = {X.shape[0]}, got {list(ks)}")
    if len(set(ks)) != len(ks):
        raise ValueError(f"ks has repeated values: {list(ks)}")
    D = X.shape[1]
    penalty = np.array([cluster_count_penalty(k, D, criterion) for k in ks])
    objective = np.array(
        [
            models.create("kmeans", n_clusters=k, n_init=n_init, max_iter=max_iter, random_state=random_state)
            .fit(X)
            .inertia_
            for k in ks
        ]
    )
    scores = objective + penalty
    best = min(range(len(ks)), key=lambda i: (scores[i], ks[i]))
    return ClusterCountSelection(ks, objective, penalty, scores, ks[best], criterion)
