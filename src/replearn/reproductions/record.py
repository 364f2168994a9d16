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

``EXPERIMENTS`` maps a preset name to its ``run(data_dir, *, seed, quick=False)`` function; the
modules register themselves with :func:`register` when :mod:`replearn.reproductions` is imported.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["EXPERIMENTS", "ExperimentResult", "Reproduction", "register"]


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
    reproduced: bool = field(init=False)

    def __post_init__(self) -> None:
        for name in ("published", "measured", "tolerance"):
            object.__setattr__(self, name, float(getattr(self, name)))
        if not self.tolerance >= 0.0:
            raise ValueError(f"{self.quantity}: tolerance must be >= 0, got {self.tolerance!r}")
        if not math.isfinite(self.published):
            raise ValueError(f"{self.quantity}: the published value must be finite, got {self.published!r}")
        ok = math.isfinite(self.measured) and abs(self.measured - self.published) <= self.tolerance
        object.__setattr__(self, "reproduced", bool(ok))

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

    ``example`` is the catalogue entry of the records added without one; every record gets the id
    ``<preset>.<nn>`` (1-based, two digits).
    """

    def __init__(self, preset: str, example: str = "") -> None:
        self.preset = preset
        self.example = example
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
