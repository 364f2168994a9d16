"""Files written whole or not at all (replearn.atomic): a killed writer, a failed write, a full disk and a read-only
folder each leave the previous file as it was; the error names the target; leftovers are swept and listed.

The full-disk and read-only cases run on a real file system (a small tmpfs, mounted in a private mount namespace by
`unshare`) when this machine allows it, and are fault-injected at the write layer otherwise (a test of each kind)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from replearn import atomic
from replearn.pipeline.stage import describe_fault

OLD = "the previous version\n"


def _partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if atomic.is_temp_name(p.name))


def test_a_write_replaces_the_file_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "sub" / "out.json"
    atomic.write_text(target, "one\n")
    atomic.write_text(target, "two\n", durable=False)
    assert target.read_text() == "two\n"
    assert _partials(target.parent) == []
    atomic.write_bytes(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_an_exception_while_writing_keeps_the_previous_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    with pytest.raises(RuntimeError, match="boom"):
        with atomic.atomic_write(target) as fh:
            fh.write("half of the new ver")
            raise RuntimeError("boom")
    assert target.read_text() == OLD and _partials(tmp_path) == []


def test_permissions_of_the_replaced_file_are_kept_and_new_files_get_the_umask(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    target.chmod(0o640)
    atomic.write_text(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.txt"
    atomic.write_text(fresh, "x")
    plain = tmp_path / "plain.txt"
    plain.write_text("x")  # what open() gives a new file
    assert stat.S_IMODE(fresh.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text(OLD)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic.write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_only_whole_file_modes():
    with pytest.raises(ValueError, match="mode 'w' or 'wb'"):
        with atomic.atomic_write("x", "a"):
            pass


def test_a_killed_writer_leaves_the_previous_file_and_the_next_write_sweeps_its_leftover(tmp_path):
    """SIGKILL in the middle of a write (the process kills itself after writing half)."""
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    code = textwrap.dedent(
        f"""
        import os, signal
        from replearn import atomic
        with atomic.atomic_write({str(target)!r}) as fh:
            fh.write("half of the new")
            fh.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert res.returncode == -signal.SIGKILL
    assert target.read_text() == OLD
    left = _partials(tmp_path)
    assert len(left) == 1 and left[0].startswith(".out.txt.")
    assert atomic.leftovers(tmp_path) == [tmp_path / left[0]]  # its process is gone: stale
    atomic.write_text(target, "new\n")
    assert target.read_text() == "new\n" and _partials(tmp_path) == []


def test_the_sweep_spares_a_live_writer(tmp_path):
    target = tmp_path / "out.txt"
    mine = tmp_path / atomic.temp_name(target)  # this process's: alive
    mine.write_text("in progress")
    dead = tmp_path / f".out.txt.{2**22 + 12345}.abcd{atomic.PARTIAL_SUFFIX}"  # above any pid_max: no such process
    dead.write_text("left by a killed run")
    other = tmp_path / f".other.txt.{2**22 + 12345}.abcd{atomic.PARTIAL_SUFFIX}"
    other.write_text("another target's")
    atomic.write_text(target, "x")
    assert mine.exists() and not dead.exists() and other.exists()
    assert atomic.leftovers(tmp_path) == [other]
    unnamed = tmp_path / "sub" / f"out.json{atomic.PARTIAL_SUFFIX}"  # the mark without a writer's pid: nobody's
    unnamed.parent.mkdir()
    unnamed.write_text("{")
    assert atomic.leftovers(tmp_path) == [other, unnamed]


class _FullDisk:
    """A file object whose writes fail as on a full disk (what write(2) gives then)."""

    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


def test_a_full_disk_fault_injected_keeps_the_file_and_names_it(tmp_path, monkeypatch):
    target = tmp_path / "metrics" / "train.json"
    target.parent.mkdir()
    target.write_text(OLD)
    real_fdopen = os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: _FullDisk(real_fdopen(*a, **k)))
    with pytest.raises(OSError) as info:
        atomic.write_text(target, json.dumps({"a": 1}))
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert target.read_text() == OLD and _partials(target.parent) == []
    assert describe_fault(info.value) == f"the disk is full: cannot write {target} (No space left on device)"


def test_a_read_only_folder_fault_injected_keeps_the_file_and_names_it(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_text(OLD)

    def read_only(path, *a, **k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)

    monkeypatch.setattr(atomic.os, "open", read_only)
    with pytest.raises(OSError) as info:
        atomic.write_text(target, "new\n")
    assert info.value.errno == errno.EROFS and info.value.filename == str(target)  # the target, not the temporary
    assert target.read_text() == OLD
    assert describe_fault(info.value).startswith(f"the file system is read-only: cannot write {target}")


# -- on a real file system: a small tmpfs in a private mount namespace -------------------------------------------
def _namespace() -> list[str] | None:
    """The `unshare` prefix that gives a private mount namespace here (root: -m; else a user namespace -rm)."""
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        return None
    for prefix in (["unshare", "-m"], ["unshare", "-rm"]):
        probe = subprocess.run([*prefix, "true"], capture_output=True)
        if probe.returncode == 0:
            return prefix
    return None


NAMESPACE = _namespace()
needs_mount = pytest.mark.skipif(NAMESPACE is None, reason="no private mount namespace here (unshare)")


def _in_namespace(tmp_path: Path, script: str) -> dict:
    """Run ``script`` (Python, with MNT the folder a 256 KiB tmpfs is mounted on) in a private mount namespace."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    out = tmp_path / "result.json"
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import errno, json, os, subprocess, sys\n"
        f"MNT, OUT = {str(mnt)!r}, {str(out)!r}\n"
        "subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', MNT], check=True)\n"
        "from replearn import atomic\n" + textwrap.dedent(script)
    )
    res = subprocess.run([*NAMESPACE, sys.executable, str(driver)], capture_output=True, text=True)
    if res.returncode != 0 and "mount" in res.stderr and "permission denied" in res.stderr.lower():
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip().splitlines()[-1]}")
    assert res.returncode == 0, res.stderr
    return json.loads(out.read_text())


@needs_mount
def test_a_full_disk_on_a_real_file_system_keeps_the_file(tmp_path):
    got = _in_namespace(
        tmp_path,
        """
        target = os.path.join(MNT, "train.json")
        atomic.write_text(target, "the previous version\\n")
        filler = os.path.join(MNT, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the file system up
        try:
            while True:
                os.write(fd, b"x" * 4096)
        except OSError:
            os.close(fd)
        try:
            atomic.write_text(target, "y" * 200_000)
        except OSError as exc:
            error = [exc.errno, exc.filename]
        else:
            error = None
        before = open(target).read()
        left = [n for n in os.listdir(MNT) if atomic.is_temp_name(n)]
        os.unlink(filler)  # space is back: the same write succeeds
        atomic.write_text(target, "y" * 200_000)
        json.dump({"error": error, "before": before, "left": left, "after": len(open(target).read())}, open(OUT, "w"))
        """,
    )
    assert got["error"] == [errno.ENOSPC, os.path.join(str(tmp_path / "mnt"), "train.json")]
    assert got["before"] == OLD and got["left"] == [] and got["after"] == 200_000


@needs_mount
def test_a_read_only_file_system_keeps_the_file(tmp_path):
    got = _in_namespace(
        tmp_path,
        """
        target = os.path.join(MNT, "train.json")
        atomic.write_text(target, "the previous version\\n")
        subprocess.run(["mount", "-o", "remount,ro", MNT], check=True)
        try:
            atomic.write_text(target, "new\\n")
        except OSError as exc:
            error = [exc.errno, exc.filename]
        else:
            error = None
        json.dump({"error": error, "before": open(target).read()}, open(OUT, "w"))
        """,
    )
    assert got["error"] == [errno.EROFS, os.path.join(str(tmp_path / "mnt"), "train.json")]
    assert got["before"] == OLD
