"""The work of the featurize, train and crossval stages, one dataset at a time.

Stage scripts loop over the configured datasets and call these functions; everything here is a
deterministic function of ``params.yaml`` and the files the previous stages wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np

from .. import models as registry
from ..evaluation import budget
from ..evaluation.budget import FitFailedError
from ..evaluation.crossval import ModelSpec, cross_validate, fit_recording_convergence, n_iter_of, ranking_inputs
from ..evaluation.metrics import METRICS, score_predictions
from ..evaluation.splits import Split, make_splits, train_test_split_indices
from ..evaluation.unsupervised import score_unsupervised
from ..exceptions import ConfigError, DataValidationError
from ..features import FeaturePipeline
from ..persistence import SUFFIXES, load_model, save_model, stem_file
from . import designs, families, kinds, paths, records, units
from .data import Dataset, check_class_counts, load_meta, load_part, write_json
from .designs import half_sampling_applies, half_sampling_folds, half_sampling_settings
from .figures_data import decision_regions, figure_data
from .seeding import derive_seed
from .sequential import complete, subsets_needed
from .sequential import plan as sequential_plan_of

SUPERVISED = ("classification", "regression")
UNSUPERVISED = ("clustering", "decomposition")


def model_seed(params: dict) -> int:
    """The base of every model's (and family unit's) seed: ``model_seed`` when set, else ``seed``. Another
    ``model_seed`` redraws each learner's seed on every replicate and keeps the splits, the sealed test part and the
    half-sampling subsets (which derive from ``seed``): a seed-only change of the same experiment."""
    value = params.get("model_seed")
    return int(params["seed"] if value is None else value)


def _model_kind(name: str, hp: dict, dataset_task: str) -> str | None:
    """What a configured model does on a dataset of ``dataset_task``: its evaluation task, or None to skip it."""
    if "task" in registry.hyperparameters(name):  # a model that can be a classifier or a regressor (knn, mlp)
        wanted = hp.get("task", dataset_task)
        return dataset_task if dataset_task in SUPERVISED and wanted == dataset_task else None
    if dataset_task in SUPERVISED and registry.supports(name, dataset_task):
        return dataset_task
    for kind in UNSUPERVISED:
        if registry.supports(name, kind):
            return kind
    return None


def plan(params: dict, name: str, dataset_task: str) -> tuple[str, list[ModelSpec]]:
    """The evaluation task of dataset ``name`` and the models (or units) that run on it, in config order
    (:func:`_plan_table`; a family's problem: :func:`_plan_family`)."""
    dspec = params.get("dataset", {}).get(name) or {}
    return _runner(kinds.of_spec(dspec)).plan(params, name, dataset_task)


def _plan_table(params: dict, name: str, dataset_task: str) -> tuple[str, list[ModelSpec]]:
    """The evaluation task of table ``name`` and the models that run on it, in config order.

    Supervised models run on datasets of their task (``task`` is passed on to models that take it, unless
    the config fixes it); clusterers and decompositions run on any dataset (labels, when present, give the
    adjusted Rand index). ``dataset.<name>.models`` restricts the models to the listed keys. One experiment
    compares models of one kind per dataset.
    """
    by_kind: dict[str, list[ModelSpec]] = {}
    dspec = params.get("dataset", {}).get(name) or {}
    only = dspec.get("models")
    supervised = set(registry.available())
    for key, m in params["models"].items():
        if only is not None and key not in only:
            continue
        if m["name"] not in supervised:
            continue  # a unit of an experiment family (config checks every name): runs on its family's problems
        hp = dict(m.get("params") or {})
        kind = _model_kind(m["name"], hp, dataset_task)
        if kind is None:
            continue
        if "task" in registry.hyperparameters(m["name"]):
            hp["task"] = kind
        by_kind.setdefault(kind, []).append(ModelSpec(key, m["name"], hp))
    if not by_kind:
        able = registry.available(dataset_task) if dataset_task in SUPERVISED else registry.available("clustering")
        raise ConfigError(
            f"dataset {name!r} is a {dataset_task} problem but none of the configured models "
            f"({', '.join(params['models'])}) handles it; models that do: {', '.join(able)}"
        )
    if len(by_kind) > 1:
        kinds = "; ".join(f"{k}: {', '.join(s.key for s in v)}" for k, v in by_kind.items())
        raise ConfigError(
            f"dataset {name!r}: the configured models are of different kinds ({kinds}); one experiment compares "
            "models of one kind per dataset, so run them as separate experiments"
        )
    kind, specs = next(iter(by_kind.items()))
    return kind, specs


def task_metrics(params: dict, task: str) -> tuple[list[str], str]:
    return list(params["metrics"][task]), params["metrics"]["primary"][task]


def greater_is_better(metric: str) -> bool:
    from ..evaluation.unsupervised import UNSUPERVISED_METRICS

    return (METRICS[metric] if metric in METRICS else UNSUPERVISED_METRICS[metric]).greater_is_better


def train(params: dict, name: str, root: Path = Path(".")) -> tuple[dict, records.TrainResult]:
    """Fit every model on the whole (mapped) training part, save it, and evaluate it on the sealed test part.

    Returns ``(metrics, result)``: train/test metrics per model, and the :class:`~.records.TrainResult`
    with the test-set predictions (with which examples each model got right, for McNemar's test).
    """
    return _runner(kinds.of_meta(load_meta(name, root))).train(params, name, root)


def _train_table(params: dict, name: str, root: Path = Path(".")) -> tuple[dict, records.TrainResult]:
    meta = load_meta(name, root)
    task, specs = plan(params, name, meta["task"])
    X, y = load_part(root / paths.FEATURES / name / "train.npz")
    Xt, yt = load_part(root / paths.FEATURES / name / "test.npz")
    metric_names, _ = task_metrics(params, task)
    classes = np.arange(len(meta["classes"])) if meta["classes"] else None
    metrics, preds, fitted = {}, {}, {}
    policy = failure_policy(params)
    for spec in specs:
        hp = dict(spec.params)
        if "random_state" in registry.hyperparameters(spec.name) and hp.get("random_state") is None:
            hp["random_state"] = derive_seed(model_seed(params), "model", name, spec.key, "final")
        stem = paths.inside(root, paths.MODELS / name / spec.key, what="model file")
        args = (spec, hp, X, y, Xt, yt, metric_names, task, classes, meta, stem, name)
        try:
            if policy["max_fit_seconds"] is None:
                metrics[spec.key], preds[spec.key], fitted[spec.key] = _train_one(*args)
            else:  # fitted, scored and saved in a child process killed at the deadline (evaluation.budget)
                metrics[spec.key], preds[spec.key] = budget.call_with_deadline(
                    partial(_train_one, *args, keep_model=False), policy["max_fit_seconds"]
                )
        except Exception as exc:
            if budget.is_config_error(exc):
                raise
            reason, message = budget.reason_of(exc), budget.one_line(exc)
            if policy["on_error"] == "raise":
                raise budget.FitFailedError(
                    f"dataset {name!r}, model {spec.key!r} ({spec.name}), final fit on the whole training part: "
                    f"{reason}: {message} (cv.on_error: record records failed fits and goes on)",
                    reason,
                    budget.causes_of(exc),
                    spec.key,
                    0,
                    message,
                ) from exc
            for suffix in SUFFIXES:  # no model file of an earlier run is left to look like this one's
                stem_file(stem, suffix).unlink(missing_ok=True)
            preds[spec.key] = {
                "converged": False,
                "n_iter": None,
                "failure": records.FitFailure(0, reason, message),
            }
    regions = None
    if task == "classification" and len(meta["feature_names"]) == 2:
        X_raw, y_raw = load_part(root / paths.PREPARED / name / "train.npz")
        fmap = FeaturePipeline.load(root / paths.FEATURES / name / "featurizer")
        if policy["max_fit_seconds"] is not None:  # fitted in child processes: read back from their files
            fitted = {
                k: load_model(paths.inside(root, paths.MODELS / name / k, what="model file"))
                for k in preds
                if "failure" not in preds[k]
            }
        regions = decision_regions(fitted, fmap, X_raw, y_raw, meta["feature_names"])
    result = records.TrainResult(
        dataset=name,
        task=task,
        y_true=yt.tolist(),
        models={k: records.TrainedModel(**v) for k, v in preds.items()},
        decision_regions=regions,
    )
    return metrics, result


def _train_one(spec, hp, X, y, Xt, yt, metric_names, task, classes, meta, stem, name, keep_model=True):
    """One model of the train stage: fitted on the whole training part, saved, scored on both parts. Returns
    ``(metrics, record entry[, model])`` -- the first two plain JSON, so that a budgeted child can send them."""
    unsupervised = task in UNSUPERVISED
    model, converged = fit_recording_convergence(registry.create(spec.name, **hp), X, None if unsupervised else y)
    save_model(model, stem, registry_name=spec.name, extra={"dataset": name, "key": spec.key})
    if unsupervised:
        metrics = {  # labels, when the dataset has them, only for the adjusted Rand index
            part: _none_free(
                score_unsupervised(
                    model, metric_names, A, b if classes is not None else None, train_mean=X.mean(axis=0)
                )
            )
            for part, A, b in (("train", X, y), ("test", Xt, yt))
        }
    else:
        metrics = {
            part: _score(model, A, b, metric_names, task, classes) for part, A, b in (("train", X, y), ("test", Xt, yt))
        }
    entry = {"converged": converged, "n_iter": n_iter_of(model)}
    if task != "decomposition":
        pred = model.predict(Xt)
        entry["pred"] = pred.tolist()
        if task == "classification":
            entry["correct"] = (pred == yt).astype(int).tolist()
    entry["figures"] = figure_data(model, task, X, y if classes is not None else None, meta)
    return (metrics, entry, model) if keep_model else (metrics, entry)


def _none_free(scores: dict) -> dict:
    """Metrics files hold numbers only (dvc metrics); a score the model cannot give is left out."""
    return {k: v for k, v in scores.items() if v is not None}


def _score(model, X, y, metric_names, task, classes):
    pred = model.predict(X)
    proba, ranking = ranking_inputs(model, X, classes, metric_names) if task == "classification" else (None, None)
    return score_predictions(metric_names, y, pred, proba=proba, classes=classes, scores=ranking)


def _cv_splits(params: dict, name: str, X, y, meta: dict, task: str):
    """The splits of the ``cv`` group on the training part, and the scheme actually used."""
    cv = params["cv"]
    scheme = cv["scheme"]
    if meta["task"] != "classification" and "stratified" in scheme:
        scheme = scheme.replace("stratified_", "")  # stratification needs class labels
    if meta["task"] == "classification" and ("stratified" in scheme or scheme == "5x2"):
        check_class_counts(
            Dataset(name, X, y, task, meta["feature_names"], meta["target"], meta["source"], meta["classes"]),
            cv["folds"],
            f"stratified {cv['folds']}-fold cross-validation of the training part",
        )
    split_seed = derive_seed(params["seed"], "cv", name)
    y_split = y if meta["task"] == "classification" else y.astype(float)  # 5x2/holdout stratify only on labels
    return make_splits(scheme, y_split, folds=cv["folds"], repeats=cv["repeats"], seed=split_seed), scheme, split_seed


def _seed_splits(params: dict, name: str, y, meta: dict, design: dict, tag: str = "seeds") -> list[Split]:
    """``n_seeds`` replicates on one held-out part of the training part (or one per replicate)."""
    n_seeds = int(design.get("n_seeds") or 10)
    holdout = float(design.get("holdout") or 0.25)
    stratify = meta["task"] == "classification"
    out = []
    for r in range(n_seeds):
        key = r if design.get("resample_split") else "fixed"
        split_seed = derive_seed(params["seed"], tag, name, "split", key)
        try:
            train, test = train_test_split_indices(y, holdout, stratify=stratify, random_state=split_seed)
        except ValueError as exc:
            raise DataValidationError(f"design.holdout: dataset {name!r}, replicate {r}: {exc}") from None
        out.append(Split(index=r, repeat=r, fold=0, train=np.sort(train), test=np.sort(test), seed=split_seed))
    return out


def _replicates(params: dict, name: str, X, y, meta: dict, task: str, design: designs.Design):
    """(splits, replicate kind, Scheme) of the design's replicates at one point (cv splits or seeds)."""
    if design.independent:
        splits = _seed_splits(params, name, y, meta, design.spec)
        return (
            splits,
            design.inner.replicate_kind,
            records.Scheme(name=design.inner.name, design=design.name, seed=splits[0].seed, repeats=len(splits)),
        )
    splits, scheme, split_seed = _cv_splits(params, name, X, y, meta, task)
    cv = params["cv"]
    return (
        splits,
        design.inner.replicate_kind,
        records.Scheme(name=scheme, folds=cv["folds"], repeats=cv["repeats"], seed=split_seed, design=design.name),
    )


def failure_policy(params: dict) -> dict:
    """``cv.on_error`` ("raise" unless set) and ``cv.max_fit_seconds`` (None unless set), as keyword arguments of
    :func:`~replearn.evaluation.crossval.cross_validate`."""
    cv = params.get("cv")
    if cv is None:
        return {"on_error": "raise", "max_fit_seconds": None}
    return {"on_error": cv.get("on_error") or "raise", "max_fit_seconds": cv.get("max_fit_seconds")}


def _run(
    params,
    name,
    X,
    y,
    splits,
    specs,
    task,
    meta,
    kind,
    point=None,
    progress="auto",
    executor=None,
    tag=(),
    timing=None,
    on_fits=None,
):
    """``cross_validate`` on ``splits``; model seeds derive from names (and the seed replicate / point)."""
    cv = params["cv"]
    metric_names, _ = task_metrics(params, task)
    half = "half_sampling" in tag
    tag = tuple(tag) + (() if point is None else ("point", repr(point)))
    seeds = {
        s.key: [derive_seed(model_seed(params), "model", name, s.key, *tag, i) for i in range(len(splits))]
        for s in specs
    }
    return cross_validate(
        X,
        y,
        splits,
        specs,
        task=task,
        metrics=metric_names,
        feature_steps=params["features"]["steps"],
        max_columns=params["features"].get("max_columns"),
        classes=meta["classes"] or None,
        model_seeds=seeds,
        n_jobs=cv["n_jobs"],
        progress=progress if cv["progress"] == "auto" else cv["progress"],
        description=f"crossval {name}" + ("" if point is None else f" @ {point}") + (" (half-samples)" if half else ""),
        executor=executor,
        dataset=name,
        timing=timing,
        on_fits=on_fits,
        **failure_policy(params),
    )


def _evaluation(m: dict) -> records.ModelEvaluation:
    """A model's entry of :func:`cross_validate` as its record (failures typed)."""
    return records.ModelEvaluation(**{**m, "failures": [records.FitFailure(**f) for f in m.get("failures") or []]})


def _subsample(split: Split, size, seed: int) -> Split:
    """The split with its training part cut to ``size`` examples (a count, or a fraction in (0, 1])."""
    n = split.train.size
    k = int(round(size * n)) if isinstance(size, float) else int(size)
    if not 1 <= k <= n:
        raise ConfigError(
            f"design.values: n_train {size!r} asks for {k} training examples, but a replicate's "
            f"training part has {n}; use counts from 1 to {n} or fractions in (0, 1]"
        )
    keep = np.sort(np.random.default_rng(seed).permutation(split.train)[:k])
    return Split(index=split.index, repeat=split.repeat, fold=split.fold, train=keep, test=split.test, seed=split.seed)


def _half_splits(params: dict, name: str, y, meta: dict) -> tuple[list[Split], list[dict], int]:
    """The inner splits of half-sampling (:mod:`replearn.stats.halfsampling`): ``subsamples`` random subsets of
    ``fraction`` of the training part, each with ``repeats`` x ``folds`` cross-validation inside it only.
    Returns the splits (in the training part's indices), their (subsample, repeat, fold) ids and the size m."""
    hs = half_sampling_settings(params)
    n = int(len(y))
    m = int(round(hs["fraction"] * n))
    main_kind = designs.of_params(params).replicate_kind
    folds = half_sampling_folds(hs, main_kind, _main_folds(params))
    if not folds <= m <= n - 1:
        raise ConfigError(
            f"cv.half_sampling: a subsample of {m} of the {n} training examples of {name!r} cannot hold "
            f"{folds} folds; lower cv.half_sampling.folds or set cv.half_sampling.subsamples: 0"
        )
    classification = meta["task"] == "classification"
    splits: list[Split] = []
    ids: list[dict] = []
    for b in range(int(hs["subsamples"])):
        seed_b = derive_seed(params["seed"], "half_sampling", name, b)
        if classification:
            try:
                _, sub = train_test_split_indices(y, m, stratify=True, random_state=seed_b)
            except ValueError:
                _, sub = train_test_split_indices(y, m, stratify=False, random_state=seed_b)
        else:
            _, sub = train_test_split_indices(y, m, stratify=False, random_state=seed_b)
        ys = y[sub] if classification else np.zeros(sub.size)
        for r in range(int(hs["repeats"])):
            seed_r = derive_seed(params["seed"], "half_sampling", name, b, r)
            scheme = "stratified_kfold" if classification else "kfold"
            try:
                inner = make_splits(scheme, ys, folds=folds, seed=seed_r)
            except ValueError:  # a class with fewer members than folds in this subsample
                inner = make_splits("kfold", np.zeros(sub.size), folds=folds, seed=seed_r)
            for f, sp in enumerate(inner):
                splits.append(
                    Split(index=len(splits), repeat=r, fold=f, train=sub[sp.train], test=sub[sp.test], seed=seed_r)
                )
                ids.append({"subsample": b, "repeat": r, "fold": f})
    return splits, ids, m


def _half_sampling(
    params,
    name,
    X,
    y,
    specs,
    task,
    meta,
    *,
    point=None,
    transform=None,
    progress="auto",
    executor=None,
    on_fits=None,
    subsets=None,
) -> dict:
    """Every model fitted on the inner splits of half-sampling: ``{"replicates": [...], "models": {key:
    {metric: [score per inner split]}}, "failures": {key: [FitFailure]}, "n_fits"}``. ``transform`` maps a split to
    the point's (an n_train sweep); ``subsets`` -- ``(lo, hi)``: only the subsets lo..hi-1 (a look of the
    sequential design; the splits keep their indices, so they are the fixed design's)."""
    splits, ids, m = _half_splits(params, name, y, meta)
    if subsets is not None:
        keep = [i for i, d in enumerate(ids) if subsets[0] <= d["subsample"] < subsets[1]]
        splits, ids = [splits[i] for i in keep], [ids[i] for i in keep]
    if transform is not None:
        splits = [transform(s) for s in splits]
    res = _run(
        params,
        name,
        X,
        y,
        splits,
        specs,
        task,
        meta,
        "split",
        point=point,
        progress=progress,
        executor=executor,
        tag=("half_sampling",),
        on_fits=on_fits,
    )
    reps = [
        dict(i, n_train=int(s["n_train"]), n_test=int(s["n_test"]), point=point) for i, s in zip(ids, res["splits"])
    ]
    folds = 1 + max(r["fold"] for r in ids)
    failures = {
        k: [records.FitFailure(**f) for f in v["failures"]] for k, v in res["models"].items() if v.get("failures")
    }
    return {
        "replicates": reps,
        "models": {k: v["scores"] for k, v in res["models"].items()},
        "subsample_size": m,
        "folds": folds,
        "failures": failures,
        "n_fits": len(splits),
    }


#: a fit on a half-sized training set that raises one of these (e.g. a single class in a tiny subsample) is
#: tolerated under cv.on_error: raise -- the dataset is then compared without the data-sampling variance
_HALF_TOLERATED = ("ValueError", "ArithmeticError", "LinAlgError")


def _try_half_sampling(params, name, X, y, specs, task, meta, **kwargs) -> dict:
    """:func:`_half_sampling`, with its failures: ``"ok"`` is False when a fit failed, and the dataset is then
    compared without the data-sampling variance (the corrected resampled t-test), and the report says so.

    Under ``cv.on_error: record`` every failed fit is listed (``"failures"``); under ``raise`` the first fit that
    raises one of :data:`_HALF_TOLERATED` (e.g. a single class in a tiny subsample of a sweep's smallest n_train)
    ends the half-sampling of the dataset and is the one listed, as before version 5; any other failure stops."""
    failures: dict[str, list[records.FitFailure]] = {}
    try:
        part = _half_sampling(params, name, X, y, specs, task, meta, **kwargs)
    except FitFailedError as exc:
        if not set(exc.causes) & set(_HALF_TOLERATED):
            raise
        failures = {str(exc.model): [records.FitFailure(int(exc.replicate or 0), exc.reason, exc.detail)]}
    except (ValueError, ArithmeticError, np.linalg.LinAlgError):  # outside a fit (a subsample's feature maps)
        pass
    else:
        return {**part, "ok": not part["failures"]}
    return {"ok": False, "failures": failures, "n_fits": _n_half_fits(params)}


def _n_half_fits(params: dict) -> int:
    """Half-sampling fits per model (and sweep point): subsamples x repeats x inner folds."""
    hs = half_sampling_settings(params)
    main_kind = designs.of_params(params).replicate_kind
    return int(hs["subsamples"]) * int(hs["repeats"]) * int(half_sampling_folds(hs, main_kind, _main_folds(params)))


def _main_folds(params: dict) -> int | None:
    """The main scheme's folds (k-fold splits; None for a hold-out scheme): the automatic inner folds never
    exceed them (:func:`~.designs.half_sampling_folds`)."""
    cv = params.get("cv") or {}
    return int(cv["folds"]) if cv.get("folds") and cv.get("scheme") != "holdout" else None


def _variance_failures(parts: list[dict]) -> dict[str, list[records.FitFailure]]:
    """The failed half-sampling fits of every point, indexed over the points' fits in order."""
    out: dict[str, list[records.FitFailure]] = {}
    offset = 0
    for p in parts:
        for key, fails in sorted(p["failures"].items()):
            out.setdefault(key, []).extend(dataclasses.replace(f, replicate=f.replicate + offset) for f in fails)
        offset += int(p["n_fits"])
    return out


def crossval(
    params: dict,
    name: str,
    root: Path = Path("."),
    progress="auto",
    *,
    timing: dict | None = None,
    executor=None,
    on_fits=None,
) -> records.EvaluationResult:
    """Evaluate every model on the replicates of the configured design (feature maps refitted per replicate).

    * ``design=cv``: the splits of the ``cv`` group (kind "split");
    * ``design=seeds``: ``n_seeds`` fits differing only in the learner's seed (kind "seed");
    * ``design=sweep``: the ``cv`` or ``seeds`` replicates at every point of ``design.axis`` (kind "sweep",
      ``point`` the axis value); replicate ``repeat`` r uses the same held-out examples at every point, so
      points pair by replicate.

    Failed fits follow ``cv.on_error`` and ``cv.max_fit_seconds`` (:func:`failure_policy`): recorded in
    ``ModelEvaluation.failures`` (and ``EvaluationResult.variance_failures`` for half-sampling fits), or a
    :class:`~replearn.evaluation.budget.FitFailedError` naming the dataset, model and split.

    On a dataset of an experiment family the units run ``n_seeds`` times (:func:`crossval_family`).
    ``timing``, when given, receives the wall-clock seconds per model and replicate (``{key: {"fit_seconds":
    [...], "predict_seconds": [...]}}``; a family's units: their own labels) -- for MLflow and the cost report
    only, never a record. ``on_fits(n)`` is called as ``n`` more fits finish (see :func:`planned_fits`).
    ``executor`` (from :func:`.compute.session`; None: joblib processes) runs the fits of the replicates.
    """
    run = _runner(kinds.of_meta(load_meta(name, root))).crossval
    return run(params, name, root, progress, timing=timing, executor=executor, on_fits=on_fits)


def _crossval_table(
    params: dict,
    name: str,
    root: Path = Path("."),
    progress="auto",
    *,
    timing: dict | None = None,
    executor=None,
    on_fits=None,
) -> records.EvaluationResult:
    meta = load_meta(name, root)
    task, specs = plan(params, name, meta["task"])
    X, y = load_part(root / paths.PREPARED / name / "train.npz")
    design = designs.of_params(params)
    metric_names, primary = task_metrics(params, task)
    splits, kind, scheme = _replicates(params, name, X, y, meta, task, design)
    half = half_sampling_applies(params)
    variance_parts: list[dict] = []
    run = dict(progress=progress, executor=executor, on_fits=on_fits)
    if not design.has_points:
        tm: dict = {}
        res = _run(params, name, X, y, splits, specs, task, meta, kind, timing=tm, **run)
        _add_timing(timing, tm)
        replicates = [records.Replicate(kind=kind, **s) for s in res["splits"]]
        models = {k: _evaluation(m) for k, m in res["models"].items()}
        if half:
            seq = sequential_plan_of(half_sampling_settings(params))
            if seq is None:
                variance_parts.append(_try_half_sampling(params, name, X, y, specs, task, meta, **run))
            else:
                probe = dict(
                    dataset=name,
                    task=task,
                    classes=meta["classes"] or None,
                    n_examples=int(len(y)),
                    scheme=scheme,
                    metrics=metric_names,
                    primary_metric=primary,
                    greater_is_better={m: greater_is_better(m) for m in metric_names},
                    splits=replicates,
                    models=models,
                )
                variance_parts.append(_sequential_half_sampling(params, name, X, y, specs, task, meta, seq, probe, run))
    else:
        axis, values = design.spec["axis"], design.points
        scheme = dataclasses.replace(
            scheme, design=design.name, axis=axis, values=values, simplest=design.spec.get("simplest") or "first"
        )
        replicates = []
        merged: dict[str, dict] = {}
        for point in values:
            Xp, sp, specs_p = X, splits, specs
            if axis == "n_train":
                sp = [_subsample(s, point, derive_seed(params["seed"], "n_train", name, s.index)) for s in splits]
            elif axis == "n_features":
                if not 1 <= int(point) <= X.shape[1]:
                    raise ConfigError(
                        f"design.values: n_features {point} is not between 1 and {X.shape[1]} "
                        f"(the features of dataset {name!r})"
                    )
                Xp = X[:, : int(point)]
            else:
                key, _, hp = axis.partition(".")
                specs_p = [ModelSpec(s.key, s.name, {**s.params, hp: point}) if s.key == key else s for s in specs]
            tm = {}
            res = _run(params, name, Xp, y, sp, specs_p, task, meta, kind, point=point, timing=tm, **run)
            _add_timing(timing, tm)
            if half:
                tf = None
                if axis == "n_train":  # the same fraction of the inner training parts (a count: scaled by m/n)
                    shrink = float(half_sampling_settings(params)["fraction"])

                    def tf(s, point=point, shrink=shrink):
                        size = point if isinstance(point, float) else max(1, min(s.train.size, round(point * shrink)))
                        return _subsample(s, size, derive_seed(params["seed"], "n_train_half", name, s.index))

                variance_parts.append(
                    _try_half_sampling(params, name, Xp, y, specs_p, task, meta, point=point, transform=tf, **run)
                )
            offset = len(replicates)
            for s in res["splits"]:
                meta_s = dict(s, index=len(replicates))
                replicates.append(records.Replicate(kind=design.record_kind, point=point, **meta_s))
            for key, m in res["models"].items():
                acc = merged.setdefault(
                    key,
                    {
                        "registry_name": m["registry_name"],
                        "params": m["params"],
                        "scores": {k: [] for k in m["scores"]},
                        "n_iter": [],
                        "converged": [],
                        "failures": [],
                        **({"correct": []} if "correct" in m else {}),
                    },
                )
                for k, v in m["scores"].items():
                    acc["scores"][k].extend(v)
                acc["n_iter"].extend(m["n_iter"])
                acc["converged"].extend(m["converged"])
                acc["failures"].extend(dict(f, replicate=f["replicate"] + offset) for f in m.get("failures") or [])
                if "correct" in m:
                    acc["correct"].extend(m["correct"])
        models = {k: _evaluation(m) for k, m in merged.items()}
    return records.EvaluationResult(
        dataset=name,
        task=task,
        classes=meta["classes"] or None,
        n_examples=int(len(y)),
        scheme=scheme,
        metrics=metric_names,
        primary_metric=primary,
        greater_is_better={m: greater_is_better(m) for m in metric_names},
        splits=replicates,
        models=models,
        variance=(
            _variance_record(params, variance_parts, len(y))
            if variance_parts and all(p["ok"] for p in variance_parts)
            else None
        ),
        variance_failures=_variance_failures(variance_parts),
        data_sha256=paths.sha256_file(root / paths.PREPARED / name / "train.npz"),
    )


def _add_timing(timing: dict | None, part: dict) -> None:
    """Append one run's per-replicate seconds to ``timing`` (sweep points in order)."""
    if timing is None:
        return
    for key, labels in part.items():
        for label, values in labels.items():
            timing.setdefault(key, {}).setdefault(label, []).extend(values)


def planned_fits(params: dict, name: str, root: Path = Path(".")) -> int:
    """How many fits :func:`crossval` makes on dataset ``name`` (models x replicates, half-sampling fits
    included): the total of an overall progress bar. Reads only the dataset's meta file."""
    return _runner(kinds.of_meta(load_meta(name, root))).planned_fits(params, name, root)


def _planned_unit_runs(params: dict, name: str, root: Path = Path(".")) -> int:
    design = designs.of_params(params)
    _, specs = _plan_family(params, name, params["dataset"][name])
    return len(specs) * design.n_seeds * len(design.points)


def _planned_table_fits(params: dict, name: str, root: Path = Path(".")) -> int:
    meta = load_meta(name, root)
    design = designs.of_params(params)
    points = len(design.points)
    _, specs = plan(params, name, meta["task"])
    per_point = design.replicates_per_point(params)
    if half_sampling_applies(params):
        per_point += _n_half_fits(params)
    return len(specs) * per_point * points


def _merge_looks(parts: list[dict]) -> dict:
    """The half-sampling parts of the looks run so far, as one part (replicates and scores in subset order)."""
    models: dict[str, dict[str, list]] = {}
    failures: dict[str, list] = {}
    offset = 0
    for p in parts:
        for key, scores in (p.get("models") or {}).items():
            acc = models.setdefault(key, {k: [] for k in scores})
            for metric, values in scores.items():
                acc[metric].extend(values)
        for key, f in (p.get("failures") or {}).items():  # indexed over the fits of all looks, in order
            failures.setdefault(key, []).extend(dataclasses.replace(x, replicate=x.replicate + offset) for x in f)
        offset += int(p.get("n_fits") or 0)
    return {
        "replicates": [r for p in parts for r in p.get("replicates") or []],
        "models": models,
        "subsample_size": parts[0].get("subsample_size"),
        "folds": parts[0].get("folds"),
        "failures": failures,
        "n_fits": sum(int(p.get("n_fits") or 0) for p in parts),
        "ok": all(p["ok"] for p in parts),
    }


def _sequential_half_sampling(params, name, X, y, specs, task, meta, seq: dict, probe: dict, run: dict) -> dict:
    """The half-sampling subsets in the planned looks of the sequential design (:mod:`.sequential`): after each
    look the pairs are decided by the significance stage's own rule, and the dataset stops once every pair is.
    Returns the merged part, with ``"sequential"`` (the plan) for the record."""
    parts: list[dict] = []
    lo = 0
    for look in seq["looks"]:
        parts.append(_try_half_sampling(params, name, X, y, specs, task, meta, subsets=(lo, look), **run))
        lo = look
        part = _merge_looks(parts)
        if not part["ok"]:
            break
        variance = {**_variance_record(params, [part], len(y)), "subsamples": look, "sequential": seq}
        cv = records.EvaluationResult(**probe, variance=variance)
        if subsets_needed(cv, params.get("stats") or {}, seq["looks"], look) <= look:
            break
    part = _merge_looks(parts)
    if complete(records.EvaluationResult(**probe)):  # a failed main fit: every subset ran, the fixed design
        part["sequential"] = seq
    part["subsamples_run"] = lo
    return part


def _variance_record(params: dict, parts: list, n: int) -> dict:
    """:attr:`records.EvaluationResult.variance`: the half-sampling fits of every point, in one record (with the
    sequential design, the subsets it ran and its plan)."""
    hs = half_sampling_settings(params)
    replicates = [r for p in parts for r in p["replicates"]]
    models: dict[str, dict[str, list]] = {}
    for p in parts:
        for key, scores in p["models"].items():
            acc = models.setdefault(key, {k: [] for k in scores})
            for metric, values in scores.items():
                acc[metric].extend(values)
    extra = {"sequential": parts[0]["sequential"]} if parts[0].get("sequential") else {}
    return {
        **extra,
        "method": "half_sampling",
        "n_examples": int(n),
        "subsample_size": int(parts[0]["subsample_size"]),
        "subsamples": int(parts[0].get("subsamples_run") or hs["subsamples"]),
        "repeats": int(hs["repeats"]),
        "folds": int(parts[0]["folds"]),
        "replicates": replicates,
        "models": models,
    }


def train_all(params: dict, root: Path = Path(".")) -> list[tuple[str, dict, records.TrainResult]]:
    """:func:`train` on every configured dataset, in order: ``(name, metrics, result)`` each.

    Datasets are shared by this process and ``cv.n_jobs - 1`` worker processes (:func:`.workers.map_shared`, the
    one mechanism for local worker processes; ``cv.n_jobs`` read as joblib reads it, -1: every core); each
    :func:`train` is a pure function of the params and the files of its dataset, so the result is the serial one,
    and a benchmark of many datasets trains its final models on every core as its cross-validation does."""
    names = list(params["dataset"])
    n_jobs = int(params["cv"].get("n_jobs") or 1)
    if n_jobs == 1 or len(names) == 1:
        outs = [train(params, name, root) for name in names]
    else:
        from joblib import effective_n_jobs

        from .workers import map_shared

        outs = map_shared(train, [(params, name, root) for name in names], min(effective_n_jobs(n_jobs), len(names)))
    return [(name, m, r) for name, (m, r) in zip(names, outs)]


@contextmanager
def overall_progress(params: dict):
    """One bar over every fit of the stage (datasets x models x replicates, half-sampling fits included) with its
    ETA, on a terminal and outside CI (``cv.progress``), when there is more than one dataset; yields the callback
    that advances it (None when there is no bar)."""
    from ..evaluation.crossval import progress_enabled

    if len(params["dataset"]) < 2 or not progress_enabled(params["cv"].get("progress", "auto")):
        yield None
        return
    from tqdm.auto import tqdm

    total = sum(planned_fits(params, name) for name in params["dataset"])
    with tqdm(total=total, desc="crossval (all datasets)", unit="fit", position=0, smoothing=0.05) as bar:
        yield bar.update


def crossval_log_lines(name: str, result: records.EvaluationResult, summary: dict) -> list[str]:
    """The crossval stage's lines for one dataset: each model's score, non-converged and failed fits."""
    lines = []
    metric = result.primary_metric
    for key, s in summary.items():
        warn = result.problem_kind.runs_not_converged(s["not_converged"]) if s["not_converged"] else ""
        if s.get("failed"):
            reasons = sorted({f.reason for f in result.models[key].failures})
            warn += f" ({s['failed']} failed fits: {', '.join(reasons)}; recorded, see the report)"
        score = (
            f"{metric} {s[metric + '_mean']:.4f} +- {s[metric + '_std']:.4f}"
            if metric + "_mean" in s
            else f"no {metric} score (left out of the tests)"
        )
        lines.append(f"{name}/{key}: {score} over {len(result.splits)} replicates{warn}")
    failed_half = sum(len(v) for v in result.variance_failures.values())
    if failed_half:
        lines.append(f"{name}: {failed_half} half-sampling fit(s) failed: compared without the data-sampling variance")
    return lines


# -- experiment families (pipeline.families): units on problems, replicated by seed -------------------------
def _plan_family(params: dict, name: str, dspec: dict) -> tuple[str, list[ModelSpec]]:
    """The family's task and the configured units that can run on dataset ``name`` (defaults filled in)."""
    fam = families.load(dspec["source"])
    fam_units = units.load(dspec["source"]).UNITS
    only = dspec.get("models")
    specs = []
    for key, m in params["models"].items():
        unit = fam_units.get(m["name"])
        if unit is None or (only is not None and key not in only):
            continue
        if unit.supports is not None and not unit.supports(dspec):
            continue
        specs.append(ModelSpec(key, m["name"], {**unit.defaults, **(m.get("params") or {})}))
    if not specs:
        able = sorted(u for u, unit in fam_units.items() if unit.supports is None or unit.supports(dspec))
        raise ConfigError(
            f"dataset {name!r} is a {fam.NAME} problem ({fam.TASK}) but none of the configured models "
            f"({', '.join(params['models'])}) can run on it; units that can: {', '.join(able)}"
        )
    return fam.TASK, specs


def _family_problem(params: dict, name: str, fam, replicate=None):
    spec = params["dataset"][name]
    tag = () if replicate is None else (replicate,)
    seed = derive_seed(params["seed"], fam.NAME, name, *tag)
    return fam.build(spec, seed), seed


def _common_evaluation(params: dict, name: str, fam, *keys) -> dict:
    """``{"eval_seed": ...}`` for a family whose units take one (``COMMON_EVALUATION``): the same seed for every
    unit of a replicate, so that they are scored on the same evaluation episodes (common random numbers)."""
    if not getattr(fam, "COMMON_EVALUATION", False):
        return {}
    return {"eval_seed": derive_seed(params["seed"], "evaluation", name, *keys)}


def _train_family(params: dict, name: str, root: Path) -> tuple[dict, records.TrainResult]:
    """Run every unit once with its final seed; its scores are the "test" numbers of metrics/train.json."""
    fam = families.load(params["dataset"][name]["source"])
    _, specs = _plan_family(params, name, params["dataset"][name])
    problem, _ = _family_problem(params, name, fam)
    fam_units = units.load(fam.NAME).UNITS
    metrics, trained = {}, {}
    for spec in specs:
        seed = derive_seed(model_seed(params), "model", name, spec.key, "final")
        out = fam_units[spec.name].run(
            dict(spec.params), problem, seed, **_common_evaluation(params, name, fam, "final")
        )
        metrics[spec.key] = {"test": _none_free(dict(out.scores))}
        write_json(
            paths.inside(root, paths.MODELS / name / f"{spec.key}.unit.json", what="unit record"),
            {
                "family": fam.NAME,
                "unit": spec.name,
                "params": spec.params,
                "seed": seed,
                "scores": dict(out.scores),
                "note": "a unit of an experiment family is not an estimator: nothing to save but this record",
            },
        )
        figures = {"curves": {"learning curve": list(out.curve)}} if out.curve else {}
        trained[spec.key] = records.TrainedModel(converged=bool(out.converged), n_iter=out.n_iter, figures=figures)
    result = records.TrainResult(dataset=name, task=fam.TASK, y_true=[], models=trained, family=fam.NAME)
    return metrics, result


def crossval_family(params: dict, name: str, root: Path = Path("."), *, timing: dict | None = None, on_fits=None):
    """The ``seeds`` design (or a ``sweep`` with seed replicates) for the units of an experiment family.

    Replicate ``r`` runs every unit with ``derive_seed(seed, "model", dataset, key, r)`` (at a sweep point also
    ``"point", repr(value)``, as for models) on the same problem, built from ``derive_seed(seed, family,
    dataset)`` -- or, with ``design.resample_split: true``, a new problem per replicate from
    ``derive_seed(seed, family, dataset, r)``, shared by every unit of that replicate. Units run serially.
    """
    spec = params["dataset"][name]
    fam = families.load(spec["source"])
    _, specs = _plan_family(params, name, spec)
    fam_units = units.load(spec["source"]).UNITS
    design = designs.of_params({"design": params.get("design") or {"name": designs.Seeds.name}})
    n_seeds = design.n_seeds
    problem0, seed0 = _family_problem(params, name, fam)
    problems = [
        _family_problem(params, name, fam, r) if design.spec.get("resample_split") else (problem0, seed0)
        for r in range(n_seeds)
    ]
    sweep = design.has_points
    points = design.points
    axis_key, _, axis_hp = (design.spec.get("axis") or "").partition(".")
    replicates: list[records.Replicate] = []
    acc: dict[str, dict] = {}
    for point in points:
        tag = () if point is None else ("point", repr(point))
        for r, (problem, pseed) in enumerate(problems):
            replicates.append(
                records.Replicate(
                    index=len(replicates),
                    kind=design.record_kind,
                    n_train=0,
                    n_test=0,
                    seed=pseed,
                    repeat=r,
                    fold=0,
                    point=point,
                )
            )
            for s in specs:
                hp = {**s.params, axis_hp: point} if sweep and s.key == axis_key else dict(s.params)
                seed = derive_seed(model_seed(params), "model", name, s.key, *tag, r)
                out = fam_units[s.name].run(hp, problem, seed, **_common_evaluation(params, name, fam, *tag, r))
                a = acc.setdefault(
                    s.key,
                    {
                        "registry_name": s.name,
                        "params": dict(s.params),
                        "scores": {m: [] for m in fam.METRICS},
                        "n_iter": [],
                        "converged": [],
                        "curves": [],
                        "curve_label": out.curve_label or None,
                        "extras": [],
                    },
                )
                for m in fam.METRICS:
                    v = out.scores.get(m)
                    a["scores"][m].append(None if v is None else float(v))
                a["n_iter"].append(out.n_iter)
                a["converged"].append(bool(out.converged))
                a["curves"].append(None if out.curve is None else [float(v) for v in out.curve])
                a["extras"].append(dict(out.extra))
                if timing is not None:
                    for label, sec in out.timing.items():
                        timing.setdefault(s.key, {}).setdefault(label, []).append(float(sec))
                if on_fits is not None:
                    on_fits(1)
    models = {}
    for key, a in acc.items():
        if all(c is None for c in a["curves"]):
            a["curves"], a["curve_label"] = None, None
        models[key] = records.ModelEvaluation(**a)
    scheme = records.Scheme(name=designs.UNIT_SEEDS, design=design.name, seed=seed0, repeats=n_seeds)
    if sweep:
        scheme = dataclasses.replace(scheme, axis=design.spec["axis"], values=points)
    return records.EvaluationResult(
        dataset=name,
        task=fam.TASK,
        n_examples=0,
        scheme=scheme,
        metrics=list(fam.METRICS),
        primary_metric=fam.PRIMARY,
        greater_is_better=dict(fam.METRICS),
        splits=replicates,
        models=models,
        family={
            "name": fam.NAME,
            "task": fam.TASK,
            "problem": fam.describe(problem0),
            "resampled_problem": bool(design.spec.get("resample_split")),
            "scale_by": getattr(fam, "SCALE_BY", None),
            "scale_metrics": list(getattr(fam, "SCALE_METRICS", ())),
        },
    )


def _crossval_units(params: dict, name: str, root: Path = Path("."), progress="auto", **kw):
    """:func:`crossval_family` (units run serially: no progress bar, no executor)."""
    return crossval_family(params, name, root, timing=kw.get("timing"), on_fits=kw.get("on_fits"))


@dataclasses.dataclass(frozen=True)
class _Runner:
    """What runs the problems of one kind (:attr:`~replearn.pipeline.kinds.ProblemKind.runner`)."""

    plan: Callable
    train: Callable
    crossval: Callable
    planned_fits: Callable


#: the runners, by :attr:`ProblemKind.runner`: estimators fitted on tables, a family's units run on seeds
RUNNERS: dict[str, _Runner] = {
    "estimators": _Runner(_plan_table, _train_table, _crossval_table, _planned_table_fits),
    "units": _Runner(
        lambda params, name, _task: _plan_family(params, name, params["dataset"][name]),
        _train_family,
        _crossval_units,
        _planned_unit_runs,
    ),
}


def _runner(kind: kinds.ProblemKind) -> _Runner:
    return RUNNERS[kind.runner]


def require_current_plugins(params: dict, root: str = ".") -> None:
    """Refuse (``ConfigError``) to load configured models when the project's ``plugins.json`` does not record the
    installed version of each plugin model ``params`` names: the results would be attributed to another plugin
    version, and DVC would compare the stage against a stale dep (:mod:`replearn.plugin_lock`)."""
    from ..plugin_lock import problem

    stale = problem(root, params)
    if stale:
        raise ConfigError(stale)
