"""Where runs go and the store itself: the tracking target (URI, artifact root, lock file), the checks of a
store and a server before any run is created, the project's SQLite database (created with MLflow's schema code
under a lock, write-ahead log, relaxed syncing), the read-only queries that answer an unchanged rerun before
mlflow is imported, MLflow's private functions behind a version check, and closing the stores at exit."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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
        from ...exceptions import ServiceError
        from ..service_env import env_path, read

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

    from ...exceptions import ConfigError

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

    from ...exceptions import ServiceError

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
        from ..stage import describe_fault

        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or describe_fault(exc) is None


def _store_faults(method):
    """A :class:`PipelineRun` method whose environment faults (a full disk, a read-only store:
    :func:`~replearn.pipeline.stage.describe_fault`) become one :class:`TrackingError` naming the store."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        from ...exceptions import TrackingError
        from ..stage import describe_fault

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

    from ...exceptions import TrackingError

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

    from ...atomic import sweep, temp_name

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
    from ...atomic import process_alive

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


def ui_command(project_root: Path, port: int = 5000) -> list[str]:
    """The ``mlflow ui`` command line for this project's store, bound to 127.0.0.1 only."""
    target = resolve_target(project_root)
    return ["mlflow", "ui", "--backend-store-uri", target.tracking_uri, "--host", "127.0.0.1", "--port", str(port)]
