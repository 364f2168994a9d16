"""The local scale-out stack (`make services`) for the tests of tests/services/.

The tests are marked ``services``: they need PostgreSQL, the S3 endpoint, the MLflow server and the Dask scheduler
that ``make services`` starts. When they are not up the tests are skipped, saying why; with
``REPLEARN_REQUIRE_SERVICES=1`` (CI's .ci/run starts the stack) they fail instead."""

from __future__ import annotations

import os
import socket
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from replearn.pipeline import service_env

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Stack:
    env_file: Path
    env: dict

    @property
    def mlflow(self) -> str:
        return self.env["MLFLOW_TRACKING_URI"]

    def s3(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.env["MLFLOW_S3_ENDPOINT_URL"],
            aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"],
            region_name=self.env.get("AWS_DEFAULT_REGION", "us-east-1"),
        )


def _problem(env_file: Path, env: dict) -> str | None:
    """Why the stack cannot be used, or None."""
    if not env:
        return f"the services are not up ({env_file} does not exist): start them with `make services`"
    needed = ("MLFLOW_TRACKING_URI", "DASK_SCHEDULER_ADDRESS", "MLFLOW_S3_ENDPOINT_URL", "REPLEARN_S3_BUCKET")
    missing = [k for k in needed if not env.get(k)]
    if missing:
        return f"{env_file} lacks {', '.join(missing)}: restart the stack (`make services-down services`)"
    for what, url in (("MLflow server", env["MLFLOW_TRACKING_URI"] + "/health"), ("S3", env["MLFLOW_S3_ENDPOINT_URL"])):
        try:
            with urllib.request.urlopen(url, timeout=5) as res:
                if res.status != 200:
                    return f"the {what} at {url} answers HTTP {res.status}"
        except OSError as exc:
            return f"the {what} at {url} does not answer ({exc}): `make services-status`"
    host, port = env["DASK_SCHEDULER_ADDRESS"].removeprefix("tcp://").rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        return f"the Dask scheduler {env['DASK_SCHEDULER_ADDRESS']} does not answer ({exc})"
    return None


@pytest.fixture(scope="session")
def stack() -> Stack:
    env_file = Path(os.environ.get(service_env.ENV_VAR) or ROOT / service_env.SERVICES_DIR / service_env.ENV_FILE)
    env = service_env.parse(env_file.read_text()) if env_file.is_file() else {}
    problem = _problem(env_file, env)
    if problem:
        if os.environ.get("REPLEARN_REQUIRE_SERVICES") == "1":
            pytest.fail(f"REPLEARN_REQUIRE_SERVICES=1 but {problem}")
        pytest.skip(problem)
    return Stack(env_file, env)
