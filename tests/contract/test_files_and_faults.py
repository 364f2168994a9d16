"""Issue 17 §4-5: names, paths, files and faults give one clear error instead of a traceback."""

from __future__ import annotations

import errno
import json
import socket
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from replearn import cli, models
from replearn.exceptions import ConfigError, DataValidationError
from replearn.persistence import FORMAT_VERSION, ModelFileError, load_model, save_model
from replearn.pipeline import data, stage, tracking
from replearn.pipeline.paths import inside
from replearn.stats import bootstrap_ci, permutation_test


# -- paths -------------------------------------------------------------------------------------------
def test_inside_keeps_paths_in_the_repository(tmp_path):
    assert inside(tmp_path, "models/iris/knn.npz") == tmp_path.resolve() / "models/iris/knn.npz"
    for bad in ("../escape", "models/../../escape", "/etc/passwd"):
        with pytest.raises(ConfigError, match="outside the repository"):
            inside(tmp_path, bad)
    (tmp_path / "link").symlink_to(tmp_path.parent)
    with pytest.raises(ConfigError, match="outside the repository"):
        inside(tmp_path, "link/x")


def _csv_spec(path):
    return {"source": "file", "path": str(path), "target": "y", "task": "classification"}


def test_dataset_files_outside_the_repository_are_refused(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    outside = tmp_path / "outside.csv"
    outside.write_text("a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(20)))
    for path in ("../outside.csv", str(outside)):
        with pytest.raises(DataValidationError, match=r"outside the repository.*dvc add.*dvc import"):
            data.load_dataset("d", _csv_spec(path), seed=0, root=root)
    (root / "link.csv").symlink_to(outside)
    with pytest.raises(DataValidationError, match="outside the repository"):
        data.load_dataset("d", _csv_spec("link.csv"), seed=0, root=root)
    (root / "inside.csv").write_text(outside.read_text())
    assert data.load_dataset("d", _csv_spec("inside.csv"), seed=0, root=root).X.shape == (20, 1)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"a,y\n1,0\n2,\xe9t\xe9\n", r"line 3 is not UTF-8 \(byte 0xe9"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", r"line 3 contains a NUL byte; this is a binary file"),
        (b"a,b,y\n1,2,0\n3,4,1,9\n5,6,0\n", r"line 3 has 4 field\(s\), the header has 3"),
        (b"a,b,y\n1,2,0\n3,1\n", r"line 3 has 2 field\(s\), the header has 3"),
    ],
)
def test_bad_csv_files_name_the_file_line_and_problem(tmp_path, content, message):
    path = tmp_path / "d.csv"
    path.write_bytes(content)
    with pytest.raises(DataValidationError, match=rf"d\.csv: {message}"):
        data.read_table(path, "y", "classification", name="d")


def test_corrupt_parquet_is_named(tmp_path):
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1 this is not parquet at all")
    with pytest.raises(DataValidationError, match=r"d\.parquet: not a readable Parquet file"):
        data.read_table(path, "y", "classification", name="d")


# -- prepare: limits that depend on the data --------------------------------------------------------------
def _moons(n=60):
    return {"source": "synthetic", "generator": "moons", "n_samples": n}


def test_a_tiny_test_set_is_refused(tmp_path):
    with pytest.raises(
        DataValidationError,
        match=r"split\.test_size: 1e-09 leaves 1 of the 60 examples .* at "
        r"least 5 are needed",
    ):
        data.prepare("m", _moons(), seed=0, split={"test_size": 1e-9, "stratify": False}, root=tmp_path)
    assert not (tmp_path / "data").exists()


def test_a_class_left_with_one_training_example_is_refused():
    ds = data.Dataset(
        "m", np.zeros((12, 1)), np.array([0] * 9 + [1] * 3), "classification", ["a"], "y", "t", classes=["a", "b"]
    )
    with pytest.raises(
        DataValidationError,
        match=r"split\.test_size: 0\.5 leaves class 'b' of dataset 'm' with 1 "
        r"training example",
    ):
        data.check_split("m", ds, np.array([0, 1, 2, 3, 4, 9]), np.array([5, 6, 7, 8, 10, 11]), 0.5)
    data.check_split("m", ds, np.array([0, 1, 2, 3, 9, 10]), np.array([4, 5, 6, 7, 8, 11]), 0.5)


def test_cv_and_knn_limits_are_checked_against_the_training_part(tmp_path):
    split = {"test_size": 0.25, "stratify": True}
    cv = {"scheme": "repeated_stratified_kfold", "folds": 30, "repeats": 1}
    with pytest.raises(DataValidationError, match=r"cv\.folds: 30 stratified folds on dataset 'm', but class"):
        data.prepare("m", _moons(), seed=0, split=split, root=tmp_path, cv=cv)
    knn = {"k": {"name": "knn", "params": {"n_neighbors": 50}}}
    with pytest.raises(
        DataValidationError,
        match=r"models\.k\.params\.n_neighbors: 50 neighbours, but a "
        r"cross-validation fit on dataset 'm' has 36",
    ):
        data.prepare("m", _moons(), seed=0, split=split, root=tmp_path, cv={**cv, "folds": 5}, models=knn)
    meta = data.prepare("m", _moons(), seed=0, split=split, root=tmp_path, cv={**cv, "folds": 5})
    assert meta["n_test"] == 15


# -- model files ------------------------------------------------------------------------------------------
@pytest.fixture
def saved(tmp_path):
    X = np.random.default_rng(0).normal(size=(30, 3))
    model = models.create("random_forest", n_estimators=3, random_state=0).fit(X, np.arange(30) % 2)
    save_model(model, tmp_path / "m", registry_name="random_forest")
    return tmp_path / "m", X, model


def _edit(stem, change):
    meta = json.loads(stem.with_suffix(".json").read_text())
    change(meta)
    stem.with_suffix(".json").write_text(json.dumps(meta))


def test_model_files_store_and_verify_array_checksums(saved):
    stem, X, model = saved
    meta = json.loads(stem.with_suffix(".json").read_text())
    assert meta["format_version"] == FORMAT_VERSION == 2
    with np.load(stem.with_suffix(".npz")) as d:
        assert sorted(meta["sha256"]) == sorted(d.files)
    np.testing.assert_array_equal(load_model(stem).predict(X), model.predict(X))
    with np.load(stem.with_suffix(".npz")) as d:
        arrays = {k: d[k] for k in d.files}
    key = next(k for k in arrays if k.endswith("threshold_"))
    arrays[key] = arrays[key] + 1.0
    np.savez(stem.with_suffix(".npz"), **arrays)
    with pytest.raises(ModelFileError, match=rf"m\.npz: array '{key}' does not match its SHA-256"):
        load_model(stem)


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda s: s.with_suffix(".npz").write_bytes(s.with_suffix(".npz").read_bytes()[:200]),
            r"m\.npz: damaged or truncated",
        ),
        (
            lambda s: s.with_suffix(".json").write_text(s.with_suffix(".json").read_text()[:50]),
            r"m\.json: not a replearn model file \(truncated or not JSON",
        ),
        (
            lambda s: s.with_suffix(".json").write_bytes(
                b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94."
            ),
            r"m\.json: not a replearn model file \(a Python object stream",
        ),
        (lambda s: _edit(s, lambda m: m.update(model="os.system")), r"model 'os.system' is not in the model registry"),
        (
            lambda s: _edit(s, lambda m: m["nested"]["estimators_"][0].update(**{"class": "os:system"})),
            r"only replearn estimators can be loaded",
        ),
        (
            lambda s: _edit(s, lambda m: m["nested"]["estimators_"][0].update(**{"class": "replearn.cli:main"})),
            r"not a replearn estimator",
        ),
        (lambda s: _edit(s, lambda m: m["params"].update(n_estimators="many")), r"n_estimators='many' .*wrong type"),
        (lambda s: _edit(s, lambda m: m["params"].update(n_estimators=-3)), r"n_estimators=-3 .*out of range"),
        (lambda s: _edit(s, lambda m: m["attributes"].update(predict_=1, predict=1)), r"'predict' .* shadow a method"),
        (lambda s: _edit(s, lambda m: m.update(format_version=1)), r"format_version 1, this replearn reads 2; retrain"),
        (lambda s: s.with_suffix(".npz").unlink(), r"m\.npz: missing"),
    ],
)
def test_damaged_model_files_give_one_clear_error(saved, damage, message):
    stem = saved[0]
    damage(stem)
    with pytest.raises(ModelFileError, match=message):
        load_model(stem)


# -- featurizer files: the same checksums and errors as model files -----------------------------------------
@pytest.fixture
def featurizer(tmp_path):
    from replearn.features import FeaturePipeline

    X = np.random.default_rng(0).normal(size=(20, 3))
    steps = [{"name": "standardize", "params": {}}, {"name": "polynomial", "params": {"degree": 2}}]
    pipe = FeaturePipeline(steps).fit(X)
    pipe.save(tmp_path / "featurizer")
    return tmp_path / "featurizer", X, pipe


def test_featurizer_files_store_and_verify_array_checksums(featurizer):
    from replearn.features import FeaturePipeline

    stem, X, pipe = featurizer
    meta = json.loads(stem.with_suffix(".json").read_text())
    with np.load(stem.with_suffix(".npz")) as d:
        arrays = {k: d[k] for k in d.files}
    assert sorted(meta["sha256"]) == sorted(arrays) and len(arrays) >= 2
    np.testing.assert_array_equal(FeaturePipeline.load(stem).transform(X), pipe.transform(X))
    key = next(k for k in arrays if k.endswith("mean_"))
    arrays[key] = arrays[key] + 1.0  # an edited array: loads and transforms without complaint unless checked
    np.savez(stem.with_suffix(".npz"), **arrays)
    with pytest.raises(ModelFileError, match=rf"featurizer\.npz: array '{key}' does not match its SHA-256"):
        FeaturePipeline.load(stem)


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda s: s.with_suffix(".npz").write_bytes(s.with_suffix(".npz").read_bytes()[:100]),
            r"featurizer\.npz: damaged or truncated",
        ),
        (
            lambda s: s.with_suffix(".json").write_text(s.with_suffix(".json").read_text()[:40]),
            r"featurizer\.json: not a replearn featurizer file \(truncated or not JSON",
        ),
        (lambda s: _edit(s, lambda m: m.pop("sha256")), r"featurizer\.json: field 'sha256' is missing"),
        (lambda s: _edit(s, lambda m: m.pop("format_version")), r"format_version None, this replearn reads 1; rerun"),
        (lambda s: _edit(s, lambda m: m["steps"][0].update(name="os.system")), r"step 0: unknown feature map"),
        (lambda s: _edit(s, lambda m: m["steps"][1]["params"].update(degree=99)), r"step 1: .*degree=99.*out of range"),
        (lambda s: _edit(s, lambda m: m["steps"][0]["attributes"].update(transform=1)), r"step 0: .*shadow a method"),
        (lambda s: s.with_suffix(".npz").unlink(), r"featurizer\.npz: missing"),
    ],
)
def test_damaged_featurizer_files_give_one_clear_error(featurizer, damage, message):
    from replearn.features import FeaturePipeline

    stem = featurizer[0]
    damage(stem)
    with pytest.raises(ModelFileError, match=message):
        FeaturePipeline.load(stem)


# -- features.max_columns inside cross-validation ------------------------------------------------------------
def test_max_columns_applies_to_the_feature_maps_refitted_in_every_fold():
    from replearn.evaluation.crossval import ModelSpec, cross_validate
    from replearn.evaluation.splits import make_splits

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 6)), np.arange(40) % 2
    splits = make_splits("kfold", y, folds=2, repeats=1, seed=0)
    steps = [{"name": "polynomial", "params": {"degree": 3}}]  # 83 columns on 6 features
    run = dict(task="classification", metrics=["accuracy"], feature_steps=steps, progress=False)
    specs = [ModelSpec("knn", "knn", {"n_neighbors": 3})]
    with pytest.raises(
        ValueError, match=r"degree=3 on 6 features gives 83 columns, more than the limit of 50; .*max_col"
    ):
        cross_validate(X, y, splits, specs, max_columns=50, **run)
    assert len(cross_validate(X, y, splits, specs, max_columns=83, **run)["models"]["knn"]["scores"]["accuracy"]) == 2


def test_the_crossval_stage_passes_features_max_columns(monkeypatch):
    """pipeline.experiment hands the configuration's limit to every fold (the value the featurize stage uses)."""
    from replearn.pipeline import experiment

    seen = {}

    def fake(*args, **kwargs):
        seen.update(kwargs)
        return {}

    monkeypatch.setattr(experiment, "cross_validate", fake)
    params = {
        "seed": 0,
        "cv": {"n_jobs": 1, "progress": False},
        "features": {"steps": [], "max_columns": 1234},
        "metrics": {"classification": ["accuracy"], "primary": {"classification": "accuracy"}},
    }
    experiment._run(params, "d", np.ones((4, 1)), np.zeros(4), [], [], "classification", {"classes": []}, "split")
    assert seen["max_columns"] == 1234


# -- statistics --------------------------------------------------------------------------------------------
def test_resampling_inputs_are_validated():
    with pytest.raises(ValueError, match="data is empty"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match=r"n_resamples must be <= 10,000,000"):
        permutation_test(np.ones(20), np.zeros(20), n_resamples=10**12)
    with pytest.raises(ValueError, match=r"n_resamples x n = 1,000,000 x 1,000 resampled values"):
        bootstrap_ci(np.arange(1000.0), n_resamples=10**6)


# -- faults ------------------------------------------------------------------------------------------------
def test_tracking_http_timeouts_default_but_respect_the_user():
    env = {"MLFLOW_HTTP_REQUEST_TIMEOUT": "60"}
    assert tracking.http_timeouts(env) == {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2"}
    assert env == {"MLFLOW_HTTP_REQUEST_TIMEOUT": "60", "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2"}
    exc = ConnectionError("HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded")
    msg = tracking.unreachable_message("http://127.0.0.1:9", exc)
    assert "cannot be reached" in msg and "local results" in msg
    assert tracking.unreachable_message("sqlite:///x.db", exc) is None


@pytest.mark.parametrize(
    "exc, message",
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "results/x.json"),
            r"the disk is full: cannot write results/x\.json",
        ),
        (OSError(errno.EROFS, "Read-only file system", "/ro/m.npz"), r"read-only: cannot write /ro/m\.npz"),
        (PermissionError(errno.EACCES, "Permission denied", "reports"), r"permission denied: cannot write reports"),
        (RuntimeError("wrapped"), r"MLflow database is read-only"),
    ],
)
def test_stage_frame_names_environment_faults(exc, message, capsys, tmp_path):
    if isinstance(exc, RuntimeError):
        try:
            raise RuntimeError("logging failed") from sqlite3.OperationalError("attempt to write a readonly database")
        except RuntimeError as wrapped:
            exc = wrapped
    assert stage.describe_fault(exc) is not None

    def body(params):
        raise exc

    params = Path(__file__).resolve().parents[2] / "params.yaml"
    with pytest.raises(SystemExit) as info:
        stage.run("report", body, params_file=str(params))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("replearn report: ")
    assert __import__("re").search(message, err)


def test_other_errors_still_propagate():
    assert stage.describe_fault(KeyError("x")) is None


def test_ui_refuses_bad_and_busy_ports(capsys):
    assert cli.main(["ui", "--port", "99999"]) == 2
    assert "not a TCP port" in capsys.readouterr().err
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        assert cli.main(["ui", "--port", str(busy.getsockname()[1])]) == 2
        assert "cannot serve on 127.0.0.1" in capsys.readouterr().err
    finally:
        busy.close()
