"""Typed views of the significance record, for the code that reads it (issue 38: the report consumes objects, not
``.get(`` on stage records).

``results/significance.json`` (and a ``replearn compare`` result) is written by :mod:`replearn.pipeline.compare`:
the settings, one entry per dataset (:class:`DatasetComparison`: its pairs over the replicates, on the sealed test
set and in the Bayesian analysis, a sweep's summary) and two sections over datasets: ``across_datasets``
(:func:`~replearn.pipeline.compare.across_datasets`: average ranks, Friedman's test, the Nemenyi critical
difference, the post-hoc procedure) and ``across_pairs`` (:func:`~replearn.pipeline.compare.across_pairs`: a row
per pair of models over the datasets). Their shape varies with what ran -- a section that did not run has only
``ran`` and ``reason`` -- so the written JSON stays as it is and these views are built from it at read time: each
field is declared here once with the value a reader sees when the section does not carry it, and
:meth:`from_dict` is the one place that looks a key up. A reader asks ``across.posthoc.ran``, never
``(across.get("posthoc") or {}).get("ran")``; :func:`undeclared_keys` lists what a writer puts in a record that no
view declares (the preset tests require none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Self

__all__ = [
    "AcrossDatasets",
    "AcrossPairs",
    "BayesianComparison",
    "BayesianSetting",
    "BayesianSignedRank",
    "Decomposition",
    "DatasetComparison",
    "ExperimentHeader",
    "FinalScores",
    "Friedman",
    "Nemenyi",
    "PairComparison",
    "PairRow",
    "Posthoc",
    "PosthocComparison",
    "ProblemFamily",
    "ReproducedQuantity",
    "ReproductionRecord",
    "SealedMetricTest",
    "Significance",
    "Sweep",
    "SweepModel",
    "SweepNeighbour",
    "final_scores",
    "Nested",
    "View",
    "undeclared_keys",
]


def _scalars(cls, data: Any, nested: Mapping[str, _Nested]) -> dict[str, Any]:
    """The fields of ``cls`` found in ``data`` (a missing or null section: every field's default; a null list or
    mapping: an empty one); ``nested``: ``{field: converter}`` for the fields that are views themselves."""
    data = data or {}
    out: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if value is None and (f.default_factory is not MISSING or f.default == ()):
            continue  # a collection written as null reads as empty
        out[f.name] = nested[f.name](value) if f.name in nested and value is not None else value
    return out


@dataclass(frozen=True)
class _Nested:
    """A field that is a view itself: ``one`` section, ``many`` rows, a ``map`` of key -> section, or an ``optional``
    section (empty or missing: None). :meth:`_View.from_dict` converts through it and :func:`undeclared_keys` walks
    it: one declaration of a record's shape for both."""

    view: type[_View]
    kind: str = "one"

    def __call__(self, data: Any) -> Any:
        if self.kind == "many":
            return tuple(self.view.from_dict(r) for r in data)
        if self.kind == "map":
            return {k: self.view.from_dict(v) for k, v in data.items()}
        if self.kind == "optional":
            return self.view.from_dict(data) if data else None
        return self.view.from_dict(data)


class _View:
    """A view of one record section: :meth:`from_dict` reads it; ``_NESTED`` converts the fields that are views."""

    _NESTED: ClassVar[Mapping[str, _Nested]] = {}

    @classmethod
    def from_dict(cls, data: Mapping | Self | None) -> Self:
        """The view of ``data`` (a view already: itself), each missing field at its declared default."""
        if isinstance(data, cls):
            return data
        return cls(**_scalars(cls, data, cls._NESTED))


@dataclass(frozen=True)
class Friedman(_View):
    """Friedman's test of "every model ranks alike" (``across_datasets.friedman``)."""

    statistic: float | None = None
    pvalue: float | None = None
    pvalue_method: str | None = None
    chi2_pvalue: float | None = None
    df: float | None = None
    f_statistic: float | None = None
    f_pvalue: float | None = None
    df_f: list = field(default_factory=list)
    kendall_w: float | None = None


@dataclass(frozen=True)
class Nemenyi(_View):
    """The critical difference of the average ranks (``across_datasets.nemenyi``)."""

    alpha: float | None = None
    cd: float | None = None
    q_alpha: float | None = None
    cliques: list = field(default_factory=list)


@dataclass(frozen=True)
class PosthocComparison(_View):
    """One hypothesis of the post-hoc procedure: ``a`` against ``b`` on their average ranks."""

    a: str
    b: str
    rank_a: float = 0.0
    rank_b: float = 0.0
    rank_difference: float | None = None
    z: float | None = None
    pvalue: float | None = None
    pvalue_adjusted: float | None = None
    significant: bool = False
    rank_biserial: float | None = None
    cliffs_delta: float | None = None


@dataclass(frozen=True)
class Posthoc(_View):
    """The post-hoc procedure after Friedman's test rejects (``across_datasets.posthoc``)."""

    ran: bool = False
    reason: str | None = None
    method: str | None = None
    method_used: str | None = None
    control: str | None = None
    alpha: float | None = None
    average_ranks: dict = field(default_factory=dict)
    comparisons: tuple[PosthocComparison, ...] = ()
    conventions: dict = field(default_factory=dict)
    _NESTED = {"comparisons": _Nested(PosthocComparison, "many")}
    #: whether the record holds the section at all (records written before the post-hoc procedure existed do not)
    recorded: bool = field(default=False, compare=False)

    @property
    def procedure(self) -> str | None:
        """The procedure that ran (``method_used``: Bergmann-Hommel falls back to Shaffer past 10 models)."""
        return self.method_used or self.method

    @classmethod
    def from_dict(cls, data: Mapping | Posthoc | None) -> Posthoc:
        if isinstance(data, cls):
            return data
        return cls(**{**_scalars(cls, data, cls._NESTED), "recorded": bool(data)})


@dataclass(frozen=True)
class AcrossDatasets(_View):
    """``across_datasets``: k models over N datasets (average ranks; Friedman, Nemenyi and the post-hoc procedure
    when it ran)."""

    ran: bool = False
    reason: str | None = None
    metric: str | None = None
    datasets: list = field(default_factory=list)
    models: list = field(default_factory=list)
    n_datasets: int | None = None
    scores: list = field(default_factory=list)
    average_ranks: dict = field(default_factory=dict)
    imputed_worst_rank: list = field(default_factory=list)
    friedman: Friedman = field(default_factory=Friedman)
    nemenyi: Nemenyi | None = None
    posthoc: Posthoc = field(default_factory=Posthoc)
    significant: bool = False
    _NESTED = {"friedman": _Nested(Friedman), "nemenyi": _Nested(Nemenyi), "posthoc": _Nested(Posthoc)}

    @property
    def n(self) -> int:
        """N, the number of datasets (the recorded one; else the datasets listed)."""
        return self.n_datasets if self.n_datasets is not None else len(self.datasets)


@dataclass(frozen=True)
class BayesianSignedRank(_View):
    """The Bayesian signed-rank test of one pair over the datasets (``across_pairs.rows[].bayesian_signed_rank``)."""

    model_a: str | None = None
    model_b: str | None = None
    rope: float | None = None
    rope_scale: str | None = None
    p_a_better: float | None = None
    p_equivalent: float | None = None
    p_b_better: float | None = None
    p_decision: float | None = None
    decision: str | None = None
    decision_rule: str | None = None
    decision_note: str | None = None
    n_samples: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class PairRow(_View):
    """One pair of models over the datasets (``across_pairs.rows[]``)."""

    model_a: str
    model_b: str
    mean_a: float | None = None
    mean_b: float | None = None
    mean_difference: float | None = None
    test: str | None = None
    statistic: float | None = None
    pvalue: float | None = None
    pvalue_adjusted: float | None = None
    significant: bool = False
    winner: str | None = None
    exact: bool | None = None
    wins_a: int | None = None
    wins_b: int | None = None
    ties: int | None = None
    sign_test_pvalue: float | None = None
    rank_biserial: float | None = None
    cliffs_delta: float | None = None
    dropped_datasets: int = 0
    correction_used: str | None = None
    note: str | None = None
    bayesian_signed_rank: BayesianSignedRank | None = None
    _NESTED = {"bayesian_signed_rank": _Nested(BayesianSignedRank)}


@dataclass(frozen=True)
class AcrossPairs(_View):
    """``across_pairs``: every pair of models over the datasets (Wilcoxon or sign test, adjusted over the pairs)."""

    ran: bool = False
    reason: str | None = None
    test: str | None = None
    metric: str | None = None
    datasets: list = field(default_factory=list)
    models: list = field(default_factory=list)
    rows: tuple[PairRow, ...] = ()
    bayesian_withheld: str | None = None
    smallest_possible_pvalue: float | None = None
    effect_sizes: str | None = None
    _NESTED = {"rows": _Nested(PairRow, "many")}


# --------------------------------------------------------------------------- one dataset's comparisons
# ``datasets.<d>`` of the record (:func:`~replearn.pipeline.compare._dataset_entry`): the pairs over the replicates
# (``cv``), on the sealed test set (``test_set``, ``test_set_metric``) and in the Bayesian analysis (``bayesian``),
# with the design, the question and the failed fits; a sweep adds its summary (``sweep``).


@dataclass(frozen=True)
class PairComparison(_View):
    """One pair of models on one dataset: a row of ``cv`` (over the replicates: the design's test), of ``test_set``
    (McNemar's test) or of ``test_set_metric.rows`` (the permutation or bootstrap test of the sealed predictions).
    The fields a kind of row does not carry read as None."""

    model_a: str | None = None
    model_b: str | None = None
    test: str | None = None
    method: str | None = None
    mean_a: float | None = None
    mean_b: float | None = None
    mean_difference: float | None = None
    statistic: float | None = None
    df: float | None = None
    pvalue: float | None = None
    pvalue_adjusted: float | None = None
    significant: bool = False
    winner: str | None = None
    correction_used: str | None = None
    effect_size: float | None = None
    effect_size_name: str | None = None
    ci: list | None = None
    conventions: dict = field(default_factory=dict)
    standard_error: float | None = None
    between_share: float | None = None
    note: str | None = None
    dropped_replicates: int = 0
    detectable_difference: float | None = None
    detectable_level: float | None = None
    gate: str | None = None
    question: str | None = None
    selection: str | None = None
    sequential: dict | None = None
    n01: int | None = None
    n10: int | None = None
    accuracy_a: float | None = None
    accuracy_b: float | None = None
    score_a: float | None = None
    score_b: float | None = None
    seed: int | None = None
    #: the keys the row holds (a row written without an adjusted p-value reports its raw one)
    recorded: frozenset = field(default=frozenset(), compare=False)

    @classmethod
    def from_dict(cls, data: Mapping | PairComparison | None) -> PairComparison:
        if isinstance(data, cls):
            return data
        keys = frozenset(data) if isinstance(data, Mapping) else frozenset()
        return cls(**{**_scalars(cls, data, cls._NESTED), "recorded": keys})

    @property
    def reported_pvalue(self) -> float | None:
        """The p-value the verdict uses: the adjusted one, or the raw one for a row written without adjustment."""
        return self.pvalue_adjusted if "pvalue_adjusted" in self.recorded else self.pvalue

    @property
    def pair(self) -> tuple[str, str]:
        """``(model A, model B)`` as strings (the sort key of every table)."""
        return str(self.model_a), str(self.model_b)


@dataclass(frozen=True)
class BayesianComparison(_View):
    """One pair of models in the Bayesian analysis of one dataset (``datasets.<d>.bayesian[]``)."""

    model_a: str | None = None
    model_b: str | None = None
    dropped_replicates: int = 0
    test: str | None = None
    rope: float | None = None
    p_a_better: float | None = None
    p_equivalent: float | None = None
    p_b_better: float | None = None
    posterior_mean: float | None = None
    credible_interval: list | None = None
    rho: float | None = None
    p_decision: float | None = None
    decision: str | None = None
    decision_rule: str | None = None
    decision_note: str | None = None

    @property
    def pair(self) -> tuple[str, str]:
        return str(self.model_a), str(self.model_b)


@dataclass(frozen=True)
class SealedMetricTest(_View):
    """The permutation or bootstrap test of the primary metric on the sealed test predictions
    (``datasets.<d>.test_set_metric``)."""

    ran: bool = False
    reason: str | None = None
    test: str | None = None
    metric: str | None = None
    n_resamples: int | None = None
    rows: tuple[PairComparison, ...] = ()
    _NESTED = {"rows": _Nested(PairComparison, "many")}


@dataclass(frozen=True)
class SweepNeighbour(_View):
    """The best point of a sweep against one neighbour (``sweep.models.<key>.neighbours[]``)."""

    best: Any = None
    neighbour: Any = None
    test: str | None = None
    mean_difference: float | None = None
    statistic: float | None = None
    pvalue: float | None = None
    pvalue_adjusted: float | None = None
    significant: bool = False
    family: int = 1


@dataclass(frozen=True)
class SweepModel(_View):
    """One model along a sweep: its curve (``[{"point", "mean", "se"}]``), best and one-SE points, and the best
    point against its neighbours."""

    curve: list = field(default_factory=list)
    best: Any = None
    one_se: Any = None
    neighbours: tuple[SweepNeighbour, ...] = ()
    swept: bool | None = None
    _NESTED = {"neighbours": _Nested(SweepNeighbour, "many")}


@dataclass(frozen=True)
class Sweep(_View):
    """A sweep's summary on one dataset (``datasets.<d>.sweep``: :func:`~replearn.pipeline.compare.compare_sweep`)."""

    axis: str | None = None
    values: list = field(default_factory=list)
    metric: str | None = None
    models: dict = field(default_factory=dict)  # key -> SweepModel
    swept: list = field(default_factory=list)
    simplest: str = "first"
    question: str | None = None
    neighbour_test: str | None = None
    se: str | None = None
    _NESTED = {"models": _Nested(SweepModel, "map")}


@dataclass(frozen=True)
class DatasetComparison(_View):
    """One dataset's comparisons (``datasets.<d>``)."""

    cv: tuple[PairComparison, ...] = ()
    bayesian: tuple[BayesianComparison, ...] = ()
    test_set: tuple[PairComparison, ...] = ()
    test_set_metric: SealedMetricTest | None = None
    design: str | None = None
    replicates: str | None = None
    question: str | None = None
    metric: str | None = None
    n_replicates: int | None = None
    means: dict = field(default_factory=dict)
    failed_fits: dict = field(default_factory=dict)
    no_successful_fit: list = field(default_factory=list)
    failed_final_fit: list = field(default_factory=list)
    sweep: Sweep | None = None
    _NESTED = {
        "cv": _Nested(PairComparison, "many"),
        "bayesian": _Nested(BayesianComparison, "many"),
        "test_set": _Nested(PairComparison, "many"),
        "test_set_metric": _Nested(SealedMetricTest, "optional"),  # empty or missing: the report says nothing
        "sweep": _Nested(Sweep, "optional"),
    }


@dataclass(frozen=True)
class BayesianSetting(_View):
    """The Bayesian analysis as configured (``bayesian``: whether it ran, its ROPE)."""

    enabled: bool = False
    rope: float | None = None
    rope_scale: str | None = None


@dataclass(frozen=True)
class Significance(_View):
    """The significance record (``results/significance.json``, a ``replearn compare`` result) as the report reads
    it: the settings, every dataset's comparisons and the two analyses over datasets."""

    metric: str | None = None
    alpha: float | None = None
    higher_is_better: bool | None = None
    pairwise_test: str | None = None
    pairwise_test_config: str | None = None
    correction: str | None = None
    test_set_test: str | None = None
    test_set_metric_test: str | None = None
    bayesian: BayesianSetting = field(default_factory=BayesianSetting)
    posthoc: dict = field(default_factory=dict)
    round_before_ranking: int | None = None
    seed: int | None = None
    datasets: dict = field(default_factory=dict)  # dataset -> DatasetComparison
    across_datasets: AcrossDatasets = field(default_factory=AcrossDatasets)
    across_pairs: AcrossPairs | None = None
    excluded: dict = field(default_factory=dict)
    schema_version: int | None = None
    _NESTED = {
        "bayesian": _Nested(BayesianSetting),
        "datasets": _Nested(DatasetComparison, "map"),
        "across_datasets": _Nested(AcrossDatasets),
        "across_pairs": _Nested(AcrossPairs, "optional"),
    }

    def dataset(self, name: str) -> DatasetComparison:
        """The comparisons of dataset ``name`` (none recorded: an empty entry)."""
        entry = self.datasets.get(name)
        return entry if entry is not None else DatasetComparison()

    def left_out(self, name: str) -> list[str]:
        """The models left out of dataset ``name``'s tests (no score on the primary metric)."""
        return list(self.excluded.get(name) or [])


# --------------------------------------------------------------------------- a fitted model's view data
@dataclass(frozen=True)
class Decomposition(_View):
    """A decomposition's view (``results/train/<d>.json``: ``models.<key>.figures.decomposition``, written by
    :func:`replearn.pipeline.figures_data.figure_data`): the 2-D projection of (a subsample of) the data, their
    labels (None: unlabelled), the explained-variance ratio (None: the model has none), the leading components and
    their image shape (8 x 8 digits; None: not images)."""

    projection: list = field(default_factory=list)
    label: list | None = None
    explained_variance_ratio: list | None = None
    components: list | None = None
    image_shape: list | None = None


# --------------------------------------------------------------------------- an experiment family's problem
@dataclass(frozen=True)
class ProblemFamily(_View):
    """What a crossval record says of an experiment family's problem (``EvaluationResult.family``; None: a table):
    the family's name and task, the problem's description, the axis it scales along and the metrics drawn against
    it, and whether a new problem instance was drawn for every replicate."""

    name: str | None = None
    task: str | None = None
    problem: dict = field(default_factory=dict)
    scale_by: str | None = None
    scale_metrics: list = field(default_factory=list)
    resampled_problem: bool = False


# --------------------------------------------------------------------------- the report's own header
@dataclass(frozen=True)
class ExperimentHeader(_View):
    """What the report's header says of the experiment (built by :func:`replearn.pipeline.report.inputs.read_inputs`
    from the params): its name, the parameters' hash, the datasets and model keys in the configured order, and the
    provenance of the models an installed plugin registers (key -> "plugin <distribution> <version>")."""

    name: str | None = None
    params_hash: str | None = None
    datasets: list = field(default_factory=list)
    models: list = field(default_factory=list)
    model_sources: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- the train stage's metrics
@dataclass(frozen=True)
class FinalScores(_View):
    """One model's final fit scored on the whole training part and on the sealed test part (``metrics/train.json``:
    dataset -> model key -> this; an experiment family's unit has ``test`` only, its final run's scores)."""

    train: dict = field(default_factory=dict)
    test: dict = field(default_factory=dict)

    def value(self, part: str, metric: str | None) -> float | None:
        """The score of ``metric`` on ``part`` (``"train"`` or ``"test"``; None: not recorded)."""
        scores = self.train if part == "train" else self.test
        return scores[metric] if metric in scores else None


def final_scores(train_metrics: Mapping | None, dataset: str) -> dict[str, FinalScores]:
    """``metrics/train.json``'s models of ``dataset`` as views (none recorded: empty)."""
    per_model = (train_metrics or {}).get(dataset) or {}
    return {key: FinalScores.from_dict(v) for key, v in per_model.items()}


# --------------------------------------------------------------------------- the reproduce stage's record
@dataclass(frozen=True)
class ReproducedQuantity(_View):
    """One published-vs-measured row of ``results/reproduction.json`` (``records[]``: what
    :meth:`replearn.reproductions.record.Reproduction.to_dict` writes; ``measured`` None: not finite)."""

    quantity: str | None = None
    published: float | None = None
    measured: float | None = None
    tolerance: float | None = None
    reproduced: bool = False
    source: str | None = None
    id: str | None = None
    example: str | None = None
    text: str | None = None
    section: str | None = None
    preset: str | None = None
    provenance: str | None = None
    measured_by: list = field(default_factory=list)
    erratum: float | None = None
    derived_from: str | None = None


@dataclass(frozen=True)
class Curve:
    """A named curve of a reproduction (``curves.<name>`` of ``results/reproduction.json``): the axis ``x`` (at
    least two points, numbers or labels) and every series as long as it, by name (None: a point not measured).
    Its file form is free-form -- ``{"x": [...], "<series>": [...], ...}`` -- so :meth:`of` keeps what can be
    drawn."""

    x: list
    series: dict[str, list]

    @classmethod
    def of(cls, curve: Any) -> Curve | None:
        """The drawable curve of ``curve``'s file form; None when it has no axis of two points or no series."""
        if not isinstance(curve, Mapping) or not isinstance(curve.get("x"), list) or len(curve["x"]) < 2:
            return None
        x = list(curve["x"])
        series = {k: list(v) for k, v in curve.items() if k != "x" and isinstance(v, list) and len(v) == len(x)}
        return cls(x=x, series=series) if series else None


@dataclass(frozen=True)
class ReproductionRecord(_View):
    """``results/reproduction.json`` (the reproduce stage): the preset (``all``: every one, listed in ``presets``;
    None: nothing reproduced), its rows, curves, tables and notes, the seeds and, for ``all``, each preset's run."""

    preset: str | None = None
    records: tuple[ReproducedQuantity, ...] = ()
    curves: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    notes: str | None = None
    presets: list = field(default_factory=list)
    seed: Any = None
    runs: dict = field(default_factory=dict)
    _NESTED = {"records": _Nested(ReproducedQuantity, "many")}

    def drawable_curves(self) -> dict[str, Curve]:
        """Every curve that can be drawn (:meth:`Curve.of`), by name in sorted order."""
        drawn = {name: Curve.of(curve) for name, curve in sorted(self.curves.items())}
        return {name: c for name, c in drawn.items() if c is not None}


#: the public names of the view machinery, for the views a family declares of its own payloads
#: (:mod:`replearn.pipeline.family_views`)
View = _View
Nested = _Nested


def _undeclared(view: type[_View], data: Any, where: str) -> list[str]:
    """``where.key`` for every key of ``data`` (and of its nested sections, ``view._NESTED``) that ``view`` does not
    declare."""
    if not isinstance(data, Mapping):
        return []
    declared = {f.name for f in fields(view)}  # type: ignore[arg-type]
    out = [f"{where}.{k}" for k in data if k not in declared]
    for name, nested in view._NESTED.items():
        value = data.get(name)
        if nested.kind == "map" and isinstance(value, Mapping):
            for key, item in value.items():
                out += _undeclared(nested.view, item, f"{where}.{name}.{key}")
        elif nested.kind == "many" and isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                out += _undeclared(nested.view, item, f"{where}.{name}[{i}]")
        else:
            out += _undeclared(nested.view, value, f"{where}.{name}")
    return out


def undeclared_keys(record: Mapping, view: type[_View] | None = None) -> list[str]:
    """Every key of a record that no view declares, as a dotted path: a key a writer adds without a reader that
    knows it (empty: every key is read through its view). ``view``: the record's view, :class:`Significance` by
    default (``results/significance.json``, a ``replearn compare`` result); :class:`ReproductionRecord` for
    ``results/reproduction.json``."""
    view = Significance if view is None else view
    name = "significance" if view is Significance else view.__name__
    return _undeclared(view, record, name)
