"""`make services` without starting the stack: a missing program is a clear error naming how to install it, and
`services-down` stops exactly the recorded processes (a recorded pid that now runs another program is left alone)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from replearn import services
from replearn.exceptions import ServiceError
from replearn.pipeline import service_env


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.delenv(service_env.ENV_VAR, raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    return tmp_path


def test_missing_postgresql_names_the_apt_package(tmp_path, monkeypatch):
    monkeypatch.setattr(services, "PG_ROOT", tmp_path / "nothing")
    monkeypatch.setenv("REPLEARN_PG_BIN", str(tmp_path))
    monkeypatch.setattr(services.shutil, "which", lambda name: None)
    with pytest.raises(ServiceError, match=r"initdb, postgres\) are not installed: apt-get install postgresql"):
        services.postgres_bin()


def test_a_missing_python_program_names_the_services_extra(monkeypatch):
    monkeypatch.setattr(services.shutil, "which", lambda name: None)
    with pytest.raises(ServiceError, match=r"'no-such-server' is not installed.*pip install -e '\.\[services\]'"):
        services._venv_program("no-such-server")


def test_down_with_nothing_recorded_stops_nothing(root):
    said = []
    assert services.down(root, said.append) == []
    assert "nothing to stop" in said[0]
    assert [r["running"] for r in services.status(root)] == [False] * len(services.ORDER)


def test_down_leaves_a_recorded_pid_alone_when_it_runs_another_program(root):
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        env = service_env.env_path(root)
        env.parent.mkdir(parents=True)
        env.write_text(f"REPLEARN_PID_S3={other.pid}\nMLFLOW_S3_ENDPOINT_URL=http://127.0.0.1:1\n")
        said = []
        assert services.down(root, said.append) == ["s3"]
        assert any("now runs something else; left alone" in line for line in said)
        assert other.poll() is None, "down killed a process it did not start"
        assert not env.exists()
    finally:
        other.kill()
        other.wait()


def _recorded_s3_stand_in(root):
    """A process whose command line names moto_server, recorded in the services env file as the S3 endpoint."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time, sys; time.sleep(60)", "moto_server"], start_new_session=True
    )
    env = service_env.env_path(root)
    env.parent.mkdir(parents=True)
    env.write_text(f"REPLEARN_PID_S3={proc.pid}\n")
    return proc


def test_down_stops_a_recorded_process_and_its_group(root):
    # a stand-in recorded as the S3 endpoint: its command line names moto_server, as the real one's does
    # stopped right after its start, as when `up` fails after a spawn: on a loaded machine its /proc/<pid>/cmdline
    # can still be empty then (Popen returns before the exec maps the new argv), which `down` used to take for
    # "something else" and leave the process running
    proc = _recorded_s3_stand_in(root)
    said = []
    services.down(root, said.append)
    assert proc.wait(timeout=10) is not None
    assert any(f"pid {proc.pid} stopped" in line for line in said)


def test_down_rereads_the_empty_command_line_of_a_process_that_is_still_exec_ing(root, monkeypatch):
    """The race above, made certain: the first reads of /proc/<pid>/cmdline come back empty."""
    proc = _recorded_s3_stand_in(root)
    try:
        real, reads = services._cmdline, []

        def cmdline(pid: int) -> str:
            reads.append(pid)
            return real(pid) if len(reads) > 3 else ""

        monkeypatch.setattr(services, "_cmdline", cmdline)
        said = []
        services.down(root, said.append)
        assert proc.wait(timeout=10) is not None
        assert any(f"pid {proc.pid} stopped" in line for line in said), said
    finally:
        proc.kill()
        proc.wait()
