"""Stage `significance`: per dataset, every pair of models by the corrected resampled t-test (Holm over
pairs) on the CV scores and McNemar's test on the sealed test part; across datasets, Friedman + Nemenyi.
Writes results/significance.json and metrics/significance.json."""

from replearn.pipeline import paths
from replearn.pipeline.compare import compare, summary_metrics
from replearn.pipeline.data import read_json, write_json
from replearn.pipeline.stage import log, run


def main(params: dict) -> None:
    crossval = {d: read_json(paths.RESULTS / "crossval" / f"{d}.json") for d in params["dataset"]}
    train = {d: read_json(paths.RESULTS / "train" / f"{d}.json") for d in params["dataset"]}
    result = compare(crossval, train, params["stats"])
    write_json(paths.RESULTS / "significance.json", result)
    write_json(paths.METRICS / "significance.json", summary_metrics(result))
    for d, r in result["datasets"].items():
        sig = [f"{row['winner']} > {row['model_b'] if row['winner'] == row['model_a'] else row['model_a']}"
               for row in r["cv"] if row["significant"]]
        shown = ", ".join(sig[:4]) + (f" and {len(sig) - 4} more" if len(sig) > 4 else "")
        log("significance", f"{d}: {shown or 'no significant difference'} (CV, {params['stats']['correction']})")
    across = result["across_datasets"]
    log("significance", f"Friedman p = {across['friedman']['pvalue']:.4g}, CD = {across['nemenyi']['cd']:.3f}"
        if across["ran"] else f"across datasets: not run ({across['reason']})")


if __name__ == "__main__":
    run("significance", main)
