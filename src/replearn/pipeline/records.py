"""The records passed between stages, described once: typed, versioned, written and read only here.

=============================================  ==========================  =========================
file                                           record                      written by -> read by
=============================================  ==========================  =========================
``results/crossval/<dataset>.json``            :class:`EvaluationResult`   crossval -> significance,
                                                                           report
``results/train/<dataset>.json``               :class:`TrainResult`        train -> significance, report
``results/significance.json``                  :class:`SignificanceResult` significance -> report
``timing/<dataset>.json``                      :class:`Timing`             crossval -> report
                                                                           (cost, leaderboard, MLflow)
=============================================  ==========================  =========================

An evaluation is a set of **replicates** (:class:`Replicate`) on which every model is scored, paired
by replicate. A replicate is not tied to k-fold cross-validation: its ``kind`` says what it is -- a
``"split"`` of (repeated) k-fold / 5x2 / holdout resampling (with ``repeat`` and ``fold``), a
``"seed"`` (an independent replicate differing only in the random seed), or a point of a ``"sweep"``
(``point`` is the axis value, ``repeat`` the replicate at that point). The statistics follow the
kind: overlapping training sets (splits) need the corrected resampled t-test, independent seeds the
tests for independent paired replicates.

Experiment families (:mod:`replearn.pipeline.families`: agents on environments, ...) use the same records:
their replicates are seeds, their "models" the family's units. Version 3 added what only they fill in:
``EvaluationResult.family`` (the family's name, task, problem description and scaling axis),
``ModelEvaluation.curves``/``curve_label``/``extras`` (per replicate: the learning curve and the small numbers a
report draws) and ``TrainResult.family``. Version 4 added ``EvaluationResult.variance``: the half-sampling
fits from which the significance stage estimates how much a result would move with another data set.
Version 5 records failed fits (``cv.on_error: record``): ``ModelEvaluation.failures`` lists, per failed replicate,
a :class:`FitFailure` (reason ``error``, ``diverged`` or ``timeout``, and the message) and leaves that replicate's
scores, ``n_iter``, ``converged`` and ``correct`` None; ``EvaluationResult.variance_failures`` lists the failed
half-sampling fits per model (any of them: no ``variance``, the dataset is compared without the data-sampling
term); ``TrainedModel.failure`` is the train stage's final fit that failed (no predictions, no model file).
Version 6 added ``EvaluationResult.data_sha256``: the sha256 of the prepared training part the replicates were
drawn from (``data/prepared/<dataset>/train.npz``; None for an experiment family's problem), so that two runs can
tell whether they scored the same data (``replearn diff`` pairs their replicates only then).
Wall-clock time is never part of a result record: the fit and predict seconds are a :class:`Timing` in
``timing/`` (no DVC output, so that a rerun's results stay byte-identical), read by the cost report, the
leaderboard and MLflow.

Every file carries ``schema_version``; reading a file of another version, or one missing a field,
raises :class:`ResultSchemaError` naming the file and the field (rerun the producing stage). JSON
stays plain (sorted keys, strict numbers) so ``dvc`` can hash it and people can read it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..exceptions import ReplearnError
from . import kinds
from .kinds import ProblemKind

SCHEMA_VERSION = 6
REPLICATE_KINDS = ("split", "seed", "sweep")
FAILURE_REASONS = ("error", "diverged", "timeout")  # replearn.evaluation.budget.REASONS


class ResultSchemaError(ReplearnError, ValueError):
    """A results file does not match the record schema of this version of replearn."""


@dataclass(frozen=True)
class Replicate:
    """One replicate on which every model is fitted and scored (see the module docstring)."""

    index: int
    kind: str
    n_train: int
    n_test: int
    seed: int | None = None
    repeat: int | None = None
    fold: int | None = None
    point: float | int | str | None = None
    test_index: list[int] | None = None


@dataclass(frozen=True)
class Scheme:
    """How the replicates were made: the design (``cv``, ``seeds``, ``sweep``) and its settings."""

    name: str  # resampling scheme of the cv design (repeated_stratified_kfold, 5x2, ...) or the design's name
    folds: int | None = None
    repeats: int | None = None
    seed: int | None = None
    design: str = "cv"
    axis: str | None = None  # sweep: what varies (a hyperparameter "model.param", "n_train", ...)
    values: list | None = None  # sweep: the points, in order
    simplest: str | None = None  # sweep: "first" or "last" -- the end of ``values`` with the simplest model


@dataclass(frozen=True)
class FitFailure:
    """A fit that failed on a replicate (version 5): ``reason`` is ``error`` (it raised), ``diverged`` (NaN or
    infinite values) or ``timeout`` (stopped at ``cv.max_fit_seconds``); ``message`` the one-line cause."""

    replicate: int
    reason: str
    message: str


@dataclass(frozen=True)
class ModelEvaluation:
    """One model's scores on every replicate (lists in replicate order; None: a score it cannot give, or a failed
    fit -- listed in ``failures``)."""

    registry_name: str
    params: dict
    scores: dict[str, list[float | None]]
    n_iter: list[int | None]
    converged: list[bool | None]  # None: the fit failed
    correct: list[list[int] | None] | None = None  # classification: 1/0 per test example, per replicate
    curves: list[list[float] | None] | None = None  # families: the learning curve of each replicate
    curve_label: str | None = None  # families: what the curves are (e.g. "Bellman residual")
    extras: list[dict] | None = None  # families: small JSON numbers per replicate (e.g. {"n_states": 12})
    failures: list[FitFailure] = field(default_factory=list)  # version 5: the replicates whose fit failed

    def failed(self) -> set[int]:
        """The replicates whose fit failed."""
        return {f.replicate for f in self.failures}

    def values(self, metric: str | None) -> list[float | None]:
        """The scores of ``metric`` per replicate (a metric it does not record: none)."""
        return list(self.scores.get(metric) or []) if metric is not None else []

    def hyperparameter(self, name: str, default: Any = None) -> Any:
        """The recorded value of hyperparameter ``name`` (``params`` holds the model's own names, free-form);
        ``default`` when the record does not hold it."""
        return hyperparameter(self.params, name, default)


def hyperparameter(params: Mapping | None, name: str, default: Any = None) -> Any:
    """Hyperparameter ``name`` of a model's recorded ``params`` (:attr:`ModelEvaluation.params`, or the same mapping
    given on its own), ``default`` when it is not recorded: the one reader of a record's free-form hyperparameters."""
    return params[name] if params and name in params else default


@dataclass(frozen=True)
class EvaluationResult:
    """``results/crossval/<dataset>.json``: every model on every replicate of one dataset."""

    dataset: str
    task: str
    n_examples: int
    scheme: Scheme
    metrics: list[str]
    primary_metric: str
    greater_is_better: dict[str, bool]
    splits: list[Replicate]
    models: dict[str, ModelEvaluation]
    classes: list[str] | None = None
    #: families only: {"name", "task", "problem" (describe(problem)), "scale_by", "scale_metrics"}
    family: dict | None = None
    #: the fits that estimate the data-sampling variance (version 4; None: a conditional design): ``{"method":
    #: "half_sampling", "n_examples", "subsample_size", "subsamples", "repeats", "folds", "replicates": [{
    #: "subsample", "repeat", "fold", "n_train", "n_test", "point"}], "models": {key: {metric: [score per
    #: replicate]}}}`` (:mod:`replearn.stats.halfsampling`)
    variance: dict | None = None
    #: version 5: the half-sampling fits that failed, per model (``replicate``: the inner fit's index); any of them
    #: leaves ``variance`` None
    variance_failures: dict[str, list[FitFailure]] = field(default_factory=dict)
    #: version 6: the sha256 of the prepared training part (None: an experiment family's problem)
    data_sha256: str | None = None
    schema_version: int = SCHEMA_VERSION

    @property
    def problem_kind(self) -> ProblemKind:
        """What the problem is (:mod:`replearn.pipeline.kinds`): a table, or a problem of the family it names."""
        return kinds.of_family_field(self.family)

    @property
    def problem(self) -> dict | None:
        """The description of a family's problem (``family["problem"]``: the environment, its seed); None for a
        table, whose data :attr:`data_sha256` identifies."""
        return (self.family or {}).get("problem")

    @property
    def replicate_kind(self) -> str:
        kinds = {s.kind for s in self.splits}
        return kinds.pop() if len(kinds) == 1 else "mixed"

    @property
    def primary(self) -> str | None:
        """The metric the comparisons use: the primary one, else the first recorded."""
        return self.primary_metric or (self.metrics[0] if self.metrics else None)

    def greater(self, metric: str | None, default: bool | None = True) -> bool | None:
        """Whether a higher ``metric`` is better (``default`` for a metric the record does not orient)."""
        return self.greater_is_better.get(metric, default) if metric is not None else default

    def scores_of(self, unit: str, metric: str | None) -> list[float | None]:
        """Unit ``unit``'s scores of ``metric`` per replicate (a unit or metric it does not record: none)."""
        model = self.models.get(unit)
        return model.values(metric) if model is not None else []


@dataclass(frozen=True)
class TrainedModel:
    """One model fitted on the whole training part and evaluated once on the sealed test part."""

    converged: bool
    n_iter: int | None
    figures: dict = field(default_factory=dict)
    pred: list | None = None
    correct: list[int] | None = None
    failure: FitFailure | None = None  # version 5: the final fit failed (cv.on_error: record); no pred, no model file

    def figure(self, name: str):
        """The data of model view ``name`` (``curves``, ``clusters``, ``decomposition``; None: not drawn)."""
        return self.figures.get(name)


@dataclass(frozen=True)
class TrainResult:
    """``results/train/<dataset>.json``: the final fits' test-set predictions and model-view data."""

    dataset: str
    task: str
    y_true: list
    models: dict[str, TrainedModel]
    decision_regions: dict | None = None
    family: str | None = None  # the experiment family of the dataset (None: a supervised table)
    schema_version: int = SCHEMA_VERSION

    @property
    def problem_kind(self) -> ProblemKind:
        """What the problem is (:mod:`replearn.pipeline.kinds`): a table, or a problem of the family it names."""
        return kinds.of_family_field(self.family)


@dataclass(frozen=True)
class SignificanceResult:
    """``results/significance.json``: the tests chosen by design (rows as documented in docs/statistics.md)."""

    metric: str
    alpha: float
    higher_is_better: bool
    pairwise_test: str
    pairwise_test_config: str
    correction: str
    test_set_test: str
    test_set_metric_test: str | None
    bayesian: dict
    posthoc: dict
    round_before_ranking: int | None
    seed: int
    datasets: dict[str, dict]
    across_datasets: dict
    across_pairs: dict
    excluded: dict[str, list[str]]
    schema_version: int = SCHEMA_VERSION


@dataclass(frozen=True)
class Timing:
    """``timing/<dataset>.json``: the crossval stage's wall-clock seconds of one dataset, never a DVC output.

    ``seconds[unit][label]`` holds one entry per replicate, in the record's replicate order (a sweep's points one
    after the other): ``fit_seconds`` and ``predict_seconds`` for a model, a family unit's own labels (e.g.
    ``plan_seconds``) for a unit; None for a replicate whose fit failed. Missing, it is :meth:`empty`: the cost
    report and the leaderboard then show no times.
    """

    seconds: dict[str, dict[str, list[float | None]]]
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def empty(cls) -> Timing:
        return cls(seconds={})

    def labels(self, unit: str) -> dict[str, list[float | None]]:
        """Every label of ``unit`` with its per-replicate seconds ({} for a unit without times)."""
        return dict(self.seconds.get(unit, {}))

    def of(self, unit: str, label: str) -> list[float]:
        """The seconds of ``label`` for ``unit`` over the replicates that have one (a failed fit has none)."""
        return [float(v) for v in self.labels(unit).get(label, []) if v is not None]


# -- conversion ------------------------------------------------------------------------------------
def to_dict(record) -> dict:
    """A record as plain JSON-ready data (dataclasses become dicts; lists and dicts are copied, as by
    :func:`dataclasses.asdict`, which took seconds on a benchmark's records: it deep-copies every number)."""
    return _plain(record)


_ATOMS = (float, int, str, bool, type(None))


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list or kind is tuple:
        if all(type(v) in _ATOMS for v in value):
            return kind(value)
        return kind(_plain(v) for v in value)
    if kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


@functools.cache
def _is_leaf(tp: Any) -> bool:
    """Whether ``_convert`` returns a value of type ``tp`` unchanged: no record, list or dict anywhere in it."""
    if dataclasses.is_dataclass(tp) or typing.get_origin(tp) in (list, dict):
        return False
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return all(_is_leaf(arg) for arg in typing.get_args(tp))
    return True


@functools.cache
def _hints(cls) -> dict:
    return typing.get_type_hints(cls)


def _convert(value: Any, tp: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            if dataclasses.is_dataclass(arg) or typing.get_origin(arg) in (list, dict):
                return _convert(value, arg, where)
        return value
    if dataclasses.is_dataclass(tp):
        return _from_mapping(tp, value, where)
    if origin is list and value is not None:
        (item,) = typing.get_args(tp) or (Any,)
        if not isinstance(value, list):
            raise ResultSchemaError(f"{where}: expected a list, got {type(value).__name__}")
        if _is_leaf(item):  # scores, flags, indices: every item is kept as it is (a shallow copy of the list)
            return list(value)
        return [_convert(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict and value is not None:
        args = typing.get_args(tp)
        item = args[1] if len(args) == 2 else Any
        if not isinstance(value, dict):
            raise ResultSchemaError(f"{where}: expected a mapping, got {type(value).__name__}")
        if _is_leaf(item):
            return dict(value)
        return {k: _convert(v, item, f"{where}.{k}") for k, v in value.items()}
    return value


def _from_mapping(cls, data, where: str):
    if not isinstance(data, dict):
        raise ResultSchemaError(f"{where}: expected a mapping for {cls.__name__}, got {type(data).__name__}")
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            kwargs[f.name] = _convert(data[f.name], hints[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ResultSchemaError(f"{where}: missing field {f.name!r} of {cls.__name__}")
    unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
    if unknown:
        raise ResultSchemaError(f"{where}: unknown field(s) {unknown} for {cls.__name__}")
    return cls(**kwargs)


def from_dict(cls, data: dict, *, source: str = "record"):
    """Build record ``cls`` from plain data, checking the schema version and every field."""
    if isinstance(data, dict) and "schema_version" in {f.name for f in dataclasses.fields(cls)}:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ResultSchemaError(
                f"{source}: results written with schema version {version!r}, this replearn reads version "
                f"{SCHEMA_VERSION}; rerun the stage that writes it (`dvc repro -f <stage>`)"
            )
    record = _from_mapping(cls, data, source)
    if isinstance(record, EvaluationResult):
        _check_evaluation(record, source)
    return record


def scheme_dict(evaluation: EvaluationResult) -> dict:
    """The record's scheme as the file holds it (every field; :func:`replearn.pipeline.designs.describe_scheme` takes
    it)."""
    return _plain(evaluation.scheme)


def _as_record(cls, value, source: str):
    """Record ``cls`` as it is, or built from its plain data (a record in memory, as a caller hands it over: every
    field and length checked as when read from a file; a missing ``schema_version`` reads as this version's)."""
    if isinstance(value, cls):
        return value
    if isinstance(value, dict) and "schema_version" not in value:
        value = {**value, "schema_version": SCHEMA_VERSION}
    return from_dict(cls, value, source=source)


def as_evaluation(value, *, source: str = "crossval record") -> EvaluationResult:
    """An :class:`EvaluationResult` as it is, or built and checked from its plain data (:func:`_as_record`)."""
    return _as_record(EvaluationResult, value, source)


def as_evaluations(crossval) -> dict[str, EvaluationResult]:
    """``{dataset: record}`` from records or their plain data (:func:`as_evaluation`), in the given order."""
    return {d: as_evaluation(cv, source=f"crossval record of {d!r}") for d, cv in crossval.items()}


def as_train_result(value, *, source: str = "train record") -> TrainResult:
    """A :class:`TrainResult` as it is, or built and checked from its plain data (:func:`_as_record`)."""
    return _as_record(TrainResult, value, source)


def as_train_results(train) -> dict[str, TrainResult]:
    """``{dataset: record}`` from train records or their plain data, in the given order."""
    return {d: as_train_result(t, source=f"train record of {d!r}") for d, t in (train or {}).items()}


#: older versions of ``EvaluationResult`` whose fields are a subset of this one's (each later version only added
#: fields with defaults): :func:`read_evaluation_data` reads them, stating the version
COMPATIBLE_EVALUATION_VERSIONS = (3, 4, 5)


def read_evaluation_data(data, *, source: str = "record") -> tuple[EvaluationResult, int]:
    """An :class:`EvaluationResult` from plain data of this version or of a compatible older one (the fields a later
    version added take their defaults: ``data_sha256`` None before 6, no failures before 5, no ``variance`` before
    4), and the version it was written with. Other versions raise :class:`ResultSchemaError` naming the file."""
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version in COMPATIBLE_EVALUATION_VERSIONS:
        data = {**data, "schema_version": SCHEMA_VERSION}
    elif version != SCHEMA_VERSION:
        raise ResultSchemaError(
            f"{source}: results written with schema version {version!r}; this replearn reads version "
            f"{SCHEMA_VERSION} and the older {', '.join(map(str, COMPATIBLE_EVALUATION_VERSIONS))} -- rerun that "
            "revision's crossval stage (`dvc repro -f crossval`) with this replearn"
        )
    return from_dict(EvaluationResult, data, source=source), int(version)


def _check_evaluation(r: EvaluationResult, source: str) -> None:
    n = len(r.splits)
    for s in r.splits:
        if s.kind not in REPLICATE_KINDS:
            raise ResultSchemaError(
                f"{source}: replicate {s.index} has unknown kind {s.kind!r}; "
                f"expected one of {', '.join(REPLICATE_KINDS)}"
            )
    for key, m in r.models.items():
        for metric, values in m.scores.items():
            if len(values) != n:
                raise ResultSchemaError(f"{source}: model {key!r} has {len(values)} {metric} scores for {n} replicates")
        for what in ("curves", "extras"):
            values = getattr(m, what)
            if values is not None and len(values) != n:
                raise ResultSchemaError(f"{source}: model {key!r} has {len(values)} {what} for {n} replicates")
        for f in m.failures:
            if f.reason not in FAILURE_REASONS or not 0 <= f.replicate < n:
                raise ResultSchemaError(
                    f"{source}: model {key!r} has a failure on replicate {f.replicate} with reason {f.reason!r}; "
                    f"expected a replicate in 0..{n - 1} and a reason among {', '.join(FAILURE_REASONS)}"
                )
            if any(values[f.replicate] is not None for values in m.scores.values()):
                raise ResultSchemaError(
                    f"{source}: model {key!r} has scores on replicate {f.replicate}, whose fit failed"
                )
    for key, fails in r.variance_failures.items():
        for f in fails:
            if f.reason not in FAILURE_REASONS:
                raise ResultSchemaError(
                    f"{source}: half-sampling failure of model {key!r} has reason {f.reason!r}; expected one of "
                    f"{', '.join(FAILURE_REASONS)}"
                )
    if r.primary_metric not in r.metrics:
        raise ResultSchemaError(f"{source}: primary metric {r.primary_metric!r} is not among {r.metrics}")


# -- files -----------------------------------------------------------------------------------------
def write(path: Path, record) -> None:
    """Write a record as deterministic JSON (sorted keys, strict numbers, one line: records are read by the
    stages and by ``replearn``'s readers, and a benchmark's run to megabytes; ``metrics/`` stays indented)."""
    from .jsonio import write_json

    write_json(path, to_dict(record), compact=True)


def _parse(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ResultSchemaError(f"{path}: not found; run the stage that writes it first (`dvc repro`)") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultSchemaError(f"{path}: not valid JSON ({exc}); rerun the stage that writes it") from exc


def _read(cls, path: Path):
    return read_both(cls, path)[0]


def read_both(cls, path: Path):
    """``(record, plain data)`` of the file of record ``cls``, from one parse: the record checked as by
    :func:`read_evaluation` and its siblings, and the parsed JSON it was built from (for a reader of plain data, the
    tracking module's)."""
    path = Path(path)
    data = _parse(path)
    return from_dict(cls, data, source=str(path)), data


def read_evaluation(path: Path) -> EvaluationResult:
    return _read(EvaluationResult, path)


def read_train(path: Path) -> TrainResult:
    return _read(TrainResult, path)


def read_significance(path: Path) -> SignificanceResult:
    return _read(SignificanceResult, path)


def as_timing(value, *, source: str = "timing") -> Timing:
    """A :class:`Timing` from a record or plain data: a record's dict, or ``{unit: {label: [seconds]}}`` as the
    crossval stage collects it (and as ``timing/`` files held before they were records)."""
    if isinstance(value, Timing):
        return value
    if isinstance(value, dict) and "schema_version" not in value and all(isinstance(v, dict) for v in value.values()):
        value = {"seconds": value, "schema_version": SCHEMA_VERSION}
    return from_dict(Timing, value, source=source)


def as_timings(timing) -> dict[str, Timing]:
    """Per dataset, :func:`as_timing` of a mapping of records or plain data (None: no times)."""
    return {d: as_timing(t, source=f"timing of {d}") for d, t in (timing or {}).items()}


def read_timing(path: Path) -> Timing:
    """``timing/<dataset>.json``: :meth:`Timing.empty` when the file is missing (the crossval stage did not run
    here); a file that is no timing record raises :class:`ResultSchemaError` naming it."""
    path = Path(path)
    if not path.exists():
        return Timing.empty()
    return as_timing(_parse(path), source=str(path))
