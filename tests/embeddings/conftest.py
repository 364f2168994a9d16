"""Every test here runs with one BLAS thread (the root conftest's ``single_threaded_blas``)."""

import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread(single_threaded_blas):
    yield
