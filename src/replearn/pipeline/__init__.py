"""Pipeline services: configuration, data, seeding, cross-validation runs, comparison, tracking, report.

These modules connect the algorithm layer to DVC, Hydra and MLflow; the stage scripts in ``stages/``
are thin glue around them.
"""
