"""The reproduction page: every worked example of the five texts, published beside measured, with its figure.

:func:`write_page` takes the presets' results (``{preset: ExperimentResult.to_dict()}``, as the reproduce
stage stores them under ``runs`` for ``reproduce: all``) and writes

* ``reproductions.html``: one self-contained page (inline CSS, figures as inline base64 PNG, no script,
  no external URL) grouped by text and section, in the order of :data:`.catalogue.CATALOGUE`: for each
  example the text's description, the lines, every record (published, measured, tolerance, verdict,
  source, record id) and the figure the catalogue names; an example that is not reproduced says why;
* ``reproductions.md``: the same tables in Markdown, the figures as PNG files in
  ``reproductions_files/`` beside it.

It is what ``python -m replearn reproductions`` (``make reproductions``) writes to ``reports/``. Plotting
uses matplotlib's Agg backend; nothing is printed.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping
from pathlib import Path

from .catalogue import CATALOGUE, EXTRAS, TEXTS, Example

__all__ = ["summary", "write_page"]

TEXT_ORDER = ("cs229", "cs229s", "ciml", "cs480", "epfl", "extra")


def _records_by_example(runs: Mapping[str, Mapping]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for name in sorted(runs):
        for r in runs[name].get("records") or []:
            out.setdefault(r.get("example") or "", []).append(dict(r))
    return out


def summary(runs: Mapping[str, Mapping]) -> dict:
    """Counts over the catalogue: entries, reproduced (every record of the entry reproduced), records."""
    by_example = _records_by_example(runs)
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
    return {
        "catalogue": len(CATALOGUE),
        "reproduced": len(reproduced),
        "not_reproduced": [e.id for e in CATALOGUE if e.reason is not None],
        "failing": failing,
        "missing": missing,
        "records": len(records),
        "records_reproduced": sum(bool(r.get("reproduced")) for r in records),
        "presets": len(runs),
    }


# ------------------------------------------------------------------------------------------------- figures


def _figure_png(title: str, curve: Mapping, dpi: int = 80) -> bytes | None:
    """A PNG of one curve: every list as long as ``curve["x"]`` against x (categorical x: a bar-like line),
    the point sets of ``curve["points"]`` as markers; log scale when the positive values span > 3 decades."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    x = curve.get("x")
    if not isinstance(x, list) or len(x) < 1:
        return None
    series = {k: v for k, v in curve.items() if k not in ("x", "points") and isinstance(v, list) and len(v) == len(x)}
    # optional string keys "x_label" / "y_label" name the axes
    points = curve.get("points") if isinstance(curve.get("points"), Mapping) else {}
    if not series and not points:
        return None
    fig = Figure(figsize=(6.0, 3.4))
    ax = fig.add_subplot(1, 1, 1)
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x)
    xs = x if numeric else list(range(len(x)))
    values = []
    for name, ys in sorted(series.items()):
        ys = [math.nan if v is None else float(v) for v in ys]
        values += [v for v in ys if math.isfinite(v)]
        ax.plot(xs, ys, marker="." if len(xs) <= 40 else None, label=str(name))
    for i, (name, pts) in enumerate(sorted(points.items())):
        if pts:
            px, py = zip(*pts)
            ax.scatter(px, py, s=18, marker="os^"[i % 3], label=str(name), zorder=3)
    positive = [v for v in values if v > 0]
    if positive and len(positive) == len(values) and max(positive) / min(positive) > 1e3:
        ax.set_yscale("log")
    if not numeric:
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v in x], rotation=30, fontsize="small")
    ax.set_xlabel(str(curve.get("x_label", "")), fontsize="small")
    ax.set_ylabel(str(curve.get("y_label", "")), fontsize="small")
    ax.set_title(title, fontsize="medium")
    ax.legend(loc="best", fontsize="x-small")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _figure_for(entry: Example, runs: Mapping[str, Mapping]) -> bytes | None:
    if entry.figure is None:
        return None
    preset, curve_name = entry.figure
    curve = ((runs.get(preset) or {}).get("curves") or {}).get(curve_name)
    return _figure_png(entry.title, curve) if curve else None


# ------------------------------------------------------------------------------------------------- text


def _num(v) -> str:
    if v is None:
        return "—"
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return f"{v:.4g}"
    return f"{v:.6g}"


def _grouped(runs: Mapping[str, Mapping]):
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


_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.7em; } h2 { border-bottom: 2px solid #ccc; margin-top: 2em; } h3 { margin-bottom: 0.2em; }
.entry { border: 1px solid #ddd; border-radius: 6px; padding: 0.6em 1em; margin: 1em 0; background: #fcfcfc; }
.meta { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.88em; width: 100%; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.num { text-align: right; font-family: monospace; white-space: nowrap; }
.ok { color: #146c2e; font-weight: bold; } .bad { color: #b00020; font-weight: bold; }
.reason { background: #fff6e0; border-left: 4px solid #e0a800; padding: 0.4em 0.8em; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
nav a { margin-right: 1em; }
"""


def _html(runs: Mapping[str, Mapping], meta: Mapping, figures: Mapping[str, bytes]) -> str:
    by_example = _records_by_example(runs)
    s = summary(runs)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>replearn: the worked examples of the course texts, reproduced</title>",
        f"<style>{_CSS}</style></head><body>",
        '<h1 id="top">The worked examples of the five course texts, reproduced</h1>',
        "<p>Every worked numeric example, table and figure of the course texts (the project's catalogue of the "
        "texts, 73 entries) rerun with replearn's own algorithms: the value the text prints, the value measured "
        "now, the tolerance (absolute, in the quantity's units: half a unit of the last printed digit unless the "
        "record's source says otherwise) and the verdict |measured − published| ≤ tolerance.</p>",
        f"<p><strong>{s['reproduced']} of {s['catalogue']} catalogue examples reproduced</strong>; "
        f"{len(s['not_reproduced'])} not reproducible (reasons below); "
        f"{s['records_reproduced']} of {s['records']} records reproduced, from {s['presets']} presets. "
        f"{html.escape(str(meta.get('how', '')))}</p>",
    ]
    out.append(
        "<nav>" + "".join(f'<a href="#{k}">{html.escape(TEXTS[k][0])}</a>' for k, _ in _grouped(runs)) + "</nav>"
    )
    for key, sections in _grouped(runs):
        name, seed_file = TEXTS[key]
        out.append(f'<h2 id="{key}">{html.escape(name)} <span class="meta">({html.escape(seed_file)})</span></h2>')
        for section, entries in sections:
            out.append(f"<h3>{html.escape(section)}</h3>")
            for e in entries:
                out.append(_entry_html(e, by_example.get(e.id, []), figures.get(e.id)))
    out.append(
        '<p class="meta"><a href="#top">top</a> · generated by <code>python -m replearn reproductions</code>'
        f" ({html.escape(str(meta.get('source', '')))})</p>"
    )
    out.append("</body></html>")
    return "\n".join(out)


def _verdict(recs: list[dict], entry: Example) -> tuple[str, str]:
    if entry.reason is not None:
        return "not reproduced", "bad"
    if not recs:
        return "no record", "bad"
    ok = all(r.get("reproduced") for r in recs)
    return ("reproduced" if ok else "NOT reproduced"), ("ok" if ok else "bad")


def _entry_html(e: Example, recs: list[dict], png: bytes | None) -> str:
    verdict, cls = _verdict(recs, e)
    parts = [
        f'<div class="entry" id="{html.escape(e.id)}">',
        f'<h4>{html.escape(e.title)} <span class="{cls}">— {verdict}</span></h4>',
        f'<p class="meta">{html.escape(e.id)} · {html.escape(e.kind)} · {html.escape(e.section)}, '
        f"{html.escape(e.lines)}</p>",
        f"<p>{html.escape(e.description)}</p>",
    ]
    if e.reason is not None:
        parts.append(f'<p class="reason">Why not: {html.escape(e.reason)}</p>')
    if recs:
        parts.append(
            "<table><tr><th>Quantity</th><th>Published</th><th>Measured</th><th>Tolerance</th><th>Verdict</th>"
            "<th>Source</th><th>Record</th></tr>"
        )
        for r in recs:
            ok = bool(r.get("reproduced"))
            parts.append(
                f'<tr><td>{html.escape(str(r.get("quantity")))}</td><td class="num">{_num(r.get("published"))}</td>'
                f'<td class="num">{_num(r.get("measured"))}</td><td class="num">{_num(r.get("tolerance"))}</td>'
                f'<td class="{"ok" if ok else "bad"}">{"reproduced" if ok else "NOT reproduced"}</td>'
                f"<td>{html.escape(str(r.get('source')))}</td><td>{html.escape(str(r.get('id')))}</td></tr>"
            )
        parts.append("</table>")
    if png:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<img alt="{html.escape(e.title)}" src="data:image/png;base64,{data}">')
    parts.append("</div>")
    return "\n".join(parts)


def _md_cell(v) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _markdown(runs: Mapping[str, Mapping], meta: Mapping, figures: Mapping[str, bytes], figures_dir: Path) -> str:
    by_example = _records_by_example(runs)
    s = summary(runs)
    lines = [
        "# The worked examples of the five course texts, reproduced",
        "",
        f"**{s['reproduced']} of {s['catalogue']} catalogue examples reproduced**; {len(s['not_reproduced'])} not "
        f"reproducible (reasons below); {s['records_reproduced']} of {s['records']} records reproduced, from "
        f"{s['presets']} presets. {meta.get('how', '')}",
        "",
        "Tolerances are absolute, in the quantity's units; the verdict is |measured − published| ≤ tolerance.",
    ]
    figures_dir.mkdir(parents=True, exist_ok=True)
    for key, sections in _grouped(runs):
        lines += ["", f"## {TEXTS[key][0]} ({TEXTS[key][1]})"]
        for section, entries in sections:
            lines += ["", f"### {section}"]
            for e in entries:
                recs = by_example.get(e.id, [])
                verdict, _ = _verdict(recs, e)
                lines += ["", f"#### {e.title} — {verdict}", "", f"`{e.id}` · {e.kind} · {e.lines}", "", e.description]
                if e.reason is not None:
                    lines += ["", f"> Why not: {e.reason}"]
                if recs:
                    lines += [
                        "",
                        "| Quantity | Published | Measured | Tolerance | Verdict | Source | Record |",
                        "|---|---:|---:|---:|---|---|---|",
                    ]
                    for r in recs:
                        verdict_r = "reproduced" if r.get("reproduced") else "NOT reproduced"
                        lines.append(
                            f"| {_md_cell(r.get('quantity'))} | {_num(r.get('published'))} | {_num(r.get('measured'))} "
                            f"| {_num(r.get('tolerance'))} | {verdict_r} "
                            f"| {_md_cell(r.get('source'))} | {_md_cell(r.get('id'))} |"
                        )
                png = figures.get(e.id)
                if png:
                    path = figures_dir / f"{e.id.replace('.', '_')}.png"
                    path.write_bytes(png)
                    lines += ["", f"![{e.title}]({figures_dir.name}/{path.name})"]
    lines += ["", f"Generated by `python -m replearn reproductions` ({meta.get('source', '')})."]
    return "\n".join(lines) + "\n"


def write_page(runs: Mapping[str, Mapping], out_dir, *, meta: Mapping | None = None) -> dict[str, Path]:
    """Write ``reproductions.html``, ``reproductions.md`` and ``reproductions_files/`` into ``out_dir``.

    ``runs``: ``{preset: result dict}`` (:meth:`ExperimentResult.to_dict`, records with their ``example``);
    ``meta``: ``{"how": one sentence on the run (seed), "source": where the numbers came from}``.
    Returns the paths written.
    """
    meta = dict(meta or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = {e.id: png for e in CATALOGUE + EXTRAS if (png := _figure_for(e, runs))}
    page = out / "reproductions.html"
    page.write_text(_html(runs, meta, figures), encoding="utf-8")
    md = out / "reproductions.md"
    md.write_text(_markdown(runs, meta, figures, out / "reproductions_files"), encoding="utf-8")
    return {"html": page, "markdown": md, "figures": out / "reproductions_files"}
