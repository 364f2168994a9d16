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
from . import designs, kinds
from .designs import AUTO_INNER_FOLDS, half_sampling_applies
from .params import PARAMS_FILE, SCHEMA_VERSION, load_params, project_root
from .report_schema import REPORT_FORMATS, REPORT_PER_DATASET, REPORT_SCHEMA  # noqa: F401  (re-exported)
from .schema import (
    AnyMapping,
    Choice,
    ListOf,
    MapOf,
    Optional_,
    Range,
    _check,
)
from .suites import SUITES

CONF_DIR = "conf"
CONFIG_NAME = "config"
REJECTED_FILE = "params.rejected.yaml"


def compose(overrides: list[str] | None = None, *, root: Path | None = None, output: Path | None = None) -> Path:
    """Compose ``conf/`` with Hydra ``overrides`` and write ``params.yaml`` exactly as DVC does.

    The composition is written to a temporary file next to ``output`` and validated first; only a valid
    configuration replaces ``output`` (atomically), so a rejected one never overwrites the last good file.
    A Hydra error about an unknown option of a config group is rewritten to name the group and its options.
    """
    from dvc.utils.hydra import compose_and_dump  # the same function `dvc exp run -S` calls

    from ..atomic import commit, sweep, temp_name

    root = Path(root or project_root())
    output = Path(output or root / PARAMS_FILE)
    output.parent.mkdir(parents=True, exist_ok=True)
    sweep(output)  # what a killed compose left behind
    tmp = output.parent / temp_name(output, output.suffix)  # .yaml: Hydra's writer; .gitignore'd, swept
    try:
        try:
            compose_and_dump(tmp, str(root / CONF_DIR), None, CONFIG_NAME, str(root), list(overrides or []))
        except Exception as exc:
            # A full disk or a read-only folder (an OSError with an errno): the caller words it
            # (stage.describe_fault). Hydra's own errors (its ConfigLoadError is an IOError without an errno):
            # rewrite the common ones, keep the rest verbatim.
            if isinstance(exc, OSError) and exc.errno is not None:
                raise
            raise ConfigError(hydra_error_message(exc, root / CONF_DIR)) from exc
        validate(load_params(tmp), root=root, source=output)
        commit(tmp, output)
    finally:
        tmp.unlink(missing_ok=True)
    if output.resolve() == (root / PARAMS_FILE).resolve():
        from ..plugin_lock import refresh

        refresh(root)  # the installed version of each plugin model it names (a dep of the stages that load them)
    return output


def group_options(conf_dir: Path, group: str) -> list[str]:
    """The options of config group ``group`` (the YAML files in ``conf/<group>/``)."""
    folder = Path(conf_dir) / group
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def hydra_error_message(exc: Exception, conf_dir: Path) -> str:
    """A Hydra composition error in replearn's form: the group, the unknown option and the valid options."""
    import re

    text = str(exc)
    if re.match(r"[\w.]+: unknown (?:key|option)\b", text):  # worded by the Hydra plugin (hydra_plugins/)
        return text
    m = re.search(r"Could not (?:find|load) '([\w/]+)/([^'/]+)'", text)
    if m:
        group, option = m.group(1), m.group(2)
        return (
            f"{group}: unknown option {option!r}; valid choices: {', '.join(group_options(conf_dir, group))}"
            f" (the files of {Path(conf_dir).name}/{group}/)"
        )
    m = re.search(r"Could not override '([\w.]+)'", text)
    if m:
        return (
            f"{m.group(1)}: unknown key (to add a key that conf/ does not set, use '+{m.group(1)}=...'; "
            "replearn then checks it against its schema)"
        )
    return f"Hydra could not compose the configuration: {text}"


def restore_after_rejected_experiment(params_file: str | os.PathLike = PARAMS_FILE) -> str | None:
    """After a configuration was rejected inside ``dvc exp run`` in the workspace, move it aside and restore.

    ``dvc exp run -S ...`` writes the composed parameters into the workspace's ``params.yaml`` before any
    stage runs; a rejected one would stay there. Here (only when DVC runs an experiment in this very
    workspace, not in a temporary copy) it is moved to ``params.rejected.yaml`` and ``params.yaml`` is
    restored to the committed version (the experiment's baseline) when that one is valid, else recomposed
    from ``conf/``. Returns a note for the user, or None when nothing was done.
    """
    if not os.environ.get("DVC_EXP_NAME"):
        return None
    path = Path(params_file).resolve()
    try:
        root = project_root(path.parent)
    except ConfigError:
        return None
    if Path(os.environ.get("DVC_ROOT", root)).resolve() != root or not path.is_file():
        return None  # a temporary or queued run: its copy of params.yaml is thrown away anyway
    rejected = root / REJECTED_FILE
    os.replace(path, rejected)
    committed = _committed_text(root, path.relative_to(root).as_posix())
    if committed is not None:
        try:
            validate(yaml.safe_load(committed) or {}, root=root)
        except (ConfigError, yaml.YAMLError):
            committed = None
    if committed is not None:
        from ..atomic import write_text

        write_text(path, committed)
        return (
            f"the rejected parameters were moved to {REJECTED_FILE}; params.yaml was restored to the committed version"
        )
    try:
        compose(root=root, output=path)
    except ConfigError as exc:
        os.replace(rejected, path)
        return f"params.yaml was left as it is: conf/ itself does not compose ({exc})"
    return f"the rejected parameters were moved to {REJECTED_FILE}; params.yaml was recomposed from conf/"


def _committed_text(root: Path, relpath: str) -> str | None:
    import subprocess

    try:
        res = subprocess.run(
            ["git", "show", f"HEAD:{relpath}"], cwd=root, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout if res.returncode == 0 else None


def validation_record() -> dict:
    """What the validate stage writes: changes only when the schema does, not with the parameters."""
    return {"schema_version": SCHEMA_VERSION, "valid": True}


def check_section(section: str, value) -> None:
    """Validate one top-level section with the same schema :func:`validate` uses (for callers given only it)."""
    errors: list[str] = []
    _check(value, SCHEMA[section], section, errors)
    if errors:
        raise ConfigError(f"invalid {section} settings:\n  - " + "\n  - ".join(errors))


def load_and_validate(path: str | os.PathLike = PARAMS_FILE, *, root: Path | None = None) -> dict:
    """Read ``params.yaml`` and validate all of it; the first thing every stage does."""
    params = load_params(path)
    validate(params, root=root, source=path)
    return params


def _models():
    """Supervised registry models and experiment-family units (``pipeline.families``): the valid model names."""
    from .. import models
    from .units import units

    return sorted({*models.available(), *units()})


def _feature_maps():
    from .. import features

    return features.available()


def _metrics():
    from ..evaluation.metrics import METRICS

    return list(METRICS)


def _unsupervised_metrics():
    from ..evaluation.unsupervised import UNSUPERVISED_METRICS

    return list(UNSUPERVISED_METRICS)


def _reproductions() -> list[str]:
    from .reproduce import experiments

    return experiments()


def _procedures(role: str) -> list[str]:
    from ..stats.registry import names

    return names(role)


def _posthoc_options() -> list[str]:
    from ..stats.registry import POSTHOC_CONFIG

    return list(POSTHOC_CONFIG)


def _schemes():
    from ..evaluation.splits import SCHEMES

    return list(SCHEMES)


DESIGNS = tuple(designs.DESIGNS)  # the designs registry (pipeline.designs)
_TASKS = ("classification", "regression")  # supervised tasks of a dataset; "clustering" = no labels
_GENERATORS = ("blobs", "moons", "circles", "xor", "linear")

# `models` (optional, every source): the keys of `models` that run on this dataset (default: all that can).
DATASET_KEYS = {
    "shipped": {"source": str, "models": Optional_(ListOf(str))},
    "file": {
        "source": str,
        "path": str,
        "target": Optional_(str),
        "task": Choice(_TASKS + ("clustering",), "task"),
        "models": Optional_(ListOf(str)),
        # the file's limits, checked before it is read (data.check_file_limits); defaults MAX_FILE_* below
        "max_megabytes": Optional_(Range(float, 0.0, 10**6, open_lo=True, why="size of the file on disk")),
        "max_columns": Optional_(Range(int, 1, 10**7, why="feature columns of the file")),
    },
    "synthetic": {
        "source": str,
        "models": Optional_(ListOf(str)),
        "generator": Choice(_GENERATORS, "generator"),
        "n_samples": Range(int, 1, 10**7, why="examples generated; larger data belongs in a file"),
        "n_features": Optional_(Range(int, 1, 10_000)),
        "n_classes": Optional_(Range(int, 2, 1000)),
        "noise": Optional_(Range(float, 0.0, None)),
        "factor": Optional_(Range(float, 0.0, 1.0, open_lo=True, open_hi=True, why="radius of the inner circle")),
        "cluster_std": Optional_(Range(float, 0.0, None, open_lo=True)),
    },
    # a dataset of a benchmark suite (pipeline.suites; the registry data/<suite>.yaml names the datasets)
    **{suite: {"source": str, "name": str, "models": Optional_(ListOf(str))} for suite in SUITES},
}

SCHEMA = {
    "experiment_name": str,
    "reproduce": Optional_(Choice(lambda: _reproductions(), "worked example")),
    "seed": Range(int, 0, 2**32 - 1, why="numpy seeds are 32-bit"),
    "model_seed": Optional_(Range(int, 0, 2**32 - 1, why="numpy seeds are 32-bit; null: derived from seed")),
    "split": {"test_size": Range(float, 0.0, 1.0, open_lo=True, open_hi=True), "stratify": bool},
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
    "features": {
        "steps": ListOf({"name": Choice(_feature_maps, "feature map"), "params": AnyMapping()}),
        "max_columns": Optional_(
            Range(
                int,
                1,
                10**8,
                why="the most columns a feature map may produce; default replearn.features.polynomial.MAX_COLUMNS",
            )
        ),
    },
    "models": MapOf({"name": Choice(_models, "model"), "params": AnyMapping()}, min_items=1),
    "cv": {
        "scheme": Choice(_schemes, "resampling scheme"),
        "folds": Range(int, 2, 1000),
        "repeats": Range(int, 1, 1000),
        "n_jobs": int,
        "progress": (bool, Choice(["auto"], "progress")),
        # a fit that raises, diverges or runs past max_fit_seconds: stop (raise) or record it and go on (record)
        "on_error": Optional_(Choice(["raise", "record"], "cv.on_error (what a failed fit does)")),
        "max_fit_seconds": Optional_(
            Range(float, 0.0, None, open_lo=True, why="the budget of one fit and its scoring; null: no budget")
        ),
        "half_sampling": Optional_(
            {
                "subsamples": Range(int, 0, 1000, why="0: no population variance (the corrected t's heuristic)"),
                "repeats": Range(int, 2, 100, why="inner repeats; 2 or more estimate the inner split noise"),
                "folds": Optional_(Range(int, 2, 100, why="null: 5 for k-fold splits, 3 for resampled seeds")),
                "fraction": Optional_(Range(float, 0.2, 0.8, why="subsample size over the training part")),
                # the sequential design (pipeline/sequential.py): run the subsets in planned looks, stop once
                # every pair is decided; `looks`: the subset counts of the early looks (the last is subsamples)
                "sequential": Optional_(bool),
                "looks": Optional_(ListOf(int)),
            }
        ),
    },
    "design": {
        "name": Choice(DESIGNS, "design"),
        "n_seeds": Optional_(Range(int, 2, 10_000)),
        "holdout": Optional_(Range(float, 0.0, 1.0, open_lo=True, open_hi=True)),
        "resample_split": Optional_(bool),
        "axis": Optional_(str),
        "values": Optional_(ListOf((int, float, str))),
        "replicates": Optional_(Choice(["cv", "seeds"], "replicates of a sweep")),
        "simplest": Optional_(Choice(["first", "last"], "end of design.values with the simplest model")),
    },
    "stats": {
        "alpha": Range(float, 0.0, 1.0, open_lo=True, open_hi=True),
        "pairwise_test": Choice(lambda: ["auto", *_procedures("cv_pairwise")], "pairwise test"),
        "replicate_test": Optional_(
            Choice(lambda: _procedures("replicate_pairwise"), "test for independent replicates")
        ),
        "correction": Choice(lambda: _procedures("correction"), "correction"),
        "bayesian": Optional_(bool),
        "rope": Optional_(Range(float, 0.0, None, why="half-width of the region of practical equivalence")),
        "rope_scale": Optional_(Choice(["absolute", "relative"], "ROPE scale")),
        "test_set_test": Choice(lambda: [*_procedures("test_set"), "none"], "test-set test"),
        "mcnemar_method": Choice(["exact", "midp", "chi2", "chi2_cc"], "McNemar method"),
        "test_set_metric_test": Optional_(
            Choice(lambda: [*_procedures("test_set_metric"), "none"], "test-set metric test")
        ),
        "resamples": Optional_(
            Range(int, 99, 1_000_000, why="99 gives a usable p-value; the upper limit bounds memory")
        ),
        "across_pairs_test": Optional_(
            Choice(lambda: [*_procedures("across_pairs"), "none"], "across-datasets pairwise test")
        ),
        "across_datasets": Choice(lambda: [*_procedures("across_datasets"), "none"], "across-datasets test"),
        "min_datasets": Optional_(Range(int, 2, 10_000, why="fewer datasets: average ranks only, no test")),
        "posthoc": Optional_(Choice(lambda: _posthoc_options(), "post-hoc procedure")),
        "control": Optional_(str),
        "round_before_ranking": Optional_(Range(int, 0, 15)),
    },
    "report": REPORT_SCHEMA,  # pipeline.report_schema
    # server: true (tracking=server) needs an MLflow server's address (env, tracking_uri or `make services`);
    # log_models: false logs no MLflow Model per child run (the fitted models stay DVC outputs in models/)
    "tracking": {
        "enabled": bool,
        "experiment": str,
        "tracking_uri": Optional_(str),
        "server": Optional_(bool),
        "log_models": Optional_(bool),
    },
    # where the fits of a stage run (pipeline.compute); optional so that params files from before it stay valid
    "compute": Optional_(
        {
            "backend": Choice(["local", "dask"], "compute backend"),
            "scheduler": Optional_(str),
            "n_workers": Optional_(Range(int, 1, 4096, why="worker processes of a LocalCluster")),
            "chunk_size": Optional_(Range(int, 1, 10**6, why="tasks (one model on one split) per chunk")),
        }
    ),
}


def validate(params: dict, *, root: Path | None = None, source: str | os.PathLike = PARAMS_FILE) -> dict:
    """Check ``params`` against the schema and the registries; raise ``ConfigError`` listing all problems, under
    the name of the file they were read from (``source``)."""
    errors: list[str] = []
    _check(params, SCHEMA, "", errors)
    if not errors:
        _check_datasets(params, errors, root)
        _check_models(params, errors)
        _check_features(params, errors, root)
        _check_values(params, errors)
        _check_resources(params, errors)
        _check_sequential(params, errors)
    if errors:
        raise ConfigError(f"invalid configuration ({_shown(source)}):\n  - " + "\n  - ".join(errors))
    return params


def _shown(path: str | os.PathLike) -> str:
    """A file's name as the user knows it: relative to the working directory when inside it."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError):
        return os.fspath(path)


#: Dataset and model keys become folder and file names (data/prepared/<dataset>/, models/<dataset>/<model>.npz),
#: so they must be safe identifiers: a letter, then up to 63 letters, digits, "_" or "-" (no dots, no slashes).
KEY_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,63}$"

#: Upfront limits on the work a configuration asks for (raise them here, deliberately, if you need more).
MAX_CV_FITS = 10_000  # cv.folds x cv.repeats fits per model and dataset
MAX_RESAMPLE_WORK = 10**7  # stats.resamples x model pairs per dataset
MAX_DATASET_CELLS = 10**8  # n_samples x n_features of a synthetic dataset (800 MB as float64)


def _check_key(section: str, name, errors: list[str]) -> bool:
    import re

    if isinstance(name, str) and re.fullmatch(KEY_PATTERN, name):
        return True
    shown = name if not isinstance(name, str) or len(name) <= 80 else name[:77] + "..."
    errors.append(
        f"{section}.{shown!r}: invalid key {shown!r}; keys become file names and must match {KEY_PATTERN} "
        "(a letter, then at most 63 letters, digits, '_' or '-')"
    )
    return False


def _check_datasets(params: dict, errors: list[str], root: Path | None) -> None:
    from .data import shipped_registry

    shipped = shipped_registry(root)
    for name, spec in params["dataset"].items():
        if not _check_key("dataset", name, errors):
            continue
        check = _DATASET_CHECKS[kinds.of_spec(spec).runner]  # a table's or a family problem's keys
        check(params, name, spec, errors, shipped, root)


def _check_table_dataset(params: dict, name: str, spec, errors: list[str], shipped: dict, root: Path | None) -> None:
    """A table: its source's keys, its models, and the limits of what it may load."""
    from . import families

    key = f"dataset.{name}"
    source = spec.get("source") if isinstance(spec, dict) else None
    if source not in DATASET_KEYS:
        errors.append(
            f"{key}.source: unknown source {source!r}; valid choices: "
            f"{', '.join(sorted([*DATASET_KEYS, *families.FAMILY_MODULES]))}"
        )
        return
    n_errors = len(errors)
    _check(spec, DATASET_KEYS[source], key, errors)
    if source == "file" and spec.get("task") != "clustering" and not spec.get("target"):
        errors.append(f"{key}.target: missing (expected a string: the target column); only task clustering has none")
    for m in spec.get("models") or []:
        if m not in params["models"]:
            errors.append(f"{key}.models: {m!r} is not one of the configured models ({', '.join(params['models'])})")
    if source == "shipped" and name not in shipped:
        errors.append(f"{key}: unknown shipped dataset {name!r}; shipped datasets: {', '.join(sorted(shipped))}")
    if source in SUITES and len(errors) == n_errors:
        _check_suite_dataset(name, spec, errors, root)
    if source == "file" and len(errors) == n_errors:
        _check_file_limits(name, spec, errors, root)
    if source == "synthetic" and len(errors) == n_errors:
        cells = spec["n_samples"] * (spec.get("n_features") or 2)
        if cells > MAX_DATASET_CELLS:
            errors.append(
                f"{key}: n_samples x n_features = {cells:,} values, above the limit of "
                f"{MAX_DATASET_CELLS:,} (config.MAX_DATASET_CELLS); generate fewer"
            )


def _check_suite_dataset(name: str, spec: dict, errors: list[str], root: Path | None) -> None:
    """``name`` of a suite dataset must be in the suite's registry (whether it is installed: prepare checks)."""
    from .suites import registry

    try:
        known = registry(spec["source"], root)["datasets"]
    except ConfigError as exc:
        errors.append(f"dataset.{name}: {exc}")
        return
    if spec["name"] not in known:
        errors.append(
            f"dataset.{name}.name: {spec['name']!r} is not a dataset of {spec['source']} "
            f"({SUITES[spec['source']]}); valid choices: {', '.join(known)}"
        )


def _check_file_limits(name: str, spec: dict, errors: list[str], root: Path | None) -> None:
    """A dataset file beyond its size or column limit is refused here, before any stage reads it."""
    from ..exceptions import DataValidationError
    from .data import check_file_limits

    try:
        check_file_limits(name, spec, Path(root or ".") / spec["path"])
    except DataValidationError as exc:
        errors.append(str(exc))


def _constraint_errors(cls, values: dict, key: str, errors: list[str]) -> None:
    """Check ``values`` against the ``_constraints`` declared by ``cls`` (the ones its ``fit`` uses; a family
    unit's ``constraints`` mapping works the same)."""
    from .._constraints import describe, violations

    table = cls if isinstance(cls, dict) else getattr(cls, "_constraints", {})
    for hp, value, _ in violations(table, values):
        if hp in values:
            errors.append(f"{key}.{hp}: {value!r} is out of range; expected {describe(table[hp])}")


def _check_family_dataset(params: dict, name: str, spec: dict, errors: list[str], *_) -> None:
    """A dataset of an experiment family: its keys, and at least one configured unit that can run on it."""
    from . import families, units

    key = f"dataset.{name}"
    fam = families.load(spec["source"])
    fam_units = units.load(spec["source"]).UNITS
    n_errors = len(errors)
    _check(spec, {"source": str, "models": Optional_(ListOf(str)), **fam.DATASET_KEYS}, key, errors)
    if len(errors) != n_errors:
        return
    errors.extend(f"{key}: {e}" for e in (getattr(fam, "check_spec", None) or (lambda s: []))(spec))
    only = spec.get("models")
    for m in only or []:
        if m not in params["models"]:
            errors.append(f"{key}.models: {m!r} is not one of the configured models ({', '.join(params['models'])})")
    runnable = [
        k
        for k, m in params["models"].items()
        if (only is None or k in only) and isinstance(m, dict) and _unit_runs_on(fam_units, m.get("name"), spec)
    ]
    if not runnable:
        able = sorted(u for u, unit in fam_units.items() if unit.supports is None or unit.supports(spec))
        errors.append(
            f"{key}: no configured model can run on this {fam.NAME} dataset "
            f"({', '.join(only if only is not None else params['models'])}); units that can: {', '.join(able)}"
        )
    errors.extend(designs.of_params(params).family_errors(name, fam.NAME, fam.TASK))


def _unit_runs_on(fam_units, unit_name, spec: dict) -> bool:
    unit = fam_units.get(unit_name) if isinstance(unit_name, str) else None
    return unit is not None and (unit.supports is None or bool(unit.supports(spec)))


def _check_models(params: dict, errors: list[str]) -> None:
    from .. import models
    from .units import runner_of

    supervised = models.available()
    for key, spec in params["models"].items():
        if not _check_key("models", key, errors):
            continue
        _MODEL_CHECKS[runner_of(spec["name"], supervised=supervised)](key, spec, errors)


def _check_estimator(key: str, spec: dict, errors: list[str]) -> None:
    """A models entry naming a supervised model: known hyperparameters, the defaults' types, its constraints."""
    from .. import models

    name = spec["name"]
    valid = models.hyperparameters(name)
    given = spec.get("params") or {}
    typed = {}
    for hp, value in given.items():
        if hp not in valid:
            errors.append(
                f"models.{key}.params.{hp}: unknown hyperparameter of {name}; valid: {', '.join(sorted(valid))}"
            )
            continue
        n = len(errors)
        _check_like_default(value, valid[hp], f"models.{key}.params.{hp}", errors)
        if len(errors) == n:
            typed[hp] = value
    _constraint_errors(models.get_class(name), typed, f"models.{key}.params", errors)
    base, base_params = given.get("estimator", valid.get("estimator")), given.get("estimator_params")
    if isinstance(base, str) and base in models.available() and isinstance(base_params, dict):
        _constraint_errors(models.get_class(base), base_params, f"models.{key}.params.estimator_params", errors)


def _check_unit(key: str, spec: dict, errors: list[str]) -> None:
    """A models entry naming a family unit: known hyperparameters, the defaults' types, the unit's constraints."""
    from .units import hyperparameters, units

    unit = units()[spec["name"]][1]
    valid = hyperparameters(unit.name)
    typed = {}
    for hp, value in (spec.get("params") or {}).items():
        if hp not in valid:
            errors.append(
                f"models.{key}.params.{hp}: unknown hyperparameter of {unit.name}; valid: "
                f"{', '.join(sorted(valid)) or '(none)'}"
            )
            continue
        n = len(errors)
        _check_like_default(value, valid[hp], f"models.{key}.params.{hp}", errors)
        if len(errors) == n:
            typed[hp] = value
    _constraint_errors(dict(unit.constraints), typed, f"models.{key}.params", errors)


def _check_features(params: dict, errors: list[str], root: Path | None = None) -> None:
    from .. import features

    checked = True
    for i, step in enumerate(params["features"]["steps"]):
        valid = features.hyperparameters(step["name"])
        typed = {}
        for hp, value in (step.get("params") or {}).items():
            key = f"features.steps[{i}].params.{hp}"
            if hp not in valid:
                errors.append(f"{key}: unknown parameter of {step['name']}; valid: {', '.join(sorted(valid))}")
                checked = False
            else:
                n = len(errors)
                _check_like_default(value, valid[hp], key, errors)
                if len(errors) == n:
                    typed[hp] = value
        n = len(errors)
        _constraint_errors(features.get_class(step["name"]), typed, f"features.steps[{i}].params", errors)
        checked = checked and len(errors) == n
    if checked:
        _check_feature_widths(params, errors, root)


_WIDTH_PRESERVING = ("standardize", "center", "scale", "maxabs", "normalize", "log")


def _known_width(name: str, spec: dict, root: Path | None) -> int | None:
    """The number of feature columns of a dataset when it is known without reading it."""
    from .data import shipped_registry

    if spec.get("source") == "shipped":
        return (shipped_registry(root).get(name) or {}).get("n_features")
    if spec.get("source") in SUITES:
        from .suites import registry

        return (registry(spec["source"], root)["datasets"].get(spec.get("name")) or {}).get("n_features")
    if spec.get("source") == "file":  # the header's width, when the file is there
        from .data import _file_width

        width = _file_width(Path(root or ".") / spec["path"])
        return None if width is None else width - (1 if spec.get("target") else 0)
    if spec.get("source") == "synthetic":
        return spec.get("n_features") or (5 if spec.get("generator") == "linear" else 2)
    return None


def _check_feature_widths(params: dict, errors: list[str], root: Path | None = None) -> None:
    """Estimate the output width of the polynomial maps on every dataset of known width; refuse above the limit."""
    from .. import features
    from ..features.polynomial import MAX_COLUMNS, output_width

    limit = params["features"].get("max_columns") or MAX_COLUMNS
    steps = params["features"]["steps"]
    for name, spec in params["dataset"].items():
        width = _known_width(name, spec, root) if isinstance(spec, dict) else None
        for i, step in enumerate(steps):
            if width is None:
                break
            if step["name"] in _WIDTH_PRESERVING:
                continue
            if step["name"] != "polynomial":
                width = None  # one-hot, hashing, binning, text, tree leaves: width depends on the data
                continue
            defaults = features.hyperparameters("polynomial")
            p = {**defaults, **(step.get("params") or {})}
            width = output_width(width, p["degree"], p["interaction_only"], p["include_bias"])
            if width > limit:
                errors.append(
                    f"features.steps[{i}]: polynomial degree {p['degree']} on dataset {name!r} gives "
                    f"{width:,} columns, above the limit of {limit:,}; lower the degree or raise "
                    "features.max_columns"
                )
                break


def _check_sequential(params: dict, errors: list[str]) -> None:
    """``cv.half_sampling.subsamples``: 0 (no half-sampling) or at least ``MIN_SUBSETS``; ``looks``: increasing
    subset counts of at least ``MIN_SUBSETS`` (those at or above ``subsamples``, the last look, are not taken: a
    preset with fewer subsets keeps the default looks below its own). Fewer subsets made the test reject up to 38 %
    of true nulls (:data:`replearn.stats.halfsampling.MIN_SUBSETS`)."""
    from ..stats.halfsampling import MIN_SUBSETS

    hs = params["cv"].get("half_sampling") or {}
    n = hs.get("subsamples")
    if isinstance(n, int) and not isinstance(n, bool) and 0 < n < MIN_SUBSETS:
        errors.append(
            f"cv.half_sampling.subsamples: {n} is too few: 0 (no half-sampling) or at least {MIN_SUBSETS} (with 2-3 "
            "subsets the test rejected up to 38 % of true nulls; docs/statistics.md)"
        )
    looks = hs.get("looks")
    if looks is None:
        return
    if any(v < MIN_SUBSETS for v in looks) or list(looks) != sorted(set(looks)):
        errors.append(
            f"cv.half_sampling.looks: {list(looks)} must be increasing subset counts of at least {MIN_SUBSETS} (an "
            "early look at 3 subsets made the sequential design reject up to 11 % of true nulls)"
        )


def _check_resources(params: dict, errors: list[str]) -> None:
    """Refuse, before any work, settings whose cost is far beyond an experiment (limits documented above)."""
    cv = params["cv"]
    fits = cv["folds"] * cv["repeats"]
    hs = cv.get("half_sampling") or {}
    half = int(hs.get("subsamples", 0) or 0) * int(hs.get("repeats", 0) or 0)
    half *= int(hs.get("folds") or max(AUTO_INNER_FOLDS.values()))
    if fits + half > MAX_CV_FITS:
        errors.append(
            f"cv: folds x repeats = {fits:,} fits"
            + (f" + {half:,} half-sampling fits" if half else "")
            + f" per model and dataset, above the limit of {MAX_CV_FITS:,} (config.MAX_CV_FITS); lower "
            "cv.repeats or cv.folds" + (" or cv.half_sampling" if half else "")
        )
    resamples = params["stats"].get("resamples") or 0
    for name in params["dataset"]:
        spec = params["dataset"][name]
        keys = (spec.get("models") if isinstance(spec, dict) else None) or list(params["models"])
        pairs = len(keys) * (len(keys) - 1) // 2
        if resamples * pairs > MAX_RESAMPLE_WORK:
            errors.append(
                f"stats.resamples: {resamples:,} resamples x {pairs} model pairs on dataset {name!r} = "
                f"{resamples * pairs:,}, above the limit of {MAX_RESAMPLE_WORK:,} (config.MAX_RESAMPLE_WORK); "
                "lower stats.resamples or compare fewer models"
            )
            break


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
        errors.append(
            f"{key}: expected {type(default).__name__} like the default {default!r}, "
            f"got {type(value).__name__} {value!r}"
        )


def _check_values(params: dict, errors: list[str]) -> None:
    from ..evaluation.metrics import METRICS

    cv = params["cv"]
    if cv["scheme"] == "5x2" and (cv["folds"], cv["repeats"]) != (2, 5):
        errors.append(f"cv: scheme 5x2 needs folds=2 and repeats=5, got folds={cv['folds']}, repeats={cv['repeats']}")
    if cv["scheme"] in ("kfold", "stratified_kfold") and cv["repeats"] != 1:
        errors.append(
            f"cv.repeats: scheme {cv['scheme']} runs once (repeats=1), got {cv['repeats']}; "
            f"use scheme repeated_{cv['scheme']} for {cv['repeats']} repeats"
        )
    if cv["n_jobs"] == 0 or cv["n_jobs"] < -1:
        errors.append(f"cv.n_jobs: must be a positive number of workers or -1 (all cores), got {cv['n_jobs']}")
    if cv.get("max_fit_seconds") is not None and not hasattr(os, "fork"):
        errors.append("cv.max_fit_seconds: a budget needs os.fork (Linux, macOS), which this system lacks; set it null")
    _check_stats(params, errors)
    _check_design(params, errors)
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
    _check_score_metrics(params, errors)


def _check_score_metrics(params: dict, errors: list[str]) -> None:
    """A ranking metric (ROC AUC, average precision) needs ``predict_proba`` or ``decision_function``, a
    probability metric (log loss, Brier) ``predict_proba``: a configured classifier without them is refused here,
    naming it, rather than on its first fit."""
    from .. import models
    from ..evaluation.metrics import METRICS

    wanted = [m for m in params["metrics"]["classification"] if m in METRICS and METRICS[m].needs != "label"]
    if not wanted:
        return
    for key, spec in params["models"].items():
        name = spec.get("name") if isinstance(spec, dict) else None
        if name not in models.available() or not models.supports(name, "classification"):
            continue
        cls = models.get_class(name)
        has_proba, has_score = hasattr(cls, "predict_proba"), hasattr(cls, "decision_function")
        for m in wanted:
            if METRICS[m].needs == "proba" and not has_proba:
                errors.append(
                    f"metrics.classification: {m!r} needs predicted probabilities, but models.{key} ({name}) has no "
                    "predict_proba; drop the metric or the model"
                )
            elif METRICS[m].needs == "score" and not (has_proba or has_score):
                errors.append(
                    f"metrics.classification: {m!r} ranks examples by a score, but models.{key} ({name}) has neither "
                    "predict_proba nor decision_function; drop the metric or the model"
                )


def _check_design(params: dict, errors: list[str]) -> None:
    """What the schema alone cannot check of ``design`` (see conf/design/*.yaml)."""

    designs.of_params(params).check(params, errors, check_hyperparameter=_check_axis_hyperparameter)


def _check_axis_hyperparameter(params: dict, key: str, hp: str, values: list, errors: list[str]) -> None:
    """A sweep over ``<model key>.<hyperparameter>``: the hyperparameter exists and the points look like it."""
    from .. import models
    from . import units

    unit_name = params["models"][key]["name"]
    of = {"units": units.hyperparameters, "estimators": models.hyperparameters}
    valid = of[units.runner_of(unit_name, supervised=models.available())](unit_name)
    if hp not in valid:
        errors.append(
            f"design.axis: {params['models'][key]['name']} has no hyperparameter {hp!r}; "
            f"valid: {', '.join(sorted(valid))}"
        )
        return
    for i, v in enumerate(values):
        _check_like_default(v, valid[hp], f"design.values[{i}]", errors)


def _check_stats(params: dict, errors: list[str]) -> None:
    """Values of the ``stats`` section that the schema alone cannot check (see conf/stats/default.yaml)."""
    st = params["stats"]
    if st["pairwise_test"] in ("cv52_ttest", "cv52_ftest") and params["cv"]["scheme"] != "5x2":
        errors.append(
            f"stats.pairwise_test: {st['pairwise_test']} needs cv.scheme 5x2 (five repeats of 2-fold), "
            f"got {params['cv']['scheme']}; use auto or corrected_resampled_ttest"
        )
    control = st.get("control")
    posthoc = st.get("posthoc", "bergmann_hommel")
    if control is not None:
        if control not in params["models"]:
            errors.append(
                f"stats.control: {control!r} is not one of the models ({', '.join(sorted(params['models']))})"
            )
        if posthoc in ("nemenyi", "shaffer", "bergmann_hommel"):
            errors.append(
                f"stats.posthoc: {posthoc} compares all pairs; with stats.control use bonferroni_dunn, holm, "
                "hochberg or hommel"
            )
    elif posthoc == "bonferroni_dunn":
        errors.append("stats.posthoc: bonferroni_dunn compares every model with a control; set stats.control")
    _check_replicate_test(params, errors)


def _models_compared_on(params: dict, name: str, spec) -> int:
    """How many configured models the significance stage compares on dataset ``name``: those listed in its
    ``models`` (all by default) that can run on it (a family unit runs only on the problems it supports)."""
    if not isinstance(spec, dict):
        return 0
    only = spec.get("models")
    keys = [k for k in params["models"] if only is None or k in only]
    return _COMPARED_ON[kinds.of_spec(spec).runner](params, spec, keys)


def _units_compared_on(params: dict, spec: dict, keys: list[str]) -> int:
    try:
        from . import units

        fam_units = units.load(spec["source"]).UNITS
        return sum(1 for k in keys if _unit_runs_on(fam_units, (params["models"][k] or {}).get("name"), spec))
    except Exception:  # a broken family dataset is reported by _check_family_dataset
        return 0


_half_sampling_applies = half_sampling_applies  # the stages' rule (pipeline.designs), not a copy of it

#: by :attr:`~replearn.pipeline.kinds.ProblemKind.runner` (of a dataset) or :func:`.units.runner_of` (of a model):
#: the check of a dataset entry, of a models entry, and how many configured models a dataset compares
_DATASET_CHECKS = {"estimators": _check_table_dataset, "units": _check_family_dataset}
_MODEL_CHECKS = {"estimators": _check_estimator, "units": _check_unit}
_COMPARED_ON = {"estimators": lambda params, spec, keys: len(keys), "units": _units_compared_on}


def _check_replicate_test(params: dict, errors: list[str]) -> None:
    """``stats.replicate_test`` must be able to reject with the configured seeds (issue 22).

    The exact Wilcoxon signed-rank and sign tests on n paired seeds cannot give p < 2/2^n, and a correction over
    the m pairs of models on a dataset multiplies the smallest p-value by m (Holm, Bonferroni, Shaffer,
    Bergmann-Hommel): with too few seeds such a test can never reject, so "not significant" would say nothing
    (:func:`replearn.stats.fewruns.smallest_adjusted_pvalue`). Checked for the datasets on which the test is
    used: seed replicates (design=seeds, or a sweep with ``replicates: seeds``) of an experiment family, or of a
    table without the half-sampling fits (``resample_split: false`` or ``cv.half_sampling.subsamples: 0``)."""
    from ..stats import fewruns
    from ..stats.registry import replicates_needed

    st, design = params["stats"], designs.of_params(params)
    test = st.get("replicate_test") or "replicate_ttest"
    if not design.independent or test not in fewruns.RANK_TESTS:
        return
    n = design.n_seeds
    alpha, correction = float(st["alpha"]), st["correction"]
    half = _half_sampling_applies(params)
    worst = None  # (pairs, dataset) with the most pairs among the datasets the test runs on
    for name, spec in params["dataset"].items():
        if half and not kinds.of_spec(spec).one_problem:  # the half-sampling test runs there instead
            continue
        k = _models_compared_on(params, name, spec)
        m = k * (k - 1) // 2
        if m >= 1 and (worst is None or m > worst[0]):
            worst = (m, name)
    if worst is None:
        return
    m, name = worst
    p_min = fewruns.smallest_adjusted_pvalue(test, n, m, correction)
    if p_min <= alpha:
        return
    need = replicates_needed(test, alpha, m, correction)
    pairs = f"{m} pair{'s' if m != 1 else ''}"
    after = "without a correction" if correction == "none" else f"after {correction}"
    errors.append(
        f"stats.replicate_test: {test} cannot reach alpha = {alpha:g} with design.n_seeds = {n} and {pairs} "
        f"{after} (smallest attainable adjusted p = {p_min:.4g}, on dataset {name!r}); "
        f"use at least {need} seeds or replicate_test: replicate_ttest"
    )
