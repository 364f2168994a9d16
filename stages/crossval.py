"""Stage `crossval`: run the configured resampling scheme on each training part, with the same splits
for every model (paired comparisons) and feature maps refitted per fold. Writes
results/crossval/<dataset>.json (per split: repeat, fold, n_train, n_test, seed, metrics, which examples
each model got right), metrics/crossval.json (mean and std) and plots/crossval_scores.json."""

from replearn.pipeline import compute, experiment, paths, records
from replearn.pipeline.data import write_json
from replearn.pipeline.stage import log, run


def main(params: dict) -> None:
    with compute.session(params) as executor:  # compute=local: None (joblib, cv.n_jobs); compute=dask: a cluster
        crossval_all(params, executor)


def crossval_all(params: dict, executor) -> None:
    summary, rows = {}, []
    for name in params["dataset"]:
        timing: dict = {}
        result = experiment.crossval(params, name, timing=timing, executor=executor)
        records.write(paths.RESULTS / "crossval" / f"{name}.json", result)
        if result.family:  # wall-clock seconds: MLflow only, never a DVC output or a record
            write_json(paths.TIMING / f"{name}.json", timing)
        summary[name] = experiment.crossval_summary(result)
        rows.extend(experiment.crossval_plot_rows(result))
        metric = result.primary_metric
        for key, s in summary[name].items():
            warn = f" ({s['not_converged']} fits hit max_iter)" if s["not_converged"] else ""
            if result.family and s["not_converged"]:
                warn = f" ({s['not_converged']} runs did not converge)"
            score = (
                f"{metric} {s[metric + '_mean']:.4f} +- {s[metric + '_std']:.4f}"
                if metric + "_mean" in s
                else f"no {metric} score (left out of the tests)"
            )
            log("crossval", f"{name}/{key}: {score} over {len(result.splits)} replicates{warn}")
    write_json(paths.METRICS / "crossval.json", summary)
    write_json(paths.PLOTS / "crossval_scores.json", rows)


if __name__ == "__main__":
    run("crossval", main)
