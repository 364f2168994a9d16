"""``python -m replearn``: the model listing (config options and registry) and unknown names answered with
the valid choices."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from replearn import cli, models
from replearn.pipeline.config import group_options

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = group_options(ROOT / "conf", "models")


@pytest.fixture(autouse=True)
def _in_project(monkeypatch):
    monkeypatch.chdir(ROOT)


def _lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_models_lists_every_config_option_with_its_registry_model_and_hyperparameters(capsys):
    assert len(OPTIONS) > 10 and "logistic_regression" in OPTIONS
    assert cli.main(["models"]) == 0
    rows = {
        line.split()[0]: line for line in _lines(capsys)[1:] if line and not line.startswith((" ", str(len(OPTIONS))))
    }
    assert sorted(rows) == OPTIONS  # exactly the names `models=[...]` accepts: the files of conf/models/
    for option in OPTIONS:
        entry = yaml.safe_load((ROOT / "conf" / "models" / f"{option}.yaml").read_text())[option]
        fields = rows[option].split(None, 2)
        assert fields[1] == entry["name"], option
        for key, value in (entry.get("params") or {}).items():
            assert f"{key}={value!r}" in fields[2], (option, key)
    assert "mlp_wide" in rows and rows["mlp_wide"].split()[1] == "mlp"  # an option differing from its model


def test_models_with_names_shows_those_options_and_their_description(capsys):
    assert cli.main(["models", "knn", "svm_rbf"]) == 0
    out = _lines(capsys)
    assert [line.split()[0] for line in out[1:] if not line.startswith(" ")] == ["knn", "svm_rbf"]
    assert any("nearest" in line for line in out)  # the comment heading conf/models/knn.yaml


def test_models_registry_lists_every_registry_model_with_defaults(capsys):
    assert cli.main(["models", "--registry"]) == 0
    rows = {line.split()[0]: line for line in _lines(capsys)}
    assert sorted(rows) == models.available()
    assert "[classification/regression]" in rows["knn"] and "n_neighbors=5" in rows["knn"]
    assert cli.main(["models", "--registry", "pca"]) == 0
    assert [line.split()[0] for line in _lines(capsys)] == ["pca"]


@pytest.mark.parametrize(
    "argv, kind, some_valid",
    [
        (["models", "svm"], "model option", "svm_rbf"),
        (["models", "knn", "k_nearest"], "model option", "knn_regressor"),
        (["models", "--registry", "svm_rbf"], "registry model", "svm"),
        (["datasets", "iri"], "dataset", "iris"),
    ],
)
def test_unknown_names_are_answered_with_the_valid_choices(capsys, argv, kind, some_valid):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"unknown {kind} '{argv[-1]}'; valid choices: " in err
    assert some_valid in err.split("valid choices: ")[1].split(", ")


def test_unknown_command_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["modles"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'modles'" in err and "'models'" in err and "'compose'" in err


def test_the_module_entry_point_runs_the_listing():
    res = subprocess.run(
        [sys.executable, "-m", "replearn", "models"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert res.returncode == 0, res.stderr
    assert "logistic_regression" in res.stdout and "conf/models/" in res.stdout


def test_where_names_the_tracking_server_under_tracking_server(tmp_path, monkeypatch, capsys):
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    params = {"tracking": {"enabled": True, "experiment": "replearn", "tracking_uri": None, "server": True}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    assert cli.main(["where"]) == 0
    out = capsys.readouterr().out
    assert "tracking=server needs the address of an MLflow server" in out and "sqlite" not in out
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5123")
    assert cli.main(["where"]) == 0
    out = capsys.readouterr().out
    assert "MLflow:   http://127.0.0.1:5123" in out and "the server's UI" in out and "make ui" not in out


def _mlflow_project(root: Path, experiment: str = "replearn") -> str:
    """A project folder with an MLflow store as the pipeline leaves it: the experiment tagged as classic ML
    (tracking.EXPERIMENT_KIND), one finished run; its experiment id."""
    from mlflow.tracking import MlflowClient

    from replearn.pipeline.tracking import EXPERIMENT_KIND

    (root / "dvc.yaml").write_text("stages: {}\n")
    params = {"tracking": {"enabled": True, "experiment": experiment, "tracking_uri": None}}
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    client = MlflowClient(tracking_uri=f"sqlite:///{root / 'mlflow.db'}")
    client.create_experiment("other")
    exp_id = client.create_experiment(experiment, tags={"mlflow.experimentKind": EXPERIMENT_KIND})
    run = client.create_run(exp_id, run_name="knn-iris")
    client.log_metric(run.info.run_id, "accuracy", 0.9)
    client.set_terminated(run.info.run_id)
    return exp_id


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ui_url_is_the_runs_table_in_the_classic_ml_view():
    # MLflow 3 shows an experiment in the view `workflowType` names (default: GenAI, whatever the
    # experiment's mlflow.experimentKind tag says); replearn's experiments are classic ML
    assert cli.ui_url(5000, "3", "custom_model_development") == (
        "http://127.0.0.1:5000/#/experiments/3/runs?workflowType=machine_learning"
    )
    assert cli.ui_url(5001, "3", None).endswith("/#/experiments/3/runs?workflowType=machine_learning")
    assert cli.ui_url(5000, "3", "genai_development").endswith("?workflowType=genai")
    assert cli.ui_url(5002) == "http://127.0.0.1:5002/#/experiments?workflowType=machine_learning"


class _FakeServer:
    def __init__(self, cmd, **kwargs):
        _FakeServer.cmd = cmd

    def poll(self):
        return None

    def wait(self, timeout=None):
        return 0

    def terminate(self):
        pass


@pytest.mark.parametrize("with_store", [True, False])
def test_ui_prints_and_opens_the_experiments_runs_page_and_serves_on_loopback(
    tmp_path, monkeypatch, capsys, with_store
):
    import webbrowser

    exp_id = _mlflow_project(tmp_path, "my_exp") if with_store else None
    if not with_store:
        (tmp_path / "dvc.yaml").write_text("stages: {}\n")  # no params.yaml, no store: before the first run
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "DVC_ROOT"):
        monkeypatch.delenv(var, raising=False)
    opened = []
    monkeypatch.setattr(cli.subprocess, "Popen", _FakeServer)
    monkeypatch.setattr(cli, "_wait_for_server", lambda proc, port: True)
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    port = _free_port()
    assert cli.main(["ui", "--port", str(port), "--open"]) == 0
    out = capsys.readouterr().out
    if with_store:
        url = f"http://127.0.0.1:{port}/#/experiments/{exp_id}/runs?workflowType=machine_learning"
        assert "experiment 'my_exp', its training runs:" in out
    else:
        url = f"http://127.0.0.1:{port}/#/experiments?workflowType=machine_learning"
        assert "no experiment 'replearn' in the store yet" in out
    assert f"\n  {url}\n" in out and f"ready: {url}" in out and opened == [url]
    cmd = _FakeServer.cmd
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1" and cmd[cmd.index("--port") + 1] == str(port)
    assert cmd[cmd.index("--backend-store-uri") + 1] == f"sqlite:///{tmp_path.resolve() / 'mlflow.db'}"


def test_make_ui_passes_the_port_and_open_on_to_replearn_ui():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nui:", 1)[1].split("\n\n", 1)[0]
    assert "-m replearn ui --port $(UI_PORT)$(if $(OPEN), --open)" in recipe
