"""Stage `significance`: per dataset, every pair of models by the test the design calls for (the corrected
resampled t-test for cross-validation splits, adjusted over the pairs), the Bayesian analysis and the
sealed-test-set tests; across datasets, average ranks and, on enough datasets, Friedman with a post-hoc
procedure. Writes results/significance.json, metrics/significance.json, metrics/summary.json (primary metric's
CV mean and test score per dataset x model, for `dvc exp show`) and plots/datasets/<dataset>.json."""

from .. import designs, paths, records
from .. import summary_metrics as summaries
from ..compare import compare_records, significance_jobs, summary_metrics
from ..jsonio import read_json, write_json
from ..stage import log


def main(params: dict) -> None:
    crossval = {d: records.read_evaluation(paths.RESULTS / "crossval" / f"{d}.json") for d in params["dataset"]}
    train = {d: records.read_train(paths.RESULTS / "train" / f"{d}.json") for d in params["dataset"]}
    result = compare_records(crossval, train, params["stats"], jobs=significance_jobs(crossval))
    records.write(paths.RESULTS / "significance.json", result)
    write_json(paths.METRICS / "significance.json", summary_metrics(records.to_dict(result)))
    write_json(paths.METRICS / "summary.json", summaries.summary(crossval, read_json(paths.METRICS / "train.json")))
    summaries.write_plot_files(paths.PLOTS / "datasets", summaries.plot_files(crossval))
    for d, r in result.datasets.items():
        sig = [
            f"{row['winner']} > {row['model_b'] if row['winner'] == row['model_a'] else row['model_a']}"
            for row in r["cv"]
            if row["significant"]
        ]
        shown = ", ".join(sig[:4]) + (f" and {len(sig) - 4} more" if len(sig) > 4 else "")
        over = designs.log_label(r.get("replicates"))
        log("significance", f"{d}: {shown or 'no significant difference'} ({over}, {params['stats']['correction']})")
    across = result.across_datasets
    n = across.get("n_datasets")
    log(
        "significance",
        f"across N = {n} datasets: Friedman p = {across['friedman']['pvalue']:.4g} "
        f"({across['friedman']['pvalue_method']})"
        if across["ran"]
        else f"across datasets: no test ({across['reason']})",
    )
