"""Fits that may fail: how a failed or overlong fit is classified, and a time budget that is enforced for real.

A fit fails in one of three ways (:data:`REASONS`):

* ``"error"`` -- it raised (any exception but a :class:`~replearn.exceptions.ConfigError`, which is the
  configuration's fault and always propagates);
* ``"diverged"`` -- it produced NaN or infinite values: a :class:`~replearn.exceptions.DivergenceError` (a
  ``FloatingPointError``) from a solver, or non-finite predictions or scores;
* ``"timeout"`` -- it ran past its budget of seconds and was stopped.

:func:`call_with_deadline` runs a function in a forked child process and kills the child at the deadline, so a
fit stuck in a long C call (a kernel matrix, an SVD) is stopped as surely as one in a Python loop. The child
sends its result back as JSON through a pipe -- plain numbers and lists, never a pickled model -- and exits
without running the parent's exit handlers. Forking works the same from the main process, a joblib worker and a
Dask worker thread (only the calling thread lives on in the child, which runs nothing but the fit), so the
budget holds under every executor. Without a budget nothing is forked: the fit runs in the calling process.

A budget makes the outcome depend on the machine's speed: with a budget, the same params give the same results
only where no fit comes near it.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import time
import warnings
from collections.abc import Callable
from typing import Any

from ..exceptions import ConfigError, PluginModelError, ReplearnError

REASONS = ("error", "diverged", "timeout")
#: at most this many characters of an exception's message are kept in a failure record
MAX_MESSAGE = 300


class FitFailedError(ReplearnError, RuntimeError):
    """A fit failed (raised, diverged or ran past its budget) and failures are not recorded (``cv.on_error:
    raise``). ``reason`` is one of :data:`REASONS`; ``causes`` the names of the original exception's classes (its
    MRO, most specific first); ``model`` and ``replicate`` the model key and split index; ``detail`` the one-line
    cause a record would keep.

    Picklable (everything in ``args``), so it crosses joblib and Dask process boundaries intact."""

    def __init__(
        self,
        message: str,
        reason: str = "error",
        causes: tuple[str, ...] | list[str] = (),
        model: str | None = None,
        replicate: int | None = None,
        detail: str = "",
    ):
        super().__init__(message, reason, tuple(causes), model, replicate, detail)
        self.reason = reason
        self.causes = tuple(causes)
        self.model = model
        self.replicate = replicate
        self.detail = detail

    def __str__(self) -> str:
        return str(self.args[0])


class FitTimeout(ReplearnError, TimeoutError):
    """A fit ran past its budget of seconds and was stopped."""


class ChildFailure(ReplearnError, RuntimeError):
    """An exception raised in a budgeted child process, as it arrives in the parent: its reason (one of
    :data:`REASONS`), the names of its classes (most specific first) and its one-line message."""

    def __init__(self, reason: str, causes: list[str] | tuple[str, ...], message: str):
        super().__init__(reason, tuple(causes), message)
        self.reason, self.causes, self.message = reason, tuple(causes), message

    def __str__(self) -> str:
        return self.message


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most :data:`MAX_MESSAGE` characters): what a record keeps."""
    if isinstance(exc, ChildFailure):
        return exc.message
    if isinstance(exc, FitTimeout):
        return str(exc)
    if isinstance(exc, PluginModelError) and exc.__cause__ is not None:  # the record's cell names the model already
        return one_line(exc.__cause__)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 3] + "..."


def reason_of(exc: BaseException) -> str:
    """The failure reason of an exception raised by a fit: "timeout", "diverged" (NaN/inf: a
    ``FloatingPointError``, which :class:`~replearn.exceptions.DivergenceError` is) or "error"."""
    if isinstance(exc, ChildFailure):
        return exc.reason
    if isinstance(exc, FitTimeout):
        return "timeout"
    if isinstance(exc, FloatingPointError):
        return "diverged"
    return "error"


def causes_of(exc: BaseException) -> tuple[str, ...]:
    """The names of the exception's classes, most specific first (what a parent process can test)."""
    if isinstance(exc, ChildFailure):
        return exc.causes
    return tuple(c.__name__ for c in type(exc).__mro__)


def is_config_error(exc: BaseException) -> bool:
    """A configuration mistake (unknown hyperparameter, ...), not a failed fit: it always propagates."""
    return isinstance(exc, ConfigError) or (isinstance(exc, ChildFailure) and "ConfigError" in exc.causes)


def available() -> bool:
    """Whether budgets can be enforced here (they need ``os.fork``: Linux, macOS)."""
    return hasattr(os, "fork")


#: children that sent their result and are exiting, reaped by the next call (or at the latest when it forks)
_EXITING: list[int] = []


def _reap() -> None:
    for pid in list(_EXITING):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere
            done = pid
        if done:
            _EXITING.remove(pid)


def _wait(pid: int) -> int:
    """The child's exit status (0 when something else reaped it first)."""
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _child(fn: Callable[[], Any], fd: int) -> None:
    """Run ``fn`` in the forked child, send ``{"ok": value}`` or ``{"error": [reason, type, message]}``, exit."""
    status = 0
    gc.disable()  # a collection would walk (and so copy) every page of the parent's heap; the child is short-lived
    try:
        try:
            with warnings.catch_warnings():  # the child writes nothing to the terminal it shares with the parent
                warnings.simplefilter("ignore")
                payload: dict = {"ok": fn()}
        except BaseException as exc:  # noqa: BLE001 - every failure is reported to the parent
            payload = {"error": [reason_of(exc), list(causes_of(exc)), one_line(exc)]}
        data = json.dumps(payload).encode("utf-8")
        _write_all(fd, len(data).to_bytes(8, "big") + data)  # length first: another fork may hold this pipe open
    except BaseException:  # noqa: BLE001 - the parent sees no result and reports a dead child
        status = 70
    finally:
        os._exit(status)


def call_with_deadline(fn: Callable[[], Any], seconds: float) -> Any:
    """``fn()`` computed in a forked child process that is killed after ``seconds``.

    ``fn`` must return JSON data (numbers, strings, lists, dicts; NaN allowed). Raises :class:`FitTimeout` at
    the deadline (the child is killed with SIGKILL and reaped), :class:`ChildFailure` when ``fn`` raised in
    the child (its reason, class names and message) or when the child died without a result (a crash, the kernel's
    out-of-memory killer). Warnings raised in the child are not shown. ``ConfigError`` where fork is missing.
    """
    if not available():
        raise ConfigError("cv.max_fit_seconds needs os.fork (Linux or macOS); set cv.max_fit_seconds: null here")
    if not seconds > 0:
        raise ValueError(f"seconds must be positive, got {seconds!r}")
    _reap()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read_fd)
        _child(fn, write_fd)
    os.close(write_fd)
    deadline = time.monotonic() + float(seconds)
    received = b""
    size: int | None = None
    child: int | None = pid
    try:
        poller = select.poll()
        poller.register(read_fd, select.POLLIN | select.POLLHUP)
        while size is None or len(received) < 8 + size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise FitTimeout(f"stopped after cv.max_fit_seconds = {float(seconds):g} s")
            if not poller.poll(max(1, int(remaining * 1000) + 1)):
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break  # the child died before it sent all of its result
            received += chunk
            if size is None and len(received) >= 8:
                size = int.from_bytes(received[:8], "big")
        complete = size is not None and len(received) >= 8 + size
        if complete:  # the child is exiting: reap it later rather than wait for its teardown here
            _EXITING.append(pid)
            status = 0
        else:
            status = _wait(pid)
        child = None
    finally:
        os.close(read_fd)
        if child is not None:
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _wait(child)
    if not complete or size is None:
        how = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
        raise ChildFailure("error", ["ChildProcessError"], f"ChildProcessError: the fit's process died ({how})")
    payload = json.loads(received[8 : 8 + size].decode("utf-8"))
    if "error" in payload:
        raise ChildFailure(*payload["error"])
    return payload["ok"]
