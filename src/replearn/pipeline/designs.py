"""Settings of the experiment designs read from the configuration alone, shared by the validation and the stages.

A small module on purpose: :mod:`.config` (imported by every stage) and :mod:`.experiment` both read these rules,
and a rule kept in one place cannot drift; importing :mod:`.experiment` from the config would make every stage
depend on the whole experiment code.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

HALF_SAMPLING_DEFAULTS = {"subsamples": 20, "repeats": 6, "folds": None, "fraction": 1 / 3}
#: ``cv.half_sampling.folds: null``: the inner folds by the kind of the main replicates, as calibrated by
#: ``make calibration`` (docs/statistics.md): 5 inside the subsets for k-fold splits (at most the main scheme's
#: folds: 2 for 5x2, whose training sets are halves), 3 for seeds on resampled hold-outs (a larger held-out
#: part, whose data-sampling variance 5 inner folds overstate by a fifth for 1-NN).
AUTO_INNER_FOLDS = {"split": 5, "seed": 3}


def half_sampling_settings(params: Mapping) -> dict:
    """``cv.half_sampling`` with defaults; ``subsamples: 0`` switches the population variance off."""
    return {**HALF_SAMPLING_DEFAULTS, **(params["cv"].get("half_sampling") or {})}


def half_sampling_folds(hs: dict, kind: str, main_folds: int | None = None) -> int:
    """The inner folds of half-sampling for main replicates of ``kind`` ("split" or "seed"); ``main_folds``: the
    main scheme's folds (k-fold splits), which the automatic choice never exceeds."""
    if hs.get("folds"):
        return int(hs["folds"])
    auto = AUTO_INNER_FOLDS[kind]
    return max(2, min(auto, int(main_folds))) if kind == "split" and main_folds else auto


def half_sampling_applies(params: Mapping, inner: str | None = None) -> bool:
    """Whether the design answers the population question with half-samples: cv replicates (design=cv, or a
    sweep over cv replicates) and seeds with ``resample_split: true``; never seeds on one fixed held-out part
    (a conditional question) nor an experiment family (problems, not data sets, are its population).
    ``inner``: the replicates at one point (default: the configured design's)."""
    if half_sampling_settings(params)["subsamples"] == 0:
        return False
    design = of_params(params)
    replicates = design.inner if inner is None else DESIGNS[inner](design.spec)
    return replicates.half_sampled()


# -- the designs as objects ---------------------------------------------------------------------------
class Design:
    """An experiment design: what its replicates are, how many fits it makes, which settings it checks, and how
    the report words it. The code outside this module asks a design (:func:`of_params`, :func:`of_scheme`)
    instead of branching on its name; a new design is a subclass here and one line of :data:`DESIGNS`."""

    #: the name in ``design.name`` and ``Scheme.design``
    name: ClassVar[str] = ""
    #: the replicates the tests see: ``"split"`` (overlapping training sets) or ``"seed"`` (independent runs)
    replicate_kind: ClassVar[str] = "split"
    #: whether the design has points along an axis (each point its own set of replicates)
    has_points: ClassVar[bool] = False
    #: what the stage log says the comparisons ran over (``"CV"``, ``"seeds"``)
    log_label: ClassVar[str] = "CV"

    def __init__(self, spec: Mapping | None = None):
        self.spec: dict = dict(spec or {"name": self.name})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"

    @property
    def inner(self) -> Design:
        """The design of the replicates at one point (itself, but for a sweep)."""
        return self

    @property
    def independent(self) -> bool:
        """Whether the replicates are independent runs (seeds: ``stats.replicate_test``) rather than splits."""
        return self.inner.replicate_kind == "seed"

    @property
    def points(self) -> list:
        """The points of the axis (``[None]``: one point, the design itself)."""
        return [None]

    @property
    def record_kind(self) -> str:
        """``Replicate.kind`` of the records the design writes."""
        return self.replicate_kind

    @property
    def n_seeds(self) -> int:
        return int(self.spec.get("n_seeds") or 10)

    def tested_kind(self, recorded_kind: str) -> str:
        """The kind of replicate the tests see, given the records' ``replicate_kind``."""
        return recorded_kind

    def replicates_per_point(self, params: Mapping) -> int:
        """The main fits of one model at one point."""
        cv = params["cv"]
        return int(cv["repeats"]) if cv["scheme"] == "holdout" else int(cv["folds"]) * int(cv["repeats"])

    def half_sampled(self) -> bool:
        """Whether these replicates carry the half-sampling fits (the population question): splits yes; seeds
        only on a new held-out part per replicate (``resample_split``); a sweep: its replicates'."""
        return True

    def question(self, *, one_problem: bool, variance: bool, resampled: bool) -> str:
        """What a verdict on these replicates answers: ``"problem"`` (an experiment family: this problem, over
        seeds), ``"population"`` (the half-sampling fits estimate the data-sampling variance: another dataset of
        this size), ``"split"`` (seeds on one fixed held-out part) or ``"resampling"`` (resampling splits without
        half-sampling: the corrected t-test's heuristic stands in for the data-sampling variance).
        ``one_problem``: the replicates are runs on one problem (an experiment family's), whose population is
        that problem, not datasets; ``resampled``: the replicates were scored on different held-out parts."""
        if one_problem:
            return "problem"
        return "population" if variance else "resampling"

    def test(self, cfg: Mapping, *, one_problem: bool, variance: bool, resampled: bool, scheme: str | None) -> str:
        """The per-dataset pairwise test for these replicates (``cfg``: the ``stats`` settings with defaults):
        ``half_sampling_ttest`` with the half-sampling fits under ``pairwise_test: auto``, else the resampling
        splits' test (:func:`resolve_pairwise_test` of the cv ``scheme``)."""
        if variance and cfg["pairwise_test"] in ("auto", "half_sampling_ttest"):
            return "half_sampling_ttest"
        return resolve_pairwise_test(cfg, scheme)

    def check(self, params: Mapping, errors: list[str], check_hyperparameter=None) -> None:
        """What the schema alone cannot check of ``design`` (appends to ``errors``); ``check_hyperparameter(
        params, key, hp, values, errors)``: the config's check of a model hyperparameter (the registries)."""

    def family_errors(self, dataset: str, family: str, task: str, what: str = "design") -> list[str]:
        """Why the design cannot run on the problem ``dataset`` of an experiment family (no examples to split)."""
        return []

    def over(self, n: str = "") -> str:
        """What the means are over: ``"over 10 cross-validation splits"``, ``"over 10 seeds, each on ..."``."""
        return f" over {n}cross-validation splits"

    def describe_scheme(self, scheme: dict, n_splits: int) -> str:
        """The report's sentence on how the replicates were made (``scheme``: the record's, without None)."""
        name = str(scheme.get("name", "unknown scheme"))
        folds, repeats, seed = scheme.get("folds"), scheme.get("repeats"), scheme.get("seed")
        if name in _CV_SCHEMES and folds is not None:
            kind, repeated = _CV_SCHEMES[name]
            text = f"{folds}-fold {kind}"
            if repeated and repeats is not None and int(repeats) != 1:
                text += f" repeated {repeats} times"
        else:
            extras = ", ".join(f"{k}={scheme[k]}" for k in sorted(scheme) if k not in ("name", "seed", "design"))
            text = name.replace("_", " ") + (f" ({extras})" if extras else "")
        text += f", {n_splits} split" + ("" if n_splits == 1 else "s")
        if seed is not None:
            text += f", seed {seed}"
        return text


_CV_SCHEMES = {
    "repeated_stratified_kfold": ("stratified CV", True),
    "repeated_kfold": ("CV", True),
    "stratified_kfold": ("stratified CV", False),
    "kfold": ("CV", False),
}


class CV(Design):
    """``design=cv``: the splits of the ``cv`` group (k-fold, 5x2, holdout): overlapping training sets."""

    name = "cv"

    def family_errors(self, dataset: str, family: str, task: str, what: str = "design") -> list[str]:
        return [
            f"{what}: cv on dataset {dataset!r}, a {family} problem ({task}), which has no examples to split "
            f"into folds; use design=seeds (or design.replicates=seeds for a sweep)"
        ]


class Seeds(Design):
    """``design=seeds``: ``n_seeds`` runs differing only in the learner's seed, on one held-out part (or a new
    one per replicate with ``resample_split: true``); an experiment family's units over seeds."""

    name = "seeds"
    replicate_kind = "seed"
    log_label = "seeds"

    def replicates_per_point(self, params: Mapping) -> int:
        return self.n_seeds

    def half_sampled(self) -> bool:
        return bool(self.spec.get("resample_split"))

    def question(self, *, one_problem: bool, variance: bool, resampled: bool) -> str:
        if one_problem or variance:
            return super().question(one_problem=one_problem, variance=variance, resampled=resampled)
        return "resampling" if resampled else "split"

    def test(self, cfg: Mapping, *, one_problem: bool, variance: bool, resampled: bool, scheme: str | None) -> str:
        """Independent replicates: ``stats.replicate_test`` (paired by seed); seeds each on a new held-out part
        (their training sets overlap like repeated hold-out splits) without the half-sampling fits: the
        corrected resampled t-test."""
        if variance:
            return super().test(cfg, one_problem=one_problem, variance=variance, resampled=resampled, scheme=scheme)
        if resampled and not one_problem:
            return "corrected_resampled_ttest"
        return cfg["replicate_test"]

    def over(self, n: str = "") -> str:
        return f" over {n}seeds, each on a new held-out part"

    def describe_scheme(self, scheme: dict, n_splits: int) -> str:
        seed = scheme.get("seed")
        if scheme.get("name") == UNIT_SEEDS:
            return (
                f"{n_splits} independent runs of every unit differing only in the seed derived for the replicate "
                "(what a run draws from it, its experience, shuffling or simulated samples, depends on the unit), "
                "paired by replicate" + (f", problem seed {seed}" if seed is not None else "")
            )
        return (
            f"{n_splits} independent replicates differing in the learners' seeds, scored on a held-out part of "
            f"the training data, paired by seed" + (f", split seed {seed}" if seed is not None else "")
        )


class Sweep(Design):
    """``design=sweep``: the ``cv`` or ``seeds`` replicates (``design.replicates``) at every point of
    ``design.axis``; replicate ``repeat`` r uses the same held-out examples at every point."""

    name = "sweep"
    has_points = True

    @property
    def inner(self) -> Design:
        return DESIGNS[self.spec.get("replicates") or "cv"](self.spec)

    @property
    def replicate_kind(self) -> str:  # type: ignore[override]
        return self.inner.replicate_kind

    @property
    def record_kind(self) -> str:
        return SWEEP_KIND

    @property
    def points(self) -> list:
        return list(self.spec.get("values") or [])

    def tested_kind(self, recorded_kind: str) -> str:
        return self.inner.replicate_kind

    def replicates_per_point(self, params: Mapping) -> int:
        return self.inner.replicates_per_point(params)

    def family_errors(self, dataset: str, family: str, task: str, what: str = "design") -> list[str]:
        errors = self.inner.family_errors(dataset, family, task, what="design.replicates")
        if not errors and self.spec.get("axis") in SWEEP_DATA_AXES:
            errors.append(
                f"design.axis: {self.spec['axis']} needs a table; dataset {dataset!r} is a {family} problem: sweep "
                "over <model key>.<hyperparameter> instead"
            )
        return errors

    def over(self, n: str = "") -> str:
        return self.inner.over(n)

    def half_sampled(self) -> bool:
        return self.inner.half_sampled()

    def question(self, *, one_problem: bool, variance: bool, resampled: bool) -> str:
        return self.inner.question(one_problem=one_problem, variance=variance, resampled=resampled)

    def test(self, cfg: Mapping, *, one_problem: bool, variance: bool, resampled: bool, scheme: str | None) -> str:
        return self.inner.test(cfg, one_problem=one_problem, variance=variance, resampled=resampled, scheme=scheme)

    def check(self, params: Mapping, errors: list[str], check_hyperparameter=None) -> None:
        axis, values = self.spec.get("axis"), self.spec.get("values")
        if not axis:
            errors.append("design.axis: a sweep needs an axis: n_train, n_features or <model key>.<hyperparameter>")
            return
        if not values or len(values) < 2:
            errors.append(f"design.values: a sweep needs at least 2 points, got {values!r}")
            return
        if len(set(map(repr, values))) != len(values):
            errors.append(f"design.values: the points must differ, got {values!r}")
        if axis in SWEEP_DATA_AXES:
            for i, v in enumerate(values):
                if (
                    isinstance(v, bool)
                    or not isinstance(v, numbers.Real)
                    or v <= 0
                    or (axis == "n_features" and not isinstance(v, numbers.Integral))
                    or (isinstance(v, float) and v > 1)
                ):
                    errors.append(
                        f"design.values[{i}]: {axis} points are positive "
                        + ("integers" if axis == "n_features" else "counts or fractions in (0, 1]")
                        + f", got {v!r}"
                    )
            return
        key, _, hp = axis.partition(".")
        if key not in params["models"] or not hp:
            errors.append(
                f"design.axis: {axis!r} is not n_train, n_features or <model key>.<hyperparameter> "
                f"with a configured model key ({', '.join(params['models'])})"
            )
            return
        if check_hyperparameter is not None:
            check_hyperparameter(params, key, hp, values, errors)

    def describe_scheme(self, scheme: dict, n_splits: int) -> str:
        values = scheme.get("values") or []
        inner_scheme = {k: v for k, v in scheme.items() if k not in ("axis", "values")}
        inner = self.inner.describe_scheme(inner_scheme, n_splits // max(len(values or [1]), 1))
        return (
            f"a sweep over {scheme.get('axis')} at {len(values)} points "
            f"({', '.join(map(str, values))}), {inner} at each point: {n_splits} replicates"
        )


#: the designs by name: the one registry of ``design.name`` (the config schema reads it)
DESIGNS: dict[str, type[Design]] = {d.name: d for d in (CV, Seeds, Sweep)}
#: ``Replicate.kind`` of a sweep's records (the replicates at every point)
SWEEP_KIND = "sweep"
#: the scheme name of an experiment family's seed replicates
UNIT_SEEDS = "unit_seeds"
SWEEP_DATA_AXES = ("n_train", "n_features")


#: the design whose replicates are of each tested kind (``Replicate.kind`` at one point, a table's replicates)
_BY_REPLICATE_KIND: dict[str, type[Design]] = {d.replicate_kind: d for d in (CV, Seeds)}


def _of_replicate_kind(kind: str | None) -> type[Design]:
    """The design of replicates of ``kind`` (``"split"``, ``"seed"``); anything else (None, a record's ``"sweep"``
    or ``"mixed"`` replicates) is taken as splits: what the tests, the logs and the records ask of replicates
    whose design is not at hand (a table brought to ``replearn compare``)."""
    return _BY_REPLICATE_KIND[kind] if kind in _BY_REPLICATE_KIND else CV


def independent_replicates(kind: str | None) -> bool:
    """Whether replicates of ``kind`` are independent runs (seeds) rather than splits of the data."""
    return _of_replicate_kind(kind)().independent


def log_label(kind: str | None) -> str:
    """What a stage log says comparisons on replicates of ``kind`` ran over: ``"seeds"``, else ``"CV"``."""
    return _of_replicate_kind(kind).log_label


def repeat_groups(splits, kind: str | None):
    """The repeat of each replicate (the folds of one repeat share it; a replicate without one is its own
    repeat), or None for independent replicates (seeds, or one hold-out per replicate)."""
    import numpy as np

    if independent_replicates(kind):
        return None
    return np.array([s.repeat if s.repeat is not None else i for i, s in enumerate(splits)])


# -- the questions a verdict answers, and their wording --------------------------------------------------
@dataclass(frozen=True)
class Question:
    """What a per-dataset verdict answers (:meth:`Design.question` names it): where its means come from and what
    it claims, the one wording the report's summary and sections share."""

    name: str
    #: ``over(design, n)``: where the means come from, e.g. ``" over 10 cross-validation splits"``
    over: Callable[[Design, str], str]
    #: what a verdict claims
    claim: str


QUESTIONS: dict[str, Question] = {
    q.name: q
    for q in (
        Question("problem", lambda design, n: f" over {n}seeds", "a claim about this problem, over seeds"),
        Question(
            "split",
            lambda design, n: f" over {n}seeds on one fixed held-out part",
            "a claim about this held-out part only (conditional on the split: another split or dataset may "
            "differ; design.resample_split=true asks about datasets)",
        ),
        Question(
            "population",
            lambda design, n: design.over(n),
            "a claim about datasets of this size from the same distribution, with the half-sampling variance",
        ),
        Question(
            "resampling",
            lambda design, n: design.over(n),
            "the corrected resampled t-test's heuristic stands in for the data-sampling variance (liberal for "
            "unstable learners such as 1-NN or deep trees; cv.half_sampling estimates it)",
        ),
    )
}


def question(name: str | None, *, one_problem: bool = False) -> Question:
    """The :class:`Question` named ``name``; a record's replicates all on one problem (an experiment family's)
    answer ``"problem"`` whatever it names, and a record from before the question was written (None) the
    resampling splits' question."""
    if one_problem:
        return QUESTIONS["problem"]
    if name is None:
        return QUESTIONS["resampling"]
    if name not in QUESTIONS:
        raise ValueError(f"unknown question {name!r}; expected one of {sorted(QUESTIONS)}")
    return QUESTIONS[name]


def of_params(params: Mapping) -> Design:
    """The design of a configuration (``design`` group; none: cv)."""
    spec = params.get("design") or {"name": "cv"}
    return DESIGNS[spec.get("name") or "cv"](spec)


def of_scheme(scheme=None, *, design: str | None = None, replicates: str | None = None) -> Design:
    """The design that wrote a record, from its :class:`~.records.Scheme` (or the scheme as a mapping); without
    one, from the design's name and the records' replicate kind (``"seed"``: seed replicates)."""
    if scheme is not None and not isinstance(scheme, Mapping):
        scheme = {"name": scheme.name, "design": scheme.design, "axis": scheme.axis, "values": scheme.values}
    scheme = dict(scheme or {})
    name = scheme.get("design") or design or "cv"
    seeds = scheme.get("name") in (Seeds.name, UNIT_SEEDS) if scheme.get("name") else replicates == "seed"
    spec = {**scheme, "name": name, "replicates": Seeds.name if seeds else CV.name}
    return DESIGNS[name](spec) if name != CV.name or not seeds else Seeds(spec)


def of_record(cv) -> Design:
    """The design of an :class:`~.records.EvaluationResult`."""
    return of_scheme(cv.scheme)


def describe_scheme(scheme: Mapping | None, n_splits: int) -> str:
    """E.g. ``"5-fold stratified CV repeated 2 times, 10 splits, seed 0"``: how a record's replicates were made."""
    scheme = {k: v for k, v in dict(scheme or {}).items() if v is not None}
    design = of_scheme(scheme)
    scheme.pop("design", None)
    return design.describe_scheme(scheme, n_splits)


def inner_replicates(design: Mapping) -> str:
    """The replicates of a design: its name ("cv", "seeds"), or for a sweep those at every point."""
    return of_params({"design": design or None}).inner.name


def resolve_pairwise_test(cfg: Mapping, scheme_name: str | None) -> str:
    """The per-dataset CV test without half-sampling fits: "auto" is the 5x2cv t-test for the 5x2 scheme, else
    the corrected t-test."""
    test = cfg["pairwise_test"]
    if test == "auto":
        return "cv52_ttest" if scheme_name == "5x2" else "corrected_resampled_ttest"
    if test == "half_sampling_ttest":
        raise ValueError(
            "stats.pairwise_test half_sampling_ttest needs the half-sampling fits (cv.half_sampling.subsamples > 0 "
            "and a design that resamples the data: design=cv, or design=seeds with resample_split: true)"
        )
    if test.startswith("cv52") and scheme_name != "5x2":
        raise ValueError(f"stats.pairwise_test {test} needs cv.scheme 5x2, got {scheme_name!r}")
    return test
