"""Stage `train`: fit every configured model on each dataset's whole training part, save it
(models/<dataset>/<model>.npz + .json, never pickled) and evaluate it once on the sealed test part.
Writes metrics/train.json and results/train/<dataset>.json (test predictions, for McNemar's test)."""

from .. import experiment, paths, records
from ..jsonio import write_json
from ..stage import log


def main(params: dict) -> None:
    experiment.require_current_plugins(params)  # plugins.json: the installed plugin versions, a dep of this stage
    metrics = {}
    for name, metrics[name], result in experiment.train_all(params):  # datasets in cv.n_jobs processes
        records.write(paths.RESULTS / "train" / f"{name}.json", result)
        for key, m in metrics[name].items():
            note = "" if result.models[key].converged else result.problem_kind.not_converged_fit
            log("train", f"{name}/{key}: " + ", ".join(f"test {k}={v:.4f}" for k, v in m["test"].items()) + note)
    write_json(paths.METRICS / "train.json", metrics)
