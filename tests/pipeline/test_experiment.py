"""The CV runner: paired splits, per-fold feature maps, parallel == serial, clear task errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from replearn.evaluation.crossval import ModelSpec, cross_validate
from replearn.evaluation.splits import make_splits
from replearn.exceptions import ConfigError
from replearn.pipeline import experiment
from replearn.pipeline.data import load_dataset


@pytest.fixture(scope="module")
def wine():
    return load_dataset(
        "wine", {"source": "shipped"}, seed=0, root=experiment.paths.Path(__file__).resolve().parents[2]
    )


MODELS = [
    ModelSpec("lr", "logistic_regression", {"C": 1.0}),
    ModelSpec("knn", "knn", {"n_neighbors": 3}),
    ModelSpec("nb", "gaussian_naive_bayes", {}),
]


def _run(ds, n_jobs):
    splits = make_splits("repeated_stratified_kfold", ds.y, folds=3, repeats=2, seed=5)
    return cross_validate(
        ds.X,
        ds.y,
        splits,
        MODELS,
        task="classification",
        metrics=["accuracy", "f1_macro"],
        feature_steps=[{"name": "standardize", "params": {}}],
        classes=ds.classes,
        n_jobs=n_jobs,
        progress=False,
    )


def test_parallel_run_is_identical_to_the_serial_run(wine):
    serial = _run(wine, 1)
    parallel = _run(wine, 2)
    assert json.dumps(serial, sort_keys=True) == json.dumps(parallel, sort_keys=True)


def test_every_model_sees_the_same_splits_and_records_correctness(wine):
    res = _run(wine, 1)
    assert len(res["splits"]) == 6
    for i, s in enumerate(res["splits"]):
        assert set(s) >= {"repeat", "fold", "n_train", "n_test", "seed", "test_index"}
        assert s["n_test"] == len(s["test_index"])
        for m in res["models"].values():
            correct = m["correct"][i]
            assert len(correct) == s["n_test"]
            assert np.isclose(np.mean(correct), m["scores"]["accuracy"][i])


def test_feature_maps_are_refitted_inside_each_fold(wine):
    # knn is scale sensitive: without standardization per fold the scores differ
    splits = make_splits("stratified_kfold", wine.y, folds=3, seed=1)
    spec = [ModelSpec("knn", "knn", {"n_neighbors": 3})]
    raw = cross_validate(wine.X, wine.y, splits, spec, task="classification", metrics=["accuracy"], progress=False)
    std = cross_validate(
        wine.X,
        wine.y,
        splits,
        spec,
        task="classification",
        metrics=["accuracy"],
        feature_steps=[{"name": "standardize", "params": {}}],
        progress=False,
    )
    assert (
        np.mean(std["models"]["knn"]["scores"]["accuracy"]) > np.mean(raw["models"]["knn"]["scores"]["accuracy"]) + 0.1
    )
    # and the per-fold map equals one fitted by hand on the fold's training part
    from replearn.features import FeaturePipeline
    from replearn.models import create

    s = splits[0]
    fmap = FeaturePipeline([{"name": "standardize", "params": {}}]).fit(wine.X[s.train])
    acc = (
        create("knn", n_neighbors=3)
        .fit(fmap.transform(wine.X[s.train]), wine.y[s.train])
        .score(fmap.transform(wine.X[s.test]), wine.y[s.test])
    )
    assert std["models"]["knn"]["scores"]["accuracy"][0] == pytest.approx(acc)


def _params(models):
    return {"models": models}


def test_models_run_on_the_datasets_of_their_task():
    params = _params(
        {
            "lr": {"name": "logistic_regression", "params": {}},
            "ridge": {"name": "ridge", "params": {}},
            "knn": {"name": "knn", "params": {}},
        }
    )
    task, specs = experiment.plan(params, "iris", "classification")
    assert task == "classification" and [s.key for s in specs] == ["lr", "knn"]
    task, reg = experiment.plan(params, "diabetes", "regression")
    assert [s.key for s in reg] == ["ridge", "knn"] and reg[1].params["task"] == "regression"


def test_a_dataset_no_model_can_handle_is_a_config_error():
    params = _params({"ridge": {"name": "ridge", "params": {}}})
    with pytest.raises(
        ConfigError, match="dataset 'iris' is a classification problem but none of the configured models"
    ):
        experiment.plan(params, "iris", "classification")


def test_clusterers_and_decompositions_run_on_any_dataset_one_kind_at_a_time():
    params = _params(
        {
            "km": {"name": "kmeans", "params": {"n_clusters": 3}},
            "pca": {"name": "pca", "params": {}},
            "lr": {"name": "logistic_regression", "params": {}},
        }
    )
    with pytest.raises(
        ConfigError, match=r"models are of different kinds \(clustering: km; decomposition: pca; classification: lr\)"
    ):
        experiment.plan(params, "iris", "classification")
    params["dataset"] = {
        "iris": {"source": "shipped", "models": ["km"]},
        "faithful": {"source": "shipped", "models": ["pca"]},
    }
    assert experiment.plan(params, "iris", "classification") == (
        "clustering",
        [ModelSpec("km", "kmeans", {"n_clusters": 3})],
    )
    kind, specs = experiment.plan(params, "faithful", "clustering")
    assert kind == "decomposition" and [s.key for s in specs] == ["pca"]


def test_unsupervised_cross_validation_scores(wine):
    from replearn.evaluation.unsupervised import score_unsupervised

    splits = make_splits("stratified_kfold", wine.y, folds=3, seed=2)
    specs = [ModelSpec("km", "kmeans", {"n_clusters": 3, "n_init": 2}), ModelSpec("gmm", "gmm", {"n_components": 3})]
    res = cross_validate(
        wine.X,
        wine.y,
        splits,
        specs,
        task="clustering",
        metrics=["distortion", "log_likelihood", "ari"],
        feature_steps=[{"name": "standardize", "params": {}}],
        classes=wine.classes,
        model_seeds={"km": [1, 2, 3], "gmm": [4, 5, 6]},
        progress=False,
    )
    km, gmm = res["models"]["km"]["scores"], res["models"]["gmm"]["scores"]
    assert km["log_likelihood"] == [None, None, None]  # k-means has no likelihood: never a made-up number
    assert all(isinstance(v, float) and np.isfinite(v) for v in gmm["log_likelihood"])
    assert all(0.5 < a <= 1.0 for a in km["ari"])  # the wine cultivars are well separated after standardization
    assert "correct" not in res["models"]["km"]
    # the distortion is the k-means objective per example on the held-out fold
    from replearn.features import FeaturePipeline
    from replearn.models import create

    s = splits[0]
    fmap = FeaturePipeline([{"name": "standardize", "params": {}}]).fit(wine.X[s.train])
    model = create("kmeans", n_clusters=3, n_init=2, random_state=1).fit(fmap.transform(wine.X[s.train]))
    Xte = fmap.transform(wine.X[s.test])
    expected = np.mean(np.min(((Xte[:, None, :] - model.cluster_centers_[None]) ** 2).sum(-1), axis=1))
    assert km["distortion"][0] == pytest.approx(expected)
    # decompositions: PCA's held-out reconstruction error; kernel PCA without learned pre-images has none
    pca = create("pca", n_components=2).fit(fmap.transform(wine.X[s.train]))
    scores = score_unsupervised(pca, ["reconstruction_error", "explained_variance"], Xte)
    assert scores["reconstruction_error"] == pytest.approx(
        np.mean(np.sum((Xte - pca.inverse_transform(pca.transform(Xte))) ** 2, axis=1))
    )
    assert 0 < scores["explained_variance"] < 1
    kpca = create("kernel_pca", n_components=2).fit(fmap.transform(wine.X[s.train]))
    assert score_unsupervised(kpca, ["reconstruction_error"], Xte) == {"reconstruction_error": None}
