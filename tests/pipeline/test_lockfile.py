"""A dvc.lock cut short by a killed run is reported with the way out (issue: every later `dvc` command failed
with a schema error); the report stage's view of the final dvc.lock is tested end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline.lockfile import check_lock_file

ROOT = Path(__file__).resolve().parents[2]
LOCK = (ROOT / "dvc.lock").read_text(encoding="utf-8")


def test_committed_lock_file_passes(tmp_path):
    (tmp_path / "dvc.lock").write_text(LOCK)
    check_lock_file(tmp_path)
    check_lock_file(tmp_path / "missing")  # no lock file yet: nothing to check


@pytest.mark.parametrize("cut", [0, 1, len(LOCK) * 2 // 3, len(LOCK) - 7])
def test_truncated_lock_file_names_the_recovery(tmp_path, cut):
    text = LOCK[:cut]
    (tmp_path / "dvc.lock").write_text(text)
    try:
        check_lock_file(tmp_path)
    except ConfigError as exc:
        assert "git checkout dvc.lock" in str(exc) and "delete it" in str(exc)
    else:  # a cut that happens to leave a valid file (between two entries) is one DVC accepts too
        import yaml
        from dvc.schema import COMPILED_LOCKFILE_SCHEMA

        COMPILED_LOCKFILE_SCHEMA(yaml.safe_load(text))
        assert cut > 0


def test_garbage_lock_file(tmp_path):
    (tmp_path / "dvc.lock").write_bytes(b"\x00\xff{[")
    with pytest.raises(ConfigError, match="not valid YAML"):
        check_lock_file(tmp_path)


def test_cli_check_exits_nonzero_and_repair_restores(tmp_path):
    """`replearn check` names what a killed run left (a cut lock, an unfinished write, an unreadable rwlock) and the
    command that repairs it; `replearn check --repair` (what `make repro` runs first) repairs them."""
    for f in ("dvc.yaml", "params.yaml"):
        (tmp_path / f).write_text((ROOT / f).read_text())
    (tmp_path / ".dvc" / "tmp").mkdir(parents=True)
    spare = tmp_path / ".dvc/tmp/replearn/last-good/dvc.lock"
    spare.parent.mkdir(parents=True)
    spare.write_text(LOCK)
    (tmp_path / "dvc.lock").write_text("")
    (tmp_path / ".dvc/tmp/rwlock").write_text('{"read": {"/x": [{"pid"')
    (tmp_path / "metrics").mkdir()
    left = tmp_path / "metrics" / ".train.json.4194999.ab12cd34.replearn-partial"  # pid above pid_max: gone
    left.write_text("{")
    (tmp_path / "metrics" / "train.json").write_text('{"accuracy": 0.9')  # cut short by a writer outside replearn
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a.npz").write_bytes(b"PK\x03\x04 cut")
    check = [sys.executable, "-m", "replearn", "check"]
    res = subprocess.run(check, cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert lines[0] == (
        "dvc.lock is cut short (0 bytes) by a killed run; `replearn check --repair` restores the last complete lock "
        "file this workspace wrote (.dvc/tmp/replearn/last-good/dvc.lock)"
    )
    assert (
        "metrics/.train.json.4194999.ab12cd34.replearn-partial); the files they were to replace are intact; "
        in (lines[1])
    )
    assert lines[2].startswith("models/a.npz is cut short (no zip directory at its end") and "aside" in lines[2]
    assert lines[3].startswith("metrics/train.json is cut short (not complete JSON")
    assert lines[4].startswith(".dvc/tmp/rwlock is unreadable") and "--repair` removes it" in lines[4]
    res = subprocess.run([*check, "--repair"], cwd=tmp_path, capture_output=True, text=True)
    assert res.stdout.count("repaired: ") == 5, res.stdout + res.stderr
    assert (tmp_path / "dvc.lock").read_text() == LOCK and not left.exists()
    assert not (tmp_path / "metrics" / "train.json").exists() and not (tmp_path / "models" / "a.npz").exists()
    assert [p.name[: len("train.json")] for p in (tmp_path / ".dvc/tmp/replearn/damaged/metrics").iterdir()] == [
        "train.json"
    ]  # kept aside, not deleted
    assert not (tmp_path / ".dvc/tmp/rwlock").exists()
    res = subprocess.run(check, cwd=tmp_path, capture_output=True, text=True)
    assert "repaired" not in res.stdout and "cut short" not in res.stderr  # nothing left to repair


def test_the_final_lock_computed_in_its_own_process_is_the_one_computed_here(tmp_path):
    """FinalLockText (started: a separate process, run beside the MLflow logging) gives final_lock_text's text."""
    from replearn.pipeline.lockfile import FinalLockText, final_lock_text

    dvc = [sys.executable, "-m", "dvc"]
    (tmp_path / "in.txt").write_text("x\n")
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  copy:\n    cmd: cp in.txt out.txt\n    deps:\n    - in.txt\n    outs:\n    - out.txt\n"
    )
    for cmd in (["git", "init", "-q"], [*dvc, "init", "-q"], [*dvc, "repro", "-q"]):
        subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "in.txt").write_text("y\n")  # the stage's next run: its entry changes
    (tmp_path / "out.txt").write_text("y\n")
    here = final_lock_text(tmp_path, "copy")
    assert here and "copy:" in here and here != (tmp_path / "dvc.lock").read_text()
    started = FinalLockText(tmp_path, "copy")
    started.start()
    assert started() == here
    assert FinalLockText(tmp_path, "copy")() == here  # never started: computed in this process
    assert FinalLockText(tmp_path / "no-dvc", "copy")() is None
    cancelled = FinalLockText(tmp_path, "copy")
    cancelled.start()
    cancelled.cancel()
    assert cancelled._proc.returncode is not None
