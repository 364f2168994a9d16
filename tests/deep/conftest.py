"""Single-threaded BLAS for these tests, as the pipeline does (``replearn.pipeline``): the models
multiply small matrices, and a multi-threaded BLAS on a shared 2-core machine spends most of its
time waiting for cores (measured 10x slower)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def _single_threaded_blas():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # threadpoolctl comes with scikit-learn (the test extras); without it, run as is
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
