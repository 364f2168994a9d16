"""The ``sequence`` experiment family: sequence models (character language models).

``problems`` builds the family's problems (what the ``prepare`` stage imports); ``units`` holds its ``UNITS`` and
how each runs on a replicate (what ``validate``, ``train`` and ``crossval`` import); ``report`` what the report
shows of this family only, through views of what ``problems`` and ``units`` write (what the ``report`` stage
imports, :mod:`replearn.pipeline.family_views`). This package imports none of them, so a stage that builds a problem
never depends on the units' algorithms."""
