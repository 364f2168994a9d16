"""Pipeline services: configuration, data, seeding, cross-validation runs, comparison, tracking, report.

These modules connect the algorithm layer to DVC, Hydra and MLflow; the stage scripts in ``stages/``
are thin glue around them.

Importing this package (which every stage does first) makes BLAS single-threaded unless the user set
the thread count: the pipeline's matrices are small, parallelism comes from ``cv.n_jobs`` (joblib)
instead, and a fixed thread count keeps floating-point summation order, hence outputs, identical from
machine to machine. Set ``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``/``MKL_NUM_THREADS``) to override.
"""

import os as _os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
