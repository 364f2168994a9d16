"""`replearn diff` between real `dvc exp run`s of the smoke preset (issue 36's "done when"): a hyperparameter change
that makes a model worse is named with its effect, interval and adjusted p and exits 1 under --fail-on regression;
two runs of the same parameters are identical and exit 0; JSON and Markdown; the MLflow run of B is tagged, and
every run carries the significance stage's verdicts as tags; a queued experiment, an unknown revision and a
revision with other splits get a one-line answer."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "browser"))
import smoke_project as smoke  # noqa: E402

pytestmark = pytest.mark.slow

# the smoke preset (5 x 3 CV: 15 paired replicates) without the half-sampling fits, which the diff does not use
FAST = ["-S", "+experiment=smoke", "-S", "cv.half_sampling.subsamples=0", "-S", "stats.resamples=99"]


def _diff(proj: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "replearn", "diff", *args],
        cwd=proj,
        env=smoke.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _tags(db: Path, run_id: str) -> dict[str, str]:
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        return dict(con.execute("SELECT key, value FROM tags WHERE run_uuid = ?", (run_id,)).fetchall())
    finally:
        con.close()


def test_diff_between_experiments(tmp_path_factory, tmp_path):
    proj = smoke.private_copy(tmp_path_factory, tmp_path / "proj")
    smoke.run(smoke.dvc("exp", "run", "-n", "base", *FAST, "-S", "tracking=off"), proj, timeout=600)
    smoke.run(smoke.dvc("exp", "run", "-n", "again", *FAST, "-S", "tracking=off"), proj, timeout=600)
    smoke.run(
        smoke.dvc("exp", "run", "-n", "worse", *FAST, "-S", "models.knn.params.n_neighbors=60"), proj, timeout=600
    )

    res = _diff(proj, "base", "worse", "--fail-on", "regression")
    assert res.returncode == 1, res.stdout + res.stderr
    out = res.stdout
    assert "Changed parameters: models.knn.params.n_neighbors 5 -> 60" in out
    knn_rows = [line for line in out.splitlines() if line.split()[1:2] == ["knn"]]
    assert knn_rows and all("worse on these splits" in line for line in knn_rows)
    assert "Outcome: regression (on these splits)" in out

    doc = json.loads(_diff(proj, "base", "worse", "--format", "json", "--no-tracking").stdout)
    worse = [c for c in doc["cells"] if c["verdict"] == "worse"]
    assert worse and {c["model"] for c in worse} == {"knn"}
    for c in worse:
        assert c["change"] < 0 and c["ci"][1] < 0 and c["pvalue_adjusted"] <= 0.05 and c["n_replicates"] == 15
    assert {c["verdict"] for c in doc["cells"] if c["model"] != "knn"} == {"identical"}
    md = _diff(proj, "base", "worse", "--format", "markdown", "--no-tracking").stdout
    assert md.startswith("### replearn diff: ❌ regression") and "| iris | knn | accuracy |" in md

    same = _diff(proj, "base", "again", "--fail-on", "regression")
    assert same.returncode == 0 and "Outcome: identical -- 12 identical." in same.stdout

    # MLflow: the run of B (worse) carries the diff's outcome and the diff; every run the report's verdicts
    db = proj / "mlflow.db"
    con = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        (parent,) = con.execute(
            "SELECT r.run_uuid FROM runs r JOIN tags t ON t.run_uuid = r.run_uuid WHERE t.key = 'dvc.exp_name' "
            "AND t.value = 'worse'"
        ).fetchone()
        children = [
            r[0]
            for r in con.execute("SELECT run_uuid FROM tags WHERE key = 'mlflow.parentRunId' AND value = ?", (parent,))
        ]
    finally:
        con.close()
    tags = _tags(db, parent)
    assert tags["replearn.diff.outcome"] == "regression" and "experiment base" in tags["replearn.diff.against"]
    # the report's own wording, with the question its test answers (no half-sampling here: the corrected t's)
    question = "the corrected resampled t-test's heuristic stands in for the data-sampling variance"
    assert tags["replearn.verdict.iris"].startswith("iris: ") and question in tags["replearn.verdict.iris"]
    assert len(children) == 6
    for child in children:
        verdict = _tags(db, child)["replearn.verdict"]
        assert "significantly" in verdict and question in verdict
    artifacts = list((proj / "mlartifacts").rglob("against-base.json"))
    assert artifacts and json.loads(artifacts[0].read_text())["outcome"] == "regression"

    # one-line answers: other splits (the committed baseline has one repeat), a queued experiment, no such revision
    head = _diff(proj, "HEAD", "base", "--fail-on", "regression")
    assert head.returncode == 1 and "the replicates differ (cv.repeats 1 -> 5)" in head.stdout
    smoke.run(smoke.dvc("exp", "run", "--queue", "-n", "later", *FAST), proj)
    queued = _diff(proj, "base", "later")
    assert queued.returncode == 2 and "queued and not run yet" in queued.stderr and queued.stderr.count("\n") == 1
    missing = _diff(proj, "base", "no-such-thing")
    assert missing.returncode == 2 and "unknown revision or experiment 'no-such-thing'" in missing.stderr
