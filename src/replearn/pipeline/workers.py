"""How many local processes a stage splits its independent work over: one rule for every stage that does.

The reproduce stage (``reproduce: all``), the significance stage (many datasets x pairs) and the report stage's
MLflow logging (hundreds of child runs) each split work whose results never depend on which process did it. How
many processes they use is no parameter of the experiment (outputs are the same for any number, tests compare
them), so it is set by an environment variable per stage, read here: a whole number (``1``: everything in the
stage's own process), or unset for the stage's default. The cluster path (``compute=dask``) is separate: it is
where cross-validation fits go, and configured in ``params.yaml``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence


def processes(env: str, n_tasks: int, default: int) -> int:
    """``$env`` as a number of processes, else ``default``; at least 1 and at most ``n_tasks``.

    Raises :class:`~replearn.exceptions.ConfigError` naming the variable when it is set to something else than a
    whole number."""
    raw = os.environ.get(env, "").strip()
    if raw:
        try:
            wanted = int(raw)
        except ValueError:
            from ..exceptions import ConfigError

            raise ConfigError(f"{env}={raw!r}: expected a whole number of processes (1 = serial)") from None
    else:
        wanted = default
    return max(1, min(wanted, max(n_tasks, 1)))


def cores() -> int:
    """The machine's cores (``os.cpu_count()``; 1 when it cannot tell): the default for work that fills them."""
    return max(1, os.cpu_count() or 1)


#: what limits the thread pools of BLAS, OpenMP and numba in a worker process (one thread each: the processes share
#: the cores); the names joblib sets for its own workers
ONE_THREAD_ENV = {
    name: "1"
    for name in (
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "BLIS_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "NUMBA_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
    )
}


def map_shared(fn: Callable, tasks: Sequence[tuple], jobs: int, *, order: Sequence[int] | None = None) -> list:
    """``[fn(*task) for task in tasks]``, computed by this process and ``jobs - 1`` worker processes together.

    Every process takes the next task (in ``order``: task indices, e.g. the longest first; default as given) when it
    is free, so this process works instead of waiting, and a worker's start-up (a fresh interpreter importing what
    ``fn`` needs) overlaps with this process's first tasks. The workers are joblib's loky processes with one BLAS
    thread each; ``fn`` and the tasks travel to them pickled in memory (never to disk). The results come in the
    order of ``tasks`` and do not depend on which process computed them, as long as ``fn`` is a function of its
    arguments alone (its seeds derived from them). The first error, in any process, stops the others taking tasks
    and is raised.
    """
    tasks = list(tasks)
    todo = iter(range(len(tasks)) if order is None else order)
    if jobs <= 1 or len(tasks) <= 1:
        return [fn(*tasks[i]) for i in range(len(tasks))]
    import threading

    from joblib.externals.loky import get_reusable_executor

    executor = get_reusable_executor(max_workers=jobs - 1, env=ONE_THREAD_ENV)
    results: list = [None] * len(tasks)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def take() -> int | None:
        with lock:
            return None if errors else next(todo, None)

    def feed() -> None:  # one task at a time to one worker process
        try:
            while (i := take()) is not None:
                results[i] = executor.submit(fn, *tasks[i]).result()
        except BaseException as exc:  # noqa: BLE001 - re-raised by the calling thread below
            with lock:
                errors.append(exc)

    feeders = [threading.Thread(target=feed, daemon=True) for _ in range(jobs - 1)]
    for thread in feeders:
        thread.start()
    try:
        while (i := take()) is not None:
            results[i] = fn(*tasks[i])
    except BaseException as exc:
        with lock:
            errors.insert(0, exc)
    for thread in feeders:
        thread.join()
    if errors:
        raise errors[0]
    return results
