"""Safe model files: learned arrays in ``<stem>.npz``, everything else in ``<stem>.json``.

Nothing is pickled: ``numpy.load`` is called with ``allow_pickle=False`` and object arrays
are refused on save, so loading a model file can never execute code. The JSON names the
model by its registry name, so loading goes through the explicit registry too.

Fitted sub-estimators (a list of trees in a forest, the binary models of a one-vs-all reduction)
are saved recursively: their arrays go into the same ``.npz`` under a dotted prefix
(``estimators_.3.coef_``) and their class is recorded as ``module:qualname``. On load, such a class
is accepted only if it lives in a ``replearn.`` module and is a :class:`~replearn.base.BaseEstimator`
subclass, so a model file cannot make replearn import anything else.
"""

from __future__ import annotations

import importlib
import json
import numbers
from pathlib import Path

import numpy as np

from .validation import check_is_fitted

FORMAT_VERSION = 1


def _is_estimator(value) -> bool:
    from .base import BaseEstimator

    return isinstance(value, BaseEstimator)


def _split_state(estimator, prefix: str = "") -> tuple[dict[str, np.ndarray], dict]:
    """Arrays (keyed with ``prefix``) and JSON metadata of the learned state of ``estimator``."""
    arrays, own, scalars, nested = {}, [], {}, {}
    for key, value in sorted(vars(estimator).items()):
        if not key.endswith("_") or key.startswith("_"):
            continue
        if isinstance(value, np.ndarray):
            if value.dtype == object:
                raise TypeError(f"cannot save {key}: object arrays are not allowed in the safe format")
            arrays[prefix + key] = value
            own.append(key)
        elif _is_estimator(value):
            a, meta = _describe(value, f"{prefix}{key}.")
            arrays.update(a)
            nested[key] = meta
        elif isinstance(value, (list, tuple)) and value and all(_is_estimator(v) for v in value):
            nested[key] = []
            for i, v in enumerate(value):
                a, meta = _describe(v, f"{prefix}{key}.{i}.")
                arrays.update(a)
                nested[key].append(meta)
        elif isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number) for v in value):
            arrays[prefix + key] = np.asarray(value)
            own.append(key)
        elif value is None or isinstance(value, (bool, str)):
            scalars[key] = value
        elif isinstance(value, numbers.Integral):
            scalars[key] = int(value)
        elif isinstance(value, numbers.Real):
            scalars[key] = float(value)
        else:
            raise TypeError(
                f"cannot save attribute {key} of type {type(value).__name__}; the safe format holds numpy "
                "arrays, numbers, strings, None, lists of numbers and fitted replearn estimators"
            )
    meta = {"attributes": scalars, "arrays": own}
    if nested:
        meta["nested"] = nested
    return arrays, meta


def _describe(estimator, prefix: str) -> tuple[dict[str, np.ndarray], dict]:
    arrays, meta = _split_state(estimator, prefix)
    cls = type(estimator)
    meta = {"class": f"{cls.__module__}:{cls.__qualname__}", "params": _jsonable(estimator.get_params()), **meta}
    return arrays, meta


def _restore(estimator, meta: dict, data, prefix: str = "") -> None:
    for key in meta["arrays"]:
        setattr(estimator, key, data[prefix + key])
    for key, value in meta["attributes"].items():
        setattr(estimator, key, value)
    for key, sub in meta.get("nested", {}).items():
        if isinstance(sub, list):
            setattr(estimator, key, [_build(m, data, f"{prefix}{key}.{i}.") for i, m in enumerate(sub)])
        else:
            setattr(estimator, key, _build(sub, data, f"{prefix}{key}."))


def _build(meta: dict, data, prefix: str):
    from .base import BaseEstimator

    module, _, qualname = meta["class"].partition(":")
    if not module.startswith("replearn.") or "." in qualname:
        raise ValueError(f"refusing to load class {meta['class']!r}: only replearn estimators can be loaded")
    cls = getattr(importlib.import_module(module), qualname, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseEstimator)):
        raise ValueError(f"refusing to load {meta['class']!r}: not a replearn estimator")
    est = cls(**meta["params"])
    _restore(est, meta, data, prefix)
    return est


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def save_model(estimator, stem: str | Path, *, registry_name: str, extra: dict | None = None) -> tuple[Path, Path]:
    """Write ``stem.npz`` and ``stem.json`` for a fitted estimator; return both paths."""
    check_is_fitted(estimator)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    arrays, state = _split_state(estimator)
    meta = {
        "format_version": FORMAT_VERSION,
        "model": registry_name,
        "class": type(estimator).__name__,
        "params": _jsonable(estimator.get_params()),
        "extra": _jsonable(extra or {}),
        **state,
    }
    npz_path, json_path = stem.with_suffix(".npz"), stem.with_suffix(".json")
    # np.savez writes zip entries with a fixed timestamp, so the bytes depend only on the arrays.
    with open(npz_path, "wb") as fh:
        np.savez(fh, **arrays)
    json_path.write_text(json.dumps(meta, indent=2, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
    return npz_path, json_path


def load_model(stem: str | Path):
    """Recreate a model saved by :func:`save_model` (through the registry; nothing is unpickled)."""
    from .models import create

    stem = Path(stem)
    meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{stem}.json has format_version {meta.get('format_version')}, expected {FORMAT_VERSION}")
    estimator = create(meta["model"], **meta["params"])
    with np.load(stem.with_suffix(".npz"), allow_pickle=False) as data:
        _restore(estimator, meta, data)
    return estimator
