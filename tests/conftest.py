"""Shared fixtures. Tests never read ../shared: fixtures they need live in tests/fixtures/."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


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
