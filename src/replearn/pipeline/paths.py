"""Where each stage reads and writes (the same paths as in dvc.yaml)."""

from pathlib import Path

REGISTRY_FILE = Path("data/registry.yaml")
REFERENCE = Path(
    "data/reference"
)  # the course reference data (read by prepare and reproduce)  # the shipped datasets (read by prepare and validation)
PREPARED = Path("data/prepared")  # prepare -> training parts + meta.json
SEALED = Path("data/sealed")  # prepare -> sealed test parts (read only by featurize and train)
FEATURES = Path("data/features")  # featurize -> mapped parts + fitted feature maps
MODELS = Path("models")  # train -> <dataset>/<model>.npz + .json
RESULTS = Path("results")  # train/, crossval/, significance.json
# crossval -> wall-clock seconds (fit/predict per model and replicate, family units' own): MLflow and the cost
# report only; outside results/ and metrics/, which stay byte-identical on rerun, and no DVC output
TIMING = Path("timing")
METRICS = Path("metrics")  # small JSON metrics for `dvc metrics show/diff` and `dvc exp show`
PLOTS = Path("plots")  # plot data for `dvc plots show`
REPORTS = Path("reports")  # report.html, report.md, plots/


def sha256_file(path) -> str:
    """The sha256 of a file's bytes (a prepared training part's digest: records, MLflow dataset inputs)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def inside(root, path, *, what: str = "output") -> Path:
    """``path`` (relative to ``root`` unless absolute) resolved, symlinks followed, if it lies inside ``root``.

    Every file the pipeline writes goes through this (and datasets it reads), so a dataset or model key such
    as ``../../escape`` or an absolute name can never write outside the repository. Raises ``ConfigError``.
    """
    from ..exceptions import ConfigError

    root = Path(root).resolve()
    target = (root / Path(path)).resolve()
    if target != root and root not in target.parents:
        raise ConfigError(
            f"{what} {path} resolves to {target}, outside the repository {root}; "
            "every path the pipeline reads or writes must stay inside it"
        )
    return target
