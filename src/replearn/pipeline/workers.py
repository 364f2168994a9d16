"""How many local processes a stage splits its independent work over, and how (:class:`SharedWork`): one rule and
one mechanism for every stage that does.

The reproduce stage (``reproduce: all``), the significance stage (many datasets x pairs) and the report stage's
MLflow logging (hundreds of child runs) each split work whose results never depend on which process did it. How
many processes they use is no parameter of the experiment (outputs are the same for any number, tests compare
them), so it is set by an environment variable per stage, read here: a whole number (``1``: everything in the
stage's own process), or unset for the stage's default. The cluster path (``compute=dask``) is separate: it is
where cross-validation fits go, and configured in ``params.yaml``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence


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


class SharedWork:
    """Tasks computed by this process and ``jobs - 1`` worker processes together: the one mechanism for local
    worker processes (:func:`map_shared`, the reproduce stage's presets, the report stage's MLflow child runs).

    ``SharedWork(jobs, warm=f)`` starts the workers at once and has each run ``f()`` (an import, say) while this
    process prepares the tasks; :meth:`start` ``(fn, tasks, order)`` hands them out -- every worker takes the next
    task (in ``order``: task indices; default as given) when it is free -- and returns at once, so this process
    can do other work meanwhile; :meth:`join` has this process take tasks too until none is left, waits for the
    workers and returns the results in the order of ``tasks`` (raising the first error, in any process, after the
    others have stopped taking tasks); :meth:`cancel` hands out no more and waits for the tasks in hand. The
    workers are a loky process pool of its own (shut down by :meth:`join` or :meth:`cancel`) with one BLAS thread
    each; ``fn`` and the tasks travel to them pickled in
    memory (never to disk). Results never depend on which process computed them, as long as ``fn`` is a function
    of its arguments alone (its seeds derived from them). With ``jobs <= 1`` everything runs in :meth:`join`.
    """

    def __init__(self, jobs: int, *, warm: Callable[[], object] | None = None) -> None:
        import threading

        self.jobs = max(1, int(jobs))
        self._lock = threading.Lock()
        self._executor = None
        self._warming: list = []
        self._feeders: list = []
        self._fn: Callable | None = None
        self._tasks: list[tuple] = []
        self._todo: Iterator[int] = iter(())
        self._results: list = []
        self._errors: list[BaseException] = []
        self._stopped = False
        self._taken = 0
        if self.jobs > 1:  # a pool of its own: loky's global reusable one is joblib's too, which Parallel (the
            # cross-validation fits) reconfigures as its own kind; sharing it breaks the one or the other
            from joblib.externals.loky import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(max_workers=self.jobs - 1, env=ONE_THREAD_ENV)
            if warm is not None:  # one per worker: each starts (and imports) now, beside this process
                self._warming = [self._executor.submit(warm) for _ in range(self.jobs - 1)]

    @property
    def taken(self) -> int:
        """How many tasks some process has taken so far."""
        with self._lock:
            return self._taken

    def _take(self) -> int | None:
        with self._lock:
            if self._errors or self._stopped:
                return None
            i = next(self._todo, None)
            if i is not None:
                self._taken += 1
            return i

    def _fail(self, exc: BaseException, first: bool = False) -> None:
        with self._lock:
            if first:
                self._errors.insert(0, exc)
            else:
                self._errors.append(exc)

    def start(self, fn: Callable, tasks: Sequence[tuple], *, order: Sequence[int] | None = None) -> SharedWork:
        """Hand ``fn(*task)`` for every task to the workers as they are free (this process joins in at
        :meth:`join`); returns at once."""
        import threading

        self._fn, self._tasks = fn, list(tasks)
        self._results = [None] * len(self._tasks)
        self._todo = iter(range(len(self._tasks)) if order is None else list(order))
        if self._executor is None or not self._tasks:
            return self
        executor = self._executor

        def feed() -> None:  # one task at a time to one worker process
            try:
                while (i := self._take()) is not None:
                    self._results[i] = executor.submit(fn, *self._tasks[i]).result()
            except BaseException as exc:  # noqa: BLE001 - raised by join()
                self._fail(exc)

        self._feeders = [threading.Thread(target=feed, daemon=True) for _ in range(self.jobs - 1)]
        for thread in self._feeders:
            thread.start()
        return self

    def _wait(self) -> None:
        for thread in self._feeders:
            thread.join()
        self._feeders = []
        for future in self._warming:  # a worker that could not start shows here
            try:
                future.result()
            except BaseException as exc:  # noqa: BLE001 - raised by join()
                self._fail(exc)
        self._warming = []
        if self._executor is not None:  # every task is done or dropped: the workers exit
            self._executor.shutdown(wait=True)
            self._executor = None

    def join(self) -> list:
        """This process takes the tasks left until none is; then the workers' results, in the order of the tasks.
        The first error (this process's own first) is raised once every process has stopped."""
        fn = self._fn
        try:
            while fn is not None and (i := self._take()) is not None:
                self._results[i] = fn(*self._tasks[i])
        except BaseException as exc:
            self._fail(exc, first=True)
        self._wait()
        if self._errors:
            raise self._errors[0]
        return list(self._results)

    def cancel(self) -> None:
        """Hand out no more tasks and wait for those in hand (their errors are dropped: the caller is stopping)."""
        with self._lock:
            self._stopped = True
        self._wait()


def map_shared(fn: Callable, tasks: Sequence[tuple], jobs: int, *, order: Sequence[int] | None = None) -> list:
    """``[fn(*task) for task in tasks]``, computed by this process and ``jobs - 1`` worker processes together
    (:class:`SharedWork`): every process takes the next task (in ``order``: task indices, e.g. the longest first;
    default as given) when it is free, so this process works instead of waiting, and a worker's start-up (a
    fresh interpreter importing what ``fn`` needs) overlaps with this process's first tasks. The results come in
    the order of ``tasks``; the first error, in any process, stops the others taking tasks and is raised."""
    return SharedWork(jobs if len(tasks) > 1 else 1).start(fn, tasks, order=order).join()
