"""Fault injection for the pipeline: start a DVC command in its own process group, SIGKILL the whole group at a
chosen moment (a line the run prints, plus a delay), then run a plain `dvc repro` and compare every output, byte for
byte, with a clean run; the MLflow store must pass SQLite's integrity check and hold no RUNNING run.

Used by tests/faults/test_faults.py (a few kill points on a small project, in `make test`) and by
tests/faults/sweep.py (`make faults`: the default experiment, >= 40 kill points). Loaded by path (tests/ is not a
package): ``harness = load()``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_NAME = "replearn_tests_fault_harness"
#: every output of the pipeline (DVC outs, git-tracked metrics and plots)
OUTPUTS = ("data/prepared", "data/sealed", "data/features", "models", "results", "metrics", "plots", "reports")
#: wall-clock seconds, different on every run (kept out of DVC's hashes by .dvcignore)
WALL_CLOCK = {"reports/cost.html", "reports/cost.md", "reports/cost_pareto.png"}
STAGES = ("validate", "prepare", "featurize", "train", "crossval", "significance", "reproduce", "report")


def load():
    if _NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(_NAME, Path(__file__))
        module = importlib.util.module_from_spec(spec)
        sys.modules[_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[_NAME]


def _smoke():
    """tests/browser/smoke_project.py (its subprocess environment and DVC command), loaded once by path."""
    name = "replearn_tests_smoke_project"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "browser" / "smoke_project.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def env() -> dict[str, str]:
    """The smoke project's subprocess environment, without the guard's test switches, unbuffered."""
    out = {k: v for k, v in _smoke().env().items() if not k.startswith("REPLEARN_DVC_GUARD")}
    out["PYTHONUNBUFFERED"] = "1"  # lines arrive when printed: the kill lands where it is meant to
    return out


def dvc(*args: str) -> list[str]:
    return _smoke().dvc(*args)


def run(cmd: list[str], cwd: Path, timeout: float = 900, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    res = subprocess.run(
        cmd, cwd=cwd, env={**env(), **(extra_env or {})}, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert res.returncode == 0, (
        f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}"
    )
    return res


def copy_tree(dest: Path, *, fresh: bool) -> None:
    """The files git knows (tracked or not ignored), as a clone has them; ``fresh`` drops the outputs a clone of
    another configuration would not match (dvc.lock, metrics/, plots/)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    if fresh:
        for stale in ("dvc.lock", "metrics", "plots", "dvc_plots"):
            target = dest / stale
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)


def make_project(dest: Path, overrides: list[str] | None) -> Path:
    """A git repository of this project at ``dest``: ``overrides`` composed into params.yaml (None: as committed)."""
    copy_tree(dest, fresh=overrides is not None)
    run(["git", "init", "-q", "-b", "main"], dest)
    if overrides is not None:
        run([sys.executable, "-m", "replearn", "compose", *overrides], dest)
    run(["git", "add", "-A"], dest)
    run(["git", "commit", "-qm", "init"], dest)
    return dest


def clone(src: Path, dest: Path) -> Path:
    """A copy of a project (its git history, DVC cache, lock, outputs and MLflow store); the queue's state stays."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns("exps", "dl"))
    return dest


def digests(root: Path) -> dict[str, str]:
    out = {}
    for base in OUTPUTS:
        for p in sorted((root / base).rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_file() and rel not in WALL_CLOCK:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    lock = root / "dvc.lock"  # its content, not its bytes: a stage's entry may come back in another place
    out["dvc.lock"] = (
        hashlib.sha256(json.dumps(yaml.safe_load(lock.read_text()), sort_keys=True).encode()).hexdigest()
        if lock.exists()
        else "missing"
    )
    return out


def differences(got: dict[str, str], want: dict[str, str]) -> list[str]:
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    changed = sorted(k for k in set(got) & set(want) if got[k] != want[k])
    return [f"missing {k}" for k in missing] + [f"extra {k}" for k in extra] + [f"differs {k}" for k in changed]


def mlflow_state(root: Path) -> dict:
    """SQLite's integrity check of mlflow.db, the runs by status and the finished parent runs' run keys."""
    db = root / "mlflow.db"
    if not db.exists():
        return {"integrity": "no store", "status": {}, "complete": 0}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        status = dict(con.execute("SELECT status, COUNT(*) FROM runs GROUP BY status").fetchall())
        complete = con.execute("SELECT COUNT(*) FROM tags WHERE key = 'replearn.run_key'").fetchone()[0]
    finally:
        con.close()
    return {"integrity": integrity, "status": status, "complete": complete}


@dataclass
class Trigger:
    """Kill once the run has printed ``pattern`` (a substring of a line) for the ``nth`` time, ``delay`` s later."""

    pattern: str
    delay: float = 0.0
    nth: int = 1

    def describe(self) -> str:
        nth = f" (#{self.nth})" if self.nth > 1 else ""
        return f"{self.delay * 1000:.0f} ms after {self.pattern!r}{nth}"


@dataclass
class Killed:
    killed: bool  # False: the run ended before the trigger fired
    returncode: int | None
    seconds: float
    output: list[str] = field(default_factory=list)


def run_and_kill(
    cmd: list[str], cwd: Path, trigger: Trigger, timeout: float = 900, extra_env: dict | None = None
) -> Killed:
    """Run ``cmd`` in a new process group; SIGKILL the group when ``trigger`` fires (every process it started)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env={**env(), **(extra_env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        bufsize=0,
    )
    lines: list[str] = []
    fired = threading.Event()

    def read() -> None:
        seen = 0
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            lines.append(line)
            if not fired.is_set() and trigger.pattern in line:
                seen += 1
                if seen >= trigger.nth:
                    fired.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    killed = False
    while proc.poll() is None and time.monotonic() - start < timeout:
        if fired.wait(0.005):
            if trigger.delay:
                time.sleep(trigger.delay)
            alive = proc.poll() is None
            try:
                os.killpg(proc.pid, signal.SIGKILL)
                killed = alive
            except ProcessLookupError:
                pass
            break
    if proc.poll() is None and not killed:  # timed out
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _reap_group(proc.pid)
    reader.join(5)
    return Killed(killed=killed, returncode=proc.returncode, seconds=time.monotonic() - start, output=lines)


def _reap_group(pgid: int) -> None:
    """Wait until no process of the killed group is left (a child of a child may outlive the leader briefly)."""
    for _ in range(200):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return
        time.sleep(0.01)


@dataclass
class Outcome:
    point: str
    killed: bool
    recovered: bool
    problems: list[str]
    kill_seconds: float
    recover_seconds: float
    lock_bytes_after_kill: int | None
    note: str = ""

    def line(self) -> str:
        verdict = "ok" if self.recovered and not self.problems else "FAILED"
        what = "killed" if self.killed else "ended before the kill"
        lock = (
            "" if self.lock_bytes_after_kill is None else f", dvc.lock {self.lock_bytes_after_kill:,} B after the kill"
        )
        extra = f" -- {'; '.join(self.problems[:6])}" if self.problems else ""
        return (
            f"{verdict:6} {self.point}: {what} at {self.kill_seconds:.1f} s{lock}; "
            f"`dvc repro` {self.recover_seconds:.1f} s{extra}"
        )


def trial(
    project: Path,
    cmd: list[str],
    trigger: Trigger,
    reference: dict[str, str],
    point: str,
    *,
    mlflow: bool = True,
    kill_env: dict | None = None,
    fresh_store: bool = False,
) -> Outcome:
    """Kill ``cmd`` in ``project`` at ``trigger``, then `dvc repro`: exit 0, the outputs of ``reference``, a clean
    MLflow store, nothing half-written left behind. ``kill_env``: extra variables for the killed run only;
    ``fresh_store``: start as a fresh clone does, without the MLflow store and DVC's run cache, so that the report
    stage logs its run (and the kill can land while it does) instead of finding it logged already; the recovery must
    then leave exactly one complete run."""
    if fresh_store:
        for name in ("mlflow.db", "mlflow.db-wal", "mlflow.db-shm", "mlflow.db.lock"):
            (project / name).unlink(missing_ok=True)
        shutil.rmtree(project / "mlartifacts", ignore_errors=True)
        shutil.rmtree(project / ".dvc" / "cache" / "runs", ignore_errors=True)
    k = run_and_kill(cmd, project, trigger, extra_env=kill_env)
    lock = project / "dvc.lock"
    lock_bytes = lock.stat().st_size if lock.exists() else None
    t0 = time.monotonic()
    res = subprocess.run(dvc("repro"), cwd=project, env=env(), capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - t0
    problems = []
    if res.returncode != 0:
        tail = (res.stdout + res.stderr).strip().splitlines()[-8:]
        problems.append(f"`dvc repro` exit {res.returncode}: " + " | ".join(tail))
    else:
        problems += differences(digests(project), reference)
        if mlflow:
            state = mlflow_state(project)
            if state["integrity"] != "ok":
                problems.append(f"mlflow.db integrity: {state['integrity']}")
            if state["status"].get("RUNNING"):
                problems.append(f"{state['status']['RUNNING']} MLflow run(s) left RUNNING")
            if fresh_store and state["complete"] != 1:
                problems.append(f"{state['complete']} complete MLflow runs after the recovery, not 1")
        partial = sorted(
            str(p.relative_to(project)) for p in project.rglob("*.replearn-partial") if ".dvc" not in p.parts
        )
        if partial:
            problems.append(f"left half-written: {', '.join(partial[:4])}")
    return Outcome(point, k.killed, res.returncode == 0, problems, k.seconds, seconds, lock_bytes)


def write_summary(path: Path, outcomes: list[Outcome], extra: dict) -> None:
    path.write_text(
        json.dumps(
            {**extra, "outcomes": [o.__dict__ for o in outcomes]},
            indent=2,
            sort_keys=True,
        )
        + "\n",
        encoding="utf-8",
    )


# -- `dvc exp run --queue`: the queue's workers are daemons (a session of their own), found by their folder ---------
def _ancestors() -> set[int]:
    out, pid = set(), os.getpid()
    while pid > 1:
        out.add(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def project_processes(project: Path) -> dict[int, str]:
    """The processes working in ``project`` or below (the queue workers, their experiments and stages): pid ->
    command line. This process and its ancestors are left out."""
    root, mine, out = str(project.resolve()), _ancestors(), {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in mine:
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            out[int(entry)] = cmd
    return out


def kill_project_processes(project: Path) -> list[int]:
    """SIGKILL every process group with a process working in ``project`` (never this process's own group)."""
    own = os.getpgid(0)
    groups = set()
    for pid in project_processes(project):
        try:
            groups.add(os.getpgid(pid))
        except ProcessLookupError:
            pass
    for group in groups - {own}:
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return sorted(groups - {own})


def _queue(project: Path, overrides: list[str]) -> str:
    """Queue an experiment and start a worker; the experiment's name."""
    import re

    res = run(dvc("exp", "run", "--queue", *[a for o in overrides for a in ("-S", o)]), project)
    # not into pipes: the worker it starts inherits them, and reading them would wait until the worker ends
    subprocess.run(
        dvc("queue", "start", "-j", "1"),
        cwd=project,
        env=env(),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
    )
    m = re.search(r"Queued experiment '([^']+)'", res.stdout + res.stderr)
    return m.group(1) if m else "?"


def _queue_settled(project: Path, timeout: float) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        time.sleep(2)
        if not any("queue-worker" in c or "exec-run" in c for c in project_processes(project).values()):
            break
    res = subprocess.run(dvc("queue", "status"), cwd=project, env=env(), capture_output=True, text=True)
    return res.stdout + res.stderr


def queue_trial(
    project: Path, reference: dict[str, str], overrides: list[str], stage: str, delay: float, point: str
) -> Outcome:
    """An experiment queued with ``overrides`` and run by one queue worker, killed (the worker's whole process group)
    ``delay`` s after its ``stage`` starts; then the workspace's `dvc repro` must be up to date with the reference
    outputs, and the same experiment queued again must succeed, leaving no MLflow run RUNNING."""
    t0 = time.monotonic()
    _queue(project, overrides)
    killed = seen = False
    while time.monotonic() - t0 < 1800:
        procs = project_processes(project)
        if any(f"stages/{stage}.py" in c for c in procs.values()):
            time.sleep(delay)
            killed = bool(kill_project_processes(project))
            break
        working = any("queue-worker" in c or "exec-run" in c for c in procs.values())
        seen = seen or working
        if not working and (seen or time.monotonic() - t0 > 120):
            break  # the experiment ended before its stage was seen (or no worker ever started)
        time.sleep(0.05)
    kill_seconds = time.monotonic() - t0
    problems = []
    t1 = time.monotonic()
    res = subprocess.run(dvc("repro"), cwd=project, env=env(), capture_output=True, text=True, timeout=1800)
    if res.returncode != 0:
        tail = " | ".join((res.stdout + res.stderr).splitlines()[-6:])
        problems.append(f"`dvc repro` exit {res.returncode}: {tail}")
    else:
        problems += differences(digests(project), reference)
    name = _queue(project, overrides)  # the experiment again
    status = _queue_settled(project, 1800)
    recover_seconds = time.monotonic() - t1
    mine = [line for line in status.splitlines() if f" {name} " in f" {line} "]
    if not mine or "Success" not in mine[0]:
        problems.append(f"the experiment queued again ({name}) did not succeed: {mine or status.strip()[:300]}")
    state = mlflow_state(project)
    if state["integrity"] != "ok":
        problems.append(f"mlflow.db integrity: {state['integrity']}")
    if state["status"].get("RUNNING"):
        problems.append(f"{state['status']['RUNNING']} MLflow run(s) left RUNNING")
    return Outcome(point, killed, not problems, problems, kill_seconds, recover_seconds, None)
