"""Stage `prepare`: load and validate each configured dataset, split it into train and test with a seed
(stratified for classification). Writes data/prepared/<name>/ (training part + meta.json) and
data/sealed/<name>/test.npz (the test part, read only by featurize and the final evaluation)."""

from ..data import prepare, prepared_line
from ..stage import log


def main(params: dict) -> None:
    for name, spec in params["dataset"].items():
        meta = prepare(name, spec, seed=params["seed"], split=params["split"], cv=params["cv"], models=params["models"])
        log("prepare", prepared_line(name, meta))
