"""Stage `featurize` of dvc.yaml: its work is :func:`replearn.pipeline.stages.featurize.main` (described
there), the entry point that `python -m replearn stage featurize` runs in a study made by `replearn init`."""

from replearn.pipeline.stage import run
from replearn.pipeline.stages.featurize import main

if __name__ == "__main__":
    run("featurize", main)
