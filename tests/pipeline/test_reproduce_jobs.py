"""The reproduce stage's presets run in several processes with the results of one (they never depend on it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline import reproduce

ROOT = Path(__file__).resolve().parents[2]
#: the stage's own process runs presets with one BLAS thread (``replearn.pipeline``), as its workers do; this test's
#: process may have loaded numpy with more, and a BLAS reduction split over two threads can move a last bit
pytestmark = pytest.mark.usefixtures("single_threaded_blas")

CHEAP = ["cs229_housing", "cs229_logistic", "cs480_examples", "epfl_examples"]  # tens of milliseconds each


def test_parallel_presets_equal_serial_ones(monkeypatch):
    monkeypatch.setenv(reproduce.JOBS_ENV, "1")
    serial = reproduce._run_presets(CHEAP, 7, ROOT)
    monkeypatch.setenv(reproduce.JOBS_ENV, "2")
    parallel = reproduce._run_presets(CHEAP, 7, ROOT)
    assert list(parallel) == CHEAP  # in the order asked for, whatever order they ran in
    assert json.dumps(parallel, sort_keys=True) == json.dumps(serial, sort_keys=True)
    assert parallel["cs229_housing"]["seed"] == reproduce.preset_seed(7, "cs229_housing")


def test_jobs_default_to_the_cores_and_read_the_override(monkeypatch):
    monkeypatch.delenv(reproduce.JOBS_ENV, raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert reproduce.reproduce_jobs(17) == 2 and reproduce.reproduce_jobs(1) == 1
    monkeypatch.setenv(reproduce.JOBS_ENV, "8")
    assert reproduce.reproduce_jobs(17) == 8 and reproduce.reproduce_jobs(3) == 3
    monkeypatch.setenv(reproduce.JOBS_ENV, "0")
    assert reproduce.reproduce_jobs(17) == 1
    monkeypatch.setenv(reproduce.JOBS_ENV, "all")
    with pytest.raises(ConfigError, match="REPLEARN_REPRODUCE_JOBS='all'"):
        reproduce.reproduce_jobs(17)


def test_the_longest_presets_exist():
    # handed out first by name: a renamed preset would silently lose its place at the front
    from replearn.reproductions import EXPERIMENTS

    assert set(reproduce.LONGEST_FIRST) <= set(EXPERIMENTS)
