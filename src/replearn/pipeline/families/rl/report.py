"""What the report adds for the ``rl`` family (:mod:`replearn.pipeline.family_views`): the exact V* of the 4 x 3
grid world beside the values AIMA publishes (Fig. 17.3), under the problem's description.

Read through :class:`RlProblem`, the view of ``describe(problem)`` (``problems.py``: ``v_star_cells`` for the 4 x 3
world, none for another environment). No matplotlib here: the report's sections import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...report.document import _DASH, _Cell, _Fmt, _Paragraph, _Table
from ...views import Nested, View

#: the published rounding of AIMA's V* values (Fig. 17.3): a computed value within it reproduces the figure
V_STAR_TOLERANCE = 5e-4


@dataclass(frozen=True)
class VStarCell(View):
    """One cell of the 4 x 3 world: its AIMA (x, y) name, its state index, the computed V* and the published value
    with its source (None: the world's settings are not the published ones)."""

    cell: Any = None
    state: Any = None
    v_star: float | None = None
    published: float | None = None
    source: str | None = None


@dataclass(frozen=True)
class RlProblem(View):
    """What the report reads of an environment's description beyond the generic facts: the V* cells."""

    v_star_cells: tuple[VStarCell, ...] = ()
    _NESTED = {"v_star_cells": Nested(VStarCell, "many")}


PROBLEM = RlProblem


def problem_tables(problem, f: _Fmt) -> list:
    """The exact V* of a grid world's cells beside the values the literature publishes (``v_star_cells`` of the 4 x 3
    world's description; none for another environment). ``problem``: the description, or its :class:`RlProblem`."""
    cells = PROBLEM.from_dict(problem).v_star_cells
    if not cells:
        return []
    rows = tuple(
        (
            _Cell(str(c.cell)),
            _Cell(str(c.state)),
            _Cell(f.num(c.v_star)),
            _Cell(f.num(c.published)),
            _Cell(
                _DASH
                if c.published is None
                else (
                    "yes"
                    if c.v_star is not None and abs(float(c.v_star) - float(c.published)) <= V_STAR_TOLERANCE
                    else "no"
                )
            ),
        )
        for c in cells
    )
    return [
        _Paragraph(
            "The exact V* of this world (policy iteration with exact evaluation) beside the values published in "
            f"{cells[0].source or 'the literature'} (reproduced: within 0.0005, the published rounding)."
        ),
        _Table(("Cell (AIMA x,y)", "State", "V* (computed)", "Published", "Reproduced"), rows),
    ]
