"""The ``structured`` experiment family: structured prediction (sequence labelling).

``problems`` builds the family's problems (what the ``prepare`` stage imports); ``units`` holds its ``UNITS`` and
how each runs on a replicate (what ``validate``, ``train`` and ``crossval`` import). This package imports none of
them, so a stage that builds a problem never depends on the units' algorithms."""
