"""Reading ``params.yaml`` and remembering that it was validated, without the schema and its registries.

Every stage needs the parameters; only the ``validate`` stage needs the schema, which reads every registry
(models, metrics, tests, reproductions) and so imports most of the package. When ``validate`` accepts a
``params.yaml`` it writes a *stamp*, ``.replearn/validated.json`` next to it (git-ignored, never a DVC output):
the SHA-256 of the file's bytes, the schema version and replearn's version. A later stage whose
``params.yaml`` matches the stamp skips the schema; one that does not (a stage run by hand after an edit,
a temporary DVC workspace) has it validated in full first (:func:`replearn.pipeline.stage.run`).

That is what keeps a stage's start-up to the code it runs: a stage with nothing to do for an experiment costs the
interpreter and its own imports. Without a matching stamp a stage has the file validated by the gate
(:mod:`replearn.pipeline.gate`) in a child process, so no stage but ``validate`` imports the schema, and only
``validate`` depends on it and on the registries it reads (:mod:`replearn.pipeline.deps`): the gate decides
whether a stage runs, never what it writes.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import yaml

from .. import __version__
from ..exceptions import ConfigError

PARAMS_FILE = "params.yaml"
#: Version of the configuration schema (:data:`replearn.pipeline.config.SCHEMA`); written to results/config.json by
#: the validate stage and into the validation stamp.
SCHEMA_VERSION = 2
STAMP_DIR = ".replearn"
STAMP_NAME = "validated.json"


def load_params(path: str | os.PathLike = PARAMS_FILE) -> dict:
    """Read ``params.yaml``; a missing or malformed file raises ``ConfigError``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path} not found; create it with `python -m replearn compose`")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping at the top level, got {type(data).__name__}")
    return data


def project_root(start: str | os.PathLike | None = None) -> Path:
    """The repository root: the nearest parent of ``start`` (default: cwd) holding ``dvc.yaml``."""
    here = Path(start or os.getcwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "dvc.yaml").is_file():
            return candidate
    raise ConfigError(f"no dvc.yaml found in {here} or its parents; run replearn from inside the project")


def stamp_path(params_file: str | os.PathLike = PARAMS_FILE) -> Path:
    """Where the validation stamp of ``params_file`` lives: ``.replearn/validated.json`` beside it."""
    return Path(params_file).resolve().parent / STAMP_DIR / STAMP_NAME


def _stamp(params_file: str | os.PathLike) -> dict:
    digest = hashlib.sha256(Path(params_file).read_bytes()).hexdigest()
    return {"params_sha256": digest, "schema_version": SCHEMA_VERSION, "replearn": __version__}


def write_stamp(params_file: str | os.PathLike) -> None:
    """Record that ``params_file``, as it is now, passed the schema (atomic write)."""
    from ..atomic import write_text

    write_text(stamp_path(params_file), json.dumps(_stamp(params_file), sort_keys=True) + "\n", durable=False)


def is_validated(params_file: str | os.PathLike) -> bool:
    """True when the stamp says ``params_file``'s exact bytes passed this schema under this replearn version."""
    try:
        stamp = json.loads(stamp_path(params_file).read_text(encoding="utf-8"))
        return bool(stamp == _stamp(params_file))
    except (OSError, ValueError):
        return False
