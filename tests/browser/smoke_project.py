"""One small project per test session, shared by the tests that need a real pipeline run
(tests/test_exp_show.py, tests/test_plots_offline.py, tests/browser/test_report_browser.py; tests/test_end_to_end.py
starts from a copy of it, `private_copy()`): the working
tree copied to a temporary folder as a fresh clone would be (as tests/test_end_to_end.py does), the smoke
preset composed and committed, `dvc repro` run and its outputs committed.

The test modules load this file by path (`load()`), so they share one module object and one project: the
first caller builds it under pytest's session base folder, later callers reuse it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# tracking off (no MLflow), one repeat and fewer resamples: the same stages and outputs, in seconds
PRESET = ["+experiment=smoke", "tracking=off", "cv.repeats=1", "stats.resamples=99"]
_NAME = "replearn_tests_smoke_project"


def load():
    """This module, loaded once per session whichever test file asks first."""
    if _NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(_NAME, Path(__file__))
        module = importlib.util.module_from_spec(spec)
        sys.modules[_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[_NAME]


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    out.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{out['PATH']}",
        DVC_NO_ANALYTICS="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
        CI="1",
    )
    return out


def run(cmd: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    res = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=timeout, check=False)
    assert res.returncode == 0, (
        f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}"
    )
    return res


def dvc(*args: str) -> list[str]:
    return [sys.executable, "-m", "dvc", *args]


def copy_project(dest: Path) -> None:
    files = (
        subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, files):
        src = ROOT / rel
        if not src.is_file():
            continue  # deleted in the working tree
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    for stale in ("dvc.lock", "metrics", "plots", "dvc_plots"):  # start as a fresh clone would
        target = dest / stale
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)


_built: dict[str, Path] = {}


def project(tmp_path_factory) -> Path:
    """The smoke project after `dvc repro`, everything committed (built on first use)."""
    if "repro" not in _built:
        proj = tmp_path_factory.mktemp("smoke_project") / "proj"
        copy_project(proj)
        run(["git", "init", "-q", "-b", "main"], proj)
        run([sys.executable, "-m", "replearn", "compose", *PRESET], proj)
        run(dvc("repro"), proj, timeout=600)
        run(["git", "add", "-A"], proj)
        run(["git", "commit", "-qm", "baseline"], proj)
        _built["repro"] = proj
    return _built["repro"]


def private_copy(tmp_path_factory, dest: Path) -> Path:
    """A copy of the built project (git history, DVC cache and lock included) at ``dest``, for a test that changes
    it: the shared project stays as the readers expect it. The experiments other tests ran on the shared
    project (``refs/exps``) are left out, so the copy holds the baseline commit only."""
    shutil.copytree(
        project(tmp_path_factory),
        dest,
        symlinks=True,
        ignore=lambda folder, names: (
            ["exps"] if Path(folder).name == "refs" and Path(folder).parent.name == ".git" else []
        ),
    )
    return dest
