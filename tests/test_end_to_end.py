"""The whole pipeline in a fresh copy of the project: `dvc repro` on the smoke preset, the report, the
metrics and the MLflow runs; a second `dvc repro` reruns nothing; a forced rerun is byte-identical; and
`dvc exp run --temp -S ...` creates an experiment that shows in `dvc exp show` and in MLflow."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _run(cmd, cwd, env, timeout=300):
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, (
        f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}"
    )
    return res


def _copy_project(dest: Path) -> None:
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
    for stale in ("dvc.lock", "metrics", "plots"):  # start as a fresh clone would, before any run
        target = dest / stale
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)


#: the cost report: wall-clock seconds, which change from run to run (kept out of DVC's hashes by .dvcignore)
WALL_CLOCK = {"reports/cost.html", "reports/cost.md", "reports/cost_pareto.png"}


def _digests(root: Path) -> dict[str, str]:
    out = {}
    for base in ("data/prepared", "data/sealed", "data/features", "models", "results", "metrics", "plots", "reports"):
        for p in sorted((root / base).rglob("*")):
            if p.is_file() and str(p.relative_to(root)) not in WALL_CLOCK:
                out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _mlflow_runs(proj: Path):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{proj}/mlflow.db")
    exp = client.get_experiment_by_name("replearn")
    return client.search_runs([exp.experiment_id], max_results=1000)


def _check_tracking(proj: Path, parent, runs) -> None:
    """Finished runs, real timestamps, the classic-ML experiment view and the final dvc.lock as an artifact."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{proj}/mlflow.db")
    assert {r.info.status for r in runs} == {"FINISHED"}
    exp = client.get_experiment_by_name("replearn")
    assert exp.tags.get("mlflow.experimentKind") == "custom_model_development"
    history = client.get_metric_history(parent.info.run_id, next(iter(parent.data.metrics)))
    assert all(m.timestamp > 1_600_000_000_000 for m in history)  # not 1970
    logged = Path(client.download_artifacts(parent.info.run_id, "dvc.lock", str(proj / "dl")))
    assert logged.read_text() == (proj / "dvc.lock").read_text()  # byte for byte
    shutil.rmtree(proj / "dl")


def test_pipeline_end_to_end(tmp_path):
    proj = tmp_path / "proj"
    _copy_project(proj)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        DVC_NO_ANALYTICS="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
        CI="1",
    )
    dvc = [sys.executable, "-m", "dvc"]
    _run(["git", "init", "-q", "-b", "main"], proj, env)
    _run([sys.executable, "-m", "replearn", "compose", "+experiment=smoke"], proj, env)
    _run(["git", "add", "-A"], proj, env)
    _run(["git", "commit", "-qm", "init"], proj, env)

    _run(dvc + ["repro"], proj, env, timeout=600)
    report = (proj / "reports" / "report.html").read_text()
    assert "data:image/png;base64" in report and "iris" in report and "wine" in report
    assert (proj / "reports" / "report.md").is_file()
    cv = json.loads((proj / "metrics" / "crossval.json").read_text())
    assert sorted(cv) == ["iris", "wine"]
    assert sorted(cv["iris"]) == ["gaussian_naive_bayes", "knn", "logistic_regression"]
    assert 0.8 < cv["iris"]["knn"]["accuracy_mean"] <= 1.0
    sig = json.loads((proj / "results" / "significance.json").read_text())
    assert sig["pairwise_test"] == "half_sampling_ttest" and len(sig["datasets"]["iris"]["cv"]) == 3
    assert sig["datasets"]["iris"]["question"] == "population"  # a claim about datasets, by half-sampling
    across = sig["across_datasets"]  # 2 datasets x 3 models: ranks only, no test below stats.min_datasets
    assert not across["ran"] and across["n_datasets"] == 2 and len(across["average_ranks"]) == 3
    runs = _mlflow_runs(proj)
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    assert len(children) == 6
    # one metric name means one thing: dataset and model are params, never part of a metric's name
    names = {frozenset(c.data.metrics) for c in children}
    assert len(names) == 1 and {
        "cv.accuracy.mean",
        "cv.accuracy.std",
        "cv.accuracy",
        "test.accuracy",
        "train.accuracy",
    } <= set(next(iter(names)))
    assert {(c.data.params["dataset"], c.data.params["model"]) for c in children} == {
        (d, m) for d in ("iris", "wine") for m in ("gaussian_naive_bayes", "knn", "logistic_regression")
    }
    assert set(parents[0].data.metrics) <= {"n_datasets", "n_models", "friedman.pvalue", "nemenyi.cd"}
    _check_tracking(proj, parents[0], runs)
    before = _digests(proj)

    second = _run(dvc + ["repro"], proj, env)
    assert "Running stage" not in second.stdout + second.stderr
    assert "up to date" in (second.stdout + second.stderr)

    _run(dvc + ["repro", "-f"], proj, env, timeout=600)
    assert _digests(proj) == before, "a forced rerun with the same params changed some output"
    assert len(_mlflow_runs(proj)) == len(runs), "rerunning without changes logged a duplicate"

    _run(["git", "add", "-A"], proj, env)
    _run(["git", "commit", "-qm", "baseline run"], proj, env)
    _run(
        dvc
        + [
            "exp",
            "run",
            "--temp",
            "-n",
            "two-models",
            "-S",
            "+experiment=smoke",
            "-S",
            "models=[knn,gaussian_naive_bayes]",
        ],
        proj,
        env,
        timeout=600,
    )
    shown = _run(dvc + ["exp", "show", "--json"], proj, env).stdout
    assert "two-models" in shown
    runs = _mlflow_runs(proj)
    tagged = [r for r in runs if r.data.tags.get("dvc.exp_name") == "two-models"]
    assert len(tagged) == 1, "the --temp experiment did not reach the project's MLflow store"
    kids = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == tagged[0].info.run_id]
    assert sorted(r.data.tags["mlflow.runName"] for r in kids) == [
        "iris/gaussian_naive_bayes",
        "iris/knn",
        "wine/gaussian_naive_bayes",
        "wine/knn",
    ]


def test_misspelt_key_fails_and_restricting_models_reruns_train_and_crossval(tmp_path, tmp_path_factory, smoke):
    """`dvc exp run -S +cv.fodls=5` used to exit 0; restricting `dataset.iris.models` used to rerun nothing."""
    # a private copy of the session's smoke project (its `dvc repro` run and committed: the baseline this test
    # used to build itself); every experiment repeats the baseline's settings, so the model restriction is the
    # only change
    proj = smoke.private_copy(tmp_path_factory, tmp_path / "proj")
    env = smoke.env()
    dvc = [sys.executable, "-m", "dvc"]
    baseline = [f"-S{o}" for o in smoke.PRESET]
    assert "tracking=off" in smoke.PRESET and "+experiment=smoke" in smoke.PRESET
    assert _run(["git", "status", "--porcelain"], proj, env).stdout == "", "the baseline is not committed"
    committed = (proj / "params.yaml").read_text()

    bad = subprocess.run(
        dvc + ["exp", "run", *baseline, "-S", "+cv.fodls=5"],
        cwd=proj,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert bad.returncode != 0
    assert "cv.fodls: unknown key" in bad.stdout + bad.stderr
    assert (proj / "params.yaml").read_text() == committed, "a rejected experiment left its params.yaml behind"

    res = _run(
        dvc + ["exp", "run", *baseline, "-S", "+dataset.iris.models=[knn,logistic_regression]"],
        proj,
        env,
        timeout=600,
    )
    out = res.stdout + res.stderr
    assert "Running stage 'train'" in out and "Running stage 'crossval'" in out
    cv = json.loads((proj / "results" / "crossval" / "iris.json").read_text())
    assert sorted(cv["models"]) == ["knn", "logistic_regression"]
    train = json.loads((proj / "metrics" / "train.json").read_text())
    assert sorted(train["iris"]) == ["knn", "logistic_regression"]
    assert sorted(train["wine"]) == ["gaussian_naive_bayes", "knn", "logistic_regression"]
