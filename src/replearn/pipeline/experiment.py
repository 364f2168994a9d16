"""The work of the featurize, train and crossval stages, one dataset at a time.

Stage scripts loop over the configured datasets and call these functions; everything here is a
deterministic function of ``params.yaml`` and the files the previous stages wrote.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import models as registry
from ..evaluation.crossval import ModelSpec, n_iter_of, align_proba, cross_validate, fit_recording_convergence
from ..evaluation.metrics import METRICS, score_predictions
from ..evaluation.splits import make_splits
from ..exceptions import ConfigError
from ..features import FeaturePipeline
from ..persistence import save_model
from . import paths
from .data import check_class_counts, load_meta, load_part
from .seeding import derive_seed


def model_specs(params: dict, task: str) -> list[ModelSpec]:
    """The configured models that can handle ``task``, in config order; ``task`` is passed on to
    models that take it (e.g. ``knn``) unless the config fixes it."""
    specs = []
    for key, m in params["models"].items():
        hp = dict(m.get("params") or {})
        accepts_task = "task" in registry.hyperparameters(m["name"])
        if accepts_task and hp.get("task", task) != task:
            continue
        if not accepts_task and not registry.supports(m["name"], task):
            continue
        if accepts_task:
            hp["task"] = task
        specs.append(ModelSpec(key, m["name"], hp))
    return specs


def task_metrics(params: dict, task: str) -> tuple[list[str], str]:
    return list(params["metrics"][task]), params["metrics"]["primary"][task]


def _specs_or_fail(params: dict, name: str, task: str) -> list[ModelSpec]:
    specs = model_specs(params, task)
    if not specs:
        raise ConfigError(
            f"dataset {name!r} is a {task} problem but none of the configured models "
            f"({', '.join(params['models'])}) handles {task}; models that do: {', '.join(registry.available(task))}"
        )
    return specs


def featurize(params: dict, name: str, root: Path = Path(".")) -> dict:
    """Fit the feature maps on the training part; map both parts; save the fitted maps."""
    X, y = load_part(root / paths.PREPARED / name / "train.npz")
    Xt, yt = load_part(root / paths.SEALED / name / "test.npz")
    fmap = FeaturePipeline(params["features"]["steps"]).fit(X, y)
    out = root / paths.FEATURES / name
    out.mkdir(parents=True, exist_ok=True)
    for part, A, b in (("train", fmap.transform(X), y), ("test", fmap.transform(Xt), yt)):
        with open(out / f"{part}.npz", "wb") as fh:
            np.savez(fh, X=A, y=b)
    fmap.save(out / "featurizer")
    return {"n_features_in": int(X.shape[1]), "n_features_out": int(fmap.n_features_out_)}


def train(params: dict, name: str, root: Path = Path(".")) -> tuple[dict, dict]:
    """Fit every model on the whole (mapped) training part, save it, and evaluate it on the sealed test part.

    Returns ``(metrics, predictions)``: train/test metrics per model, and the test-set predictions
    (with which examples each model got right, for McNemar's test).
    """
    meta = load_meta(name, root)
    task = meta["task"]
    X, y = load_part(root / paths.FEATURES / name / "train.npz")
    Xt, yt = load_part(root / paths.FEATURES / name / "test.npz")
    metric_names, _ = task_metrics(params, task)
    classes = np.arange(len(meta["classes"])) if task == "classification" else None
    metrics, preds = {}, {}
    for spec in _specs_or_fail(params, name, task):
        hp = dict(spec.params)
        if "random_state" in registry.hyperparameters(spec.name) and hp.get("random_state") is None:
            hp["random_state"] = derive_seed(params["seed"], "model", name, spec.key, "final")
        model, converged = fit_recording_convergence(registry.create(spec.name, **hp), X, y)
        save_model(model, root / paths.MODELS / name / spec.key, registry_name=spec.name, extra={"dataset": name, "key": spec.key})
        metrics[spec.key] = {
            part: _score(model, A, b, metric_names, task, classes) for part, A, b in (("train", X, y), ("test", Xt, yt))
        }
        pred = model.predict(Xt)
        entry = {"pred": pred.tolist(), "converged": converged, "n_iter": n_iter_of(model)}
        if task == "classification":
            entry["correct"] = (pred == yt).astype(int).tolist()
        preds[spec.key] = entry
    predictions = {"dataset": name, "task": task, "y_true": yt.tolist(), "models": preds}
    return metrics, predictions


def _score(model, X, y, metric_names, task, classes):
    pred = model.predict(X)
    proba = None
    if task == "classification" and hasattr(model, "predict_proba"):
        proba = align_proba(model.predict_proba(X), model.classes_, classes)
    return score_predictions(metric_names, y, pred, proba=proba, classes=classes)


def crossval(params: dict, name: str, root: Path = Path("."), progress="auto") -> dict:
    """Cross-validate every model on the training part (feature maps refitted per fold)."""
    meta = load_meta(name, root)
    task = meta["task"]
    X, y = load_part(root / paths.PREPARED / name / "train.npz")
    cv = params["cv"]
    scheme = cv["scheme"]
    if task == "regression" and "stratified" in scheme:
        scheme = scheme.replace("stratified_", "")  # stratification needs classes; documented in conf/cv
    if task == "classification" and "stratified" in scheme or scheme == "5x2":
        from .data import Dataset

        check_class_counts(
            Dataset(name, X, y, task, meta["feature_names"], meta["target"], meta["source"], meta["classes"]),
            cv["folds"],
            f"stratified {cv['folds']}-fold cross-validation of the training part",
        )
    split_seed = derive_seed(params["seed"], "cv", name)
    splits = make_splits(scheme, y, folds=cv["folds"], repeats=cv["repeats"], seed=split_seed)
    specs = _specs_or_fail(params, name, task)
    metric_names, primary = task_metrics(params, task)
    seeds = {s.key: [derive_seed(params["seed"], "model", name, s.key, i) for i in range(len(splits))] for s in specs}
    res = cross_validate(
        X, y, splits, specs,
        task=task, metrics=metric_names, feature_steps=params["features"]["steps"],
        classes=meta["classes"] if task == "classification" else None,
        model_seeds=seeds, n_jobs=cv["n_jobs"], progress=progress if cv["progress"] == "auto" else cv["progress"],
        description=f"crossval {name}",
    )
    return {
        "dataset": name,
        "task": task,
        "classes": meta["classes"],
        "n_examples": int(len(y)),
        "scheme": {"name": scheme, "folds": cv["folds"], "repeats": cv["repeats"], "seed": split_seed},
        "metrics": metric_names,
        "primary_metric": primary,
        "greater_is_better": {m: METRICS[m].greater_is_better for m in metric_names},
        **res,
    }


def crossval_summary(result: dict) -> dict:
    """Mean and standard deviation of each metric per model (for ``metrics/crossval.json``)."""
    out = {}
    for key, m in result["models"].items():
        out[key] = {"not_converged": int(sum(not c for c in m.get("converged", [])))}
        for metric, values in m["scores"].items():
            v = np.asarray(values, dtype=float)
            out[key][f"{metric}_mean"] = float(v.mean())
            out[key][f"{metric}_std"] = float(v.std(ddof=1)) if v.size > 1 else 0.0
    return out


def crossval_plot_rows(result: dict) -> list[dict]:
    """Per-split primary-metric scores in the long format ``dvc plots show`` reads."""
    metric = result["primary_metric"]
    return [
        {"dataset": result["dataset"], "model": key, "split": i, "metric": metric, "score": float(s)}
        for key, m in result["models"].items()
        for i, s in enumerate(m["scores"][metric])
    ]
