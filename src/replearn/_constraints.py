"""Hyperparameter constraints, declared once per model class (scikit-learn's ``_parameter_constraints``).

A model class lists the valid values of its hyperparameters in a class attribute::

    _constraints = {
        "n_neighbors": Interval(int, 1, None),
        "weights": Options({"uniform", "distance"}),
        "max_depth": (None, Interval(int, 0, None)),   # a tuple: any of these
    }

The same table is read by ``fit`` (:meth:`replearn.base.BaseEstimator._validate_params`) and by the
configuration check (``replearn.pipeline.config._check_models``), so ``models.knn.params.n_neighbors: -1``
is rejected before any stage runs, with the same wording as the estimator would use.
Hyperparameters not in the table are not checked here (``fit`` may still check them itself).
"""

from __future__ import annotations

import math
import numbers

import numpy as np


class Constraint:
    def ok(self, value) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def is_type_error(self, value) -> bool:
        return False


class Interval(Constraint):
    """A number of type ``kind`` (int or float; an int also passes for float) within ``[lo, hi]``.

    ``closed`` is "both", "left", "right" or "neither"; ``None`` bounds are unbounded. Floats must be
    finite unless ``allow_inf`` (e.g. ``C=inf`` for a hard margin).
    """

    def __init__(self, kind, lo=None, hi=None, *, closed: str = "both", allow_inf: bool = False):
        if kind not in (int, float):
            raise TypeError("Interval kind must be int or float")
        self.kind, self.lo, self.hi, self.closed, self.allow_inf = kind, lo, hi, closed, allow_inf

    def _type_ok(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        if self.kind is int:
            return isinstance(value, (numbers.Integral, np.integer))
        return isinstance(value, (numbers.Real, np.floating, np.integer))

    def is_type_error(self, value) -> bool:
        return not self._type_ok(value)

    def ok(self, value) -> bool:
        if not self._type_ok(value):
            return False
        v = float(value) if self.kind is float else int(value)
        if isinstance(v, float) and math.isnan(v):
            return False
        if isinstance(v, float) and math.isinf(v):
            return self.allow_inf and v > 0 and self.hi is None
        lo_closed = self.closed in ("both", "left")
        hi_closed = self.closed in ("both", "right")
        if self.lo is not None and (v < self.lo or (v == self.lo and not lo_closed)):
            return False
        return not (self.hi is not None and (v > self.hi or (v == self.hi and not hi_closed)))

    def describe(self) -> str:
        left = "[" if self.closed in ("both", "left") and self.lo is not None else "("
        right = "]" if self.closed in ("both", "right") and self.hi is not None else ")"
        lo = "-inf" if self.lo is None else repr(self.lo)
        hi = ("inf]" if self.allow_inf else "inf)") if self.hi is None else repr(self.hi) + right
        what = "an integer" if self.kind is int else "a number"
        return f"{what} in {left}{lo}, {hi}"


class Options(Constraint):
    """One of a fixed set of values (strings, or True/False)."""

    def __init__(self, options):
        self.options = frozenset(options)

    def ok(self, value) -> bool:
        try:
            return any(value == o and type(value) is type(o) for o in self.options)
        except (TypeError, ValueError):
            return False

    def describe(self) -> str:
        return "one of " + ", ".join(repr(o) for o in sorted(self.options, key=repr))


class Boolean(Options):
    def __init__(self):
        super().__init__({True, False})

    def ok(self, value) -> bool:
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "true or false"


class IntSequence(Constraint):
    """A list/tuple of integers in ``[lo, hi]``, or one such integer (e.g. hidden layer sizes)."""

    def __init__(self, lo: int = 1, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def ok(self, value) -> bool:
        if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, (list, tuple)):
            return False
        item = Interval(int, self.lo, self.hi)
        return all(item.ok(v) for v in value)

    def describe(self) -> str:
        hi = "inf)" if self.hi is None else f"{self.hi}]"
        return f"a list of integers in [{self.lo}, {hi}"


class RealArray(Constraint):
    """An array-like of finite real numbers (a list in a config) with a number of dimensions in ``ndims``, each
    ``>= lo`` where given: class priors, vote weights, a mixture's starting parameters. Its length or shape
    against the data is checked by ``fit``."""

    def __init__(self, ndims=(1,), lo=None):
        self.ndims, self.lo = tuple(ndims), lo

    def ok(self, value) -> bool:
        if isinstance(value, (str, bytes, dict, bool, np.bool_)) or value is None:
            return False
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        if arr.ndim not in self.ndims or arr.size == 0 or not np.all(np.isfinite(arr)):
            return False
        return self.lo is None or bool(np.all(arr >= self.lo))

    def describe(self) -> str:
        dims = " or ".join(f"{k}-D" for k in self.ndims)
        kind = "non-negative numbers" if self.lo == 0 else "numbers" + ("" if self.lo is None else f" >= {self.lo}")
        return f"a {dims} array (list) of finite {kind}"


def _as_tuple(spec) -> tuple:
    return spec if isinstance(spec, tuple) else (spec,)


def satisfies(spec, value) -> bool:
    """Whether ``value`` meets ``spec`` (a constraint, ``None`` for "None allowed", or a tuple of them)."""
    for c in _as_tuple(spec):
        if c is None:
            if value is None:
                return True
        elif c.ok(value):
            return True
    return False


def describe(spec) -> str:
    return " or ".join("None" if c is None else c.describe() for c in _as_tuple(spec))


def violations(constraints: dict, params: dict) -> list[tuple[str, object, str]]:
    """``(name, value, expected)`` for every hyperparameter of ``params`` that breaks its constraint."""
    out = []
    for name, spec in constraints.items():
        if name in params and not satisfies(spec, params[name]):
            out.append((name, params[name], describe(spec)))
    return out


def _bound_message(spec, value) -> str | None:
    """check_scalar's wording ("must be >= 1") for a number outside the first interval of its type, else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    specs = [c for c in _as_tuple(spec) if isinstance(c, Interval) and not c.is_type_error(value)]
    if not specs:
        return None
    c = specs[0]
    v = float(value)
    if not math.isfinite(v):
        return "be finite"
    if c.lo is not None and (v < c.lo or (v == c.lo and c.closed not in ("both", "left"))):
        return f"be {'>=' if c.closed in ('both', 'left') else '>'} {c.lo}"
    if c.hi is not None:
        return f"be {'<=' if c.closed in ('both', 'right') else '<'} {c.hi}"
    return None


def message(name: str, spec, value) -> str:
    """One line: the hyperparameter, the constraint it breaks and the value (check_scalar's wording first)."""
    bound = _bound_message(spec, value)
    specs = [c for c in _as_tuple(spec) if c is not None]
    if bound is not None:
        return f"{name} must {bound}, got {value!r} (expected {describe(spec)})"
    if len(specs) == 1 and isinstance(specs[0], Boolean):
        return f"{name} must be a bool (true or false), got {type(value).__name__} {value!r}"
    choices = [c for c in specs if isinstance(c, Options) and not isinstance(c, Boolean)]
    if choices and (len(specs) == 1 or isinstance(value, str)):
        alone = len(specs) == 1
        opts = sorted(choices[0].options, key=repr) + ([None] if alone and None in _as_tuple(spec) else [])
        more = "" if alone else f" (expected {describe(spec)})"
        return f"{name} must be one of {opts!r}, got {value!r}{more}"
    return f"{name} must be {describe(spec)}, got {type(value).__name__} {value!r}"


def check_params(constraints: dict, params: dict) -> None:
    """Raise ``TypeError`` (wrong type) or ``ValueError`` (out of range) for the first violation."""
    for name, value, _ in violations(constraints, params):
        specs = [c for c in _as_tuple(constraints[name]) if c is not None]
        # a value of the wrong kind (a string where a number or a bool is expected) is a TypeError
        wrong_type = bool(specs) and (
            all(isinstance(c, Boolean) for c in specs)
            or (value is not None and all(isinstance(c, Interval) and c.is_type_error(value) for c in specs))
        )
        msg = message(name, constraints[name], value)
        raise TypeError(msg) if wrong_type else ValueError(msg)
