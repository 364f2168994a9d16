"""The ``dvc.lock`` a pipeline run ends with, as seen from inside its last stage.

DVC writes a stage's entry of ``dvc.lock`` only after the stage's command has finished, so the report
stage (the last one, and the one that logs to MLflow) would otherwise log the lock file of the previous
run. :func:`final_lock_text` asks DVC to hash this stage's deps, params and outs exactly as it is about to
(``Stage.save`` without the run cache) and merges that entry into the current ``dvc.lock``: the result is
the file DVC writes a moment later, up to YAML formatting. :class:`FinalLockText` computes it in a separate process
(``python -m replearn.pipeline.lockfile <root> <stage>``), started when the report stage starts logging, so that
DVC's parsing and hashing (~1 s) run on another core while mlflow is imported and the runs are logged.

:func:`check_lock_file` reads ``dvc.lock`` the way DVC will, so a file truncated by a killed run is
reported with the way out instead of a schema error from every later ``dvc`` command. (DVC's own writes of it are
atomic under :mod:`replearn.dvc_guard`, which also repairs a cut file when DVC reads it.)
"""

from __future__ import annotations

from pathlib import Path

from ..exceptions import ConfigError

LOCK_FILE = "dvc.lock"


def check_lock_file(root: Path) -> None:
    """Raise ``ConfigError`` naming the recovery when ``dvc.lock`` exists but is not a complete lock file.

    Complete means what :func:`replearn.dvc_guard.lock_problem` checks: valid YAML, DVC's lock schema, and the final
    newline DVC's writer ends it with. ``replearn check --repair`` restores the last complete lock file this
    workspace wrote (:func:`replearn.dvc_guard.repair_lock`); a file with merge-conflict markers is git's to resolve.
    """
    from ..dvc_guard import has_conflict_markers, lock_problem, repair_plan

    path = Path(root) / LOCK_FILE
    if not path.exists():
        return
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem: str | None = f"not valid YAML ({type(exc).__name__})"
        text = raw.decode("utf-8", "replace")
    else:
        problem = lock_problem(text)
    if problem is None:
        return
    if has_conflict_markers(text):
        raise ConfigError(
            f"{path} has merge-conflict markers ({problem}): resolve the conflict (keep one side, or take either and "
            "let `dvc repro` rerun what differs); replearn leaves a real conflict to you"
        )
    plan = repair_plan(str(path))
    source = plan[2] if plan else "nothing"
    raise ConfigError(
        f"{path} is {'empty' if not raw else problem}; it was cut short by a run that was killed while it was "
        f"written (by a DVC without replearn's guard). Recover with `replearn check --repair`, which restores {source} "
        "and keeps the damaged file in .dvc/tmp/replearn/damaged/ (or `git checkout dvc.lock`, or delete it: "
        "`dvc repro` then reruns what differs)"
    )


def forget_stage(root: Path, stage_name: str) -> bool:
    """Remove ``stage_name``'s entry from ``dvc.lock`` (DVC writes it again once the stage has ended); True if removed.

    The report stage calls it when it is about to log to MLflow, from inside `dvc repro`: its outputs (reports/) are
    complete before the logging ends, so after a kill during the logging DVC would find them matching the previous
    entry and never run the stage again, leaving the MLflow run unfinished. Without the entry DVC reruns the stage,
    which marks the killed run FAILED and logs a complete one. The file is rewritten with DVC's own YAML writer,
    whole or not at all.
    """
    from dvc.utils.serialize import dumps_yaml, parse_yaml_for_update

    from ..atomic import write_text

    path = Path(root) / LOCK_FILE
    if not path.is_file():
        return False
    data = parse_yaml_for_update(path.read_text(encoding="utf-8"), str(path))
    if not isinstance(data, dict) or stage_name not in (data.get("stages") or {}):
        return False
    del data["stages"][stage_name]
    write_text(path, dumps_yaml(data))
    return True


def final_lock_text(root: Path, stage_name: str) -> str | None:
    """``dvc.lock`` with ``stage_name``'s entry as DVC will write it after this stage; None outside a DVC repo.

    The same steps as DVC's ``Lockfile.dump_stages``: the current file parsed for update, the stage's
    entry replaced, and the result dumped by DVC's YAML writer, so the text is the file DVC writes.
    """
    root = Path(root)
    if not (root / ".dvc").is_dir():
        return None
    from dvc.repo import Repo
    from dvc.stage.serialize import to_lockfile
    from dvc.utils.serialize import dumps_yaml, parse_yaml_for_update

    with Repo(str(root)) as repo:
        stages = [s for s in repo.index.stages if getattr(s, "name", None) == stage_name]
        if not stages:
            return None
        stage = stages[0]
        stage.save(allow_missing=False, run_cache=False)
        entry = to_lockfile(stage)
    path = root / LOCK_FILE
    data = parse_yaml_for_update(path.read_text(encoding="utf-8"), str(path)) if path.is_file() else None
    if not data:
        data = {"schema": "2.0"}
    data["stages"] = data.get("stages", {})
    data["stages"].update(entry)
    return dumps_yaml(data)


class FinalLockText:
    """:func:`final_lock_text` of ``root`` and ``stage_name`` in a separate process: :meth:`start` launches it, calling
    the object waits for it and returns its text (None outside a DVC repository). Never started, calling it computes
    the text in this process. :meth:`cancel` stops a process whose result is no longer needed."""

    def __init__(self, root: Path, stage_name: str):
        import subprocess

        self.root, self.stage_name = Path(root), stage_name
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        import subprocess
        import sys

        if self._proc is None and (self.root / ".dvc").is_dir():
            cmd = [sys.executable, "-m", "replearn.pipeline.lockfile", str(self.root), self.stage_name]
            self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def __call__(self) -> str | None:
        if self._proc is None:
            return final_lock_text(self.root, self.stage_name)
        out, err = self._proc.communicate(timeout=600)
        if self._proc.returncode != 0:
            from ..exceptions import ReplearnError

            last = err.decode("utf-8", "replace").strip().splitlines()
            raise ReplearnError(f"computing the final dvc.lock failed: {last[-1] if last else self._proc.returncode}")
        return out.decode("utf-8") or None

    def cancel(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()


if __name__ == "__main__":  # FinalLockText's process: the text on stdout, nothing outside a DVC repository
    import sys as _sys

    _text = final_lock_text(Path(_sys.argv[1]), _sys.argv[2])
    if _text:
        _sys.stdout.buffer.write(_text.encode("utf-8"))
