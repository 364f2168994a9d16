"""Stage `prepare`: load and validate each configured dataset, split it into train and test with a seed
(stratified for classification). Writes data/prepared/<name>/ (training part + meta.json) and
data/sealed/<name>/test.npz (the test part, read only by featurize and the final evaluation)."""

from ..data import prepare
from ..stage import log


def main(params: dict) -> None:
    for name, spec in params["dataset"].items():
        meta = prepare(name, spec, seed=params["seed"], split=params["split"], cv=params["cv"], models=params["models"])
        if meta.get("family"):
            shown = {k: v for k, v in meta["problem"].items() if isinstance(v, (int, float, str)) and v is not None}
            log(
                "prepare",
                f"{name}: {meta['family']} problem ({meta['task']}): "
                + ", ".join(f"{k}={v}" for k, v in shown.items()),
            )
            continue
        log(
            "prepare",
            f"{name}: {meta['task']}, {meta['n_train']} train / {meta['n_test']} sealed test, "
            f"{len(meta['feature_names'])} features",
        )
