"""pipeline.workers: how many local processes a stage uses, and map_shared (this process plus worker processes)."""

from __future__ import annotations

import operator
import sys

import cloudpickle
import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline import workers


def test_processes_reads_the_variable_and_keeps_within_the_tasks(monkeypatch):
    monkeypatch.delenv("REPLEARN_TEST_JOBS", raising=False)
    assert workers.processes("REPLEARN_TEST_JOBS", 10, default=3) == 3
    assert workers.processes("REPLEARN_TEST_JOBS", 2, default=3) == 2  # never more processes than tasks
    assert workers.processes("REPLEARN_TEST_JOBS", 0, default=3) == 1
    monkeypatch.setenv("REPLEARN_TEST_JOBS", " 4 ")
    assert workers.processes("REPLEARN_TEST_JOBS", 10, default=1) == 4
    monkeypatch.setenv("REPLEARN_TEST_JOBS", "-2")
    assert workers.processes("REPLEARN_TEST_JOBS", 10, default=1) == 1
    monkeypatch.setenv("REPLEARN_TEST_JOBS", "four")
    with pytest.raises(ConfigError, match="REPLEARN_TEST_JOBS='four': expected a whole number"):
        workers.processes("REPLEARN_TEST_JOBS", 10, default=1)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_map_shared_returns_the_results_in_the_order_of_the_tasks_whatever_order_they_ran_in(jobs):
    tasks = [(2, i) for i in range(25)]
    order = list(reversed(range(25)))
    assert workers.map_shared(pow, tasks, jobs, order=order) == [2**i for i in range(25)]
    assert workers.map_shared(pow, tasks[:1], jobs) == [1]
    assert workers.map_shared(pow, [], jobs) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_shared_raises_the_first_error_of_any_process(jobs):
    tasks = [(1.0, 2.0)] * 6 + [(1.0, 0.0)] + [(3.0, 4.0)] * 6
    with pytest.raises(ZeroDivisionError):
        workers.map_shared(operator.truediv, tasks, jobs)


# the helpers below travel to the worker processes by value: a worker cannot import this test module
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _pid(_: int = 0) -> int:
    import os

    return os.getpid()


def _wait_for(path: str) -> str:
    import os
    import time

    while not os.path.exists(path):
        time.sleep(0.01)
    return path


def _refuse() -> None:
    raise RuntimeError("this worker cannot start")


def _until(condition) -> None:
    import time

    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, "the workers never got there"
        time.sleep(0.01)


def test_shared_work_starts_at_once_and_the_workers_take_the_tasks_while_this_process_is_busy():
    """The report stage's MLflow logging: start, write the reports meanwhile, then join."""
    import os

    work = workers.SharedWork(2, warm=_pid).start(_pid, [(i,) for i in range(3)])
    _until(lambda: work.taken == 3)  # this process took none: it was busy
    pids = work.join()
    assert len(pids) == 3 and os.getpid() not in pids and len(set(pids)) == 1


def test_shared_work_in_one_process_runs_everything_in_join():
    import os

    work = workers.SharedWork(1).start(_pid, [(i,) for i in range(3)])
    assert work.taken == 0
    assert work.join() == [os.getpid()] * 3 and work.taken == 3


def test_cancelled_shared_work_hands_out_no_more_tasks_and_waits_for_those_in_hand(tmp_path):
    import threading

    gate = tmp_path / "gate"
    work = workers.SharedWork(2).start(_wait_for, [(str(gate),)] * 5)
    _until(lambda: work.taken == 1)  # the worker holds the first task, which waits for the gate
    cancelling = threading.Thread(target=work.cancel)
    cancelling.start()
    _until(lambda: work._stopped)
    gate.touch()  # the task in hand ends; no other is handed out
    cancelling.join(timeout=120)
    assert not cancelling.is_alive() and work.taken == 1


def test_shared_work_cancelled_before_any_task_ends_cleanly_and_a_worker_that_cannot_warm_up_fails_join():
    workers.SharedWork(3, warm=_pid).cancel()  # started workers, nothing to do (a run that logs nothing)
    work = workers.SharedWork(2, warm=_refuse).start(_pid, [(0,)])
    with pytest.raises(RuntimeError, match="this worker cannot start"):
        work.join()


def test_shared_work_leaves_joblib_parallel_working_in_the_same_process():
    """The train stage's datasets (map_shared) and the cross-validation fits (joblib.Parallel) in one process: a
    shared loky pool broke the second ('_ReusablePoolExecutor' has no '_temp_folder_manager')."""
    from joblib import Parallel, delayed

    assert workers.map_shared(pow, [(2, i) for i in range(4)], 2) == [1, 2, 4, 8]
    assert Parallel(n_jobs=2)(delayed(pow)(3, i) for i in range(4)) == [1, 3, 9, 27]
    assert workers.map_shared(pow, [(2, i) for i in range(4)], 2) == [1, 2, 4, 8]
