"""MLflow tracking with zero set-up that survives DVC's queued and temporary runs.

* Tracking URI: ``MLFLOW_TRACKING_URI`` when set; otherwise ``sqlite:///<root>/mlflow.db`` where
  ``<root>`` is ``$DVC_ROOT`` when DVC sets it. ``dvc exp run --queue``/``--temp`` run the stages in a
  temporary copy of the repository but point ``DVC_ROOT`` at the real one, so those runs land in the
  same database as ``dvc repro``. Artifacts go to ``<root>/mlartifacts``, set explicitly when the
  MLflow experiment is created.
* The database and the experiment are created once, under a file lock: two queue workers creating
  the SQLite schema at the same moment could corrupt it for good.
* One parent run per pipeline run, nested child runs per dataset x model; tags with the git commit,
  the run source (``mlflow.source.name/type/git.commit``), the DVC experiment name and a hash of the
  parameters. A run key (hash of the parameters and the results) makes a rerun without changes log
  nothing new.
* **One metric name means one thing across runs.** The dataset and the model are params and tags of a
  child run, never part of a metric name. A child holds ``cv.<metric>.mean`` and ``cv.<metric>.std``
  (sample standard deviation over the replicates, as in ``metrics/crossval.json``), ``cv.<metric>``
  per replicate as step metrics, ``train.<metric>`` and ``test.<metric>`` of the final fit, and the
  learning curves of the final fit (``curve.training_loss``, ...) per epoch. The parent holds only an
  overview: the table ``overview.json`` (one row per dataset x model x metric) and a handful of
  metrics (``n_datasets``, ``n_models``, ``friedman.pvalue``, ``nemenyi.cd``).
* Each child logs its dataset as an MLflow dataset input (name, digest = sha256 of the prepared
  training part, source) and its fitted model as an MLflow Model defined by code
  (``pipeline/tracking_model.py``; the ``.npz`` + ``.json`` files of the train stage are its
  artifacts, with a signature and an input example from the sealed test features): it loads with
  ``mlflow.pyfunc.load_model`` and serves with ``mlflow models serve``, and nothing is pickled.

mlflow is imported lazily, in this module and in ``pipeline/tracking_model.py`` (the model definition
that MLflow executes by path; nothing imports it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import time
from contextlib import contextmanager
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


def resolve_target(project_root: Path, configured_uri: str | None = None, *, server: bool = False) -> TrackingTarget:
    """Where runs go. ``server`` (``tracking=server``): an MLflow server, whose address is
    ``MLFLOW_TRACKING_URI``, else ``configured_uri``, else the one ``make services`` wrote to its env file;
    no local file lock is used against a server (it has its own concurrency)."""
    root = tracking_root(project_root)
    uri = os.environ.get("MLFLOW_TRACKING_URI") or configured_uri
    if not uri and server:
        from ..exceptions import ServiceError
        from .service_env import env_path, read

        uri = read(root).get("MLFLOW_TRACKING_URI")
        if not uri:
            raise ServiceError(
                "tracking=server needs the address of an MLflow server: set MLFLOW_TRACKING_URI or "
                f"tracking.tracking_uri, or start the local stack with `make services` (it writes {env_path(root)}); "
                "or run with tracking=mlflow (a local SQLite file) or tracking=off"
            )
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
        res = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() or None


# -- issue 17 §5: bounded waits for an unreachable tracking server (helper owned by the faults work) ------
#: MLflow's defaults retry an unreachable server for minutes; the report stage waits this long instead
#: unless the user sets the variables (MLflow reads them on every request).
HTTP_DEFAULTS = {"MLFLOW_HTTP_REQUEST_TIMEOUT": "10", "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2"}


def http_timeouts(environ=os.environ) -> dict[str, str]:
    """Set :data:`HTTP_DEFAULTS` in ``environ`` where the user has not; return what was set."""
    added = {k: v for k, v in HTTP_DEFAULTS.items() if k not in environ}
    environ.update(added)
    return added


def unreachable_message(uri: str, exc: BaseException) -> str | None:
    """A clear cause when ``exc`` says the tracking server at an http(s) ``uri`` could not be reached."""
    if not str(uri).startswith(("http://", "https://")):
        return None
    text = f"{type(exc).__name__}: {exc}"
    needles = (
        "Max retries exceeded",
        "Connection refused",
        "Failed to establish",
        "timed out",
        "ConnectionError",
        "Read timed out",
        "NameResolution",
    )
    if not any(n in text for n in needles):
        return None
    return (
        f"the MLflow tracking server {uri} cannot be reached ({text.splitlines()[0][:200]}); the local results "
        "(results/, metrics/, reports/) are intact. Start the server, point MLFLOW_TRACKING_URI or "
        "tracking.tracking_uri elsewhere, or set tracking.enabled=false; MLFLOW_HTTP_REQUEST_TIMEOUT and "
        "MLFLOW_HTTP_REQUEST_MAX_RETRIES bound the wait"
    )


# -- end of issue 17 §5 helper ---------------------------------------------------------------------------


#: seconds to wait for an MLflow server's /health before reporting it down (tracking=server)
HEALTH_TIMEOUT_S = 5


def check_server(uri: str, timeout: float | None = None) -> None:
    """Raise :class:`~replearn.exceptions.ServiceError` unless the MLflow server at ``uri`` answers ``/health``."""
    import urllib.error
    import urllib.request

    from ..exceptions import ServiceError

    if not str(uri).startswith(("http://", "https://")):
        return  # a database URI (MLflow's own store): nothing to probe
    url = str(uri).rstrip("/") + "/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout or HEALTH_TIMEOUT_S) as res:  # http(s) only, checked above
            if res.status == 200:
                return
            problem = f"HTTP {res.status}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
    raise ServiceError(
        f"the MLflow tracking server {uri} does not answer ({problem}, waited at most "
        f"{timeout or HEALTH_TIMEOUT_S} s); nothing was logged, and the local results (results/, metrics/, "
        "reports/) are intact. Start it (`make services` for the local stack), point MLFLOW_TRACKING_URI or "
        "tracking.tracking_uri at a running one, or run with tracking=mlflow or tracking=off"
    )


def _client(target: TrackingTarget, experiment: str):
    """An MlflowClient and the experiment id, creating database and experiment once under a lock."""
    http_timeouts()
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
        return client, client.create_experiment(
            experiment, artifact_location=location, tags={"mlflow.experimentKind": EXPERIMENT_KIND}
        )

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
    target = resolve_target(project_root, cfg.get("tracking_uri"), server=bool(cfg.get("server")))
    if cfg.get("server"):
        check_server(target.tracking_uri)  # a server that is down: a clear error before any run is created
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
    source = source_tags(target.root, commit)
    tags = {
        PENDING_KEY_TAG: run_key,
        PARAMS_HASH_TAG: phash,
        "mlflow.runName": exp_name or f"{params.get('experiment_name', 'run')}-{phash[:8]}",
        "replearn.experiment_name": str(params.get("experiment_name")),
        **source,
    }
    if exp_name:
        tags["dvc.exp_name"] = exp_name
    if commit:
        tags["git.commit"] = commit
    parent = client.create_run(exp_id, tags=tags)
    pid = parent.info.run_id
    current = [pid]
    try:
        _log_parent(client, pid, params, crossval, significance, train_metrics, artifacts, extra_files)
        for d, res in crossval.items():  # datasets in the configured order
            for key, m in sorted(res["models"].items()):
                child = client.create_run(
                    exp_id,
                    tags={
                        "mlflow.parentRunId": pid,
                        "mlflow.runName": f"{d}/{key}",
                        "replearn.dataset": d,
                        "replearn.model": m["registry_name"],
                        "replearn.model_key": key,
                        PARAMS_HASH_TAG: phash,
                        **source,
                        **_family_tags(res, m),
                    },
                )
                current.append(child.info.run_id)
                _log_child(client, child.info.run_id, d, key, m, res, train_metrics, train_results)
                if res.get("family"):
                    _log_family_timing(client, child.info.run_id, Path(project_root), d, key)
                else:
                    _log_dataset_and_model(client, child.info.run_id, target, Path(project_root), d, key)
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


def source_tags(repository: Path, commit: str | None) -> dict[str, str]:
    """MLflow's run source: the repository path, its commit, and "PROJECT" (a git checkout) or "LOCAL"."""
    tags = {"mlflow.source.name": str(repository), "mlflow.source.type": "PROJECT" if commit else "LOCAL"}
    if commit:
        tags["mlflow.source.git.commit"] = commit
    return tags


def _now_ms() -> int:
    return int(time.time() * 1000)


def overview_rows(crossval: dict, train_metrics: dict) -> list[dict]:
    """One row per dataset x model x metric: CV mean and standard deviation, train and test score."""
    rows = []
    for d, res in crossval.items():
        primary = res.get("primary_metric")
        for key, m in sorted(res["models"].items()):
            final = train_metrics.get(d, {}).get(key, {})
            for metric, values in m["scores"].items():
                rows.append(
                    {
                        "dataset": d,
                        "model": key,
                        "registry_name": m["registry_name"],
                        "metric": metric,
                        "primary": metric == primary,
                        "cv_mean": _mean(values),
                        "cv_std": _std(values),
                        "train": final.get("train", {}).get(metric),
                        "test": final.get("test", {}).get(metric),
                    }
                )
    return rows


def _log_parent(client, pid, params, crossval, significance, train_metrics, artifacts, extra_files) -> None:
    from mlflow.entities import Metric

    now = _now_ms()
    keys = {key for res in crossval.values() for key in res["models"]}
    metrics = [Metric("n_datasets", float(len(crossval)), now, 0), Metric("n_models", float(len(keys)), now, 0)]
    across = significance.get("across_datasets", {})
    if across.get("ran"):
        metrics.append(Metric("friedman.pvalue", float(across["friedman"]["pvalue"]), now, 0))
        metrics.append(Metric("nemenyi.cd", float(across["nemenyi"]["cd"]), now, 0))
    _log_batch(client, pid, flatten(dict(params)), metrics)
    rows = overview_rows(crossval, train_metrics)
    if rows:  # a table in MLflow's artifact view (columns -> values), instead of one chart per dataset x model
        client.log_table(pid, {c: [r[c] for r in rows] for c in rows[0]}, "overview.json")
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
    cparams = {"dataset": d, "model": m["registry_name"], "model_key": key, **flatten(m["params"] or {}, "params.")}
    cparams.update({f"cv.{k}": str(v) for k, v in res["scheme"].items()})
    metrics = []
    for metric, values in m["scores"].items():
        for stat, value in (("mean", _mean(values)), ("std", _std(values))):
            if value is not None:
                metrics.append(Metric(f"cv.{metric}.{stat}", value, now, 0))
        metrics.extend(Metric(f"cv.{metric}", float(v), now, i) for i, v in enumerate(values) if v is not None)
        # a sweep: the mean at each point of the axis, as a step metric along the axis (step = point index)
        if (res.get("scheme") or {}).get("design") == "sweep":
            points = list(res["scheme"].get("values") or [])
            at = [s.get("point") for s in res.get("splits") or []]
            for j, point in enumerate(points):
                mean = _mean([v for v, p in zip(values, at) if p == point])
                if mean is not None:
                    metrics.append(Metric(f"sweep.{metric}.mean", mean, now, j))
    for part, vals in train_metrics.get(d, {}).get(key, {}).items():
        metrics.extend(Metric(f"{part}.{k}", float(v), now, 0) for k, v in vals.items() if v is not None)
    # learning curves of the final fit (training/validation loss per epoch, EM log-likelihood, ...)
    curves = (train_results or {}).get(d, {}).get("models", {}).get(key, {}).get("figures", {}).get("curves", {})
    for label, values in curves.items():
        name = "curve." + label.replace(" ", "_").replace("-", "_")
        metrics.extend(Metric(name, float(v), now, i) for i, v in enumerate(values) if v is not None)
    _log_batch(client, run_id, cparams, metrics)


def _family_tags(res: dict, m: dict) -> dict[str, str]:
    """Tags of a child run on an experiment family's problem: the family, and why no MLflow Model is logged."""
    fam = res.get("family")
    if not fam:
        return {}
    return {
        "replearn.family": str(fam.get("name")),
        "replearn.mlflow_model": f"none: {m['registry_name']} is a {fam.get('name')} unit, not an estimator "
        "(no fitted model to save; its scores and curves are the run's metrics)",
    }


def _log_family_timing(client, run_id: str, root: Path, d: str, key: str) -> None:
    """Wall-clock seconds of a family unit per replicate (``time.<label>`` steps and mean), MLflow only.

    The crossval stage leaves them in ``results/timing/<dataset>.json``, which is no DVC output and no
    record (outputs stay byte-identical on rerun); a missing file (crossval not rerun here) logs nothing.
    """
    from mlflow.entities import Metric

    from . import paths

    path = root / paths.TIMING / f"{d}.json"
    if not path.is_file():
        return
    try:
        per_key = json.loads(path.read_text(encoding="utf-8")).get(key) or {}
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        return
    now = _now_ms()
    metrics: list = []
    for label, values in sorted(per_key.items()):
        name = "time." + "".join(c if c.isalnum() or c in "_-." else "_" for c in label)
        metrics.extend(Metric(name, float(v), now, i) for i, v in enumerate(values))
        if values:
            metrics.append(Metric(f"{name}.mean", float(sum(values) / len(values)), now, 0))
    _log_batch(client, run_id, {}, metrics)


#: the MLflow Model definition (models-from-code): MLflow runs this file by path; nothing imports it
MODEL_CODE = Path(__file__).with_name("tracking_model.py")
N_EXAMPLE_ROWS = 5


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _log_dataset_and_model(client, run_id, target: TrackingTarget, root: Path, d: str, key: str) -> None:
    """The dataset as a run input, the fitted model as an MLflow Model (where the pipeline's files exist)."""
    from . import paths

    prepared = root / paths.PREPARED / d / "train.npz"
    if prepared.is_file():
        log_dataset_input(client, run_id, d, prepared, paths.PREPARED / d / "train.npz")
    stem = root / paths.MODELS / d / key
    features = root / paths.FEATURES / d / "test.npz"
    if stem.with_suffix(".npz").is_file() and stem.with_suffix(".json").is_file() and features.is_file():
        log_model(run_id, target.tracking_uri, stem, features)


def log_dataset_input(client, run_id: str, name: str, path: Path, source: Path) -> None:
    """Log ``path`` (a prepared training part: npz with X, y) as the run's training dataset input."""
    import numpy as np
    from mlflow.entities import Dataset, DatasetInput, InputTag

    digest = _sha256(path)
    with np.load(path, allow_pickle=False) as data:
        X = data["X"]
        profile = {"num_rows": int(X.shape[0]), "num_features": int(X.shape[1]) if X.ndim == 2 else 1}
    ds = Dataset(
        name=name,
        digest=digest[:32],
        source_type="local",  # the store holds digests of <= 36 chars
        source=json.dumps({"uri": source.as_posix()}),
        profile=json.dumps(profile),
    )
    client.log_inputs(
        run_id,
        datasets=[
            DatasetInput(ds, tags=[InputTag("mlflow.data.context", "train"), InputTag("replearn.sha256", digest)])
        ],
    )


def log_model(run_id: str, tracking_uri: str, stem: Path, features: Path):
    """Log the model saved at ``stem`` (.npz + .json) to run ``run_id`` as an MLflow Model defined by code.

    The signature and the input example come from the first rows of ``features`` (the sealed test part
    as the model sees it: after the feature maps). Requirements name mlflow, numpy and scipy; replearn
    itself is not on a package index, so serve from the project's environment (``--env-manager local``).
    Returns MLflow's model info.
    """
    import mlflow
    import numpy as np
    import scipy
    from mlflow.models import infer_signature

    from ..persistence import load_model

    with np.load(features, allow_pickle=False) as data:
        example = np.asarray(data["X"][:N_EXAMPLE_ROWS], dtype=float)
    model = load_model(stem)
    output = (model.predict if hasattr(model, "predict") else model.transform)(example)
    requirements = [f"mlflow=={mlflow.__version__}", f"numpy=={np.__version__}", f"scipy=={scipy.__version__}"]
    quiet = logging.getLogger("mlflow.pyfunc")  # "Validating input example against model signature", per model
    level = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        with _tracking_uri(tracking_uri), mlflow.start_run(run_id=run_id):
            return mlflow.pyfunc.log_model(
                name="model",
                python_model=str(MODEL_CODE),
                # the names tracking_model.ReplearnModel.load_context reads
                artifacts={"npz": str(stem.with_suffix(".npz")), "json": str(stem.with_suffix(".json"))},
                signature=infer_signature(example, np.asarray(output)),
                input_example=example,
                pip_requirements=requirements,
            )
    finally:
        quiet.setLevel(level)


@contextmanager
def _tracking_uri(uri: str):
    """Point MLflow's fluent API (which ``log_model`` uses) at ``uri`` for a while, then back."""
    import mlflow
    from mlflow.tracking._tracking_service import utils

    quiet = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR" not in os.environ  # no progress bars in the stage's log
    if quiet:
        os.environ["MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"] = "false"
    try:
        use = getattr(utils, "_use_tracking_uri", None)
        if use is None:  # not in this MLflow version: point it there for the rest of the (stage) process
            mlflow.set_tracking_uri(uri)
            yield
        else:
            with use(uri):
                yield
    finally:
        if quiet:
            os.environ.pop("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", None)


def _mean(values) -> float | None:
    """The mean of the scores a model could give; None when it gave none (e.g. k-means' likelihood)."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _std(values) -> float | None:
    """Sample standard deviation (ddof=1, as in metrics/crossval.json); 0 for one score, None for none."""
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return None
    if len(vals) == 1:
        return 0.0
    mean = sum(vals) / len(vals)
    return (sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5


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
