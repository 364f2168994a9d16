"""Stage `report`: the self-contained HTML report and Markdown summary with plots (reports/), the cost report
(reports/cost.html, cost.md: fit and predict seconds from timing/, which vary from run to run and so are kept out
of report.html and of DVC's hashes), the leaderboard page of a run with >= 8 datasets (reports/leaderboard.html,
.md: the report's leaderboard with the median times), then one MLflow parent run with nested per-dataset x model
runs (the only stage that talks to MLflow), holding the dvc.lock this run ends with.

The MLflow run is started before the reports are written (:func:`~replearn.pipeline.tracking.start_pipeline_run`):
for a benchmark's hundreds of child runs, worker processes log them while this process writes the reports, then
this one joins in (:meth:`~replearn.pipeline.tracking.PipelineRun.finish`); nothing in the runs depends on the order.
Run by `dvc repro` with a run to log, the stage first removes its own entry from dvc.lock
(:func:`~replearn.pipeline.lockfile.forget_stage`): killed while logging, it is then run again by the next
`dvc repro` although its reports are complete, and that run completes the MLflow store.
"""

import os

from .. import paths, tracking
from ..lockfile import FinalLockText, forget_stage
from ..params import project_root
from ..report import build_report
from ..report.cost import build_cost_report
from ..report.inputs import read_inputs
from ..report.leaderboard import build_leaderboard_page
from ..report.summary import verdict_tags
from ..stage import log


def main(params: dict) -> None:
    inp = read_inputs(params)
    run = tracking.start_pipeline_run(
        params=params,
        crossval=inp.crossval_data,
        significance=inp.significance_data,
        train_metrics=inp.train_metrics,
        train_results=inp.train_data,
        project_root=project_root(),
        verdicts=lambda: verdict_tags(inp.crossval, inp.significance, params["report"]["decimals"]),
    )
    if run.status in ("pending", "logging") and os.environ.get("DVC_STAGE", "").rsplit(":", 1)[-1] == "report":
        forget_stage(project_root(), "report")  # until DVC records it again: a kill while logging reruns the stage
    try:
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
        board = build_leaderboard_page(
            crossval=inp.crossval,
            significance=inp.significance,
            timing=inp.timing,
            order=list(params["dataset"]),
            out_dir=paths.REPORTS,
            title=params["report"]["title"],
            decimals=inp.significance.round_before_ranking,
        )
        if board.html is not None:
            log("report", f"wrote {board.html} and {board.markdown} (the leaderboard, with fit and predict seconds)")
    except BaseException:
        run.abort()  # the parent run is marked FAILED: the next run logs everything again
        raise
    if run.status == "disabled":
        log("report", "MLflow tracking is off (tracking.enabled: false)")
        return
    # the dvc.lock this run ends with: it hashes the reports, so it starts once they are written (in finish)
    res = run.finish(
        [
            p
            for p in (art.html, art.markdown, paths.REPORTS / "plots", cost.html, cost.markdown, cost.plot)
            + (board.html, board.markdown)
            if p
        ],
        extra_files={"dvc.lock": FinalLockText(project_root(), "report")},
    )
    log(
        "report",
        {
            "logged": f"MLflow run {res['run_id']} in {res['tracking_uri']}",
            "exists": f"MLflow run {res['run_id']} already holds these results; nothing logged",
        }[res["status"]],
    )
