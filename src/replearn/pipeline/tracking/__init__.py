"""MLflow tracking with zero set-up that survives DVC's queued and temporary runs.

* Tracking URI: ``MLFLOW_TRACKING_URI`` when set; otherwise ``sqlite:///<root>/mlflow.db`` where
  ``<root>`` is ``$DVC_ROOT`` when DVC sets it. ``dvc exp run --queue``/``--temp`` run the stages in a
  temporary copy of the repository but point ``DVC_ROOT`` at the real one, so those runs land in the
  same database as ``dvc repro``. Artifacts go to ``<root>/mlartifacts``, set explicitly when the
  MLflow experiment is created.
* The database and the experiment are created once, under a file lock: two queue workers creating
  the SQLite schema at the same moment could corrupt it for good. The project's database is created
  with MLflow's own schema code in a private file with SQLite's syncing off, then renamed into place, and
  kept in write-ahead-log mode (:func:`prepare_database`), its connections syncing at checkpoints only
  (:func:`_relax_sync`): a fresh store costs well under a second instead of 6 s of fsyncs, and a
  commit no fsync (19 ms with the rollback journal here, 3.7 ms in WAL mode with a sync per commit).
* One parent run per pipeline run, nested child runs per dataset x model; tags with the git commit,
  the run source (``mlflow.source.name/type/git.commit``), the DVC experiment name and a hash of the
  parameters. A run key (hash of the parameters and the results) makes a rerun without changes log
  nothing new; on the project's SQLite file that is answered by one read-only query with the standard
  library (:func:`logged_run_id`), before mlflow is even imported.
* **One metric name means one thing across runs.** The dataset and the model are params and tags of a
  child run, never part of a metric name. A child holds ``cv.<metric>.mean`` and ``cv.<metric>.std``
  (sample standard deviation over the replicates, as in ``metrics/crossval.json``), ``cv.<metric>``
  per replicate as step metrics, ``train.<metric>`` and ``test.<metric>`` of the final fit, and the
  learning curves of the final fit (``curve.training_loss``, ...) per epoch (at most
  :data:`MAX_CURVE_POINTS` of them, evenly spaced: :func:`curve_steps`). The parent holds only an
  overview: the table ``overview.json`` (one row per dataset x model x metric) and a handful of
  metrics (``n_datasets``, ``n_models``, ``friedman.pvalue``, ``nemenyi.cd``).
* Each child logs its dataset as an MLflow dataset input (name, digest = sha256 of the prepared
  training part, source) and its fitted model as an MLflow Model defined by code
  (``pipeline/tracking/tracking_model.py``; the ``.npz`` + ``.json`` files of the train stage are its
  artifacts, with a signature and an input example from the sealed test features), a LoggedModel of the
  child written with MLflow's model-format API (:func:`write_model_dir`) rather than through
  ``mlflow.pyfunc.log_model``, whose extra work cost ~0.45 s a model: it loads with
  ``mlflow.pyfunc.load_model`` (``runs:/<run>/model`` or ``models:/<model_id>``) and serves with
  ``mlflow models serve``, and nothing is pickled.
* Params and metrics of a run go in one ``log_batch`` where MLflow's limits allow.

mlflow is imported lazily, in this package and in ``pipeline/tracking/tracking_model.py`` (the model definition
that MLflow executes by path; nothing imports it).

The package is split along its seams:

* :mod:`.store` -- where runs go (:func:`resolve_target`), the checks of a store and a server, the project's SQLite
  database, the read-only queries answered before mlflow is imported, MLflow's private functions behind a version
  check (:func:`mlflow_private`) and closing the stores at exit;
* :mod:`.run` -- the parent run of a pipeline run (:func:`start_pipeline_run`, :class:`PipelineRun`,
  :func:`log_pipeline_run`), its run key and verdict tags;
* :mod:`.children` -- what a child run and the parent's overview log, and the task that logs a large run's
  children in the local worker processes (:func:`~.children.log_children`, run by
  :class:`~replearn.pipeline.workers.SharedWork`, the one mechanism for local worker processes);
* :mod:`.model` -- a child's dataset input and its MLflow Model directory (:func:`write_model_dir`);
* :mod:`.diff` -- ``replearn diff --log-to-mlflow`` (:func:`log_diff`).
"""

from __future__ import annotations

from .children import (
    CHUNK_SIZE,
    MAX_CURVE_POINTS,
    _log_child,
    child_params,
    curve_steps,
    overview_rows,
    source_tags,
)
from .diff import (
    DIFF_OUTCOME_TAG,
    log_diff,
)
from .model import (
    MODEL_CODE,
    N_EXAMPLE_ROWS,
    _local_artifact_dir,
    log_dataset_input,
    log_model,
    write_model_dir,
)
from .run import (
    MAX_TAG_TEXT,
    PARALLEL_MIN_CHILDREN,
    WORKERS_ENV,
    PipelineRun,
    _child_workers,
    log_pipeline_run,
    start_pipeline_run,
)
from .store import (
    EXPERIMENT_KIND,
    HEALTH_TIMEOUT_S,
    HTTP_DEFAULTS,
    MLFLOW_CHECKED,
    MLFLOW_PRIVATE,
    OWNER_TAG,
    PARAMS_HASH_TAG,
    PENDING_KEY_TAG,
    RUN_KEY_TAG,
    SQLITE_HEADER,
    TrackingTarget,
    _client,
    _is_wal,
    _register_exit_hook,
    _relax_sync,
    check_server,
    check_store,
    close_stores,
    fail_runs,
    flatten,
    git_commit,
    http_timeouts,
    logged_run_id,
    mlflow_private,
    orphaned_runs,
    params_hash,
    pipeline_run_key,
    prepare_database,
    read_only_row,
    resolve_target,
    stale_runs,
    tracking_root,
    ui_command,
    unreachable_message,
    uri_source,
)

__all__ = [
    "CHUNK_SIZE",
    "DIFF_OUTCOME_TAG",
    "EXPERIMENT_KIND",
    "HEALTH_TIMEOUT_S",
    "HTTP_DEFAULTS",
    "MAX_CURVE_POINTS",
    "MAX_TAG_TEXT",
    "MLFLOW_CHECKED",
    "MLFLOW_PRIVATE",
    "MODEL_CODE",
    "N_EXAMPLE_ROWS",
    "OWNER_TAG",
    "PARALLEL_MIN_CHILDREN",
    "PARAMS_HASH_TAG",
    "PENDING_KEY_TAG",
    "PipelineRun",
    "RUN_KEY_TAG",
    "SQLITE_HEADER",
    "TrackingTarget",
    "WORKERS_ENV",
    "_child_workers",
    "_client",
    "_is_wal",
    "_local_artifact_dir",
    "_log_child",
    "_register_exit_hook",
    "_relax_sync",
    "check_server",
    "check_store",
    "child_params",
    "close_stores",
    "curve_steps",
    "fail_runs",
    "flatten",
    "git_commit",
    "http_timeouts",
    "log_dataset_input",
    "log_diff",
    "log_model",
    "log_pipeline_run",
    "logged_run_id",
    "mlflow_private",
    "orphaned_runs",
    "overview_rows",
    "params_hash",
    "pipeline_run_key",
    "prepare_database",
    "read_only_row",
    "resolve_target",
    "source_tags",
    "stale_runs",
    "start_pipeline_run",
    "tracking_root",
    "ui_command",
    "unreachable_message",
    "uri_source",
    "write_model_dir",
]
