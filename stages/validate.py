"""Stage `validate` of dvc.yaml: its work is :func:`replearn.pipeline.stages.validate.main` (described
there), the entry point that `python -m replearn stage validate` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.validate import main

if __name__ == "__main__":
    run("validate", main)
