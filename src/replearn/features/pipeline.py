"""A chain of feature maps applied in order; fitted on the training part only.

In cross-validation a fresh pipeline is fitted on each fold's training part, so nothing of the held-out
fold leaks into the map (CIML §5.6's warning about normalizing before splitting).

A fitted pipeline is saved as model files are (:mod:`replearn.persistence`): the arrays in ``<stem>.npz``
(loaded with ``allow_pickle=False``), the steps in ``<stem>.json`` with a SHA-256 of every array, verified
on load; every problem with the files raises one :class:`~replearn.persistence.ModelFileError` naming
the file and what is wrong.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from ..atomic import atomic_write, write_text
from ..validation import check_array

#: version of the featurizer file format (1: per-array SHA-256 in the JSON)
FORMAT_VERSION = 1


class FeaturePipeline:
    """``steps`` is a list of ``{"name": registry name, "params": {...}}`` (the config's ``features.steps``)."""

    def __init__(self, steps: list[dict] | None = None, *, max_columns: int | None = None):
        self.steps = list(steps or [])
        self.max_columns = max_columns  # the configuration's features.max_columns (None: each map's default)

    def _build(self):
        from . import create

        built = [create(s["name"], **(s.get("params") or {})) for s in self.steps]
        if self.max_columns is not None:
            for t in built:
                if hasattr(t, "max_columns"):
                    t.max_columns = int(self.max_columns)
        return built

    def fit(self, X, y=None):
        self.fit_transform(X, y)
        return self

    def transform(self, X):
        X = check_array(X)
        for t in self.transformers_:
            X = t.transform(X)
        return X

    def fit_transform(self, X, y=None):
        X = check_array(X)
        self.transformers_ = []
        for t in self._build():
            X = t.fit_transform(X, y)
            self.transformers_.append(t)
        self.n_features_out_ = X.shape[1]
        return X

    # -- safe persistence: one npz with step-prefixed arrays, one JSON --------------------------
    def save(self, stem: str | Path) -> None:
        """Write ``stem.npz`` (the arrays of every step) and ``stem.json`` (steps, SHA-256 of each array)."""
        from ..persistence import _split_state, array_digest, check_replaceable, stem_file, stem_path

        stem = stem_path(stem)
        check_replaceable(stem, "featurizer")  # never over another program's files or a model's
        stem.parent.mkdir(parents=True, exist_ok=True)
        arrays, meta_steps = {}, []
        for i, (spec, t) in enumerate(zip(self.steps, self.transformers_)):
            a, state = _split_state(t, prefix=f"{i}.")
            arrays.update(a)
            meta_steps.append({"name": spec["name"], "params": t.get_params(), **state})
        meta = {
            "format_version": FORMAT_VERSION,
            "sha256": {key: array_digest(value) for key, value in arrays.items()},
            "steps": meta_steps,
        }
        with atomic_write(stem_file(stem, ".npz"), "wb", durable=False) as fh:  # whole or not at all
            np.savez(fh, **arrays)
        write_text(stem_file(stem, ".json"), json.dumps(meta, indent=2, sort_keys=True) + "\n", durable=False)

    @classmethod
    def load(cls, stem: str | Path) -> FeaturePipeline:
        """Recreate a pipeline saved by :meth:`save`; any problem raises ``ModelFileError`` naming the file."""
        from ..exceptions import ConfigError
        from ..persistence import ModelFileError, _checked_params, _restore, array_digest, stem_file
        from . import get_class

        json_path, npz_path = stem_file(stem, ".json"), stem_file(stem, ".npz")
        try:
            meta = json.loads(json_path.read_bytes().decode("utf-8"))
        except OSError as exc:
            raise ModelFileError(f"{json_path}: cannot read the featurizer metadata ({exc.strerror or exc})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelFileError(
                f"{json_path}: not a replearn featurizer file (truncated or not JSON: {exc})"
            ) from None
        if not isinstance(meta, dict):
            raise ModelFileError(f"{json_path}: expected a JSON object, got {type(meta).__name__}")
        if meta.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(
                f"{json_path}: featurizer file format_version {meta.get('format_version')!r}, this replearn reads "
                f"{FORMAT_VERSION}; rerun the featurize stage (dvc repro featurize) to write it in the current format"
            )
        steps, digests = meta.get("steps"), meta.get("sha256")
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            raise ModelFileError(f"{json_path}: field 'steps' is missing or not a list of objects")
        if not isinstance(digests, dict):
            raise ModelFileError(f"{json_path}: field 'sha256' is missing or not an object")
        try:
            with np.load(npz_path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        except FileNotFoundError:
            raise ModelFileError(f"{npz_path}: missing (the arrays of {json_path.name})") from None
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
            raise ModelFileError(f"{npz_path}: damaged or truncated array file ({type(exc).__name__}: {exc})") from None
        if set(digests) != set(arrays):
            raise ModelFileError(f"{npz_path}: holds arrays {sorted(arrays)}, the JSON lists {sorted(digests)}")
        for key, value in arrays.items():
            if array_digest(value) != digests[key]:
                raise ModelFileError(
                    f"{npz_path}: array {key!r} does not match its SHA-256 in {json_path.name}; "
                    "the file was modified or damaged"
                )
        pipe = cls([{"name": s.get("name"), "params": s.get("params")} for s in steps])
        pipe.transformers_ = []
        for i, s in enumerate(steps):
            try:
                step_cls = get_class(s.get("name"))
                t = step_cls(**_checked_params(step_cls, s.get("params")))
                for field, kind in (("attributes", dict), ("arrays", list)):
                    if not isinstance(s.get(field), kind):
                        raise ValueError(f"field {field!r} is missing or not a {kind.__name__}")
                _restore(t, s, arrays, prefix=f"{i}.")
            except (ConfigError, TypeError, ValueError, KeyError, AttributeError) as exc:
                raise ModelFileError(f"{json_path}: step {i}: {exc}") from None
            pipe.transformers_.append(t)
        return pipe
