"""The result type every significance test in :mod:`replearn.stats` returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

__all__ = ["TestResult", "to_jsonable"]


def to_jsonable(value):
    """Convert numpy scalars/arrays, tuples and nested containers to plain JSON types.

    Floats stay floats except NaN, which becomes ``None``, and +/-inf, which become the strings
    ``"inf"`` / ``"-inf"`` (strict JSON has no infinities; ``float("inf")`` reads them back).
    """
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    raise TypeError(f"cannot convert {type(value).__name__} to a JSON value")


@dataclass
class TestResult:
    """Outcome of a significance test.

    ``statistic`` and ``pvalue`` are the test's; ``df`` its degrees of freedom (a number, a pair
    for F tests, or ``None``); ``effect_size`` with its ``effect_size_name``; ``ci`` a confidence
    interval (of the quantity named in ``conventions``); ``alternative`` is "two-sided", "less"
    or "greater"; ``conventions`` records every choice that changes the numbers (variance
    correction, tie handling, continuity correction...), ``extra`` any further outputs.
    """

    __test__ = False  # not a pytest test class, despite the name

    test: str
    statistic: float
    pvalue: float
    df: float | tuple | None = None
    effect_size: float | None = None
    effect_size_name: str | None = None
    ci: tuple[float, float] | None = None
    alternative: str = "two-sided"
    conventions: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """A JSON-ready dict of every field (see :func:`to_jsonable` for NaN and inf)."""
        return {f.name: to_jsonable(getattr(self, f.name)) for f in fields(self)}
