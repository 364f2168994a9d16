"""Stage `reproduce` of dvc.yaml: its work is :func:`replearn.pipeline.stages.reproduce.main` (described
there), the entry point that `python -m replearn stage reproduce` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.reproduce import main

if __name__ == "__main__":
    run("reproduce", main)
