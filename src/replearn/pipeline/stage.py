"""The common frame of every stage script: validate params.yaml first, turn errors into clear messages."""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..exceptions import ConfigError, ReplearnError
from .config import load_and_validate, restore_after_rejected_experiment


def run(stage: str, body: Callable[[dict], None], params_file: str = "params.yaml") -> None:
    """Validate the whole configuration, then run ``body(params)``; exit 2 with a one-line cause on error.

    A configuration rejected inside ``dvc exp run`` (which wrote it into the workspace's params.yaml)
    is moved aside to ``params.rejected.yaml`` and params.yaml recomposed from ``conf/``, so a failed
    experiment leaves a valid workspace behind.
    """
    try:
        params = load_and_validate(params_file)
    except ConfigError as exc:
        note = restore_after_rejected_experiment(params_file)
        print(f"replearn {stage}: {exc}" + (f"\n{note}" if note else ""), file=sys.stderr)
        sys.exit(2)
    try:
        body(params)
    except ReplearnError as exc:
        print(f"replearn {stage}: {exc}", file=sys.stderr)
        sys.exit(2)


def log(stage: str, message: str) -> None:
    """One line of progress on stderr (stdout is left to DVC)."""
    print(f"[{stage}] {message}", file=sys.stderr, flush=True)
