"""Safe model files: learned arrays in ``<stem>.npz``, everything else in ``<stem>.json``.

Nothing is pickled: ``numpy.load`` is called with ``allow_pickle=False`` and object arrays
are refused on save, so loading a model file can never execute code. The JSON names the
model by its registry name, so loading goes through the explicit registry too.

Fitted sub-estimators (a list of trees in a forest, the binary models of a one-vs-all reduction)
are saved recursively: their arrays go into the same ``.npz`` under a dotted prefix
(``estimators_.3.coef_``) and their class is recorded as ``module:qualname``. On load, such a class
is looked up among the :class:`~replearn.base.BaseEstimator` subclasses of ``replearn.`` modules already
loaded by the registry (the top-level model comes from the registry, which imports its members); nothing
named in the file is ever imported.

Format version 2 stores the SHA-256 of every array (its dtype, shape and bytes) in the JSON and verifies them
on load. Every problem with a model file -- a truncated or non-JSON ``.json`` (a Python object stream, say), a damaged
``.npz``, an unknown class, ill-typed hyperparameters, an attribute that would shadow a method, a checksum
mismatch, an older format -- raises one :class:`ModelFileError` naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import zipfile
from pathlib import Path

import numpy as np

from .atomic import atomic_write, write_text
from .exceptions import ConfigError, ReplearnError
from .validation import check_is_fitted

FORMAT_VERSION = 2


class ModelFileError(ReplearnError, ValueError):
    """A model file that cannot be loaded safely; the message names the file and the problem."""


#: the two files of a saved model or featurizer
SUFFIXES = (".npz", ".json")


def stem_path(stem: str | Path) -> Path:
    """The stem itself: ``knn.v1`` stays ``knn.v1`` (a dot in a stem is part of its name, never a suffix to
    replace), and a path naming one of the two files (``knn.v1.npz``, ``knn.v1.json``) gives its stem."""
    stem = Path(stem)
    if stem.suffix in SUFFIXES:
        stem = stem.with_name(stem.name[: -len(stem.suffix)])
    if not stem.name or stem.name in (".", ".."):
        raise ValueError(f"{stem}: not a model file stem (it names no file)")
    return stem


def stem_file(stem: str | Path, suffix: str) -> Path:
    """``<stem><suffix>``, the suffix appended to the whole stem: ``knn.v1`` and ``knn.v2`` name four files, where
    ``Path.with_suffix`` would send both to ``knn.npz`` / ``knn.json`` and the second save would replace the
    first's. Every path persistence builds from a stem goes through here."""
    if suffix not in SUFFIXES:
        raise ValueError(f"a model file is one of {SUFFIXES}, not {suffix!r}")
    stem = stem_path(stem)
    return stem.with_name(stem.name + suffix)


#: what the JSON of each kind of replearn file holds: a model's (save_model) and a featurizer's (FeaturePipeline.save)
_KIND_KEYS = {"model": ("format_version", "model"), "featurizer": ("format_version", "steps")}


def check_replaceable(stem: str | Path, kind: str) -> None:
    """Refuse to write the files of ``stem`` over files that are not replearn's own of the same ``kind``
    (``"model"`` or ``"featurizer"``): a JSON another program wrote, an ``.npz`` without its ``.json``, a
    featurizer where a model is saved. A model saved again under its stem replaces its own files."""
    keys = _KIND_KEYS[kind]
    json_path, npz_path = stem_file(stem, ".json"), stem_file(stem, ".npz")
    if not json_path.exists() and not npz_path.exists():
        return
    what = None
    if not json_path.is_file():
        what = f"{npz_path} exists without {json_path.name} (another program's file, or a save cut short)"
    else:
        try:
            meta = json.loads(json_path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            meta = None
        if not isinstance(meta, dict) or not all(k in meta for k in keys):
            what = f"{json_path} exists and is not a replearn {kind} file"
    if what is not None:
        raise ModelFileError(
            f"{what}: saving a {kind} never replaces another file; remove it or save under another stem"
        )


def array_digest(array: np.ndarray) -> str:
    """SHA-256 of an array's dtype, shape and bytes (C order)."""
    a = np.ascontiguousarray(array)
    h = hashlib.sha256(f"{a.dtype.str}|{a.shape}|".encode())
    h.update(a.tobytes())
    return h.hexdigest()


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
    cls = type(estimator)
    for key in [*meta["arrays"], *meta["attributes"], *meta.get("nested", {})]:
        if not isinstance(key, str) or not key.endswith("_") or key.startswith("_") or hasattr(cls, key):
            raise ValueError(
                f"attribute {key!r} of {cls.__name__} is not a learned attribute (it would shadow "
                "a method or a private attribute)"
            )
    for key in meta["arrays"]:
        if prefix + key not in data:
            raise ValueError(f"array {prefix + key!r} is missing from the .npz file")
        setattr(estimator, key, data[prefix + key])
    for key, value in meta["attributes"].items():
        if not (value is None or isinstance(value, (bool, str, int, float))):
            raise ValueError(f"attribute {key!r} has a {type(value).__name__} value; only numbers, strings and null")
        setattr(estimator, key, value)
    for key, sub in meta.get("nested", {}).items():
        if isinstance(sub, list):
            setattr(estimator, key, [_build(m, data, f"{prefix}{key}.{i}.") for i, m in enumerate(sub)])
        else:
            setattr(estimator, key, _build(sub, data, f"{prefix}{key}."))


def _estimator_classes() -> dict[str, type]:
    """``module:qualname`` -> class, for every loaded BaseEstimator subclass defined in a replearn module."""
    from .base import BaseEstimator

    out, todo = {}, [BaseEstimator]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("replearn."):
            out[f"{cls.__module__}:{cls.__qualname__}"] = cls
    return out


def _build(meta: dict, data, prefix: str):
    name = meta["class"]
    module, _, qualname = str(name).partition(":")
    if not module.startswith("replearn.") or "." in qualname:
        raise ValueError(f"refusing to load class {name!r}: only replearn estimators can be loaded")
    cls = _estimator_classes().get(name)  # looked up among loaded classes, never imported from the file
    if cls is None:
        raise ValueError(f"refusing to load {name!r}: not a replearn estimator")
    est = cls(**_checked_params(cls, meta["params"]))
    _restore(est, meta, data, prefix)
    return est


def _checked_params(cls, params) -> dict:
    """Stored hyperparameters: a mapping of known names to JSON values that meet the class's constraints."""
    from ._constraints import violations

    if not isinstance(params, dict):
        raise ValueError(f"params of {cls.__name__} must be a mapping, got {type(params).__name__}")
    valid = cls._param_defaults()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{cls.__name__} has no hyperparameter(s) {unknown}")
    for hp, value in params.items():
        default = valid[hp]
        if default is None or value is None or isinstance(value, (list, dict)):
            continue  # sizes such as pool_size may be a number or a list: only scalar against scalar
        if (
            isinstance(default, bool) != isinstance(value, bool)
            or (isinstance(default, str) and not isinstance(value, str))
            or (
                isinstance(default, numbers.Real)
                and not isinstance(default, bool)
                and not (isinstance(value, numbers.Real) and not isinstance(value, bool))
            )
        ):
            raise ValueError(
                f"hyperparameter {hp}={value!r} of {cls.__name__} has the wrong type (the default is {default!r})"
            )
    bad = violations(cls._constraints, params)
    if bad:
        hp, value, expected = bad[0]
        raise ValueError(f"hyperparameter {hp}={value!r} of {cls.__name__} is out of range; expected {expected}")
    return params


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def save_model(estimator, stem: str | Path, *, registry_name: str, extra: dict | None = None) -> tuple[Path, Path]:
    """Write ``stem.npz`` and ``stem.json`` for a fitted estimator; return both paths. A model saved again under
    its stem replaces its own files; files of that name that are not a replearn model's are refused
    (:func:`check_replaceable`)."""
    check_is_fitted(estimator)
    stem = stem_path(stem)
    check_replaceable(stem, "model")
    stem.parent.mkdir(parents=True, exist_ok=True)
    arrays, state = _split_state(estimator)
    meta = {
        "format_version": FORMAT_VERSION,
        "model": registry_name,
        "class": type(estimator).__name__,
        "params": _jsonable(estimator.get_params()),
        "extra": _jsonable(extra or {}),
        "sha256": {key: array_digest(value) for key, value in arrays.items()},
        **state,
    }
    npz_path, json_path = stem_file(stem, ".npz"), stem_file(stem, ".json")
    # np.savez writes zip entries with a fixed timestamp, so the bytes depend only on the arrays. Each file whole or
    # not at all (replearn.atomic), the arrays first: the .json's sha256 of each array tells a mismatched pair.
    with atomic_write(npz_path, "wb", durable=False) as fh:
        np.savez(fh, **arrays)
    write_text(json_path, json.dumps(meta, indent=2, sort_keys=True, allow_nan=False) + "\n", durable=False)
    return npz_path, json_path


def load_model(stem: str | Path):
    """Recreate a model saved by :func:`save_model` (through the registry; nothing is unpickled).

    Any problem with the files raises :class:`ModelFileError` naming the file and what is wrong.
    """
    from .models import get_class

    json_path, npz_path = stem_file(stem, ".json"), stem_file(stem, ".npz")
    try:
        raw = json_path.read_bytes()
    except OSError as exc:
        raise ModelFileError(f"{json_path}: cannot read the model metadata ({exc.strerror or exc})") from None
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        what = (
            "a Python object stream (protocol byte 0x80), which replearn never loads"
            if raw[:1] == b"\x80"
            else "truncated or not JSON"
        )
        raise ModelFileError(f"{json_path}: not a replearn model file ({what}: {exc})") from None
    if not isinstance(meta, dict):
        raise ModelFileError(f"{json_path}: expected a JSON object, got {type(meta).__name__}")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelFileError(
            f"{json_path}: model file format_version {version!r}, this replearn reads "
            f"{FORMAT_VERSION}; retrain the model (dvc repro train) to write it in the current format"
        )
    for field, kind in (("model", str), ("params", dict), ("attributes", dict), ("arrays", list), ("sha256", dict)):
        if not isinstance(meta.get(field), kind):
            raise ModelFileError(f"{json_path}: field {field!r} is missing or not a {kind.__name__}")
    try:
        cls = get_class(meta["model"])
    except ConfigError:
        raise ModelFileError(f"{json_path}: model {meta['model']!r} is not in the model registry") from None
    try:
        estimator = cls(**_checked_params(cls, meta["params"]))
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"{json_path}: {exc}") from None
    try:
        with np.load(npz_path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except FileNotFoundError:
        raise ModelFileError(f"{npz_path}: missing (the arrays of {json_path.name})") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise ModelFileError(f"{npz_path}: damaged or truncated array file ({type(exc).__name__}: {exc})") from None
    digests = meta["sha256"]
    if set(digests) != set(arrays):
        raise ModelFileError(f"{npz_path}: holds arrays {sorted(arrays)}, the JSON lists {sorted(digests)}")
    for key, value in arrays.items():
        if array_digest(value) != digests[key]:
            raise ModelFileError(
                f"{npz_path}: array {key!r} does not match its SHA-256 in {json_path.name}; "
                "the file was modified or damaged"
            )
    try:
        _restore(estimator, meta, arrays)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ModelFileError(f"{json_path}: {exc}") from None
    return estimator
