"""The summary at the top of the report: one verdict per dataset and one across datasets.

Each line reads the same rows the sections below show (the pairwise test after correction, the
Bayesian analysis with its ROPE, the across-datasets analysis), so the summary can never say more
than the sections do; where the frequentist and the Bayesian analyses disagree it says so and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeVar

from ...stats.registry import label
from .. import designs
from ..records import EvaluationResult, as_evaluations, scheme_dict
from ..views import AcrossPairs, BayesianComparison, DatasetComparison, PairComparison, Significance
from .document import _DASH, _Fmt


def _mean(values) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals and len(vals) == len(values) else None


def _eq(text: str) -> str:
    """ "= 0.012", or "< 0.001" for a p-value printed as "<0.001"."""
    return f"< {text[1:]}" if text.startswith("<") else f"= {text}"


_Row = TypeVar("_Row", PairComparison, BayesianComparison)


def _pair_row(rows: tuple[_Row, ...], a: str, b: str) -> tuple[_Row | None, bool]:
    """The row comparing ``a`` and ``b`` and whether ``a`` is its model A."""
    for r in rows:
        if (r.model_a, r.model_b) == (a, b):
            return r, True
        if (r.model_a, r.model_b) == (b, a):
            return r, False
    return None, True


def scope(entry: DatasetComparison | Mapping, cv: EvaluationResult) -> tuple[str, str]:
    """(where the means come from, what a verdict claims) for the dataset's design -- the one wording of the
    question each design answers, shared by the summary and the sections."""
    entry = DatasetComparison.from_dict(entry)
    n = entry.n_replicates or len(cv.splits) or ""
    n = f"{n} " if n else ""
    design = designs.of_scheme(scheme_dict(cv), design=entry.design, replicates=entry.replicates)
    sweep = " at each model's best point of the sweep" if entry.sweep is not None else ""
    question = designs.question(entry.question, one_problem=cv.problem_kind.one_problem)
    return question.over(design, n) + sweep, question.claim


def detectable_phrase(row: PairComparison | Mapping, f: _Fmt) -> str:
    """What a "not significant" could have found: the minimum detectable effect of the row (80 % power at the
    first step of the correction), or nothing when the test has no standard error (rank and sign tests)."""
    row = PairComparison.from_dict(row)
    mde = row.detectable_difference
    if mde is None:
        return ""
    level = row.detectable_level
    at = f" at α = {float(level):.3g}" if level is not None else ""
    return f"; this design detects a true difference of ±{f.num(mde)} or more with 80 % power{at}"


def dataset_line(
    name: str, cv: EvaluationResult, entry: DatasetComparison | Mapping, significance: Significance | Mapping, f: _Fmt
) -> str:
    """One dataset's verdict: the best model on the primary metric and what the tests say together."""
    entry, significance = DatasetComparison.from_dict(entry), Significance.from_dict(significance)
    metric = cv.primary_metric or significance.metric
    higher = cv.greater(metric)
    excluded = set(significance.left_out(name))
    if entry.means:  # the view the tests used (a sweep: each model at its best point)
        raw = {m: v for m, v in entry.means.items() if m not in excluded}
    else:
        raw = {m: _mean(v.values(metric)) for m, v in cv.models.items() if m not in excluded}
    means: dict[str, float] = {m: v for m, v in raw.items() if v is not None and math.isfinite(v)}
    if not means:
        return f"{name}: no model has a {metric} score to compare."
    ordered = sorted(means, key=lambda m: (-means[m] if higher else means[m], m))
    best = ordered[0]
    where, claim = scope(entry, cv)
    if len(ordered) == 1:
        return f"{name}: {best} is the only model with a {metric} score ({f.num(means[best])}); nothing to compare."
    runner = ordered[1]
    diff = abs(means[best] - means[runner])
    head = (
        f"{name}: {best} has the best mean {metric}{where} ({f.num(means[best])}), "
        f"{f.num(diff)} {'above' if higher else 'below'} the runner-up {runner} ({f.num(means[runner])})"
    )
    row, _ = _pair_row(entry.cv, best, runner)
    correction = label(significance.correction if significance.correction != "none" else None)
    if row is None:
        return head + "; no pairwise test was recorded."
    if row.pvalue is None and row.note:  # no test could run: say why, claim nothing
        if means[best] == means[runner] and str(row.note).startswith("identical"):
            shared = f"{name}: {best} and {runner} share the best mean {metric}{where}"
            return f"{shared} ({f.num(means[best])}): {row.note}."
        return f"{head}; {row.note}."
    test = label(row.test or significance.pairwise_test)
    sig = bool(row.significant)
    p_adj = row.reported_pvalue
    alpha = float(0.05 if significance.alpha is None else significance.alpha)
    selection = f", {row.selection}" if row.selection else ""
    freq = (
        f"{'significant' if sig else 'not significant'} by the {test} after {correction}{selection} "
        f"(adjusted p {_eq(f.pvalue(p_adj))}, α = {alpha:g}; {claim})"
    )
    if sig and row.winner and row.winner != best:  # cannot happen with one view; never contradict
        freq += f"; the test favours {row.winner}"
    if not sig:
        freq += detectable_phrase(row, f)
    brow, best_is_a = _pair_row(entry.bayesian, best, runner)
    if brow is None:
        return f"{head}; {freq}."
    p_better = brow.p_a_better if best_is_a else brow.p_b_better
    p_eq = brow.p_equivalent
    rope = brow.rope
    rope_txt = f"±{f.num(rope)}" if rope is not None else _DASH
    decision = brow.decision
    if decision is None:  # rows written before decisions were recorded
        decision = "undecided"
    best_side = "a_better" if best_is_a else "b_better"
    if decision == best_side:
        bayes, kind = f"Bayesian: practically better with probability {f.num(p_better)}", "better"
    elif decision in ("a_better", "b_better"):
        p_worse = brow.p_b_better if best_is_a else brow.p_a_better
        bayes, kind = f"Bayesian: practically worse with probability {f.num(p_worse)}", "worse"
    elif decision == "equivalent":
        bayes, kind = (
            f"Bayesian: practically equivalent (within the ROPE {rope_txt}) with probability {f.num(p_eq)}",
            "equivalent",
        )
    else:
        bayes, kind = (
            f"Bayesian: undecided (P(better) = {f.num(p_better)}, P(equivalent within {rope_txt}) = {f.num(p_eq)})",
            "undecided",
        )
    if sig and kind == "better":
        why = "both analyses agree"
    elif not sig and kind in ("equivalent", "undecided"):
        why = (
            "both analyses agree that the data show no meaningful difference"
            if kind == "equivalent"
            else "both analyses agree that the data cannot tell them apart"
        )
    elif sig and kind == "equivalent":
        why = (
            f"they disagree in words only: the difference is detectable but smaller than the ROPE ({rope_txt}), "
            "so it is of no practical size"
        )
    elif sig and kind == "undecided":
        why = (
            "the test detects a difference, but the Bayesian analysis cannot say that it exceeds the ROPE "
            f"({rope_txt}) at the same level"
        )
    else:
        why = "the analyses disagree; see the pairwise and Bayesian tables"
    return f"{head}; {freq}; {bayes} — {why}."


def across_line(significance: Significance | Mapping, f: _Fmt) -> str | None:
    """The verdict across datasets (ranks, Friedman and the post-hoc procedure), stating N."""
    significance = Significance.from_dict(significance)
    across = significance.across_datasets
    ranks = across.average_ranks
    n = across.n
    if not ranks:
        pairs = AcrossPairs.from_dict(significance.across_pairs)
        if pairs.ran:
            sig = [r for r in pairs.rows if r.significant]
            verdicts = "; ".join(
                f"{r.winner} better than {r.model_b if r.winner == r.model_a else r.model_a}" for r in sig if r.winner
            )
            return (
                f"Across N = {len(pairs.datasets)} datasets ({label(pairs.test)}, "
                f"smallest attainable p = {f.pvalue(pairs.smallest_possible_pvalue)}): "
                + (verdicts or "no pair differs significantly")
                + "."
            )
        return None if not across.reason else f"Across datasets: not compared ({across.reason})."
    order = sorted(ranks, key=lambda m: (ranks[m], m))
    ranking = ", ".join(f"{m} ({f.num(ranks[m])})" for m in order)
    if not across.ran:
        return (
            f"Across N = {n} datasets: average ranks {ranking}; no across-datasets test was run, so no model is "
            f"declared better ({across.reason})."
        )
    fr = across.friedman
    method = "exact" if fr.pvalue_method == "exact" else "chi-square approximation"
    head = f"Across N = {n} datasets: average ranks {ranking}; Friedman p = {f.pvalue(fr.pvalue)} ({method})"
    if not across.significant:
        return head + ": no significant difference among the models."
    ph = across.posthoc
    if not ph.ran:
        return head + f": significant, but no post-hoc comparison was run ({ph.reason})."
    found = [c for c in ph.comparisons if c.significant]
    proc = label(ph.procedure)
    if not found:
        return head + f": significant overall, but no pair differs after {proc}."
    better = [f"{c.a if c.rank_a < c.rank_b else c.b} better than {c.b if c.rank_a < c.rank_b else c.a}" for c in found]
    return head + f"; post-hoc ({proc}): " + "; ".join(better) + "."


def summary_lines(crossval: Mapping, significance: Significance | Mapping, f: _Fmt, order: list[str]) -> list[str]:
    """The summary's verdict lines: one per dataset of ``order`` (``crossval``: dataset -> the crossval record, or its
    plain data), then the one over datasets."""
    significance = Significance.from_dict(significance)
    crossval = as_evaluations(crossval)
    lines = [dataset_line(d, crossval[d], significance.dataset(d), significance, f) for d in order if d in crossval]
    across = across_line(significance, f)
    if across:
        lines.append(across)
    return lines


def model_line(
    name: str,
    key: str,
    cv: EvaluationResult,
    entry: DatasetComparison | Mapping,
    significance: Significance | Mapping,
    f: _Fmt,
) -> str:
    """One model's verdicts on one dataset, from its pairwise rows: which models it is significantly better or
    worse than (after the correction) and which it cannot be told from, with the question the test answers."""
    entry, significance = DatasetComparison.from_dict(entry), Significance.from_dict(significance)
    _, claim = scope(entry, cv)
    better, worse, same = [], [], []
    for r in entry.cv:
        if key not in (r.model_a, r.model_b):
            continue
        other = str(r.model_b if r.model_a == key else r.model_a)
        if r.pvalue is None:
            continue
        p = f.pvalue(r.reported_pvalue)
        if r.significant and r.winner == key:
            better.append(f"{other} (adjusted p {_eq(p)})")
        elif r.significant and r.winner == other:
            worse.append(f"{other} (adjusted p {_eq(p)})")
        else:
            same.append(other)
    test = label(significance.pairwise_test)
    parts = []
    if better:
        parts.append("significantly better than " + ", ".join(better))
    if worse:
        parts.append("significantly worse than " + ", ".join(worse))
    if same:
        parts.append("not significantly different from " + ", ".join(same))
    if not parts:
        return f"{name}: {key} was not compared with another model."
    return f"{name}: {key} is " + "; ".join(parts) + f" ({test}; {claim})."


def verdict_tags(crossval: Mapping, significance: Significance | Mapping, decimals: int = 3) -> dict:
    """The significance stage's verdicts as MLflow tags (the report's own wording): ``{"parent": {tag: text},
    "children": {(dataset, model key): {tag: text}}}`` -- the runs page of the MLflow UI then shows a verdict beside
    the metrics of every run."""
    f = _Fmt(decimals)
    significance = Significance.from_dict(significance)
    crossval = as_evaluations(crossval)
    parent, children = {}, {}
    for d in crossval:
        entry = significance.dataset(d)
        parent[f"replearn.verdict.{d}"] = dataset_line(d, crossval[d], entry, significance, f)
        for key in crossval[d].models:
            children[(d, key)] = {"replearn.verdict": model_line(d, key, crossval[d], entry, significance, f)}
    across = across_line(significance, f)
    if across:
        parent["replearn.verdict.across_datasets"] = across
    return {"parent": parent, "children": children}
