"""Dataset loading and validation: every bad file fails with the file, the column and the row."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from replearn.exceptions import DataValidationError
from replearn.pipeline import data, schema
from replearn.pipeline.data import load_dataset, prepare, read_table

ROOT = Path(__file__).resolve().parents[2]
SPLIT = {"test_size": 0.25, "stratify": True}


def _csv(tmp_path, text, name="d.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_shipped_datasets_match_their_registry():
    reg = data.shipped_registry(ROOT)
    assert sorted(reg) == ["breast_cancer", "diabetes", "digits", "iris", "old_faithful", "wine"]
    for name, entry in reg.items():
        ds = load_dataset(name, {"source": "shipped"}, seed=0, root=ROOT)
        assert ds.X.shape == (entry["n_samples"], entry["n_features"]), name
        assert ds.task == entry["task"]
        assert np.isfinite(ds.X).all()
    faithful = load_dataset("old_faithful", {"source": "shipped"}, seed=0, root=ROOT)
    assert (
        faithful.task == "clustering" and faithful.classes == [] and faithful.feature_names == ["eruptions", "waiting"]
    )
    iris = load_dataset("iris", {"source": "shipped"}, seed=0, root=ROOT)
    assert iris.classes == ["setosa", "versicolor", "virginica"]
    assert np.bincount(iris.y).tolist() == [50, 50, 50]


def test_numeric_class_labels_sort_numerically(tmp_path):
    path = _csv(tmp_path, "a,y\n" + "".join(f"{i},{lab}\n" for i, lab in enumerate([10, 2, 10, 2, 1, 1])))
    ds = read_table(path, "y", "classification", name="t")
    assert ds.classes == ["1", "2", "10"]
    assert ds.y.tolist() == [2, 1, 2, 1, 0, 0]


@pytest.mark.parametrize(
    "text, target, task, message",
    [
        ("a,b\n1,2\n", "label", "classification", r"d\.csv: target column 'label' not found; columns are: a, b"),
        ("a,b,a\n1,2,3\n", "b", "classification", r"d\.csv: duplicate column name 'a' \(columns 1 and 3"),
        (
            "a,y\n1,x\n2,y\nfoo,x\n",
            "y",
            "classification",
            r"d\.csv: column 'a' has a non-numeric value 'foo' at line 4",
        ),
        ("a,y\n1,x\n,y\n", "y", "classification", r"d\.csv: column 'a' has a missing value at line 3"),
        ("a,y\n1,x\nnan,y\n", "y", "classification", r"column 'a' has a NaN or infinite value \(nan\) at line 3"),
        ("a,y\n1,x\ninf,y\n", "y", "classification", r"column 'a' has a NaN or infinite value \(inf\) at line 3"),
        ("a,y\n1,2.5\n2,abc\n", "y", "regression", r"column 'y' has a non-numeric value 'abc' at line 3"),
        ("a,y\n1,x\n2,\n", "y", "classification", r"column 'y' has a missing label at line 3"),
        ("a,y\n1,x\n2,x\n", "y", "classification", r"only one class"),
        ("y\n1\n", "y", "regression", r"no feature columns"),
    ],
)
def test_bad_files_are_rejected_with_file_column_and_row(tmp_path, text, target, task, message):
    with pytest.raises(DataValidationError, match=message):
        read_table(_csv(tmp_path, text), target, task, name="t")


def test_parquet_files_load_like_csv(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0, 1, 0, 1], "y": ["u", "v", "u", "v"]})
    frame.to_parquet(tmp_path / "d.parquet")
    ds = read_table(tmp_path / "d.parquet", "y", "classification", name="t")
    assert ds.X.tolist() == [[1, 0], [2, 1], [3, 0], [4, 1]] and ds.classes == ["u", "v"]


def test_too_few_examples_per_class_for_a_stratified_split(tmp_path):
    path = _csv(tmp_path, "a,y\n1,x\n2,x\n3,x\n4,y\n")
    with pytest.raises(
        DataValidationError, match=r"class 'y' has 1 example\(s\); a stratified train/test split needs at least 2"
    ):
        prepare(
            "t",
            {"source": "file", "path": str(path), "target": "y", "task": "classification"},
            seed=0,
            split=SPLIT,
            root=tmp_path,
        )


def test_edited_shipped_file_is_detected(tmp_path):
    (tmp_path / "data" / "uci").mkdir(parents=True)
    (tmp_path / "data" / "registry.yaml").write_bytes((ROOT / "data" / "registry.yaml").read_bytes())
    (tmp_path / "data" / "uci" / "iris.csv").write_text(
        (ROOT / "data" / "uci" / "iris.csv").read_text().replace("5.1", "5.2", 1)
    )
    with pytest.raises(DataValidationError, match="sha256 .* does not match data/registry.yaml"):
        load_dataset("iris", {"source": "shipped"}, seed=0, root=tmp_path)


def _prepare_copy(tmp_path, seed=1):
    (tmp_path / "data").mkdir(exist_ok=True)
    for f in ("registry.yaml",):
        (tmp_path / "data" / f).write_bytes((ROOT / "data" / f).read_bytes())
    if not (tmp_path / "data" / "uci").exists():
        (tmp_path / "data" / "uci").symlink_to(ROOT / "data" / "uci")
    return prepare("wine", {"source": "shipped"}, seed=seed, split=SPLIT, root=tmp_path)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_prepare_is_byte_identical_stratified_and_sealed(tmp_path):
    meta = _prepare_copy(tmp_path)
    files = [
        tmp_path / "data/prepared/wine/train.npz",
        tmp_path / "data/sealed/wine/test.npz",
        tmp_path / "data/prepared/wine/meta.json",
    ]
    first = [_digest(f) for f in files]
    _prepare_copy(tmp_path)
    assert [_digest(f) for f in files] == first
    with np.load(files[0]) as tr, np.load(files[1]) as te:
        assert set(tr["index"]).isdisjoint(te["index"])
        assert len(tr["index"]) + len(te["index"]) == 178
        full = np.bincount(np.r_[tr["y"], te["y"]])
        assert np.all(np.abs(np.bincount(te["y"]) - full * 0.25) <= 1)
    assert meta["n_test"] == len(np.load(files[1])["y"])
    # the test part lives outside data/prepared: cross-validation cannot read it by accident
    assert not any("test" in p.name for p in (tmp_path / "data/prepared/wine").iterdir())


def test_a_different_seed_gives_a_different_split(tmp_path):
    _prepare_copy(tmp_path, seed=1)
    a = np.load(tmp_path / "data/sealed/wine/test.npz")["index"]
    _prepare_copy(tmp_path, seed=2)
    b = np.load(tmp_path / "data/sealed/wine/test.npz")["index"]
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("generator", ["moons", "circles", "xor", "blobs", "linear"])
def test_synthetic_generators_are_seeded(generator):
    spec = {"source": "synthetic", "generator": generator, "n_samples": 60}
    a = load_dataset("s", spec, seed=3)
    b = load_dataset("s", spec, seed=3)
    c = load_dataset("s", spec, seed=4)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    assert a.X.shape[0] == 60
    assert a.task == ("regression" if generator == "linear" else "classification")


def test_yes_no_columns_read_as_zero_one(tmp_path):
    """CIML's course-ratings table writes its features as True/False."""
    from replearn.pipeline.data import read_table

    path = tmp_path / "t.csv"
    path.write_text("rating,easy,ai\n2,True,False\n-1,false,TRUE\n0,True,True\n")
    ds = read_table(path, "rating", "classification", name="t")
    assert ds.X.tolist() == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


# -- large inputs: refused before they are read, naming the size, the limit and the setting that raises it --------
def _file_spec(path: str, **limits) -> dict:
    return {"source": "file", "path": path, "target": "y", "task": "classification", **limits}


def test_a_file_above_its_size_limit_is_refused_before_it_is_read(tmp_path):
    # past the header the file is binary: a reader would fail on it, so the limit is checked before any reading
    (tmp_path / "big.csv").write_bytes(b"a,y\n" + b"\x00" * 2996)
    with pytest.raises(
        DataValidationError,
        match=r"^dataset\.big: big\.csv is 0\.003 MB, above the limit of 0\.001 MB; to read it anyway, raise "
        r"dataset\.big\.max_megabytes \(override \+\+dataset\.big\.max_megabytes=1\)",
    ):
        load_dataset("big", _file_spec("big.csv", max_megabytes=0.001), seed=0, root=tmp_path)
    with pytest.raises(DataValidationError, match="NUL byte"):  # raised, it lets the file through to the reader
        load_dataset("big", _file_spec("big.csv", max_megabytes=1), seed=0, root=tmp_path)


def test_a_file_with_too_many_columns_is_refused_from_its_header(tmp_path, monkeypatch):
    header = ",".join(f"f{j}" for j in range(12)) + ",y\n"
    (tmp_path / "wide.csv").write_text(header + "not,even,csv\n")
    message = (
        r"dataset\.wide: wide\.csv has 12 feature columns, above the limit of 10; to read it anyway, raise "
        r"dataset\.wide\.max_columns \(override \+\+dataset\.wide\.max_columns=12\)"
    )
    with pytest.raises(DataValidationError, match=message):
        load_dataset("wide", _file_spec("wide.csv", max_columns=10), seed=0, root=tmp_path)
    monkeypatch.setattr(schema, "MAX_FILE_COLUMNS", 10)  # the default, declared once in the schema module
    with pytest.raises(DataValidationError, match=message):
        load_dataset("wide", _file_spec("wide.csv"), seed=0, root=tmp_path)
    with pytest.raises(DataValidationError, match=r"line 2 has 3 field\(s\), the header has 13"):
        load_dataset("wide", _file_spec("wide.csv", max_columns=12), seed=0, root=tmp_path)


def test_a_parquet_file_with_too_many_columns_is_refused_from_its_schema(tmp_path):
    import pandas as pd

    pd.DataFrame({**{f"f{j}": [0.0, 1.0] for j in range(6)}, "y": ["a", "b"]}).to_parquet(tmp_path / "w.parquet")
    with pytest.raises(DataValidationError, match=r"w\.parquet has 6 feature columns, above the limit of 5"):
        load_dataset("w", _file_spec("w.parquet", max_columns=5), seed=0, root=tmp_path)


def test_the_config_check_refuses_a_large_file_up_front(tmp_path):
    """The validate stage (and every stage's first step) refuses it: no stage gets to read the file."""
    from replearn.exceptions import ConfigError
    from replearn.pipeline import config

    (tmp_path / "big.csv").write_text("a,b,y\n" + "1,2,x\n3,4,z\n" * 100)
    params = config.load_params(ROOT / "params.yaml")
    params["dataset"] = {"big": _file_spec("big.csv", max_megabytes=0.0005)}
    with pytest.raises(ConfigError, match=r"dataset\.big: big\.csv is 0\.0012 MB, above the limit of 0\.0005 MB"):
        config.validate(params, root=tmp_path)
    params["dataset"]["big"]["max_megabytes"] = 0.01
    params["dataset"]["big"]["max_columns"] = 1
    with pytest.raises(ConfigError, match=r"dataset\.big: big\.csv has 2 feature columns, above the limit of 1;"):
        config.validate(params, root=tmp_path)
    params["dataset"]["big"]["max_columns"] = 2
    assert config.validate(params, root=tmp_path) is params
