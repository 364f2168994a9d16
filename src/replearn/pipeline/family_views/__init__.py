"""What the report adds for each experiment family, found through the family registry: a family's folder may hold a
``report.py`` (``families/<family>/report.py``) beside its ``problems.py`` and ``units.py``.

The report's generic family section (the problem's description, the units' learning curves, the scaling plots, the
aggregate over problems) serves every family. What only one family has -- the rl family's exact V* beside the
published values, the theory family's bounds against measured deviations, the samples a generative model draws,
the text a language model writes -- is that family's ``report.py``, read through the typed views it declares of
what its problems' descriptions and its units' replicates carry. Every name is optional:

* ``PROBLEM``: the view (:class:`replearn.pipeline.views.View`) of the problem description its functions read
  (``describe(problem)`` of its ``problems.py``, ``family.problem`` of the crossval record);
* ``EXTRA``: the view of one replicate's ``extras`` (what a unit's :attr:`~replearn.pipeline.families.Outcome.extra`
  holds) its functions read;
* ``figures(evaluations, problems) -> [(title, matplotlib Figure)]``: the pictures of the family's datasets
  (``evaluations``: dataset -> its crossval record; ``problems``: dataset -> its description);
* ``problem_tables(problem, fmt) -> [document blocks]``: the tables under one problem's description;
* ``text_samples(evaluations) -> [(dataset, unit, prompt, sample)]``: generated text, one table row each.

A new family with views of its own adds its ``report.py``; nothing here or in the report changes. The report
stage depends on every family's ``report.py`` (:data:`LOADS_BY_NAME`), on none of their ``problems.py`` or
``units.py``: editing a unit's model does not rerun the report.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from ..kinds import FAMILY_MODULES  # not ..families: its loader of problems is no dependency of the report

_FAMILIES = "replearn.pipeline.families"
#: what :func:`load` imports by name (:mod:`replearn.pipeline.deps` follows it)
LOADS_BY_NAME = ("pipeline/families/*/report.py",)


def load(family: str) -> ModuleType | None:
    """The ``report.py`` of ``family`` (a name of :data:`~replearn.pipeline.families.FAMILY_MODULES`); None when
    the family has no views of its own (or is no family)."""
    if family not in FAMILY_MODULES:
        return None
    name = f"{_FAMILIES}.{FAMILY_MODULES[family]}.report"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists and something it imports is missing: a real error
            raise
        return None


def _function(family: str, name: str) -> Callable | None:
    module = load(family)
    return getattr(module, name, None) if module is not None else None


def figures(family: str) -> Callable | None:
    """The figure function of ``family`` (``figures(evaluations, problems)``), or None."""
    return _function(family, "figures")


def problem_tables(family: str) -> Callable | None:
    """The function giving the tables under a problem's description (``problem_tables(problem, fmt)``), or None."""
    return _function(family, "problem_tables")


def text_samples(family: str) -> Callable | None:
    """The function giving ``[(dataset, unit, prompt, sample)]`` of generated text (``text_samples(evaluations)``),
    or None."""
    return _function(family, "text_samples")


def with_figures() -> set[str]:
    """The families whose report draws figures of their own (the preset tests require them in the report)."""
    return {family for family in FAMILY_MODULES if figures(family) is not None}
