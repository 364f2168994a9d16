"""Fixtures for the reproduction tests: the vendored reference data, single-threaded BLAS, and one shared run of
each preset per (seed, quick) for the whole session.

The experiments' matrices are small (at most 1000 x 500); on a shared two-core machine a
multi-threaded BLAS makes them tens of times slower, so each test runs with one BLAS thread
(threadpoolctl ships with the test extras; without it the limit is skipped).

:func:`preset_run` is the one place a test gets a clean (unplanted) run: the default run of every preset is
shared by test_experiments, test_catalogue and test_page, and its quick run by test_experiments' determinism
check and test_planted_errors' reference run, so each is computed once per session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replearn.reproductions import ExperimentResult, run_experiment

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data" / "reference"

_RUNS: dict[tuple[str, int, bool], ExperimentResult] = {}


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA_DIR


@pytest.fixture(scope="session")
def preset_run():
    """``preset_run(name, seed=0, quick=False)``: the clean result of preset ``name``, computed once per session."""

    def get(name: str, seed: int = 0, quick: bool = False) -> ExperimentResult:
        key = (name, seed, quick)
        if key not in _RUNS:
            _RUNS[key] = run_experiment(name, DATA_DIR, seed=seed, quick=quick)
        return _RUNS[key]

    return get


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread(single_threaded_blas):  # the root conftest's fixture
    yield
