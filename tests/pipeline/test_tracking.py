"""MLflow tracking: where runs go (also for DVC's queued/temp runs), nesting, and no duplicates."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline import paths, records, tracking


def test_default_store_is_a_sqlite_file_at_the_project_root(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    t = tracking.resolve_target(tmp_path)
    assert t.tracking_uri == f"sqlite:///{tmp_path.resolve()}/mlflow.db"
    assert t.artifact_root == tmp_path.resolve() / "mlartifacts"
    assert t.lock_file == tmp_path.resolve() / "mlflow.db.lock"


def test_dvc_root_wins_over_the_temporary_copy(tmp_path, monkeypatch):
    # `dvc exp run --temp/--queue` runs stages in a copy but sets DVC_ROOT to the real repository
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    real = tmp_path / "repo"
    monkeypatch.setenv("DVC_ROOT", str(real))
    t = tracking.resolve_target(tmp_path / "repo" / ".dvc" / "tmp" / "exps" / "tmpabc")
    assert t.tracking_uri == f"sqlite:///{real.resolve()}/mlflow.db"


def test_environment_uri_is_respected(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5555")
    t = tracking.resolve_target(tmp_path)
    assert t.tracking_uri == "http://127.0.0.1:5555" and t.lock_file is None


def test_flatten_and_hash():
    flat = tracking.flatten(
        {"cv": {"folds": 5, "scheme": "kfold"}, "dataset": {"iris": {"source": "shipped"}}, "x": [1, 2], "e": {}}
    )
    assert flat == {"cv.folds": "5", "cv.scheme": "kfold", "dataset.iris.source": "shipped", "x": "[1, 2]", "e": "{}"}
    assert tracking.params_hash({"a": 1, "b": 2}) == tracking.params_hash({"b": 2, "a": 1})
    assert tracking.params_hash({"a": 1}) != tracking.params_hash({"a": 2})


def test_ui_binds_to_loopback(tmp_path):
    cmd = tracking.ui_command(tmp_path)
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"


def _results():
    def model(name, params, scores):
        return {"registry_name": name, "params": params, "scores": {"accuracy": scores}, "n_iter": [None] * 2,
                "converged": [True] * 2}  # fmt: skip

    cv = {  # a complete crossval record (plain data): the report's verdict tags read it
        "iris": {
            "dataset": "iris",
            "task": "classification",
            "n_examples": 120,
            "scheme": {"name": "stratified_kfold", "folds": 2, "repeats": 1, "seed": 1},
            "metrics": ["accuracy"],
            "primary_metric": "accuracy",
            "greater_is_better": {"accuracy": True},
            "splits": [{"index": i, "kind": "split", "n_train": 60, "n_test": 60, "fold": i} for i in range(2)],
            "models": {
                "knn": model("knn", {"n_neighbors": 3}, [0.9, 0.8]),
                "nb": model("gaussian_naive_bayes", {}, [0.7, 0.75]),
            },
            "schema_version": 6,
        }
    }
    sig = {"across_datasets": {"ran": False, "reason": "x"}}
    train = {"iris": {"knn": {"test": {"accuracy": 0.9}}, "nb": {"test": {"accuracy": 0.8}}}}
    return cv, sig, train


@pytest.mark.slow
def test_parent_with_nested_children_and_no_duplicate_on_rerun(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    monkeypatch.setenv("DVC_EXP_NAME", "brave-otter")
    cv, sig, train = _results()
    (tmp_path / "report.md").write_text("# report\n")
    params = {
        "experiment_name": "t",
        "seed": 1,
        "tracking": {"enabled": True, "experiment": "replearn-test", "tracking_uri": None},
    }
    curves = {
        "iris": {"models": {"knn": {"figures": {}}, "nb": {"figures": {"curves": {"training loss": [3.0, 2.0, 1.0]}}}}}
    }
    kw = dict(
        params=params,
        crossval=cv,
        significance=sig,
        train_metrics=train,
        artifacts=[tmp_path / "report.md"],
        project_root=tmp_path,
        train_results=curves,
        verdicts=lambda: asked.append(1) or verdicts,  # the report's lines, from its typed records
    )
    asked: list = []
    long = "x" * (tracking.MAX_TAG_TEXT + 10)
    seconds = {"knn": {"fit_seconds": [0.5, None], "predict_seconds": [0.1, 0.3]}}  # a failed fit has no time
    seconds["nb"] = {"fit_seconds": [0.2, 0.4], "predict_seconds": [0.01, 0.03]}
    records.write(tmp_path / paths.TIMING / "iris.json", records.Timing(seconds=seconds))  # as the crossval stage
    verdicts = {
        "parent": {"replearn.verdict.iris": "iris: no difference"},
        "children": {("iris", "knn"): {"replearn.verdict": long}},
    }
    first = tracking.log_pipeline_run(**kw)
    assert first["status"] == "logged"
    second = tracking.log_pipeline_run(**kw)
    assert second == {**first, "status": "exists"} and asked == [1]  # an unchanged rerun computes no verdict

    client = MlflowClient(tracking_uri=first["tracking_uri"])
    exp = client.get_experiment_by_name("replearn-test")
    assert exp.artifact_location == (tmp_path.resolve() / "mlartifacts").as_uri()
    runs = client.search_runs([exp.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == first["run_id"]]
    assert len(parents) == 1 and len(children) == 2
    p = parents[0]
    assert p.data.tags["dvc.exp_name"] == "brave-otter" and p.data.tags["mlflow.runName"] == "brave-otter"
    assert p.data.tags[tracking.PARAMS_HASH_TAG] == tracking.params_hash(params)
    assert p.data.params["tracking.experiment"] == "replearn-test"
    # the parent: an overview table and a handful of metrics, none named after a dataset or model
    assert p.data.metrics == {"n_datasets": 1.0, "n_models": 2.0}
    table = json.loads(
        Path(client.download_artifacts(p.info.run_id, "overview.json", str(tmp_path / "dl"))).read_text()
    )
    rows = [dict(zip(table["columns"], r)) for r in table["data"]]
    knn_row = next(r for r in rows if r["model"] == "knn")
    assert knn_row["cv_mean"] == pytest.approx(0.85) and knn_row["test"] == 0.9 and knn_row["dataset"] == "iris"
    knn = next(c for c in children if c.data.tags["mlflow.runName"] == "iris/knn")
    history = client.get_metric_history(knn.info.run_id, "cv.accuracy")
    assert [(m.step, m.value) for m in sorted(history, key=lambda m: m.step)] == [(0, 0.9), (1, 0.8)]
    assert knn.data.metrics["cv.accuracy.mean"] == pytest.approx(0.85)
    assert knn.data.metrics["cv.accuracy.std"] == pytest.approx(0.0707106781)  # sample std, as metrics/crossval.json
    assert knn.data.metrics["test.accuracy"] == 0.9 and knn.data.params["params.n_neighbors"] == "3"
    assert knn.data.params["dataset"] == "iris" and knn.data.params["model"] == "knn"
    # the crossval stage's wall-clock seconds (timing/, a records.Timing): steps per replicate, mean and median
    assert [m.value for m in client.get_metric_history(knn.info.run_id, "time.fit_seconds")] == [0.5]
    assert knn.data.metrics["time.fit_seconds.mean"] == 0.5
    assert knn.data.metrics["time.predict_seconds.median"] == pytest.approx(0.2)
    nb = next(c for c in children if c.data.tags["mlflow.runName"] == "iris/nb")
    assert p.data.tags["replearn.verdict.iris"] == "iris: no difference" and "replearn.verdict" not in nb.data.tags
    assert knn.data.tags["replearn.verdict"] == long[: tracking.MAX_TAG_TEXT - 1] + "…"  # cut to what MLflow keeps
    assert set(nb.data.metrics) == set(knn.data.metrics) | {"curve.training_loss"}  # the same names on every child
    assert sorted(a.path for a in client.list_artifacts(first["run_id"])) == ["overview.json", "report.md"]
    for run in (p, knn):  # the run source: the repository, outside git "LOCAL"
        assert run.data.tags["mlflow.source.name"] == str(tmp_path.resolve())
        assert run.data.tags["mlflow.source.type"] == "LOCAL"
    curve = sorted(client.get_metric_history(nb.info.run_id, "curve.training_loss"), key=lambda m: m.step)
    assert [(m.step, m.value) for m in curve] == [(0, 3.0), (1, 2.0), (2, 1.0)]  # learning curves as step metrics

    # changed results -> a new parent run
    cv["iris"]["models"]["knn"]["scores"]["accuracy"] = [0.95, 0.8]
    assert tracking.log_pipeline_run(**kw)["status"] == "logged"


def test_tracking_off_logs_nothing(tmp_path):
    cv, sig, train = _results()
    params = {"tracking": {"enabled": False, "experiment": "x", "tracking_uri": None}}
    res = tracking.log_pipeline_run(
        params=params, crossval=cv, significance=sig, train_metrics=train, artifacts=[], project_root=tmp_path
    )
    assert res["status"] == "disabled" and not (tmp_path / "mlflow.db").exists()


def _kw(tmp_path, cv, sig, train):
    params = {
        "experiment_name": "t",
        "seed": 1,
        "tracking": {"enabled": True, "experiment": "replearn-fail", "tracking_uri": None},
    }
    return dict(params=params, crossval=cv, significance=sig, train_metrics=train, artifacts=[], project_root=tmp_path)


@pytest.mark.slow
def test_failure_while_logging_marks_runs_failed_and_a_rerun_logs_a_complete_run(tmp_path, monkeypatch):
    """Killed or failing mid-way, the old code left runs RUNNING and every later run said 'already logged'."""
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    cv, sig, train = _results()
    cv["iris"]["models"]["nb"]["scores"]["log_likelihood"] = [None, None]  # a score the model cannot give
    cv["iris"]["models"]["knn"]["scores"]["log_likelihood"] = [-1.0, None]
    kw = _kw(tmp_path, cv, sig, train)
    real = tracking._log_child
    calls = {"n": 0}

    def flaky(client, run_id, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return real(client, run_id, *args)

    monkeypatch.setattr(tracking.children, "_log_child", flaky)  # where the child run looks it up
    with pytest.raises(OSError, match="disk full"):
        tracking.log_pipeline_run(**kw)
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path.resolve()}/mlflow.db")
    exp = client.get_experiment_by_name("replearn-fail")
    assert exp.tags["mlflow.experimentKind"] == "custom_model_development"
    statuses = sorted(r.info.status for r in client.search_runs([exp.experiment_id]))
    assert statuses == ["FAILED", "FAILED", "FINISHED"]  # parent and the child being logged; the first child done

    monkeypatch.setattr(tracking.children, "_log_child", real)
    again = tracking.log_pipeline_run(**kw)
    assert again["status"] == "logged"  # the incomplete run does not count as 'already logged'
    done = client.get_run(again["run_id"])
    assert done.info.status == "FINISHED" and tracking.RUN_KEY_TAG in done.data.tags
    assert tracking.log_pipeline_run(**kw)["status"] == "exists"
    history = client.get_metric_history(again["run_id"], "n_datasets")
    assert all(m.timestamp > 1_600_000_000_000 for m in history)


def test_pending_runs_of_a_killed_attempt_are_marked_failed(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    cv, sig, train = _results()
    kw = _kw(tmp_path, cv, sig, train)
    target = tracking.resolve_target(tmp_path)
    client, exp_id = tracking._client(target, "replearn-fail")
    import hashlib
    import json

    key = hashlib.sha256(
        json.dumps({"params": kw["params"], "crossval": cv, "significance": sig}, sort_keys=True).encode()
    ).hexdigest()[:24]
    killed = client.create_run(exp_id, tags={tracking.PENDING_KEY_TAG: key})  # as a kill -9 leaves it
    res = tracking.log_pipeline_run(**kw)
    assert res["status"] == "logged"
    assert MlflowClient(tracking_uri=target.tracking_uri).get_run(killed.info.run_id).info.status == "FAILED"


def test_runs_of_a_killed_process_are_marked_failed_and_a_live_ones_are_left(tmp_path, monkeypatch):
    """A queue worker killed while logging another experiment leaves its parent and child RUNNING; the next run that
    logs (or `replearn check --repair`) marks them FAILED, by the owner tag's dead process; a run whose process is
    alive (another worker, logging now) is left alone."""
    import socket
    import subprocess
    import sys

    from mlflow.tracking import MlflowClient

    from replearn.pipeline import recovery

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    cv, sig, train = _results()
    kw = _kw(tmp_path, cv, sig, train)
    target = tracking.resolve_target(tmp_path)
    client, exp_id = tracking._client(target, "replearn-fail")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname()
    killed = client.create_run(exp_id, tags={tracking.OWNER_TAG: f"{host}:{dead.stdout.strip()}"})
    child = client.create_run(exp_id, tags={"mlflow.parentRunId": killed.info.run_id})
    live = client.create_run(exp_id, tags={tracking.OWNER_TAG: f"{host}:{os.getpid()}"})
    live_child = client.create_run(exp_id, tags={"mlflow.parentRunId": live.info.run_id})
    elsewhere = client.create_run(exp_id, tags={tracking.OWNER_TAG: "another-host:1"})
    db = tmp_path / "mlflow.db"
    assert set(tracking.orphaned_runs(db)) == {killed.info.run_id, child.info.run_id}
    found = recovery._mlflow(tmp_path, repair=False)
    assert any("2 run(s) left RUNNING by a killed run" in f.line() for f in found)
    res = tracking.log_pipeline_run(**kw)
    assert res["status"] == "logged"
    status = {
        r: MlflowClient(tracking_uri=target.tracking_uri).get_run(r).info.status
        for r in (
            killed.info.run_id,
            child.info.run_id,
            live.info.run_id,
            live_child.info.run_id,
            elsewhere.info.run_id,
        )
    }
    assert list(status.values()) == ["FAILED", "FAILED", "RUNNING", "RUNNING", "RUNNING"]
    assert tracking.orphaned_runs(db) == []


def test_run_source_is_the_repository_and_its_commit(tmp_path):
    assert tracking.source_tags(tmp_path, "abc123") == {
        "mlflow.source.name": str(tmp_path),
        "mlflow.source.type": "PROJECT",
        "mlflow.source.git.commit": "abc123",
    }
    assert tracking.source_tags(tmp_path, None) == {"mlflow.source.name": str(tmp_path), "mlflow.source.type": "LOCAL"}


def test_overview_has_one_row_per_dataset_model_and_metric():
    cv, _, train = _results()
    cv["iris"]["primary_metric"] = "accuracy"
    rows = tracking.overview_rows(cv, train)
    assert [(r["dataset"], r["model"], r["metric"], r["primary"]) for r in rows] == [
        ("iris", "knn", "accuracy", True),
        ("iris", "nb", "accuracy", True),
    ]
    assert rows[1]["cv_mean"] == pytest.approx(0.725) and rows[1]["test"] == 0.8 and rows[1]["train"] is None


def _pipeline_files(root: Path):
    """What prepare/featurize/train leave for the report stage: a prepared part, test features, a saved model."""
    from replearn import models
    from replearn.persistence import save_model

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    for part in ("data/prepared/iris", "data/features/iris"):
        (root / part).mkdir(parents=True)
    np.savez(root / "data/prepared/iris/train.npz", X=X[:40], y=y[:40])
    np.savez(root / "data/features/iris/test.npz", X=X[40:], y=y[40:])
    fitted = {
        "knn": models.create("knn", n_neighbors=3).fit(X[:40], y[:40]),
        "nb": models.create("gaussian_naive_bayes").fit(X[:40], y[:40]),
    }
    for key, model in fitted.items():
        save_model(model, root / "models" / "iris" / key, registry_name=model_names[key])
    return fitted, X[40:]


model_names = {"knn": "knn", "nb": "gaussian_naive_bayes"}


@pytest.mark.slow
def test_logged_model_loads_with_pyfunc_and_predicts_like_the_replearn_model(tmp_path, monkeypatch):
    """Each child holds an MLflow Model defined by code (no pickle) with a signature and an input example,
    and its dataset as an input (name, digest of the prepared training part, source)."""
    import hashlib

    import mlflow
    import yaml
    from mlflow.entities import LoggedModelStatus
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    fitted, X_test = _pipeline_files(tmp_path)
    cv, sig, train = _results()
    res = tracking.log_pipeline_run(**_kw(tmp_path, cv, sig, train))
    client = MlflowClient(tracking_uri=res["tracking_uri"])
    exp = client.get_experiment_by_name("replearn-fail")
    children = {
        r.data.tags["replearn.model_key"]: r
        for r in client.search_runs([exp.experiment_id], filter_string=f"tags.mlflow.parentRunId = '{res['run_id']}'")
    }
    assert sorted(children) == ["knn", "nb"]
    digest = hashlib.sha256((tmp_path / "data/prepared/iris/train.npz").read_bytes()).hexdigest()
    mlflow.set_tracking_uri(res["tracking_uri"])
    try:
        for key, run in children.items():
            (inp,) = run.inputs.dataset_inputs
            assert inp.dataset.name == "iris" and digest.startswith(inp.dataset.digest)
            assert json.loads(inp.dataset.source) == {"uri": "data/prepared/iris/train.npz"}
            assert {t.key: t.value for t in inp.tags} == {"mlflow.data.context": "train", "replearn.sha256": digest}
            uri = f"runs:/{run.info.run_id}/model"
            loaded = mlflow.pyfunc.load_model(uri)
            assert np.array_equal(loaded.predict(X_test), fitted[key].predict(X_test))
            # a LoggedModel of the child (the experiment's Models view), complete, holding the run's params
            (logged,) = [
                m for m in client.search_logged_models([exp.experiment_id]) if m.source_run_id == run.info.run_id
            ]
            assert logged.name == "model" and logged.status == LoggedModelStatus.READY
            assert logged.params["model_key"] == key and logged.params["dataset"] == "iris"
            assert [o.model_id for o in run.outputs.model_outputs] == [logged.model_id]
            by_id = mlflow.pyfunc.load_model(f"models:/{logged.model_id}")
            assert np.array_equal(by_id.predict(X_test), fitted[key].predict(X_test))
            assert loaded.metadata.signature is not None
            local = Path(mlflow.artifacts.download_artifacts(uri, dst_path=str(tmp_path / "dl" / key)))
            mlmodel = yaml.safe_load((local / "MLmodel").read_text())
            assert mlmodel["flavors"]["python_function"]["model_code_path"].endswith("tracking_model.py")
            assert "python_model.pkl" not in {p.name for p in local.rglob("*")}  # models-from-code: no pickle
            assert {p.name for p in (local / "artifacts").iterdir()} == {f"{key}.npz", f"{key}.json"}
            example = json.loads((local / "input_example.json").read_text())
            assert np.allclose(
                np.asarray(example["inputs"] if isinstance(example, dict) else example),
                X_test[: tracking.N_EXAMPLE_ROWS],
            )
    finally:
        mlflow.set_tracking_uri(None)


@pytest.mark.slow
def test_fresh_store_is_mlflows_schema_in_wal_mode_and_the_quick_rerun_check_follows_mlflows_rules(
    tmp_path, monkeypatch
):
    """The project's database is created by MLflow's schema code (MLflow opens it and finds the schema at
    head), renamed into place in WAL mode; the rerun check without MLflow sees what MLflow's search sees."""
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    cv, sig, train = _results()
    kw = _kw(tmp_path, cv, sig, train)
    first = tracking.log_pipeline_run(**kw)
    db = tmp_path / "mlflow.db"
    assert tracking._is_wal(db) and not list(tmp_path.glob(".mlflow.db.*"))  # no temporary file left
    client = MlflowClient(tracking_uri=first["tracking_uri"])
    key = client.get_run(first["run_id"]).data.tags[tracking.RUN_KEY_TAG]
    assert tracking.logged_run_id(db, "replearn-fail", key) == first["run_id"]
    assert tracking.logged_run_id(db, "another-experiment", key) is None
    assert tracking.logged_run_id(db, "replearn-fail", "0" * 24) is None
    client.delete_run(first["run_id"])  # deleted in the UI: no longer counts, for MLflow's search as here
    assert tracking.logged_run_id(db, "replearn-fail", key) is None
    again = tracking.log_pipeline_run(**kw)
    assert again["status"] == "logged" and again["run_id"] != first["run_id"]
    assert tracking.log_pipeline_run(**kw) == {**again, "status": "exists"}


def test_an_existing_store_is_switched_to_wal_and_a_foreign_file_is_no_logged_run(tmp_path):
    import sqlite3

    db = tmp_path / "mlflow.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    assert not tracking._is_wal(db)
    tracking.prepare_database(db)
    assert tracking._is_wal(db)
    assert tracking.logged_run_id(db, "replearn", "k") is None  # no MLflow tables: ask MLflow instead
    assert tracking.logged_run_id(tmp_path / "missing.db", "replearn", "k") is None


def test_only_the_project_store_syncs_at_checkpoints_only(tmp_path):
    import sqlalchemy

    ours, other = tmp_path / "mlflow.db", tmp_path / "other.db"
    tracking._relax_sync(ours)

    def synchronous(path):
        engine = sqlalchemy.create_engine(f"sqlite:///{path}")
        try:
            with engine.connect() as con:
                return con.exec_driver_sql("PRAGMA synchronous").scalar()
        finally:
            engine.dispose()

    assert synchronous(ours) == 1  # NORMAL
    assert synchronous(other) == 2  # FULL, SQLite's default


def test_a_tracking_uri_at_an_existing_file_is_one_line_and_logs_nothing(tmp_path, monkeypatch):
    """A plain path, file: or sqlite: URI at a regular file (or below one) used to end in MLflow's traceback."""
    from replearn.exceptions import ConfigError

    monkeypatch.delenv("DVC_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    note = tmp_path / "notes.txt"
    note.write_text("not a store\n")
    (tmp_path / "runs").mkdir()
    cases = {
        "notes.txt": r"^tracking\.tracking_uri 'notes\.txt' points at the file notes\.txt, not at an MLflow store",
        str(note): "points at the file",
        note.as_uri(): "points at the file",
        f"sqlite:///{note}": r"notes\.txt is a file but not an SQLite database",
        f"sqlite:///{note}/mlflow.db": r"is below .*notes\.txt, which is a file, not a folder",
        f"sqlite:///{tmp_path / 'runs'}": r"runs is a folder, not an SQLite database",
    }
    params = {"tracking": {"enabled": True, "experiment": "x", "tracking_uri": None}}
    for uri, message in cases.items():
        monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
        params["tracking"]["tracking_uri"] = uri
        with pytest.raises(ConfigError, match=message) as info:
            tracking.log_pipeline_run(
                params=params, crossval={}, significance={}, train_metrics={}, artifacts=[], project_root=tmp_path
            )
        assert "\n" not in str(info.value) and "results/, metrics/, reports/) are intact" in str(info.value)
        params["tracking"]["tracking_uri"] = None
        monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)  # the environment's URI is checked the same way
        with pytest.raises(ConfigError, match=r"^MLFLOW_TRACKING_URI '"):
            tracking.log_pipeline_run(
                params=params, crossval={}, significance={}, train_metrics={}, artifacts=[], project_root=tmp_path
            )
    assert note.read_text() == "not a store\n" and list((tmp_path / "runs").iterdir()) == []
    for fine in (f"sqlite:///{tmp_path}/new.db", f"sqlite:///{tmp_path}/runs/mlflow.db", "http://127.0.0.1:5000"):
        tracking.check_store(fine)  # not there yet, or remote: MLflow's to open


def _project_kw(tmp_path, monkeypatch) -> dict:
    """log_pipeline_run's arguments for a project in ``tmp_path`` with the pipeline's files, logging to its own
    ``mlflow.db`` (no tracking URI or DVC root from the environment)."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    _pipeline_files(tmp_path)
    cv, sig, train = _results()
    return _kw(tmp_path, cv, sig, train)


def _child_view(client, exp_name: str) -> dict:
    """The child runs of an experiment's one parent, as what they hold (ids, times and paths left out)."""
    exp = client.get_experiment_by_name(exp_name)
    runs = client.search_runs([exp.experiment_id])
    out = {}
    for r in runs:
        if "mlflow.parentRunId" not in r.data.tags:
            continue
        # the params hash differs with the experiment's name (a param), nothing else may
        tags = {k: v for k, v in r.data.tags.items() if k not in ("mlflow.parentRunId", tracking.PARAMS_HASH_TAG)}
        out[tags["mlflow.runName"]] = {
            "status": r.info.status,
            "params": r.data.params,
            "metrics": r.data.metrics,
            "tags": tags,
            "inputs": [(i.dataset.name, i.dataset.digest) for i in r.inputs.dataset_inputs],
            "models": len(r.outputs.model_outputs),
            "history": sorted((m.step, m.value) for m in client.get_metric_history(r.info.run_id, "cv.accuracy")),
        }
    return out


@pytest.mark.slow
def test_child_runs_logged_by_several_processes_are_the_runs_one_process_logs(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    kw = _project_kw(tmp_path, monkeypatch)
    monkeypatch.setenv(tracking.WORKERS_ENV, "1")
    serial = tracking.log_pipeline_run(**kw)
    kw["params"] = {**kw["params"], "tracking": {**kw["params"]["tracking"], "experiment": "replearn-parallel"}}
    monkeypatch.setenv(tracking.WORKERS_ENV, "2")  # a worker process and this one share the children
    parallel = tracking.log_pipeline_run(**kw)
    assert serial["status"] == parallel["status"] == "logged"
    client = MlflowClient(tracking_uri=serial["tracking_uri"])
    one, two = _child_view(client, "replearn-fail"), _child_view(client, "replearn-parallel")
    assert sorted(one) == ["iris/knn", "iris/nb"] and one == two
    assert all(v["status"] == "FINISHED" and v["models"] == 1 and v["inputs"] for v in two.values())
    assert client.get_run(parallel["run_id"]).data.tags[tracking.RUN_KEY_TAG]


def _start_and_wait_for_the_workers(kw: dict):
    """start_pipeline_run, then wait (as the report stage writing its reports does) until the worker processes
    have taken every chunk of child runs: this process then logs none of them."""
    import time

    start = {k: v for k, v in kw.items() if k != "artifacts"}
    run = tracking.start_pipeline_run(**start)
    chunks = -(-len(run._jobs) // tracking.CHUNK_SIZE)
    assert chunks and run._work is not None and run._work.jobs == 2, "a run with workers hands its children out"
    deadline = time.monotonic() + 120
    while run._work.taken < chunks:
        assert time.monotonic() < deadline, "no worker took the child runs"
        time.sleep(0.05)
    return run


@pytest.mark.slow
def test_the_workers_log_the_children_while_the_caller_is_busy_and_the_run_completes(tmp_path, monkeypatch):
    """The report stage starts the run, writes its reports meanwhile, then finishes: the children a worker logged
    are the ones a serial run logs, and the parent holds the artifacts given at finish and the run key."""
    from mlflow.tracking import MlflowClient

    kw = _project_kw(tmp_path, monkeypatch)
    monkeypatch.setenv(tracking.WORKERS_ENV, "1")
    serial = tracking.log_pipeline_run(**kw)
    kw["params"] = {**kw["params"], "tracking": {**kw["params"]["tracking"], "experiment": "replearn-overlap"}}
    monkeypatch.setenv(tracking.WORKERS_ENV, "2")
    run = _start_and_wait_for_the_workers(kw)
    (tmp_path / "report.md").write_text("# written while the worker logged\n", encoding="utf-8")
    res = run.finish([tmp_path / "report.md"], extra_files={"note.txt": "last"})
    assert res["status"] == "logged" and run.finish([]) == res  # finishing twice logs nothing more
    client = MlflowClient(tracking_uri=serial["tracking_uri"])
    assert _child_view(client, "replearn-fail") == _child_view(client, "replearn-overlap")
    files = {a.path for a in client.list_artifacts(res["run_id"])}
    assert {"report.md", "note.txt"} <= files
    parent = client.get_run(res["run_id"])
    assert parent.info.status == "FINISHED" and parent.data.tags[tracking.RUN_KEY_TAG]


@pytest.mark.slow
def test_aborting_a_started_run_marks_it_failed_and_a_rerun_logs_it_again(tmp_path, monkeypatch):
    """The report stage failing between start and finish (its reports could not be written)."""
    from mlflow.tracking import MlflowClient

    kw = _project_kw(tmp_path, monkeypatch)
    monkeypatch.setenv(tracking.WORKERS_ENV, "2")
    run = tracking.start_pipeline_run(**{k: v for k, v in kw.items() if k != "artifacts"})
    work = run._work
    assert work is not None and work.jobs == 2
    run.abort()
    assert run.status == "failed" and work._stopped and not work._feeders  # told to stop, the workers ended
    client = MlflowClient(tracking_uri=run.tracking_uri)
    parent = client.get_run(run.run_id)
    assert parent.info.status == "FAILED" and tracking.RUN_KEY_TAG not in parent.data.tags
    again = tracking.log_pipeline_run(**kw)
    assert again["status"] == "logged" and again["run_id"] != run.run_id


@pytest.mark.slow
def test_a_failing_worker_process_fails_the_run_with_its_cause_and_marks_its_child_failed(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    from replearn.exceptions import TrackingError

    kw = _project_kw(tmp_path, monkeypatch)
    (tmp_path / "models" / "iris" / "nb.npz").write_bytes(b"not a model")
    monkeypatch.setenv(tracking.WORKERS_ENV, "2")
    run = _start_and_wait_for_the_workers(kw)  # the worker took iris/knn and iris/nb
    with pytest.raises(TrackingError, match="a process logging child runs failed: .*nb"):
        run.finish([])
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path.resolve()}/mlflow.db")
    exp = client.get_experiment_by_name("replearn-fail")
    status = {r.data.tags.get("mlflow.runName"): r.info.status for r in client.search_runs([exp.experiment_id])}
    assert status["iris/knn"] == "FINISHED" and status["iris/nb"] == "FAILED"
    parent = [r for r in client.search_runs([exp.experiment_id]) if "mlflow.parentRunId" not in r.data.tags]
    assert [p.info.status for p in parent] == ["FAILED"] and tracking.RUN_KEY_TAG not in parent[0].data.tags


def test_child_workers_split_only_large_runs_and_read_the_override(monkeypatch):
    monkeypatch.delenv(tracking.WORKERS_ENV, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert tracking._child_workers(9) == 1 and tracking._child_workers(tracking.PARALLEL_MIN_CHILDREN - 1) == 1
    assert tracking._child_workers(516) == 2
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert tracking._child_workers(516) == 4 and tracking._child_workers(60) == 2
    monkeypatch.setenv(tracking.WORKERS_ENV, "3")
    assert tracking._child_workers(9) == 3 and tracking._child_workers(2) == 2
    monkeypatch.setenv(tracking.WORKERS_ENV, "many")
    with pytest.raises(ConfigError, match="REPLEARN_TRACKING_WORKERS='many'"):
        tracking._child_workers(9)


@pytest.mark.parametrize("key", ["knn", "nb"])
def test_the_train_stages_predictions_give_the_signature_loading_the_model_gives(tmp_path, key):
    """write_model_dir takes the output example from the train stage's predictions instead of loading the model."""
    import yaml

    fitted, X_test = _pipeline_files(tmp_path)
    stem, features = tmp_path / "models" / "iris" / key, tmp_path / "data/features/iris/test.npz"
    pred = fitted[key].predict(X_test).tolist()  # as results/train/<dataset>.json holds them (JSON values)
    loaded = tracking.write_model_dir(tmp_path / "a", stem, features)
    given = tracking.write_model_dir(tmp_path / "b", stem, features, output=pred[: tracking.N_EXAMPLE_ROWS])
    sig = [yaml.safe_load((d / "MLmodel").read_text())["signature"] for d in (loaded, given)]
    assert sig[0] == sig[1] and sig[0]["outputs"]
    wrong = tracking.write_model_dir(tmp_path / "c", stem, features, output=[0.5] * tracking.N_EXAMPLE_ROWS)
    assert yaml.safe_load((wrong / "MLmodel").read_text())["signature"] != sig[0]  # the output is what is used


@pytest.mark.slow
def test_a_process_that_logged_closes_the_store_before_it_freezes_its_heap_at_exit(tmp_path):
    """The exit hook (close_stores, then gc.freeze) leaves a closed database: no write-ahead log beside it."""
    import subprocess
    import sys

    from mlflow.tracking import MlflowClient

    script = f"""
import gc, json, sys
from pathlib import Path
from replearn.pipeline import paths, records, tracking
cv, sig, train = json.loads(sys.argv[1])
params = {{"experiment_name": "t", "seed": 1, "tracking": {{"enabled": True, "experiment": "e", "tracking_uri": None}}}}
res = tracking.log_pipeline_run(params=params, crossval=cv, significance=sig, train_metrics=train, artifacts=[],
                                project_root=Path({str(tmp_path)!r}))
assert res["status"] == "logged" and tracking._register_exit_hook.cache_info().currsize == 1
"""
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    res = subprocess.run(
        [sys.executable, "-c", script, json.dumps(_results())], env=env, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "mlflow.db").is_file() and not (tmp_path / "mlflow.db-wal").exists()
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = client.search_runs([client.get_experiment_by_name("e").experiment_id])
    assert len(runs) == 3 and {r.info.status for r in runs} == {"FINISHED"}


@pytest.mark.parametrize("n", [0, 1, 5, 200, 201, 999, 6115])
def test_curve_steps_keep_short_curves_and_thin_long_ones_evenly(n):
    steps = tracking.curve_steps(n)
    if n <= tracking.MAX_CURVE_POINTS:
        assert steps == list(range(n))
    else:
        assert len(steps) == tracking.MAX_CURVE_POINTS and steps[0] == 0 and steps[-1] == n - 1
        gaps = np.diff(steps)
        assert gaps.min() >= 1 and gaps.max() - gaps.min() <= 1  # evenly spaced, each step once


def test_a_long_learning_curve_is_logged_at_its_own_steps():
    logged = []

    class Client:
        def log_batch(self, run_id, params, metrics):
            logged.extend(metrics)

    curve = [float(1000 - i) for i in range(1000)]
    m = {"registry_name": "svm", "params": {}, "scores": {"accuracy": [0.9, 0.8]}}
    res = {"scheme": {"name": "kfold", "folds": 2}}
    train_results = {"d": {"models": {"k": {"figures": {"curves": {"objective": curve}}}}}}
    tracking._log_child(Client(), "r", "d", "k", m, res, {}, train_results)
    points = [(x.step, x.value) for x in logged if x.key == "curve.objective"]
    assert len(points) == tracking.MAX_CURVE_POINTS
    assert points[0] == (0, 1000.0) and points[-1] == (999, 1.0)
    assert all(value == curve[step] for step, value in points)  # each value is the curve's at that step
    assert [x.step for x in logged if x.key == "cv.accuracy"] == [0, 1]  # per-replicate scores are all kept


def test_local_artifact_dir_only_for_an_empty_file_location_inside_the_project(tmp_path):
    inside = tmp_path / "mlartifacts" / "1" / "models" / "m-1" / "artifacts"
    assert tracking._local_artifact_dir(inside.as_uri(), tmp_path) == inside.resolve()
    assert tracking._local_artifact_dir((tmp_path.parent / "elsewhere").as_uri(), tmp_path) is None
    assert tracking._local_artifact_dir("http://127.0.0.1:5000/api/2.0/mlflow-artifacts/x", tmp_path) is None
    assert tracking._local_artifact_dir("s3://bucket/x", tmp_path) is None
    inside.mkdir(parents=True)
    (inside / "MLmodel").write_text("x")
    assert tracking._local_artifact_dir(inside.as_uri(), tmp_path) is None  # never writes over MLflow's files


@pytest.mark.parametrize("in_place", [True, False])
def test_a_model_written_in_place_equals_the_one_mlflow_copies(tmp_path, in_place):
    """log_model writes into the project's artifact directory itself or lets MLflow copy the same files; the
    files and the MLmodel text (libyaml's emitter or MLflow's own) are the same either way, and it loads back."""
    import mlflow
    import yaml
    from mlflow.tracking import MlflowClient

    fitted, X_test = _pipeline_files(tmp_path)
    db = tmp_path / "m.db"
    tracking.prepare_database(db)
    client = MlflowClient(tracking_uri=f"sqlite:///{db}")
    exp = client.create_experiment("x", artifact_location=(tmp_path / "mlartifacts").as_uri())
    run = client.create_run(exp)
    stem, features = tmp_path / "models" / "iris" / "knn", tmp_path / "data/features/iris/test.npz"
    model = tracking.log_model(client, run.info.run_id, exp, stem, features, root=tmp_path if in_place else None)
    client.set_terminated(run.info.run_id)
    files = tmp_path / "mlartifacts" / "models" / model.model_id / "artifacts"
    assert model.artifact_location == files.as_uri()
    names = sorted(p.relative_to(files).as_posix() for p in files.rglob("*") if p.is_file())
    assert names == sorted(
        ["MLmodel", "artifacts/knn.json", "artifacts/knn.npz", "conda.yaml", "input_example.json"]
        + ["python_env.yaml", "requirements.txt", "serving_input_example.json", "tracking_model.py"]
    )
    mlmodel = mlflow.models.Model.load(str(files / "MLmodel"))
    assert (files / "MLmodel").read_text() == mlmodel.to_yaml()  # what MLflow's own save writes
    assert yaml.safe_load((files / "MLmodel").read_text())["model_id"] == model.model_id
    mlflow.set_tracking_uri(f"sqlite:///{db}")
    try:
        loaded = mlflow.pyfunc.load_model(f"models:/{model.model_id}")
    finally:
        mlflow.set_tracking_uri(None)
    assert np.array_equal(loaded.predict(X_test), fitted["knn"].predict(X_test))


@pytest.mark.slow
def test_a_small_run_is_logged_by_finish_alone_and_an_abort_before_it_logs_nothing(tmp_path, monkeypatch):
    """Below the worker threshold start_pipeline_run opens no store (the report stage's final dvc.lock, started at
    finish, then overlaps with mlflow's import), and aborting it leaves no trace."""
    monkeypatch.delenv(tracking.WORKERS_ENV, raising=False)
    kw = _project_kw(tmp_path, monkeypatch)
    start = {k: v for k, v in kw.items() if k != "artifacts"}
    aborted = tracking.start_pipeline_run(**start)
    assert aborted.status == "pending" and aborted.run_id is None and not (tmp_path / "mlflow.db").exists()
    aborted.abort()
    assert aborted.status == "failed" and aborted.finish([]) == {
        "status": "failed",
        "run_id": None,
        "tracking_uri": aborted.tracking_uri,
    }
    assert not (tmp_path / "mlflow.db").exists()
    run = tracking.start_pipeline_run(**start)
    res = run.finish([])
    assert res["status"] == "logged" and res["run_id"] and (tmp_path / "mlflow.db").exists()
    assert tracking.start_pipeline_run(**start).finish([])["status"] == "exists"


@pytest.mark.slow
def test_log_models_false_logs_the_children_without_mlflow_models_and_says_where_they_are(tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    from replearn.pipeline import config

    kw = _project_kw(tmp_path, monkeypatch)
    kw["params"]["tracking"] = {**kw["params"]["tracking"], "experiment": "no-models", "log_models": False}
    res = tracking.log_pipeline_run(**kw)
    client = MlflowClient(tracking_uri=res["tracking_uri"])
    view = _child_view(client, "no-models")
    assert sorted(view) == ["iris/knn", "iris/nb"]
    for name, child in view.items():
        assert child["status"] == "FINISHED" and child["models"] == 0 and child["inputs"]  # the dataset stays
        assert child["metrics"]  # the scores and seconds stay
        assert f"models/{name}.npz" in child["tags"]["replearn.mlflow_model"]
    with pytest.raises(ConfigError, match="tracking.log_models: expected true/false"):
        config.check_section("tracking", {"enabled": True, "experiment": "x", "tracking_uri": None, "log_models": 1})


def test_private_mlflow_uses_are_declared_and_version_checked_failing_loudly():
    """Each private MLflow name the package touches is a key of ``tracking.MLFLOW_PRIVATE`` reached only through
    ``mlflow_private``, which checks the installed version and names the use, the version and the fix outside the
    checked range; no module imports a private MLflow name or reads one as an attribute."""
    import ast
    import re
    from pathlib import Path

    from replearn.exceptions import TrackingError

    src = Path(tracking.__file__).resolve().parents[2]  # replearn/ (tracking is pipeline/tracking/)
    offenders = []
    attrs = {key.rsplit(".", 1)[1] for key in tracking.MLFLOW_PRIVATE}
    for path in src.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mlflow"):
                if any(a.name.startswith("_") for a in node.names) or "._" in node.module:
                    offenders.append(f"{path.name}:{node.lineno} from {node.module} import _...")
            elif isinstance(node, ast.Import):
                offenders += [
                    f"{path.name}:{node.lineno}" for a in node.names if a.name.startswith("mlflow") and "._" in a.name
                ]
            elif isinstance(node, ast.Attribute) and node.attr in attrs:
                offenders.append(f"{path.name}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.Constant) and node.value in attrs:
                offenders.append(f"{path.name}:{node.lineno} {node.value!r}")
        offenders += [
            f"{path.name}: mlflow.…._{m}"
            for m in re.findall(r"\bmlflow(?:\.\w+)*\._(\w+)", text)
            if path.parent.name != "tracking"  # the tracking package declares the names (MLFLOW_PRIVATE)
        ]
    assert offenders == []

    for name in tracking.MLFLOW_PRIVATE:
        assert tracking.mlflow_private(name) is not None  # the installed (pinned) MLflow has every one
        for version in ("4.0.0", "3.6.1", "2.22.0"):
            with pytest.raises(
                TrackingError,
                match=rf"mlflow {re.escape(version)} is installed.*{re.escape(name)}.*checked only for "
                r"3\.7 <= mlflow < 4\.0",
            ):
                tracking.mlflow_private(name, version=version)
    assert tracking.mlflow_private(next(iter(tracking.MLFLOW_PRIVATE)), version="3.17.2rc1") is not None
    with pytest.raises(KeyError, match="not a declared private MLflow use"):
        tracking.mlflow_private("mlflow.tracking._tracking_service.utils._get_store")


def test_a_private_mlflow_name_that_is_gone_fails_loudly(monkeypatch):
    import mlflow.store.db.utils as db_utils

    from replearn.exceptions import TrackingError

    monkeypatch.delattr(db_utils, "_initialize_tables")
    with pytest.raises(TrackingError, match=r"private mlflow\.store\.db\.utils\._initialize_tables is gone"):
        tracking.mlflow_private("mlflow.store.db.utils._initialize_tables")


def test_a_dataset_another_worker_inserted_meanwhile_is_linked_not_a_failure(tmp_path):
    """Two worker processes logging children of one dataset: MLflow's store looks the dataset up, then inserts it;
    the second insert fails on the UNIQUE constraint. log_dataset_input then links the run to the stored dataset;
    any other store error is raised."""
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    part = tmp_path / "train.npz"
    np.savez(part, X=np.zeros((4, 2)), y=np.zeros(4))
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'store.db'}")
    exp = client.create_experiment("race")
    first, second = (client.create_run(exp).info.run_id for _ in range(2))
    real = client.log_inputs
    calls = []

    def racing(run_id, datasets=None, models=None):
        calls.append(run_id)
        if len(calls) == 1:  # another worker inserts the same dataset between this one's lookup and its insert
            real(first, datasets=datasets)
            raise MlflowException("(sqlite3.IntegrityError) UNIQUE constraint failed: datasets.experiment_id, ...")
        return real(run_id, datasets=datasets)

    client.log_inputs = racing
    tracking.log_dataset_input(client, second, "d", part, Path("data/prepared/d/train.npz"))
    assert calls == [second, second]
    assert [i.dataset.name for i in client.get_run(second).inputs.dataset_inputs] == ["d"]

    def broken(run_id, datasets=None, models=None):
        raise MlflowException("the store is read-only")

    client.log_inputs = broken
    with pytest.raises(MlflowException, match="read-only"):
        tracking.log_dataset_input(client, second, "d", part, Path("data/prepared/d/train.npz"))
