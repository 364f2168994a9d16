"""The report of a benchmark over many datasets: one heat-map and one table instead of a section per dataset.

A comparison on three datasets reads well as three sections (scores, plots, every pairwise test); a
benchmark on 43 does not: 43 sections of 66 pairwise rows each is a document nobody scans. Above
:data:`COMPACT_ABOVE` datasets (``report.per_dataset: auto``; ``full`` or ``compact`` force either form) the
report shows, after the across-datasets verdict,

* a heat-map of the per-dataset ranks (rows: datasets, columns: models ordered by average rank, each cell
  annotated with the model's mean primary metric), the picture TabArena and AMLB readers know;
* one table with a row per dataset: the size, every model's mean score and rank, the best model and how many
  of the others it beats significantly by the dataset's own test after its correction -- the same rows the
  significance stage wrote, so the table cannot claim more than ``results/significance.json``.

Every number stays in ``results/significance.json`` and ``metrics/``; only the presentation changes. The ranks
are those of the across-datasets analysis (:func:`replearn.stats.rank_scores`, 1 = best, ties averaged) on the
same mean scores, so the heat-map and the critical-difference diagram agree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ...stats.registry import label
from ..records import as_evaluations
from ..views import DatasetComparison, Significance
from .document import _DASH, _Cell, _Document, _Fmt, _Heading, _Image, _Paragraph, _Table

#: ``report.per_dataset: auto`` shows a section per dataset up to this many datasets, the compact view above
COMPACT_ABOVE = 8


def is_compact(settings: Mapping, n_datasets: int) -> bool:
    """Whether the report shows the compact benchmark view (``report.per_dataset``; see the module docstring)."""
    from replearn.pipeline.report_schema import check_report_settings

    check_report_settings({"title": "", "decimals": 3, "dpi": 100, "plots": True, **dict(settings)})
    mode = settings.get("per_dataset") or "auto"
    return mode == "compact" or (mode == "auto" and n_datasets > COMPACT_ABOVE)


def mean_table(crossval: Mapping, order: Sequence[str]) -> tuple[list[str], np.ndarray, str | None, bool]:
    """``(models, means, metric, higher_is_better)``: the mean primary metric of every model (columns, sorted)
    on every dataset of ``order`` (rows); NaN where a model has no score on a dataset (not run, or failed).
    ``crossval``: dataset -> the crossval record (or its plain data)."""
    crossval = as_evaluations({d: crossval[d] for d in order})
    models = sorted({m for d in order for m in crossval[d].models})
    metrics = {crossval[d].primary for d in order}
    metric = metrics.pop() if len(metrics) == 1 else None
    higher = bool(crossval[order[0]].greater(metric)) if order else True
    means = np.full((len(order), len(models)), np.nan)
    for i, d in enumerate(order):
        for j, m in enumerate(models):
            entry = crossval[d].models[m] if m in crossval[d].models else None
            values = [] if entry is None else entry.values(crossval[d].primary)
            vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
            # a failed fit: no mean there (the worst rank, as in the across-datasets tests; docs/statistics.md)
            if vals and entry is not None and not entry.failures:
                means[i, j] = float(np.mean(vals))
    return models, means, metric, higher


def rank_rows(means: np.ndarray, higher_is_better: bool, decimals: int | None = None) -> np.ndarray:
    """Per-row ranks (1 = best, ties averaged) as in the across-datasets analysis; a missing score (NaN) ranks
    last among the models of its row, tied with any other missing one (the worst-rank convention)."""
    from scipy import stats

    s = np.asarray(means, dtype=np.float64)
    if decimals is not None:
        s = np.round(s, int(decimals))
    key = -s if higher_is_better else s.copy()
    key[np.isnan(key)] = np.inf  # worst, tied among the missing
    return stats.rankdata(key, axis=1) if key.size else key


def rank_heatmap_plot(
    datasets: Sequence[str],
    models: Sequence[str],
    ranks: np.ndarray,
    means: np.ndarray,
    path: Path | str,
    dpi: int,
    *,
    metric: str,
    decimals: int = 3,
) -> Path:
    """Heat-map of ``ranks`` (rows ``datasets``, columns ``models`` in the given order), 1 = best in the darkest
    colour, each cell annotated with the mean score (``failed`` where there is none)."""
    from .plots import _STYLE, _check_dpi, _new_figure, _save

    dpi = _check_dpi(dpi)
    n, k = ranks.shape
    if n == 0 or k == 0:
        raise ValueError("a rank heat-map needs at least one dataset and one model")
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        name_width = max(1.2, 0.075 * max(len(d) for d in datasets) + 0.3)
        width = name_width + 0.78 * k + 1.2
        height = 1.6 + 0.26 * n + 0.075 * max(len(m) for m in models)
        fig = _new_figure(width, height)
        ax = fig.add_axes(
            (
                name_width / width,
                0.075 * max(len(m) for m in models) / height + 0.25 / height,
                0.78 * k / width,
                0.26 * n / height,
            )
        )
        cmap = matplotlib.colormaps["viridis"]
        img = ax.imshow(ranks, cmap=cmap, vmin=1, vmax=max(k, 2), aspect="auto", interpolation="nearest")
        ax.set_xticks(range(k), labels=list(models), rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(n), labels=list(datasets), fontsize=7.5)
        ax.tick_params(length=0)
        for i in range(n):
            for j in range(k):
                text = "failed" if math.isnan(means[i, j]) else f"{means[i, j]:.{decimals}f}"
                shade = cmap((ranks[i, j] - 1) / max(k - 1, 1))
                light = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] > 0.55
                ax.text(j, i, text, ha="center", va="center", fontsize=6.5, color="black" if light else "white")
        ax.set_title(f"Rank per dataset on {metric} (1 = best; cells: mean {metric})", fontsize=10, loc="left")
        cax = fig.add_axes(
            ((name_width + 0.78 * k + 0.25) / width, ax.get_position().y0, 0.18 / width, 0.26 * n / height)
        )
        bar = fig.colorbar(img, cax=cax)
        bar.set_label("rank", fontsize=9)
        bar.ax.invert_yaxis()
        return _save(fig, path, dpi)


#: The questions whose per-dataset test is calibrated (make calibration): a benchmark row prints a verdict only
#: for these. "resampling" (half-sampling off: the corrected resampled t-test's heuristic) rejects up to 11 % of
#: true nulls for unstable learners such as 1-NN (issue 39), so its rows show the ranks and no verdict.
CALIBRATED_QUESTIONS = ("population", "split", "problem")


def _calibrated(entry: DatasetComparison) -> bool:
    return entry.question in CALIBRATED_QUESTIONS


def _significant_wins(entry: DatasetComparison, best: str) -> tuple[int, int]:
    """(how many models ``best`` beats by the dataset's pairwise test after correction, how many were tested)."""
    wins = tested = 0
    for row in entry.cv:
        if best not in (row.model_a, row.model_b) or row.pvalue is None:
            continue
        tested += 1
        if row.significant and row.winner == best:
            wins += 1
    return wins, tested


def per_dataset_section(
    doc: _Document,
    crossval: Mapping,
    significance: Significance | Mapping,
    order: Sequence[str],
    f: _Fmt,
    image: _Image | None,
    decimals: int | None = None,
) -> None:
    """The compact per-dataset view: the heat-map and one row per dataset (see the module docstring)."""
    significance = Significance.from_dict(significance)
    crossval = as_evaluations({d: crossval[d] for d in order})
    models, means, metric, higher = mean_table(crossval, order)
    if not order or not models:
        return
    ranks = rank_rows(means, higher, decimals)
    avg = ranks.mean(axis=0)
    cols = sorted(range(len(models)), key=lambda j: (avg[j], models[j]))
    sig = significance.dataset
    doc.add(_Heading(2, f"Per dataset ({len(order)} datasets)"))
    arrow = "higher" if higher else "lower"
    doc.add(
        _Paragraph(
            f"One row per dataset: each model's mean {metric} over its cross-validation replicates and, in brackets, "
            f"its rank on that dataset (1 = best, {arrow} is better; ties share the average rank; a model without a "
            "score ranks last). 'Beats' counts the other models the best one is significantly better than by the "
            "dataset's own pairwise test after its correction — a claim about datasets of that size, not across "
            "datasets — where that test is calibrated (half-sampling; — elsewhere). "
            "Columns are in order of average rank; every pairwise row is in results/significance.json."
        )
    )
    if any(not _calibrated(sig(d)) for d in order):
        doc.add(_Paragraph(_UNCALIBRATED_NOTE))
    if image is not None:
        doc.add(image)
    rows = []
    for i, d in enumerate(order):
        cv = crossval[d]
        finite = [j for j in range(len(models)) if not math.isnan(means[i, j])]
        best = min(finite, key=lambda j: (ranks[i, j], models[j])) if finite else None
        cells = [_Cell(d), _Cell(str(cv.n_examples))]
        for j in cols:
            text = _DASH if math.isnan(means[i, j]) else f"{f.num(means[i, j])} ({ranks[i, j]:g})"
            cells.append(_Cell(text, bold=best is not None and ranks[i, j] == ranks[i, best]))
        if best is None:
            cells += [_Cell(_DASH), _Cell(_DASH)]
        elif not _calibrated(sig(d)):
            cells += [_Cell(models[best]), _Cell(_DASH)]
        else:
            wins, tested = _significant_wins(sig(d), models[best])
            cells += [_Cell(models[best]), _Cell(f"{wins} of {tested}" if tested else _DASH)]
        rows.append(tuple(cells))
    tests = sorted({str(r.test) for d in order for r in sig(d).cv if r.test})
    correction = significance.correction
    caption = (
        f"Pairwise tests: {', '.join(label(t) for t in tests) or _DASH}; correction: "
        f"{label(correction) if correction and correction != 'none' else 'none'}."
    )
    doc.add(
        _Table(
            ("Dataset", "n", *(f"{models[j]} (avg rank {avg[j]:.2f})" for j in cols), "Best", "Beats"),
            tuple(rows),
            caption=caption,
        )
    )


def digest_line(
    crossval: Mapping, significance: Significance | Mapping, order: Sequence[str], decimals: int | None = None
) -> str:
    """One summary line for the per-dataset results of a benchmark: how often each model is best, and on how
    many datasets the best one beats every other model by that dataset's test."""
    sig = Significance.from_dict(significance).dataset
    models, means, metric, higher = mean_table(crossval, order)
    if not order or not models:
        return "Per dataset: no model has a score to compare."
    ranks = rank_rows(means, higher, decimals)
    best_counts: dict[str, float] = {}
    clear = 0
    for i, d in enumerate(order):
        top = [j for j in range(len(models)) if not math.isnan(means[i, j]) and ranks[i, j] == ranks[i].min()]
        for j in top:  # shared first places count as a fraction
            best_counts[models[j]] = best_counts.get(models[j], 0.0) + 1.0 / len(top)
        if len(top) == 1 and _calibrated(sig(d)):
            wins, tested = _significant_wins(sig(d), models[top[0]])
            clear += tested > 0 and wins == tested
    calibrated = sum(_calibrated(sig(d)) for d in order)
    ranking = ", ".join(f"{m} {c:g}" for m, c in sorted(best_counts.items(), key=lambda t: (-t[1], t[0])))
    head = f"Per dataset (N = {len(order)}): the best mean {metric} belongs to {ranking} (shared first places split)"
    if not calibrated:
        return (
            head
            + "; no per-dataset verdict is printed ("
            + _UNCALIBRATED_NOTE[0].lower()
            + _UNCALIBRATED_NOTE[1:-1]
            + ")."
        )
    return (
        head + f"; on {clear} of {calibrated} datasets with a calibrated test the best model is significantly better "
        "than every other model by that dataset's pairwise test after correction (a claim about datasets of that "
        "size; the table below gives every dataset)."
    )


_UNCALIBRATED_NOTE = (
    "Without the half-sampling fits (cv.half_sampling.subsamples: 0) a dataset's pairwise test is the corrected "
    "resampled t-test, whose heuristic for the data-sampling variance rejects up to 11 % of true nulls for unstable "
    "learners such as 1-NN: those datasets' rows give the ranks and no verdict (set cv.half_sampling.subsamples > 0 "
    "for a calibrated per-dataset verdict)."
)
