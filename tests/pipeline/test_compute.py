"""The compute layer (issue 15): cross-validation on a Dask LocalCluster of two single-threaded worker processes
gives byte for byte the serial result, for any chunking, and still does when a worker process is killed mid-run;
compute=local starts nothing; a scheduler that is down is a clear error, not a hang.

Needs Dask (the ``services`` extra): skipped without it, except when REPLEARN_REQUIRE_SERVICES=1 (CI)."""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pytest

from replearn.evaluation.crossval import ModelSpec, cross_validate
from replearn.evaluation.splits import make_splits
from replearn.exceptions import ServiceError
from replearn.pipeline import compute

if os.environ.get("REPLEARN_REQUIRE_SERVICES") != "1":
    pytest.importorskip("distributed", reason="Dask is not installed: pip install -e '.[services]'")

MODELS = [
    ModelSpec("logreg", "logistic_regression", {}),
    ModelSpec("knn", "knn", {"n_neighbors": 5}),
    ModelSpec("mlp", "mlp", {"hidden_layer_sizes": [16], "max_iter": 60}),  # seeded: random_state per split
]


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(loc=c, size=(60, 4)) for c in (0.0, 1.2, 2.4)])
    y = np.repeat(np.arange(3), 60)
    splits = make_splits("repeated_stratified_kfold", y, folds=3, repeats=2, seed=11)
    return X, y, splits


def _cv(problem, executor=None, models=MODELS):
    from threadpoolctl import threadpool_limits

    X, y, splits = problem
    seeds = {m.key: [1000 + 17 * i + len(m.key) for i in range(len(splits))] for m in models}  # every model seeded
    with threadpool_limits(limits=1, user_api="blas"):  # every BLAS loaded by now: one thread, as in a worker
        res = _cross_validate(X, y, splits, models, seeds, executor)
    return json.dumps(res, sort_keys=True)


def _cross_validate(X, y, splits, models, seeds, executor):
    return cross_validate(
        X,
        y,
        splits,
        models,
        task="classification",
        metrics=["accuracy", "f1_macro"],
        feature_steps=[{"name": "standardize", "params": {}}],
        model_seeds=seeds,
        progress=False,
        executor=executor,
    )


@pytest.fixture(scope="module")
def no_service_env(tmp_path_factory):
    """compute=dask with no scheduler anywhere: a LocalCluster (never the stack `make services` may have up)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("REPLEARN_SERVICES_ENV", str(tmp_path_factory.mktemp("noenv") / "env"))
    mp.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    yield
    mp.undo()


@pytest.fixture(scope="module")
def dask2(no_service_env):
    with compute.session({"compute": {"backend": "dask", "scheduler": None, "n_workers": 2}}) as executor:
        yield executor


def test_local_backend_starts_nothing():
    with compute.session({"compute": {"backend": "local", "scheduler": None}}) as executor:
        assert executor is None
    with compute.session({}) as executor:  # a params file from before the compute group
        assert executor is None


@pytest.mark.parametrize("chunk_size", [None, 1, 4, 1000])
def test_dask_two_workers_is_byte_identical_to_serial(problem, dask2, chunk_size):
    assert dask2.n_slots() == 2
    dask2.chunk_size = chunk_size
    try:
        assert _cv(problem, dask2) == _cv(problem)
    finally:
        dask2.chunk_size = None


def test_workers_run_blas_single_threaded(dask2):
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MALLOC_TRIM_THRESHOLD_")
    env = dask2.client.run(lambda: [os.environ.get(v) for v in names])
    # one BLAS thread; and not Dask's fixed malloc trim threshold, which made numpy-heavy fits 2x slower
    assert len(env) == 2 and all(v == ["1", "1", None] for v in env.values())


class KillOneWorkerAfterFirstResult:
    """Wraps an executor; when the first result arrives, SIGKILLs one worker process (its nanny restarts it)."""

    def __init__(self, inner):
        self.inner, self.killed, self.remaining_at_kill = inner, None, None

    def map(self, fn, tasks, shared=()):
        tasks = list(tasks)
        for i, out in enumerate(self.inner.map(fn, tasks, shared=shared)):
            if self.killed is None:
                pids = self.inner.client.run(os.getpid)
                addr, self.killed = sorted(pids.items())[0]
                self.remaining_at_kill = len(tasks) - i - 1
                os.kill(self.killed, signal.SIGKILL)
            yield out


def test_a_killed_worker_is_replaced_and_the_result_is_identical(problem, no_service_env):
    heavy = [*MODELS, ModelSpec("mlp_wide", "mlp", {"hidden_layer_sizes": [64, 64], "max_iter": 150})]
    serial = _cv(problem, models=heavy)
    with compute.session({"compute": {"backend": "dask", "scheduler": None, "n_workers": 2, "chunk_size": 1}}) as ex:
        killer = KillOneWorkerAfterFirstResult(ex)
        assert _cv(problem, killer, models=heavy) == serial
        assert killer.remaining_at_kill > 2  # killed mid-run, with work still to do on both workers
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            pids = set(ex.client.run(os.getpid).values())
            if len(pids) == 2 and killer.killed not in pids:
                break
            time.sleep(0.2)
        assert killer.killed not in pids and len(pids) == 2, "the killed worker was not replaced"


def test_chunks_keep_order_and_cover_every_task():
    tasks = list(range(23))
    for n in (1, 2, 5, 8, 23):
        parts = compute.chunks(tasks, n)
        assert len(parts) == n and [t for p in parts for t in p] == tasks
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert compute.chunk_count(40, 2) == 8 and compute.chunk_count(3, 2) == 3
    assert compute.chunk_count(40, 2, chunk_size=5) == 8 and compute.chunk_count(0, 2) == 0


def test_a_scheduler_that_is_down_is_a_clear_error_within_the_timeout(no_service_env, monkeypatch):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(compute, "CONNECT_TIMEOUT_S", 2)
    start = time.monotonic()
    with pytest.raises(ServiceError, match=rf"tcp://127.0.0.1:{port} cannot be reached.*compute=local"):
        with compute.session({"compute": {"backend": "dask", "scheduler": f"tcp://127.0.0.1:{port}"}}):
            pass
    assert time.monotonic() - start < 30


def test_the_scheduler_address_comes_from_the_services_env_file(tmp_path, monkeypatch):
    env = tmp_path / "env"
    env.write_text("# written by make services\nDASK_SCHEDULER_ADDRESS=tcp://127.0.0.1:4242\n")
    monkeypatch.setenv("REPLEARN_SERVICES_ENV", str(env))
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    assert compute.scheduler_address({"scheduler": None}) == "tcp://127.0.0.1:4242"
    assert compute.scheduler_address({"scheduler": "tcp://scheduler.invalid:8786"}) == "tcp://scheduler.invalid:8786"
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://127.0.0.1:5151")
    assert compute.scheduler_address({"scheduler": ""}) == "tcp://127.0.0.1:5151"
    env.unlink()
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    assert compute.scheduler_address({"scheduler": None}) is None  # -> a LocalCluster for the run
