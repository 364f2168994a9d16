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
  (``pipeline/tracking_model.py``; the ``.npz`` + ``.json`` files of the train stage are its
  artifacts, with a signature and an input example from the sealed test features), a LoggedModel of the
  child written with MLflow's model-format API (:func:`write_model_dir`) rather than through
  ``mlflow.pyfunc.log_model``, whose extra work cost ~0.45 s a model: it loads with
  ``mlflow.pyfunc.load_model`` (``runs:/<run>/model`` or ``models:/<model_id>``) and serves with
  ``mlflow models serve``, and nothing is pickled.
* Params and metrics of a run go in one ``log_batch`` where MLflow's limits allow.

mlflow is imported lazily, in this module and in ``pipeline/tracking_model.py`` (the model definition
that MLflow executes by path; nothing imports it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import designs, kinds

if TYPE_CHECKING:
    import tempfile

RUN_KEY_TAG = "replearn.run_key"  # set when a run is completely logged
PENDING_KEY_TAG = "replearn.pending_run_key"  # set when logging starts
EXPERIMENT_KIND = "custom_model_development"  # MLflow 3's classic-ML view (not the GenAI view)
PARAMS_HASH_TAG = "replearn.params_hash"
OWNER_TAG = "replearn.owner"  # "<host>:<pid>" of the process logging a parent run (orphaned runs: stale_runs)


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


SQLITE_HEADER = b"SQLite format 3\x00"


def check_store(uri: str, source: str = "the tracking URI") -> None:
    """Refuse, in one line, a tracking URI whose local store is an existing file that cannot be one.

    A plain path or ``file:`` URI is MLflow's folder store, a ``sqlite:///`` URI a database file; either
    pointing at a regular file of something else (or below one) used to end in MLflow's traceback from the
    report stage. Remote stores (http, databases) and stores that do not exist yet are left to MLflow.
    ``source`` says where the URI came from (``MLFLOW_TRACKING_URI``, ``tracking.tracking_uri``).
    """
    from urllib.parse import unquote, urlparse

    from ..exceptions import ConfigError

    fix = (
        "point it at an SQLite database (sqlite:///<folder>/mlflow.db) or a server (http://...), or unset it for "
        "the project's mlflow.db"
    )
    parsed = urlparse(uri)
    if uri.startswith("sqlite:///"):
        path = Path(uri[len("sqlite:///") :].split("?", 1)[0])
        if not str(path) or str(path) == ":memory:":
            return
        kind = "SQLite database"
    elif parsed.scheme in ("", "file") and uri.strip():
        path = Path(unquote(parsed.path) if parsed.scheme == "file" else uri)
        kind = "MLflow store"
    else:
        return
    for folder in reversed(path.parents):
        if folder.exists() and not folder.is_dir():
            raise ConfigError(
                f"{source} {uri!r} is below {folder}, which is a file, not a folder; nothing was logged and the "
                f"local results (results/, metrics/, reports/) are intact; {fix}"
            )
    if kind == "MLflow store" and path.exists() and not path.is_dir():
        raise ConfigError(
            f"{source} {uri!r} points at the file {path}, not at an MLflow store; nothing was logged and the "
            f"local results (results/, metrics/, reports/) are intact; {fix}"
        )
    if kind == "SQLite database" and path.exists():
        problem = None
        if path.is_dir():
            problem = "is a folder, not an SQLite database"
        elif path.is_file() and path.stat().st_size:
            with open(path, "rb") as fh:
                if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                    problem = "is a file but not an SQLite database"
        if problem:
            raise ConfigError(
                f"{source} {uri!r}: {path} {problem}; nothing was logged and the local results (results/, "
                f"metrics/, reports/) are intact; {fix}"
            )


def uri_source(configured_uri: str | None) -> str:
    """Where :func:`resolve_target` took the tracking URI from, in the words of an error message."""
    if os.environ.get("MLFLOW_TRACKING_URI"):
        return "MLFLOW_TRACKING_URI"
    return "tracking.tracking_uri" if configured_uri else "the MLflow store"


def params_hash(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


def pipeline_run_key(params: dict, crossval: dict, significance: dict) -> str:
    """The key of a pipeline run: a hash of its parameters and results (crossval and significance records as plain
    data). The report stage tags a completely logged parent run with it; ``replearn diff`` finds a side's run by
    it."""
    text = json.dumps({"params": params, "crossval": crossval, "significance": significance}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


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


class _QuietEnvironmentFaults:
    """A logging filter for MLflow's SQL store: a full disk or a read-only database is not logged with its traceback
    (replearn words it in one line naming the store: :func:`_store_faults`); every other record passes."""

    def filter(self, record) -> bool:
        from .stage import describe_fault

        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or describe_fault(exc) is None


def _store_faults(method):
    """A :class:`PipelineRun` method whose environment faults (a full disk, a read-only store:
    :func:`~replearn.pipeline.stage.describe_fault`) become one :class:`TrackingError` naming the store."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        from ..exceptions import TrackingError
        from .stage import describe_fault

        try:
            return method(self, *args, **kwargs)
        except TrackingError:
            raise
        except Exception as exc:
            fault = describe_fault(exc)
            if fault is None:
                raise
            raise TrackingError(
                f"{fault}; the MLflow store is {self.tracking_uri} (this run's outputs are written; its MLflow run is "
                "not complete, and the next run logs it again)"
            ) from exc

    return wrapper


def _client(target: TrackingTarget, experiment: str):
    """An MlflowClient and the experiment id, creating database and experiment once under a lock."""
    http_timeouts()
    import logging

    import mlflow  # noqa: F401  (lazy: only the report stage pays for the import)

    store_log = logging.getLogger("mlflow.store.db.utils")
    if not any(isinstance(f, _QuietEnvironmentFaults) for f in store_log.filters):
        store_log.addFilter(_QuietEnvironmentFaults())
    from filelock import FileLock
    from mlflow.tracking import MlflowClient

    def get_or_create():
        if target.lock_file is not None:  # the project's own SQLite file (not a user's URI)
            prepare_database(_sqlite_path(target.tracking_uri))
            _relax_sync(_sqlite_path(target.tracking_uri))
        client = MlflowClient(tracking_uri=target.tracking_uri)
        exp = client.get_experiment_by_name(experiment)
        if exp is not None:
            if exp.tags.get("mlflow.experimentKind") is None:  # created by an older replearn
                client.set_experiment_tag(exp.experiment_id, "mlflow.experimentKind", EXPERIMENT_KIND)
            return client, exp.experiment_id
        location = target.artifact_root.as_uri() if target.artifact_root else None
        if target.artifact_root:
            target.artifact_root.mkdir(parents=True, exist_ok=True)
        from mlflow.exceptions import MlflowException

        try:
            return client, client.create_experiment(
                experiment, artifact_location=location, tags={"mlflow.experimentKind": EXPERIMENT_KIND}
            )
        except MlflowException as exc:
            # A tracking server has no file lock: two runs (a `dvc queue` with -j 2) may both find no experiment
            # and both create it; the second's create fails with RESOURCE_ALREADY_EXISTS; it then uses the first's.
            if exc.error_code != "RESOURCE_ALREADY_EXISTS":
                raise
            exp = client.get_experiment_by_name(experiment)
            if exp is None:
                raise
            return client, exp.experiment_id

    if target.lock_file is None:
        return get_or_create()
    target.lock_file.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.lock_file), timeout=300):
        return get_or_create()


#: The MLflow releases this module's private MLflow uses were checked against (pyproject.toml's range; the constraints
#: file pins the one CI runs). Outside it, each private use fails loudly (:func:`mlflow_private`) instead of guessing.
MLFLOW_CHECKED = ((3, 7), (4, 0))

#: Every private MLflow name this module touches, and why no public API serves (one place to review on an upgrade).
MLFLOW_PRIVATE = {
    "mlflow.store.db.utils._initialize_tables": "build a fresh SQLite store's schema with durability off "
    "(prepare_database); MLflow's public API creates it only through a store that syncs every DDL commit",
    "mlflow.models.utils._save_example": "write a model's input example as log_model does "
    "(input_example.json + serving_input_example.json, _save_input_example); public only inside log_model",
    "mlflow.store.tracking.sqlalchemy_store.SqlAlchemyStore._engine_map": "dispose the engines MLflow's tracking "
    "store cached (close_stores); MLflow has no public call that closes a store's connections",
    "mlflow.store.model_registry.sqlalchemy_store.SqlAlchemyStore._engine_map": "dispose the engines MLflow's "
    "model-registry store cached (close_stores); MLflow has no public call that closes a store's connections",
}


def _version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def mlflow_private(name: str, version: str | None = None):
    """The private MLflow object ``name`` (a key of :data:`MLFLOW_PRIVATE`), after checking that the installed
    MLflow is one of :data:`MLFLOW_CHECKED`; any other version, or the name missing, raises :class:`TrackingError`
    naming the private use, the version and the fix: nothing falls back silently."""
    import importlib

    from ..exceptions import TrackingError

    if name not in MLFLOW_PRIVATE:
        raise KeyError(f"{name!r} is not a declared private MLflow use (tracking.MLFLOW_PRIVATE)")
    if version is None:
        import mlflow

        version = mlflow.__version__
    (lo, hi), have = MLFLOW_CHECKED, _version_tuple(version)
    span = f"{'.'.join(map(str, lo))} <= mlflow < {'.'.join(map(str, hi))}"
    if not (lo <= have < hi):
        raise TrackingError(
            f"mlflow {version} is installed; replearn's tracking uses MLflow's private {name} (to "
            f"{MLFLOW_PRIVATE[name].split(';')[0]}), checked only for {span}: install a checked version "
            "(pip install -c requirements/constraints.txt mlflow) or run with tracking.enabled=false"
        )
    module, _, attr = name.rpartition(".")
    owner = None
    try:
        owner = importlib.import_module(module)
    except ImportError:
        mod, _, cls = module.rpartition(".")
        try:
            owner = getattr(importlib.import_module(mod), cls)
        except (ImportError, AttributeError):
            owner = None
    if owner is None or not hasattr(owner, attr):
        raise TrackingError(
            f"mlflow {version}: MLflow's private {name} is gone (replearn's tracking needs it to "
            f"{MLFLOW_PRIVATE[name].split(';')[0]}); install the pinned version: pip install -c "
            "requirements/constraints.txt mlflow"
        )
    return getattr(owner, attr)


def _sqlite_path(uri: str) -> Path:
    return Path(uri[len("sqlite:///") :])


def prepare_database(path: Path) -> None:
    """The project's SQLite store, made cheap to create and to write (call under the store's lock).

    * **A fresh database** is built with MLflow's own schema code (its initial tables, then every alembic
      migration) in a temporary file beside ``path`` with SQLite's durability off (``synchronous=OFF``,
      the rollback journal in memory): those ~1,700 DDL statements and 70 commits took 6 s of fsyncs,
      and take well under a second without. Nobody can see the file until it is complete; it is then
      synced and renamed into place (atomic), so a crash leaves no half-migrated store. MLflow checks
      the schema revision when it opens the file, as it does for any database. The schema helper is private
      MLflow API: :func:`mlflow_private` checks the MLflow version first and fails loudly outside the checked
      range, never falling back silently.
    * **Write-ahead logging** (``journal_mode=WAL``, stored in the file): a commit costs one append and
      one fsync instead of the rollback journal's create/sync/delete (19 ms -> 4 ms per commit here; a
      warm pipeline run makes ~100 commits, reads included). Readers (``mlflow ui``) no longer block the
      writer. Needs a local file system (as SQLite locking does anyway); ``mlflow.db-wal`` and
      ``mlflow.db-shm`` appear beside the database while it is open.
    """
    if path.is_file():
        if not _is_wal(path):
            _set_wal(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    _initialize_tables = mlflow_private("mlflow.store.db.utils._initialize_tables")  # version-checked, loud
    import sqlalchemy

    from ..atomic import sweep, temp_name

    sweep(path)  # a private file a killed creation left behind
    tmp = path.with_name(temp_name(path))
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp}")

    @sqlalchemy.event.listens_for(engine, "connect")
    def _no_sync(dbapi_conn, _record):  # only for this engine, only while the file is private
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA synchronous=OFF")
        cur.execute("PRAGMA journal_mode=MEMORY")
        cur.close()

    try:
        _initialize_tables(engine)
        engine.dispose()
        _set_wal(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        engine.dispose()
        tmp.unlink(missing_ok=True)
        raise


#: the SQLite files whose connections :func:`_relax_sync` sets to ``synchronous=NORMAL`` (real paths)
_RELAXED: set[str] = set()


def _relax_sync(path: Path) -> None:
    """Every new SQLAlchemy connection (MLflow's store opens them) to ``path`` syncs at checkpoints only.

    In WAL mode SQLite's ``synchronous=NORMAL`` skips the fsync of each commit (3.7 ms here, more on a
    busy disk; a warm run makes ~100 commits, reads included): the database stays consistent, but a
    power loss or OS crash -- not a crash of the stage -- may roll back the last commits. For the
    project's tracking store that is the right trade: a run that was not completely logged carries no
    run key, so the next run logs it again. A pragma of each connection (nothing stored in the file);
    other databases are not touched.
    """
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    if not _RELAXED:

        @event.listens_for(Engine, "connect")
        def _on_connect(dbapi_conn, _record) -> None:
            if isinstance(dbapi_conn, sqlite3.Connection):
                files = {os.path.realpath(row[2]) for row in dbapi_conn.execute("PRAGMA database_list") if row[2]}
                if files & _RELAXED:
                    dbapi_conn.execute("PRAGMA synchronous=NORMAL")

    _RELAXED.add(os.path.realpath(path))


def _is_wal(path: Path) -> bool:
    """SQLite's header says WAL when bytes 18 and 19 (the file format versions) are 2."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError:
        return False
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def _set_wal(path: Path) -> None:
    import sqlite3

    try:
        con = sqlite3.connect(path, timeout=5)
        try:
            con.execute("PRAGMA journal_mode=WAL")
        finally:
            con.close()
    except sqlite3.Error:  # busy (an open `mlflow ui` in rollback mode, say): stay as is, try next time
        pass


def logged_run_id(db: Path, experiment: str, run_key: str) -> str | None:
    """The id of a complete run with ``run_key`` in ``experiment`` of the SQLite store ``db``, read directly.

    A rerun with unchanged results logs nothing; answering that through MLflow cost ~2 s of imports and
    store set-up (SQLAlchemy's mappers, alembic's schema check) for one query. This reads the same three
    tables (``experiments``, ``runs``, ``tags``; MLflow's schema since 1.0) read-only with the standard
    library, with MLflow's own rules: active experiment, active run. Any doubt -- no file, another schema,
    a busy database -- answers None, and the caller asks MLflow as before, so a miss costs only time.
    """
    row = read_only_row(
        db,
        "SELECT r.run_uuid FROM runs r JOIN experiments e ON e.experiment_id = r.experiment_id "
        "JOIN tags t ON t.run_uuid = r.run_uuid WHERE e.name = ? AND e.lifecycle_stage = 'active' "
        "AND r.lifecycle_stage = 'active' AND t.key = ? AND t.value = ? LIMIT 1",
        (experiment, RUN_KEY_TAG, run_key),
    )
    return str(row[0]) if row else None


def _owner() -> str:
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def stale_runs(running: list[tuple[str, dict]], run_key: str | None = None) -> list[str]:
    """The RUNNING runs (``(run_id, tags)``) that no process will finish: a parent tagged as pending ``run_key``
    (an earlier attempt at this very run), or one whose logging process (:data:`OWNER_TAG`) is gone from this
    machine -- killed, e.g. with a queue worker --, then every child of a parent that is no longer running."""
    from ..atomic import process_alive

    host = _owner().rpartition(":")[0]

    def gone(tags: dict) -> bool:
        where, _, pid = str(tags.get(OWNER_TAG, "")).rpartition(":")
        return where == host and pid.isdigit() and not process_alive(int(pid))

    parents = {rid: tags for rid, tags in running if "mlflow.parentRunId" not in tags}
    stale = [rid for rid, tags in parents.items() if (run_key and tags.get(PENDING_KEY_TAG) == run_key) or gone(tags)]
    alive = set(parents) - set(stale)
    children = [rid for rid, tags in running if tags.get("mlflow.parentRunId", rid) not in alive | {rid}]
    return stale + children


def orphaned_runs(db: Path) -> list[str]:
    """:func:`stale_runs` of the project's SQLite store, read-only with the standard library (``replearn check``)."""
    import sqlite3

    if not db.is_file():
        return []
    try:
        con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            rows = con.execute(
                "SELECT r.run_uuid, t.key, t.value FROM runs r LEFT JOIN tags t ON t.run_uuid = r.run_uuid "
                "WHERE r.status = 'RUNNING' AND r.lifecycle_stage = 'active'"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return []
    tags: dict[str, dict] = {}
    for rid, key, value in rows:
        tags.setdefault(rid, {})
        if key is not None:
            tags[rid][key] = value
    return stale_runs(list(tags.items()))


def fail_runs(tracking_uri: str, run_ids: list[str]) -> None:
    """Mark ``run_ids`` FAILED (:func:`orphaned_runs`, for ``replearn check --repair``)."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking_uri)
    for run_id in run_ids:
        client.set_terminated(run_id, status="FAILED")


def read_only_row(db: Path, sql: str, params: tuple = ()) -> tuple | None:
    """The first row of ``sql`` on the SQLite file ``db`` opened read-only with the standard library (no mlflow
    import); None when the file is missing, the query finds nothing or SQLite refuses (not an MLflow database,
    another schema, busy)."""
    import sqlite3

    if not db.is_file():
        return None
    try:
        con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute(sql, params).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None


@contextmanager
def _gc_paused():
    """Python's cyclic garbage collector off for a while, then back as it was.

    Importing mlflow and setting up its store create hundreds of thousands of objects, and every few
    hundred allocations the collector runs; its full passes walk the whole heap, which in the report stage
    holds the results and the report just built. Paused while tracking, that cost 0.6 s less of the ~2 s
    that mlflow's import and store took in the stage (default preset). Nothing is lost: reference counting
    frees as always, and cyclic garbage is collected once the collector is back.
    """
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def close_stores() -> None:
    """Dispose the SQLAlchemy engines MLflow's stores opened in this process: their pooled connections are closed
    (SQLite checkpoints its write-ahead log as the last one closes). They stay usable: a later call reconnects."""
    import sys

    for name in ("mlflow.store.tracking.sqlalchemy_store", "mlflow.store.model_registry.sqlalchemy_store"):
        if name not in sys.modules:
            continue  # that store was never opened in this process
        # each store's engine cache (private MLflow: version-checked, fails loudly)
        for engine in list(mlflow_private(f"{name}.SqlAlchemyStore._engine_map").values()):
            engine.dispose()


def _before_exit() -> None:
    """At the exit of a process that tracked: close the stores, then freeze the heap.

    Python's final garbage collection walks every object still alive, and importing mlflow and opening its store
    create hundreds of thousands of them: ~0.9 s of a warm report stage of the default experiment went to that
    walk. :func:`gc.freeze` moves them out of the collector's reach, so the process ends without it; the stores
    are closed first, since frozen objects are not finalized by that collection (the SQLite connections would
    leave the write-ahead log behind until the next open)."""
    import gc

    close_stores()
    gc.freeze()


@functools.cache
def _register_exit_hook() -> None:
    """:func:`_before_exit` registered once per process (when mlflow is about to be imported)."""
    import atexit

    atexit.register(_before_exit)


def log_pipeline_run(
    *,
    params: dict,
    crossval: dict[str, dict],
    significance: dict,
    train_metrics: dict,
    artifacts: list[Path],
    project_root: Path,
    train_results: dict | None = None,
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
) -> PipelineRun:
    """Begin logging one pipeline run; :meth:`PipelineRun.finish` completes it (or :meth:`PipelineRun.abort`).

    Nothing is logged when tracking is off (status "disabled") or a complete run with the same run key is there
    ("exists"). For a large run (several logging processes: :func:`_child_workers`) the parent run is created now
    with its params, metrics and overview table, and the child runs are handed to the worker processes, which log
    them while the caller does other work (the report stage writes its reports); ``finish`` logs the artifacts and
    joins in. A small run is logged by ``finish`` alone (status "pending" until then).

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
        self._loggers: _ChildLoggers | None = None
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
        loggers = _ChildLoggers()  # the other processes for a large run's children, importing mlflow meanwhile
        loggers.start(self._workers)
        _register_exit_hook()
        try:
            client, exp_id = _client(target, a["experiment"])
            existing = client.search_runs([exp_id], filter_string=f"tags.`{RUN_KEY_TAG}` = '{run_key}'", max_results=1)
        except BaseException:
            loggers.cancel()
            raise
        if existing:
            loggers.cancel()
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
        verdicts = _verdict_tags(a["crossval"], a["significance"], params)
        tags.update(verdicts["parent"])
        try:
            parent = client.create_run(exp_id, tags=tags)
        except BaseException:
            loggers.cancel()
            raise
        pid = self.run_id = parent.info.run_id
        self.status = "logging"
        self._client, self._loggers, self._root, self._run_key = client, loggers, project_root, run_key
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
            if loggers.procs:  # the workers start on the children now; this process joins in at finish()
                store = {"tracking_uri": target.tracking_uri, "sqlite": target.lock_file is not None}
                loggers.send({**store, "root": str(project_root)}, self._frame, self._jobs)
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
        client, pid, loggers = self._client, str(self.run_id), self._loggers
        assert loggers is not None
        try:
            _log_artifacts(client, pid, artifacts)
            if loggers.procs:
                _log_claimed_children(
                    client, self._frame, loggers.chunks[::-1], self._root, self._current, loggers.stop_file
                )
                failures = loggers.finish()
                if failures:
                    from ..exceptions import TrackingError

                    raise TrackingError(f"a process logging child runs failed: {failures[0]}")
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

    def abort(self) -> None:
        """Stop the workers (each ends the chunk in hand and takes no more) and mark this process's child in progress
        and the parent FAILED; no run key is set, so the next run logs everything again."""
        if self.status == "pending":  # nothing was logged yet
            self.status = "failed"
        if self.status != "logging":
            return
        self.status = "failed"
        if self._loggers is not None:
            self._loggers.cancel()
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
    from .workers import cores, processes

    default = 1 if n_children < PARALLEL_MIN_CHILDREN else max(1, min(cores(), 4, n_children // 24))
    return processes(WORKERS_ENV, n_children, default)


#: MLflow keeps tag values up to this length (mlflow.utils.validation.MAX_TAG_VAL_LENGTH is 8000)
MAX_TAG_TEXT = 5000


def _verdict_tags(crossval: dict, significance: dict, params: dict) -> dict:
    """The report's verdict lines as tags (:func:`replearn.pipeline.report.summary.verdict_tags`), cut to
    :data:`MAX_TAG_TEXT` characters."""
    from .report.summary import verdict_tags

    decimals = int((params.get("report") or {}).get("decimals", 3))
    out = verdict_tags(crossval, significance, decimals)
    cut = lambda text: text if len(text) <= MAX_TAG_TEXT else text[: MAX_TAG_TEXT - 1] + "…"  # noqa: E731
    return {
        "parent": {k: cut(v) for k, v in out["parent"].items()},
        "children": {dk: {k: cut(v) for k, v in tags.items()} for dk, tags in out["children"].items()},
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


#: child runs per chunk the processes claim (:func:`_log_claimed_children`): small enough that they end together
CHUNK_SIZE = 4


class _ChildLoggers:
    """The processes that log child runs beside this one, started early, sharing the work as it comes.

    :meth:`start` launches ``workers - 1`` processes (``python -m replearn.pipeline.tracking --log-children -``)
    as soon as logging is certain, before this process imports mlflow and opens the store: each imports mlflow
    and its client class meanwhile (~1.5 s) and then waits for the path of its job file on standard input
    (:func:`_worker_main`). :meth:`send` writes the child runs as chunks of :data:`CHUNK_SIZE` and hands them out:
    every process, this one included, claims the next unclaimed chunk (:func:`_claim`) until none is left, so a
    process busy with other work (the report stage writing its reports) or slower takes fewer, and all end
    together. :meth:`finish` waits for them; :meth:`cancel` (nothing to log, or an error first) tells them to take
    no more chunks, and a worker with no jobs exits without touching the store."""

    def __init__(self) -> None:
        self.procs: list = []
        self.chunks: list[str] = []  # the chunk files, in the order the workers claim them
        self._dir: tempfile.TemporaryDirectory[str] | None = None  # the job files (send)

    def start(self, workers: int) -> None:
        import subprocess
        import sys
        import tempfile

        for _ in range(workers - 1):
            err = tempfile.TemporaryFile()
            cmd = [sys.executable, "-m", "replearn.pipeline.tracking", "--log-children", "-"]
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err)
            self.procs.append((proc, err))

    @property
    def stop_file(self) -> str:
        """A file whose existence tells every process to claim no more chunks (:meth:`cancel`)."""
        return str(Path(self._dir.name) / "stop") if self._dir is not None else ""

    def send(self, store: dict, frame: dict, jobs: list[dict]) -> None:
        """The jobs as chunk files, and one job file naming them (with ``store``: where and how to log, and
        ``frame``: the parent run) whose path goes down each worker's pipe: a benchmark's jobs are more than a
        pipe holds, and writing them there would block this process until the worker has imported mlflow."""
        import tempfile

        tmp = self._dir = tempfile.TemporaryDirectory(prefix="replearn-tracking-")
        for i in range(0, len(jobs), CHUNK_SIZE):
            path = Path(tmp.name) / f"chunk-{i // CHUNK_SIZE:05d}.json"
            path.write_text(json.dumps(jobs[i : i + CHUNK_SIZE]), encoding="utf-8")
            self.chunks.append(str(path))
        job_file = Path(tmp.name) / "children.json"
        spec = {**store, "frame": frame, "chunks": self.chunks, "stop": self.stop_file}
        job_file.write_text(json.dumps(spec), encoding="utf-8")
        for proc, _ in self.procs:
            try:
                proc.stdin.write(str(job_file).encode("utf-8") + b"\n")
                proc.stdin.close()
            except BrokenPipeError:  # it died before reading: finish() reports why
                pass

    def finish(self) -> list[str]:
        """Wait for every worker; the last line of each failed one's error output."""
        failures = []
        for proc, err in self.procs:
            if proc.stdin and not proc.stdin.closed:
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            code = proc.wait()
            err.seek(0)
            text = err.read().decode("utf-8", "replace").strip()
            err.close()
            if code != 0:
                failures.append(text.splitlines()[-1] if text else f"exit status {code}")
        self.procs = []
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None
        self.chunks = []
        return failures

    def cancel(self) -> None:
        """No more chunks for anyone (a worker ends the chunk in hand), then :meth:`finish`."""
        if self._dir is not None:
            Path(self.stop_file).touch()
        self.finish()  # a worker still waiting for its job file gets none and exits at once


def _claim(chunk: str) -> bool:
    """Take ``chunk`` for this process: True for exactly one of the processes that ask (an exclusive create)."""
    try:
        fd = os.open(chunk + ".claimed", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def _log_claimed_children(client, frame: dict, chunks: list[str], root: Path, current: list[str], stop: str) -> None:
    """Log the child runs of every chunk of ``chunks`` this process claims, until none is left or ``stop`` exists.
    Which process logs a run changes nothing in it."""
    for chunk in chunks:
        if os.path.exists(stop):
            return
        if _claim(chunk):
            for job in json.loads(Path(chunk).read_text(encoding="utf-8")):
                _log_child_run(client, frame, job, root, current)


def _worker_main(job_file: str) -> None:
    """A worker of :class:`_ChildLoggers`: log the child runs of the chunks it claims (``job_file``; ``-``: its path
    on standard input, read after mlflow is imported, so that the import overlaps with the parent process's own
    set-up; nothing there: exit at once); exit 1 with the error's last line on stderr when one fails (that run
    marked FAILED first, and the other processes told to stop)."""
    import gc
    import sys

    gc.disable()  # as in log_pipeline_run (_gc_paused): the process ends right after
    http_timeouts()
    from mlflow.tracking import MlflowClient

    if job_file == "-":  # the job file's path on standard input; nothing there: no jobs
        job_file = sys.stdin.readline().strip()
        if not job_file:
            return
    spec = json.loads(Path(job_file).read_text(encoding="utf-8"))
    if os.path.exists(spec["stop"]):
        return
    if spec["sqlite"]:
        _relax_sync(_sqlite_path(spec["tracking_uri"]))
    client = MlflowClient(tracking_uri=spec["tracking_uri"])
    current: list[str] = []
    try:
        _log_claimed_children(client, spec["frame"], spec["chunks"], Path(spec["root"]), current, spec["stop"])
    except BaseException as exc:
        Path(spec["stop"]).touch()  # the run has failed: the others take no more
        for run_id in reversed(current):
            try:
                client.set_terminated(run_id, status="FAILED")
            except Exception:  # the store itself may be what failed; the original error matters more
                pass
        print(f"{type(exc).__name__}: {exc}".replace("\n", " "), file=sys.stderr)
        sys.exit(1)


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
    its own labels. The crossval stage leaves them in ``timing/<dataset>.json``, which is no DVC output and no
    record (outputs stay byte-identical on rerun); a missing file (crossval not rerun here) logs nothing.
    """
    from mlflow.entities import Metric

    from . import paths

    path = root / paths.TIMING / f"{d}.json"
    per_key = _read_timing(str(path), *_stat_key(path)).get(key) or {}
    if not isinstance(per_key, dict):
        return []
    now = _now_ms()
    metrics: list = []
    for label, values in sorted(per_key.items()):
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
def _read_timing(path: str, mtime_ns: int, size: int) -> dict:
    """``timing/<dataset>.json`` read once per version of it (every model of the dataset needs it); {} when missing
    or unreadable (crossval not rerun here)."""
    if size < 0:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


#: the MLflow Model definition (models-from-code): MLflow runs this file by path; nothing imports it
MODEL_CODE = Path(__file__).with_name("tracking_model.py")
N_EXAMPLE_ROWS = 5


def _log_dataset_and_model(
    client,
    run_id,
    exp_id: str,
    root: Path,
    d: str,
    key: str,
    cparams: dict,
    example_output: list | None = None,
    *,
    model: bool = True,
) -> None:
    """The dataset as a run input, the fitted model as an MLflow Model (where the pipeline's files exist; not with
    ``model=False``, ``tracking.log_models: false``)."""
    from ..persistence import SUFFIXES, stem_file
    from . import paths

    prepared = root / paths.PREPARED / d / "train.npz"
    if prepared.is_file():
        log_dataset_input(client, run_id, d, prepared, paths.PREPARED / d / "train.npz")
    stem = root / paths.MODELS / d / key
    features = root / paths.FEATURES / d / "test.npz"
    if model and all(stem_file(stem, sfx).is_file() for sfx in SUFFIXES) and features.is_file():
        log_model(client, run_id, exp_id, stem, features, params=cparams, example_output=example_output, root=root)


def log_dataset_input(client, run_id: str, name: str, path: Path, source: Path) -> None:
    """Log ``path`` (a prepared training part: npz with X, y) as the run's training dataset input."""
    import numpy as np
    from mlflow.entities import Dataset, DatasetInput, InputTag

    from .paths import sha256_file

    digest = sha256_file(path)
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
    inputs = [DatasetInput(ds, tags=[InputTag("mlflow.data.context", "train"), InputTag("replearn.sha256", digest)])]
    try:
        client.log_inputs(run_id, datasets=inputs)
    except Exception as exc:  # noqa: BLE001 - only the store's unique-dataset race is retried, the rest re-raised
        # MLflow's store looks a dataset up by (experiment, name, digest) and inserts it when absent, in two steps:
        # two worker processes logging children of one dataset at once can both insert, and the second fails on
        # the UNIQUE constraint. The dataset is then in the store; logging again links this run to it.
        if "UNIQUE constraint failed: datasets." not in str(exc) and "dataset_pk" not in str(exc):
            raise
        client.log_inputs(run_id, datasets=inputs)


def log_model(
    client,
    run_id: str,
    exp_id: str,
    stem: Path,
    features: Path,
    params: dict | None = None,
    example_output: list | None = None,
    root: Path | None = None,
):
    """Log the model saved at ``stem`` (.npz + .json) to run ``run_id`` as an MLflow Model defined by code.

    The same MLflow Model (a LoggedModel of the run, named "model", so ``runs:/<run>/model`` and
    ``models:/<model_id>`` both load it) that ``mlflow.pyfunc.log_model(python_model=<tracking_model.py>,
    artifacts=...)`` produced, written by :func:`write_model_dir` with MLflow's model-format API instead:
    ``log_model`` spent ~0.45 s per model on work that tells replearn nothing (scanning every installed
    distribution to warn about requirement mismatches, reloading the model to validate the input
    example, copying every run metric onto the model). The signature and the input example come from
    the first rows of ``features`` (the sealed test part as the model sees it: after the feature maps) and
    the model's predictions on them: ``example_output`` when given (the train stage's predictions on those
    rows), else the model's own. Returns the LoggedModel.

    When the model's artifact location is a local directory inside the project ``root`` (the default store's
    ``mlartifacts/``), the directory is written there in place: ``log_model_artifacts`` would copy the same
    files from a temporary directory (MLflow's local artifact repository does nothing else), and the copy and
    its clean-up cost a benchmark's 516 child runs 3 s. Any other location (a server, a remote store) gets
    the files through ``log_model_artifacts``.
    """
    import tempfile

    from mlflow.entities import LoggedModelOutput, LoggedModelStatus

    model = client.create_logged_model(
        exp_id, name="model", source_run_id=run_id, params={k: str(v) for k, v in (params or {}).items()}
    )
    try:
        client.log_outputs(run_id, [LoggedModelOutput(model.model_id, step=0)])
        local = _local_artifact_dir(model.artifact_location, root) if root is not None else None
        if local is not None:
            write_model_dir(local, stem, features, run_id=run_id, model=model, output=example_output)
        else:
            with tempfile.TemporaryDirectory(prefix="replearn-model-") as tmp:
                write_model_dir(Path(tmp) / "model", stem, features, run_id=run_id, model=model, output=example_output)
                client.log_model_artifacts(model.model_id, str(Path(tmp) / "model"))
    except BaseException:
        try:
            client.finalize_logged_model(model.model_id, LoggedModelStatus.FAILED)
        except Exception:  # the store may be what failed; the original error matters more
            pass
        raise
    return client.finalize_logged_model(model.model_id, LoggedModelStatus.READY)


def _local_artifact_dir(uri: str, root: Path) -> Path | None:
    """The directory a ``file:`` artifact location names, when it lies inside ``root`` and holds nothing yet;
    None for any other location (MLflow's artifact repository writes those)."""
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(url2pathname(parsed.path)).resolve()
    if not path.is_relative_to(Path(root).resolve()) or (path.exists() and any(path.iterdir())):
        return None
    return path


def write_model_dir(path: Path, stem: Path, features: Path, *, run_id=None, model=None, output=None) -> Path:
    """Write the MLflow Model directory of the replearn model at ``stem`` to ``path`` (nothing pickled).

    Layout and ``MLmodel`` as ``mlflow.pyfunc.save_model`` writes them for a model from code: the
    python_function flavor (``mlflow.pyfunc.add_to_model``) with loader ``mlflow.pyfunc.loaders.code_model``
    and ``model_code_path`` = ``tracking_model.py`` (copied beside ``MLmodel``), the ``.npz`` and ``.json``
    under ``artifacts/`` with the names ``ReplearnModel.load_context`` reads, the signature
    (``infer_signature`` of the first test rows and the model's output on them), the input example and
    the environment (``requirements.txt``, ``python_env.yaml``, ``conda.yaml``) pinning mlflow, numpy and
    scipy; replearn itself is not on a package index, so serve from the project's environment
    (``--env-manager local``). The model is loaded once (through :func:`replearn.persistence.load_model`,
    ``allow_pickle=False``) for the output schema, unless ``output`` holds its predictions on the example rows
    already (the train stage's ``pred``: loading a forest of 100 trees to predict five rows cost ~15 ms a model).
    """
    import mlflow
    import numpy as np
    import scipy
    from mlflow.models import Model, infer_signature

    from ..atomic import copy_file
    from ..persistence import load_model, stem_file

    with np.load(features, allow_pickle=False) as data:
        example = np.asarray(data["X"][:N_EXAMPLE_ROWS], dtype=float)
    if output is not None and len(output) == len(example):
        output = np.asarray(output)
    else:
        fitted = load_model(stem)
        output = np.asarray((fitted.predict if hasattr(fitted, "predict") else fitted.transform)(example))

    (path / "artifacts").mkdir(parents=True, exist_ok=True)  # a fresh directory (or an empty one: _local_artifact_dir)
    artifacts = {}
    for name, suffix in (("npz", ".npz"), ("json", ".json")):  # the names tracking_model.load_context reads
        src = stem_file(stem, suffix)
        copy_file(src, path / "artifacts" / src.name)  # each file whole or not at all (replearn.atomic)
        artifacts[name] = {"path": f"artifacts/{src.name}", "uri": str(src)}
    copy_file(MODEL_CODE, path / MODEL_CODE.name)

    # as MLflow's log_model: the LoggedModel's location and id, which is the model's uuid too
    logged = {}
    if model is not None:
        logged = {"artifact_path": model.artifact_location, "model_id": model.model_id, "model_uuid": model.model_id}
    mlmodel = Model(run_id=run_id, signature=infer_signature(example, output), **logged)
    _save_input_example(mlmodel, example, path)
    mlflow.pyfunc.add_to_model(
        mlmodel,
        loader_module="mlflow.pyfunc.loaders.code_model",
        conda_env="conda.yaml",
        python_env="python_env.yaml",
        model_code_path=str(MODEL_CODE),
        artifacts=artifacts,
        streamable=False,
    )
    _write_environment(
        path, [f"mlflow=={mlflow.__version__}", f"numpy=={np.__version__}", f"scipy=={scipy.__version__}"]
    )
    mlmodel.model_size_bytes = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    _save_mlmodel(mlmodel, path / "MLmodel")  # last: a model folder with an MLmodel file is complete
    return path


def _save_mlmodel(mlmodel, path: Path) -> None:
    """``mlmodel.save(path)`` with libyaml's emitter when PyYAML has it: the same text (a test compares them),
    4 ms -> 1 ms a model, which a benchmark's hundreds of child runs feel."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", None)
    if dumper is None:  # PyYAML built without libyaml
        mlmodel.save(str(path))
        return
    from ..atomic import atomic_write

    with atomic_write(path, "w", durable=False) as out:
        yaml.dump(mlmodel.to_dict(), out, Dumper=dumper, default_flow_style=False)


def _write_environment(path: Path, requirements: list[str]) -> None:
    """``requirements.txt``, ``python_env.yaml`` and ``conda.yaml`` as MLflow writes them for pinned requirements."""
    from ..atomic import write_text

    for name, text in _environment_files(tuple(requirements)).items():
        write_text(path / name, text, durable=False)


@functools.cache
def _environment_files(requirements: tuple[str, ...]) -> dict[str, str]:
    """The texts of :func:`_write_environment`'s files (the same for every model of a run: computed once)."""
    import platform
    from importlib import metadata

    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    python, pip, setuptools = platform.python_version(), version("pip"), version("setuptools")
    build = [f"pip=={pip}" if pip else "pip", *([f"setuptools=={setuptools}"] if setuptools else []), "wheel"]
    return {
        "requirements.txt": "\n".join(requirements),
        "python_env.yaml": f"python: {python}\nbuild_dependencies:\n"
        + "".join(f"- {b}\n" for b in build)
        + "dependencies:\n- -r requirements.txt\n",
        "conda.yaml": f"channels:\n- conda-forge\ndependencies:\n- python={python}\n- pip{'<=' + pip if pip else ''}\n"
        "- pip:\n" + "".join(f"  - {r}\n" for r in requirements) + "name: mlflow-env\n",
    }


def _save_input_example(mlmodel, example, path: Path) -> None:
    """The input example as MLflow writes it (``input_example.json`` + ``serving_input_example.json``)."""
    _save_example = mlflow_private("mlflow.models.utils._save_example")  # version-checked, loud
    _save_example(mlmodel, example, str(path))


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


DIFF_OUTCOME_TAG = "replearn.diff.outcome"


def log_diff(result, project_root: Path, as_dict: dict, markdown: str) -> str:
    """Tag the MLflow run of the diff's side B with the diff's outcome and log the diff (JSON and Markdown) as its
    artifacts ``diff/against-<A>.json`` / ``.md``. The run is B's parent run, found by its run key (its params,
    crossval and significance records, as the report stage computed it). Returns what was done, or why nothing
    was (tracking off in B's params, no store, no run of B in it) -- never an error: the diff stands without it."""
    b = result.b
    params = b.params or {}
    cfg = params.get("tracking") or {}
    if not cfg.get("enabled"):
        return "not logged (tracking off in B's params)"
    if b.significance is None or not b.plain:
        return "not logged (B has no significance record, so no pipeline run was logged for it)"
    wanted = list(params.get("dataset") or b.plain)
    if set(wanted) != set(b.plain):
        return "not logged (B's records are not those of its params' datasets)"
    key = pipeline_run_key(params, {d: b.plain[d] for d in wanted}, b.significance)
    try:
        target = resolve_target(project_root, cfg.get("tracking_uri"), server=bool(cfg.get("server")))
    except Exception as exc:  # an unusable store: say so, keep the diff
        return f"not logged ({exc})"
    if target.lock_file is not None:
        run_id = logged_run_id(_sqlite_path(target.tracking_uri), cfg["experiment"], key)
        if run_id is None:
            return (
                f"not logged (no complete run of B with run key {key} in {target.tracking_uri}; `dvc repro` logs one)"
            )
    try:
        client, exp_id = _client(target, cfg["experiment"])
        if target.lock_file is None:
            found = client.search_runs([exp_id], filter_string=f"tags.`{RUN_KEY_TAG}` = '{key}'", max_results=1)
            if not found:
                return f"not logged (no complete run of B with run key {key} in {target.tracking_uri})"
            run_id = found[0].info.run_id
        against = result.a.label.replace("/", "_").replace(" ", "_") or "A"
        counts = ", ".join(f"{n} {v}" for v, n in result.counts().items())
        client.set_tag(run_id, DIFF_OUTCOME_TAG, as_dict["outcome"])
        client.set_tag(run_id, "replearn.diff.against", result.a.describe())
        client.set_tag(run_id, "replearn.diff.summary", counts[:4900])
        client.log_text(run_id, json.dumps(as_dict, indent=2, sort_keys=True), f"diff/against-{against}.json")
        client.log_text(run_id, markdown, f"diff/against-{against}.md")
    except Exception as exc:  # the store failed: the diff is still printed
        return f"not logged ({type(exc).__name__}: {exc})"
    finally:
        close_stores()
    return (
        f"run {run_id} of B tagged {DIFF_OUTCOME_TAG}={as_dict['outcome']}, the diff logged as diff/against-{against}"
    )


def ui_command(project_root: Path, port: int = 5000) -> list[str]:
    """The ``mlflow ui`` command line for this project's store, bound to 127.0.0.1 only."""
    target = resolve_target(project_root)
    return ["mlflow", "ui", "--backend-store-uri", target.tracking_uri, "--host", "127.0.0.1", "--port", str(port)]


if __name__ == "__main__":  # a worker of _ChildLoggers
    import sys as _sys

    if len(_sys.argv) != 3 or _sys.argv[1] != "--log-children":
        _sys.exit("usage: python -m replearn.pipeline.tracking --log-children <job file, or - for standard input>")
    _code = 0
    try:
        _worker_main(_sys.argv[2])
    except SystemExit as _exc:  # its error line is on stderr already
        _code = _exc.code if isinstance(_exc.code, int) else 1
    # The stage waits for this process: end it without the interpreter's teardown of mlflow's heap (~0.3 s), once
    # the store's connections are closed (SQLite checkpoints its write-ahead log) and the output is flushed.
    close_stores()
    _sys.stdout.flush()
    _sys.stderr.flush()
    os._exit(_code)
