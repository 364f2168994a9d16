"""Stage `crossval`: run the configured resampling scheme on each training part, with the same splits
for every model (paired comparisons) and feature maps refitted per fold. Writes
results/crossval/<dataset>.json (per split: repeat, fold, n_train, n_test, seed, metrics, which examples
each model got right, the fits that failed under cv.on_error: record), metrics/crossval.json (mean and std) and
plots/crossval_scores.json. The fit and predict seconds of every model and replicate go to timing/<dataset>.json:
wall-clock time, for MLflow and the cost report only -- never a DVC output or a record."""

from contextlib import contextmanager

from replearn.evaluation.crossval import progress_enabled
from replearn.pipeline import compute, experiment, paths, records
from replearn.pipeline.data import write_json
from replearn.pipeline.stage import log, run


def main(params: dict) -> None:
    with compute.session(params) as executor:  # compute=local: None (joblib, cv.n_jobs); compute=dask: a cluster
        crossval_all(params, executor)


@contextmanager
def overall_progress(params: dict):
    """One bar over every fit of the stage (datasets x models x replicates, half-sampling fits included) with its
    ETA, on a terminal and outside CI (``cv.progress``), when there is more than one dataset; yields the callback
    that advances it (None when there is no bar)."""
    if len(params["dataset"]) < 2 or not progress_enabled(params["cv"].get("progress", "auto")):
        yield None
        return
    from tqdm.auto import tqdm

    total = sum(experiment.planned_fits(params, name) for name in params["dataset"])
    with tqdm(total=total, desc="crossval (all datasets)", unit="fit", position=0, smoothing=0.05) as bar:
        yield bar.update


def crossval_all(params: dict, executor) -> None:
    summary, rows = {}, []
    with overall_progress(params) as on_fits:
        for name in params["dataset"]:
            timing: dict = {}
            result = experiment.crossval(params, name, timing=timing, executor=executor, on_fits=on_fits)
            records.write(paths.RESULTS / "crossval" / f"{name}.json", result)
            write_json(paths.TIMING / f"{name}.json", timing)  # wall-clock seconds: MLflow and the cost report only
            summary[name] = experiment.crossval_summary(result)
            rows.extend(experiment.crossval_plot_rows(result))
            _log_dataset(name, result, summary[name])
    write_json(paths.METRICS / "crossval.json", summary)
    write_json(paths.PLOTS / "crossval_scores.json", rows)


def _log_dataset(name: str, result: records.EvaluationResult, summary: dict) -> None:
    metric = result.primary_metric
    for key, s in summary.items():
        warn = f" ({s['not_converged']} fits hit max_iter)" if s["not_converged"] else ""
        if result.family and s["not_converged"]:
            warn = f" ({s['not_converged']} runs did not converge)"
        if s.get("failed"):
            reasons = sorted({f.reason for f in result.models[key].failures})
            warn += f" ({s['failed']} failed fits: {', '.join(reasons)}; recorded, see the report)"
        score = (
            f"{metric} {s[metric + '_mean']:.4f} +- {s[metric + '_std']:.4f}"
            if metric + "_mean" in s
            else f"no {metric} score (left out of the tests)"
        )
        log("crossval", f"{name}/{key}: {score} over {len(result.splits)} replicates{warn}")
    failed_half = sum(len(v) for v in result.variance_failures.values())
    if failed_half:
        log(
            "crossval",
            f"{name}: {failed_half} half-sampling fit(s) failed: compared without the data-sampling variance",
        )


if __name__ == "__main__":
    run("crossval", main)
