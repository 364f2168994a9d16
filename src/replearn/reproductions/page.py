"""The reproduction page's content: every worked example of the five texts, published beside measured.

What the page counts (:func:`summary`, :func:`counts_sentence`), how it groups the catalogue (:func:`grouped`),
words a record (:func:`provenance`, :func:`measured_by`, :func:`format_number`, :func:`entry_verdict`) and draws
each example's figure (:func:`figures`, matplotlib's Agg backend), and the generated tables of
docs/reproductions.md (:func:`catalogue_tables`, :func:`update_docs`). The page itself -- ``reproductions.html``
and ``reproductions.md``, which ``python -m replearn reproductions`` (``make reproductions``) writes to
``reports/`` -- is rendered by the report's document model (:mod:`replearn.pipeline.report.reproductions`).
Nothing is printed.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Mapping
from pathlib import Path

from .catalogue import CATALOGUE, EXTRAS, TEXTS, Example

__all__ = [
    "catalogue_tables",
    "counts_sentence",
    "entry_verdict",
    "figures",
    "format_number",
    "grouped",
    "measured_by",
    "provenance",
    "records_by_example",
    "summary",
]

TEXT_ORDER = ("cs229", "cs229s", "ciml", "cs480", "epfl", "extra")


def records_by_example(runs: Mapping[str, Mapping]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for name in sorted(runs):
        for r in runs[name].get("records") or []:
            out.setdefault(r.get("example") or "", []).append(dict(r))
    return out


def summary(runs: Mapping[str, Mapping]) -> dict:
    """Counts over the catalogue: entries, reproduced (every record of the entry reproduced), records."""
    by_example = records_by_example(runs)
    reproduced, failing, missing = [], [], []
    for e in CATALOGUE:
        recs = by_example.get(e.id, [])
        if e.reason is not None:
            continue
        if not recs:
            missing.append(e.id)
        elif all(r.get("reproduced") for r in recs):
            reproduced.append(e.id)
        else:
            failing.append(e.id)
    records = [r for recs in by_example.values() for r in recs]
    measured = [r for r in records if r.get("provenance") != "arithmetic"]
    arithmetic = [r for r in records if r.get("provenance") == "arithmetic"]
    provenance: dict[str, int] = {}
    for r in records:
        key = str(r.get("provenance") or "printed")
        provenance[key] = provenance.get(key, 0) + 1
    figures = [e for e in CATALOGUE if e.kind == "figure"]
    return {
        "catalogue": len(CATALOGUE),
        "reproduced": len(reproduced),
        "not_reproduced": [e.id for e in CATALOGUE if e.reason is not None],
        "failing": failing,
        "missing": missing,
        "records": len(records),
        "records_reproduced": sum(bool(r.get("reproduced")) for r in records),
        "measured": len(measured),
        "measured_reproduced": sum(bool(r.get("reproduced")) for r in measured),
        "arithmetic": len(arithmetic),
        "arithmetic_reproduced": sum(bool(r.get("reproduced")) for r in arithmetic),
        "errata": sum(1 for r in records if r.get("erratum") is not None),
        "provenance": dict(sorted(provenance.items())),
        "figures": len(figures),
        "figures_reproduced": sum(1 for e in figures if e.id in reproduced),
        "presets": len(runs),
    }


def counts_sentence(s: Mapping) -> str:
    """The page's one-sentence summary of :func:`summary` (the same words in the HTML, the Markdown and
    docs/reproductions.md)."""
    return (
        f"{s['reproduced']} of {s['catalogue']} catalogue examples reproduced ({s['figures_reproduced']} of "
        f"{s['figures']} figures); {len(s['not_reproduced'])} not reproducible; {s['measured_reproduced']} of "
        f"{s['measured']} records measured by replearn reproduced, and {s['arithmetic_reproduced']} of "
        f"{s['arithmetic']} arithmetic checks of the text; {s['errata']} records correct an erratum; "
        f"{s['presets']} presets"
    )


def _record_numbers(ids: list[str]) -> str:
    """``01–06`` for a run of three or more consecutive record numbers, ``05, 06`` otherwise."""
    nums = sorted(int(i.rsplit(".", 1)[1]) for i in ids)
    parts, start = [], 0
    while start < len(nums):
        end = start
        while end + 1 < len(nums) and nums[end + 1] == nums[end] + 1:
            end += 1
        if end - start >= 2:
            parts.append(f"{nums[start]:02d}–{nums[end]:02d}")
        else:
            parts.extend(f"{n:02d}" for n in nums[start : end + 1])
        start = end + 1
    return ", ".join(parts)


def _reproduced_by(entry: Example, recs: list[dict]) -> str:
    if entry.reason is not None:
        return f"**not reproduced**: {entry.reason}"
    by_preset: dict[str, list[str]] = {}
    for r in recs:
        by_preset.setdefault(str(r.get("preset")), []).append(str(r.get("id")))
    return "; ".join(f"`{p}` {_record_numbers(ids)}" for p, ids in sorted(by_preset.items())) or "—"


def catalogue_tables(runs: Mapping[str, Mapping]) -> str:
    """The Markdown tables of docs/reproductions.md: one per text, every catalogue entry with the records that
    reproduce it, then the examples from outside the texts (a test keeps the docs equal to this)."""
    by_example = records_by_example(runs)
    out: list[str] = []
    n = 0
    for key in TEXT_ORDER[:-1]:
        entries = [e for e in CATALOGUE if e.text == key]
        out += [
            f"### {TEXTS[key][0]} ({TEXTS[key][1]})",
            "",
            "| # | example | section, lines | kind | reproduced by (preset, record numbers) |",
            "|---:|---|---|---|---|",
        ]
        for e in entries:
            n += 1
            title = e.title.replace("|", "\\|")
            out.append(
                f"| {n} | `{e.id}` — {title} | {e.section}, {e.lines} | {e.kind} "
                f"| {_md_cell(_reproduced_by(e, by_example.get(e.id, [])))} |"
            )
        out.append("")
    out += [
        "### Outside the catalogue (reproduced as well)",
        "",
        "| example | source | reproduced by |",
        "|---|---|---|",
    ]
    for e in EXTRAS:
        recs = by_example.get(e.id, [])
        if recs:
            out.append(f"| `{e.id}` — {e.title} | {e.section}, {e.lines} | {_reproduced_by(e, recs)} |")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------------- figures


def _figure_png(title: str, curve: Mapping, dpi: int = 80) -> bytes | None:
    """The PNG of :func:`_figure` (None when the curve has nothing to draw)."""
    fig = _figure(title, curve)
    if fig is None:
        return None
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _figure(title: str, curve: Mapping):
    """A matplotlib Figure of one curve: every list as long as ``curve["x"]`` against x (categorical x: a bar-like
    line; None leaves a gap, where the curve leaves the frame), the point sets of ``curve["points"]`` as markers;
    log scale when the positive values span > 3 decades (``curve["y_scale"]`` overrides).

    Every legend entry gets its own colour (lines, paths and markers draw from one sequence, so a contour never
    shares the colour of the other class's points). A point set whose name ends in "boundary" is a decision
    boundary sampled on a grid: small dark dots. A path of two points is a straight line (a separator, a
    boundary): it does not widen the frame, which is drawn around the data and the longer paths."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    x = curve.get("x")
    x = x if isinstance(x, list) else []
    series = (
        {
            k: v
            for k, v in curve.items()
            if k not in ("x", "points", "paths") and isinstance(v, list) and len(v) == len(x)
        }
        if x
        else {}
    )
    # optional string keys "x_label" / "y_label" name the axes, "y_scale" ("linear" / "log") fixes the scale;
    # "points" and "paths" map names to [[x, y], ...]
    # (markers, and polylines with their own x: contours, optimization paths, decision boundaries)
    points = curve.get("points") if isinstance(curve.get("points"), Mapping) else {}
    paths = curve.get("paths") if isinstance(curve.get("paths"), Mapping) else {}
    if not series and not points and not paths:
        return None
    fig = Figure(figsize=(6.0, 3.4))
    ax = fig.add_subplot(1, 1, 1)
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x)
    xs = x if numeric else list(range(len(x)))
    colours = (f"C{i % 10}" for i in itertools.count())
    values = []
    for name, ys in sorted(series.items()):
        ys = [math.nan if v is None else float(v) for v in ys]
        values += [v for v in ys if math.isfinite(v)]
        ax.plot(xs, ys, marker="." if len(xs) <= 40 else None, label=str(name), color=next(colours))
    frame: list[tuple[float, float]] = []  # what the frame is drawn around, when only points and paths are drawn
    for name, pts in sorted(paths.items()):
        if pts:
            px, py = zip(*pts)
            style = "-" if len(pts) > 40 else ".-"
            label = None if str(name).startswith("_") else str(name)
            ax.plot(px, py, style, lw=1.2, label=label, color=next(colours))
            if len(pts) > 2:
                frame += [(float(a), float(b)) for a, b in pts]
    markers = iter("os^xd" * 10)
    for name, pts in sorted(points.items()):
        if not pts:
            continue
        px, py = zip(*pts)
        frame += [(float(a), float(b)) for a, b in pts]
        if str(name).endswith("boundary"):
            ax.scatter(px, py, s=2, marker=".", color="0.2", label=str(name), zorder=2)
        else:
            ax.scatter(
                px,
                py,
                s=12 if len(pts) > 60 else 18,
                marker=next(markers),
                label=str(name),
                zorder=3,
                color=next(colours),
            )
    if not series and frame:
        fx, fy = zip(*frame)
        pad_x = 0.08 * (max(fx) - min(fx) or 1.0)
        pad_y = 0.08 * (max(fy) - min(fy) or 1.0)
        ax.set_xlim(min(fx) - pad_x, max(fx) + pad_x)
        ax.set_ylim(min(fy) - pad_y, max(fy) + pad_y)
    positive = [v for v in values if v > 0]
    scale = curve.get("y_scale")  # "linear" or "log" overrides the rule (a quadratic's minimum is not a decade)
    if scale == "log" or (
        scale is None and positive and len(positive) == len(values) and max(positive) / min(positive) > 1e3
    ):
        ax.set_yscale("log")
    framed = bool(not series and frame)
    if curve.get("equal_axes") and not framed:
        ax.set_aspect("equal", adjustable="datalim")
    if not numeric and xs:
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v in x], rotation=30, fontsize="small")
    ax.set_xlabel(str(curve.get("x_label", "")), fontsize="small")
    ax.set_ylabel(str(curve.get("y_label", "")), fontsize="small")
    ax.set_title(title, fontsize="medium")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="x-small")
    fig.tight_layout()
    if curve.get("equal_axes") and framed:  # equal units on both axes: widen the frame's shorter side
        box = ax.get_window_extent()
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        want = (x1 - x0) / (y1 - y0) * box.height / box.width  # > 1: x needs more room per unit than y has
        if want > 1:
            mid, half = (y0 + y1) / 2, (y1 - y0) * want / 2
            ax.set_ylim(mid - half, mid + half)
        else:
            mid, half = (x0 + x1) / 2, (x1 - x0) / want / 2
            ax.set_xlim(mid - half, mid + half)
    return fig


def _figure_for(entry: Example, runs: Mapping[str, Mapping]) -> bytes | None:
    if entry.figure is None:
        return None
    preset, curve_name = entry.figure
    curve = ((runs.get(preset) or {}).get("curves") or {}).get(curve_name)
    return _figure_png(entry.title, curve) if curve else None


def figures(runs: Mapping[str, Mapping]) -> dict[str, bytes]:
    """``{entry id: PNG}`` of every catalogue (and extra) entry whose figure ``runs`` holds the curve of."""
    return {e.id: png for e in CATALOGUE + EXTRAS if (png := _figure_for(e, runs))}


# ------------------------------------------------------------------------------------------------- text


def format_number(v) -> str:
    if v is None:
        return "—"
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return f"{v:.4g}"
    return f"{v:.6g}"


def grouped(runs: Mapping[str, Mapping]):
    """(text key, [(section, [entries])]) in catalogue order; the extras last."""
    by_text: dict[str, list[Example]] = {}
    for e in CATALOGUE + EXTRAS:
        by_text.setdefault(e.text, []).append(e)
    for key in TEXT_ORDER:
        entries = by_text.get(key, [])
        if key == "extra":
            entries = [e for e in entries if any(e.id == r.get("example") for v in runs.values() for r in v["records"])]
        sections: list[tuple[str, list[Example]]] = []
        for e in entries:
            if sections and sections[-1][0] == e.section:
                sections[-1][1].append(e)
            else:
                sections.append((e.section, [e]))
        if sections:
            yield key, sections


def entry_verdict(recs: list[dict], entry: Example) -> str:
    """``reproduced`` (every record of the entry), ``NOT reproduced``, ``not reproduced`` (the catalogue says why)
    or ``no record``."""
    if entry.reason is not None:
        return "not reproduced"
    if not recs:
        return "no record"
    return "reproduced" if all(r.get("reproduced") for r in recs) else "NOT reproduced"


def provenance(r: Mapping) -> str:
    """``printed``, ``derived from ...``, ``erratum (the text prints 4.24)``, ``invariant``, or ``arithmetic check
    of the text``."""
    p = str(r.get("provenance") or "printed")
    if p == "derived" and r.get("derived_from"):
        return f"derived from {r['derived_from']}"
    if p == "arithmetic":
        text = "arithmetic check of the text"
        return text + (f" (printed {format_number(r['erratum'])}: an erratum)" if r.get("erratum") is not None else "")
    if p == "erratum":
        return f"erratum (the text prints {format_number(r.get('erratum'))})"
    return p


def measured_by(r: Mapping) -> str:
    by = r.get("measured_by") or []
    return ", ".join(str(b) for b in by) if by else "the preset's arithmetic"


def _md_cell(v) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


#: the generated parts of docs/reproductions.md sit between these markers
DOCS_MARKERS = {
    "counts": ("<!-- generated: counts -->", "<!-- end: counts -->"),
    "tables": ("<!-- generated: catalogue tables -->", "<!-- end: catalogue tables -->"),
}


def docs_sections(runs: Mapping[str, Mapping]) -> dict[str, str]:
    """The generated text of each marked section of docs/reproductions.md."""
    return {"counts": f"**{counts_sentence(summary(runs))}.**", "tables": catalogue_tables(runs).rstrip("\n")}


def update_docs(path, runs: Mapping[str, Mapping]) -> bool:
    """Rewrite the marked sections of the Markdown file ``path`` from ``runs``; returns whether it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    new = text
    for key, body in docs_sections(runs).items():
        start, end = DOCS_MARKERS[key]
        i, j = new.index(start) + len(start), new.index(end)
        new = new[:i] + "\n" + body + "\n" + new[j:]
    if new != text:
        from ..atomic import write_text

        write_text(path, new)  # whole or not at all
    return new != text


if __name__ == "__main__":  # python -m replearn.reproductions.page docs/reproductions.md
    import sys

    from . import PRESETS, run_experiment

    target = sys.argv[1] if len(sys.argv) > 1 else "docs/reproductions.md"
    changed = update_docs(target, {name: run_experiment(name, seed=0).to_dict() for name in PRESETS})
    sys.stdout.write(f"{target}: {'updated' if changed else 'up to date'}\n")
