"""What MLflow tracking adds to the report stage, against the same calls made with MLflow directly.

A synthetic project shaped like the smoke preset (2 datasets x 3 models: logistic regression, k-NN,
Gaussian naive Bayes; 2 x 3-fold CV, accuracy and macro F1; the model files of the train stage, the
prepared and feature parts, a report with plots) is built once in the system temp dir. Every measurement
then runs in a fresh Python process -- as the report stage does -- which first imports what the report
stage has imported anyway (numpy, scipy, matplotlib, replearn's report) and then times:

* ``raw MLflow``: the minimal script for the same runs with MLflow itself: ``import mlflow``, an
  ``MlflowClient`` on a SQLite file, the experiment, a parent run and six children with their params and
  metrics in ``log_batch`` calls, the report files as artifacts, and one model, logged with
  ``mlflow.pyfunc.log_model`` (models from code: ``pipeline/tracking/tracking_model.py`` and the model's files);
* ``replearn``: ``tracking.log_pipeline_run`` as the report stage calls it -- the same runs and
  artifacts, plus six models (LoggedModels with signature and input example), six dataset inputs and the
  overview table;
* ``MLflow's floor``: ``import mlflow``, an ``MlflowClient`` on the warm database and one query -- what
  any logging through MLflow pays before it logs anything;
* ``replearn, unchanged rerun``: the same call again (a complete run with that run key exists);
* ``tracking=off``: the same call with tracking disabled (the floor: nothing to do).

``fresh`` is a first run on a directory without a database, ``warm`` a later run on the same database
(with new results, so that it logs). Rounds alternate the cases; the median of ``--rounds`` (3) is
reported. ``--before path/to/tracking.py`` also times another version of the tracking module (e.g.
``git show <rev>:src/replearn/pipeline/tracking.py``, with its ``tracking_model.py`` beside it),
interleaved in the same rounds (rows "before, ..."), for a before/after comparison on the same machine
state. Everything is written under a temporary directory that is removed at the end; results go to
``tracking.json`` in :data:`benchmarks.common.RESULTS_DIR` (``benchmarks/results/local/``, git-ignored)
and are printed as a markdown table: ``python -m benchmarks.bench_tracking``. Like rl.json the file has
no ``"benchmark"`` key (there is no scikit-learn ratio); docs/performance.md ("Pipeline
overhead: tracking") shows the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATASETS = ("iris", "wine")
MODELS = ("logistic_regression", "knn", "gaussian_naive_bayes")
METRICS = ("accuracy", "f1_macro")
EXPERIMENT = "bench-tracking"
REPO = Path(__file__).resolve().parent.parent


# -- the synthetic project ------------------------------------------------------------------------------


def build_project(root: Path) -> None:
    """Pipeline files as prepare/featurize/train/report leave them, and the results the report reads."""
    import numpy as np

    from replearn import models as registry
    from replearn.persistence import save_model

    rng = np.random.default_rng(0)
    crossval, train = {}, {}
    for d in DATASETS:
        X = rng.normal(size=(150, 4))
        y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
        for part in (f"data/prepared/{d}", f"data/features/{d}"):
            (root / part).mkdir(parents=True, exist_ok=True)
        np.savez(root / f"data/prepared/{d}/train.npz", X=X[:100], y=y[:100])
        np.savez(root / f"data/features/{d}/test.npz", X=X[100:], y=y[100:])
        scheme = {"name": "repeated_stratified_kfold", "design": "cv", "folds": 3, "repeats": 2, "seed": 1}
        crossval[d] = {"scheme": scheme, "primary_metric": "accuracy", "models": {}}
        train[d] = {}
        for m in MODELS:
            save_model(registry.create(m).fit(X[:100], y[:100]), root / "models" / d / m, registry_name=m)
            scores = {k: [float(v) for v in rng.uniform(0.7, 0.95, 6)] for k in METRICS}
            crossval[d]["models"][m] = {"registry_name": m, "params": {}, "scores": scores}
            train[d][m] = {part: {k: float(rng.uniform(0.7, 0.95)) for k in METRICS} for part in ("train", "test")}
    (root / "reports" / "plots").mkdir(parents=True)
    (root / "reports" / "report.html").write_text("<html>" + "x" * 300_000 + "</html>")
    (root / "reports" / "report.md").write_text("# report\n")
    for d in DATASETS:
        for kind in ("cv", "train_test"):
            (root / "reports" / "plots" / f"{kind}_{d}.png").write_bytes(rng.bytes(25_000))
    significance = {"across_datasets": {"ran": False, "reason": "two datasets"}}
    (root / "inputs.json").write_text(json.dumps({"crossval": crossval, "train": train, "significance": significance}))


def _params(nonce: int) -> dict:
    """The parameters the report stage passes (a nonce makes a new run key: a warm run that logs)."""
    return {
        "experiment_name": "smoke",
        "seed": 1,
        "nonce": nonce,
        "cv": {"scheme": "repeated_stratified_kfold", "folds": 3, "repeats": 2},
        "models": {m: {"name": m, "params": {}} for m in MODELS},
        "tracking": {"enabled": True, "experiment": EXPERIMENT, "tracking_uri": None},
    }


def _flat(d: dict, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v if isinstance(v, str) else json.dumps(v)
    return out


# -- the workers (one fresh process per measurement) ----------------------------------------------------


def _preload() -> None:
    """What the report stage has imported before it logs (not counted: tracking=off pays it too)."""
    import numpy  # noqa: F401

    import replearn.pipeline.report  # noqa: F401


def _load_tracking(implementation: str | None):
    if not implementation:
        from replearn.pipeline import tracking

        return tracking
    import importlib.util

    spec = importlib.util.spec_from_file_location("replearn.pipeline._bench_tracking", implementation)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def worker_replearn(root: Path, nonce: int, enabled: bool, implementation: str | None) -> dict:
    _preload()
    tracking = _load_tracking(implementation)
    inputs = json.loads((root / "inputs.json").read_text())
    params = _params(nonce)
    params["tracking"]["enabled"] = enabled
    reports = root / "reports"
    start = time.perf_counter()
    res = tracking.log_pipeline_run(
        params=params,
        crossval=inputs["crossval"],
        significance=inputs["significance"],
        train_metrics=inputs["train"],
        artifacts=[reports / "report.html", reports / "report.md", reports / "plots"],
        project_root=root,
        extra_files={"dvc.lock": "schema: '2.0'\n"},
    )
    return {"seconds": time.perf_counter() - start, "status": res["status"]}


def worker_raw(root: Path, nonce: int) -> dict:
    """The minimal MLflow script: the same runs, params, metrics and report files, ``log_batch``, one model."""
    _preload()
    import numpy as np

    inputs = json.loads((root / "inputs.json").read_text())
    params = _flat(_params(nonce))
    children = []
    for d, res in inputs["crossval"].items():
        for key, m in res["models"].items():
            metrics = [(f"cv.{k}", v, i) for k, vals in m["scores"].items() for i, v in enumerate(vals)]
            metrics += [(f"cv.{k}.mean", sum(vals) / len(vals), 0) for k, vals in m["scores"].items()]
            metrics += [
                (f"{part}.{k}", v, 0) for part, vals in inputs["train"][d][key].items() for k, v in vals.items()
            ]
            children.append((d, key, {"dataset": d, "model": m["registry_name"], **res["scheme"]}, metrics))
    stem = root / "models" / DATASETS[0] / MODELS[0]
    with np.load(root / "data" / "features" / DATASETS[0] / "test.npz") as data:
        example = np.asarray(data["X"][:5], dtype=float)
    code = REPO / "src" / "replearn" / "pipeline" / "tracking_model.py"

    start = time.perf_counter()
    import mlflow
    from mlflow.entities import Metric, Param
    from mlflow.models import infer_signature
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=f"sqlite:///{root / 'mlflow.db'}")
    exp = client.get_experiment_by_name(EXPERIMENT)
    exp_id = exp.experiment_id if exp else client.create_experiment(EXPERIMENT, (root / "mlartifacts").as_uri())
    now = int(time.time() * 1000)
    parent = client.create_run(exp_id, tags={"mlflow.runName": f"raw-{nonce}"}).info.run_id
    client.log_batch(parent, params=[Param(k, v) for k, v in params.items()], metrics=[Metric("n_models", 3, now, 0)])
    for name in ("report.html", "report.md"):
        client.log_artifact(parent, str(root / "reports" / name))
    client.log_artifacts(parent, str(root / "reports" / "plots"), "plots")
    client.log_text(parent, "schema: '2.0'\n", "dvc.lock")
    first = None
    for d, key, cparams, metrics in children:
        run = client.create_run(exp_id, tags={"mlflow.parentRunId": parent, "mlflow.runName": f"{d}/{key}"})
        first = first or run.info.run_id
        client.log_batch(
            run.info.run_id,
            params=[Param(k, str(v)) for k, v in cparams.items()],
            metrics=[Metric(n, float(v), now, s) for n, v, s in metrics],
        )
        client.set_terminated(run.info.run_id)
    mlflow.set_tracking_uri(client.tracking_uri)
    with mlflow.start_run(run_id=first):
        mlflow.pyfunc.log_model(
            name="model",
            python_model=str(code),
            artifacts={"npz": str(stem.with_suffix(".npz")), "json": str(stem.with_suffix(".json"))},
            signature=infer_signature(example, np.zeros(len(example), dtype=int)),
            input_example=example,
            pip_requirements=[f"mlflow=={mlflow.__version__}", f"numpy=={np.__version__}"],
        )
    client.set_terminated(parent)
    return {"seconds": time.perf_counter() - start, "status": "logged"}


def worker_floor(root: Path) -> dict:
    """MLflow's fixed cost, before anything is logged: the import, the client and its store, one query."""
    _preload()
    start = time.perf_counter()
    from mlflow.tracking import MlflowClient

    MlflowClient(tracking_uri=f"sqlite:///{root / 'mlflow.db'}").get_experiment_by_name(EXPERIMENT)
    return {"seconds": time.perf_counter() - start, "status": "read"}


def _worker(argv: list[str]) -> None:
    mode, root, nonce, implementation = argv[0], Path(argv[1]), int(argv[2]), (argv[3] if len(argv) > 3 else None)
    os.environ.pop("MLFLOW_TRACKING_URI", None)
    os.environ.pop("DVC_ROOT", None)
    os.environ["MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"] = "false"
    if mode == "raw":
        out = worker_raw(root, nonce)
    elif mode == "floor":
        out = worker_floor(root)
    else:
        out = worker_replearn(root, nonce, enabled=mode != "off", implementation=implementation or None)
    print("RESULT " + json.dumps(out))


# -- the driver -----------------------------------------------------------------------------------------


def _run(mode: str, root: Path, nonce: int, implementation: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    cmd = [sys.executable, "-m", "benchmarks.bench_tracking", "--worker", mode, str(root), str(nonce)]
    res = subprocess.run(
        cmd + [implementation or ""], cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("RESULT ")]
    if res.returncode != 0 or not lines:
        raise RuntimeError(f"{mode} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def measure(rounds: int, before: str | None = None) -> dict[str, list[float]]:
    """Seconds per case and round; every round starts from fresh directories. With ``before`` (another
    tracking.py), its cases run in the same rounds, interleaved, so both see the same machine."""
    times: dict[str, list[float]] = {}
    scratch = Path(tempfile.mkdtemp(prefix="replearn-bench-tracking-"))
    versions = [("replearn", None)] + ([("before", before)] if before else [])
    try:
        template = scratch / "template"
        build_project(template)
        for r in range(rounds):
            raw = scratch / f"raw{r}"
            shutil.copytree(template, raw)
            steps = [
                ("raw MLflow, fresh database", "raw", raw, 1, "logged", None),
                ("raw MLflow, warm database", "raw", raw, 2, "logged", None),
                ("MLflow's floor: import, client, one query (warm)", "floor", raw, 0, "read", None),
            ]
            for name, impl in versions:
                ours = scratch / f"{name}{r}"
                shutil.copytree(template, ours)
                steps += [
                    (f"{name}, tracking=off", "off", ours, 0, "disabled", impl),
                    (f"{name}, fresh database", "on", ours, 1, "logged", impl),
                    (f"{name}, warm database", "on", ours, 2, "logged", impl),
                    (f"{name}, unchanged rerun", "on", ours, 2, "exists", impl),
                ]
            for label, mode, root, nonce, expected, impl in steps:
                out = _run(mode, root, nonce, impl)
                if out["status"] != expected:
                    raise RuntimeError(f"{label}: status {out['status']!r}, expected {expected!r}")
                times.setdefault(label, []).append(out["seconds"])
            for name in ["raw"] + [n for n, _ in versions]:
                shutil.rmtree(scratch / f"{name}{r}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return times


def summarize(times: dict[str, list[float]]) -> list[dict]:
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = []
    for label, seconds in med.items():
        row = {"case": label, "median_s": round(seconds, 3), "runs_s": [round(t, 3) for t in times[label]]}
        name, _, case = label.partition(", ")
        if name in ("replearn", "before") and case != "tracking=off":
            row["over_off_s"] = round(seconds - med[f"{name}, tracking=off"], 3)
            for db in ("fresh", "warm"):
                if case == f"{db} database":
                    row["ratio_to_raw"] = round(seconds / med[f"raw MLflow, {db} database"], 2)
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [
        "| case | median (s) | added over tracking=off (s) | ratio to raw MLflow (same database state) |",
        "|---|---:|---:|---:|",
    ]
    for r in rows:
        over = f"{r['over_off_s']:.2f}" if "over_off_s" in r else ""
        ratio = f"{r['ratio_to_raw']:.2f}" if "ratio_to_raw" in r else ""
        lines.append(f"| {r['case']} | {r['median_s']:.2f} | {over} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="time this tracking.py too, in the same rounds (rows 'before, ...')")
    parser.add_argument("--out", help="results file (default tracking.json in benchmarks/results/local/)")
    args = parser.parse_args(argv or [])
    before = str(Path(args.before).resolve()) if args.before else None
    rows = summarize(measure(args.rounds, before))
    from .common import RESULTS_DIR, machine

    out = Path(args.out) if args.out else RESULTS_DIR / "tracking.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"suite": "tracking", "rounds": args.rounds, "before": before, "machine": machine()}
    out.write_text(json.dumps({**payload, "results": rows}, indent=2) + "\n", encoding="utf-8")
    print(markdown(rows))
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(sys.argv[2:])
    else:
        main(sys.argv[1:])
