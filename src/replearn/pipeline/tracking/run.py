"""A pipeline run: the parent run of one ``dvc repro`` (:func:`start_pipeline_run`, :class:`PipelineRun`), its run key
and verdict tags, and how many processes log its children."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..workers import SharedWork
from .children import (
    CHUNK_SIZE,
    _log_artifacts,
    _log_child_run,
    _log_parent,
    log_children,
    source_tags,
    use_client,
    warm,
)
from .model import N_EXAMPLE_ROWS
from .store import (
    OWNER_TAG,
    PARAMS_HASH_TAG,
    PENDING_KEY_TAG,
    RUN_KEY_TAG,
    _client,
    _gc_paused,
    _owner,
    _register_exit_hook,
    _sqlite_path,
    _store_faults,
    check_server,
    check_store,
    git_commit,
    logged_run_id,
    params_hash,
    pipeline_run_key,
    resolve_target,
    stale_runs,
    uri_source,
)


def log_pipeline_run(
    *,
    params: dict,
    crossval: dict[str, dict],
    significance: dict,
    train_metrics: dict,
    artifacts: list[Path],
    project_root: Path,
    train_results: dict | None = None,
    verdicts: Callable[[], dict] | dict | None = None,
    extra_files: dict | None = None,
) -> dict:
    """Log one pipeline run (parent + nested children). Returns ``{"status", "run_id", "tracking_uri"}``;
    status is "logged", "exists" (a complete run with the same run key is there) or "disabled".

    :func:`start_pipeline_run` then :meth:`PipelineRun.finish` with ``artifacts`` and ``extra_files``: the report
    stage calls the two itself, writing its reports in between while other processes log the child runs.
    """
    run = start_pipeline_run(
        params=params,
        crossval=crossval,
        significance=significance,
        train_metrics=train_metrics,
        project_root=project_root,
        train_results=train_results,
        verdicts=verdicts,
    )
    return run.finish(artifacts, extra_files)


@_gc_paused()
def start_pipeline_run(
    *,
    params: dict,
    crossval: dict[str, dict],
    significance: dict,
    train_metrics: dict,
    project_root: Path,
    train_results: dict | None = None,
    verdicts: Callable[[], dict] | dict | None = None,
) -> PipelineRun:
    """Begin logging one pipeline run; :meth:`PipelineRun.finish` completes it (or :meth:`PipelineRun.abort`).

    Nothing is logged when tracking is off (status "disabled") or a complete run with the same run key is there
    ("exists"). For a large run (several logging processes: :func:`_child_workers`) the parent run is created now
    with its params, metrics and overview table, and the child runs are handed to the worker processes, which log
    them while the caller does other work (the report stage writes its reports); ``finish`` logs the artifacts and
    joins in. A small run is logged by ``finish`` alone (status "pending" until then).

    ``verdicts`` (a callable, called only when a run is logged, or its result): the report's verdict lines as
    tags of the parent and of each child run, computed by the caller from its typed records (the report stage:
    :func:`replearn.pipeline.report.summary.verdict_tags`), so tracking never rebuilds a record; None: no verdict tags.

    The run key is set on the parent only after everything is logged, so a run interrupted half-way is
    never taken for a complete one: a rerun marks such runs (tagged with the key as pending, still
    RUNNING) FAILED and logs a complete run. Any error while logging marks the parent and the child
    being logged FAILED before it is raised. Metrics carry the time they were logged; a score a model
    cannot give (None) is left out.
    """
    cfg = params["tracking"]
    if not cfg["enabled"]:
        return PipelineRun("disabled")
    target = resolve_target(project_root, cfg.get("tracking_uri"), server=bool(cfg.get("server")))
    check_store(target.tracking_uri, uri_source(cfg.get("tracking_uri")))  # a file where the store should be
    if cfg.get("server"):
        check_server(target.tracking_uri)  # a server that is down: a clear error before any run is created
    phash = params_hash(params)
    run_key = pipeline_run_key(params, crossval, significance)
    if target.lock_file is not None:  # the project's SQLite file: an unchanged rerun needs no MLflow at all
        done = logged_run_id(_sqlite_path(target.tracking_uri), cfg["experiment"], run_key)
        if done:
            return PipelineRun("exists", done, target.tracking_uri)
    run = PipelineRun("pending", None, target.tracking_uri)
    run._begin_args = {
        "target": target,
        "experiment": cfg["experiment"],
        "log_models": cfg.get("log_models", True) is not False,  # absent (params from before it): logged
        "params": params,
        "crossval": crossval,
        "significance": significance,
        "train_metrics": train_metrics,
        "train_results": train_results,
        "verdicts": verdicts,
        "project_root": Path(project_root),
        "run_key": run_key,
        "phash": phash,
    }
    run._workers = _child_workers(sum(len(res["models"]) for res in crossval.values()))
    if run._workers > 1:  # a large run: its children are logged from now on, beside the caller's work
        run._begin()
    return run


def _cancel(extra_files: dict) -> None:
    """Stop the work started for ``extra_files`` (e.g. :class:`~replearn.pipeline.lockfile.FinalLockText`)."""
    for value in extra_files.values():
        if hasattr(value, "cancel"):
            value.cancel()


class PipelineRun:
    """A pipeline run to log (:func:`start_pipeline_run`), completed by :meth:`finish` or abandoned by :meth:`abort`.

    ``status``: "disabled" or "exists" (nothing to log); "logging" (a large run: the parent run exists and worker
    processes are logging its children); "pending" (a small run: nothing is logged before :meth:`finish`, which
    starts the files logged last -- the final ``dvc.lock`` -- before it imports mlflow, so that their work overlaps
    with the logging); then "logged" or "failed"."""

    def __init__(self, status: str, run_id: str | None = None, tracking_uri: str | None = None) -> None:
        self.status, self.run_id, self.tracking_uri = status, run_id, tracking_uri
        self._begin_args: dict = {}
        self._workers = 1
        self._client: Any = None  # an MlflowClient while logging
        self._work: SharedWork | None = None  # the processes logging a large run's children beside this one
        self._shared_client = ""  # the store whose client this process registered for its chunks (use_client)
        self._root = Path(".")
        self._run_key = ""
        self._current: list[str] = []
        self._jobs: list[dict] = []
        self._frame: dict = {}

    @_store_faults
    @_gc_paused()
    def _begin(self) -> None:
        """Start the workers, open the store, create the parent run with its params and overview, and hand the
        child runs to the workers (status "logging"); or find a complete run with the same key (status "exists")."""
        a = self._begin_args
        target, run_key, phash, params = a["target"], a["run_key"], a["phash"], a["params"]
        project_root = a["project_root"]
        work = SharedWork(self._workers, warm=warm)  # the other processes for a large run's children, importing mlflow
        _register_exit_hook()
        try:
            client, exp_id = _client(target, a["experiment"])
            existing = client.search_runs([exp_id], filter_string=f"tags.`{RUN_KEY_TAG}` = '{run_key}'", max_results=1)
        except BaseException:
            work.cancel()
            raise
        if existing:
            work.cancel()
            self.status, self.run_id = "exists", existing[0].info.run_id
            return
        running = client.search_runs([exp_id], filter_string="attributes.status = 'RUNNING'", max_results=5000)
        for run_id in stale_runs([(r.info.run_id, r.data.tags) for r in running], run_key):
            client.set_terminated(run_id, status="FAILED")  # an earlier attempt was killed while logging

        exp_name = os.environ.get("DVC_EXP_NAME")
        commit = git_commit(project_root)
        source = source_tags(target.root, commit)
        tags = {
            PENDING_KEY_TAG: run_key,
            PARAMS_HASH_TAG: phash,
            OWNER_TAG: _owner(),
            "mlflow.runName": exp_name or f"{params.get('experiment_name', 'run')}-{phash[:8]}",
            "replearn.experiment_name": str(params.get("experiment_name")),
            **source,
        }
        if exp_name:
            tags["dvc.exp_name"] = exp_name
        if commit:
            tags["git.commit"] = commit
        verdicts = _verdict_tags(a["verdicts"])
        tags.update(verdicts["parent"])
        try:
            parent = client.create_run(exp_id, tags=tags)
        except BaseException:
            work.cancel()
            raise
        pid = self.run_id = parent.info.run_id
        self.status = "logging"
        self._client, self._work, self._root, self._run_key = client, work, project_root, run_key
        self._current = [pid]
        try:
            crossval, train_metrics = a["crossval"], a["train_metrics"]
            self._jobs = [
                _child_job(d, key, res, train_metrics, a["train_results"], verdicts["children"].get((d, key)))
                for d, res in crossval.items()  # datasets in the configured order
                for key in sorted(res["models"])
            ]
            self._frame = {
                "experiment_id": exp_id,
                "parent_run_id": pid,
                "phash": phash,
                "source": source,
                "log_models": bool(a["log_models"]),
            }
            if work.jobs > 1:  # the workers start on the children now; this process joins in at finish()
                use_client(target.tracking_uri, pid, client)
                self._shared_client = target.tracking_uri
                store = {"tracking_uri": target.tracking_uri, "sqlite": target.lock_file is not None}
                store["root"] = str(project_root)
                chunks = [self._jobs[i : i + CHUNK_SIZE] for i in range(0, len(self._jobs), CHUNK_SIZE)]
                work.start(log_children, [(store, self._frame, chunk) for chunk in chunks])
            _log_parent(client, pid, params, crossval, a["significance"], train_metrics)  # beside the workers
        except BaseException:
            self.abort()
            raise

    def _result(self, status: str) -> dict:
        return {"status": status, "run_id": self.run_id, "tracking_uri": self.tracking_uri}

    @_store_faults
    @_gc_paused()
    def finish(self, artifacts=(), extra_files: dict | None = None) -> dict:
        """Log ``artifacts`` (files and folders) to the parent, the child runs no worker has taken yet, then
        ``extra_files`` (artifact name -> text, logged last; a value may also be a callable returning the text or
        None: nothing logged, and one with a ``start`` method -- e.g. :class:`~replearn.pipeline.lockfile.FinalLockText`
        -- is started first, so that its work overlaps with the logging), wait for the workers and mark the run
        complete. Returns ``{"status", "run_id", "tracking_uri"}`` (status "logged", or the one given at start)."""
        extra_files = extra_files or {}
        if self.status not in ("pending", "logging"):
            return self._result(self.status)
        for value in extra_files.values():  # work for the files logged last, started now (it overlaps)
            if hasattr(value, "start"):
                value.start()
        if self.status == "pending":  # a small run: everything is logged now, in this process
            try:
                self._begin()
            except BaseException:
                _cancel(extra_files)
                raise
            if self.status == "exists":
                _cancel(extra_files)
                return self._result("exists")
        client, pid, work = self._client, str(self.run_id), self._work
        assert work is not None
        try:
            _log_artifacts(client, pid, artifacts)
            if work.jobs > 1:  # this process takes the chunks no worker has taken yet, then waits for them
                try:
                    work.join()
                except BaseException as exc:
                    from ...exceptions import TrackingError

                    if isinstance(exc, TrackingError):
                        raise
                    raise TrackingError(f"a process logging child runs failed: {type(exc).__name__}: {exc}") from exc
                finally:
                    self._release_client()
            else:
                for job in self._jobs:
                    _log_child_run(client, self._frame, job, self._root, self._current)
            for name, value in extra_files.items():
                text = value() if callable(value) else value
                if text is not None:
                    client.log_text(pid, text, name)
            client.set_tag(pid, RUN_KEY_TAG, self._run_key)  # complete: a rerun with the same results logs nothing
            client.set_terminated(pid)
        except BaseException:
            _cancel(extra_files)
            self.abort()
            raise
        self.status = "logged"
        return self._result("logged")

    def _release_client(self) -> None:
        if self._shared_client:
            use_client(self._shared_client, str(self.run_id), None)
            self._shared_client = ""

    def abort(self) -> None:
        """Stop the workers (each ends the chunk in hand and takes no more; a child that fails there is marked FAILED
        by its process) and mark this process's child in progress and the parent FAILED; no run key is set, so the
        next run logs everything again."""
        if self.status == "pending":  # nothing was logged yet
            self.status = "failed"
        if self.status != "logging":
            return
        self.status = "failed"
        if self._work is not None:
            self._work.cancel()
        self._release_client()
        for run_id in reversed(self._current):
            try:
                self._client.set_terminated(run_id, status="FAILED")
            except Exception:  # the store itself may be what failed; the original error matters more
                pass


#: above this many child runs the report stage logs them with several processes (:func:`_child_workers`)
PARALLEL_MIN_CHILDREN = 48
WORKERS_ENV = "REPLEARN_TRACKING_WORKERS"  # processes for the child runs: a number, or unset for the default


def _child_workers(n_children: int) -> int:
    """How many processes log the child runs: ``$REPLEARN_TRACKING_WORKERS`` when set (1: serial), else one per
    core, at most 4 and at most one per 24 children, and 1 below :data:`PARALLEL_MIN_CHILDREN` children.

    A child run costs ~35 ms in MLflow (its run, one ``log_batch``, the dataset input and a LoggedModel with its
    files), and a benchmark logs hundreds (516 for ``benchmark_keel``: 10.5 s with 2 processes on 2 cores, 11.3 s
    with 4, which also import mlflow 4 times); a worker process costs ~2 s to start (Python, mlflow's import, the
    store), so only large runs are split."""
    from ..workers import cores, processes

    default = 1 if n_children < PARALLEL_MIN_CHILDREN else max(1, min(cores(), 4, n_children // 24))
    return processes(WORKERS_ENV, n_children, default)


#: MLflow keeps tag values up to this length (mlflow.utils.validation.MAX_TAG_VAL_LENGTH is 8000)
MAX_TAG_TEXT = 5000


def _verdict_tags(verdicts: Callable[[], dict] | dict | None) -> dict:
    """The report's verdict lines as tags, cut to :data:`MAX_TAG_TEXT` characters. ``verdicts`` is what the caller
    gives :func:`start_pipeline_run` (the report stage: :func:`replearn.pipeline.report.summary.verdict_tags` on its
    typed records, called only when a run is logged): ``{"parent": {tag: text}, "children": {(dataset, model
    key): {tag: text}}}``; None: no verdict tags."""
    out = verdicts() if callable(verdicts) else verdicts
    out = out or {"parent": {}, "children": {}}
    cut = lambda text: text if len(text) <= MAX_TAG_TEXT else text[: MAX_TAG_TEXT - 1] + "…"  # noqa: E731
    return {
        "parent": {k: cut(v) for k, v in out.get("parent", {}).items()},
        "children": {dk: {k: cut(v) for k, v in tags.items()} for dk, tags in out.get("children", {}).items()},
    }


def _child_job(
    d: str, key: str, res: dict, train_metrics: dict, train_results: dict | None, tags: dict | None = None
) -> dict:
    """Everything one child run logs, as plain JSON (a worker process receives it in a file); ``tags``: its verdict
    tags."""
    m = res["models"][key]
    trained = (train_results or {}).get(d, {}).get("models", {}).get(key, {})
    curves = trained.get("figures", {}).get("curves", {})
    pred = trained.get("pred")
    return {
        "dataset": d,
        "key": key,
        "model": m,
        "result": {k: v for k, v in res.items() if k != "models"},
        "train_metrics": {d: {key: train_metrics.get(d, {}).get(key, {})}},
        "train_results": {d: {"models": {key: {"figures": {"curves": curves}}}}},
        # the final fit's predictions on the first test rows: the logged model's output example (write_model_dir)
        "example_output": pred[:N_EXAMPLE_ROWS] if isinstance(pred, list) else None,
        "tags": dict(tags or {}),
    }
