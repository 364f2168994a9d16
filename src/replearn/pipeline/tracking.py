"""MLflow tracking with zero set-up that survives DVC's queued and temporary runs.

* Tracking URI: ``MLFLOW_TRACKING_URI`` when set; otherwise ``sqlite:///<root>/mlflow.db`` where
  ``<root>`` is ``$DVC_ROOT`` when DVC sets it. ``dvc exp run --queue``/``--temp`` run the stages in a
  temporary copy of the repository but point ``DVC_ROOT`` at the real one, so those runs land in the
  same database as ``dvc repro``. Artifacts go to ``<root>/mlartifacts``, set explicitly when the
  MLflow experiment is created.
* The database and the experiment are created once, under a file lock: two queue workers creating
  the SQLite schema at the same moment could corrupt it for good.
* One parent run per pipeline run, nested child runs per dataset x model with per-split scores as
  step metrics and the learning curves of the final fit (``curve_training_loss``, ...) per epoch;
  tags with the git commit, the DVC experiment name and a hash of the parameters. A run
  key (hash of the parameters and the results) makes a rerun without changes log nothing new.

mlflow is imported lazily and only in this module.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

RUN_KEY_TAG = "replearn.run_key"  # set when a run is completely logged
PENDING_KEY_TAG = "replearn.pending_run_key"  # set when logging starts
EXPERIMENT_KIND = "custom_model_development"  # MLflow 3's classic-ML view (not the GenAI view)
PARAMS_HASH_TAG = "replearn.params_hash"


@dataclass(frozen=True)
class TrackingTarget:
    tracking_uri: str
    artifact_root: Path | None
    lock_file: Path | None
    root: Path


def tracking_root(project_root: Path) -> Path:
    """``$DVC_ROOT`` when DVC runs the stage (the real repository, also for --queue/--temp), else the project root."""
    env = os.environ.get("DVC_ROOT")
    return Path(env).resolve() if env else Path(project_root).resolve()


def resolve_target(project_root: Path, configured_uri: str | None = None) -> TrackingTarget:
    root = tracking_root(project_root)
    uri = os.environ.get("MLFLOW_TRACKING_URI") or configured_uri
    if uri:
        return TrackingTarget(uri, None, None, root)
    return TrackingTarget(f"sqlite:///{root / 'mlflow.db'}", root / "mlartifacts", root / "mlflow.db.lock", root)


def params_hash(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


def flatten(d: dict, prefix: str = "") -> dict[str, str]:
    """``{"cv": {"folds": 5}}`` -> ``{"cv.folds": "5"}`` (lists become JSON strings)."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v if isinstance(v, str) else json.dumps(v, sort_keys=True)
    return out


def git_commit(cwd: Path) -> str | None:
    rev = os.environ.get("DVC_EXP_BASELINE_REV")
    if rev:
        return rev
    try:
        res = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() or None


def _client(target: TrackingTarget, experiment: str):
    """An MlflowClient and the experiment id, creating database and experiment once under a lock."""
    import mlflow  # noqa: F401  (lazy: only the report stage pays for the import)
    from filelock import FileLock
    from mlflow.tracking import MlflowClient

    def get_or_create():
        client = MlflowClient(tracking_uri=target.tracking_uri)
        exp = client.get_experiment_by_name(experiment)
        if exp is not None:
            if exp.tags.get("mlflow.experimentKind") is None:  # created by an older replearn
                client.set_experiment_tag(exp.experiment_id, "mlflow.experimentKind", EXPERIMENT_KIND)
            return client, exp.experiment_id
        location = target.artifact_root.as_uri() if target.artifact_root else None
        if target.artifact_root:
            target.artifact_root.mkdir(parents=True, exist_ok=True)
        return client, client.create_experiment(experiment, artifact_location=location,
                                                tags={"mlflow.experimentKind": EXPERIMENT_KIND})

    if target.lock_file is None:
        return get_or_create()
    target.lock_file.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.lock_file), timeout=300):
        return get_or_create()


def log_pipeline_run(
    *,
    params: dict,
    crossval: dict[str, dict],
    significance: dict,
    train_metrics: dict,
    artifacts: list[Path],
    project_root: Path,
    train_results: dict | None = None,
    extra_files: dict[str, str] | None = None,
) -> dict:
    """Log one pipeline run (parent + nested children). Returns ``{"status", "run_id", "tracking_uri"}``;
    status is "logged", "exists" (a complete run with the same run key is there) or "disabled".

    The run key is set on the parent only after everything is logged, so a run interrupted half-way is
    never taken for a complete one: a rerun marks such runs (tagged with the key as pending, still
    RUNNING) FAILED and logs a complete run. Any error while logging marks the parent and the child
    being logged FAILED before it is raised. Metrics carry the time they were logged; a score a model
    cannot give (None) is left out. ``extra_files`` (artifact name -> text) are logged as files too.
    """
    cfg = params["tracking"]
    if not cfg["enabled"]:
        return {"status": "disabled", "run_id": None, "tracking_uri": None}
    target = resolve_target(project_root, cfg.get("tracking_uri"))
    client, exp_id = _client(target, cfg["experiment"])
    phash = params_hash(params)
    run_key = hashlib.sha256(
        json.dumps({"params": params, "crossval": crossval, "significance": significance}, sort_keys=True).encode()
    ).hexdigest()[:24]
    existing = client.search_runs([exp_id], filter_string=f"tags.`{RUN_KEY_TAG}` = '{run_key}'", max_results=1)
    if existing:
        return {"status": "exists", "run_id": existing[0].info.run_id, "tracking_uri": target.tracking_uri}
    for stale in client.search_runs([exp_id], filter_string=f"tags.`{PENDING_KEY_TAG}` = '{run_key}'"):
        if stale.info.status == "RUNNING":  # an earlier attempt was killed while logging
            client.set_terminated(stale.info.run_id, status="FAILED")

    exp_name = os.environ.get("DVC_EXP_NAME")
    commit = git_commit(project_root)
    tags = {
        PENDING_KEY_TAG: run_key,
        PARAMS_HASH_TAG: phash,
        "mlflow.runName": exp_name or f"{params.get('experiment_name', 'run')}-{phash[:8]}",
        "replearn.experiment_name": str(params.get("experiment_name")),
    }
    if exp_name:
        tags["dvc.exp_name"] = exp_name
    if commit:
        tags["git.commit"] = commit
        tags["mlflow.source.git.commit"] = commit
    parent = client.create_run(exp_id, tags=tags)
    pid = parent.info.run_id
    current = [pid]
    try:
        _log_parent(client, pid, params, crossval, significance, artifacts, extra_files)
        for d, res in crossval.items():  # datasets in the configured order
            for key, m in sorted(res["models"].items()):
                child = client.create_run(exp_id, tags={
                    "mlflow.parentRunId": pid, "mlflow.runName": f"{d}/{key}", "replearn.dataset": d,
                    "replearn.model": m["registry_name"], PARAMS_HASH_TAG: phash,
                })
                current.append(child.info.run_id)
                _log_child(client, child.info.run_id, d, key, m, res, train_metrics, train_results)
                client.set_terminated(child.info.run_id)
                current.pop()
        client.set_tag(pid, RUN_KEY_TAG, run_key)  # complete: a rerun with the same results logs nothing
        client.set_terminated(pid)
    except BaseException:
        for run_id in reversed(current):
            try:
                client.set_terminated(run_id, status="FAILED")
            except Exception:  # the store itself may be what failed; the original error matters more
                pass
        raise
    return {"status": "logged", "run_id": pid, "tracking_uri": target.tracking_uri}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _log_parent(client, pid, params, crossval, significance, artifacts, extra_files) -> None:
    from mlflow.entities import Metric

    now = _now_ms()
    metrics = []
    for d, res in crossval.items():
        for key, m in res["models"].items():
            for metric, values in m["scores"].items():
                mean = _mean(values)
                if mean is not None:
                    metrics.append(Metric(f"{d}.{key}.cv_{metric}_mean", mean, now, 0))
    across = significance.get("across_datasets", {})
    if across.get("ran"):
        metrics.append(Metric("friedman_pvalue", float(across["friedman"]["pvalue"]), now, 0))
        metrics.append(Metric("nemenyi_cd", float(across["nemenyi"]["cd"]), now, 0))
    _log_batch(client, pid, flatten(dict(params)), metrics)
    for path in artifacts:
        path = Path(path)
        if path.is_dir():
            client.log_artifacts(pid, str(path), artifact_path=path.name)
        elif path.is_file():
            client.log_artifact(pid, str(path))
    for name, text in (extra_files or {}).items():
        client.log_text(pid, text, name)


def _log_child(client, run_id, d, key, m, res, train_metrics, train_results) -> None:
    from mlflow.entities import Metric

    now = _now_ms()
    cparams = {"dataset": d, "model": m["registry_name"], **flatten(m["params"] or {}, "params.")}
    cparams.update({f"cv.{k}": str(v) for k, v in res["scheme"].items()})
    metrics = []
    for metric, values in m["scores"].items():
        mean = _mean(values)
        if mean is not None:
            metrics.append(Metric(f"cv_{metric}_mean", mean, now, 0))
        metrics.extend(Metric(f"cv_{metric}", float(v), now, i) for i, v in enumerate(values) if v is not None)
    for part, vals in train_metrics.get(d, {}).get(key, {}).items():
        metrics.extend(Metric(f"{part}_{k}", float(v), now, 0) for k, v in vals.items() if v is not None)
    # learning curves of the final fit (training/validation loss per epoch, EM log-likelihood, ...)
    curves = (train_results or {}).get(d, {}).get("models", {}).get(key, {}).get("figures", {}).get("curves", {})
    for label, values in curves.items():
        name = "curve_" + label.replace(" ", "_").replace("-", "_")
        metrics.extend(Metric(name, float(v), now, i) for i, v in enumerate(values) if v is not None)
    _log_batch(client, run_id, cparams, metrics)


def _mean(values) -> float | None:
    """The mean of the scores a model could give; None when it gave none (e.g. k-means' likelihood)."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _log_batch(client, run_id: str, params: dict, metrics: list) -> None:
    from mlflow.entities import Param

    items = [Param(k, str(v)[:6000]) for k, v in sorted(params.items())]
    for i in range(0, len(items), 100):
        client.log_batch(run_id, params=items[i : i + 100])
    for i in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[i : i + 1000])


def ui_command(project_root: Path, port: int = 5000) -> list[str]:
    """The ``mlflow ui`` command line for this project's store, bound to 127.0.0.1 only."""
    target = resolve_target(project_root)
    return ["mlflow", "ui", "--backend-store-uri", target.tracking_uri, "--host", "127.0.0.1", "--port", str(port)]
