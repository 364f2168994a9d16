"""Where the fits of a stage run: the ``compute`` config group.

* ``compute=local`` (the default): joblib processes on this machine, ``cv.n_jobs`` of them, exactly as
  before; :func:`session` yields None and nothing else is started or imported.
* ``compute=dask``: a Dask cluster. ``compute.scheduler`` is its address (``tcp://host:port``); when it is
  empty, ``DASK_SCHEDULER_ADDRESS`` from the environment or from the env file that ``make services`` writes
  (:mod:`.service_env`); when there is none either, a ``dask.distributed.LocalCluster`` of
  ``compute.n_workers`` single-threaded worker processes is started for the run and stopped after it.

The algorithm layer knows nothing of Dask: :func:`replearn.evaluation.crossval.cross_validate` takes any
``executor`` with ``map(fn, tasks, shared=())``. :class:`DaskExecutor` sends the shared inputs once per call,
cuts the tasks into chunks (a fit of a few milliseconds costs less than a round trip to a worker), lets the
scheduler place them and yields the results in the order of the tasks, so the output is the serial one for any
number of workers: every seed derives from names, never from where or when a task ran. A worker that dies is
replaced by its nanny and the scheduler reruns what it held (``distributed.scheduler.allowed-failures``).
Workers run BLAS single-threaded: the nanny sets ``OMP_NUM_THREADS=1``, ``OPENBLAS_NUM_THREADS=1`` and
``MKL_NUM_THREADS=1`` before a worker starts (Dask's ``distributed.nanny.pre-spawn-environ``), and
``make services`` starts its workers with them too.
"""

from __future__ import annotations

import logging
import math
import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..exceptions import ServiceError
from . import service_env

BACKENDS = ("local", "dask")
#: how long to wait for a scheduler (and for its first worker) before giving up with a clear error
CONNECT_TIMEOUT_S = 10
#: chunks per worker thread when compute.chunk_size is not set: enough to balance uneven fits, few enough
#: that the round trips stay small against the fits
CHUNKS_PER_WORKER = 4
INSTALL_HINT = "pip install -e '.[services]' (Dask's distributed scheduler)"
#: Dask config for the nannies that start workers. Dask sets MALLOC_TRIM_THRESHOLD_=65536 in every worker by
#: default; a fixed threshold also fixes glibc's mmap threshold, so every array above 128 KiB is mapped and
#: unmapped afresh: the fits of the neural preset ran 2x slower in a worker than in the stage (measured; see
#: docs/performance.md). None unsets it (glibc's adaptive default); BLAS stays single-threaded.
WORKER_CONFIG = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}


@contextmanager
def session(params: dict, root: Path | None = None) -> Iterator[DaskExecutor | None]:
    """The executor for this stage run: None for ``compute=local`` (joblib, ``cv.n_jobs``), else a Dask one."""
    cfg = params.get("compute") or {"backend": "local"}
    if cfg.get("backend", "local") == "local":
        yield None
        return
    with dask_executor(cfg, root) as executor:
        yield executor


def scheduler_address(cfg: dict, root: Path | None = None) -> str | None:
    """``compute.scheduler``, else ``DASK_SCHEDULER_ADDRESS`` (environment, then the services env file)."""
    return (cfg.get("scheduler") or "").strip() or service_env.lookup("DASK_SCHEDULER_ADDRESS", root)


@contextmanager
def dask_executor(cfg: dict, root: Path | None = None) -> Iterator[DaskExecutor]:
    """A :class:`DaskExecutor` on the configured scheduler, or on a LocalCluster started (and stopped) here."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ServiceError(f"compute=dask needs Dask, which is not installed: {INSTALL_HINT}") from exc
    address = scheduler_address(cfg, root)
    cluster = None
    if address:
        try:
            client = Client(address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ServiceError(
                f"the Dask scheduler {address} cannot be reached within {CONNECT_TIMEOUT_S} s ({exc}); start it "
                "(`make services` starts one on this machine), set compute.scheduler to a running one, or run "
                "with compute=local; no result was written"
            ) from exc
    else:
        import dask

        n_workers = cfg.get("n_workers") or os.cpu_count() or 1
        with dask.config.set(WORKER_CONFIG):
            cluster = LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",  # Dask's HTTP server on a free loopback port, not 8787 of all hosts
                silence_logs=logging.ERROR,
            )
        client = Client(cluster, set_as_default=False)
    try:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            raise ServiceError(
                f"the Dask scheduler {address or 'of the LocalCluster'} has no worker after {CONNECT_TIMEOUT_S} s; "
                "start workers (`dask worker <address> --nthreads 1`) or run with compute=local"
            ) from exc
        yield DaskExecutor(client, chunk_size=cfg.get("chunk_size"))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def chunk_count(n_tasks: int, n_slots: int, chunk_size: int | None = None) -> int:
    """How many chunks ``n_tasks`` tasks are cut into: ``chunk_size`` tasks each when it is set, else
    :data:`CHUNKS_PER_WORKER` per worker thread (never more chunks than tasks)."""
    if n_tasks <= 0:
        return 0
    if chunk_size:
        return math.ceil(n_tasks / chunk_size)
    return min(n_tasks, CHUNKS_PER_WORKER * max(1, n_slots))


def chunks(tasks: list, n_chunks: int) -> list[list]:
    """``tasks`` cut into ``n_chunks`` consecutive runs of nearly equal length, in order."""
    n = len(tasks)
    bounds = [round(i * n / n_chunks) for i in range(n_chunks + 1)]
    return [tasks[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def _shared(value):
    return value


def run_chunk(fn: Callable, shared: tuple, chunk: list[tuple]) -> list:
    """What a worker runs: ``fn(*shared, *task)`` for each task of the chunk, in order."""
    return [fn(*shared, *task) for task in chunk]


class DaskExecutor:
    """``map(fn, tasks, shared)`` on a Dask cluster, in chunks, results in the order of ``tasks``."""

    def __init__(self, client, chunk_size: int | None = None):
        self.client = client
        self.chunk_size = chunk_size

    def n_slots(self) -> int:
        """Worker threads the scheduler knows now."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        return sum(int(w.get("nthreads", 1)) for w in workers.values())

    def map(self, fn: Callable, tasks: Iterable[tuple], shared: tuple = ()) -> Iterator:
        tasks = list(tasks)
        if not tasks:
            return
        tag = uuid.uuid4().hex[:12]  # task keys of this call only (two stages may share a scheduler)
        # the shared inputs travel once, as a task the scheduler can recompute if the worker holding it dies
        shared_future = self.client.submit(_shared, shared, pure=False, key=f"replearn-shared-{tag}")
        parts = chunks(tasks, chunk_count(len(tasks), self.n_slots(), self.chunk_size))
        futures = [
            self.client.submit(run_chunk, fn, shared_future, part, pure=False, key=f"replearn-chunk-{tag}-{i}")
            for i, part in enumerate(parts)
        ]
        try:
            for future in futures:
                yield from future.result()
        finally:
            self.client.cancel([*futures, shared_future])
