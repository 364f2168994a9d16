"""Safe model files: learned arrays in ``<stem>.npz``, everything else in ``<stem>.json``.

Nothing is pickled: ``numpy.load`` is called with ``allow_pickle=False`` and object arrays
are refused on save, so loading a model file can never execute code. The JSON names the
model by its registry name, so loading goes through the explicit registry too.
"""

from __future__ import annotations

import json
import numbers
from pathlib import Path

import numpy as np

from .validation import check_is_fitted

FORMAT_VERSION = 1


def _split_state(estimator) -> tuple[dict[str, np.ndarray], dict]:
    arrays, scalars = {}, {}
    for key, value in sorted(vars(estimator).items()):
        if not key.endswith("_") or key.startswith("_"):
            continue
        if isinstance(value, np.ndarray):
            if value.dtype == object:
                raise TypeError(f"cannot save {key}: object arrays are not allowed in the safe format")
            arrays[key] = value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number) for v in value):
            arrays[key] = np.asarray(value)
        elif value is None or isinstance(value, (bool, str)):
            scalars[key] = value
        elif isinstance(value, numbers.Integral):
            scalars[key] = int(value)
        elif isinstance(value, numbers.Real):
            scalars[key] = float(value)
        else:
            raise TypeError(
                f"cannot save attribute {key} of type {type(value).__name__}; "
                "the safe format holds numpy arrays, numbers, strings and None"
            )
    return arrays, scalars


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
    arrays, scalars = _split_state(estimator)
    meta = {
        "format_version": FORMAT_VERSION,
        "model": registry_name,
        "class": type(estimator).__name__,
        "params": _jsonable(estimator.get_params()),
        "attributes": scalars,
        "arrays": sorted(arrays),
        "extra": _jsonable(extra or {}),
    }
    npz_path, json_path = stem.with_suffix(".npz"), stem.with_suffix(".json")
    # np.savez writes zip entries with a fixed timestamp, so the bytes depend only on the arrays.
    with open(npz_path, "wb") as fh:
        np.savez(fh, **arrays)
    json_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return npz_path, json_path


def load_model(stem: str | Path):
    """Recreate a model saved by :func:`save_model` (through the registry, without pickle)."""
    from .models import create

    stem = Path(stem)
    meta = json.loads(stem.with_suffix(".json").read_text(encoding="utf-8"))
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{stem}.json has format_version {meta.get('format_version')}, expected {FORMAT_VERSION}")
    estimator = create(meta["model"], **meta["params"])
    with np.load(stem.with_suffix(".npz"), allow_pickle=False) as data:
        for key in meta["arrays"]:
            setattr(estimator, key, data[key])
    for key, value in meta["attributes"].items():
        setattr(estimator, key, value)
    return estimator
