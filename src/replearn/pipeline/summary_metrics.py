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
(``experiment.crossval_plot_rows``; with the sweep ``point`` for ``design=sweep``), one file per dataset,
``plots/datasets/<dataset>.json``, so that ``dvc plots show``/``diff`` draw one figure per dataset (the
template, ``vendor/vega/templates/scores_by_model.json``, puts the models on the x axis, or the sweep points
with a curve per model).
"""

from __future__ import annotations

from pathlib import Path

from replearn.pipeline import experiment, records
from replearn.pipeline.data import write_json


def summary(crossval: dict[str, records.EvaluationResult], train_metrics: dict) -> dict:
    """``{dataset: {model: {"cv": mean primary score, "test": test-set primary score}}}``.

    ``crossval`` maps each dataset to its cross-validation record, ``train_metrics`` is the content of
    ``metrics/train.json`` (``{dataset: {model: {"test": {metric: score}, ...}}}``).
    """
    out: dict = {}
    for name, result in crossval.items():
        metric = result.primary_metric
        cv = experiment.crossval_summary(result)
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
    return {f"{name}.json": experiment.crossval_plot_rows(result) for name, result in crossval.items()}


def write_plot_files(folder: Path, files: dict[str, list[dict]]) -> None:
    """Write :func:`plot_files` into ``folder``, removing the files of datasets no longer run."""
    for stale in sorted(Path(folder).glob("*.json")):
        if stale.name not in files:
            stale.unlink()
    for name, rows in files.items():
        write_json(Path(folder) / name, rows)
