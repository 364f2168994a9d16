"""Stage `prepare` of dvc.yaml: its work is :func:`replearn.pipeline.stages.prepare.main` (described
there), the entry point that `python -m replearn stage prepare` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.prepare import main

if __name__ == "__main__":
    run("prepare", main)
