"""Stage `report`: the self-contained HTML report and Markdown summary with plots (reports/), the cost report
(reports/cost.html, cost.md: fit and predict seconds from timing/, which vary from run to run and so are kept out
of report.html and of DVC's hashes), then one MLflow parent run with nested per-dataset x model runs (the only stage
that talks to MLflow), holding the dvc.lock this run ends with."""

from .. import paths, tracking
from ..lockfile import FinalLockText
from ..params import project_root
from ..report import build_report
from ..report.cost import build_cost_report
from ..report.inputs import read_inputs
from ..stage import log


def main(params: dict) -> None:
    inp = read_inputs(params)
    art = build_report(
        crossval=inp.crossval,
        significance=inp.significance,
        train_metrics=inp.train_metrics,
        settings=params["report"],
        experiment=inp.experiment,
        out_dir=paths.REPORTS,
        train_results=inp.train_results,
        reproduction=inp.reproduction,
    )
    log("report", f"wrote {art.html} and {art.markdown} ({len(art.plots)} plots)")
    cost = build_cost_report(
        crossval=inp.crossval,
        timing=inp.timing,
        order=list(params["dataset"]),
        out_dir=paths.REPORTS,
        title=params["report"]["title"],
        dpi=params["report"]["dpi"],
    )
    log("report", f"wrote {cost.html} and {cost.markdown} (fit and predict seconds)")
    if not params["tracking"]["enabled"]:
        log("report", "MLflow tracking is off (tracking.enabled: false)")
        return
    lock = FinalLockText(project_root(), "report")  # computed beside the logging (tracking.log_pipeline_run)
    res = tracking.log_pipeline_run(
        params=params,
        crossval=inp.crossval,
        significance=inp.significance,
        train_metrics=inp.train_metrics,
        train_results=inp.train_results,
        project_root=project_root(),
        artifacts=[
            p for p in (art.html, art.markdown, paths.REPORTS / "plots", cost.html, cost.markdown, cost.plot) if p
        ],
        extra_files={"dvc.lock": lock},
    )
    log(
        "report",
        {
            "logged": f"MLflow run {res['run_id']} in {res['tracking_uri']}",
            "exists": f"MLflow run {res['run_id']} already holds these results; nothing logged",
        }[res["status"]],
    )
