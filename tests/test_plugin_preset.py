"""The example plugin (examples/replearn-sklearn) end to end: installed into this venv (pip, without dependencies
beyond the scikit-learn the test extra already has) unless it is there, then the plugin_sklearn preset through every
stage with MLflow tracking into a throwaway database; replearn's logistic regression and scikit-learn's, same C,
must come out practically equivalent (the Bayesian ROPE decision)."""

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
PLUGIN = ROOT / "examples" / "replearn-sklearn"
STAGES = ["validate", "prepare", "featurize", "train", "crossval", "significance", "reproduce", "report"]
pytestmark = pytest.mark.slow


def _installed() -> bool:
    return importlib.util.find_spec("replearn_sklearn") is not None


@pytest.fixture(scope="module")
def plugin():
    if not _installed():
        res = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", str(PLUGIN)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if res.returncode != 0:
            if os.environ.get("REPLEARN_REQUIRE_PLUGIN"):
                pytest.fail(f"cannot install {PLUGIN}:\n{res.stderr[-2000:]}")
            pytest.skip(f"cannot install {PLUGIN} (pip: {res.stderr.strip().splitlines()[-1:]})")
        importlib.invalidate_caches()
    from replearn import models

    models.reset_plugins()
    yield models
    models.reset_plugins()


def test_the_example_plugin_registers_its_models(plugin):
    for name in ("sk_logistic_regression", "sk_random_forest", "sk_svc"):
        assert name in plugin.available("classification")
        assert plugin.source(name).startswith("plugin replearn-sklearn ")
        assert plugin.check_protocol(plugin.get_class(name)) == []


def test_plugin_preset_runs_and_calls_the_two_logistic_regressions_equivalent(plugin, tmp_path):
    work = tmp_path / "plugin_sklearn"
    for part in ("conf", "stages", "data/uci", "data/reference"):
        shutil.copytree(ROOT / part, work / part)
    for f in ("dvc.yaml", "data/registry.yaml"):
        shutil.copy2(ROOT / f, work / f)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    env["CI"] = "1"

    def run(*args):
        return subprocess.run([sys.executable, *args], cwd=work, env=env, capture_output=True, text=True, timeout=600)

    res = run("-m", "replearn", "compose", "+experiment=plugin_sklearn")
    assert res.returncode == 0, res.stderr
    for stage in STAGES:
        res = run(f"stages/{stage}.py")
        assert res.returncode == 0, f"stage {stage} failed:\n{res.stderr[-4000:]}"
    sig = json.loads((work / "results" / "significance.json").read_text())
    (row,) = sig["datasets"]["breast_cancer"]["bayesian"]
    assert {row["model_a"], row["model_b"]} == {"logistic_regression", "sk_logistic_regression"}
    assert row["decision"] == "equivalent" and row["p_equivalent"] >= 0.95
    report = (work / "reports" / "report.md").read_text()
    assert "**practically equivalent**" in report
    assert "| Plugin models | sk_logistic_regression: plugin replearn-sklearn " in report
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{work}/mlflow.db")
    exp = client.get_experiment_by_name("replearn")
    runs = client.search_runs([exp.experiment_id], max_results=100)
    assert {r.info.status for r in runs} == {"FINISHED"}
    assert {r.data.tags.get("replearn.model") for r in runs} >= {"logistic_regression", "sk_logistic_regression"}
