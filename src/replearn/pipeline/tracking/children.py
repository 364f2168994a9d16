"""The child runs (one per dataset x model) and the parent's overview: what each logs (params, the metrics of
cross-validation, the final fit and its curves, the wall-clock times, the tags), and the task that logs a large
run's children in the worker processes beside the report stage (:func:`log_children`, run by
:class:`~replearn.pipeline.workers.SharedWork`)."""

from __future__ import annotations

import functools
import time
from pathlib import Path

from .. import designs, kinds, records
from .model import _log_dataset_and_model
from .store import PARAMS_HASH_TAG, _relax_sync, _sqlite_path, flatten, http_timeouts


def _log_child_run(client, frame: dict, job: dict, root: Path, current: list[str]) -> None:
    """One child run: created, logged, terminated; its id is on ``current`` while it is being logged."""
    d, key, m, res = job["dataset"], job["key"], job["model"], job["result"]
    child = client.create_run(
        frame["experiment_id"],
        tags={
            "mlflow.parentRunId": frame["parent_run_id"],
            "mlflow.runName": f"{d}/{key}",
            "replearn.dataset": d,
            "replearn.model": m["registry_name"],
            "replearn.model_key": key,
            PARAMS_HASH_TAG: frame["phash"],
            **frame["source"],
            **_family_tags(res, m),
            **_unlogged_model_tag(frame, res, d, key),
            **(job.get("tags") or {}),
        },
    )
    current.append(child.info.run_id)
    timing = _timing_metrics(root, d, key)
    _log_child(client, child.info.run_id, d, key, m, res, job["train_metrics"], job["train_results"], timing)
    if kinds.of_record(res).fits_estimators:  # its dataset and fitted model as MLflow inputs
        cparams = child_params(d, key, m, res)
        _log_dataset_and_model(
            client,
            child.info.run_id,
            frame["experiment_id"],
            root,
            d,
            key,
            cparams,
            job.get("example_output"),
            model=frame.get("log_models", True),
        )
    client.set_terminated(child.info.run_id)
    current.pop()


#: child runs per task of the shared work (:func:`log_children`): small enough that the processes end together
CHUNK_SIZE = 4
#: the MLflow client this process logs a parent run's children with, by (store, parent run id)
#: (:func:`_store_client`): a worker process opens one per run for all the chunks it takes (a reused worker never
#: logs with a client of an earlier run's store); the process that starts the run registers its own
#: (:func:`use_client`) and drops it when the run ends
_CLIENTS: dict[tuple[str, str], object] = {}


def warm() -> None:
    """What a worker process does while the run is being prepared (``SharedWork(warm=...)``): MLflow's HTTP
    timeouts, and the import of mlflow and its client class (~1.5 s)."""
    http_timeouts()
    from mlflow.tracking import MlflowClient  # noqa: F401


def use_client(tracking_uri: str, parent_id: str, client) -> None:
    """Log the chunks of parent run ``parent_id`` this process takes to ``tracking_uri`` with ``client`` (the one
    that created the run); ``client=None``: forget it (the run has ended)."""
    if client is None:
        _CLIENTS.pop((tracking_uri, parent_id), None)
    else:
        _CLIENTS[(tracking_uri, parent_id)] = client


def _store_client(tracking_uri: str, parent_id: str, sqlite: bool):
    key = (tracking_uri, parent_id)
    if key not in _CLIENTS:
        from mlflow.tracking import MlflowClient

        http_timeouts()
        if sqlite:
            _relax_sync(_sqlite_path(tracking_uri))
        for old in [k for k in _CLIENTS if k[0] == tracking_uri]:  # an earlier run's, in a reused worker
            del _CLIENTS[old]
        _CLIENTS[key] = MlflowClient(tracking_uri=tracking_uri)
    return _CLIENTS[key]


def log_children(store: dict, frame: dict, jobs: list[dict]) -> int:
    """One task of the shared work (:class:`~replearn.pipeline.workers.SharedWork`) that logs a large run's
    children beside the report stage, in whichever process takes it: the child runs ``jobs`` of the parent run
    ``frame``, to ``store`` (``tracking_uri``, ``sqlite``, the project ``root``). Which process logs a run
    changes nothing in it. A child that fails is marked FAILED and raises
    :class:`~replearn.exceptions.TrackingError` naming the cause (it crosses process boundaries intact); returns
    the number of runs logged."""
    from ...exceptions import TrackingError

    client = _store_client(store["tracking_uri"], frame["parent_run_id"], store["sqlite"])
    current: list[str] = []
    try:
        for job in jobs:
            _log_child_run(client, frame, job, Path(store["root"]), current)
    except BaseException as exc:
        for run_id in reversed(current):
            try:
                client.set_terminated(run_id, status="FAILED")
            except Exception:  # the store itself may be what failed; the original error matters more
                pass
        if isinstance(exc, TrackingError):
            raise
        cause = f"{type(exc).__name__}: {exc}".replace("\n", " ")
        raise TrackingError(f"a process logging child runs failed: {cause}") from exc
    return len(jobs)


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


def _log_parent(client, pid, params, crossval, significance, train_metrics) -> None:
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


def _log_artifacts(client, pid: str, artifacts) -> None:
    """Files and folders (a folder under its own name) as artifacts of run ``pid``; missing ones are skipped."""
    for path in artifacts:
        path = Path(path)
        if path.is_dir():
            client.log_artifacts(pid, str(path), artifact_path=path.name)
        elif path.is_file():
            client.log_artifact(pid, str(path))


def _log_child(client, run_id, d, key, m, res, train_metrics, train_results, extra_metrics=()) -> None:
    """Params and metrics of a child run in one ``log_batch`` (where MLflow's limits allow), ``extra_metrics``
    (its wall-clock seconds, :func:`_timing_metrics`) included."""
    from mlflow.entities import Metric

    now = _now_ms()
    cparams = child_params(d, key, m, res)
    metrics = []
    for metric, values in m["scores"].items():
        for stat, value in (("mean", _mean(values)), ("std", _std(values))):
            if value is not None:
                metrics.append(Metric(f"cv.{metric}.{stat}", value, now, 0))
        metrics.extend(Metric(f"cv.{metric}", float(v), now, i) for i, v in enumerate(values) if v is not None)
        # a sweep: the mean at each point of the axis, as a step metric along the axis (step = point index)
        if designs.of_scheme(res.get("scheme")).has_points:
            points = list(res["scheme"].get("values") or [])
            at = [s.get("point") for s in res.get("splits") or []]
            for j, point in enumerate(points):
                mean = _mean([v for v, p in zip(values, at) if p == point])
                if mean is not None:
                    metrics.append(Metric(f"sweep.{metric}.mean", mean, now, j))
    if kinds.of_record(res).fits_estimators:  # fits that failed under cv.on_error: record (scores left out above)
        metrics.append(Metric("cv.failed_fits", float(len(m.get("failures") or [])), now, 0))
    for part, vals in train_metrics.get(d, {}).get(key, {}).items():
        metrics.extend(Metric(f"{part}.{k}", float(v), now, 0) for k, v in vals.items() if v is not None)
    # learning curves of the final fit (training/validation loss per epoch, EM log-likelihood, ...)
    curves = (train_results or {}).get(d, {}).get("models", {}).get(key, {}).get("figures", {}).get("curves", {})
    for label, values in curves.items():
        name = "curve." + label.replace(" ", "_").replace("-", "_")
        steps = curve_steps(len(values))
        metrics.extend(Metric(name, float(values[i]), now, i) for i in steps if values[i] is not None)
    _log_batch(client, run_id, cparams, [*metrics, *extra_metrics])


#: at most this many points of a learning curve go to MLflow (the UI draws a sampled history anyway)
MAX_CURVE_POINTS = 100


def curve_steps(n: int, limit: int = MAX_CURVE_POINTS) -> list[int]:
    """The steps of an ``n``-point learning curve logged to MLflow: all of them up to ``limit``, else ``limit``
    steps evenly spaced from the first to the last (each logged at its own step, so the x-axis stays the
    iteration or epoch). A solver's per-iteration objective runs to thousands of points (the RBF SVM's 6,115
    on a KEEL dataset): logging them all made those curves 63 % of a benchmark's metric rows and of its
    ``log_batch`` time. The whole curve stays in ``results/train/<dataset>.json`` and the report."""
    if n <= limit:
        return list(range(n))
    return sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})


def child_params(d: str, key: str, m: dict, res: dict) -> dict[str, str]:
    """The params of a child run (and of its logged model): dataset, model, hyperparameters, CV scheme."""
    cparams = {"dataset": d, "model": m["registry_name"], "model_key": key, **flatten(m["params"] or {}, "params.")}
    cparams.update({f"cv.{k}": str(v) for k, v in res["scheme"].items()})
    return cparams


def _unlogged_model_tag(frame: dict, res: dict, d: str, key: str) -> dict[str, str]:
    """With ``tracking.log_models: false``: a tag on each estimator's child run saying where its fitted model is."""
    if frame.get("log_models", True) or not kinds.of_record(res).fits_estimators:
        return {}
    return {
        "replearn.mlflow_model": f"not logged (tracking.log_models: false); the fitted model is models/{d}/{key}.npz "
        "and .json, an output of the DVC train stage"
    }


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


def _timing_metrics(root: Path, d: str, key: str) -> list:
    """Wall-clock seconds per replicate, MLflow only: ``time.<label>`` steps, their mean and median.

    For a model, ``time.fit_seconds`` and ``time.predict_seconds`` (a failed fit has none); for a family's unit
    its own labels. The crossval stage leaves them in ``timing/<dataset>.json`` (a
    :class:`~replearn.pipeline.records.Timing`, no DVC output: outputs stay byte-identical on rerun); a missing
    file (crossval not rerun here) logs nothing.
    """
    from mlflow.entities import Metric

    from .. import paths

    path = root / paths.TIMING / f"{d}.json"
    now = _now_ms()
    metrics: list = []
    for label, values in sorted(_read_timing(str(path), *_stat_key(path)).labels(key).items()):
        name = "time." + "".join(c if c.isalnum() or c in "_-." else "_" for c in label)
        metrics.extend(Metric(name, float(v), now, i) for i, v in enumerate(values) if v is not None)
        done = sorted(float(v) for v in values if v is not None)
        if done:
            metrics.append(Metric(f"{name}.mean", sum(done) / len(done), now, 0))
            mid = len(done) // 2
            median = done[mid] if len(done) % 2 else (done[mid - 1] + done[mid]) / 2
            metrics.append(Metric(f"{name}.median", median, now, 0))
    return metrics


def _stat_key(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _read_timing(path: str, mtime_ns: int, size: int) -> records.Timing:
    """``timing/<dataset>.json`` read once per version of it (every model of the dataset needs it); empty when
    missing (crossval not rerun here). The report stage has read it before (and refused a broken one), so a file
    broken since then only costs the times."""
    try:
        return records.read_timing(Path(path))
    except (OSError, records.ResultSchemaError):
        return records.Timing.empty()


#: the MLflow Model definition (models-from-code): MLflow runs this file by path; nothing imports it


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
    """Params and metrics in as few ``log_batch`` calls as MLflow's limits allow (100 params, 1000 entities
    per call): one call (one commit) for a typical run instead of one for the params and one for the metrics."""
    from mlflow.entities import Param

    items = [Param(k, str(v)[:6000]) for k, v in sorted(params.items())]
    metrics = list(metrics)
    while items or metrics:
        batch, items = items[:100], items[100:]
        room = 1000 - len(batch)
        client.log_batch(run_id, params=batch, metrics=metrics[:room])
        metrics = metrics[room:]
