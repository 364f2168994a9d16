"""The common frame of every stage script: validate params.yaml first, turn errors into clear messages."""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..exceptions import ReplearnError
from .config import load_and_validate


def run(stage: str, body: Callable[[dict], None], params_file: str = "params.yaml") -> None:
    """Validate the whole configuration, then run ``body(params)``; exit 2 with a one-line cause on error."""
    try:
        params = load_and_validate(params_file)
        body(params)
    except ReplearnError as exc:
        print(f"replearn {stage}: {exc}", file=sys.stderr)
        sys.exit(2)


def log(stage: str, message: str) -> None:
    """One line of progress on stderr (stdout is left to DVC)."""
    print(f"[{stage}] {message}", file=sys.stderr, flush=True)
