"""What a reproduction reports: published number, measured number, tolerance, verdict.

Every experiment in :mod:`replearn.reproductions` reruns a worked example or figure of a course
text with replearn's own algorithms and returns an :class:`ExperimentResult`. Its ``records`` are
:class:`Reproduction` rows: the number the text (or the course data's published solution) prints
beside the number measured now. The measured value always comes from running an algorithm;
``published`` always comes from the text, a published solution, or an invariant the text states.

Tolerance convention
--------------------
``tolerance`` is always **absolute**, in the units of the quantity, and the verdict is::

    reproduced = |measured - published| <= tolerance        (NaN never reproduces)

A relative tolerance is converted to an absolute one where the record is made (e.g. 1% of
``|published|``), and the record's ``source`` says so. For a number printed to k decimals the
default is half a unit of the last printed digit (the printed value is a rounding). One-sided
invariants ("the distortion never increases", "at most (R/gamma)^2 mistakes") are written as an
exact quantity whose published value is 0, e.g. ``max(0, largest increase)``, so the formula
above still applies.

Every record names the worked example it reproduces (``example``: an entry of
:mod:`.catalogue`, which gives the text, section and lines) and has an ``id`` unique across the
presets (``<preset>.<nn>``, in the order the preset records them).

Provenance
----------
``provenance`` says where the published value comes from and how the measured one was made
(:data:`PROVENANCES`): ``"printed"`` (the text prints it), ``"derived"`` (it follows from the text's
formula or inputs but is not printed: ``derived_from`` says how), ``"erratum"`` (the text prints a
wrong number, held in ``erratum``; ``published`` is the corrected one and the tolerance excludes the
printed one: :attr:`Reproduction.rejects_erratum`, checked for every record by the tests),
``"invariant"`` (a property the text states, recorded as an exact quantity) and
``"arithmetic"`` -- an *arithmetic check of the text*: the measured value is computed in the preset,
not by replearn's algorithms, and the page counts these records apart. Every other record names in
``measured_by`` the public replearn API its measured value comes from (``"replearn.linalg.pairwise_distances"``,
or ``"replearn.models:knn"`` for a registry model); a test resolves each name.

``EXPERIMENTS`` maps a preset name to its ``run(data_dir, *, seed, quick=False)`` function; the
modules register themselves with :func:`register` when :mod:`replearn.reproductions` is imported.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["EXPERIMENTS", "PROVENANCES", "ExperimentResult", "Reproduction", "register"]

#: provenance -> what it means (module docstring)
PROVENANCES: dict[str, str] = {
    "printed": "the text prints the published value",
    "derived": "derived from the text's formula or inputs, not printed (the record says how)",
    "erratum": "the corrected value of a number the text prints wrongly (the printed one is given and excluded)",
    "invariant": "a property the text states, recorded as an exact quantity",
    "arithmetic": "arithmetic check of the text: computed in the preset, not by replearn's algorithms",
}


@dataclass(frozen=True)
class Reproduction:
    """One published-vs-measured comparison.

    ``reproduced`` is computed from the other fields (``|measured - published| <= tolerance``,
    absolute tolerance) and cannot be passed in, so a record cannot claim a verdict its numbers
    do not support.
    """

    preset: str
    source: str
    quantity: str
    published: float
    measured: float
    tolerance: float
    example: str = field(default="", kw_only=True)
    id: str = field(default="", kw_only=True)
    provenance: str = field(default="printed", kw_only=True)
    measured_by: tuple[str, ...] = field(default=(), kw_only=True)
    erratum: float | None = field(default=None, kw_only=True)
    derived_from: str = field(default="", kw_only=True)
    reproduced: bool = field(init=False)

    def __post_init__(self) -> None:
        for name in ("published", "measured", "tolerance"):
            object.__setattr__(self, name, float(getattr(self, name)))
        if not self.tolerance >= 0.0:
            raise ValueError(f"{self.quantity}: tolerance must be >= 0, got {self.tolerance!r}")
        if not math.isfinite(self.published):
            raise ValueError(f"{self.quantity}: the published value must be finite, got {self.published!r}")
        if self.provenance not in PROVENANCES:
            raise ValueError(
                f"{self.quantity}: provenance must be one of {sorted(PROVENANCES)}, got {self.provenance!r}"
            )
        by = (self.measured_by,) if isinstance(self.measured_by, str) else tuple(self.measured_by)
        object.__setattr__(self, "measured_by", by)
        if self.provenance == "arithmetic" and by:
            raise ValueError(f"{self.quantity}: an arithmetic check is not measured by replearn's API, yet names {by}")
        if self.provenance != "arithmetic" and not by:
            raise ValueError(
                f"{self.quantity}: name the public replearn API that measures it (measured_by), or mark the record "
                "provenance='arithmetic' (an arithmetic check of the text)"
            )
        if self.provenance == "derived" and not self.derived_from:
            raise ValueError(f"{self.quantity}: a derived published value must say what it is derived from")
        if self.provenance == "erratum" and self.erratum is None:
            raise ValueError(f"{self.quantity}: an erratum record gives the printed (wrong) value: erratum=...")
        if self.erratum is not None and self.provenance not in ("erratum", "arithmetic"):
            raise ValueError(f"{self.quantity}: only an erratum record (or an arithmetic check of one) has an erratum")
        if self.erratum is not None:
            object.__setattr__(self, "erratum", float(self.erratum))
        ok = math.isfinite(self.measured) and abs(self.measured - self.published) <= self.tolerance
        object.__setattr__(self, "reproduced", bool(ok))

    @property
    def rejects_erratum(self) -> bool | None:
        """Whether the printed (wrong) value would fail this record (None when the text prints no erratum)."""
        if self.erratum is None:
            return None
        return not abs(self.erratum - self.published) <= self.tolerance

    def to_dict(self) -> dict:
        """A JSON-ready dict of all fields (a non-finite measured value becomes None), with the text and
        section of the record's catalogue example (empty when the example is not in the catalogue)."""
        from .catalogue import lookup

        measured = self.measured if math.isfinite(self.measured) else None
        entry = lookup(self.example)
        return {
            "id": self.id,
            "example": self.example,
            "text": entry.text_name if entry else "",
            "section": entry.section if entry else "",
            "preset": self.preset,
            "source": self.source,
            "quantity": self.quantity,
            "published": self.published,
            "measured": measured,
            "tolerance": self.tolerance,
            "reproduced": self.reproduced,
            "provenance": self.provenance,
            "measured_by": list(self.measured_by),
            "erratum": self.erratum,
            "derived_from": self.derived_from,
        }


@dataclass
class ExperimentResult:
    """What one experiment returns.

    records : the published-vs-measured rows.
    curves : named series for plots, ``{name: {"x": [...], series: [...], ...}}`` (plain lists).
    tables : small named tables, ``{name: {column or key: value or list}}``.
    notes : text naming the text and section the experiment reproduces, and its settings.
    """

    preset: str
    records: list[Reproduction] = field(default_factory=list)
    curves: dict[str, dict] = field(default_factory=dict)
    tables: dict[str, dict] = field(default_factory=dict)
    notes: str = ""

    @property
    def all_reproduced(self) -> bool:
        """Whether every record reproduced (False when there are no records)."""
        return bool(self.records) and all(r.reproduced for r in self.records)

    def to_dict(self) -> dict:
        """A JSON-ready dict (curves and tables are already plain lists and numbers)."""
        return {
            "preset": self.preset,
            "records": [r.to_dict() for r in self.records],
            "curves": self.curves,
            "tables": self.tables,
            "notes": self.notes,
        }


RunFunction = Callable[..., ExperimentResult]

# preset name -> run(data_dir: Path, *, seed: int, quick: bool = False) -> ExperimentResult
EXPERIMENTS: dict[str, RunFunction] = {}


def register(name: str) -> Callable[[RunFunction], RunFunction]:
    """Decorator: add ``run`` to :data:`EXPERIMENTS` under ``name`` (names must be unique)."""

    def decorate(run: RunFunction) -> RunFunction:
        if name in EXPERIMENTS:
            raise RuntimeError(f"reproduction preset {name!r} is registered twice")
        EXPERIMENTS[name] = run
        return run

    return decorate


class Recorder:
    """Collects the records of one preset (saves repeating the preset name in every row).

    ``example``, ``provenance`` and ``measured_by`` are the defaults of the records added without them; every
    record gets the id ``<preset>.<nn>`` (1-based, two digits).
    """

    def __init__(
        self, preset: str, example: str = "", *, provenance: str = "printed", measured_by: tuple[str, ...] | str = ()
    ) -> None:
        self.preset = preset
        self.example = example
        self.provenance = provenance
        self.measured_by = measured_by
        self.records: list[Reproduction] = []

    def add(
        self,
        source: str,
        quantity: str,
        published: float,
        measured: float,
        tolerance: float,
        *,
        example: str | None = None,
        provenance: str | None = None,
        measured_by: tuple[str, ...] | str | None = None,
        erratum: float | None = None,
        derived_from: str = "",
    ) -> Reproduction:
        rec = Reproduction(
            self.preset,
            source,
            quantity,
            published,
            measured,
            tolerance,
            example=self.example if example is None else example,
            id=f"{self.preset}.{len(self.records) + 1:02d}",
            provenance=self.provenance if provenance is None else provenance,
            measured_by=self.measured_by if measured_by is None else measured_by,
            erratum=erratum,
            derived_from=derived_from,
        )
        self.records.append(rec)
        return rec

    def result(self, curves: dict, tables: dict, notes: str) -> ExperimentResult:
        return ExperimentResult(self.preset, list(self.records), curves, tables, notes)


def half_unit(printed: str) -> float:
    """Half a unit in the last digit of a printed number: ``half_unit("0.1345") == 5e-5``."""
    digits = printed.split(".")[1] if "." in printed else ""
    return 0.5 * 10.0 ** (-len(digits))


def as_path(data_dir) -> Path:
    return Path(data_dir)
