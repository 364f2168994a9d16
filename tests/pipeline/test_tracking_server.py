"""tracking=server (issue 15) without a server: where the address comes from, and a server that is down is a clear
error within seconds, before any run is created (nothing half-written), with no local file lock involved."""

from __future__ import annotations

import socket
import time

import pytest

from replearn.exceptions import ServiceError
from replearn.pipeline import tracking


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def no_stack(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    monkeypatch.setenv("REPLEARN_SERVICES_ENV", str(tmp_path / "env"))
    return tmp_path / "env"


def test_server_address_comes_from_the_env_then_the_config_then_the_services_file(no_stack, tmp_path, monkeypatch):
    no_stack.write_text("MLFLOW_TRACKING_URI=http://127.0.0.1:4999\n")
    target = tracking.resolve_target(tmp_path, None, server=True)
    assert target.tracking_uri == "http://127.0.0.1:4999" and target.lock_file is None  # no SQLite lock on a server
    assert tracking.resolve_target(tmp_path, "http://mlflow.invalid:80", server=True).tracking_uri == (
        "http://mlflow.invalid:80"
    )
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:4998")
    assert tracking.resolve_target(tmp_path, "http://mlflow.invalid:80", server=True).tracking_uri.endswith(":4998")
    # the local default never reads the services file
    monkeypatch.delenv("MLFLOW_TRACKING_URI")
    assert tracking.resolve_target(tmp_path, None).tracking_uri.startswith("sqlite:///")


def test_server_mode_without_any_address_says_how_to_get_one(no_stack, tmp_path):
    with pytest.raises(ServiceError, match=r"tracking=server needs the address.*make services"):
        tracking.resolve_target(tmp_path, None, server=True)


def test_a_server_that_is_down_fails_fast_and_logs_nothing(no_stack, tmp_path, monkeypatch):
    uri = f"http://127.0.0.1:{_closed_port()}"
    params = {"tracking": {"enabled": True, "experiment": "x", "tracking_uri": uri, "server": True}}
    created = []
    monkeypatch.setattr(tracking.run, "_client", lambda *a, **k: created.append(a))  # must never be reached
    start = time.monotonic()
    with pytest.raises(ServiceError, match=rf"{uri} does not answer.*local results.*intact"):
        tracking.log_pipeline_run(
            params=params, crossval={}, significance={}, train_metrics={}, artifacts=[], project_root=tmp_path
        )
    assert time.monotonic() - start < tracking.HEALTH_TIMEOUT_S + 5
    assert created == [] and not (tmp_path / "mlflow.db").exists() and not (tmp_path / "mlflow.db.lock").exists()


def test_two_runs_creating_the_experiment_at_once_share_it(tmp_path, monkeypatch):
    """A server target has no file lock: when another run creates the experiment between this run's lookup and its
    create (a `dvc queue start -j 2`), the create's RESOURCE_ALREADY_EXISTS is answered with the other's experiment."""
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'store.db'}"
    target = tracking.TrackingTarget(tracking_uri=uri, artifact_root=tmp_path / "art", lock_file=None, root=tmp_path)
    real_lookup = MlflowClient.get_experiment_by_name
    calls = []

    def racing_lookup(self, name):
        calls.append(name)
        if len(calls) == 1:  # the first lookup misses; meanwhile another run creates the experiment
            MlflowClient(tracking_uri=uri).create_experiment(name)
            return None
        return real_lookup(self, name)

    monkeypatch.setattr(MlflowClient, "get_experiment_by_name", racing_lookup)
    client, experiment_id = tracking._client(target, "raced")
    assert experiment_id == real_lookup(client, "raced").experiment_id and len(calls) == 2
