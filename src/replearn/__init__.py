"""replearn: reproducible experiments on the classic machine-learning algorithms.

The package has four layers (see docs/architecture.md):

* ``replearn.pipeline`` -- pipeline services: configuration, data, tracking, report;
* ``replearn.models``, ``replearn.features``, ``replearn.evaluation``, ``replearn.stats`` -- algorithms;
* ``replearn.optim`` and ``replearn.linalg`` -- numerics shared by the algorithms.

Algorithm code never imports dvc, hydra or mlflow.
"""

__version__ = "0.1.0"
