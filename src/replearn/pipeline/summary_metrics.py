"""The small files people compare runs with: ``metrics/summary.json`` and the per-dataset plot data.

``dvc exp show`` prints one column per metric leaf, and the detailed files (``metrics/crossval.json``:
every metric's mean and std per dataset x model; ``metrics/train.json``: train and test score of every
metric) give about a thousand. ``metrics/summary.json`` answers the common question in two columns per
dataset x model:

* ``<dataset>.<model>.cv`` -- the mean of the primary metric over the replicates (for a sweep, at the
  model's best point, as in ``metrics/crossval.json``);
* ``<dataset>.<model>.test`` -- the primary metric of the final fit on the sealed test set.

A score a model cannot give (``null`` in the results) is left out, as in the detailed files. No other
column of ``dvc exp show`` has the form ``<dataset>.<model>.cv|test``, so ``--keep
'[^./]+\\.[^./]+\\.(cv|test)$'`` selects them (DVC matches ``--keep``/``--drop`` with ``re.match`` on the
bare column name; it prefixes the file path only when two files share a name). README, "Comparing runs".

The plot data is the cross-validation stage's per-replicate rows of the primary metric
(:func:`crossval_plot_rows`; with the sweep ``point`` for ``design=sweep``), one file per dataset,
``plots/datasets/<dataset>.json``, so that ``dvc plots show``/``diff`` draw one figure per dataset (the
template, ``vendor/vega/templates/scores_by_model.json``, puts the models on the x axis, or the sweep points
with a curve per model).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from replearn.pipeline import designs, records
from replearn.pipeline.jsonio import write_json


def summary(crossval: dict[str, records.EvaluationResult], train_metrics: dict) -> dict:
    """``{dataset: {model: {"cv": mean primary score, "test": test-set primary score}}}``.

    ``crossval`` maps each dataset to its cross-validation record, ``train_metrics`` is the content of
    ``metrics/train.json`` (``{dataset: {model: {"test": {metric: score}, ...}}}``).
    """
    out: dict = {}
    for name, result in crossval.items():
        metric = result.primary_metric
        cv = crossval_summary(result)
        tested = train_metrics.get(name, {})
        out[name] = {}
        for model in result.models:
            row = {}
            mean = cv.get(model, {}).get(f"{metric}_mean")
            if mean is not None:
                row["cv"] = float(mean)
            test = (tested.get(model, {}).get("test") or {}).get(metric)
            if test is not None:
                row["test"] = float(test)
            if row:
                out[name][model] = row
    return out


def plot_files(crossval: dict[str, records.EvaluationResult]) -> dict[str, list[dict]]:
    """File name (``<dataset>.json``, under ``plots/datasets/``) to that dataset's per-replicate rows."""
    return {f"{name}.json": crossval_plot_rows(result) for name, result in crossval.items()}


def write_plot_files(folder: Path, files: dict[str, list[dict]]) -> None:
    """Write :func:`plot_files` into ``folder``, removing the files of datasets no longer run."""
    for stale in sorted(Path(folder).glob("*.json")):
        if stale.name not in files:
            stale.unlink()
    for name, rows in files.items():
        write_json(Path(folder) / name, rows)


def crossval_summary(result: records.EvaluationResult) -> dict:
    """Mean and standard deviation of each metric per model (for ``metrics/crossval.json``).

    Over the replicates whose fit succeeded; ``failed`` (present when above 0) counts the others. For a sweep,
    the scores at each model's best point of the primary metric (and that point, when it is a number): the mean
    over every point of a sweep would mean nothing.
    """
    out: dict[str, dict[str, float]] = {}
    metric = result.primary_metric
    hib = result.greater_is_better[metric]
    for key, m in result.models.items():
        failed = m.failed()
        idx = [i for i in range(len(result.splits)) if i not in failed]
        out[key] = {"not_converged": int(sum(c is False for c in m.converged))}
        if failed:
            out[key]["failed"] = len(failed)
        if designs.of_record(result).has_points:
            by_point: dict[str, tuple] = {}
            for i, s in enumerate(result.splits):
                if i not in failed:
                    by_point.setdefault(repr(s.point), (s.point, []))[1].append(i)
            means: dict[str, float] = {
                k: float(np.mean([m.scores[metric][i] for i in v[1]]))
                for k, v in by_point.items()
                if all(m.scores[metric][i] is not None for i in v[1])
            }
            if means:
                best = (max if hib else min)(means, key=lambda k: means[k])
                idx = by_point[best][1]
                point = by_point[best][0]
                if isinstance(point, (int, float)) and not isinstance(point, bool):
                    out[key]["best_point"] = point
        for name, values in m.scores.items():
            vals = [values[i] for i in idx]
            if not vals or any(x is None for x in vals):
                continue  # a score this model cannot give (e.g. the log-likelihood of k-means), or no fit succeeded
            v = np.asarray(vals, dtype=float)
            out[key][f"{name}_mean"] = float(v.mean())
            out[key][f"{name}_std"] = float(v.std(ddof=1)) if v.size > 1 else 0.0
    return out


def crossval_plot_rows(result: records.EvaluationResult) -> list[dict]:
    """Per-replicate primary-metric scores in the long format ``dvc plots show`` reads (with the sweep point)."""
    metric = result.primary_metric
    rows = []
    for key, m in result.models.items():
        for i, s in enumerate(m.scores[metric]):
            if s is None:
                continue
            row = {"dataset": result.dataset, "model": key, "split": i, "metric": metric, "score": float(s)}
            if result.splits[i].point is not None:
                row["point"] = result.splits[i].point
            rows.append(row)
    return rows
