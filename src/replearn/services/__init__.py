"""The whole scale-out stack on one machine, for tests and for trying it: ``make services`` (an operations tool).

``python -m replearn services up`` starts, each bound to 127.0.0.1 on a free port of its own:

* a throw-away **PostgreSQL** cluster (Debian's server: ``initdb`` and ``postgres`` from
  ``/usr/lib/postgresql/<version>/bin``), initialised in ``.services/pg`` (git-ignored; a private folder under
  ``/tmp`` when the repository is not reachable by the ``postgres`` user); as root it runs as the ``postgres``
  system user, since PostgreSQL refuses to run as root;
* an **S3** endpoint: moto's server mode, with the bucket ``replearn`` created;
* an **MLflow server** on both: ``mlflow server`` with its runs in PostgreSQL and its artifacts in
  ``s3://replearn/mlartifacts`` (served through the MLflow server, so clients need no S3 credentials);
* a **Dask scheduler** and two single-threaded workers (BLAS single-threaded too).

Each is checked for readiness, with a timeout, before the next starts; a missing program is an error naming it
and how to install it. The addresses, the (generated) credentials of the local PostgreSQL and S3, and the
process ids go to ``.services/env`` (git-ignored, readable by the owner only), which ``tracking=server`` and
``compute=dask`` read when no address is configured. ``down`` stops exactly the recorded processes (each
started in a session of its own; a recorded pid that now runs another program is left alone) and deletes the
throw-away database; ``status`` says what runs where.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..exceptions import ServiceError
from ..pipeline import service_env

HOST = "127.0.0.1"
BUCKET = "replearn"
PG_USER = "replearn"  # the database role (superuser of the throw-away cluster)
PG_DATABASE = "mlflow"
PG_SYSTEM_USER = "postgres"  # the system user the server runs as when we are root
N_WORKERS = 2
PG_ROOT = Path("/usr/lib/postgresql")  # Debian's layout: <version>/bin/{initdb,postgres}
#: seconds each service gets to become ready
TIMEOUTS = {"postgres": 60, "s3": 60, "mlflow": 180, "dask_scheduler": 90}
PIP_HINT = "pip install -e '.[services]' (or `make install-services`)"
APT_HINT = "apt-get install postgresql (Debian/Ubuntu; the server programs land in /usr/lib/postgresql/<version>/bin)"
#: the program each recorded process must still be running before `down` signals it
EXPECTED = {
    "postgres": "postgres",
    "s3": "moto_server",
    "mlflow": "mlflow",
    "dask_scheduler": "dask",
    "dask_worker_1": "dask",
    "dask_worker_2": "dask",
}
ORDER = list(EXPECTED)  # start order; stopped in reverse


def state_dir(root: Path) -> Path:
    return Path(root) / service_env.SERVICES_DIR


# -- programs ---------------------------------------------------------------------------------------------
def _venv_program(name: str) -> str:
    """A console script of this Python environment (``mlflow``, ``moto_server``, ``dask``), else from PATH."""
    here = Path(sys.executable).with_name(name)
    found = str(here) if here.is_file() else shutil.which(name)
    if not found:
        raise ServiceError(f"the program {name!r} is not installed in this environment; install it with {PIP_HINT}")
    return found


def postgres_bin() -> Path:
    """The folder of Debian's PostgreSQL server programs (the newest version), or where ``initdb`` is on PATH."""
    explicit = os.environ.get("REPLEARN_PG_BIN")
    candidates = [Path(explicit)] if explicit else []
    versions = sorted(
        PG_ROOT.glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else -1,
        reverse=True,
    )
    candidates += versions
    which = shutil.which("initdb")
    if which:
        candidates.append(Path(which).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    raise ServiceError(f"PostgreSQL's server programs (initdb, postgres) are not installed: {APT_HINT}")


def _require_module(name: str) -> None:
    import importlib.util

    if importlib.util.find_spec(name) is None:
        raise ServiceError(f"the Python package {name!r} is not installed; install it with {PIP_HINT}")


def check_programs() -> dict[str, str]:
    """Every program and package the stack needs, or a :class:`ServiceError` naming the first one missing."""
    found = {"postgres": str(postgres_bin())}
    for name in ("moto_server", "mlflow", "dask"):
        found[name] = _venv_program(name)
    for module in ("boto3", "psycopg", "distributed", "moto"):
        _require_module(module)
    return found


# -- processes --------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _settled_cmdline(pid: int, wait: float = 5.0) -> str:
    """``pid``'s command line once its exec has published it.

    A process that was just started (``subprocess.Popen`` returned; ``up`` failing right after a spawn calls
    ``down``) can read as an empty ``/proc/<pid>/cmdline`` for a moment: Popen returns when the exec closes the
    child's close-on-exec pipe, before the kernel maps the new argv, and on a loaded machine the child can be
    descheduled in between. Every process we start has a command line, so an empty one of a live process is
    read again (up to ``wait`` s) before it counts as "something else" (a kernel thread after pid reuse stays
    empty and is left alone)."""
    deadline = time.monotonic() + wait
    line = _cmdline(pid)
    while not line and time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.01)
        line = _cmdline(pid)
    return line


def _tcp_open(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def _http_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as res:  # loopback addresses of our own services
            return res.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return "(no log)"


@dataclass
class Stack:
    """What one ``up`` started (and, on failure, stops again)."""

    root: Path
    report: Callable[[str], None]
    env: dict[str, str] = field(default_factory=dict)
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def logs(self) -> Path:
        return state_dir(self.root) / "logs"

    def spawn(self, name: str, cmd: list[str], *, env: dict | None = None, user: str | None = None, cwd=None):
        self.logs.mkdir(parents=True, exist_ok=True)
        log = open(self.logs / f"{name}.log", "ab")  # closed below: the child keeps its own descriptor
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: `down` stops it and its children, nothing else
                env={**os.environ, **(env or {})},
                cwd=cwd or state_dir(self.root),
                user=user,
            )
        finally:
            log.close()
        self.procs[name] = proc
        self.env[f"REPLEARN_PID_{name.upper()}"] = str(proc.pid)
        return proc

    def wait(self, name: str, ready: Callable[[], bool], what: str) -> None:
        """Poll ``ready`` until it holds; a process that exits or a timeout is an error with its log's tail."""
        proc = self.procs.get(name)
        timeout = TIMEOUTS.get(name, 60)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                self.report(f"  {name}: ready ({what})")
                return
            if proc is not None and proc.poll() is not None:
                raise ServiceError(
                    f"{name} exited with code {proc.returncode} while starting ({what}); its log "
                    f"{self.logs / (name + '.log')} ends with:\n{_tail(self.logs / (name + '.log'))}"
                )
            time.sleep(0.3)
        raise ServiceError(
            f"{name} was not ready after {timeout} s ({what}); its log {self.logs / (name + '.log')} ends with:\n"
            f"{_tail(self.logs / (name + '.log'))}"
        )


# -- the services -----------------------------------------------------------------------------------------
def _pg_identity() -> tuple[str | None, int | None, int | None]:
    """(user, uid, gid) to run PostgreSQL as: the ``postgres`` system user when we are root, else ourselves."""
    if os.geteuid() != 0:
        return None, None, None
    import pwd

    try:
        pw = pwd.getpwnam(PG_SYSTEM_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_SYSTEM_USER],
            check=True,
            capture_output=True,
            timeout=30,
        )
        pw = pwd.getpwnam(PG_SYSTEM_USER)
    return PG_SYSTEM_USER, pw.pw_uid, pw.pw_gid


def _reachable_by(path: Path, uid: int | None) -> bool:
    """Whether every folder above ``path`` can be entered by ``uid`` (others' x bit, or owned by it)."""
    if uid is None:
        return True
    for parent in path.resolve().parents:
        st = parent.stat()
        if st.st_uid != uid and not st.st_mode & 0o001:
            return False
    return True


def start_postgres(stack: Stack) -> None:
    bindir = postgres_bin()
    user, uid, gid = _pg_identity()
    base = state_dir(stack.root)
    data = base / "pg"
    if not _reachable_by(data, uid):  # e.g. a repository under /root: the postgres user cannot enter it
        data = Path(tempfile.mkdtemp(prefix="replearn-pg-")) / "data"
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True, mode=0o700)
    password = secrets.token_urlsafe(18)
    pwfile = data.parent / f".pgpass-{secrets.token_hex(4)}"
    pwfile.write_text(password + "\n")
    if uid is not None:
        os.chown(data, uid, gid)
        os.chown(pwfile, uid, gid)
        if data.parent != base:
            os.chown(data.parent, uid, gid)
    pwfile.chmod(0o600)
    try:
        res = subprocess.run(
            [str(bindir / "initdb"), "-D", str(data), "-U", PG_USER, "--auth=scram-sha-256", f"--pwfile={pwfile}"]
            + ["-E", "UTF8", "--locale=C"],
            capture_output=True,
            text=True,
            timeout=120,
            user=user,
            cwd=str(data),
        )
    finally:
        pwfile.unlink(missing_ok=True)
    if res.returncode != 0:
        raise ServiceError(f"initdb failed for the throw-away PostgreSQL cluster in {data}:\n{res.stderr[-2000:]}")
    port = free_port()
    stack.env["REPLEARN_PG_DATA"] = str(data)
    stack.spawn(
        "postgres",
        [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-c", f"listen_addresses={HOST}"]
        + ["-c", "unix_socket_directories=", "-c", "fsync=off", "-c", "full_page_writes=off"],
        user=user,
        cwd=str(data),
    )
    import psycopg

    def ready() -> bool:
        try:
            with psycopg.connect(
                host=HOST, port=port, user=PG_USER, password=password, dbname="postgres", connect_timeout=2
            ):
                return True
        except psycopg.Error:
            return False

    stack.wait("postgres", ready, f"{HOST}:{port}")
    with psycopg.connect(host=HOST, port=port, user=PG_USER, password=password, dbname="postgres") as conn:
        conn.autocommit = True
        conn.execute(f"CREATE DATABASE {PG_DATABASE}")
    stack.env["REPLEARN_POSTGRES_URI"] = f"postgresql+psycopg://{PG_USER}:{password}@{HOST}:{port}/{PG_DATABASE}"
    stack.env["REPLEARN_POSTGRES_PORT"] = str(port)


def start_s3(stack: Stack) -> None:
    port = free_port()
    key, secret = f"replearn-{secrets.token_hex(4)}", secrets.token_urlsafe(24)
    stack.spawn("s3", [_venv_program("moto_server"), "-H", HOST, "-p", str(port)])
    url = f"http://{HOST}:{port}"
    stack.wait("s3", lambda: _http_ok(url + "/"), url)
    import boto3

    s3 = boto3.client(
        "s3", endpoint_url=url, aws_access_key_id=key, aws_secret_access_key=secret, region_name="us-east-1"
    )
    s3.create_bucket(Bucket=BUCKET)
    stack.env.update(
        {
            "MLFLOW_S3_ENDPOINT_URL": url,
            "AWS_ACCESS_KEY_ID": key,
            "AWS_SECRET_ACCESS_KEY": secret,
            "AWS_DEFAULT_REGION": "us-east-1",
            "REPLEARN_S3_BUCKET": BUCKET,
        }
    )


def start_mlflow(stack: Stack) -> None:
    port = free_port()
    env = {k: stack.env[k] for k in ("MLFLOW_S3_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    env["AWS_DEFAULT_REGION"] = "us-east-1"
    env["MLFLOW_BACKEND_STORE_URI"] = stack.env["REPLEARN_POSTGRES_URI"]  # the password stays off the command line
    stack.spawn(
        "mlflow",
        [_venv_program("mlflow"), "server", "--host", HOST, "--port", str(port), "--workers", "2"]
        + ["--artifacts-destination", f"s3://{BUCKET}/mlartifacts"],
        env=env,
    )
    url = f"http://{HOST}:{port}"
    stack.wait("mlflow", lambda: _http_ok(url + "/health"), url)
    stack.env["MLFLOW_TRACKING_URI"] = url


def start_dask(stack: Stack) -> None:
    port = free_port()
    address = f"tcp://{HOST}:{port}"
    dask = _venv_program("dask")
    stack.spawn("dask_scheduler", [dask, "scheduler", "--host", HOST, "--port", str(port), "--no-dashboard"])
    stack.wait("dask_scheduler", lambda: _tcp_open(port), address)
    single = {
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    workdir = state_dir(stack.root) / "dask"
    workdir.mkdir(parents=True, exist_ok=True)
    # Dask's nanny would set MALLOC_TRIM_THRESHOLD_, which halves the speed of numpy-heavy fits (compute.py); a
    # config file unsets it (an environment variable cannot: Dask lower-cases the keys it reads from there)
    (workdir / "replearn.yaml").write_text(
        "distributed:\n  nanny:\n    pre-spawn-environ:\n      MALLOC_TRIM_THRESHOLD_: null\n", encoding="utf-8"
    )
    single["DASK_CONFIG"] = str(workdir)
    for i in range(1, N_WORKERS + 1):
        stack.spawn(
            f"dask_worker_{i}",
            [dask, "worker", address, "--nthreads", "1", "--nworkers", "1", "--host", HOST, "--no-dashboard"]
            + ["--name", f"replearn-{i}", "--local-directory", str(workdir)],
            env=single,
        )
    from distributed import Client

    def ready() -> bool:
        for i in range(1, N_WORKERS + 1):
            if stack.procs[f"dask_worker_{i}"].poll() is not None:
                raise ServiceError(
                    f"dask_worker_{i} exited while starting; its log ends with:\n"
                    f"{_tail(stack.logs / f'dask_worker_{i}.log')}"
                )
        with Client(address, timeout="5s", set_as_default=False) as client:
            return len(client.scheduler_info(n_workers=-1)["workers"]) >= N_WORKERS

    stack.wait("dask_scheduler", ready, f"{address} with {N_WORKERS} single-threaded workers")
    stack.env["DASK_SCHEDULER_ADDRESS"] = address


# -- the commands -----------------------------------------------------------------------------------------
def _write_env(root: Path, env: dict[str, str]) -> Path:
    path = service_env.env_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        "# written by `python -m replearn services up` (make services); git-ignored, never commit it.",
        "# tracking=server and compute=dask read the addresses below when none is configured;",
        "# `make services-down` stops the processes recorded here (REPLEARN_PID_*).",
        *(f"{k}={v}" for k, v in env.items()),
    ]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def recorded(root: Path) -> dict[str, int]:
    """The processes the env file records, by service name."""
    env = service_env.read(root)
    out = {}
    for name in ORDER:
        value = env.get(f"REPLEARN_PID_{name.upper()}")
        if value and value.isdigit():
            out[name] = int(value)
    return out


def up(root: Path, report: Callable[[str], None] = lambda line: None) -> dict[str, str]:
    """Start the stack (or report that it runs already); returns the settings written to the env file."""
    root = Path(root).resolve()
    existing = recorded(root)
    if existing and all(pid_alive(p) for p in existing.values()) and len(existing) == len(ORDER):
        report(f"services already up ({service_env.env_path(root)}); `make services-down` stops them")
        return service_env.read(root)
    if existing:
        report("some recorded services are gone: stopping the rest before starting afresh")
        down(root, report)
    check_programs()
    state_dir(root).mkdir(parents=True, exist_ok=True)
    stack = Stack(root, report)
    try:
        for start in (start_postgres, start_s3, start_mlflow, start_dask):
            start(stack)
    except BaseException:
        report("start-up failed: stopping what was started")
        _write_env(root, stack.env)  # so that down() finds exactly these pids
        down(root, report)
        raise
    path = _write_env(root, stack.env)
    report(f"services up; addresses in {path}")
    return stack.env


def _stop(name: str, pid: int, report: Callable[[str], None], timeout: float = 20.0) -> None:
    if not pid_alive(pid):
        report(f"  {name}: pid {pid} not running")
        return
    if EXPECTED[name] not in _settled_cmdline(pid):
        report(f"  {name}: pid {pid} now runs something else; left alone")
        return
    sig = signal.SIGINT if name == "postgres" else signal.SIGTERM  # PostgreSQL: SIGINT is the fast shutdown
    try:
        if os.getpgid(pid) == pid:  # a session leader we started: it and its children (MLflow's workers)
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.2)
    if pid_alive(pid):
        try:
            os.killpg(pid, signal.SIGKILL) if os.getpgid(pid) == pid else os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        report(f"  {name}: pid {pid} killed after {timeout:.0f} s")
    else:
        report(f"  {name}: pid {pid} stopped")


def down(root: Path, report: Callable[[str], None] = lambda line: None) -> list[str]:
    """Stop exactly the recorded processes (reverse start order), delete the throw-away database and the env
    file. Returns the names of the services that were recorded."""
    root = Path(root).resolve()
    env = service_env.read(root)
    pids = recorded(root)
    if not env:
        report(f"no services recorded ({service_env.env_path(root)} does not exist); nothing to stop")
        return []
    for name in reversed(ORDER):
        if name in pids:
            _stop(name, pids[name], report)
    data = env.get("REPLEARN_PG_DATA")
    if data and (Path(data) / "PG_VERSION").is_file() and not pid_alive(pids.get("postgres", -1)):
        shutil.rmtree(data, ignore_errors=True)
        if Path(data).parent.name.startswith("replearn-pg-"):
            shutil.rmtree(Path(data).parent, ignore_errors=True)
    service_env.env_path(root).unlink(missing_ok=True)
    return list(pids)


def status(root: Path) -> list[dict]:
    """One row per service: name, pid, whether it runs, and its address."""
    root = Path(root).resolve()
    env = service_env.read(root)
    pids = recorded(root)
    where = {
        "postgres": f"{HOST}:{env.get('REPLEARN_POSTGRES_PORT', '?')} (database {PG_DATABASE}, "
        f"data {env.get('REPLEARN_PG_DATA', '?')})",
        "s3": f"{env.get('MLFLOW_S3_ENDPOINT_URL', '?')} (bucket {env.get('REPLEARN_S3_BUCKET', '?')})",
        "mlflow": env.get("MLFLOW_TRACKING_URI", "?"),
        "dask_scheduler": env.get("DASK_SCHEDULER_ADDRESS", "?"),
        "dask_worker_1": f"worker of {env.get('DASK_SCHEDULER_ADDRESS', '?')} (1 thread)",
        "dask_worker_2": f"worker of {env.get('DASK_SCHEDULER_ADDRESS', '?')} (1 thread)",
    }
    return [
        {"name": n, "pid": pids.get(n), "running": bool(pids.get(n)) and pid_alive(pids[n]), "address": where[n]}
        for n in ORDER
    ]
