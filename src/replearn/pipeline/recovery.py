"""What a killed run or a full disk can leave behind in a project, found and repaired (``replearn check [--repair]``).

Every write replearn makes is whole or not at all (:mod:`replearn.atomic`), and so are DVC's writes of dvc.lock,
dvc.yaml, params.yaml and its rwlock under :mod:`replearn.dvc_guard`; a stage killed half-way leaves outputs that
differ from dvc.lock, which `dvc repro` reruns. What is left to find here:

* a ``dvc.lock`` cut short by a DVC *without* the guard (another installation, ``REPLEARN_DVC_GUARD=off``): the
  repair restores this workspace's last complete lock file (``.dvc/tmp/replearn/last-good/``), else the committed
  one; a file with merge-conflict markers is reported and left alone;
* unfinished temporary files (``.<name>.<pid>.<random>.replearn-partial``) of killed writers: the files they were
  to replace are intact; the repair removes them (the next write of the same file would, too);
* ``.dvc/tmp/rwlock`` unreadable (written by a DVC without the guard): removed when no DVC command holds the
  repository's lock;
* an output cut short or emptied by a writer outside replearn (a copy interrupted, a tool without atomic
  writes): a record or metrics file that is not complete JSON, a model or feature archive without its zip
  directory, a PNG without its end chunk (:func:`damaged_outputs`); the repair moves it aside to
  ``.dvc/tmp/replearn/damaged/`` and `dvc repro` writes it again (it no longer matches dvc.lock either way);
* the MLflow store (``mlflow.db``): SQLite's quick check, and runs left RUNNING by a process that is gone (a killed
  report stage or queue worker: :func:`~replearn.pipeline.tracking.orphaned_runs`), which the repair marks FAILED
  (the next run that logs does too); runs still in progress are left alone.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .. import atomic, dvc_guard

LOCK_FILE = "dvc.lock"
RWLOCK = Path(".dvc") / "tmp" / "rwlock"
REPO_LOCK = Path(".dvc") / "tmp" / "lock"
MLFLOW_DB = "mlflow.db"


@dataclass
class Finding:
    """One thing left behind: what it is, what ``--repair`` does about it (None: a hand step, named in ``what``),
    once repaired what was done, and whether it stands in the way of a run (``blocking``; else a note)."""

    what: str
    repair: str | None
    done: str | None = None
    blocking: bool = True

    def line(self) -> str:
        if self.done:
            return f"repaired: {self.done}"
        if self.repair:
            return f"{self.what}; `replearn check --repair` {self.repair}"
        return self.what


def inspect(root: Path, *, repair: bool = False) -> list[Finding]:
    """Every finding in the project at ``root``, repaired when ``repair`` (and possible)."""
    root = Path(root)
    return [
        *_lock(root, repair),
        *_partials(root, repair),
        *_damaged(root, repair),
        *_rwlock(root, repair),
        *_mlflow(root, repair),
    ]


#: the folders the stages write (replearn.pipeline.paths), checked for files cut short
OUTPUT_DIRS = ("data/prepared", "data/sealed", "data/features", "models", "results", "metrics", "plots", "reports")
#: a JSON file up to this size is parsed in full; a larger one (a benchmark's records) is checked at its ends
PARSE_LIMIT = 4 << 20
_PNG_END = b"IEND\xaeB`\x82"


def _cut_short(path: Path) -> str | None:
    """Why the output ``path`` is incomplete (None: it looks whole), judged by its kind's own end marker."""
    import zipfile

    suffix = path.suffix.lower()
    if suffix not in (".json", ".npz", ".png"):
        return None
    try:
        size = path.stat().st_size
        if size == 0:
            return "empty"
        if suffix == ".npz":
            return None if zipfile.is_zipfile(path) else "no zip directory at its end"
        with open(path, "rb") as fh:
            if suffix == ".png":
                fh.seek(max(0, size - 16))
                return None if fh.read().endswith(_PNG_END) else "no PNG end chunk"
            if size <= PARSE_LIMIT:
                json.loads(fh.read().decode("utf-8"))
                return None
            head = fh.read(1)
            fh.seek(size - 64)
            tail = fh.read().rstrip()
    except (ValueError, UnicodeDecodeError) as exc:
        return f"not complete JSON ({type(exc).__name__})"
    except OSError:
        return None  # unreadable is not this check's business (a permission problem names itself)
    pairs = {b"{": b"}", b"[": b"]"}
    return None if head in pairs and tail.endswith(pairs[head]) else "not complete JSON"


def damaged_outputs(root: Path) -> list[tuple[Path, str]]:
    """The outputs under :data:`OUTPUT_DIRS` that are cut short or empty, with why."""
    found = []
    for base in OUTPUT_DIRS:
        folder = root / base
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not atomic.is_temp_name(path.name):
                why = _cut_short(path)
                if why is not None:
                    found.append((path, why))
    return found


def _damaged(root: Path, repair: bool) -> list[Finding]:
    import time

    out = []
    for path, why in damaged_outputs(root):
        rel = path.relative_to(root).as_posix()
        finding = Finding(
            f"{rel} is cut short ({why}; written by something other than replearn, or copied part-way)",
            "moves it aside (`dvc repro` then writes it again)",
        )
        if repair:
            kept = root / ".dvc" / dvc_guard.STATE_DIR / dvc_guard.DAMAGED / f"{rel}.{time.strftime('%Y%m%d-%H%M%S')}"
            kept.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, kept)
            finding.done = (
                f"moved {rel} ({why}) aside to {kept.relative_to(root).as_posix()}; `dvc repro` writes it again"
            )
        out.append(finding)
    return out


def _lock(root: Path, repair: bool) -> list[Finding]:
    path = root / LOCK_FILE
    if not path.is_file():
        return []
    plan = dvc_guard.repair_plan(str(path))
    if plan is None:
        text = path.read_text(encoding="utf-8", errors="replace")
        if dvc_guard.lock_problem(text) is not None and dvc_guard.has_conflict_markers(text):
            return [
                Finding(
                    f"{LOCK_FILE} has merge-conflict markers: resolve the conflict (keep one side; `dvc repro` then "
                    "reruns what differs)",
                    None,
                )
            ]
        return []
    problem, _text, source = plan
    finding = Finding(f"{LOCK_FILE} is cut short ({problem}) by a killed run", f"restores {source}")
    if repair:
        finding.done = dvc_guard.repair_lock(str(path))
    return [finding]


def _partials(root: Path, repair: bool) -> list[Finding]:
    found = atomic.leftovers(root)
    if not found:
        return []
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    shown = ", ".join(str(p.relative_to(root)) for p in found[:5]) + more
    finding = Finding(
        f"{len(found)} unfinished write(s) of a killed run ({shown}); the files they were to replace are intact",
        "removes them",
    )
    if repair:
        for p in found:
            p.unlink(missing_ok=True)
        finding.done = f"removed {len(found)} unfinished write(s) of a killed run ({shown})"
    return [finding]


def _repo_lock_free(root: Path) -> bool:
    """True when no DVC command holds the repository's lock (``.dvc/tmp/lock``, an fcntl lock)."""
    import fcntl

    path = root / REPO_LOCK
    if not path.exists():
        return True
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


def _rwlock(root: Path, repair: bool) -> list[Finding]:
    path = root / RWLOCK
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (ValueError, UnicodeDecodeError):
        pass
    else:
        return []
    if not _repo_lock_free(root):
        return [Finding(f"{RWLOCK} is unreadable, and a DVC command is running: run this again once it ends", None)]
    finding = Finding(f"{RWLOCK} is unreadable (cut short by a killed DVC)", "removes it (no DVC command is running)")
    if repair:
        path.unlink(missing_ok=True)
        finding.done = f"removed {RWLOCK} (unreadable; no DVC command was running)"
    return [finding]


def _mlflow(root: Path, repair: bool) -> list[Finding]:
    from . import tracking

    db = root / MLFLOW_DB
    if not db.is_file():
        return []
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            check = con.execute("PRAGMA quick_check").fetchone()[0]
            running = con.execute("SELECT COUNT(*) FROM runs WHERE status = 'RUNNING'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as exc:
        return [Finding(f"{MLFLOW_DB} cannot be checked ({exc})", None)]
    out = []
    if check != "ok":
        out.append(
            Finding(
                f"{MLFLOW_DB} fails SQLite's integrity check ({check}): move it aside and rerun the report stage "
                "(`dvc repro -f -s report`) to log the current run again",
                None,
            )
        )
    orphans = tracking.orphaned_runs(db) if running else []
    if orphans:
        finding = Finding(
            f"{MLFLOW_DB}: {len(orphans)} run(s) left RUNNING by a killed run (the process logging them is gone)",
            "marks them FAILED",
        )
        if repair:
            tracking.fail_runs(f"sqlite:///{db.resolve()}", orphans)
            finding.done = f"marked {len(orphans)} run(s) of a killed run FAILED in {MLFLOW_DB}"
        out.append(finding)
    if running > len(orphans):
        n = running - len(orphans)
        out.append(
            Finding(
                f"{MLFLOW_DB}: {n} run(s) RUNNING (in progress, or from before replearn tagged its runs' owner)",
                None,
                blocking=False,
            )
        )
    return out
