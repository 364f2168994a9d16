"""Typed views of the comparison records over datasets, for the code that reads them (issue 38: the report consumes
objects, not ``.get(`` on stage records).

``results/significance.json`` (and a ``replearn compare`` result) carries two sections written by
:mod:`replearn.pipeline.compare`: ``across_datasets`` (:func:`~replearn.pipeline.compare.across_datasets`: average
ranks, Friedman's test, the Nemenyi critical difference, the post-hoc procedure) and ``across_pairs``
(:func:`~replearn.pipeline.compare.across_pairs`: a row per pair of models over the datasets). Their shape varies
with what ran -- a section that did not run has only ``ran`` and ``reason`` -- so the written JSON stays as it is
and these views are built from it at read time: each field is declared here once with the value a reader sees when
the section does not carry it, and :meth:`from_dict` is the one place that looks a key up. A reader asks
``across.posthoc.ran``, never ``(across.get("posthoc") or {}).get("ran")``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Self

__all__ = [
    "AcrossDatasets",
    "AcrossPairs",
    "BayesianSignedRank",
    "Friedman",
    "Nemenyi",
    "PairRow",
    "Posthoc",
    "PosthocComparison",
]


def _scalars(cls, data: Any, nested: Mapping[str, Callable[[Any], Any]]) -> dict[str, Any]:
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


class _View:
    """A view of one record section: :meth:`from_dict` reads it; ``_NESTED`` converts the fields that are views."""

    _NESTED: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}

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
    _NESTED = {"comparisons": lambda rows: tuple(PosthocComparison.from_dict(r) for r in rows)}
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
    _NESTED = {"friedman": Friedman.from_dict, "nemenyi": Nemenyi.from_dict, "posthoc": Posthoc.from_dict}

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
    _NESTED = {"bayesian_signed_rank": BayesianSignedRank.from_dict}


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
    _NESTED = {"rows": lambda rows: tuple(PairRow.from_dict(r) for r in rows)}
