"""Stage `featurize`: fit the configured feature maps on each training part and apply them to both
parts. Writes data/features/<name>/{train,test}.npz and the fitted maps (featurizer.npz + .json)."""

from .. import featurizing
from ..stage import log


def main(params: dict) -> None:
    steps = [s["name"] for s in params["features"]["steps"]] or ["(none)"]
    for name in params["dataset"]:
        info = featurizing.featurize(params, name)
        log("featurize", featurizing.featurized_line(name, info, steps))
