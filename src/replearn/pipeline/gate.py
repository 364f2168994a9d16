"""The validation gate: accept a ``params.yaml`` (the whole schema, every registry) and stamp it.

The ``validate`` stage calls :func:`accept` in its own process; it depends on the schema and on every registry
the schema reads, so it reruns when any of them changes. Every other stage only needs to know that its
``params.yaml`` was accepted (:func:`replearn.pipeline.stage.run`): the stamp says so, and without one (a
stage run by hand after an edit, a temporary DVC workspace) the stage runs this module as a child process,
``python -m replearn.pipeline.gate params.yaml``, which exits 0 once the file is stamped or 2 with the schema's
message on stderr. The gate decides only whether a stage runs, never what it writes, which is why its code
is not among the other stages' deps (:mod:`replearn.pipeline.deps`): editing one model reruns ``validate``
(its constraints are part of the schema), never ``prepare``.
"""

from __future__ import annotations

import os
import sys

from ..exceptions import ConfigError
from ..plugin_lock import problem as plugin_problem
from .config import restore_after_rejected_experiment, validate
from .params import PARAMS_FILE, load_params, write_stamp


def accept(params: dict, params_file: str | os.PathLike = PARAMS_FILE) -> None:
    """Validate ``params`` (read from ``params_file``) and stamp the file; an invalid one raises ``ConfigError``
    whose message ends with what was done to the workspace of a rejected ``dvc exp run``, if anything."""
    try:
        validate(params, source=params_file)
    except ConfigError as exc:
        note = restore_after_rejected_experiment(params_file)
        raise ConfigError(f"{exc}\n{note}" if note else str(exc)) from None
    stale = plugin_problem(os.path.dirname(os.path.abspath(params_file)), params)  # params.yaml is fine as it is
    if stale:
        raise ConfigError(stale)
    write_stamp(params_file)


def main(argv: list[str] | None = None) -> int:
    """``python -m replearn.pipeline.gate [PARAMS]``: 0 when accepted and stamped, 2 with the reason on stderr."""
    args = sys.argv[1:] if argv is None else argv
    params_file = args[0] if args else PARAMS_FILE
    try:
        accept(load_params(params_file), params_file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
