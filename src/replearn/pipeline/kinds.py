"""Problem kinds: what the generic stages, the tracking and the report ask of a problem instead of asking
whether it belongs to an experiment family.

An experiment is problems x units x replicates. A problem is either a **table** (a dataset of examples: the
supervised pipeline, with a sealed test part, feature maps and fitted estimators) or a problem of an **experiment
family** (an environment, a sequence generator, a simulation: its units run on seeds). Everything the two treat
differently is a field of a :class:`ProblemKind`, read where it is needed, so that no module outside
this module, ``pipeline/families/`` and ``pipeline/units/`` branches on a family:

* ``runner`` -- which runner of :mod:`replearn.pipeline.experiment` (and which dataset check of
  :mod:`replearn.pipeline.config`, which preparer of :mod:`replearn.pipeline.data`) serves the problem:
  ``"estimators"`` (models fitted on a table) or ``"units"`` (:class:`~replearn.pipeline.families.Unit` runs on
  seeds). The callers dispatch through their own table of runners, keyed by this name;
* the words the report and the stage logs use (the replicates, the headings, the final part);
* the capabilities the report and the tracking draw on: a sealed test part (McNemar's test, the test-set metric
  test, the training column, the train/test plot), fitted estimators (model views, MLflow models and dataset
  inputs, fits recorded as failed under ``cv.on_error``), a problem description with learning curves over seeds;
* :attr:`ProblemKind.question`: the question a kind's verdicts answer whatever the design says (a family's
  replicates are seeds on one problem: "problem").

The lookups (:func:`of_source`, :func:`of_meta`, :func:`of_record`, :func:`of_train`) read what each stage has at
hand -- a dataset config's ``source``, a ``meta.json``, a crossval record (its ``family`` field) or a train record --
and are the one place that tells a table from a family. This module imports no family module and no unit: the
stages that only ask a kind (prepare, featurize, significance, report) do not depend on the models a unit fits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

#: family name (the ``source:`` of a dataset config) -> its module under ``replearn.pipeline.families`` (problems)
#: and ``replearn.pipeline.units`` (units): the registry of experiment families. Those modules are imported
#: lazily (:func:`replearn.pipeline.families.load`): a stage that only asks a problem's kind never imports them.
FAMILY_MODULES: dict[str, str] = {
    "rl": "rl",
    "structured": "structured",
    "theory": "theory",
    "generative": "generative",
    "sequence": "sequence",
}


def is_family_source(source) -> bool:
    """Whether a dataset's ``source`` names an experiment family (rather than shipped/file/synthetic data)."""
    return isinstance(source, str) and source in FAMILY_MODULES


@dataclasses.dataclass(frozen=True)
class ProblemKind:
    """How one kind of problem is run, logged, tracked and reported (see the module docstring)."""

    #: ``"table"`` or the family's name
    name: str
    #: the runner that serves it: ``"estimators"`` or ``"units"``
    runner: str
    #: what the replicates are, in the plural (``"splits"``, ``"seeds"``)
    replicates: str
    #: the heading and the first word of the replicates' table (``"Cross-validation"``, ``"Runs over seeds"``)
    replicates_heading: str
    replicates_title: str
    #: the heading of the once-only evaluation (``"Sealed test set"``, ``"Final run"``)
    final_heading: str
    pairwise_heading: str
    #: the problem has a sealed test part (test-set predictions, a training part of known size)
    sealed_test: bool
    #: each unit is an estimator fitted on a table and saved under ``models/``
    fits_estimators: bool
    #: the report describes the problem and draws its units' learning curves over seeds
    problem_view: bool
    #: a unit may give no value of some metric (its column is left out when no unit gives it)
    sparse_metrics: bool
    #: the question every verdict on this kind answers, whatever the design (None: the design's own)
    question: str | None
    #: the train stage's note on a final fit that did not converge, the crossval stage's on ``n`` such fits
    not_converged_fit: str
    not_converged_runs: str

    @property
    def one_problem(self) -> bool:
        """Whether every verdict on this kind is about its one problem (an experiment family's seeds), whatever
        the design."""
        return self.question == "problem"

    def runs_not_converged(self, n: int) -> str:
        return f" ({n} {self.not_converged_runs})"


TABLE = ProblemKind(
    name="table",
    runner="estimators",
    replicates="splits",
    replicates_heading="Cross-validation",
    replicates_title="Cross-validation",
    final_heading="Sealed test set",
    pairwise_heading="Pairwise significance (cross-validation)",
    sealed_test=True,
    fits_estimators=True,
    problem_view=False,
    sparse_metrics=False,
    question=None,
    not_converged_fit=" (hit max_iter before converging)",
    not_converged_runs="fits hit max_iter",
)


def family_kind(name: str) -> ProblemKind:
    """The kind of the problems of family ``name`` (a key of :data:`~replearn.pipeline.families.FAMILY_MODULES`)."""
    if name not in FAMILY_MODULES:
        from ..exceptions import ConfigError

        raise ConfigError(f"unknown experiment family {name!r}; valid families: {', '.join(sorted(FAMILY_MODULES))}")
    return dataclasses.replace(
        TABLE,
        name=name,
        runner="units",
        replicates="seeds",
        replicates_heading="Runs over seeds",
        replicates_title="Replicates",
        final_heading="Final run",
        pairwise_heading="Pairwise significance (over seeds)",
        sealed_test=False,
        fits_estimators=False,
        problem_view=True,
        sparse_metrics=True,
        question="problem",
        not_converged_fit=" (did not converge)",
        not_converged_runs="runs did not converge",
    )


def of_source(source: Any) -> ProblemKind:
    """The kind of a dataset config's ``source`` (a family's name; anything else is a table's source)."""
    return family_kind(source) if is_family_source(source) else TABLE


def of_spec(spec: Any) -> ProblemKind:
    """The kind of a dataset config entry (a mapping with ``source``; anything else is checked as a table's)."""
    return of_source(spec.get("source") if isinstance(spec, Mapping) else None)


def of_meta(meta: Mapping) -> ProblemKind:
    """The kind of a prepared dataset, from its ``meta.json`` (a family's problem records its ``family``)."""
    return family_kind(meta["family"]) if meta.get("family") else TABLE


def of_record(record: Mapping) -> ProblemKind:
    """The kind of a crossval record (as read by the report: ``family`` is ``{"name": ...}`` or None)."""
    fam = record.get("family") or {}
    return family_kind(fam["name"]) if fam.get("name") else TABLE


def of_family_field(family: Any) -> ProblemKind:
    """The kind named by a record's ``family`` field: a family's name or description (``{"name": ...}``), or
    None for a table."""
    if isinstance(family, Mapping):
        family = family.get("name")
    return family_kind(family) if family else TABLE
