"""Experiment families beyond supervised tables: environments, sequences, generative data, theory simulations.

The supervised pipeline compares *models* on *tables*. A family generalizes both ends so that the same stages,
designs, records, statistics and report serve reinforcement learning (agents on environments), structured
prediction (sequence labellers on generated tagging data), generative and sequence models (densities and
language models on generated or shipped data) and learning-theory simulations:

* a **dataset** config with ``source: <family name>`` names a *problem* of that family (an environment, a
  generator of labelled sequences, a corpus, a simulation) and its parameters, validated by
  :attr:`Family.dataset_keys`;
* a **models** config whose ``name`` is one of the family's units (``UNITS`` of its module in
  :mod:`replearn.pipeline.units`: a planner, an agent, a learner) is a compared unit on the family's datasets
  (the supervised models registry is untouched: units are not estimators);
* every unit run is a deterministic function of ``(hyperparameters, problem, seed)`` returning an
  :class:`Outcome`: the scores of the family's metrics (the mean discounted return over evaluation episodes,
  the Hamming loss on held-out sequences, the held-out negative log-likelihood, ...), a learning curve and
  convergence;
* the ``seeds`` design runs each unit ``n_seeds`` times on every dataset, with seeds derived from names
  (:func:`~replearn.pipeline.seeding.derive_seed`), so replicates pair by seed across units and the
  significance stage applies its seed-paired tests unchanged; ``train`` runs each unit once with the final seed
  and reports its scores as the "test" numbers.

A family whose module sets ``COMMON_EVALUATION = True`` (rl) has its units called as ``run(hp, problem, seed,
eval_seed=...)``: ``eval_seed`` is shared by every unit of a replicate, so their evaluation episodes are the same
(common random numbers) and two units that reach the same policy get the same return.

Wall-clock time is never a score (outputs must be byte-identical on rerun): an :class:`Outcome` may carry
``timing`` seconds, which go to MLflow only. Deterministic cost measures (iterations, Bellman backups) are scores.

One folder per family, ``families/<name>/``: ``problems.py`` describes and builds the problems (what ``prepare``
runs) and ``units.py`` (found by :mod:`replearn.pipeline.units`) holds ``UNITS`` and their runs (what ``train``
and ``crossval`` run); an optional ``report.py`` (found by :mod:`replearn.pipeline.family_views`) is what the report
shows of this family only, read through views of the payloads it declares; a new family is its folder and one line
of :data:`FAMILY_MODULES`. Building a problem
never imports the models a unit fits, so editing a model or a unit reruns the stages that fit it, never
``prepare`` (:mod:`replearn.pipeline.deps` follows each registry's ``LOADS_BY_NAME``).

Layering: family modules live in the pipeline-services layer and may import the algorithm packages
(``replearn.rl``, ``replearn.structured``, ...); the algorithm packages never import this module.

How the pipeline uses a family (``pipeline.config``, ``data``, ``experiment``, ``records``, ``report``,
``tracking``; docs/architecture.md, "Experiment families"):

* **config**: a dataset entry ``source: <NAME>`` is checked against ``{"source", "models"} + DATASET_KEYS`` (so
  ``DATASET_KEYS`` lists only the family's own keys) and, when the module has it, ``check_spec(spec) ->
  list[str]`` (conditions across keys); a models entry whose ``name`` is a unit is checked against
  ``Unit.defaults`` (the valid hyperparameters; a value must have its default's type) and ``Unit.constraints``
  (the same messages as estimators'). ``design: cv`` is refused for family datasets (use ``design=seeds``);
  ``design=sweep`` over ``<key>.<hyperparameter>`` of a unit works with ``replicates: seeds``.
* **plan**: a unit runs on a dataset of its family when ``Unit.supports(spec)`` is true (``None``: on every
  dataset of the family); supervised models never run on family datasets, nor units on tables.
* **prepare** builds the problem with ``build(spec, derive_seed(seed, NAME, dataset))`` and writes
  ``data/prepared/<d>/meta.json`` (``task`` = ``TASK``, ``family``, ``problem`` = ``describe(problem)``);
  featurize passes family datasets through.
* **runs**: ``run({**Unit.defaults, **params}, problem, seed)``; train once with ``derive_seed(seed, "model",
  dataset, key, "final")``, the seeds design ``n_seeds`` times with ``derive_seed(seed, "model", dataset, key,
  r)`` (replicate r pairs across units; with ``design.resample_split: true`` the problem itself is rebuilt per
  replicate from ``derive_seed(seed, NAME, dataset, r)``, shared by every unit of replicate r).
* optional module-level names: ``SCALE_BY`` (a numeric key of ``describe(problem)``, e.g. ``"n_states"``) and
  ``SCALE_METRICS`` (metrics the report draws against it across the run's datasets).

Changes to the first version of this contract: :attr:`Unit.supports` (added), :func:`~replearn.pipeline.units.units` and
:func:`is_family_source` (added), :func:`~replearn.pipeline.units.family_of_unit` checks the supervised
registry first and only skips a family whose module does not exist yet.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..kinds import FAMILY_MODULES, is_family_source  # noqa: F401  (the registry of families)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one run of a unit on a problem with one seed produced.

    ``scores`` holds every metric of the family (``None`` for a metric this unit cannot give, as for the
    supervised models); ``curve`` is a learning curve (a score or loss per iteration / episode / epoch, labelled
    ``curve_label``) or ``None``; ``extra`` holds small JSON-able numbers a report section draws (for example
    ``{"n_states": 12}``); ``timing`` holds wall-clock seconds for MLflow only.
    """

    scores: Mapping[str, float | None]
    n_iter: int | None = None
    converged: bool = True
    curve: list[float] | None = None
    curve_label: str = ""
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    timing: Mapping[str, float] = dataclasses.field(default_factory=dict)


def model_constraints(model, *names: str, **only_the_unit) -> dict:
    """A unit's constraint table: ``model``'s own ``_constraints`` entries for the hyperparameters the unit passes
    to it under the same names (declared once, by the model's class), plus what only the unit has."""
    return {**{hp: model._constraints[hp] for hp in names}, **only_the_unit}


@dataclasses.dataclass(frozen=True)
class Unit:
    """A compared unit of a family (its registry entry).

    ``constraints`` maps hyperparameters to :mod:`replearn._constraints` objects (declared once, read by the
    config check and by :attr:`run`); ``defaults`` are the hyperparameters a config may leave out; ``run(hp,
    problem, seed)`` returns an :class:`Outcome` and raises a ``replearn.exceptions`` error with a clear message
    on bad input (never prints; randomness only from ``seed``).
    """

    name: str
    summary: str
    run: Callable[[dict, Any, int], Outcome]
    constraints: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    section: str = ""  # the course text and section the unit implements, for the CLI and the report
    #: whether the unit can run on a dataset of its family, from the dataset's config entry (None: always);
    #: plan() leaves a unit out of datasets it cannot run on (LQR on a grid world), like supervised models of
    #: the wrong task
    supports: Callable[[dict], bool] | None = None


class Family(Protocol):
    """The interface a family module provides (module-level names)."""

    NAME: str  # the ``source:`` of its dataset configs
    TASK: str  # the task written to meta.json and the records ("control", "sequence_labelling", ...)
    METRICS: Mapping[str, bool]  # metric name -> greater is better
    PRIMARY: str  # the metric the significance stage compares
    DATASET_KEYS: Mapping[str, Any]  # config schema of a dataset entry (pipeline.config's spec objects)

    def build(self, spec: dict, seed: int) -> Any:
        """The problem a dataset config describes (deterministic in ``spec`` and ``seed``)."""

    def describe(self, problem: Any) -> dict:
        """JSON-able facts about the problem for meta.json and the report (sizes, the environment's name)."""


def check_dataset(fam, spec) -> None:
    """The check of a dataset config of family module ``fam`` that ``build`` makes: the schema of
    ``fam.DATASET_KEYS`` (the config check's own wording), the family as its source, then ``fam.check_spec``'s
    cross-key conditions. One :class:`~replearn.exceptions.ConfigError` lists every problem."""
    from ...exceptions import ConfigError
    from ..schema import ListOf, Optional_, _check

    if not isinstance(spec, dict):
        raise ConfigError(f"a {fam.NAME} dataset must be a mapping, got {type(spec).__name__} {spec!r}")
    errors: list[str] = []
    _check(spec, {"source": str, "models": Optional_(ListOf(str)), **fam.DATASET_KEYS}, "dataset", errors)
    if not errors and spec["source"] != fam.NAME:
        errors.append(f"dataset.source: expected {fam.NAME!r} for a {fam.NAME} problem, got {spec['source']!r}")
    if not errors:
        errors += [f"dataset: {e}" for e in (getattr(fam, "check_spec", None) or (lambda _: []))(spec)]
    if errors:
        raise ConfigError(f"invalid {fam.NAME} dataset:\n  - " + "\n  - ".join(errors))


def unit_params(units: Mapping[str, Unit], name: str, hp: dict | None) -> dict:
    """``hp`` over unit ``name``'s defaults, every value checked against its constraints; the first problem is a
    :class:`~replearn.exceptions.ConfigError` naming the unit (``vae: unknown hyperparameter 'latent'; ...``)."""
    from ..._constraints import check_params
    from ...exceptions import ConfigError

    unit = units[name]
    hp = dict(hp or {})
    unknown = sorted(set(hp) - set(unit.defaults))
    if unknown:
        raise ConfigError(
            f"{name}: unknown hyperparameter {unknown[0]!r}; valid hyperparameters: {', '.join(sorted(unit.defaults))}"
        )
    merged = {**unit.defaults, **hp}
    try:
        check_params(dict(unit.constraints), merged)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name}: {exc}") from None
    return merged


def resolve_unit_params(units: Mapping[str, Unit], name: str, hp: dict | None) -> dict:
    """``hp`` over unit ``name``'s defaults, with every unknown or out-of-range hyperparameter listed in one
    :class:`~replearn.exceptions.ConfigError` (``structured_svm.alpha: -1.0 is out of range; expected ...``)."""
    from ..._constraints import describe, violations
    from ...exceptions import ConfigError

    unit = units[name]
    hp = dict(hp or {})
    errors = [
        f"{name}.{k}: unknown hyperparameter; valid: {', '.join(sorted(unit.defaults)) or '(none)'}"
        for k in hp
        if k not in unit.defaults
    ]
    errors += [
        f"{name}.{k}: {v!r} is out of range; expected {describe(unit.constraints[k])}"
        for k, v, _ in violations(dict(unit.constraints), hp)
    ]
    if errors:
        raise ConfigError("invalid hyperparameters:\n  - " + "\n  - ".join(errors))
    return {**unit.defaults, **hp}


#: what :func:`load` imports by name (:mod:`replearn.pipeline.deps` follows it): each family's problems, never its
#: units (:data:`replearn.pipeline.units.LOADS_BY_NAME`), so ``prepare`` does not depend on the models units fit
LOADS_BY_NAME = ("pipeline/families/*/problems.py",)


def module_name(name: str) -> str:
    """The folder of family ``name`` (:data:`FAMILY_MODULES`: ``families/<module>/``, its problems in
    ``problems.py``, its units in ``units.py``); an unknown name raises ``ConfigError`` naming the families."""
    if name not in FAMILY_MODULES:
        from ...exceptions import ConfigError

        raise ConfigError(f"unknown experiment family {name!r}; valid families: {', '.join(sorted(FAMILY_MODULES))}")
    return FAMILY_MODULES[name]


def load(name: str):
    """The problems module of family ``name`` (``families/<name>/problems.py``; see :data:`FAMILY_MODULES`)."""
    return importlib.import_module(f"{__name__}.{module_name(name)}.problems")
