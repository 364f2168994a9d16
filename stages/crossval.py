"""Stage `crossval` of dvc.yaml: its work is :func:`replearn.pipeline.stages.crossval.main` (described
there), the entry point that `python -m replearn stage crossval` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.crossval import main

if __name__ == "__main__":
    run("crossval", main)
