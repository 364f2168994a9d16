"""Stage `report` of dvc.yaml: its work is :func:`replearn.pipeline.stages.report.main` (described
there), the entry point that `python -m replearn stage report` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.report import main

if __name__ == "__main__":
    run("report", main)
