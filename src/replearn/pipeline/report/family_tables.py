"""Tables of the experiment families that the generic family section cannot write (no matplotlib here: the sections
import this module).

:data:`PROBLEM_TABLES` maps a family's name to a function of its problem description (``family.problem`` of the
crossval record) and the report's number format, returning the document blocks to add under the problem's
description; a family absent here has only the generic section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .document import _DASH, _Cell, _Fmt, _Paragraph, _Table

#: the published rounding of AIMA's V* values (Fig. 17.3): a computed value within it reproduces the figure
V_STAR_TOLERANCE = 5e-4


def v_star_blocks(problem: Mapping, f: _Fmt) -> list:
    """The exact V* of a grid world's cells beside the values the literature publishes (``v_star_cells`` of the rl
    family's description of the 4 x 3 world; none for another environment)."""
    cells = problem.get("v_star_cells") or []
    if not cells:
        return []
    rows = tuple(
        (
            _Cell(str(c.get("cell"))),
            _Cell(str(c.get("state"))),
            _Cell(f.num(c.get("v_star"))),
            _Cell(f.num(c.get("published"))),
            _Cell(
                _DASH
                if c.get("published") is None
                else ("yes" if abs(float(c["v_star"]) - float(c["published"])) <= V_STAR_TOLERANCE else "no")
            ),
        )
        for c in cells
    )
    return [
        _Paragraph(
            "The exact V* of this world (policy iteration with exact evaluation) beside the values published in "
            f"{cells[0].get('source') or 'the literature'} (reproduced: within 0.0005, the published rounding)."
        ),
        _Table(("Cell (AIMA x,y)", "State", "V* (computed)", "Published", "Reproduced"), rows),
    ]


#: family name -> the tables under its problem's description
PROBLEM_TABLES: dict[str, Callable[[Mapping, _Fmt], list]] = {"rl": v_star_blocks}
