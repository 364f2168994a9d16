"""The report's few-run statistics for seed replicates (issue 22): what a handful of seeds can and cannot show.

For a dataset whose replicates are seeds (``design=seeds``, and every experiment family) the report adds, on the
primary metric (:mod:`replearn.stats.fewruns`; Agarwal et al. 2021):

* per unit the mean, the **interquartile mean** over the seeds and its 95 % **stratified bootstrap** interval (one
  task = this dataset, so the bootstrap resamples the seeds);
* per pair the **probability of improvement** P(A better than B) -- a random seed of A against a random seed of
  B, ties one half -- with its bootstrap interval (the seeds of A and of B resampled independently);
* for each pair the pairwise test did **not** tell apart, the **minimum detectable effect**: the smallest true
  mean difference the paired t-test on these seeds would detect with 80 % power at the level the correction
  leaves for one pair in the worst case (alpha / m under Holm), in units of the metric (the effect in standard
  deviations times the standard deviation of the pair's differences over the seeds). "Not told apart" then reads
  as "this run could only detect differences of at least X".

Across the problems of an experiment family (two or more datasets) it adds the **aggregate IQM** of every unit
over all its seeds x problems with a stratified bootstrap interval (seeds resampled within each problem), on
scores min-max normalised per problem (0 = the worst run of any unit on that problem, 1 = the best), and a
**performance profile**: the fraction of a unit's runs whose normalised score exceeds each threshold.

Everything is computed here from the crossval records passed to the report (the significance rows only say which
pairs were told apart). The bootstraps are seeded from the significance seed by name,
``derive_seed(seed, "fewruns", dataset, ...)``, so a rerun writes the same numbers; iteration is over sorted names.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from ...stats import fewruns as fr
from ...stats.registry import label as _label
from .. import designs
from ..records import EvaluationResult, as_evaluation, as_evaluations
from ..seeding import derive_seed
from ..views import DatasetComparison, Significance
from .document import _Cell, _Document, _Fmt, _Heading, _Image, _Paragraph, _Table

__all__ = [
    "CONFIDENCE",
    "N_RESAMPLES",
    "POWER",
    "dataset_numbers",
    "dataset_section",
    "family_numbers",
    "family_section",
    "is_seed_replicates",
    "profile_figure",
]

#: bootstrap resamples of every interval here, their confidence, and the power of the minimum detectable effect
N_RESAMPLES = 2000
CONFIDENCE = 0.95
POWER = 0.8
#: the thresholds of the performance profile (normalised scores)
TAUS = np.linspace(0.0, 1.0, 101)
_REPLICATE_TESTS = ("replicate_ttest", "replicate_wilcoxon", "replicate_sign_test")
_CORRECTIONS = ("holm", "bonferroni", "shaffer", "bergmann_hommel", "hochberg", "hommel")


def is_seed_replicates(cv: EvaluationResult | Mapping) -> bool:
    """Whether every replicate of the crossval record ``cv`` (or its plain data) is a seed."""
    cv = as_evaluation(cv)
    return bool(cv.splits) and designs.independent_replicates(cv.replicate_kind)


def _finite(values: Sequence) -> np.ndarray:
    a = np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    return a[np.isfinite(a)]


def _seed(significance: Significance | Mapping) -> int:
    return int(Significance.from_dict(significance).seed or 0)


def _oriented(values: np.ndarray, greater: bool) -> np.ndarray:
    """Scores with higher = better (a loss is negated) for the probability of improvement."""
    return values if greater else -values


# --------------------------------------------------------------------------- one dataset
def dataset_numbers(
    dataset: str,
    cv: EvaluationResult | Mapping,
    entry: DatasetComparison | Mapping,
    significance: Significance | Mapping,
) -> dict:
    """The few-run numbers of one dataset of seed replicates, on its primary metric.

    Returns ``{"metric", "greater", "units": [{"unit", "n", "mean", "iqm", "ci"}], "pairs": [{"model_a",
    "model_b", "poi", "ci"}], "undetected": [{"model_a", "model_b", "test", "n", "pairs", "correction",
    "pvalue_adjusted", "level", "mde_sd", "sd", "mde", "reachable", "p_min"}]}`` (units and pairs sorted by name;
    ``undetected`` lists the pairs the significance stage tested and did not tell apart)."""
    entry, significance = DatasetComparison.from_dict(entry), Significance.from_dict(significance)
    cv = as_evaluation(cv)
    metric = str(entry.metric or cv.primary_metric or significance.metric)
    greater = bool(cv.greater(metric))
    seed = _seed(significance)
    units = []
    values = {}
    for unit in sorted(cv.models):
        v = _finite(cv.scores_of(unit, metric))
        if v.size == 0:
            continue
        values[unit] = v
        boot = fr.stratified_bootstrap_ci(
            v, "iqm", N_RESAMPLES, CONFIDENCE, derive_seed(seed, "fewruns", dataset, "iqm", unit)
        )
        units.append({"unit": unit, "n": int(v.size), "mean": float(v.mean()), "iqm": boot.estimate, "ci": boot.ci})
    pairs = []
    for a, b in itertools.combinations(sorted(values), 2):
        boot = fr.probability_of_improvement_ci(
            _oriented(values[a], greater),
            _oriented(values[b], greater),
            N_RESAMPLES,
            CONFIDENCE,
            derive_seed(seed, "fewruns", dataset, "poi", a, b),
        )
        pairs.append({"model_a": a, "model_b": b, "poi": boot.estimate, "ci": boot.ci})
    return {
        "metric": metric,
        "greater": greater,
        "units": units,
        "pairs": pairs,
        "undetected": _undetected(cv, entry, significance, metric),
    }


def _undetected(cv: EvaluationResult, entry: DatasetComparison, significance: Significance, metric: str) -> list[dict]:
    """The minimum detectable effect of every tested pair that the test did not tell apart."""
    rows = [r for r in entry.cv if r.pvalue is not None]
    m = len(rows)  # the p-values adjusted together (compare._finish_rows)
    alpha = significance.alpha
    if not m or alpha is None:
        return []
    out = []
    for r in sorted(rows, key=lambda r: r.pair):
        test = r.test
        if r.significant or test not in _REPLICATE_TESTS:
            continue
        a, b = r.pair
        sa = np.array([math.nan if v is None else float(v) for v in cv.scores_of(a, metric)], dtype=np.float64)
        sb = np.array([math.nan if v is None else float(v) for v in cv.scores_of(b, metric)], dtype=np.float64)
        if sa.size != sb.size:
            continue
        d = (sa - sb)[np.isfinite(sa) & np.isfinite(sb)]
        if d.size < 2:
            continue
        correction = r.correction_used or significance.correction or "none"
        corr = (
            correction
            if correction in ("holm", "bonferroni", "shaffer", "bergmann_hommel", "hochberg", "hommel")
            else "none"
        )
        sd = float(np.std(d, ddof=1))
        mde_sd = fr.minimum_detectable_effect(int(d.size), float(alpha), POWER, m, corr)
        p_min = fr.smallest_adjusted_pvalue(test, int(d.size), m, corr)
        out.append(
            {
                "model_a": a,
                "model_b": b,
                "test": test,
                "n": int(d.size),
                "pairs": m,
                "correction": corr,
                "pvalue_adjusted": r.pvalue_adjusted,
                "level": float(alpha) / m if corr != "none" else float(alpha),
                "mde_sd": mde_sd,
                "sd": sd,
                "mde": mde_sd * sd,
                "reachable": p_min <= float(alpha),
                "p_min": p_min,
            }
        )
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def dataset_section(
    doc: _Document,
    dataset: str,
    cv: EvaluationResult | Mapping,
    entry: DatasetComparison | Mapping,
    significance: Significance | Mapping,
    f: _Fmt,
) -> None:
    """The few-run tables of one dataset of seed replicates (nothing for other replicates or no scores)."""
    cv = as_evaluation(cv)  # once: is_seed_replicates and dataset_numbers take the record as it is
    if not is_seed_replicates(cv):
        return
    nums = dataset_numbers(dataset, cv, entry, significance)
    if not nums["units"]:
        return
    metric, arrow = nums["metric"], "↑" if nums["greater"] else "↓"
    doc.add(_Heading(3, "Few runs: IQM, bootstrap intervals, probability of improvement"))
    n_seeds = max(u["n"] for u in nums["units"])
    doc.add(
        _Paragraph(
            f"With {n_seeds} seeds a mean and a test verdict say little on their own (Agarwal et al. 2021). On "
            f"{metric} ({arrow}): the interquartile mean (IQM: the mean of the middle 50 % of the seeds' scores) with "
            f"a {_pct(CONFIDENCE)} percentile bootstrap interval over the seeds ({N_RESAMPLES} resamples), and for "
            "each pair the probability of improvement P(A better than B): the chance that a random seed of A scores "
            "better than a random seed of B (ties count one half; 0.5: neither tends to be better), with its "
            "bootstrap interval."
        )
    )
    doc.add(
        _Table(
            ("Unit", "Seeds", "Mean", "IQM", f"{_pct(CONFIDENCE)} CI of the IQM"),
            tuple(
                (
                    _Cell(u["unit"]),
                    _Cell(str(u["n"])),
                    _Cell(f.num(u["mean"])),
                    _Cell(f.num(u["iqm"])),
                    _Cell(f.ci(u["ci"])),
                )
                for u in nums["units"]
            ),
        )
    )
    if nums["pairs"]:
        doc.add(
            _Table(
                ("Pair (A vs B)", "P(A better than B)", f"{_pct(CONFIDENCE)} CI"),
                tuple(
                    (
                        _Cell(f"{p['model_a']} vs {p['model_b']}"),
                        _Cell(f.num(p["poi"]), p["ci"][0] > 0.5 or p["ci"][1] < 0.5),
                        _Cell(f.ci(p["ci"])),
                    )
                    for p in nums["pairs"]
                ),
            )
        )
    for u in nums["undetected"]:
        doc.add(_Paragraph(_undetected_line(u, metric, f)))


def _undetected_line(u: Mapping, metric: str, f: _Fmt) -> str:
    """ "Not told apart" in terms of what the run could detect."""
    a, b, n, m = u["model_a"], u["model_b"], u["n"], u["pairs"]
    where = f"{n} seeds" + (
        f", {m} pairs under {_label(u['correction'])}" if u["correction"] != "none" and m > 1 else ""
    )
    level = f"level {u['level']:.4g}" + (
        " (α / number of pairs, the worst case)" if u["correction"] != "none" and m > 1 else ""
    )
    head = f"{a} vs {b}: not told apart (adjusted p = {f.pvalue(u['pvalue_adjusted'])})."
    if not u["reachable"]:
        return (
            f"{head} The {_label(u['test'])} cannot reject with {where} whatever the scores (smallest attainable "
            f"adjusted p = {u['p_min']:.4g}): this verdict carries no information; use more seeds or the paired t-test."
        )
    t_note = "" if u["test"] == "replicate_ttest" else " (for the paired t-test; the rank test needs somewhat more)"
    return (
        f"{head} With {where} this run could only detect differences of at least {f.num(u['mde'])} in {metric}: "
        f"the paired t-test at {level} has {_pct(POWER)} power for a true mean difference of {u['mde_sd']:.2f} "
        f"standard deviations of the paired differences (sd over the seeds = {f.num(u['sd'])}){t_note}. "
        "A smaller true difference could go unseen, so this is no evidence that the two are equivalent."
    )


# --------------------------------------------------------------------------- across the problems of a family
def family_numbers(
    family: str, crossval: Mapping[str, EvaluationResult | Mapping], significance: Significance | Mapping
) -> dict | None:
    """The aggregate over the datasets (problems) of one family, in the configured order of ``crossval``.

    Scores are min-max normalised per problem over every unit's finite scores (1 = best, for a metric where lower
    is better too). Per unit: the problems where all its seeds have a score, the aggregate IQM over seeds x
    problems with its stratified bootstrap interval, and its performance profile at :data:`TAUS`.
    Returns ``{"family", "problems", "metrics", "units": [{"unit", "problems", "runs", "iqm", "ci",
    "profile"}]}``, or None with fewer than two problems of seed replicates."""
    crossval = as_evaluations(crossval)
    datasets = [d for d, cv in crossval.items() if is_seed_replicates(cv)]
    if len(datasets) < 2:
        return None
    seed = _seed(significance)
    normalised: dict[str, dict[str, np.ndarray]] = {}  # unit -> dataset -> normalised scores (complete only)
    metrics = []
    for d in datasets:
        cv = crossval[d]
        metric = str(cv.primary_metric)
        if metric not in metrics:
            metrics.append(metric)
        greater = bool(cv.greater(metric))
        raw = {u: cv.scores_of(u, metric) for u in sorted(cv.models)}
        pooled = np.concatenate([_finite(v) for v in raw.values()] or [np.zeros(0)])
        if pooled.size == 0:
            continue
        lo, hi = float(pooled.min()), float(pooled.max())
        for u, v in raw.items():
            a = np.array([math.nan if x is None else float(x) for x in v], dtype=np.float64)
            if a.size == 0 or not np.all(np.isfinite(a)):
                continue
            z = (a - lo) / (hi - lo) if hi > lo else np.full(a.shape, 0.5)
            normalised.setdefault(u, {})[d] = z if greater else 1.0 - z
    units = []
    for u in sorted(normalised):
        per = normalised[u]
        runs = max(per.values(), key=len).size
        cols = [d for d in datasets if d in per and per[d].size == runs]
        table = np.column_stack([per[d] for d in cols])
        boot = fr.stratified_bootstrap_ci(
            table, "iqm", N_RESAMPLES, CONFIDENCE, derive_seed(seed, "fewruns", "family", family, "iqm", u)
        )
        units.append(
            {
                "unit": u,
                "problems": cols,
                "runs": int(runs),
                "iqm": boot.estimate,
                "ci": boot.ci,
                "profile": fr.performance_profile(table, TAUS),
            }
        )
    if not units:
        return None
    return {"family": family, "problems": datasets, "metrics": metrics, "units": units}


def family_section(doc: _Document, nums: Mapping, f: _Fmt, image: _Image | None) -> None:
    """The aggregate IQM table and the performance profile of one family."""
    fam = nums["family"]
    doc.add(_Heading(2, f"Few runs across the {fam} problems"))
    metrics = ", ".join(str(m) for m in nums["metrics"])
    doc.add(
        _Paragraph(
            f"Aggregate over the {len(nums['problems'])} problems of the {fam} family (Agarwal et al. 2021), on the "
            f"primary metric ({metrics}) min-max normalised per problem: 0 is the worst run of any unit on that "
            "problem, 1 the best, for a metric where lower is better too, so problems of different scales weigh "
            "equally. The IQM is over all seeds x problems of a unit; its interval is a stratified bootstrap "
            f"({N_RESAMPLES} resamples, seeds resampled within each problem). A unit that runs on only some "
            "problems is summarised over those, and the normalisation is relative to the units on each problem."
        )
    )
    doc.add(
        _Table(
            ("Unit", "Problems", "Seeds", "Aggregate IQM (normalised)", f"{_pct(CONFIDENCE)} CI"),
            tuple(
                (
                    _Cell(u["unit"]),
                    _Cell(", ".join(u["problems"])),
                    _Cell(str(u["runs"])),
                    _Cell(f.num(u["iqm"])),
                    _Cell(f.ci(u["ci"])),
                )
                for u in nums["units"]
            ),
        )
    )
    if image is not None:
        doc.add(
            _Paragraph(
                "Performance profile: the fraction of a unit's runs (seeds x problems) whose normalised score "
                "exceeds each threshold τ; a curve above another is better over the whole distribution of runs, "
                "not only on average."
            )
        )
        doc.add(image)


def profile_figure(nums: Mapping):
    """The performance profiles of one family (a matplotlib Figure), one step line per unit; deterministic."""
    import matplotlib

    from .plots import _PALETTE, _STYLE, _new_figure

    with matplotlib.rc_context(_STYLE):
        fig = _new_figure(6.4, 4.0)
        ax = fig.subplots()
        for j, u in enumerate(nums["units"]):
            ax.step(
                TAUS,
                u["profile"],
                where="post",
                color=_PALETTE[j % len(_PALETTE)],
                lw=1.8,
                label=f"{u['unit']} ({u['runs']} seeds x {len(u['problems'])})",
            )
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.02)
        ax.set_xlabel("normalised score τ (per problem: 0 worst run, 1 best)")
        ax.set_ylabel("fraction of runs with score > τ")
        ax.set_title(f"{nums['family']}: performance profile")
        ax.legend(loc="lower left", fontsize="small")
        fig.tight_layout()
    return fig
