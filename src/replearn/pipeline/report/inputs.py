"""What the report stage reads: the typed records of the earlier stages (the crossval and train records as
:class:`~replearn.pipeline.records.EvaluationResult` and :class:`~replearn.pipeline.records.TrainResult`, the
significance record as its view) and the wall-clock seconds of the crossval stage (timing/, a
:class:`~replearn.pipeline.records.Timing` per dataset, never a DVC output)."""

from __future__ import annotations

from dataclasses import dataclass

from ... import models as registry
from .. import paths, records, tracking
from ..jsonio import read_json
from ..views import Significance


@dataclass(frozen=True)
class ReportInputs:
    crossval: dict[str, records.EvaluationResult]
    significance: Significance  # the view of results/significance.json the report, leaderboard and tags read
    train_metrics: dict
    train_results: dict[str, records.TrainResult]
    crossval_data: dict  # the same records as plain data (the tracking module hashes and logs them)
    significance_data: dict
    train_data: dict
    experiment: dict
    reproduction: dict | None  # results/reproduction.json (the reproduce stage)
    timing: dict[str, records.Timing]  # every dataset's, empty where the crossval stage did not run here


def read_timing(datasets) -> dict[str, records.Timing]:
    """The crossval stage's wall-clock seconds (timing/<dataset>.json) per dataset; a missing file: no times. A
    file that is no timing record is refused (records.read_timing names it)."""
    return {d: records.read_timing(paths.TIMING / f"{d}.json") for d in datasets}


def read_inputs(params: dict) -> ReportInputs:
    """Every input of the report stage; a stale or foreign record is refused here (records' schema check)."""
    datasets = list(params["dataset"])
    crossval = {
        d: records.read_both(records.EvaluationResult, paths.RESULTS / "crossval" / f"{d}.json") for d in datasets
    }
    train = {d: records.read_both(records.TrainResult, paths.RESULTS / "train" / f"{d}.json") for d in datasets}
    significance = records.to_dict(records.read_significance(paths.RESULTS / "significance.json"))
    experiment = {
        "name": params["experiment_name"],
        "params_hash": tracking.params_hash(params),
        "datasets": datasets,
        "models": list(params["models"]),
        # provenance of models registered by installed plugins (entry-point group replearn.models)
        "model_sources": {
            key: registry.source(m["name"]) for key, m in params["models"].items() if m["name"] in registry.plugins()
        },
    }
    return ReportInputs(
        crossval={d: record for d, (record, _) in crossval.items()},
        crossval_data={d: data for d, (_, data) in crossval.items()},
        significance=Significance.from_dict(significance),
        significance_data=significance,
        train_metrics=read_json(paths.METRICS / "train.json"),
        train_results={d: record for d, (record, _) in train.items()},
        train_data={d: data for d, (_, data) in train.items()},
        experiment=experiment,
        reproduction=read_json(paths.RESULTS / "reproduction.json"),
        timing=read_timing(datasets),
    )
