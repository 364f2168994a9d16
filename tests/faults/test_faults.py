"""Killed anywhere, the next plain `dvc repro` recovers by itself (issue 42), on the small project of the session
(tests/browser/smoke_project.py, with MLflow tracking on): SIGKILL to the whole process group inside each stage
(at its first progress line; the report stage while it logs to MLflow) and while DVC writes dvc.lock (0-20 ms after
"Updating lock file"), then `dvc repro` must exit 0 with every output byte-identical to the clean run, the MLflow store
intact with no run left RUNNING, and nothing half-written left behind. A kill at the lock write must leave a complete
dvc.lock (replearn.dvc_guard; tests/pipeline/test_dvc_guard.py shows the cut file without it).

The long sweep (the default experiment, >= 40 kill points) is `make faults` (tests/faults/sweep.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from replearn import dvc_guard

pytestmark = pytest.mark.slow
_spec = importlib.util.spec_from_file_location("replearn_tests_fault_harness", Path(__file__).with_name("harness.py"))
h = sys.modules.get("replearn_tests_fault_harness") or importlib.util.module_from_spec(_spec)
if "replearn_tests_fault_harness" not in sys.modules:
    sys.modules["replearn_tests_fault_harness"] = h
    _spec.loader.exec_module(h)


@pytest.fixture(scope="module")
def tracked(tmp_path_factory, smoke):
    """The smoke project with MLflow tracking on (validate and report run again), committed; its outputs."""
    proj = smoke.private_copy(tmp_path_factory, tmp_path_factory.mktemp("faults") / "proj")
    preset = [p for p in smoke.PRESET if not p.startswith("tracking=")]
    h.run([sys.executable, "-m", "replearn", "compose", *preset], proj)
    h.run(h.dvc("repro"), proj)
    h.run(["git", "add", "-A"], proj)
    h.run(["git", "commit", "-qm", "tracking on"], proj)
    assert h.mlflow_state(proj)["complete"] == 1
    return proj, h.digests(proj)


# make test kills crossval (the stage with the most work in flight); `make faults` every other stage too
@pytest.mark.parametrize(
    "stage",
    [s if s == "crossval" else pytest.param(s, marks=pytest.mark.faults_full) for s in h.STAGES if s != "report"],
)
def test_a_kill_inside_a_stage_recovers(tracked, tmp_path, stage):
    proj, reference = tracked
    proj = h.clone(proj, tmp_path / "proj")
    o = h.trial(proj, h.dvc("repro", "-f", "-s", stage), h.Trigger(f"[{stage}] "), reference, stage)
    assert o.killed, f"the run ended before the kill: {o.line()}"
    assert not o.problems, o.line()


def _kill_once_a_run_is_running(proj: Path, cmd: list[str], timeout: float = 300) -> bool:
    """Start ``cmd`` in its own process group, SIGKILL the group as soon as mlflow.db holds a RUNNING run (the report
    stage has created its parent run and is logging into it); False when the command ended first."""
    import os
    import signal
    import sqlite3
    import subprocess
    import time

    proc = subprocess.Popen(
        cmd, cwd=proj, env=h.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    db, end = proj / "mlflow.db", time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < end:
            running = 0
            if db.exists():
                try:
                    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
                    try:
                        running = con.execute("SELECT COUNT(*) FROM runs WHERE status = 'RUNNING'").fetchone()[0]
                    finally:
                        con.close()
                except sqlite3.Error:  # not created yet, or busy
                    pass
            if running:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return True
            time.sleep(0.005)
        return False
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        h._reap_group(proc.pid)


@pytest.mark.faults_full  # `make faults` (a whole report stage run per trial)
def test_a_killed_report_stage_leaves_a_running_run_that_check_reports_and_the_next_run_fails(tracked, tmp_path):
    """A report stage killed while it logs to MLflow (the moment its parent run exists) leaves that run RUNNING
    (nothing in the killed process can end it); `replearn check` reports it with the repair, `replearn check
    --repair` marks it FAILED, and without the repair the next plain `dvc repro` does, then logs the one complete
    run, every output byte-identical and the store intact."""
    import shutil
    import subprocess

    from replearn.pipeline import recovery

    proj, reference = tracked
    proj = h.clone(proj, tmp_path / "proj")
    store = ("mlflow.db", "mlflow.db-wal", "mlflow.db-shm", "mlflow.db.lock")
    for name in store:  # as a fresh clone: the stage has a run to log
        (proj / name).unlink(missing_ok=True)
    shutil.rmtree(proj / "mlartifacts", ignore_errors=True)
    shutil.rmtree(proj / ".dvc" / "cache" / "runs", ignore_errors=True)
    assert _kill_once_a_run_is_running(proj, h.dvc("repro", "-f", "-s", "report")), "the stage ended before a run"
    killed = h.mlflow_state(proj)
    assert killed["integrity"] == "ok" and killed["status"].get("RUNNING", 0) >= 1 and killed["complete"] == 0
    orphans = killed["status"]["RUNNING"]
    saved = tmp_path / "store"  # the store as the kill left it, for the run without the repair
    saved.mkdir()
    for name in store:
        if (proj / name).exists():
            shutil.copy2(proj / name, saved / name)

    def check(*args: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "replearn", "check", *args]
        return subprocess.run(cmd, cwd=proj, env=h.env(), capture_output=True, text=True, timeout=300)

    found = check()
    assert found.returncode == 1, found.stdout + found.stderr
    assert f"mlflow.db: {orphans} run(s) left RUNNING by a killed run" in found.stderr, found.stderr
    assert "`replearn check --repair` marks them FAILED" in found.stderr, found.stderr
    fixed = check("--repair")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert f"repaired: marked {orphans} run(s) of a killed run FAILED" in fixed.stdout, fixed.stdout
    state = h.mlflow_state(proj)
    assert not state["status"].get("RUNNING") and state["status"].get("FAILED") == orphans, state
    assert recovery.inspect(proj) == []  # nothing left for `replearn check` to report

    # without the repair: the next run marks the killed one FAILED and logs one complete run
    for name in store:
        (proj / name).unlink(missing_ok=True)
        if (saved / name).exists():
            shutil.copy2(saved / name, proj / name)
    assert h.mlflow_state(proj)["status"].get("RUNNING") == orphans
    h.run(h.dvc("repro"), proj)
    after = h.mlflow_state(proj)
    assert after["integrity"] == "ok" and not after["status"].get("RUNNING"), after
    assert after["status"].get("FAILED") == orphans and after["complete"] == 1, after
    assert h.differences(h.digests(proj), reference) == []
    assert recovery.inspect(proj) == []


def test_a_kill_while_dvc_writes_the_lock_leaves_a_complete_lock(tracked, tmp_path):
    from dvc.utils.serialize import dumps_yaml, parse_yaml_for_update

    proj, reference = tracked
    proj = h.clone(proj, tmp_path / "proj")
    lock = proj / "dvc.lock"
    for delay in (0.0, 0.003, 0.02):
        data = parse_yaml_for_update(lock.read_text(), str(lock))
        del data["stages"]["validate"]  # DVC has a new entry to write, and says so
        lock.write_text(dumps_yaml(data))
        before = lock.read_text()
        k = h.run_and_kill(h.dvc("repro", "-s", "validate"), proj, h.Trigger("Updating lock file", delay))
        assert k.killed, "\n".join(k.output)
        after = lock.read_text()
        assert dvc_guard.lock_problem(after) is None  # the previous lock file or the new one, never a cut one
        assert after == before or "validate" in parse_yaml_for_update(after, str(lock))["stages"]
        res = h.run(h.dvc("repro"), proj)
        assert h.differences(h.digests(proj), reference) == [], res.stdout


# -- a full disk and a read-only output folder, on real file systems (a private mount namespace) --------------------
def _namespace() -> list[str] | None:
    import shutil as _shutil
    import subprocess

    if _shutil.which("unshare") is None:
        return None
    for prefix in (["unshare", "-m"], ["unshare", "-rm"]):
        if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return None


_DRIVER = """
import json, os, subprocess, sys
sys.path.insert(0, {faults!r})
import harness as h
from pathlib import Path
from replearn import dvc_guard
proj, reference, out = Path({proj!r}), json.loads(Path({ref!r}).read_text()), {{}}

def run(cmd):
    res = subprocess.run(cmd, cwd=proj, env=h.env(), capture_output=True, text=True)
    return res.returncode, (res.stdout + res.stderr).splitlines()

def state(stage_outputs):
    got = h.digests(proj)
    return {{
        "lock_complete": dvc_guard.lock_problem((proj / "dvc.lock").read_text()) is None,
        "others_intact": [k for k in reference if not k.startswith(stage_outputs) and got.get(k) != reference[k]],
        "partial": [str(p) for p in proj.rglob("*replearn-partial*")],
    }}

# a full disk: timing/ (the crossval stage's wall-clock seconds) on a 64 KiB tmpfs, filled up
(proj / "timing").mkdir(exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(proj / "timing")], check=True)
fd = os.open(proj / "timing" / "filler", os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"x" * 4096)
except OSError:
    os.close(fd)
rc, lines = run(h.dvc("repro", "-f", "-s", "crossval"))
out["full"] = {{"rc": rc, "lines": lines[-3:], **state(("results/crossval", "metrics/crossval", "plots/"))}}
os.unlink(proj / "timing" / "filler")  # space is back
rc, lines = run(h.dvc("repro"))
out["full_rerun"] = {{"rc": rc, "diff": h.differences(h.digests(proj), reference), "mlflow": h.mlflow_state(proj)}}

# a read-only output folder: metrics/ bind-mounted read-only
m = str(proj / "metrics")
subprocess.run(["mount", "--bind", m, m], check=True)
subprocess.run(["mount", "-o", "remount,bind,ro", m], check=True)
rc, lines = run(h.dvc("repro", "-f", "-s", "train"))
out["ro"] = {{"rc": rc, "lines": lines[-3:], **state(("models/", "results/train", "metrics/train"))}}
subprocess.run(["umount", m], check=True)  # writable again
rc, lines = run(h.dvc("repro"))
out["ro_rerun"] = {{"rc": rc, "diff": h.differences(h.digests(proj), reference), "mlflow": h.mlflow_state(proj)}}
Path({result!r}).write_text(json.dumps(out))
"""


@pytest.mark.skipif(_namespace() is None, reason="no private mount namespace here (unshare)")
def test_a_full_disk_and_a_read_only_folder_fail_in_one_line_and_recover(tracked, tmp_path):
    import json
    import subprocess

    proj, reference = tracked
    proj = h.clone(proj, tmp_path / "proj")
    (tmp_path / "ref.json").write_text(json.dumps(reference))
    driver = _DRIVER.format(
        faults=str(Path(__file__).parent), proj=str(proj), ref=str(tmp_path / "ref.json"), result=str(tmp_path / "r")
    )
    res = subprocess.run([*_namespace(), sys.executable, "-c", driver], capture_output=True, text=True, timeout=900)
    if res.returncode != 0 and "mount" in res.stderr and "ermission denied" in res.stderr:
        pytest.skip("cannot mount a tmpfs here")
    assert res.returncode == 0, res.stderr
    got = json.loads((tmp_path / "r").read_text())
    full, ro = got["full"], got["ro"]
    assert full["rc"] != 0 and ro["rc"] != 0
    # one line naming the file, from the stage; the outputs of the other stages untouched, nothing half-written
    assert (
        "replearn crossval: the disk is full: cannot write timing/iris.json (No space left on device)" in full["lines"]
    ), full["lines"]
    assert any("Read-only file system" in line and "metrics/train.json" in line for line in ro["lines"]), ro["lines"]
    for case in (full, ro):
        assert case["lock_complete"] and case["others_intact"] == [] and case["partial"] == []
    for rerun in (got["full_rerun"], got["ro_rerun"]):  # once the cause is gone, a plain `dvc repro` recovers
        assert rerun["rc"] == 0 and rerun["diff"] == []
        assert rerun["mlflow"]["integrity"] == "ok" and not rerun["mlflow"]["status"].get("RUNNING")
