"""Stage `report`: the self-contained HTML report and Markdown summary with plots (reports/), the cost report
(reports/cost.html, cost.md: fit and predict seconds from timing/, which vary from run to run and so are kept out
of report.html and of DVC's hashes), then one MLflow parent run with nested per-dataset x model runs (the only stage
that talks to MLflow), holding the dvc.lock this run ends with."""

import json

from replearn import models as registry
from replearn.pipeline import paths, records, tracking
from replearn.pipeline.config import project_root
from replearn.pipeline.data import read_json
from replearn.pipeline.lockfile import final_lock_text
from replearn.pipeline.report import build_report
from replearn.pipeline.report.cost import build_cost_report
from replearn.pipeline.stage import log, run


def main(params: dict) -> None:
    # typed, versioned records (a stale or foreign file is refused here), handed on as plain data
    crossval = {
        d: records.to_dict(records.read_evaluation(paths.RESULTS / "crossval" / f"{d}.json")) for d in params["dataset"]
    }
    significance = records.to_dict(records.read_significance(paths.RESULTS / "significance.json"))
    train_metrics = read_json(paths.METRICS / "train.json")
    train_results = {
        d: records.to_dict(records.read_train(paths.RESULTS / "train" / f"{d}.json")) for d in params["dataset"]
    }
    experiment = {
        "name": params["experiment_name"],
        "params_hash": tracking.params_hash(params),
        "datasets": list(params["dataset"]),
        "models": list(params["models"]),
        # provenance of models registered by installed plugins (entry-point group replearn.models)
        "model_sources": {
            key: registry.source(m["name"]) for key, m in params["models"].items() if m["name"] in registry.plugins()
        },
    }
    art = build_report(
        crossval=crossval,
        significance=significance,
        train_metrics=train_metrics,
        settings=params["report"],
        experiment=experiment,
        out_dir=paths.REPORTS,
        train_results=train_results,
        reproduction=read_json(paths.RESULTS / "reproduction.json"),
    )
    log("report", f"wrote {art.html} and {art.markdown} ({len(art.plots)} plots)")
    cost = build_cost_report(
        crossval=crossval,
        timing=read_timing(params["dataset"]),
        order=list(params["dataset"]),
        out_dir=paths.REPORTS,
        title=params["report"]["title"],
        dpi=params["report"]["dpi"],
    )
    log("report", f"wrote {cost.html} and {cost.markdown} (fit and predict seconds)")
    if not params["tracking"]["enabled"]:
        log("report", "MLflow tracking is off (tracking.enabled: false)")
        return
    lock = final_lock_text(project_root(), "report")
    res = tracking.log_pipeline_run(
        params=params,
        crossval=crossval,
        significance=significance,
        train_metrics=train_metrics,
        train_results=train_results,
        project_root=project_root(),
        artifacts=[
            p for p in (art.html, art.markdown, paths.REPORTS / "plots", cost.html, cost.markdown, cost.plot) if p
        ],
        extra_files={"dvc.lock": lock} if lock else None,
    )
    log(
        "report",
        {
            "logged": f"MLflow run {res['run_id']} in {res['tracking_uri']}",
            "exists": f"MLflow run {res['run_id']} already holds these results; nothing logged",
        }[res["status"]],
    )


def read_timing(datasets) -> dict:
    """The crossval stage's wall-clock seconds (timing/<dataset>.json); a missing or unreadable file: none."""
    out = {}
    for d in datasets:
        try:
            out[d] = json.loads((paths.TIMING / f"{d}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            out[d] = {}
    return out


if __name__ == "__main__":
    run("report", main)
