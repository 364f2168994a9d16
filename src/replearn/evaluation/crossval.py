"""Cross-validation over shared splits: every model sees exactly the same folds, so comparisons are paired.

For each split the feature maps are fitted on the split's training part only, then every model is fitted
and scored on the held-out part. Splits run in parallel with joblib; each task is a pure function of its
inputs (models get a ``random_state`` derived from the split, not from the order of execution), so the
result of ``n_jobs=4`` is identical to the serial run.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import ConvergenceWarning
from ..features import FeaturePipeline
from .metrics import score_predictions
from .splits import Split
from .unsupervised import score_unsupervised


@dataclass(frozen=True)
class ModelSpec:
    """What to fit: a key (the config's name for it), a registry name and hyperparameters."""

    key: str
    name: str
    params: dict


def _progress_enabled(progress) -> bool:
    if progress == "auto":
        return sys.stderr.isatty() and not os.environ.get("CI")
    return bool(progress)


def _run_split(split: Split, X, y, feature_steps, models, metrics, task, labels, seeds, max_columns=None):
    from ..models import create

    fmap = FeaturePipeline(feature_steps, max_columns=max_columns)  # the same column limit as the featurize stage
    Xtr = fmap.fit_transform(X[split.train], y[split.train])
    Xte = fmap.transform(X[split.test])
    ytr, yte = y[split.train], y[split.test]
    unsupervised = task in ("clustering", "decomposition")
    out = {}
    for spec in models:
        params = dict(spec.params)
        if "random_state" in _hyper(spec.name) and params.get("random_state") is None:
            params["random_state"] = seeds[spec.key]
        model, converged = fit_recording_convergence(create(spec.name, **params), Xtr, None if unsupervised else ytr)
        if unsupervised:
            scores = score_unsupervised(
                model, metrics, Xte, yte if labels is not None else None, train_mean=Xtr.mean(axis=0)
            )
            out[spec.key] = {"scores": scores, "n_iter": n_iter_of(model), "converged": converged}
            continue
        pred = model.predict(Xte)
        proba = None
        if task == "classification" and hasattr(model, "predict_proba"):
            proba = align_proba(model.predict_proba(Xte), model.classes_, labels)
        scores = score_predictions(metrics, yte, pred, proba=proba, classes=labels)
        entry = {"scores": scores, "n_iter": n_iter_of(model), "converged": converged}
        if task == "classification":
            entry["correct"] = (pred == yte).astype(int).tolist()
        out[spec.key] = entry
    return out


def _run_split_shared(X, y, feature_steps, metrics, task, labels, max_columns, split, seeds, models):
    """``_run_split`` with the arguments every task shares first (the form an ``executor`` maps)."""
    return _run_split(split, X, y, feature_steps, models, metrics, task, labels, seeds, max_columns)


def _per_split(outputs, n_splits: int, n_models: int):
    """The per-(split, model) results of an executor merged back into one result per split, in order."""
    it = iter(outputs)
    for _ in range(n_splits):
        merged = {}
        for _ in range(n_models):
            merged.update(next(it))
        yield merged


def _num(value):
    return None if value is None else float(value)


def fit_recording_convergence(model, X, y):
    """Fit ``model``; return it and whether it converged (no ConvergenceWarning was raised).

    The warnings are recorded instead of printed: a 100-split run would otherwise repeat the same
    message 100 times. Divergence (NaN/inf) is an error and propagates.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(X, y)
    for w in caught:
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return model, not any(issubclass(w.category, ConvergenceWarning) for w in caught)


def _hyper(name):
    from ..models import hyperparameters

    return hyperparameters(name)


def align_proba(proba: np.ndarray, model_classes, labels) -> np.ndarray:
    """Probabilities in the column order of ``labels`` (a fold's training part may miss a class)."""
    model_classes = np.asarray(model_classes)
    if len(model_classes) == len(labels) and np.array_equal(model_classes, labels):
        return proba
    full = np.zeros((proba.shape[0], len(labels)))
    full[:, np.searchsorted(labels, model_classes)] = proba
    return full


def n_iter_of(model):
    n = getattr(model, "n_iter_", None)
    if n is None:
        return None
    return int(np.max(n))


def cross_validate(
    X: np.ndarray,
    y: np.ndarray,
    splits: list[Split],
    models: list[ModelSpec],
    *,
    task: str,
    metrics: list[str],
    feature_steps: list[dict] | None = None,
    max_columns: int | None = None,
    classes: list | None = None,
    model_seeds: dict[str, list[int]] | None = None,
    n_jobs: int = 1,
    progress="auto",
    description: str = "cross-validation",
    executor=None,
) -> dict:
    """Fit and score every model on every split.

    ``task`` is "classification", "regression", or, for unsupervised models, "clustering" or
    "decomposition" (then models are fitted on ``X`` alone and scored by
    :func:`~replearn.evaluation.unsupervised.score_unsupervised`; ``classes`` given means ``y`` holds labels
    for the adjusted Rand index; a score a model cannot give is ``None``).

    Returns ``{"splits": [split meta + test_index], "models": {key: {"scores": {metric: [per split]},
    "correct": [[0/1 per test example] per split] (classification), "n_iter": [...], "converged": [...]}}}``.
    ``model_seeds[key][i]`` is the ``random_state`` for model ``key`` on split ``i``. For classification,
    ``y`` holds labels; with ``classes`` given, ``y`` must be encoded as ``0..len(classes)-1``.
    ``max_columns`` is the limit on the width of the feature maps refitted in every split (the configuration's
    ``features.max_columns``; None: each map's default), as in the featurize stage.

    ``executor`` (None: joblib processes, ``n_jobs``) runs the splits elsewhere: any object with
    ``map(fn, tasks, shared=())`` that yields ``fn(*shared, *task)`` for each task, in the order given (the
    pipeline passes a Dask cluster's, ``replearn.pipeline.compute``). A task is one model on one split (the
    feature maps refitted for it), so a cluster can balance uneven models; each is a pure function of its
    inputs, so every executor gives the serial result.
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    labels = None  # class labels (classification; clustering scored against labels when a dataset has them)
    if classes:
        labels = np.arange(len(classes))
    elif task == "classification":
        labels = np.unique(y)
    seeds_for = lambda i: {m.key: (model_seeds or {}).get(m.key, [None] * len(splits))[i] for m in models}  # noqa: E731
    if executor is None:
        tasks = (
            delayed(_run_split)(s, X, y, feature_steps or [], models, metrics, task, labels, seeds_for(i), max_columns)
            for i, s in enumerate(splits)
        )
        outputs = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    else:
        shared = (X, y, feature_steps or [], metrics, task, labels, max_columns)
        jobs = [(s, seeds_for(i), [m]) for i, s in enumerate(splits) for m in models]
        outputs = _per_split(executor.map(_run_split_shared, jobs, shared=shared), len(splits), len(models))
    results = list(
        tqdm(
            outputs,
            total=len(splits),
            desc=description,
            unit="split",
            disable=not _progress_enabled(progress),
            leave=False,
        )
    )
    out_models = {}
    for m in models:
        per = [r[m.key] for r in results]
        entry = {
            "registry_name": m.name,
            "params": m.params,
            "scores": {metric: [_num(p["scores"][metric]) for p in per] for metric in metrics},
            "n_iter": [p["n_iter"] for p in per],
            "converged": [p["converged"] for p in per],
        }
        if task == "classification":
            entry["correct"] = [p["correct"] for p in per]
        out_models[m.key] = entry
    split_meta = [dict(s.meta(), test_index=[int(i) for i in s.test]) for s in splits]
    return {"splits": split_meta, "models": out_models}
