"""The k x k pairwise view of a comparison across datasets: one matrix instead of a row per pair.

Cell (row A, column B) says what the analysis concluded about A against B over the datasets:

* **better** / **worse** -- the pairwise family of the across-datasets analysis rejects "A and B perform alike"
  after its correction, and A ranks better (worse): the post-hoc procedure on the average ranks once Friedman's
  test rejects (``across_datasets.posthoc``), or -- where no across-datasets test ran (two models, or fewer than
  ``min_datasets`` datasets) -- the Wilcoxon signed-rank (or sign) test of the pair with the correction
  (``across_pairs``);
* **equivalent** -- not significant, and the Bayesian signed-rank test finds the pair practically equivalent
  (posterior probability of the region of practical equivalence >= 1 - alpha; ``across_pairs`` rows);
* **no difference** -- tested, not significant, not shown equivalent (no evidence either way);
* **not compared** -- no test of that pair: Friedman's test did not reject (no pair is compared), or the post-hoc
  procedure compares every model with a control only.

The cell shows the family's adjusted p-value. Models are in order of average rank (best first). The matrix is
computed from ``results/significance.json`` (or a ``replearn compare`` result), never by a test of its own, so it
cannot claim more than the rows below it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ...stats.registry import label
from ..views import AcrossDatasets, AcrossPairs
from .document import _DASH, _Cell, _Fmt, _Paragraph, _Table

__all__ = ["STATES", "matrix_blocks", "pairwise_matrix", "pairwise_matrix_plot"]

STATES = ("better", "worse", "equivalent", "no difference", "not compared", "self")
_COLOURS = {
    "better": "#3b8b4b",
    "worse": "#c44e52",
    "equivalent": "#4c72b0",
    "no difference": "#e6e6e6",
    "not compared": "#ffffff",
    "self": "#8c8c8c",
}
_MARK = {"better": "▲", "worse": "▼", "equivalent": "≈", "no difference": "", "not compared": "", "self": ""}


def pairwise_matrix(
    across: Mapping | AcrossDatasets | None, pairs: Mapping | AcrossPairs | None, alpha: float | None = None
) -> dict | None:
    """The matrix as plain data, or None when there is no pairwise family to show.

    ``{"models": [...], "source": "posthoc" | "across_pairs", "method", "control", "alpha", "reason",
    "cells": [[{"state", "pvalue_adjusted"} ...] ...]}`` -- row i against column j; ``reason`` says why a family
    compared no pair (Friedman did not reject), else None."""
    across_view, pairs_view = AcrossDatasets.from_dict(across), AcrossPairs.from_dict(pairs)
    ranks = {str(k): float(v) for k, v in across_view.average_ranks.items()}
    prows = [r for r in pairs_view.rows if r.pvalue is not None] if pairs_view.ran else []
    if not ranks and pairs_view.ran:
        means: dict[str, list] = {}
        for r in pairs_view.rows:
            means.setdefault(r.model_a, []).append(r.mean_a)
            means.setdefault(r.model_b, []).append(r.mean_b)
        models = sorted(pairs_view.models or means)
    else:
        models = sorted(ranks, key=lambda m: (ranks[m], m))
    if len(models) < 2:
        return None
    nemenyi_alpha = across_view.nemenyi.alpha if across_view.nemenyi is not None else None
    alpha = float(alpha if alpha is not None else nemenyi_alpha if nemenyi_alpha is not None else 0.05)
    pos = {m: i for i, m in enumerate(models)}
    k = len(models)
    cells = [
        [{"state": "self" if i == j else "not compared", "pvalue_adjusted": None} for j in range(k)] for i in range(k)
    ]
    posthoc = across_view.posthoc
    control = posthoc.control
    reason = None
    if across_view.ran:
        source = "posthoc"
        method = posthoc.procedure
        if posthoc.ran:
            for c in posthoc.comparisons:
                a, b = str(c.a), str(c.b)
                if a not in pos or b not in pos:
                    continue
                sig = bool(c.significant)
                a_better = float(c.rank_a) < float(c.rank_b)
                state_a = ("better" if a_better else "worse") if sig else "no difference"
                _set(cells, pos[a], pos[b], state_a, c.pvalue_adjusted)
        else:
            reason = posthoc.reason or "the post-hoc procedure did not run"
    elif prows:
        source = "across_pairs"
        method = pairs_view.test
        for r in prows:
            a, b = str(r.model_a), str(r.model_b)
            if a not in pos or b not in pos:
                continue
            sig = bool(r.significant) and r.winner is not None
            state_a = ("better" if r.winner == a else "worse") if sig else "no difference"
            _set(cells, pos[a], pos[b], state_a, r.pvalue_adjusted)
    else:
        return None
    for r in prows:  # the Bayesian signed-rank test's "practically equivalent", where nothing was significant
        a, b = str(r.model_a), str(r.model_b)
        br = r.bayesian_signed_rank
        if br is not None and br.decision == "equivalent" and a in pos and b in pos:
            for i, j in ((pos[a], pos[b]), (pos[b], pos[a])):
                if cells[i][j]["state"] in ("no difference", "not compared"):
                    cells[i][j]["state"] = "equivalent"
    return {
        "models": models,
        "source": source,
        "method": method,
        "control": control,
        "alpha": alpha,
        "reason": reason,
        "cells": cells,
    }


def _set(cells: list, i: int, j: int, state_i: str, p) -> None:
    other = "worse" if state_i == "better" else "better" if state_i == "worse" else state_i
    p = None if p is None else float(p)
    cells[i][j] = {"state": state_i, "pvalue_adjusted": p}
    cells[j][i] = {"state": other, "pvalue_adjusted": p}


def counts(matrix: Mapping) -> dict[str, int]:
    """How many unordered pairs are in each state (better and worse are one state of a pair: "different")."""
    out = {"different": 0, "equivalent": 0, "no difference": 0, "not compared": 0}
    cells = matrix["cells"]
    for i in range(len(cells)):
        for j in range(i + 1, len(cells)):
            s = cells[i][j]["state"]
            out["different" if s in ("better", "worse") else s] += 1
    return out


def describe(matrix: Mapping) -> str:
    """The caption: which family fills the cells, and what each colour means."""
    alpha = f"{float(matrix['alpha']):g}"
    if matrix["source"] == "posthoc":
        fam = f"{label(matrix['method'])} post-hoc procedure on the average ranks after Friedman's test"
        if matrix["control"] is not None:
            fam += f" (every model against the control {matrix['control']}; other pairs not compared)"
    else:
        fam = f"{label(matrix['method'])} of each pair over the datasets (no across-datasets test ran)"
    text = (
        f"Row model against column model by the {fam}: ▲ row significantly better, ▼ significantly worse "
        f"(adjusted p ≤ α = {alpha}), ≈ practically equivalent by the Bayesian signed-rank test (not significant, "
        "P(within the ROPE) ≥ 1 − α), a plain p: no significant difference. Cells show the adjusted p-value; models "
        "are in order of average rank."
    )
    if matrix["reason"]:
        text += f" No pair was compared: {matrix['reason']}."
    return text


def matrix_blocks(matrix: Mapping, f: _Fmt, image) -> list:
    """The report's pairwise view: the caption, the figure (``image``, may be None) and the same matrix as text."""
    models = list(matrix["models"])
    rows = []
    for i, a in enumerate(models):
        cells = [_Cell(a)]
        for j, _ in enumerate(models):
            c = matrix["cells"][i][j]
            if c["state"] == "self":
                cells.append(_Cell(_DASH))
                continue
            p = "" if c["pvalue_adjusted"] is None else f.pvalue(c["pvalue_adjusted"])
            text = (f"{_MARK[c['state']]} {p}".strip()) or _DASH
            cells.append(_Cell(text, c["state"] in ("better", "worse")))
        rows.append(tuple(cells))
    n = counts(matrix)
    total = sum(n.values())
    summary = (
        f"{n['different']} of {total} pairs differ significantly, {n['equivalent']} are practically equivalent, "
        f"{n['no difference']} show no significant difference"
        + (f" and {n['not compared']} were not compared" if n["not compared"] else "")
        + "."
    )
    blocks: list = [_Paragraph(describe(matrix) + " " + summary)]
    if image is not None:
        blocks.append(image)
    blocks.append(_Table(("Model", *models), tuple(rows), caption="Pairwise matrix (row vs column)"))
    return blocks


def pairwise_matrix_plot(matrix: Mapping, path: Path | str, dpi: int, *, title: str | None = None) -> Path:
    """The matrix as a figure: a coloured cell per pair with its adjusted p-value (PNG, SVG or PDF by the suffix of
    ``path``; byte-identical on rerun)."""
    from .plots import save_figure

    return save_figure(pairwise_matrix_figure(matrix, title=title), path, dpi)


def pairwise_matrix_figure(matrix: Mapping, *, title: str | None = None, figure_class=None):
    """The figure of :func:`pairwise_matrix_plot` (a :class:`matplotlib.figure.Figure`, not saved)."""
    import matplotlib
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from .plots import _STYLE, _new_figure

    models = list(matrix["models"])
    k = len(models)
    order = list(_COLOURS)
    codes = np.array([[order.index(c["state"]) for c in row] for row in matrix["cells"]], dtype=float)
    longest = max(len(m) for m in models)
    with matplotlib.rc_context(_STYLE):
        name_w = max(1.0, 0.075 * longest + 0.3)  # inches for the row names
        top = 0.068 * longest + 0.2 + (0.3 if title else 0.0)  # the column names, at 60 degrees
        bottom = 0.55  # the legend
        cell = 0.62 if k <= 12 else max(0.32, 7.5 / k)
        width = name_w + cell * k + 0.6
        height = top + cell * k + bottom
        fig = _new_figure(width, height, figure_class)
        ax = fig.add_axes((name_w / width, bottom / height, cell * k / width, cell * k / height))
        ax.imshow(
            codes,
            cmap=ListedColormap([_COLOURS[s] for s in order]),
            vmin=-0.5,
            vmax=len(order) - 0.5,
            aspect="equal",
            interpolation="nearest",
        )
        ax.set_xticks(range(k), labels=models, rotation=60, ha="left", fontsize=8)
        ax.xaxis.tick_top()
        ax.set_yticks(range(k), labels=models, fontsize=8)
        ax.tick_params(length=0)
        ax.set_xticks(np.arange(-0.5, k, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, k, 1), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.2)
        ax.tick_params(which="minor", length=0)
        size = 7 if k <= 12 else 5.5
        for i in range(k):
            for j in range(k):
                c = matrix["cells"][i][j]
                if c["state"] == "self" or c["pvalue_adjusted"] is None:
                    continue
                p = float(c["pvalue_adjusted"])
                text = "<.001" if p < 0.001 else f"{p:.3f}".lstrip("0") if p < 1 else "1"
                dark = c["state"] in ("better", "worse", "equivalent")
                ax.text(j, i, text, ha="center", va="center", fontsize=size, color="white" if dark else "#333333")
        handles = [
            Patch(facecolor=_COLOURS[s], edgecolor="#999999", label=lab)
            for s, lab in (
                ("better", "row better"),
                ("worse", "row worse"),
                ("equivalent", "equivalent (Bayesian)"),
                ("no difference", "not significant"),
                ("not compared", "not compared"),
            )
        ]
        fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=7.5, frameon=False, bbox_to_anchor=(0.5, 0.0))
        if title:
            fig.text(0.01, 1 - 0.06 / height, title, ha="left", va="top", fontsize=9)
        return fig
