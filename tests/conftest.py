"""Shared fixtures. Tests never read ../shared: fixtures they need live in tests/fixtures/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    # The suite runs on every core already (pytest-xdist): the reproduce stage's own pool of one process per core
    # (replearn.pipeline.reproduce) would only add processes to start. Its parallel path is tested by
    # tests/pipeline/test_reproduce_jobs.py, which sets the variable itself.
    os.environ.setdefault("REPLEARN_REPRODUCE_JOBS", "1")


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def smoke():
    """``tests/browser/smoke_project.py``: the computed smoke project shared by every test that only reads it
    (loaded under the name the browser tests load it by, so one module, and one project, serves them all)."""
    import importlib.util
    import sys

    name = "replearn_tests_smoke_project"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "browser" / "smoke_project.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def single_threaded_blas():
    """One BLAS thread, as the pipeline runs (``replearn.pipeline``): the autodiff, embedding and reproduction
    tests multiply small matrices, and a multi-threaded BLAS on a shared 2-core machine spends most of its
    time waiting for cores (measured 10x slower). threadpoolctl ships with the test extras; without it the
    limit is skipped."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture scope
def pytest_collection_modifyitems(config, items):
    """The ``slow`` tests (whole pipelines, servers, browsers: 10-60 s each) first, everything else in its order.

    Collected in path order, most of them come last (tests/test_end_to_end.py, test_exp_show.py, test_presets.py
    sort after the folders), and under ``pytest -n auto`` one worker then runs a minute-long test while the
    other has nothing left. Started first, they overlap with the many short tests instead (and `make test`'s
    ``--dist worksteal`` lets an idle worker take the other's queued tests). The sort is stable,
    and every xdist worker computes the same order (xdist requires it). A module's module-scoped fixtures stay
    together: the modules that have one are either all slow or use it only in their slow tests."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("slow") is None)
