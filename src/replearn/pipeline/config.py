"""Configuration: compose ``conf/`` into ``params.yaml`` and validate it before any work.

Stage scripts read ``params.yaml`` (never ``@hydra.main``, which would ignore ``dvc exp run -S``):
DVC composes ``conf/`` with the ``-S`` overrides and writes ``params.yaml`` itself, and
:func:`compose` produces byte-for-byte the same file for a plain ``dvc repro``.

:func:`validate` checks the whole configuration against :data:`SCHEMA` and the registries, and
raises one :class:`~replearn.exceptions.ConfigError` listing every problem, each with its dotted key
and, for names, the valid choices.
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path

import yaml

from ..exceptions import ConfigError

PARAMS_FILE = "params.yaml"
CONF_DIR = "conf"
CONFIG_NAME = "config"


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The repository root: the nearest parent of ``start`` (default: cwd) holding ``dvc.yaml``."""
    here = Path(start or os.getcwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "dvc.yaml").is_file():
            return candidate
    raise ConfigError(f"no dvc.yaml found in {here} or its parents; run replearn from inside the project")


def compose(overrides: list[str] | None = None, *, root: Path | None = None, output: Path | None = None) -> Path:
    """Compose ``conf/`` with Hydra ``overrides`` and write ``params.yaml`` exactly as DVC does."""
    from dvc.utils.hydra import compose_and_dump  # the same function `dvc exp run -S` calls

    root = Path(root or project_root())
    output = Path(output or root / PARAMS_FILE)
    compose_and_dump(
        output, str(root / CONF_DIR), None, CONFIG_NAME, str(root), list(overrides or [])
    )
    validate(load_params(output), root=root)
    return output


def load_params(path: str | os.PathLike = PARAMS_FILE) -> dict:
    """Read ``params.yaml``; a missing or malformed file raises ``ConfigError``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path} not found; create it with `python -m replearn compose`")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping at the top level, got {type(data).__name__}")
    return data


def load_and_validate(path: str | os.PathLike = PARAMS_FILE, *, root: Path | None = None) -> dict:
    """Read ``params.yaml`` and validate all of it; the first thing every stage does."""
    params = load_params(path)
    validate(params, root=root)
    return params


# -- schema --------------------------------------------------------------------------------------
class Choice:
    """A string from a fixed (or lazily computed) list of choices."""

    def __init__(self, choices, what: str = "value"):
        self._choices = choices
        self.what = what

    @property
    def choices(self) -> list[str]:
        return sorted(self._choices() if callable(self._choices) else self._choices)


class ListOf:
    def __init__(self, item):
        self.item = item


class MapOf:
    """A mapping from user-chosen names to values of one schema."""

    def __init__(self, item, *, min_items: int = 0):
        self.item = item
        self.min_items = min_items


class Optional_:
    def __init__(self, item):
        self.item = item


class AnyMapping:
    """Free-form mapping (checked elsewhere, e.g. model hyperparameters against the registry)."""


def _models():
    from .. import models

    return models.available()


def _feature_maps():
    from .. import features

    return features.available()


def _metrics():
    from ..evaluation.metrics import METRICS

    return list(METRICS)


def _unsupervised_metrics():
    from ..evaluation.unsupervised import UNSUPERVISED_METRICS

    return list(UNSUPERVISED_METRICS)


def _schemes():
    from ..evaluation.splits import SCHEMES

    return list(SCHEMES)


_TASKS = ("classification", "regression")  # supervised tasks of a dataset; "clustering" = no labels
_GENERATORS = ("blobs", "moons", "circles", "xor", "linear")

# `models` (optional, every source): the keys of `models` that run on this dataset (default: all that can).
DATASET_KEYS = {
    "shipped": {"source": str, "models": Optional_(ListOf(str))},
    "file": {"source": str, "path": str, "target": Optional_(str), "task": Choice(_TASKS + ("clustering",), "task"),
             "models": Optional_(ListOf(str))},
    "synthetic": {
        "source": str,
        "models": Optional_(ListOf(str)),
        "generator": Choice(_GENERATORS, "generator"),
        "n_samples": int,
        "n_features": Optional_(int),
        "n_classes": Optional_(int),
        "noise": Optional_(float),
        "factor": Optional_(float),
        "cluster_std": Optional_(float),
    },
}

SCHEMA = {
    "experiment_name": str,
    "seed": int,
    "split": {"test_size": float, "stratify": bool},
    "metrics": {
        "classification": ListOf(Choice(_metrics, "metric")),
        "regression": ListOf(Choice(_metrics, "metric")),
        "clustering": ListOf(Choice(_unsupervised_metrics, "clustering metric")),
        "decomposition": ListOf(Choice(_unsupervised_metrics, "decomposition metric")),
        "primary": {
            "classification": Choice(_metrics, "metric"),
            "regression": Choice(_metrics, "metric"),
            "clustering": Choice(_unsupervised_metrics, "clustering metric"),
            "decomposition": Choice(_unsupervised_metrics, "decomposition metric"),
        },
    },
    "dataset": MapOf(AnyMapping(), min_items=1),
    "features": {"steps": ListOf({"name": Choice(_feature_maps, "feature map"), "params": AnyMapping()})},
    "models": MapOf({"name": Choice(_models, "model"), "params": AnyMapping()}, min_items=1),
    "cv": {
        "scheme": Choice(_schemes, "resampling scheme"),
        "folds": int,
        "repeats": int,
        "n_jobs": int,
        "progress": (bool, Choice(["auto"], "progress")),
    },
    "stats": {
        "alpha": float,
        "pairwise_test": Choice(
            ["auto", "corrected_resampled_ttest", "cv52_ttest", "cv52_ftest", "paired_ttest"], "pairwise test"
        ),
        "correction": Choice(
            ["holm", "bonferroni", "hochberg", "hommel", "shaffer", "bergmann_hommel", "none"], "correction"
        ),
        "bayesian": Optional_(bool),
        "rope": Optional_(float),
        "rope_scale": Optional_(Choice(["absolute", "relative"], "ROPE scale")),
        "test_set_test": Choice(["mcnemar", "none"], "test-set test"),
        "mcnemar_method": Choice(["exact", "midp", "chi2", "chi2_cc"], "McNemar method"),
        "test_set_metric_test": Optional_(Choice(["permutation", "paired_bootstrap", "none"], "test-set metric test")),
        "resamples": Optional_(int),
        "across_pairs_test": Optional_(Choice(["wilcoxon", "sign_test", "none"], "across-datasets pairwise test")),
        "across_datasets": Choice(["friedman_nemenyi", "none"], "across-datasets test"),
        "posthoc": Optional_(Choice(
            ["nemenyi", "bonferroni_dunn", "holm", "hochberg", "hommel", "shaffer", "bergmann_hommel", "bonferroni",
             "none"], "post-hoc procedure")),
        "control": Optional_(str),
        "round_before_ranking": Optional_(int),
    },
    "report": {"title": str, "decimals": int, "dpi": int, "plots": bool},
    "tracking": {"enabled": bool, "experiment": str, "tracking_uri": Optional_(str)},
}


def _type_name(t) -> str:
    return {int: "an integer", float: "a number", str: "a string", bool: "true/false"}.get(t, str(t))


def _check(value, spec, key: str, errors: list[str]) -> None:
    if isinstance(spec, tuple):  # any of several specs
        trial: list[list[str]] = []
        for s in spec:
            errs: list[str] = []
            _check(value, s, key, errs)
            if not errs:
                return
            trial.append(errs)
        errors.append(f"{key}: {value!r} is not valid ({'; or '.join(e[0].split(': ', 1)[1] for e in trial)})")
        return
    if isinstance(spec, Optional_):
        if value is not None:
            _check(value, spec.item, key, errors)
        return
    if isinstance(spec, AnyMapping):
        if value is None:
            return
        if not isinstance(value, dict):
            errors.append(f"{key}: expected a mapping, got {type(value).__name__} {value!r}")
        return
    if isinstance(spec, Choice):
        if not isinstance(value, str) or value not in spec.choices:
            errors.append(f"{key}: unknown {spec.what} {value!r}; valid choices: {', '.join(spec.choices)}")
        return
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            errors.append(f"{key}: expected a list, got {type(value).__name__} {value!r}")
            return
        for i, item in enumerate(value):
            _check(item, spec.item, f"{key}[{i}]", errors)
        return
    if isinstance(spec, MapOf):
        if not isinstance(value, dict):
            errors.append(f"{key}: expected a mapping of names to settings, got {type(value).__name__}")
            return
        if len(value) < spec.min_items:
            errors.append(f"{key}: at least {spec.min_items} entry needed, got none")
        for name, item in value.items():
            _check(item, spec.item, f"{key}.{name}", errors)
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            errors.append(f"{key}: expected a mapping with keys {sorted(spec)}, got {type(value).__name__} {value!r}")
            return
        for k in value:
            if k not in spec:
                errors.append(f"{_join(key, k)}: unknown key; valid keys here: {', '.join(sorted(spec))}")
        for k, sub in spec.items():
            if k not in value:
                if not isinstance(sub, Optional_):
                    errors.append(f"{_join(key, k)}: missing (expected {_describe(sub)})")
                continue
            _check(value[k], sub, _join(key, k), errors)
        return
    # plain python types
    ok = (
        isinstance(value, bool)
        if spec is bool
        else isinstance(value, numbers.Real) and not isinstance(value, bool)
        if spec is float
        else isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if spec is int
        else isinstance(value, spec)
    )
    if not ok:
        errors.append(f"{key}: expected {_type_name(spec)}, got {type(value).__name__} {value!r}")


def _join(prefix: str, key) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def _describe(spec) -> str:
    if isinstance(spec, dict):
        return f"a mapping with keys {', '.join(sorted(spec))}"
    if isinstance(spec, Choice):
        return f"one of {', '.join(spec.choices)}"
    if isinstance(spec, (ListOf, MapOf)):
        return "a list" if isinstance(spec, ListOf) else "a mapping"
    return _type_name(spec)


def validate(params: dict, *, root: Path | None = None) -> dict:
    """Check ``params`` against the schema and the registries; raise ``ConfigError`` listing all problems."""
    errors: list[str] = []
    _check(params, SCHEMA, "", errors)
    if not errors:
        _check_datasets(params, errors, root)
        _check_models(params, errors)
        _check_features(params, errors)
        _check_values(params, errors)
    if errors:
        raise ConfigError("invalid configuration (params.yaml):\n  - " + "\n  - ".join(errors))
    return params


def _check_datasets(params: dict, errors: list[str], root: Path | None) -> None:
    from .data import shipped_registry

    shipped = shipped_registry(root)
    for name, spec in params["dataset"].items():
        key = f"dataset.{name}"
        source = spec.get("source") if isinstance(spec, dict) else None
        if source not in DATASET_KEYS:
            errors.append(f"{key}.source: unknown source {source!r}; valid choices: {', '.join(sorted(DATASET_KEYS))}")
            continue
        _check(spec, DATASET_KEYS[source], key, errors)
        if source == "file" and spec.get("task") != "clustering" and not spec.get("target"):
            errors.append(f"{key}.target: missing (expected a string: the target column); only task clustering has none")
        for m in spec.get("models") or []:
            if m not in params["models"]:
                errors.append(f"{key}.models: {m!r} is not one of the configured models ({', '.join(params['models'])})")
        if source == "shipped" and name not in shipped:
            errors.append(f"{key}: unknown shipped dataset {name!r}; shipped datasets: {', '.join(sorted(shipped))}")


def _check_models(params: dict, errors: list[str]) -> None:
    from .. import models

    for key, spec in params["models"].items():
        name = spec["name"]
        valid = models.hyperparameters(name)
        for hp, value in (spec.get("params") or {}).items():
            if hp not in valid:
                errors.append(
                    f"models.{key}.params.{hp}: unknown hyperparameter of {name}; valid: {', '.join(sorted(valid))}"
                )
                continue
            _check_like_default(value, valid[hp], f"models.{key}.params.{hp}", errors)


def _check_features(params: dict, errors: list[str]) -> None:
    from .. import features

    for i, step in enumerate(params["features"]["steps"]):
        valid = features.hyperparameters(step["name"])
        for hp, value in (step.get("params") or {}).items():
            key = f"features.steps[{i}].params.{hp}"
            if hp not in valid:
                errors.append(f"{key}: unknown parameter of {step['name']}; valid: {', '.join(sorted(valid))}")
            else:
                _check_like_default(value, valid[hp], key, errors)


def _check_like_default(value, default, key: str, errors: list[str]) -> None:
    """A hyperparameter must have the type of its default (ints pass for floats; None default: anything)."""
    if default is None or value is None:
        return
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, numbers.Integral):
        ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    elif isinstance(default, numbers.Real):
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    elif isinstance(default, str):
        ok = isinstance(value, str)
    else:
        ok = True
    if not ok:
        errors.append(f"{key}: expected {type(default).__name__} like the default {default!r}, got {type(value).__name__} {value!r}")


def _check_values(params: dict, errors: list[str]) -> None:
    from ..evaluation.metrics import METRICS

    if not 0.0 < params["split"]["test_size"] < 1.0:
        errors.append(f"split.test_size: must be between 0 and 1 (exclusive), got {params['split']['test_size']}")
    cv = params["cv"]
    if cv["folds"] < 2:
        errors.append(f"cv.folds: must be >= 2, got {cv['folds']}")
    if cv["repeats"] < 1:
        errors.append(f"cv.repeats: must be >= 1, got {cv['repeats']}")
    if cv["scheme"] == "5x2" and (cv["folds"], cv["repeats"]) != (2, 5):
        errors.append(f"cv: scheme 5x2 needs folds=2 and repeats=5, got folds={cv['folds']}, repeats={cv['repeats']}")
    if cv["scheme"] in ("kfold", "stratified_kfold") and cv["repeats"] != 1:
        errors.append(
            f"cv.repeats: scheme {cv['scheme']} runs once (repeats=1), got {cv['repeats']}; "
            f"use scheme repeated_{cv['scheme']} for {cv['repeats']} repeats"
        )
    if cv["n_jobs"] == 0 or cv["n_jobs"] < -1:
        errors.append(f"cv.n_jobs: must be a positive number of workers or -1 (all cores), got {cv['n_jobs']}")
    _check_stats(params, errors)
    from ..evaluation.unsupervised import UNSUPERVISED_METRICS

    for task in ("classification", "regression", "clustering", "decomposition"):
        listed = params["metrics"][task]
        for m in listed:
            owner = (METRICS[m] if m in METRICS else UNSUPERVISED_METRICS[m]).task
            if owner != task:
                errors.append(f"metrics.{task}: {m!r} is a {owner} metric")
        primary = params["metrics"]["primary"][task]
        if primary not in listed:
            errors.append(f"metrics.primary.{task}: {primary!r} must be one of metrics.{task} ({', '.join(listed)})")
    if params["report"]["decimals"] < 0 or params["report"]["dpi"] <= 0:
        errors.append("report: decimals must be >= 0 and dpi > 0")


def _check_stats(params: dict, errors: list[str]) -> None:
    """Values of the ``stats`` section that the schema alone cannot check (see conf/stats/default.yaml)."""
    st = params["stats"]
    if not 0.0 < st["alpha"] < 1.0:
        errors.append(f"stats.alpha: must be between 0 and 1 (exclusive), got {st['alpha']}")
    if st["pairwise_test"] in ("cv52_ttest", "cv52_ftest") and params["cv"]["scheme"] != "5x2":
        errors.append(
            f"stats.pairwise_test: {st['pairwise_test']} needs cv.scheme 5x2 (five repeats of 2-fold), "
            f"got {params['cv']['scheme']}; use auto or corrected_resampled_ttest"
        )
    if st.get("rope") is not None and st["rope"] < 0:
        errors.append(f"stats.rope: must be >= 0 (half-width of the region of practical equivalence), got {st['rope']}")
    if st.get("resamples") is not None and st["resamples"] < 99:
        errors.append(f"stats.resamples: must be >= 99 for a usable p-value, got {st['resamples']}")
    if st.get("round_before_ranking") is not None and st["round_before_ranking"] < 0:
        errors.append(f"stats.round_before_ranking: must be >= 0 decimals or null, got {st['round_before_ranking']}")
    control = st.get("control")
    posthoc = st.get("posthoc", "bergmann_hommel")
    if control is not None:
        if control not in params["models"]:
            errors.append(f"stats.control: {control!r} is not one of the models ({', '.join(sorted(params['models']))})")
        if posthoc in ("nemenyi", "shaffer", "bergmann_hommel"):
            errors.append(
                f"stats.posthoc: {posthoc} compares all pairs; with stats.control use bonferroni_dunn, holm, "
                "hochberg or hommel"
            )
    elif posthoc == "bonferroni_dunn":
        errors.append("stats.posthoc: bonferroni_dunn compares every model with a control; set stats.control")
