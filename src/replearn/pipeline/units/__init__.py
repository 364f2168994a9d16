"""The compared units of the experiment families, found through the family registry: each family's folder holds a
``units.py`` (``families/<family>/units.py``) with ``UNITS`` (name -> :class:`~replearn.pipeline.families.Unit`)
and the run of each unit.

The problems those units run on are built by the family's ``problems.py``, which the ``prepare`` stage imports;
the units import the algorithms and models they fit, which only the stages that run them (``validate`` for their
constraints, ``train``, ``crossval``, ``report``) depend on.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection
from types import ModuleType

from ..families import FAMILY_MODULES, Unit, module_name

_FAMILIES = "replearn.pipeline.families"  # the folder of each family holds its problems.py and its units.py
#: what :func:`load` imports by name (:mod:`replearn.pipeline.deps` follows it: a stage that imports this registry
#: depends on every family's units, a stage that only builds problems on none of them)
LOADS_BY_NAME = ("pipeline/families/*/units.py",)


def load(family: str) -> ModuleType:
    """The units module of ``family`` (a name of :data:`~replearn.pipeline.families.FAMILY_MODULES`)."""
    return importlib.import_module(f"{_FAMILIES}.{module_name(family)}.units")


def units() -> dict[str, tuple[str, Unit]]:
    """Every unit of every family that can be imported: ``{unit name: (family name, Unit)}``."""
    out: dict[str, tuple[str, Unit]] = {}
    for fam in FAMILY_MODULES:
        try:
            module = load(fam)
        except ModuleNotFoundError as exc:  # a family still being written (its module does not exist yet)
            if exc.name not in (f"{_FAMILIES}.{FAMILY_MODULES[fam]}", f"{_FAMILIES}.{FAMILY_MODULES[fam]}.units"):
                raise
            continue
        for name, unit in module.UNITS.items():
            out.setdefault(name, (fam, unit))
    return out


def runner_of(name: str, *, supervised: Collection[str]) -> str:
    """The runner of a configured model name (:attr:`~replearn.pipeline.kinds.ProblemKind.runner`): ``"units"``
    for a family's unit, ``"estimators"`` for a supervised model (or an unknown name, which the models registry
    refuses with its own message)."""
    return "estimators" if family_of_unit(name, supervised=supervised) is None else "units"


def hyperparameters(name: str) -> dict:
    """A unit's hyperparameters: every constrained one (None when it has no default) and its defaults."""
    unit = units()[name][1]
    return {**{h: None for h in unit.constraints}, **unit.defaults}


def family_of_unit(unit_name: str, *, supervised: Collection[str]) -> str | None:
    """The family whose ``UNITS`` hold ``unit_name`` (None for a supervised model or an unknown name).

    ``supervised`` is the supervised registry's names (``replearn.models.available()``), which win over a unit of
    the same name; the caller passes them, so that this package does not import the registry itself."""
    if unit_name in supervised:
        return None
    entry = units().get(unit_name)
    return entry[0] if entry else None
