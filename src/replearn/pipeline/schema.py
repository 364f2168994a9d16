"""The building blocks of the configuration schema and the generic checker, without any registry.

:mod:`replearn.pipeline.config` assembles :data:`~replearn.pipeline.config.SCHEMA` from these and adds the checks
that read the registries (models, metrics, tests); the family modules (:mod:`replearn.pipeline.families`) describe
their dataset entries with them. Keeping them apart from the registries is what lets a module use the schema's
vocabulary without depending, for DVC, on every model (:mod:`replearn.pipeline.deps`).
"""

from __future__ import annotations

import numbers

# A dataset file's size and feature columns (source: file); dataset.<name>.max_megabytes / .max_columns raise them
# for one dataset. At these limits validate, prepare and featurize take about a minute each (docs: data/README.md).
MAX_FILE_MEGABYTES = 100
MAX_FILE_COLUMNS = 1000


# -- schema --------------------------------------------------------------------------------------
class Choice:
    """A string from a fixed (or lazily computed) list of choices."""

    def __init__(self, choices, what: str = "value"):
        self._choices = choices
        self.what = what

    @property
    def choices(self) -> list[str]:
        return sorted(self._choices() if callable(self._choices) else self._choices)


class ListOf:
    def __init__(self, item):
        self.item = item


class MapOf:
    """A mapping from user-chosen names to values of one schema."""

    def __init__(self, item, *, min_items: int = 0):
        self.item = item
        self.min_items = min_items


class Optional_:
    def __init__(self, item):
        self.item = item


class Range:
    """A finite number of type ``kind`` (int or float) within ``[lo, hi]`` (bounds exclusive when ``open_lo`` /
    ``open_hi``)."""

    def __init__(self, kind, lo=None, hi=None, *, open_lo: bool = False, open_hi: bool = False, why: str = ""):
        self.kind, self.lo, self.hi, self.open_lo, self.open_hi, self.why = kind, lo, hi, open_lo, open_hi, why

    def describe(self) -> str:
        lo = "-inf" if self.lo is None else repr(self.lo)
        hi = "inf" if self.hi is None else repr(self.hi)
        left = "(" if self.open_lo or self.lo is None else "["
        right = ")" if self.open_hi or self.hi is None else "]"
        what = "an integer" if self.kind is int else "a finite number"
        return f"{what} in {left}{lo}, {hi}{right}" + (f" ({self.why})" if self.why else "")

    def ok(self, value) -> bool:
        import math

        if not _is_type(value, self.kind) or not math.isfinite(value):
            return False
        if self.lo is not None and (value <= self.lo if self.open_lo else value < self.lo):
            return False
        return not (self.hi is not None and (value >= self.hi if self.open_hi else value > self.hi))


class AnyMapping:
    """Free-form mapping (checked elsewhere, e.g. model hyperparameters against the registry)."""


def _type_name(t) -> str:
    return {int: "an integer", float: "a number", str: "a string", bool: "true/false"}.get(t, str(t))


def _check(value, spec, key: str, errors: list[str]) -> None:
    if isinstance(spec, tuple):  # any of several specs
        trial: list[list[str]] = []
        for s in spec:
            errs: list[str] = []
            _check(value, s, key, errs)
            if not errs:
                return
            trial.append(errs)
        errors.append(f"{key}: {value!r} is not valid ({'; or '.join(e[0].split(': ', 1)[1] for e in trial)})")
        return
    if isinstance(spec, Optional_):
        if value is not None:
            _check(value, spec.item, key, errors)
        return
    if isinstance(spec, AnyMapping):
        if value is None:
            return
        if not isinstance(value, dict):
            errors.append(f"{key}: expected a mapping, got {type(value).__name__} {value!r}")
        return
    if isinstance(spec, Range):
        if not spec.ok(value):
            errors.append(f"{key}: expected {spec.describe()}, got {type(value).__name__} {value!r}")
        return
    if isinstance(spec, Choice):
        if not isinstance(value, str) or value not in spec.choices:
            errors.append(f"{key}: unknown {spec.what} {value!r}; valid choices: {', '.join(spec.choices)}")
        return
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            errors.append(f"{key}: expected a list, got {type(value).__name__} {value!r}")
            return
        for i, item in enumerate(value):
            _check(item, spec.item, f"{key}[{i}]", errors)
        return
    if isinstance(spec, MapOf):
        if not isinstance(value, dict):
            errors.append(f"{key}: expected a mapping of names to settings, got {type(value).__name__}")
            return
        if len(value) < spec.min_items:
            errors.append(f"{key}: at least {spec.min_items} entry needed, got none")
        for name, item in value.items():
            _check(item, spec.item, f"{key}.{name}", errors)
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            errors.append(f"{key}: expected a mapping with keys {sorted(spec)}, got {type(value).__name__} {value!r}")
            return
        for k in value:
            if k not in spec:
                errors.append(f"{_join(key, k)}: unknown key; valid keys here: {', '.join(sorted(spec))}")
        for k, sub in spec.items():
            if k not in value:
                if not isinstance(sub, Optional_):
                    errors.append(f"{_join(key, k)}: missing (expected {_describe(sub)})")
                continue
            _check(value[k], sub, _join(key, k), errors)
        return
    if not _is_type(value, spec):
        errors.append(f"{key}: expected {_type_name(spec)}, got {type(value).__name__} {value!r}")


def _is_type(value, spec) -> bool:
    if spec is bool:
        return isinstance(value, bool)
    if spec is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if spec is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    return isinstance(value, spec)


def _join(prefix: str, key) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def _describe(spec) -> str:
    if isinstance(spec, dict):
        return f"a mapping with keys {', '.join(sorted(spec))}"
    if isinstance(spec, Choice):
        return f"one of {', '.join(spec.choices)}"
    if isinstance(spec, (ListOf, MapOf)):
        return "a list" if isinstance(spec, ListOf) else "a mapping"
    if isinstance(spec, Range):
        return spec.describe()
    return _type_name(spec)
