"""pipeline.workers: how many local processes a stage uses, and map_shared (this process plus worker processes)."""

from __future__ import annotations

import operator

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
