"""Stage `featurize`: fit the configured feature maps on each training part and apply them to both
parts. Writes data/features/<name>/{train,test}.npz and the fitted maps (featurizer.npz + .json)."""

from .. import experiment
from ..stage import log


def main(params: dict) -> None:
    steps = [s["name"] for s in params["features"]["steps"]] or ["(none)"]
    for name in params["dataset"]:
        info = experiment.featurize(params, name)
        if info.get("family"):
            log("featurize", f"{name}: a {info['family']} problem, passed through (feature maps apply to tables)")
            continue
        log("featurize", f"{name}: {' -> '.join(steps)}: {info['n_features_in']} -> {info['n_features_out']} features")
