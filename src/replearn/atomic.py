"""Files written whole or not at all: a temporary file in the target's folder, renamed over the target.

Every file replearn writes (records, metrics, models, features, reports, figures, MLflow model folders, the
validation stamp, ``params.yaml``) goes through :func:`atomic_write` or its two shorthands, and so do DVC's own
``dvc.lock`` writes once :mod:`replearn.dvc_guard` is installed. A process killed at any moment (SIGKILL, out of
memory, a closed laptop) leaves either the previous file or the new one, never a prefix of it; a write that fails
(a full disk, a read-only folder) leaves the previous file as it was, removes its temporary file and raises the
``OSError`` with the *target's* path in ``filename``, so the one-line message names the file that could not be
written.

* The temporary file is ``.<name>.<pid>.<random>.replearn-partial`` beside the target (a suffix may follow, for
  writers that choose the format by the file's suffix: :func:`temp_name`) (the same file system, so
  ``os.replace`` is atomic). A killed writer leaves it behind; the next write of the same target removes those of
  dead processes (:func:`sweep`), ``.gitignore`` and ``.dvcignore`` keep them out of git and DVC's hashes, and
  ``replearn check`` lists any that remain (:func:`leftovers`; ``--repair`` removes them).
* The new file gets the permissions of the file it replaces, or those ``open`` would give a new file.
* ``durable=True`` (the default) fsyncs the file before the rename and the folder after it, so a power cut cannot
  leave an empty file under the new name either; bulk outputs whose bytes DVC checks against ``dvc.lock`` anyway
  (models, features, per-dataset plots) pass ``durable=False``: a rename is atomic against a killed process
  without it, and an fsync costs ~4 ms a file here.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

#: the mark in the name of every temporary file made here (ignored by git and DVC: .gitignore, .dvcignore)
PARTIAL_SUFFIX = ".replearn-partial"
#: a temporary file older than this is stale whatever its process id says (a file system shared with other hosts)
STALE_SECONDS = 24 * 3600


def _default_mode() -> int:
    """The permissions ``open`` gives a new file: 0o666 less the umask (read without changing it, on Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: the one portable way (this runs once, at import)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _default_mode()


def temp_name(target: str | os.PathLike, suffix: str = "") -> str:
    """The name of a temporary file for ``target`` (in the same folder): hidden, with this process's id, ending in
    ``suffix`` (e.g. ``.yaml`` for a writer that picks its format by the suffix)."""
    name = os.path.basename(os.fspath(target))
    return f".{name}.{os.getpid()}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}{suffix}"


def is_temp_name(name: str) -> bool:
    """True for the name of a temporary file :func:`temp_name` makes (or any file with its mark: one without a
    process id in its name counts as stale, :func:`is_stale`)."""
    return PARTIAL_SUFFIX in name


def _owner_pid(temp: str) -> int | None:
    """The process id in a temporary file's name (``.<name>.<pid>.<random>.replearn-partial``), None if absent."""
    parts = temp[: temp.index(PARTIAL_SUFFIX)].rsplit(".", 2) if PARTIAL_SUFFIX in temp else []
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return int(parts[1])


def process_alive(pid: int) -> bool:
    """True when process ``pid`` runs on this machine (this process included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def is_stale(path: str | os.PathLike) -> bool:
    """True for a temporary file whose writer is gone (its process is not running, or the file is a day old)."""
    path = os.fspath(path)
    pid = _owner_pid(os.path.basename(path))
    try:
        age = time.time() - os.stat(path).st_mtime
    except FileNotFoundError:
        return False
    return pid is None or not process_alive(pid) or age > STALE_SECONDS


def sweep(target: str | os.PathLike) -> None:
    """Remove the stale temporary files of ``target`` (those a killed writer of it left behind)."""
    folder, name = os.path.split(os.path.realpath(os.fspath(target)))
    prefix = f".{name}."
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        if entry.startswith(prefix) and is_temp_name(entry) and is_stale(os.path.join(folder, entry)):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, entry))


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a directory; the rename itself is still atomic
        pass
    finally:
        os.close(fd)


def _named(exc: OSError, target: str, temp: str | None) -> OSError:
    """``exc`` naming ``target``: a failed write() reports no path, a failed create or rename the temporary one."""
    if exc.filename is None or (temp is not None and os.fspath(exc.filename) in (temp, target)):
        named = OSError(exc.errno, exc.strerror, target)  # the subclass of the errno (FileNotFoundError, ...)
        named.__traceback__ = exc.__traceback__
        return named
    return exc


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike,
    mode: str = "w",
    *,
    durable: bool = True,
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """Open a temporary file for writing (``mode`` "w" or "wb"); on a clean exit it replaces ``path``.

    On an exception the temporary file is removed and ``path`` is left as it was. A symbolic link is followed:
    the file it points to is replaced, the link stays. The folder is created when missing.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes a whole file: mode 'w' or 'wb', not {mode!r}")
    target = os.path.realpath(os.fspath(path))
    shown = os.fspath(path)
    folder, name = os.path.split(target)
    temp: str | None = None
    try:
        os.makedirs(folder, exist_ok=True)
        sweep(target)
        try:
            perms = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            perms = _NEW_FILE_MODE
        temp = os.path.join(folder, temp_name(target))
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, perms)
        try:
            os.fchmod(fd, perms)  # not narrowed by the umask: the replaced file's own permissions
            fh = os.fdopen(fd, mode, encoding=None if "b" in mode else encoding, newline=newline)
        except BaseException:
            os.close(fd)
            raise
        with fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(temp, target)
        temp = None
        if durable:
            _fsync_dir(folder)
    except OSError as exc:
        raise _named(exc, shown, temp) from None
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def commit(temp: str | os.PathLike, path: str | os.PathLike, *, durable: bool = True) -> None:
    """Rename a complete temporary file (written by someone else's code, e.g. Hydra's) over ``path``: the replaced
    file's permissions kept, fsynced before and after with ``durable``; the temporary file is gone either way."""
    temp, target = os.fspath(temp), os.path.realpath(os.fspath(path))
    try:
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, os.stat(target).st_mode & 0o7777)
        if durable:
            fd = os.open(temp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.replace(temp, target)
        if durable:
            _fsync_dir(os.path.dirname(target))
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise _named(exc, os.fspath(path), temp) from None


def write_bytes(path: str | os.PathLike, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` whole or not at all (:func:`atomic_write`)."""
    with atomic_write(path, "wb", durable=durable) as fh:
        fh.write(data)


def write_text(
    path: str | os.PathLike, text: str, *, durable: bool = True, encoding: str = "utf-8", newline: str | None = None
) -> None:
    """Write ``text`` to ``path`` whole or not at all (:func:`atomic_write`)."""
    with atomic_write(path, "w", durable=durable, encoding=encoding, newline=newline) as fh:
        fh.write(text)


def copy_file(src: str | os.PathLike, dst: str | os.PathLike, *, durable: bool = False) -> None:
    """Copy ``src`` to ``dst`` whole or not at all (the bytes only, as ``shutil.copyfile``)."""
    import shutil

    with open(src, "rb") as source, atomic_write(dst, "wb", durable=durable) as fh:
        shutil.copyfileobj(source, fh, 1 << 20)


def leftovers(root: str | os.PathLike, folders: tuple[str, ...] | None = None) -> list[Path]:
    """The stale temporary files under ``root`` (or under its ``folders``): writes a killed process left unfinished.

    Git's and DVC's folders and the virtual environments are not walked."""
    root = Path(root)
    skip = {".git", ".dvc", "node_modules", "__pycache__"}
    bases = [root / f for f in folders] if folders else [root]
    found: list[Path] = []
    for base in bases:
        if not base.exists():
            continue
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d not in skip and not d.startswith(".venv")]
            for f in files:
                if is_temp_name(f) and is_stale(os.path.join(folder, f)):
                    found.append(Path(folder, f))
    return sorted(found)
