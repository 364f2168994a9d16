"""The common frame of every stage script: validate params.yaml first, turn errors into clear messages."""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable

from ..exceptions import ConfigError, ReplearnError
from .params import is_validated, load_params, write_stamp


def run(stage: str, body: Callable[[dict], None], params_file: str = "params.yaml") -> None:
    """Validate the whole configuration, then run ``body(params)``; exit 2 with a one-line cause on error.

    The ``validate`` stage checks ``params.yaml`` against the schema and stamps it
    (:mod:`replearn.pipeline.params`); a later stage given the same bytes trusts the stamp and so never
    loads the registries it does not use. Without a matching stamp (a stage run by hand after an edit)
    the stage validates in full first.

    A configuration rejected inside ``dvc exp run`` (which wrote it into the workspace's params.yaml)
    is moved aside to ``params.rejected.yaml`` and params.yaml recomposed from ``conf/``, so a failed
    experiment leaves a valid workspace behind.
    """
    try:
        params = load_params(params_file)
        if stage == "validate" or not is_validated(params_file):
            _validate(params, params_file)
    except ConfigError as exc:
        from .config import restore_after_rejected_experiment

        note = restore_after_rejected_experiment(params_file)
        print(f"replearn {stage}: {exc}" + (f"\n{note}" if note else ""), file=sys.stderr)
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


def _validate(params: dict, params_file: str) -> None:
    """The whole schema and every registry (:func:`replearn.pipeline.config.validate`), then the stamp.

    Imported here, when needed: a stage given a stamped ``params.yaml`` never loads the registries the schema reads.
    """
    from .config import validate

    validate(params)
    write_stamp(params_file)


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
