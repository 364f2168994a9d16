"""Cross-validation over shared splits: every model sees exactly the same folds, so comparisons are paired.

For each split the feature maps are fitted on the split's training part only, then every model is fitted
and scored on the held-out part. Splits run in parallel with joblib; each task is a pure function of its
inputs (models get a ``random_state`` derived from the split, not from the order of execution), so the
result of ``n_jobs=4`` is identical to the serial run.

Failed fits (:mod:`.budget`): by default (``on_error="raise"``) a model that raises, diverges (NaN/inf) or runs
past ``max_fit_seconds`` stops the run with a :class:`~.budget.FitFailedError` naming the dataset, the model and
the split; with ``on_error="record"`` its scores on that split are None and the failure (reason and message) is
recorded, and the run goes on. ``max_fit_seconds`` is enforced by running each model's fit and scoring on a
split in a forked child process that is killed at the deadline; without it nothing is forked.

Fit and predict seconds are measured for every model and split and handed back through ``timing`` only: they
are never part of the result, which stays a pure function of the inputs.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..exceptions import ConvergenceWarning, DivergenceError
from ..features import FeaturePipeline
from . import budget
from .metrics import METRICS, score_predictions
from .splits import Split
from .unsupervised import score_unsupervised


@dataclass(frozen=True)
class ModelSpec:
    """What to fit: a key (the config's name for it), a registry name and hyperparameters."""

    key: str
    name: str
    params: dict


def progress_enabled(progress) -> bool:
    """Whether to show a progress bar: ``progress`` "auto" means on a terminal (stderr) and not in CI (``CI`` set)."""
    if progress == "auto":
        return sys.stderr.isatty() and not os.environ.get("CI")
    return bool(progress)


ON_ERROR = ("raise", "record")


@dataclass(frozen=True)
class FitPolicy:
    """What to do with a failed fit (``on_error``: "raise" or "record") and the budget of one model's fit and
    scoring on one split (``max_fit_seconds``; None: no budget, nothing forked). ``dataset`` names the data in
    errors."""

    on_error: str = "raise"
    max_fit_seconds: float | None = None
    dataset: str | None = None

    def __post_init__(self):
        if self.on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, got {self.on_error!r}")
        if self.max_fit_seconds is not None and not (
            isinstance(self.max_fit_seconds, (int, float)) and self.max_fit_seconds > 0
        ):
            raise ValueError(f"max_fit_seconds must be a positive number or None, got {self.max_fit_seconds!r}")


def _check_finite(what: str, values) -> None:
    arr = np.asarray(values)
    if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise DivergenceError(f"the {what} contain NaN or infinite values")


def _fit_and_score(spec, params, Xtr, ytr, Xte, yte, metrics, task, labels):
    """One model fitted on a split's training part and scored on its test part: the entry of ``_run_split``,
    with ``seconds`` ({"fit", "predict"}) -- plain JSON, so that a budgeted child can send it back."""
    from ..models import create

    unsupervised = task in ("clustering", "decomposition")
    model = create(spec.name, **params)
    t0 = time.perf_counter()
    model, converged = fit_recording_convergence(model, Xtr, None if unsupervised else ytr)
    t1 = time.perf_counter()
    scores: dict[str, float | None]
    if unsupervised:
        scores = score_unsupervised(
            model, metrics, Xte, yte if labels is not None else None, train_mean=Xtr.mean(axis=0)
        )
        entry = {"scores": scores, "n_iter": n_iter_of(model), "converged": converged}
    else:
        pred = model.predict(Xte)
        _check_finite("predictions", pred)
        proba, ranking = (None, None)
        if task == "classification":
            proba, ranking = ranking_inputs(model, Xte, labels, metrics)
            _check_finite("predicted probabilities", proba if proba is not None else ranking)
        scores = dict(
            score_predictions(metrics, yte, pred, proba=proba, classes=labels, scores=ranking, model=spec.name)
        )
        entry = {"scores": scores, "n_iter": n_iter_of(model), "converged": converged}
        if task == "classification":
            entry["correct"] = (pred == yte).astype(int).tolist()
    t2 = time.perf_counter()
    bad = sorted(k for k, v in scores.items() if v is not None and not np.isfinite(v))
    if bad:
        raise DivergenceError(f"the score(s) {', '.join(bad)} are NaN or infinite")
    entry["scores"] = {k: _num(v) for k, v in scores.items()}
    entry["converged"] = bool(converged)
    entry["seconds"] = {"fit": t1 - t0, "predict": t2 - t1}
    return entry


def _where(policy: FitPolicy, spec: ModelSpec, split: Split) -> str:
    ds = f"dataset {policy.dataset!r}, " if policy.dataset else ""
    return f"{ds}model {spec.key!r} ({spec.name}), split {split.index} (repeat {split.repeat}, fold {split.fold})"


def _run_split(split: Split, X, y, feature_steps, models, metrics, task, labels, seeds, max_columns=None, policy=None):
    policy = policy or FitPolicy()
    fmap = FeaturePipeline(feature_steps, max_columns=max_columns)  # the same column limit as the featurize stage
    Xtr = fmap.fit_transform(X[split.train], y[split.train])
    Xte = fmap.transform(X[split.test])
    ytr, yte = y[split.train], y[split.test]
    out = {}
    for spec in models:
        params = dict(spec.params)
        if "random_state" in _hyper(spec.name) and params.get("random_state") is None:
            params["random_state"] = seeds[spec.key]
        args = (spec, params, Xtr, ytr, Xte, yte, metrics, task, labels)
        try:
            if policy.max_fit_seconds is None:
                entry = _fit_and_score(*args)
            else:
                entry = budget.call_with_deadline(partial(_fit_and_score, *args), policy.max_fit_seconds)
        except Exception as exc:
            if budget.is_config_error(exc):
                raise
            reason, message = budget.reason_of(exc), budget.one_line(exc)
            if policy.on_error == "raise":
                raise budget.FitFailedError(
                    f"{_where(policy, spec, split)}: {reason}: {message} (cv.on_error: record records failed fits "
                    "and goes on)",
                    reason,
                    budget.causes_of(exc),
                    spec.key,
                    split.index,
                    message,
                ) from exc
            entry = {
                "scores": {m: None for m in metrics},
                "n_iter": None,
                "converged": None,
                "failure": {"reason": reason, "message": message},
                "seconds": {"fit": None, "predict": None},
            }
            if task == "classification":
                entry["correct"] = None
        out[spec.key] = entry
    return out


def _run_split_shared(X, y, feature_steps, metrics, task, labels, max_columns, policy, split, seeds, models):
    """``_run_split`` with the arguments every task shares first (the form an ``executor`` maps)."""
    return _run_split(split, X, y, feature_steps, models, metrics, task, labels, seeds, max_columns, policy)


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


def ranking_inputs(model, X, labels, metrics) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(proba, scores)`` of a fitted classifier on ``X`` for the metrics named: its ``predict_proba`` aligned to
    ``labels`` when it has one; otherwise, when a ranking metric (``needs == "score"``: ROC AUC, average precision)
    is asked for, its ``decision_function`` (binary: the score of ``classes_[1]``; multiclass: one column per class,
    which must then be ``labels``). A model with neither gives ``(None, None)``: the metric refuses it by name."""
    if hasattr(model, "predict_proba"):
        return align_proba(model.predict_proba(X), model.classes_, labels), None
    if not hasattr(model, "decision_function") or not any(METRICS[m].needs == "score" for m in metrics if m in METRICS):
        return None, None
    s = np.asarray(model.decision_function(X), dtype=np.float64)
    model_classes = np.asarray(model.classes_)
    if labels is not None and not (len(model_classes) == len(labels) and np.array_equal(model_classes, labels)):
        raise ValueError(
            f"decision_function scores cover the classes {model_classes.tolist()} of the training part, not all "
            f"{len(labels)} classes: a ranking metric needs a training part with every class (stratify the splits)"
        )
    if s.ndim == 2 and s.shape[1] == 1:
        s = s.ravel()
    return None, s


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
    on_error: str = "raise",
    max_fit_seconds: float | None = None,
    dataset: str | None = None,
    timing: dict | None = None,
    on_fits: Callable[[int], None] | None = None,
) -> dict:
    """Fit and score every model on every split.

    ``task`` is "classification", "regression", or, for unsupervised models, "clustering" or
    "decomposition" (then models are fitted on ``X`` alone and scored by
    :func:`~replearn.evaluation.unsupervised.score_unsupervised`; ``classes`` given means ``y`` holds labels
    for the adjusted Rand index; a score a model cannot give is ``None``).

    Returns ``{"splits": [split meta + test_index], "models": {key: {"scores": {metric: [per split]},
    "correct": [[0/1 per test example] per split] (classification), "n_iter": [...], "converged": [...],
    "failures": [{"replicate", "reason", "message"}]}}}``.
    ``model_seeds[key][i]`` is the ``random_state`` for model ``key`` on split ``i``. For classification,
    ``y`` holds labels; with ``classes`` given, ``y`` must be encoded as ``0..len(classes)-1``.
    ``max_columns`` is the limit on the width of the feature maps refitted in every split (the configuration's
    ``features.max_columns``; None: each map's default), as in the featurize stage.

    ``on_error`` ("raise" or "record") and ``max_fit_seconds`` (None or a positive number): see the module
    docstring; a recorded failure on split ``i`` leaves the model's scores, ``n_iter``, ``converged`` and
    ``correct`` at ``i`` None and lists ``{"replicate": i, "reason", "message"}`` in its ``failures``.
    ``dataset`` names the data in errors. ``timing``, when given, receives ``{key: {"fit_seconds": [...],
    "predict_seconds": [...]}}`` (per split; None for a failed fit) -- wall-clock time, kept out of the result.
    ``on_fits(n)`` is called as the results of ``n`` more model fits arrive (an overall progress bar).

    ``executor`` (None: joblib processes, ``n_jobs``) runs the splits elsewhere: any object with
    ``map(fn, tasks, shared=())`` that yields ``fn(*shared, *task)`` for each task, in the order given (the
    pipeline passes a Dask cluster's, ``replearn.pipeline.compute``). A task is one model on one split (the
    feature maps refitted for it), so a cluster can balance uneven models; each is a pure function of its
    inputs, so every executor gives the serial result.
    """
    policy = FitPolicy(on_error, max_fit_seconds, dataset)
    labels = None  # class labels (classification; clustering scored against labels when a dataset has them)
    if classes:
        labels = np.arange(len(classes))
    elif task == "classification":
        labels = np.unique(y)
    seeds_for = lambda i: {m.key: (model_seeds or {}).get(m.key, [None] * len(splits))[i] for m in models}  # noqa: E731
    if executor is None and n_jobs in (None, 1):  # in this process, as joblib would (without its ~70 ms import)
        outputs = (
            _run_split(s, X, y, feature_steps or [], models, metrics, task, labels, seeds_for(i), max_columns, policy)
            for i, s in enumerate(splits)
        )
    elif executor is None:
        from joblib import Parallel, delayed

        tasks = (
            delayed(_run_split)(
                s, X, y, feature_steps or [], models, metrics, task, labels, seeds_for(i), max_columns, policy
            )
            for i, s in enumerate(splits)
        )
        outputs = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    else:
        shared = (X, y, feature_steps or [], metrics, task, labels, max_columns, policy)
        jobs = [(s, seeds_for(i), [m]) for i, s in enumerate(splits) for m in models]
        outputs = _per_split(executor.map(_run_split_shared, jobs, shared=shared), len(splits), len(models))
    results = []
    if progress_enabled(progress):
        from tqdm.auto import tqdm

        outputs = tqdm(outputs, total=len(splits), desc=description, unit="split", leave=False)
    for r in outputs:
        results.append(r)
        if on_fits is not None:
            on_fits(len(models))
    out_models = {}
    for m in models:
        per = [r[m.key] for r in results]
        entry = {
            "registry_name": m.name,
            "params": m.params,
            "scores": {metric: [_num(p["scores"][metric]) for p in per] for metric in metrics},
            "n_iter": [p["n_iter"] for p in per],
            "converged": [p["converged"] for p in per],
            "failures": [{"replicate": i, **p["failure"]} for i, p in enumerate(per) if p.get("failure")],
        }
        if task == "classification":
            entry["correct"] = [p["correct"] for p in per]
        out_models[m.key] = entry
        if timing is not None:
            timing[m.key] = {
                "fit_seconds": [p["seconds"]["fit"] for p in per],
                "predict_seconds": [p["seconds"]["predict"] for p in per],
            }
    split_meta = [dict(s.meta(), test_index=[int(i) for i in s.test]) for s in splits]
    return {"splits": split_meta, "models": out_models}
