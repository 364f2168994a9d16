"""The env file of the local service stack (``make services``): addresses the pipeline reads when none is set.

``python -m replearn services up`` writes ``<repository>/.services/env`` (git-ignored): one ``KEY=value`` per
line, for example ``MLFLOW_TRACKING_URI=http://127.0.0.1:40123`` and ``DASK_SCHEDULER_ADDRESS=tcp://...``.
``tracking=server`` and ``compute=dask`` read it only when no address is configured and the environment gives
none. ``REPLEARN_SERVICES_ENV`` names another file. For runs of ``dvc exp run --queue``/``--temp``, which
execute in a temporary copy, the file is looked up in ``$DVC_ROOT`` (the real repository).
"""

from __future__ import annotations

import os
from pathlib import Path

SERVICES_DIR = ".services"
ENV_FILE = "env"
ENV_VAR = "REPLEARN_SERVICES_ENV"


def env_path(root: Path | None = None) -> Path:
    """Where the env file is: ``$REPLEARN_SERVICES_ENV``, else ``.services/env`` in ``$DVC_ROOT`` or ``root``."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("DVC_ROOT") or root or Path.cwd()
    return Path(base).resolve() / SERVICES_DIR / ENV_FILE


def parse(text: str) -> dict[str, str]:
    """``KEY=value`` lines (``#`` comments and blank lines skipped; an optional ``export`` prefix)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        out[key.strip()] = value.strip().strip("'\"")
    return out


def read(root: Path | None = None) -> dict[str, str]:
    """The env file's settings; an empty mapping when there is none (the services are not up)."""
    path = env_path(root)
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return {}


def lookup(key: str, root: Path | None = None) -> str | None:
    """``key`` from the environment, else from the env file of ``make services``; None when neither has it."""
    return os.environ.get(key) or read(root).get(key) or None
