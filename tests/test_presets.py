"""Every experiment preset in conf/experiment/ runs end to end through every stage with MLflow tracking on,
into a throwaway SQLite database in a copy of the project; no run is left RUNNING.

The stages of a preset run one after the other in one Python process (:data:`RUNNER`: each stage script as
``__main__``, exactly what `dvc repro` starts, and the same exit codes), so a preset pays the imports once
instead of once per stage; tests/test_end_to_end.py runs the real `dvc repro` with a process per stage."""

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
#: every preset's outputs (metrics/, results/) as canonical digests, one file per preset (tests/tools/digests.py):
#: a refactor keeps them (issue 38); REPLEARN_UPDATE_DIGESTS=1 rewrites them after a change of what is computed


def machine_class() -> str:
    """The kind of CPU path the numerics take: OpenBLAS's kernel family and numpy's widest SIMD extension.

    On one machine every output is byte-identical from run to run, serial or parallel. Across kinds of CPU a BLAS
    kernel or a SIMD loop moves the last bit of a float, and a difference of two large scores (two MSEs of 5.6e9 on
    the housing data, 1.2 apart) turns that into the 7th significant digit of what the significance stage writes:
    measured on one machine with OPENBLAS_CORETYPE=Sandybridge against Haswell, the scores moved by 2e-16 relative
    and their mean difference by 8e-7. So digests are stored per machine class."""
    import numpy  # noqa: F401  (OpenBLAS is loaded, and so listed by threadpoolctl, once numpy is imported)

    arch = "unknown"
    try:
        from threadpoolctl import threadpool_info

        arch = next(
            (i.get("architecture") or arch for i in threadpool_info() if i.get("internal_api") == "openblas"), arch
        )
    except ImportError:
        pass
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # numpy < 2
        features = {}
    if "X86_V4" in features:  # numpy >= 2.4: the microarchitecture levels it dispatches on (NPY_DISABLE_CPU_FEATURES)
        simd = "avx512" if features["X86_V4"] else "avx2" if features.get("X86_V3") else "base"
    else:
        simd = "avx512" if features.get("AVX512F") else "avx2" if features.get("AVX2") else "base"
    return f"{arch}-{simd}".lower()


#: the stored digests: tests/fixtures/preset_digests/ holds those of the machine class named in its MACHINE_CLASS
#: file (CI's), a subfolder named by :func:`machine_class` those of another kind of CPU, stored from the same commit
#: (the one that last changed what is computed); REPLEARN_DIGESTS_DIR: another folder, e.g. a baseline stored on
#: this machine before a refactor. On a kind of CPU with no stored digests the outputs cannot be compared bit for
#: bit: the test still runs every stage and checks every output, and says why it compared no digest.
_STORED = ROOT / "tests" / "fixtures" / "preset_digests"
MACHINE = machine_class()
DEFAULT_CLASS = (_STORED / "MACHINE_CLASS").read_text().strip()
DIGESTS: Path | None = (
    Path(os.environ["REPLEARN_DIGESTS_DIR"])
    if os.environ.get("REPLEARN_DIGESTS_DIR")
    else _STORED / MACHINE
    if (_STORED / MACHINE).is_dir()
    else _STORED
    if MACHINE == DEFAULT_CLASS
    else None
)
PRESETS = sorted(p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml"))
STAGES = ["validate", "prepare", "featurize", "train", "crossval", "significance", "reproduce", "report"]
pytestmark = pytest.mark.slow


#: compose with the given overrides, then every stage script as __main__, in this one process; stops at the
#: first stage that exits non-zero, naming it on stderr
RUNNER = """
import json, runpy, sys
overrides, stages = json.loads(sys.argv[1]), sys.argv[2:]
for name, path, argv in [("compose", None, ["replearn", "compose", *overrides])] + [
    (stage, f"stages/{stage}.py", [f"stages/{stage}.py"]) for stage in stages
]:
    sys.argv = argv
    try:
        runpy.run_module("replearn", run_name="__main__") if path is None else runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            print(f"@@ stage {name} exited with {exc.code}", file=sys.stderr)
            raise
"""

#: presets whose full run belongs to a make target, not to the test suite: the test runs them on a subset
#: (every stage, tracking on, the same models and settings) and says so
SUBSETS = {  # the benchmark view (> 8 datasets), in seconds
    "benchmark_keel": ["dataset=keel_quick"],  # 9 datasets
    "benchmark_keel_imbalanced": ["dataset=keel_imbalanced_quick"],  # 11 datasets
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("presets")
    for part in ("conf", "stages", "data/uci", "data/reference", "data/keel", "data/keel_imbalanced"):
        if (ROOT / part).is_dir():  # data/keel: installed by `make keel` (make test does it)
            shutil.copytree(ROOT / part, base / part)
    for f in ("dvc.yaml", "data/registry.yaml", "data/keel.yaml", "data/keel_imbalanced.yaml"):
        if (ROOT / f).is_file():
            shutil.copy2(ROOT / f, base / f)
    return base


DESIGNS = {  # the smoke preset under the other designs: "run through all stages on any dataset and model list"
    "smoke-seeds": ["design=seeds", "design.n_seeds=4", "design.resample_split=true"],
    "smoke-sweep": ["design=sweep", "design.axis=knn.n_neighbors", "design.values=[1,5,9]"],
}


#: the presets ``make test`` runs (the cv, seeds and sweep designs; a family of each problem kind -- rl, theory --;
#: a reproduction; the plugin; the regression preset's near-tie digests): about 80 s of the 480 s all of them take
#: on 2 cores. ``make presets`` runs every one, and CI runs it after ``make test`` (marker ``presets_full``)
IN_SUITE = {
    "smoke",
    "smoke-seeds",
    "smoke-sweep",
    "regression",
    "rl_planning",
    "theory",
    "cs229_lwr",
    "plugin_sklearn",
    "ciml_course_ratings",
}


@pytest.mark.parametrize(
    "preset",
    [p if p in IN_SUITE else pytest.param(p, marks=pytest.mark.presets_full) for p in PRESETS + sorted(DESIGNS)],
)
def test_preset_runs_through_every_stage(tree, tmp_path, preset):
    if preset == "plugin_sklearn" and importlib.util.find_spec("replearn_sklearn") is None:
        pytest.skip("needs the example plugin (pip install ./examples/replearn-sklearn); tests/test_plugin_preset.py")
    work = tmp_path / preset
    shutil.copytree(tree, work)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    env["CI"] = "1"

    overrides = [f"+experiment={preset.split('-')[0]}", *DESIGNS.get(preset, []), *SUBSETS.get(preset, [])]
    res = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(overrides), *STAGES],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert res.returncode == 0, f"preset {preset} failed:\n{res.stderr[-4000:]}"
    assert res.stderr.count("[report]") >= 1, res.stderr[-2000:]  # every stage ran, the last one included
    params = json.loads(json.dumps(__import__("yaml").safe_load((work / "params.yaml").read_text())))
    cv = json.loads((work / "metrics" / "crossval.json").read_text())
    assert sorted(cv) == sorted(params["dataset"])
    for dataset, models in cv.items():
        assert models, f"no model ran on {dataset}"
    report = (work / "reports" / "report.html").read_text()
    assert "data:image/png;base64" in report and all(d in report for d in params["dataset"])
    from replearn.pipeline.family_views import with_figures

    for family in {spec.get("source") for spec in params["dataset"].values()} & with_figures():
        assert f"Figures of the {family} family" in report, f"{preset}: the {family} figures are missing"
    if any(spec.get("task") == "characters" for spec in params["dataset"].values()):  # a language model's text
        assert "Generated text (sequence family)" in report
    sig = json.loads((work / "results" / "significance.json").read_text())
    assert set(sig["datasets"]) == set(params["dataset"])
    from replearn.pipeline.views import ReproductionRecord, undeclared_keys

    assert not undeclared_keys(sig), f"{preset}: keys no view of the report declares: {undeclared_keys(sig)[:10]}"
    repro = json.loads((work / "results" / "reproduction.json").read_text())
    assert not undeclared_keys(repro, ReproductionRecord), (
        f"{preset}: {undeclared_keys(repro, ReproductionRecord)[:10]}"
    )
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
            set(r)
            == {"id", "example", "text", "section", "preset", "source", "quantity", "published", "measured"}
            | {"tolerance", "reproduced", "provenance", "measured_by", "erratum", "derived_from"}
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
    _check_digests(preset, work)  # last: on a machine class with no stored digests it skips, every check above done


def _digests_of(work: Path) -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("replearn_tests_digests", ROOT / "tests" / "tools" / "digests.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.digests(work)


def _check_digests(preset: str, work: Path) -> None:
    """The preset's metrics/ and results/ are what they were when the digests were stored (file by file; the
    floats of a near tie to the digits its conditioning leaves meaningful, tests/tools/digests.py)."""
    got = _digests_of(work)
    if DIGESTS is None:
        pytest.skip(
            f"{preset} ran through every stage and passed every check, but no digests are stored for this machine "
            f"class ({MACHINE}; stored: {DEFAULT_CLASS} and the subfolders of {_STORED}), and a BLAS kernel or SIMD "
            "loop of another kind of CPU moves last bits: REPLEARN_DIGESTS_DIR=DIR REPLEARN_UPDATE_DIGESTS=1 stores "
            "a baseline on this machine"
        )
    stored_file = DIGESTS / f"{preset}.json"
    if os.environ.get("REPLEARN_UPDATE_DIGESTS"):
        DIGESTS.mkdir(parents=True, exist_ok=True)
        stored_file.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
        return
    assert stored_file.is_file(), f"no stored digests for {preset}: REPLEARN_UPDATE_DIGESTS=1 writes {stored_file}"
    stored = json.loads(stored_file.read_text())
    changed = sorted(k for k in set(got) | set(stored) if got.get(k) != stored.get(k))
    assert not changed, (
        f"{preset}: these outputs differ from the stored digests: {changed} (a refactor must keep them; after an "
        "intended change of what is computed, REPLEARN_UPDATE_DIGESTS=1 rewrites tests/fixtures/preset_digests/)"
    )
