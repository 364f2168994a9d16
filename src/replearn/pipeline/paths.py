"""Where each stage reads and writes (the same paths as in dvc.yaml)."""

from pathlib import Path

REGISTRY_FILE = Path("data/registry.yaml")  # the shipped datasets (read by prepare and validation)
PREPARED = Path("data/prepared")      # prepare -> training parts + meta.json
SEALED = Path("data/sealed")          # prepare -> sealed test parts (read only by featurize and train)
FEATURES = Path("data/features")      # featurize -> mapped parts + fitted feature maps
MODELS = Path("models")               # train -> <dataset>/<model>.npz + .json
RESULTS = Path("results")             # train/, crossval/, significance.json
METRICS = Path("metrics")             # small JSON metrics for `dvc metrics show/diff` and `dvc exp show`
PLOTS = Path("plots")                 # plot data for `dvc plots show`
REPORTS = Path("reports")             # report.html, report.md, plots/
