"""``replearn diff``'s three outputs: a terminal table, Markdown for a pull-request comment, and JSON.

Every line that carries a verdict word says which question it answers ("on these splits"); the header states it
in full, with the test, the correction, alpha and the margin. Identical cells are counted but listed only with
``--all`` (text, Markdown); the JSON holds every cell.
"""

from __future__ import annotations

import json
import math

from ...stats.registry import label
from .engine import CHANGES, QUESTION, SHORT_QUESTION, Cell, DiffResult

JSON_SCHEMA = "replearn.diff/1"


def _num(v, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    return f"{v:.{digits}f}"


def _signed(v, digits: int = 4) -> str:
    return "—" if v is None else f"{v:+.{digits}f}"


def _p(v) -> str:
    if v is None:
        return "—"
    return "<0.0001" if v < 1e-4 else f"{v:.4f}"


def _ci(ci) -> str:
    return "—" if ci is None else f"[{ci[0]:+.4f}, {ci[1]:+.4f}]"


def verdict_text(c: Cell) -> str:
    """The verdict of one cell, with its question (``on these splits``) and the margin statements."""
    q = SHORT_QUESTION
    delta = f"{c.margin:.3g}" if c.margin else None
    if c.verdict == "identical":
        return "identical (the same score on every replicate)"
    if c.verdict == "seed changed":
        return "seed changed (random_state on every replicate): not tested"
    if c.verdict == "not testable":
        return "not testable: " + "; ".join(c.notes)
    if c.verdict == "fails more":
        return f"worse {q}: " + "; ".join(n for n in c.notes if not n.startswith("random_state"))
    if c.verdict == "fails less":
        return f"better {q}: " + "; ".join(n for n in c.notes if not n.startswith("random_state"))
    if c.verdict in ("worse", "better"):
        beyond = ""
        if delta:
            beyond = f", by more than {delta}" if c.beyond_margin else f" (by more than {delta}: not shown)"
        return f"{c.verdict} {q}{beyond}"
    if c.mde is not None and math.isinf(c.mde):
        mde = f"; {c.n} replicates cannot reach the corrected level at all"
    else:
        mde = f"; detects ≥ {c.mde:.3g} in 80 % of runs" if c.mde else ""
    if c.verdict == "equivalent":
        return f"no change detected {q}; equivalent within ±{delta}{mde}"
    if c.verdict == "non-inferior":
        return f"no change detected {q}; non-inferior within {delta}{mde}"
    return f"no change detected {q}{mde}"


def _summary(r: DiffResult) -> str:
    counts = r.counts()
    parts = [f"{n} {v}" for v, n in counts.items()]
    outcome = r.outcome()
    tail = f" ({SHORT_QUESTION})" if outcome not in ("identical", "nothing compared") else ""
    return f"Outcome: {outcome}{tail} -- {', '.join(parts) or 'no cell compared'}."


def header_lines(r: DiffResult) -> list[str]:
    s = r.settings
    margin = (
        f"margin delta = {s.margin:g}" + (" of A's mean score" if s.margin_scale == "relative" else "")
        if s.margin
        else "no margin"
    )
    lines = [
        f"replearn diff: A = {r.a.describe()}, B = {r.b.describe()}",
        f"Question, for every cell: did the change alter the score {QUESTION}?",
        f"Test: {label('sign_flip')} (exact where it can be: {r.n_tested} tested cell(s)), {r.correction_label} "
        f"over them, alpha = {s.alpha:g}; {margin} (one-sided t-tests over the replicates, adjusted alike); "
        "interval: Student's t over the replicates.",
    ]
    if r.changed_params:
        shown = [f"{k} {v[0]!r} -> {v[1]!r}" for k, v in list(r.changed_params.items())[:12]]
        more = len(r.changed_params) - len(shown)
        lines.append("Changed parameters: " + "; ".join(shown) + (f"; and {more} more" if more > 0 else ""))
    return lines


def _rows(r: DiffResult, show_all: bool) -> list[Cell]:
    return [c for c in r.cells if show_all or c.verdict != "identical"]


def _footer(r: DiffResult, show_all: bool, *, markdown: bool) -> list[str]:
    out = []
    hidden = sum(c.verdict == "identical" for c in r.cells) if not show_all else 0
    if hidden:
        out.append(f"{hidden} identical cell(s) not listed (--all lists them).")
    for ref in r.refused:
        models = f" ({len(ref.models)} model(s))" if ref.models else ""
        out.append(f"Not paired: {ref.dataset}{models}: {ref.reason}; not compared.")
    for side, only in (("A", r.only_in_a), ("B", r.only_in_b)):
        for what, names in only.items():
            if names:
                out.append(f"Only in {side} ({what}, not compared): {', '.join(names)}.")
    for c in r.cells:
        for n in c.notes:
            if n.startswith("random_state fixed"):
                out.append(f"{c.dataset}/{c.label}: {n}.")
                break
    out.extend(f"Note: {n}." for n in r.notes)
    if r.mlflow:
        out.append(f"MLflow: {r.mlflow}.")
    out.append(_summary(r))
    if markdown:
        out = [f"- {line}" if not line.startswith("Outcome") else f"\n**{line}**" for line in out]
    return out


COLUMNS = ("dataset", "model", "metric", "A", "B", "change", "CI", "adj. p", "verdict")


def _cells(c: Cell, r: DiffResult) -> list[str]:
    return [
        c.dataset,
        c.label,
        c.metric,
        _num(c.mean_a),
        _num(c.mean_b),
        _signed(c.change),
        _ci(c.ci) if c.ci else "—",
        _p(c.pvalue_adjusted),
        verdict_text(c),
    ]


def text(r: DiffResult, *, show_all: bool = False) -> str:
    rows = [list(COLUMNS[:-3]) + [f"{1 - r.settings.alpha:.0%} CI", "adj. p", f"verdict ({SHORT_QUESTION})"]]
    rows += [_cells(c, r) for c in _rows(r, show_all)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = header_lines(r) + [""]
    if len(rows) > 1:
        for row in rows:
            lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths)) + "  " + row[-1])
        lines.append("")
    lines += _footer(r, show_all, markdown=False)
    return "\n".join(lines) + "\n"


def _md_escape(v: str) -> str:
    return v.replace("|", "\\|")


def markdown(r: DiffResult, *, show_all: bool = False) -> str:
    outcome = r.outcome()
    icon = {"regression": "❌", "change": "⚠️", "identical": "✅", "no change detected": "✅", "nothing compared": "❔"}[
        outcome
    ]
    lines = [f"### replearn diff: {icon} {outcome}", ""]
    lines += [line if i else f"**{line}**" for i, line in enumerate(header_lines(r))]
    lines.append("")
    shown = _rows(r, show_all)
    if shown:
        head = list(COLUMNS[:-3]) + [f"{1 - r.settings.alpha:.0%} CI", "adj. p", f"verdict ({SHORT_QUESTION})"]
        changed = [c for c in shown if c.verdict in CHANGES]
        rest = [c for c in shown if c.verdict not in CHANGES]

        def table(cells):
            out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
            out += ["| " + " | ".join(_md_escape(v) for v in _cells(c, r)) + " |" for c in cells]
            return out

        if changed:
            lines += table(changed) + [""]
        if rest:
            if changed:
                lines += [f"<details><summary>{len(rest)} other cell(s)</summary>", ""]
            lines += table(rest) + [""]
            if changed:
                lines += ["</details>", ""]
    lines += _footer(r, show_all, markdown=True)
    return "\n".join(lines) + "\n"


def _finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    return v


def to_dict(r: DiffResult, fail_on: str = "never") -> dict:
    s = r.settings

    def side(x):
        return {"label": x.label, "kind": x.kind, "commit": x.commit, "experiment": x.exp_name}

    cells = [
        {
            "dataset": c.dataset,
            "model": c.model,
            "point": c.point,
            "metric": c.metric,
            "higher_is_better": c.higher_is_better,
            "verdict": c.verdict,
            "verdict_text": verdict_text(c),
            "n_replicates": c.n,
            "mean_a": c.mean_a,
            "mean_b": c.mean_b,
            "change": c.change,
            "ci": list(c.ci) if c.ci else None,
            "confidence": 1.0 - s.alpha,
            "effect_size": c.effect_size,
            "effect_size_name": "cohens_dz" if c.effect_size is not None else None,
            "pvalue": c.pvalue,
            "pvalue_adjusted": c.pvalue_adjusted,
            "method": c.method,
            "margin": c.margin,
            "beyond_margin": c.beyond_margin,
            "pvalue_beyond_margin_adjusted": c.p_beyond_margin,
            "pvalue_non_inferior_adjusted": c.p_non_inferior,
            "pvalue_equivalent_adjusted": c.p_equivalent,
            "minimum_detectable_change": c.mde,
            "sd_difference": c.sd,
            "dropped_replicates": c.dropped,
            "failed_fits_a": c.failed_a,
            "failed_fits_b": c.failed_b,
            "changed_params": c.changed_params,
            "notes": c.notes,
        }
        for c in r.cells
    ]
    return _finite(
        {
            "schema": JSON_SCHEMA,
            "question": f"did the change alter the score {QUESTION}?",
            "a": side(r.a),
            "b": side(r.b),
            "settings": {
                "test": "sign_flip",
                "test_label": label("sign_flip"),
                "margin_test": "margin_ttest",
                "correction": s.correction,
                "correction_label": r.correction_label,
                "alpha": s.alpha,
                "margin": s.margin,
                "margin_scale": s.margin_scale,
                "metrics": list(s.metrics) if s.metrics else None,
                "fail_on": fail_on,
            },
            "outcome": r.outcome(),
            "exit_code": r.exit_code(fail_on),
            "counts": r.counts(),
            "n_tested": r.n_tested,
            "changed_params": r.changed_params,
            "cells": cells,
            "refused": [{"dataset": x.dataset, "reason": x.reason, "models": x.models} for x in r.refused],
            "only_in_a": r.only_in_a,
            "only_in_b": r.only_in_b,
            "notes": r.notes,
            "mlflow": r.mlflow,
        }
    )


def json_text(r: DiffResult, fail_on: str = "never") -> str:
    return json.dumps(to_dict(r, fail_on), indent=2, sort_keys=True, allow_nan=False) + "\n"
