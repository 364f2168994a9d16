"""The failed fits in the report (``cv.on_error: record``): the "Failures" section listing every one, and the
notes beside the tables whose numbers they change (dropped replicates, left-out models, imputed ranks).

The conventions are those of :mod:`replearn.pipeline.compare` (docs/statistics.md, "Failed fits"); nothing here
recomputes a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..records import as_evaluations, as_train_results
from ..views import AcrossDatasets, AcrossPairs, DatasetComparison
from .document import _Cell, _Document, _Heading, _Paragraph, _Table


def _ranges(indices: Sequence[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``"0–2, 5, 7–8"``."""
    out: list[str] = []
    idx = sorted(set(int(i) for i in indices))
    start = prev = None
    for i in idx + [None]:
        if i is not None and prev is not None and i == prev + 1:
            prev = i
            continue
        if start is not None:
            out.append(str(start) if start == prev else f"{start}–{prev}")
        start = prev = i
    return ", ".join(out)


def failure_rows(crossval: Mapping, order: Sequence[str], train_results: Mapping | None = None) -> list[dict]:
    """Every failed fit, grouped by (dataset, model, kind of fit, reason, message): ``{"dataset", "model",
    "fits" ("cross-validation", "half-sampling" or "final fit"), "replicates" (indices), "reason", "message"}``,
    in the configured dataset order and sorted model order."""
    rows: list[dict] = []
    crossval = as_evaluations({d: crossval[d] for d in order if d in crossval})
    train = train_results or {}
    finals = as_train_results({d: train[d] for d in order if d in train})
    for d in order:
        groups: dict[tuple, list[int]] = {}
        final = finals[d].models if d in finals else {}
        for key in sorted(final):
            f = final[key].failure
            if f:
                groups.setdefault((key, "final fit", f.reason, f.message), []).append(f.replicate)
        if d in crossval:
            cv = crossval[d]
            for key in sorted(cv.models):
                for f in cv.models[key].failures:
                    groups.setdefault((key, "cross-validation", f.reason, f.message), []).append(f.replicate)
            for key in sorted(cv.variance_failures):
                for f in cv.variance_failures[key]:
                    groups.setdefault((key, "half-sampling", f.reason, f.message), []).append(f.replicate)
        for (key, fits, reason, message), reps in sorted(groups.items(), key=lambda g: (g[0][:2], min(g[1]))):
            rows.append(
                {"dataset": d, "model": key, "fits": fits, "replicates": reps, "reason": reason, "message": message}
            )
    return rows


def failures_section(
    doc: _Document, crossval: Mapping, order: Sequence[str], train_results: Mapping | None = None
) -> None:
    """The "Failures" section (only when a fit failed): one row per dataset, model, reason and message, with
    the replicates it struck."""
    rows = failure_rows(crossval, order, train_results)
    if not rows:
        return
    n = sum(len(r["replicates"]) for r in rows)
    doc.add(_Heading(2, "Failures"))
    doc.add(
        _Paragraph(
            f"{n} fit(s) failed and were recorded (cv.on_error: record): error = the fit raised, diverged = NaN or "
            "infinite values, timeout = stopped at cv.max_fit_seconds. A failed fit has no scores: per dataset, a "
            "pair is tested on the replicates where both fits succeeded (the count of the others is given with the "
            "tests) and a model without one successful fit is left out of that dataset's tests; across datasets a "
            "model with a failed fit on a dataset has no mean there and takes that dataset's worst rank, and the "
            "pairwise tests over datasets drop that dataset (docs/statistics.md, Failed fits). A failed "
            "half-sampling fit leaves the dataset without the data-sampling variance (the corrected resampled "
            "t-test instead); a failed final fit (train stage, on the whole training part) leaves the model out of "
            "the sealed test-set comparisons."
        )
    )
    doc.add(
        _Table(
            ("Dataset", "Model", "Fits", "Replicates", "Count", "Reason", "Message"),
            tuple(
                (
                    _Cell(r["dataset"]),
                    _Cell(r["model"]),
                    _Cell(r["fits"]),
                    _Cell(_ranges(r["replicates"])),
                    _Cell(str(len(r["replicates"]))),
                    _Cell(r["reason"], True),
                    _Cell(r["message"]),
                )
                for r in rows
            ),
        )
    )


def dataset_failure_note(entry: DatasetComparison | Mapping) -> str | None:
    """The note under a dataset's pairwise tables: the replicates dropped per pair and the models left out."""
    entry = DatasetComparison.from_dict(entry)
    parts = []
    left_out = list(entry.no_successful_fit)
    if left_out:
        parts.append(f"left out of these tests (no successful fit): {', '.join(left_out)}")
    dropped = [r for r in entry.cv if r.dropped_replicates]
    if dropped:
        pairs = "; ".join(
            f"{r.model_a} vs {r.model_b}: {r.dropped_replicates}" for r in sorted(dropped, key=lambda r: r.pair)
        )
        parts.append(f"replicates dropped because a fit of the pair failed -- {pairs}")
    if not parts:
        return None
    return "Failed fits: " + "; ".join(parts) + "."


def across_failure_note(across: AcrossDatasets | Mapping | None, pairs: AcrossPairs | Mapping | None) -> str | None:
    """The note of the across-datasets section: the (dataset, model) means imputed with the worst rank and the
    datasets each pair's test dropped."""
    parts = []
    imputed = list(AcrossDatasets.from_dict(across).imputed_worst_rank)
    if imputed:
        items = ", ".join(f"{m} on {d}" for d, m in imputed)
        parts.append(
            f"{len(imputed)} mean(s) missing because a fit failed, ranked worst on their dataset (ties share the "
            f"average of the worst ranks) for Friedman's test, the post-hoc comparisons and the CD diagram: {items}"
        )
    dropped = [r for r in AcrossPairs.from_dict(pairs).rows if r.dropped_datasets]
    if dropped:
        items = "; ".join(f"{r.model_a} vs {r.model_b}: {r.dropped_datasets}" for r in dropped)
        parts.append(f"datasets dropped from the pairwise tests over datasets (a fit of the pair failed) -- {items}")
    if not parts:
        return None
    return "Failed fits: " + "; ".join(parts) + "."
