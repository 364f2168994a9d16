"""The pipeline's JSON files, written deterministically and read back: a leaf module (it imports nothing of the
pipeline), so the stages and the record module that only read and write JSON do not depend on the data loaders,
the families and the algorithms behind them (``replearn deps``: a stage's DVC deps are the code it imports)."""

from __future__ import annotations

import json
from pathlib import Path

from ..atomic import write_text


def write_json(path: Path, obj, *, compact: bool = False) -> None:
    """Write JSON deterministically (sorted keys, strict numbers, trailing newline): indented by 2, or on one
    line with ``compact`` (Python's C encoder, which ``indent`` turns off: 8.5 MB of a benchmark's significance
    record took 1 s to indent). Whole or not at all (:mod:`replearn.atomic`); not fsynced: every file written here
    is a pipeline output whose bytes DVC checks against dvc.lock, so a stage rerun repairs what a power cut loses."""
    if compact:
        text = json.dumps(obj, sort_keys=True, allow_nan=False, separators=(",", ":"))
    else:
        text = json.dumps(obj, indent=2, sort_keys=True, allow_nan=False)
    write_text(path, text + "\n", durable=False)


def read_json(path: Path):
    """The JSON value in ``path`` (UTF-8)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))
