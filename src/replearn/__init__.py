"""replearn: reproducible experiments on the classic machine-learning algorithms.

The package has four layers (see docs/architecture.md):

* ``replearn.pipeline`` -- pipeline services: configuration, data, tracking, report;
* ``replearn.models``, ``replearn.features``, ``replearn.evaluation``, ``replearn.stats`` -- algorithms;
* ``replearn.optim`` and ``replearn.linalg`` -- numerics shared by the algorithms.

Algorithm code never imports dvc, hydra or mlflow.

``replearn.compare(table)`` compares the models of a table of scores you already have (a pandas DataFrame, a
CSV or Parquet file) with the significance stage's tests (:mod:`replearn.pipeline.tables`); it is imported on
first use, so ``import replearn`` stays instant.
"""

from ._lazy import lazy_exports

__version__ = "0.1.0"

LAZY_EXPORTS = {"compare": "pipeline.tables", "Comparison": "pipeline.tables"}
__getattr__, __dir__ = lazy_exports(__name__, LAZY_EXPORTS, globals())
