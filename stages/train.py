"""Stage `train` of dvc.yaml: its work is :func:`replearn.pipeline.stages.train.main` (described
there), the entry point that `python -m replearn stage train` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.train import main

if __name__ == "__main__":
    run("train", main)
