"""The safe model format: arrays + JSON, nested estimators, and refusal of anything outside replearn."""

from __future__ import annotations

import json

import numpy as np
import pytest

from replearn.base import BaseEstimator, ClassifierMixin
from replearn.models import create
from replearn.models import get_class as _orig
from replearn.persistence import _build, load_model, save_model


class _Ensemble(ClassifierMixin, BaseEstimator):
    """A toy meta-estimator holding fitted sub-models, as forests and reductions do."""

    def __init__(self, n=2):
        self.n = n

    def fit(self, X, y):
        self.members_ = [create("gaussian_naive_bayes").fit(X[i :: self.n], y[i :: self.n]) for i in range(self.n)]
        self.best_ = create("knn", n_neighbors=1).fit(X, y)
        self.weights_ = [0.25, 0.75]
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return self.best_.predict(X)


def test_nested_estimators_round_trip(tmp_path, monkeypatch):
    import replearn.models as models

    monkeypatch.setattr(models, "get_class", lambda name: _Ensemble if name == "toy_ensemble" else _orig(name))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = _Ensemble().fit(X, y)
    save_model(model, tmp_path / "m", registry_name="toy_ensemble")
    meta = json.loads((tmp_path / "m.json").read_text())
    assert [m["class"] for m in meta["nested"]["members_"]] == [
        "replearn.models.naive_bayes.gaussian:GaussianNaiveBayes"
    ] * 2
    with np.load(tmp_path / "m.npz") as data:
        assert "members_.1.theta_" in data.files
        assert any(f.startswith("best_.") for f in data.files)
    loaded = load_model(tmp_path / "m")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    for a, b in zip(loaded.members_, model.members_):
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(loaded.weights_, [0.25, 0.75])


def test_loading_refuses_classes_outside_replearn():
    with pytest.raises(ValueError, match="only replearn estimators can be loaded"):
        _build({"class": "os:system", "params": {}, "attributes": {}, "arrays": []}, {}, "")
    with pytest.raises(ValueError, match="not a replearn estimator"):
        _build({"class": "replearn.persistence:FORMAT_VERSION", "params": {}, "attributes": {}, "arrays": []}, {}, "")


def test_object_arrays_are_refused(tmp_path):
    model = create("gaussian_naive_bayes").fit(np.eye(4), [0, 1, 0, 1])
    model.classes_ = np.array([object(), object()], dtype=object)
    with pytest.raises(TypeError, match="object arrays are not allowed"):
        save_model(model, tmp_path / "m", registry_name="gaussian_naive_bayes")


def test_a_dot_in_a_stem_is_part_of_its_name_so_no_save_replaces_another_stems_files(tmp_path):
    """``knn.v1`` and ``knn.v2`` are two stems: four files, each model loads back as itself (``with_suffix`` sent both
    to knn.npz / knn.json, and loading knn.v1 returned the second model). A path naming one of the files gives its
    stem; the featurizer's files follow the same rule."""
    from replearn.features.pipeline import FeaturePipeline
    from replearn.persistence import stem_file

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)), np.repeat([0, 1], 15)
    m1 = create("knn", n_neighbors=1).fit(X, y)
    m2 = create("knn", n_neighbors=5).fit(X[::-1], y[::-1])
    save_model(m1, tmp_path / "knn.v1", registry_name="knn")
    save_model(m2, tmp_path / "knn.v2", registry_name="knn")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["knn.v1.json", "knn.v1.npz", "knn.v2.json", "knn.v2.npz"]
    assert load_model(tmp_path / "knn.v1").n_neighbors == 1
    assert load_model(tmp_path / "knn.v2.json").n_neighbors == 5  # a file's path names its stem
    assert stem_file(tmp_path / "knn.v2.npz", ".json") == tmp_path / "knn.v2.json"
    assert save_model(m1, tmp_path / "plain", registry_name="knn")[0].name == "plain.npz"  # undotted stems as before

    fp = FeaturePipeline([{"name": "standardize", "params": {}}]).fit(X)
    fp.save(tmp_path / "feat.a")
    FeaturePipeline([{"name": "standardize", "params": {}}]).fit(X * 3).save(tmp_path / "feat.b")
    assert np.array_equal(FeaturePipeline.load(tmp_path / "feat.a").transform(X), fp.transform(X))
    with pytest.raises(ValueError, match="not '.pkl'"):
        stem_file(tmp_path / "knn", ".pkl")


def test_a_save_never_replaces_a_file_that_is_not_its_own_kind(tmp_path):
    """A model saved again under its stem replaces its own files; a JSON or an .npz another program wrote, or a
    featurizer's files, are refused by name and left as they were."""
    from replearn.features.pipeline import FeaturePipeline
    from replearn.persistence import ModelFileError

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)), np.repeat([0, 1], 15)
    m1, m2 = create("knn", n_neighbors=1).fit(X, y), create("knn", n_neighbors=5).fit(X, y)
    save_model(m1, tmp_path / "knn", registry_name="knn")
    save_model(m2, tmp_path / "knn", registry_name="knn")  # its own files: replaced
    assert load_model(tmp_path / "knn").n_neighbors == 5

    (tmp_path / "data.json").write_text('{"rows": [1, 2, 3]}\n')
    with pytest.raises(ModelFileError, match=r"data\.json exists and is not a replearn model file: .* never replaces"):
        save_model(m1, tmp_path / "data", registry_name="knn")
    assert (tmp_path / "data.json").read_text() == '{"rows": [1, 2, 3]}\n' and not (tmp_path / "data.npz").exists()

    np.savez(tmp_path / "arrays.npz", a=np.arange(3))
    before = (tmp_path / "arrays.npz").read_bytes()
    with pytest.raises(ModelFileError, match=r"arrays\.npz exists without arrays\.json"):
        save_model(m1, tmp_path / "arrays.npz", registry_name="knn")
    assert (tmp_path / "arrays.npz").read_bytes() == before and not (tmp_path / "arrays.json").exists()

    fp = FeaturePipeline([{"name": "standardize", "params": {}}]).fit(X)
    fp.save(tmp_path / "feat")
    fp.save(tmp_path / "feat")  # its own files again
    with pytest.raises(ModelFileError, match=r"feat\.json exists and is not a replearn model file"):
        save_model(m1, tmp_path / "feat", registry_name="knn")
    with pytest.raises(ModelFileError, match=r"knn\.json exists and is not a replearn featurizer file"):
        fp.save(tmp_path / "knn")
    assert load_model(tmp_path / "knn").n_neighbors == 5 and FeaturePipeline.load(tmp_path / "feat").steps
