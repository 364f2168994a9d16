"""replearn as a tool people install (issue 26 §1), the README's path on a fresh machine: `python -m build` gives
an sdist and a wheel (the wheel built from the sdist), the wheel installs into a fresh virtual environment
outside the repository (not editable, pinned by requirements/constraints.txt), `replearn init` writes a study,
and in it `dvc repro`, `dvc exp run -S cv.folds=3` and a study on the user's own CSV run with MLflow tracking.

Building and installing take a few minutes (the dependencies, from PyPI or pip's cache), so the test runs
when REPLEARN_REQUIRE_WHEEL=1 (.ci/run sets it) and is skipped otherwise.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("REPLEARN_REQUIRE_WHEEL") != "1",
        reason="builds and installs the wheel into a fresh venv (minutes); set REPLEARN_REQUIRE_WHEEL=1 (CI does)",
    ),
]


def _run(cmd, cwd, env, timeout=900, ok=True):
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if ok:
        assert res.returncode == 0, (
            f"{' '.join(map(str, cmd))} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}"
        )
    return res


def _source_tree(dest: Path) -> None:
    """The files of the checkout that git knows (tracked or not ignored): what a clone would build from."""
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


def _parent_runs(study: Path) -> list:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{study}/mlflow.db")
    exp = client.get_experiment_by_name("replearn")
    runs = client.search_runs([exp.experiment_id], max_results=1000, order_by=["attributes.start_time ASC"])
    assert {r.info.status for r in runs} == {"FINISHED"}
    return [r for r in runs if "mlflow.parentRunId" not in r.data.tags]


def test_wheel_init_repro_experiment_and_csv(tmp_path):
    tree, dist, venv = tmp_path / "tree", tmp_path / "dist", tmp_path / "venv"
    _source_tree(tree)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(
        DVC_NO_ANALYTICS="1",
        CI="1",
        **{
            f"GIT_{who}_{what}": v
            for who in ("AUTHOR", "COMMITTER")
            for what, v in (("NAME", "t"), ("EMAIL", "t@x.invalid"))
        },
    )
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(tree)], tmp_path, env)  # sdist, then wheel from it
    wheels, sdists = list(dist.glob("replearn-*.whl")), list(dist.glob("replearn-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1

    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    py = venv / "bin" / "python"
    constraints = ROOT / "requirements" / "constraints.txt"
    _run([str(py), "-m", "pip", "install", "--quiet", "-c", str(constraints), str(wheels[0])], tmp_path, env, 1800)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"  # an activated venv: `python` in the stages is this one
    where = _run([str(py), "-c", "import replearn; print(replearn.__file__)"], tmp_path, env).stdout.strip()
    assert Path(where).is_relative_to(venv) and not Path(where).is_relative_to(ROOT)
    templates = Path(where).parent / "templates"
    for path in (ROOT / "conf").rglob("*.yaml"):  # the shipped templates are the repository's files
        assert (templates / path.relative_to(ROOT)).read_bytes() == path.read_bytes(), path

    _run(["replearn", "init", "my-study"], tmp_path, env)
    study = tmp_path / "my-study"
    for rel in ("dvc.yaml", "params.yaml", "conf/config.yaml", "conf/experiment/smoke.yaml", "README.md", ".gitignore"):
        assert (study / rel).is_file(), rel
    assert "replearn==0.1.0" in (study / "requirements.txt").read_text()
    assert "src/" not in (study / "dvc.yaml").read_text()

    guard = "from replearn import dvc_guard; print(dvc_guard.is_active())"  # the wheel's .pth: DVC's lock writes atomic
    assert _run([str(py), "-c", guard], tmp_path, env).stdout.split() == ["True"]
    _run(["dvc", "repro"], study, env)
    assert (study / ".dvc/tmp/replearn/last-good/dvc.lock").read_bytes() == (study / "dvc.lock").read_bytes()
    report = (study / "reports" / "report.html").read_text()
    assert "data:image/png;base64" in report and "iris" in report and "wine" in report
    (first,) = _parent_runs(study)
    assert first.data.params["cv.folds"] == "10"
    _run(["git", "add", "-A"], study, env)
    _run(["git", "commit", "-qm", "first run"], study, env)

    _run(["dvc", "exp", "run", "-S", "cv.folds=3"], study, env)
    runs = _parent_runs(study)
    assert [r.data.params["cv.folds"] for r in runs] == ["10", "3"]
    # replearn diff in the study: the first run (HEAD) against the experiment's other folds is refused with the
    # reason, and the experiment against itself (the workspace holds its results) is identical
    other = _run(["replearn", "diff", "HEAD", "workspace", "--no-tracking"], study, env).stdout
    assert "the replicates differ (cv.folds 10 -> 3)" in other, other
    same = _run(["replearn", "diff", "workspace", "workspace", "--fail-on", "regression"], study, env).stdout
    assert "Outcome: identical" in same, same
    bad = _run(["dvc", "exp", "run", "-S", "unknown_key=1"], study, env, ok=False)  # the Hydra plugin is installed too
    assert bad.returncode != 0 and "unknown_key: unknown key; valid keys here: compute, cv, dataset" in bad.stderr

    # the user's own CSV, as README.md of the study says: a file in data/, a dataset config, a dep of prepare
    with open(study / "data" / "uci" / "iris.csv") as src, open(study / "data" / "flowers.csv", "w", newline="") as f:
        rows = list(csv.reader(src))
        csv.writer(f).writerows([["a", "b", "c", "d", "kind"], *rows[1:]])
    (study / "conf" / "dataset" / "flowers.yaml").write_text(
        "flowers:\n  source: file\n  path: data/flowers.csv\n  target: kind\n  task: classification\n"
    )
    spec = yaml.safe_load((study / "dvc.yaml").read_text())
    spec["stages"]["prepare"]["deps"].append("data/flowers.csv")
    (study / "dvc.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    _run(["git", "add", "-A"], study, env)
    _run(["git", "commit", "-qm", "my csv"], study, env)
    _run(["dvc", "exp", "run", "-S", "dataset=[flowers]"], study, env)
    assert "flowers" in (study / "reports" / "report.md").read_text()
    runs = _parent_runs(study)
    assert len(runs) == 3 and runs[-1].data.params["dataset.flowers.path"] == "data/flowers.csv"

    # upgrading replearn: the pin is every stage's dep, and a stage refuses to run under another version
    pin = study / "requirements.txt"
    pin.write_text(pin.read_text().replace("replearn==0.1.0", "replearn==0.2.0"))
    status = _run(["dvc", "status"], study, env).stdout
    assert all(f"{stage}:" in status for stage in ("validate", "prepare", "train", "crossval", "report")), status
    refused = _run(["dvc", "repro"], study, env, ok=False)
    assert refused.returncode != 0
    assert "replearn validate: this study pins replearn==0.2.0 in requirements.txt but replearn 0.1.0" in refused.stderr
