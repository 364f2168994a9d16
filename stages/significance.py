"""Stage `significance` of dvc.yaml: its work is :func:`replearn.pipeline.stages.significance.main` (described
there), the entry point that `python -m replearn stage significance` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.significance import main

if __name__ == "__main__":
    run("significance", main)
