"""The ``dvc.lock`` a pipeline run ends with, as seen from inside its last stage.

DVC writes a stage's entry of ``dvc.lock`` only after the stage's command has finished, so the report
stage (the last one, and the one that logs to MLflow) would otherwise log the lock file of the previous
run. :func:`final_lock_text` asks DVC to hash this stage's deps, params and outs exactly as it is about to
(``Stage.save`` without the run cache) and merges that entry into the current ``dvc.lock``: the result is
the file DVC writes a moment later, up to YAML formatting. :class:`FinalLockText` computes it in a separate process
(``python -m replearn.pipeline.lockfile <root> <stage>``), started when the report stage starts logging, so that
DVC's parsing and hashing (~1 s) run on another core while mlflow is imported and the runs are logged.

:func:`check_lock_file` reads ``dvc.lock`` the way DVC will, so a file truncated by a killed run is
reported with the way out instead of a schema error from every later ``dvc`` command.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..exceptions import ConfigError

LOCK_FILE = "dvc.lock"


def check_lock_file(root: Path) -> None:
    """Raise ``ConfigError`` naming the recovery when ``dvc.lock`` exists but is not a valid lock file."""
    path = Path(root) / LOCK_FILE
    if not path.exists():
        return
    how = (
        f"{path} is {{}}; it was probably cut short by a run that was killed while DVC wrote it. Recover with "
        "`git checkout dvc.lock` (the committed version) or delete it and run `dvc repro` again "
        "(stages whose outputs are in the cache are restored, not rerun)"
    )
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(how.format(f"not valid YAML ({type(exc).__name__})")) from exc
    if data is None:
        raise ConfigError(how.format("empty"))
    if not isinstance(data, dict) or "stages" not in data or not isinstance(data["stages"], dict):
        raise ConfigError(how.format("not a DVC lock file (no 'stages' mapping)"))
    for name, entry in data["stages"].items():
        if not isinstance(entry, dict) or "cmd" not in entry:
            raise ConfigError(how.format(f"incomplete (stage {name!r} has no 'cmd')"))
    from dvc.schema import COMPILED_LOCKFILE_SCHEMA  # DVC's own schema: what `dvc repro` would refuse
    from voluptuous import Invalid

    try:
        COMPILED_LOCKFILE_SCHEMA(data)
    except Invalid as exc:
        raise ConfigError(how.format(f"not a valid DVC lock file ({exc})")) from exc


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
