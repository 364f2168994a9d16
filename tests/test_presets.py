"""Every experiment preset in conf/experiment/ runs end to end through every stage with MLflow tracking on,
into a throwaway SQLite database in a copy of the project; no run is left RUNNING."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRESETS = sorted(p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml"))
STAGES = ["validate", "prepare", "featurize", "train", "crossval", "significance", "reproduce", "report"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("presets")
    for part in ("conf", "stages", "data/uci", "data/reference"):
        shutil.copytree(ROOT / part, base / part)
    for f in ("dvc.yaml", "data/registry.yaml"):
        shutil.copy2(ROOT / f, base / f)
    return base


DESIGNS = {  # the smoke preset under the other designs: "run through all stages on any dataset and model list"
    "smoke-seeds": ["design=seeds", "design.n_seeds=4", "design.resample_split=true"],
    "smoke-sweep": ["design=sweep", "design.axis=knn.n_neighbors", "design.values=[1,5,9]"],
}


@pytest.mark.parametrize("preset", PRESETS + sorted(DESIGNS))
def test_preset_runs_through_every_stage(tree, tmp_path, preset):
    if preset == "plugin_sklearn" and importlib.util.find_spec("replearn_sklearn") is None:
        pytest.skip("needs the example plugin (pip install ./examples/replearn-sklearn); tests/test_plugin_preset.py")
    work = tmp_path / preset
    shutil.copytree(tree, work)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    env["CI"] = "1"

    def run(*args):
        return subprocess.run([sys.executable, *args], cwd=work, env=env, capture_output=True, text=True, timeout=600)

    overrides = [f"+experiment={preset.split('-')[0]}", *DESIGNS.get(preset, [])]
    res = run("-m", "replearn", "compose", *overrides)
    assert res.returncode == 0, res.stderr
    for stage in STAGES:
        res = run(f"stages/{stage}.py")
        assert res.returncode == 0, f"stage {stage} of preset {preset} failed:\n{res.stderr[-4000:]}"
    params = json.loads(json.dumps(__import__("yaml").safe_load((work / "params.yaml").read_text())))
    cv = json.loads((work / "metrics" / "crossval.json").read_text())
    assert sorted(cv) == sorted(params["dataset"])
    for dataset, models in cv.items():
        assert models, f"no model ran on {dataset}"
    report = (work / "reports" / "report.html").read_text()
    assert "data:image/png;base64" in report and all(d in report for d in params["dataset"])
    from replearn.pipeline.report.family_figures import FIGURES

    for family in {spec.get("source") for spec in params["dataset"].values()} & set(FIGURES):
        assert f"Figures of the {family} family" in report, f"{preset}: the {family} figures are missing"
    if any(spec.get("task") == "characters" for spec in params["dataset"].values()):  # a language model's text
        assert "Generated text (sequence family)" in report
    sig = json.loads((work / "results" / "significance.json").read_text())
    assert set(sig["datasets"]) == set(params["dataset"])
    assert params["tracking"]["enabled"]
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{work}/mlflow.db")
    exp = client.get_experiment_by_name(params["tracking"]["experiment"])
    runs = client.search_runs([exp.experiment_id], max_results=1000)
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert len(parents) == 1 and len(runs) == 1 + sum(len(m) for m in cv.values())
    assert {r.info.status for r in runs} == {"FINISHED"}, "a run was left RUNNING or FAILED"
    records = json.loads((work / "metrics" / "reproduction.json").read_text())
    if params.get("reproduce"):  # a worked example of a text: every quantity published beside the measured value
        assert records and all(
            set(r) == {"preset", "source", "quantity", "published", "measured", "tolerance", "reproduced"}
            for r in records
        )
        not_reproduced = [r["quantity"] for r in records if not r["reproduced"]]
        assert not not_reproduced, f"{preset}: not reproduced: {not_reproduced}"
        assert f"Reproduction: {params['reproduce']}" in report
    else:
        assert records == []
    if params["design"]["name"] == "sweep":  # curves along the axis reach MLflow as step metrics
        child = next(r for r in runs if "mlflow.parentRunId" in r.data.tags)
        task = "classification" if any(k.startswith("cv.accuracy") for k in child.data.metrics) else "regression"
        primary = params["metrics"]["primary"][task]
        steps = client.get_metric_history(child.info.run_id, f"sweep.{primary}.mean")
        assert sorted(m.step for m in steps) == list(range(len(params["design"]["values"])))
        sig = json.loads((work / "results" / "significance.json").read_text())
        assert all(entry["sweep"]["axis"] == params["design"]["axis"] for entry in sig["datasets"].values())
    if params["design"]["name"] == "seeds":
        sig = json.loads((work / "results" / "significance.json").read_text())
        for entry in sig["datasets"].values():  # seeds answer per dataset the question their design asks
            want = {"population": "half_sampling_ttest", "problem": "replicate_ttest", "split": "replicate_ttest"}
            assert {row["test"] for row in entry["cv"]} <= {want[entry["question"]]}, entry["question"]
            if entry["question"] == "population":
                assert params["design"].get("resample_split") and params["cv"]["half_sampling"]["subsamples"] > 0
