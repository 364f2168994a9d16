"""What `make ui` lands on, in headless Chromium: `python -m replearn ui` on a project whose MLflow experiment is
tagged as classic ML, then the address it prints. MLflow 3 opens an experiment in its GenAI view (Overview with
Traces and Token usage, a pop-up about traces) unless the address asks for the classic one; the page must be the
experiment's training runs table. Skipped, saying why, where Chromium is not installed."""

from __future__ import annotations

import html
import importlib.util
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


check_report = _load("replearn_tests_check_report", "check_report.py")
smoke = _load("replearn_tests_smoke_project", "smoke_project.py")
CHROMIUM, pytestmark = check_report.browser_setup()  # CI (REPLEARN_REQUIRE_BROWSER): never skipped

RUN_NAME = "knn-iris"
GENAI_ONLY = ("Token Usage", "Judges", "Sessions", "Detect Issues")  # the GenAI overview, its sidebar, its pop-up


def _project(root: Path) -> str:
    from mlflow.tracking import MlflowClient

    from replearn.pipeline.tracking import EXPERIMENT_KIND, prepare_database

    (root / "dvc.yaml").write_text("stages: {}\n")
    params = {"tracking": {"enabled": True, "experiment": "replearn", "tracking_uri": None}}
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    prepare_database(root / "mlflow.db")  # the pipeline's fast path: MLflow's schema without fsyncs, WAL on
    client = MlflowClient(tracking_uri=f"sqlite:///{root / 'mlflow.db'}")
    exp_id = client.create_experiment("replearn", tags={"mlflow.experimentKind": EXPERIMENT_KIND})
    run = client.create_run(exp_id, run_name=RUN_NAME)
    client.log_metric(run.info.run_id, "accuracy", 0.9)
    client.set_terminated(run.info.run_id)
    return exp_id


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _page_text(url: str, profile: Path) -> str:
    """The text of the page once the UI's scripts ran (``--dump-dom``), title included."""
    cmd = [
        CHROMIUM,
        *check_report.HEADLESS_FLAGS,
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # offline: only the loopback server
        f"--user-data-dir={profile}",  # fresh: no workflow type remembered in localStorage
        "--virtual-time-budget=20000",
        "--dump-dom",
        url,
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert "<html" in res.stdout, f"chromium rendered nothing for {url} (exit {res.returncode}):\n{res.stderr[-2000:]}"
    text = re.sub(r"<script.*?</script>|<style.*?</style>", " ", res.stdout, flags=re.DOTALL | re.IGNORECASE)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text)))


@pytest.mark.slow
def test_make_ui_lands_on_the_experiments_training_runs_not_the_genai_overview(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    exp_id = _project(proj)
    port = _free_port()
    env = smoke.env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "replearn", "ui", "--port", str(port)],
        cwd=proj,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own process group: the server's workers are stopped with it below
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    try:
        seen, url = [], None
        while url is None:
            try:
                line = lines.get(timeout=240)
            except queue.Empty:
                pytest.fail(f"`replearn ui` did not report the server ready within 240 s; it printed:\n{''.join(seen)}")
            seen.append(line)
            if line.startswith("ready: "):
                url = line.removeprefix("ready: ").strip()
        expected = f"http://127.0.0.1:{port}/#/experiments/{exp_id}/runs?workflowType=machine_learning"
        assert url == expected and f"  {expected}\n" in seen, seen

        page = _page_text(url, tmp_path / "profile-ui")
        assert f"Runs - Experiment {exp_id} - MLflow" in page, page[:1500]  # the runs tab, its title
        assert RUN_NAME in page, page[:1500]  # the training runs table, with the run
        shown = [s for s in GENAI_ONLY if s in page]
        assert not shown, f"the GenAI view ({shown}):\n{page[:1500]}"

        # the experiment's address without the view (what MLflow itself links to) opens the GenAI overview in
        # a fresh browser despite the experiment's tag: the reason the printed address names the view
        bare = _page_text(f"http://127.0.0.1:{port}/#/experiments/{exp_id}", tmp_path / "profile-bare")
        assert "Token Usage" in bare, (
            "MLflow now opens this classic-ML experiment in its classic view by itself; `replearn ui`'s "
            f"workflowType=machine_learning may be dropped:\n{bare[:1500]}"
        )
    finally:
        _stop_group(proc)


def _stop_group(proc: subprocess.Popen) -> None:
    """Ctrl-C to the process group of `replearn ui` (as in a terminal), then SIGKILL what is left after 30 s."""
    import time

    def signal_group(sig: int) -> bool:
        try:
            os.killpg(proc.pid, sig)
            return True
        except ProcessLookupError:  # nothing left in the group
            return False

    signal_group(signal.SIGINT)
    deadline = time.monotonic() + 30
    # reap `replearn ui` as it exits: until then it is a zombie, still a member of its group, and the group
    # never looks empty (this loop used to wait its whole 30 s after a clean stop)
    while time.monotonic() < deadline and (proc.poll() is None or signal_group(0)):
        time.sleep(0.2)
    signal_group(signal.SIGKILL)
    proc.wait(timeout=10)
