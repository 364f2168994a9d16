"""Names a package exports from modules it imports only when one of those names is first used (PEP 562).

A package ``__init__`` declares them in a dict literal, ``LAZY_EXPORTS = {"DAgger": "imitation", ...}`` (name ->
submodule), and installs ``__getattr__, __dir__ = lazy_exports(__name__, LAZY_EXPORTS, globals())``. Used where a
member pulls in much more than the rest of the package (the model registry, for a class composing registry
models): ``import replearn.structured`` to sample an HMM then does not load every model, and
:mod:`replearn.pipeline.deps` (which reads the literal) counts such a module among a stage's code only when the
stage's code names one of its exports or uses the package as a module object.

An export may share its submodule's name (``evaluation.learning_curve``, the function, from
``evaluation/learning_curve.py``): when the import system binds that submodule on the package, the package keeps
the function, as an eager ``from .learning_curve import learning_curve`` would have left it.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping


class _Package(types.ModuleType):
    """A package with lazy exports: binding a submodule over the export of the same name binds the export."""

    def __setattr__(self, name: str, value) -> None:
        table = self.__dict__.get("LAZY_EXPORTS") or {}
        if (
            isinstance(value, types.ModuleType)
            and table.get(name) == name
            and value.__name__ == f"{self.__name__}.{name}"
        ):
            value = getattr(value, name)
        super().__setattr__(name, value)


def lazy_exports(package: str, table: Mapping[str, str], namespace: dict) -> tuple[Callable, Callable]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package`` for the lazy names of ``table``."""

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{table[name]}")
        value = getattr(module, name)
        namespace[name] = value  # later look-ups are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    sys.modules[package].__class__ = _Package
    return __getattr__, __dir__
