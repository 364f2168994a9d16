"""Stage `crossval`: run the configured resampling scheme on each training part, with the same splits
for every model (paired comparisons) and feature maps refitted per fold. Writes
results/crossval/<dataset>.json (per split: repeat, fold, n_train, n_test, seed, metrics, which examples
each model got right, the fits that failed under cv.on_error: record), metrics/crossval.json (mean and std) and
plots/crossval_scores.json. The fit and predict seconds of every model and replicate go to timing/<dataset>.json:
wall-clock time (a :class:`~replearn.pipeline.records.Timing`), for MLflow, the cost report and the leaderboard
only -- never a DVC output."""

from .. import compute, experiment, paths, records
from ..jsonio import write_json
from ..stage import log
from ..summary_metrics import crossval_plot_rows, crossval_summary


def main(params: dict) -> None:
    experiment.require_current_plugins(params)  # plugins.json: the installed plugin versions, a dep of this stage
    with compute.session(params) as executor:  # compute=local: None (joblib, cv.n_jobs); compute=dask: a cluster
        crossval_all(params, executor)


def crossval_all(params: dict, executor) -> None:
    summary, rows = {}, []
    with experiment.overall_progress(params) as on_fits:
        for name in params["dataset"]:
            timing: dict = {}
            result = experiment.crossval(params, name, timing=timing, executor=executor, on_fits=on_fits)
            records.write(paths.RESULTS / "crossval" / f"{name}.json", result)
            records.write(paths.TIMING / f"{name}.json", records.Timing(seconds=timing))  # wall-clock seconds
            summary[name] = crossval_summary(result)
            rows.extend(crossval_plot_rows(result))
            for line in experiment.crossval_log_lines(name, result, summary[name]):
                log("crossval", line)
    write_json(paths.METRICS / "crossval.json", summary)
    write_json(paths.PLOTS / "crossval_scores.json", rows)
