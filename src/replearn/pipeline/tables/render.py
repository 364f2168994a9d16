"""What ``replearn compare`` writes: JSON, Markdown, HTML, LaTeX, BibTeX and the figures of one comparison.

The Markdown and HTML are one document (:mod:`replearn.pipeline.report.document`) rendered twice, with the report's
own sections for the analysis across datasets (:func:`~replearn.pipeline.report.sections._across_section` and the
pairs' section), so that a table of means gives the very text of the pipeline's report on the same means. The
LaTeX table is booktabs (mean ± sd, or the rank, per dataset; the best in bold; significance marks against the
control or the best model), the methods paragraph cites the BibTeX keys of exactly the procedures used, and each of
its sentences names the JSON fields it states. Figures: the critical-difference diagram and the pairwise matrix,
as PDF, SVG and PNG, byte-identical on rerun.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

from ...atomic import write_text
from ...stats.bibliography import ENTRIES, bibtex, short_citation
from ...stats.registry import label
from ..report.document import _DASH, _Cell, _Document, _Fmt, _Heading, _Image, _List, _Paragraph, _Table

__all__ = ["FIGURES", "FORMATS", "document", "latex_document", "latex_table", "to_json", "write"]

FORMATS = ("json", "markdown", "html", "latex")
#: what ``comparison.json`` says wrote it (a folder holding it may be written again)
PRODUCER = "replearn compare"
FIGURE_FORMATS = ("pdf", "svg", "png")
#: figure name -> file stem under plots/ (the names the pipeline's report uses)
FIGURES = {"cd": "critical_difference", "matrix": "pairwise_matrix"}
_WORSE, _BETTER = "•", "∘"
#: what a dataset's mean is a mean over, by the table's replicates (the pipeline's report says it of its designs)
OVER = {
    "none": "as the table gives them (one score per dataset and model)",
    "seed": "over each dataset's runs",
    "fold": "over each dataset's cross-validation splits",
}


def to_json(result: Mapping) -> str:
    """The result as the JSON file holds it: sorted keys, strict numbers, one line (as the pipeline's records;
    ``python -m json.tool`` indents it)."""
    return json.dumps(result, sort_keys=True, allow_nan=False, ensure_ascii=False, separators=(",", ":")) + "\n"


def significance_view(result: Mapping) -> dict:
    """The result in the shape the report's sections read (``results/significance.json``'s keys)."""
    st = result["settings"]
    return {
        "metric": result["input"]["metric"],
        "alpha": st["alpha"],
        "higher_is_better": result["input"]["higher_is_better"],
        "correction": st["correction"],
        "bayesian": {"enabled": st["bayesian"], "rope": st["rope"], "rope_scale": st["rope_scale"]},
        "posthoc": {"method": st["posthoc"], "control": st["control"]},
        "round_before_ranking": st["round_before_ranking"],
        "across_datasets": result["across_datasets"],
        "across_pairs": result["across_pairs"],
        "datasets": {},
        "excluded": {},
    }


# ----------------------------------------------------------------------------------------------- the score table
def _reference(result: Mapping, means: Mapping[str, float | None]) -> str | None:
    """The model the marks compare with: the control, else the best mean of the row (None when tied)."""
    control = result["settings"]["control"]
    if control is not None:
        return control
    hib = result["input"]["higher_is_better"]
    vals = {m: v for m, v in means.items() if v is not None}
    if not vals:
        return None
    best = max(vals.values()) if hib else min(vals.values())
    top = [m for m, v in vals.items() if v == best]
    return top[0] if len(top) == 1 else None


def _dataset_marks(result: Mapping, d: str, ref: str | None) -> dict[str, str]:
    """Model -> mark on dataset ``d``: • significantly worse than ``ref`` by the dataset's test after its
    correction, ∘ significantly better."""
    entry = (result.get("per_dataset") or {}).get(d) or {}
    marks: dict[str, str] = {}
    if ref is None:
        return marks
    for r in entry.get("cv") or []:
        if not r.get("significant") or ref not in (r["model_a"], r["model_b"]):
            continue
        other = r["model_b"] if r["model_a"] == ref else r["model_a"]
        marks[other] = _WORSE if r.get("winner") == ref else _BETTER
    return marks


def _rank_marks(result: Mapping, ref: str | None) -> dict[str, str]:
    """Model -> mark on its average rank by the post-hoc procedure against ``ref``."""
    ph = (result["across_datasets"].get("posthoc") or {}) if result["across_datasets"].get("ran") else {}
    marks: dict[str, str] = {}
    if ref is None or not ph.get("ran"):
        return marks
    for c in ph.get("comparisons") or []:
        if not c.get("significant") or ref not in (c["a"], c["b"]):
            continue
        other = c["b"] if c["a"] == ref else c["a"]
        ref_better = (c["rank_a"] < c["rank_b"]) == (c["a"] == ref)
        marks[other] = _WORSE if ref_better else _BETTER
    return marks


def score_rows(result: Mapping, decimals: int = 3, cells: str = "score") -> dict:
    """The score table of the LaTeX and Markdown outputs: per dataset (input order) and model (input order) the
    text of the cell, whether it is the best, and its mark; the average-rank row last."""
    if cells not in ("score", "rank"):
        raise ValueError(f"cells must be 'score' or 'rank', got {cells!r}")
    inp, means = result["input"], result["means"]
    di = {d: i for i, d in enumerate(means["datasets"])}
    mi = {m: j for j, m in enumerate(means["models"])}
    hib = inp["higher_is_better"]
    rows = []
    all_ranks = _ranks(result)
    for d in inp["datasets"]:
        vals = {m: means["scores"][di[d]][mi[m]] for m in inp["models"]}
        sds = {m: (means["sd"][di[d]][mi[m]] if means.get("sd") else None) for m in inp["models"]}
        finite = [v for v in vals.values() if v is not None]
        best = (max(finite) if hib else min(finite)) if finite else None
        ranks = {m: float(all_ranks[di[d], mi[m]]) for m in inp["models"]}
        ref = _reference(result, vals)
        marks = _dataset_marks(result, d, ref)
        out = []
        for m in inp["models"]:
            v = vals[m]
            if v is None:
                text = None
            elif cells == "rank":
                text = f"{ranks[m]:g}"
            else:
                text = f"{v:.{decimals}f}" + (f" ± {sds[m]:.{decimals}f}" if sds[m] is not None else "")
            out.append({"model": m, "text": text, "best": v is not None and v == best, "mark": marks.get(m, "")})
        rows.append({"dataset": d, "cells": out, "reference": ref})
    avg = result["across_datasets"].get("average_ranks") or {}
    ref = result["settings"]["control"]
    if ref is None and avg:
        low = min(avg.values())
        top = [m for m, r in avg.items() if r == low]
        ref = top[0] if len(top) == 1 else None
    marks = _rank_marks(result, ref)
    low = min(avg.values()) if avg else None
    rank_row = [
        {
            "model": m,
            "text": None if m not in avg else f"{avg[m]:.2f}",
            "best": m in avg and avg[m] == low,
            "mark": marks.get(m, ""),
        }
        for m in inp["models"]
    ]
    return {"rows": rows, "average_rank": rank_row if avg else None, "rank_reference": ref}


def _ranks(result: Mapping):
    """Every dataset's ranks as the across-datasets analysis gives them (1 = best, ties averaged, a missing score
    last), rows and columns those of ``result["means"]``."""
    import numpy as np

    from ..report.benchmark import rank_rows

    scores = np.array(
        [[math.nan if v is None else v for v in row] for row in result["means"]["scores"]], dtype=np.float64
    )
    return rank_rows(scores, result["input"]["higher_is_better"], result["settings"].get("round_before_ranking"))


def _caption(result: Mapping, table: Mapping, cells: str) -> str:
    inp, st = result["input"], result["settings"]
    direction = "higher" if inp["higher_is_better"] else "lower"
    if cells == "rank":
        what = f"Rank of each model on each dataset by its {inp['metric']} (1 = best, ties averaged)"
    else:
        what = f"Mean {inp['metric']} per dataset ({direction} is better"
        what += "; ± the standard deviation over its replicates)" if inp["replicates"] != "none" else ")"
    parts = [what + "; the best per dataset in bold."]
    tests = sorted(
        {r["test"] for e in (result.get("per_dataset") or {}).values() for r in e.get("cv") or [] if r.get("pvalue")}
    )
    ref_text = f"the control {st['control']}" if st["control"] is not None else "the best model of the dataset"
    if tests:
        corr = "" if st["correction"] == "none" else f", {label(st['correction'])}'s correction"
        parts.append(
            f"{_WORSE}/{_BETTER}: significantly worse/better than {ref_text} on that dataset "
            f"({', '.join(label(t) for t in tests)}{corr}, α = {st['alpha']:g})."
        )
    elif inp["replicates"] == "none":
        parts.append("One score per dataset and model: no test on a single dataset.")
    if table["average_rank"] is not None:
        n = inp["n_datasets"]
        ph = result["across_datasets"].get("posthoc") or {}
        if ph.get("ran"):
            ref = f"the control {st['control']}" if st["control"] is not None else "the best average rank"
            parts.append(
                f"Last row: average rank over N = {n} datasets; {_WORSE}/{_BETTER} significantly worse/better than "
                f"{ref} by {label(ph['method_used'])}'s procedure after Friedman's test (α = {st['alpha']:g})."
            )
        else:
            why = result["across_datasets"].get("reason") or (ph.get("reason") if ph else None)
            parts.append(f"Last row: average rank over N = {n} datasets (no pair compared: {why}).")
    return " ".join(parts)


# ----------------------------------------------------------------------------------------------- LaTeX
_TEX = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "$": "\\$",
    "#": "\\#",
    "_": "\\_",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
}
_TEX_SYMBOLS = {
    "±": "$\\pm$",
    "•": "$^{\\bullet}$",
    "∘": "$^{\\circ}$",
    "α": "$\\alpha$",
    "χ²_F": "$\\chi^2_F$",
    "≤": "$\\le$",
    "≥": "$\\ge$",
    "–": "--",
    "—": "---",
    "δ": "$\\delta$",
    "−": "$-$",
}


def tex(text: str) -> str:
    """Plain text as LaTeX: the special characters escaped, the symbols replearn prints set in math."""
    out = "".join(_TEX.get(c, c) for c in str(text))
    for a, b in _TEX_SYMBOLS.items():
        out = out.replace(a, b)
    return out


def latex_table(result: Mapping, *, decimals: int = 3, cells: str = "score", label_: str = "tab:comparison") -> str:
    """The booktabs table (needs ``\\usepackage{booktabs}``): a row per dataset, a column per model, the average
    ranks last; see :func:`score_rows` for the cells and the marks."""
    table = score_rows(result, decimals, cells)
    models = result["input"]["models"]
    lines = [
        "% replearn compare: the score table (needs \\usepackage{booktabs})",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\caption{{{tex(_caption(result, table, cells))}}}",
        f"\\label{{{label_}}}",
        "\\begin{tabular}{l" + "r" * len(models) + "}",
        "\\toprule",
        "Dataset & " + " & ".join(tex(m) for m in models) + " \\\\",
        "\\midrule",
    ]

    def cell(c: Mapping) -> str:
        if c["text"] is None:
            return "--"
        text = tex(c["text"])
        text = f"\\textbf{{{text}}}" if c["best"] else text
        return text + (tex(c["mark"]) if c["mark"] else "")

    for row in table["rows"]:
        lines.append(tex(row["dataset"]) + " & " + " & ".join(cell(c) for c in row["cells"]) + " \\\\")
    if table["average_rank"] is not None:
        lines.append("\\midrule")
        lines.append("Average rank & " + " & ".join(cell(c) for c in table["average_rank"]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}", ""]
    return "\n".join(lines)


def latex_methods(result: Mapping) -> str:
    """The methods paragraph in LaTeX, one sentence a line, each followed by the JSON fields it states."""
    lines = ["% replearn compare: the methods paragraph (each sentence is followed by the JSON fields it states)"]
    for s in result["methods"]:
        lines.append(s["latex"] + "  % " + ", ".join(s["fields"]))
    return "\n".join(lines) + "\n"


def latex_document(result: Mapping, *, figures: bool = True, bib: str = "references") -> str:
    """A standalone LaTeX document: the methods paragraph, the table, the two figures and the bibliography."""
    parts = [
        "% replearn compare: a standalone document (pdflatex, then bibtex, then pdflatex twice)",
        "\\documentclass[11pt]{article}",
        "\\usepackage[T1]{fontenc}",
        "\\usepackage[utf8]{inputenc}",
        "\\usepackage{booktabs}",
        "\\usepackage{graphicx}",
        "\\usepackage{amssymb}",
        "\\begin{document}",
        "\\section*{Methods}",
        latex_methods(result),
        latex_table(result),
    ]
    if figures and result["across_datasets"].get("ran"):
        parts.append(_latex_figure("plots/critical_difference.pdf", _cd_title(result), "fig:cd"))
    if figures and result.get("matrix") is not None:
        from ..report.matrix import describe

        parts.append(_latex_figure("plots/pairwise_matrix.pdf", describe(result["matrix"]), "fig:pairwise"))
    if result["references"]:
        parts += ["\\bibliographystyle{plain}", f"\\bibliography{{{bib}}}"]
    parts.append("\\end{document}\n")
    return "\n".join(parts)


def _latex_figure(path: str, caption: str, label_: str) -> str:
    return (
        "\\begin{figure}[t]\n\\centering\n"
        f"\\includegraphics[width=\\linewidth]{{{path}}}\n"
        f"\\caption{{{tex(caption)}}}\n\\label{{{label_}}}\n\\end{{figure}}\n"
    )


def _cd_title(result: Mapping) -> str:
    across = result["across_datasets"]
    return (
        f"Average ranks on {result['input']['metric']} over N = {across['n_datasets']} datasets; models joined by a "
        f"bar differ by less than the Nemenyi critical difference CD = {across['nemenyi']['cd']:.3f} "
        f"(α = {result['settings']['alpha']:g})."
    )


# ----------------------------------------------------------------------------------------------- the document
def document(
    result: Mapping,
    *,
    title: str | None = None,
    decimals: int = 3,
    images: Mapping[str, _Image] | None = None,
) -> _Document:
    """The Markdown/HTML document of a comparison; ``images`` maps "cd" and "matrix" to the figures' blocks (left
    out when absent)."""
    from ..report import failures, sections, summary
    from ..report.matrix import matrix_blocks

    images = images or {}
    f = _Fmt(decimals)
    inp = result["input"]
    sig = significance_view(result)
    doc = _Document(title or f"Comparison of {inp['n_models']} models on {inp['n_datasets']} datasets")
    doc.add(_Heading(2, "Input"))
    reps = {
        "none": "one score per dataset and model",
        "seed": f"independent replicates ({', '.join(inp['replicate_columns'])})",
        "fold": f"cross-validation splits ({', '.join(inp['replicate_columns'])})",
    }[inp["replicates"]]
    doc.add(
        _Paragraph(
            f"{inp['source']}: a {inp['layout']} table of {inp['rows']} rows, {inp['n_models']} models × "
            f"{inp['n_datasets']} datasets, {inp['metric']} ({'higher' if inp['higher_is_better'] else 'lower'} is "
            f"better), {reps}. The analysis orders datasets and models by name, so its numbers do not depend on the "
            "order of the rows or columns; the tables keep the input's order."
        )
    )
    if inp["missing"]:
        listed = "; ".join(
            f"{d} / {m}" + (f" ({n} of {inp['n_replicates'][d]} replicates)" if inp["replicates"] != "none" else "")
            for d, m, n in inp["missing"]
        )
        doc.add(
            _Paragraph(
                f"Missing scores ({len(inp['missing'])}): {listed}. A model without a mean on a dataset takes that "
                "dataset's worst rank in Friedman's test, the post-hoc procedure and the CD diagram, and the pairwise "
                "tests over datasets leave the dataset out for its pairs; over replicates a pair is tested on the "
                "replicates both models have (the failed-fit convention, docs/statistics.md)."
            )
        )
    doc.add(_Heading(2, "Questions"))
    doc.add(
        _List(
            tuple(
                f"{q['question'].capitalize()}: {q['statement']}"
                + ("" if q["answered"] or not q.get("asked", True) else f" Not answered: {q['reason']}.")
                for q in result["questions"]
            )
        )
    )
    doc.add(_Heading(2, "Summary"))
    lines = [summary.across_line(sig, f) or "Across datasets: nothing to compare."]
    if result.get("per_dataset"):
        s = result["summary"]
        lines.append(
            f"Per dataset: {s['per_dataset_significant']} of {s['per_dataset_tests']} pair tests over the replicates "
            "are significant after the correction (each a claim about its dataset only; the table per dataset below)."
        )
    doc.add(_List(tuple(lines)))
    table = score_rows(result, decimals)
    doc.add(_Heading(2, "Scores"))
    head = ("Dataset", *inp["models"])
    body = [
        (_Cell(r["dataset"]), *(_Cell((c["text"] or _DASH) + c["mark"], c["best"]) for c in r["cells"]))
        for r in table["rows"]
    ]
    if table["average_rank"] is not None:
        body.append(
            (
                _Cell("Average rank"),
                *(_Cell((c["text"] or _DASH) + c["mark"], c["best"]) for c in table["average_rank"]),
            )
        )
    doc.add(_Table(head, tuple(body), caption=_caption(result, table, "score")))
    matrix = result.get("matrix")
    view = matrix_blocks(matrix, f, images.get("matrix")) if matrix is not None else None
    across = result["across_datasets"]
    sections._across_section(
        doc, across, sig, {}, f, images.get("cd"), scores_table=False, pairwise_view=view, over=OVER[inp["replicates"]]
    )
    if view is not None and not across.get("ran"):  # no across-datasets test: the pairs' matrix on its own
        doc.add(_Heading(3, "Pairwise view"))
        for block in view:
            doc.add(block)
    sections._across_pairs_section(doc, result["across_pairs"], sig, f, over=OVER[inp["replicates"]])
    note = failures.across_failure_note(across, result["across_pairs"])
    if note:
        doc.add(_Paragraph(note))
    if result.get("per_dataset"):
        _per_dataset(doc, result, f)
    doc.add(_Heading(2, "Methods"))
    doc.add(_Paragraph(" ".join(s["text"] + " [" + ", ".join(s["fields"]) + "]" for s in result["methods"])))
    if result["references"]:
        doc.add(_Heading(2, "References"))
        doc.add(_List(tuple(reference_text(k) for k in result["references"])))
    return doc


def reference_text(key: str) -> str:
    """One line of the references list: "Demšar 2006. Statistical Comparisons ... Journal of ... [demsar2006]"."""
    _, fields = ENTRIES[key]
    where = fields.get("journal") or fields.get("booktitle") or fields.get("publisher") or fields.get("school") or ""
    title = fields["title"].replace("{", "").replace("}", "").replace("$5 \\times 2$", "5×2").replace("``", "“")
    title = title.replace("''", "”")
    where = where.replace("{", "").replace("}", "").replace('\\"u', "ü").replace("\\&", "&")
    return f"{short_citation(key)}. {title}. {where}. [{key}]"


def _eq(text: str) -> str:
    return f"< {text[1:]}" if text.startswith("<") else f"= {text}"


def _per_dataset(doc: _Document, result: Mapping, f: _Fmt) -> None:
    per = result["per_dataset"]
    q = next(q for q in result["questions"] if q["question"] == "per dataset")
    doc.add(_Heading(2, "Per dataset"))
    doc.add(_Paragraph(q["statement"]))
    rows = []
    for d in result["input"]["datasets"]:
        e = per[d]
        if not e["ran"]:
            rows.append((_Cell(d), _Cell(str(e["n_replicates"])), _Cell(_DASH), _Cell(f"not tested: {e['reason']}")))
            continue
        sig = [r for r in e["cv"] if r.get("significant") and r.get("winner")]
        text = "; ".join(
            f"{r['winner']} > {r['model_b'] if r['winner'] == r['model_a'] else r['model_a']} "
            f"(adjusted p {_eq(f.pvalue(r['pvalue_adjusted']))})"
            for r in sig
        )
        rows.append(
            (
                _Cell(d),
                _Cell(str(e["n_replicates"])),
                _Cell(label(e["test"]) if e["test"] != "per pair" else "per pair"),
                _Cell(text or "no significant difference", bool(sig)),
            )
        )
    st = result["settings"]
    corr = "no correction" if st["correction"] == "none" else f"{label(st['correction'])}'s correction over the pairs"
    doc.add(
        _Table(
            ("Dataset", "Replicates", "Test", "Significant pairs"),
            tuple(rows),
            caption=f"Every pair on each dataset over its replicates, {corr}, α = {st['alpha']:g}; every row (with "
            "the Bayesian probabilities) is in the JSON under per_dataset",
        )
    )


# ----------------------------------------------------------------------------------------------- files
def write(
    result: Mapping,
    out_dir: Path | str,
    *,
    title: str | None = None,
    decimals: int = 3,
    dpi: int = 150,
    figure_formats=FIGURE_FORMATS,
    stem: str = "comparison",
) -> dict[str, Path]:
    """Write every output into ``out_dir``: ``comparison.json``, ``.md``, ``.html``, ``.tex`` (a standalone
    document), ``table.tex`` and ``methods.tex`` (to ``\\input``), ``references.bib`` and the figures under ``plots/``
    (``critical_difference`` and ``pairwise_matrix`` in each of ``figure_formats``). Returns what was written."""
    from ..report.html import _render_html
    from ..report.markdown import _render_markdown

    out = Path(out_dir)
    check_out_dir(out, stem)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    figs = figure_files(result, out / "plots", dpi=dpi, formats=figure_formats)
    written.update({f"{k}.{p.suffix[1:]}": p for k, paths in figs.items() for p in paths})
    images, blobs = {}, {}
    for key, paths in figs.items():
        png = next((p for p in paths if p.suffix == ".png"), None)
        if png is not None:
            rel = f"plots/{png.name}"
            blobs[rel] = png.read_bytes()
            alt = (
                "Critical difference diagram of the average ranks"
                if key == "cd"
                else ("Pairwise matrix: every pair of models across datasets")
            )
            images[key] = _Image(rel, alt)
    doc = document(result, title=title, decimals=decimals, images=images)
    files = {
        f"{stem}.json": to_json(result),
        f"{stem}.md": _render_markdown(doc),
        f"{stem}.html": _render_html(doc, blobs),
        f"{stem}.tex": latex_document(result, figures="pdf" in figure_formats),
        "table.tex": latex_table(result, decimals=decimals),
        "methods.tex": latex_methods(result),
        "references.bib": bibtex(result["references"]),
    }
    for name, text in files.items():
        path = out / name
        write_text(path, text, newline="\n")  # whole or not at all (replearn.atomic)
        written[name] = path
    return written


def check_out_dir(out: Path, stem: str = "comparison") -> None:
    """Refuse a folder that holds files ``replearn compare`` did not write: its outputs replace only its own
    (a folder it wrote before holds its ``comparison.json``, whose ``producer`` says so)."""
    from ...exceptions import TableError

    if out.exists() and not out.is_dir():
        raise TableError(f"--out {out}: a file, not a folder")
    if not out.is_dir() or not any(out.iterdir()):
        return
    previous = out / f"{stem}.json"
    try:
        ours = json.loads(previous.read_text(encoding="utf-8")).get("producer") == PRODUCER
    except (OSError, ValueError, AttributeError):
        ours = False
    if not ours:
        first = sorted(p.name for p in out.iterdir())[0]
        raise TableError(
            f"--out {out}: the folder holds files replearn compare did not write (such as {first!r}); choose a new "
            "or empty folder, or one an earlier replearn compare wrote"
        )


def figure_files(result: Mapping, plot_dir: Path, *, dpi: int = 150, formats=FIGURE_FORMATS) -> dict[str, list[Path]]:
    """The critical-difference diagram (when the across-datasets test ran) and the pairwise matrix, in each of
    ``formats``; ``{"cd": [paths], "matrix": [paths]}``."""
    from ..report.matrix import pairwise_matrix_figure
    from ..report.plots import critical_difference_figure, save_figure

    out: dict[str, list[Path]] = {}
    for fmt in formats:
        if fmt not in FIGURE_FORMATS:
            raise ValueError(f"figure format must be one of {', '.join(FIGURE_FORMATS)}, got {fmt!r}")
    fig = cd_figure(result, critical_difference_figure)
    if fig is not None:
        out["cd"] = [save_figure(fig, plot_dir / f"{FIGURES['cd']}.{fmt}", dpi) for fmt in formats]
    if result.get("matrix") is not None:
        fig = pairwise_matrix_figure(result["matrix"])
        out["matrix"] = [save_figure(fig, plot_dir / f"{FIGURES['matrix']}.{fmt}", dpi) for fmt in formats]
    return out


def cd_figure(result: Mapping, draw, **kw):
    """The critical-difference diagram of the result (``draw`` = :func:`~..report.plots.critical_difference_figure`),
    titled as the pipeline's report titles it; None when no across-datasets test ran."""
    from ..report.sections import _alpha

    across = result["across_datasets"]
    if not across.get("ran") or len(across.get("average_ranks") or {}) < 2:
        return None
    nem = across.get("nemenyi") or {}
    return draw(
        across["average_ranks"],
        nem.get("cd"),
        nem.get("cliques") or [],
        title=f"Average ranks on {across.get('metric') or result['input']['metric']} "
        f"(Nemenyi, α = {_alpha(nem.get('alpha'))})",
        **kw,
    )
