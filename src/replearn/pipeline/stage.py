"""The common frame of every stage script: validate params.yaml first, turn errors into clear messages."""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable

from ..exceptions import ConfigError, ReplearnError
from .params import is_validated, load_params


def run(stage: str, body: Callable[[dict], None], params_file: str = "params.yaml") -> None:
    """Make sure ``params.yaml`` was accepted, then run ``body(params)``; exit 2 with a one-line cause on error.

    The ``validate`` stage checks ``params.yaml`` against the schema in its own body and stamps it
    (:mod:`replearn.pipeline.gate`). Any other stage given the same bytes trusts the stamp; without one (a stage
    run by hand after an edit, a temporary DVC workspace) it first runs the gate as a child process, which
    validates in full and gives the schema's own message. A stage thus never imports the schema and the
    registries it reads, and its code deps are the code it runs (:mod:`replearn.pipeline.deps`).

    A configuration rejected inside ``dvc exp run`` (which wrote it into the workspace's params.yaml)
    is moved aside to ``params.rejected.yaml`` and params.yaml recomposed from ``conf/``, so a failed
    experiment leaves a valid workspace behind.
    """
    try:
        if stage != "validate" and not is_validated(params_file):
            _gate(params_file)
        params = load_params(params_file)
    except ConfigError as exc:
        print(f"replearn {stage}: {exc}", file=sys.stderr)
        sys.exit(2)
    try:
        body(params)
    except ReplearnError as exc:
        print(f"replearn {stage}: {exc}", file=sys.stderr)
        sys.exit(2)
    except Exception as exc:
        fault = describe_fault(exc)
        if fault is None:
            raise
        print(f"replearn {stage}: {fault}", file=sys.stderr)
        sys.exit(2)


#: the child process that validates an unstamped params.yaml (a module name, run with ``python -m``)
GATE_MODULE = "replearn.pipeline.gate"


def _gate(params_file: str) -> None:
    """Run :mod:`replearn.pipeline.gate` on ``params_file`` in a child process: returns once it is stamped;
    a rejected file raises ``ConfigError`` with the schema's message."""
    import subprocess

    res = subprocess.run(
        [sys.executable, "-m", GATE_MODULE, str(params_file)], capture_output=True, text=True, check=False
    )
    if res.returncode == 2:
        raise ConfigError(res.stderr.strip())
    if res.returncode != 0 or not is_validated(params_file):
        raise RuntimeError(f"the validation of {params_file} failed (exit {res.returncode}):\n{res.stderr.strip()}")


_ERRNO_WORDS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}
_SQLITE_WORDS = {
    "readonly database": "the MLflow database is read-only (check the permissions of mlflow.db and its folder)",
    "database or disk is full": "the disk holding the MLflow database is full",
    "unable to open database file": "the MLflow database cannot be opened (missing folder or no permission)",
}


def describe_fault(exc: BaseException) -> str | None:
    """A one-line cause for an environment fault (full disk, read-only file or database, no permission).

    Follows the exception's ``__cause__``/``__context__`` chain (MLflow and SQLAlchemy wrap sqlite's errors);
    returns None for anything else, which then propagates unchanged.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _ERRNO_WORDS:
            where = exc.filename if exc.filename is not None else "(path not reported)"
            return f"{_ERRNO_WORDS[exc.errno]}: cannot write {where} ({exc.strerror})"
        text = str(exc).lower()
        if "max retries exceeded" in text or "connection refused" in text:
            return (
                f"a server could not be reached ({str(exc).splitlines()[0][:200]}); the outputs written so far "
                "are intact (for MLflow: check MLFLOW_TRACKING_URI / tracking.tracking_uri)"
            )
        for needle, words in _SQLITE_WORDS.items():
            if needle in text:
                return f"{words}: {str(exc).splitlines()[0][:300]}"
        nxt = exc.__cause__ or exc.__context__
        if nxt is None:
            break
        exc = nxt
    return None


def log(stage: str, message: str) -> None:
    """One line of progress on stderr (stdout is left to DVC)."""
    print(f"[{stage}] {message}", file=sys.stderr, flush=True)
