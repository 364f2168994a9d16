"""Fixtures for the reproduction tests: the vendored reference data and single-threaded BLAS.

The experiments' matrices are small (at most 1000 x 500); on a shared two-core machine a
multi-threaded BLAS makes them tens of times slower, so each test runs with one BLAS thread
(threadpoolctl ships with the test extras; without it the limit is skipped).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data" / "reference"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA_DIR


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread(single_threaded_blas):  # the root conftest's fixture
    yield
