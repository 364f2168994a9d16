"""Model views: the data the train stage stores, and the deterministic plots the report draws from it."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from replearn.features import FeaturePipeline
from replearn.models import create
from replearn.pipeline import figures_data
from replearn.pipeline.report import figures


@pytest.fixture(scope="module")
def moons():
    from replearn.pipeline.synthetic import moons

    X, y, _ = moons(np.random.default_rng(0), n_samples=120, noise=0.2)
    return X, y


def test_decision_regions_predict_on_the_raw_plane_through_the_feature_map(moons):
    X, y = moons
    fmap = FeaturePipeline([{"name": "standardize", "params": {}}]).fit(X)
    models = {"knn": create("knn", n_neighbors=1).fit(fmap.transform(X), y)}
    reg = figures_data.decision_regions(models, fmap, X, y, ["x0", "x1"], resolution=30)
    assert reg["x_range"][0] < X[:, 0].min() and reg["x_range"][1] > X[:, 0].max()
    grid, _, _ = figures_data.boundary_grid(X, 30)
    expected = models["knn"].predict(fmap.transform(grid))
    assert reg["models"]["knn"] == expected.tolist()
    assert set(reg["models"]["knn"]) == {0, 1}


def test_curves_are_taken_from_iterative_fits_only(moons):
    X, y = moons
    gd = create("linear_regression", solver="gd", learning_rate=0.1, max_iter=50, tol=0.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gd.fit(X, y.astype(float))
    data = figures_data.figure_data(gd, "regression", X, None, {"feature_names": ["a", "b"]})
    assert list(data["curves"]) == ["objective"]
    assert data["curves"]["objective"] == [float(v) for v in gd.loss_history_]  # initial value + one per iteration
    closed = create("linear_regression").fit(X, y.astype(float))
    assert figures_data.figure_data(closed, "regression", X, None, {"feature_names": ["a", "b"]}) == {}


def test_plane_projection_is_deterministic_and_two_dimensional():
    X = np.random.default_rng(1).normal(size=(50, 5))
    P1, P2 = figures_data._plane(X), figures_data._plane(X.copy())
    assert P1.shape == (50, 2) and np.array_equal(P1, P2)
    assert figures_data._subsample(10_000).size == figures_data.MAX_POINTS


def test_views_are_byte_identical_on_rerun(tmp_path, moons):
    X, y = moons
    fmap = FeaturePipeline([]).fit(X)
    models = {"lr": create("logistic_regression").fit(X, y), "nb": create("gaussian_naive_bayes").fit(X, y)}
    train_results = {  # the train stage's record, as plain data
        "dataset": "moons",
        "task": "classification",
        "y_true": [],
        "models": {
            "lr": {
                "converged": True,
                "n_iter": 3,
                "figures": {"curves": {"training loss": [3.0, 2.0, 1.5], "validation loss": [3.1, 2.4, 2.2]}},
            },
            "nb": {"converged": True, "n_iter": None, "figures": {}},
        },
        "decision_regions": figures_data.decision_regions(models, fmap, X, y, ["x0", "x1"], resolution=20),
    }
    first = figures.model_views(train_results, ["a", "b"], tmp_path / "one", "moons", 50)
    second = figures.model_views(train_results, ["a", "b"], tmp_path / "two", "moons", 50)
    assert [c for c, _ in first] == [c for c, _ in second] and len(first) == 2
    for (_, a), (_, b) in zip(first, second):
        assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()
        assert a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_curves_default_to_a_legible_size_and_resolution(tmp_path):
    import struct

    curves = {"mlp": {"training loss": [3.0, 2.0, 1.5], "validation loss": [3.1, 2.4, 2.2]}}
    data = figures.curves_plot(curves, tmp_path / "c.png").read_bytes()  # the default dpi
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (500, 360)  # one 5 x 3.6 in panel at 100 dpi
    two = figures.curves_plot({**curves, "cnn": curves["mlp"]}, tmp_path / "d.png", 100).read_bytes()
    assert struct.unpack(">II", two[16:24]) == (1000, 360)


# The report's text on models: how a multiclass model is fitted, read from its registry name and params.
def test_multiclass_reduction_is_named_from_the_crossval_params(evaluation):
    from replearn.pipeline.records import as_evaluation
    from replearn.pipeline.report.sections import _multiclass_note, multiclass_reduction

    assert (
        multiclass_reduction("logistic_regression", {"C": 1.0}, 3)
        == "one-vs-rest (3 binary logistic_regression models)"
    )
    assert multiclass_reduction("logistic_regression", {}, 2) is None  # binary: nothing to reduce
    assert (
        multiclass_reduction("all_vs_all", {"estimator": "linear_svm"}, 4)
        == "one-vs-one (all-vs-all) reduction (6 binary linear_svm models)"
    )
    assert multiclass_reduction("svm", {"kernel": "rbf"}, 3).startswith("one-vs-one (3 binary SVMs")
    assert multiclass_reduction("kernel_ridge", {"task": "classification"}, 3).startswith("one-vs-rest")
    assert multiclass_reduction("kernel_ridge", {"task": "regression"}, 3) is None
    assert multiclass_reduction("softmax_regression", {}, 3).startswith("multinomial")
    assert multiclass_reduction("knn", {}, 3) is None
    models = {
        "lr": {"registry_name": "logistic_regression", "scores": {"accuracy": [0.9]}},
        "nb": {"registry_name": "gaussian_naive_bayes", "scores": {"accuracy": [0.8]}},
    }
    cv = evaluation(models, classes=["a", "b", "c"])
    assert _multiclass_note(as_evaluation(cv)) == (
        "Multiclass: lr: one-vs-rest (3 binary logistic_regression models) (the others are multiclass by construction)."
    )
    assert _multiclass_note(as_evaluation({**cv, "classes": ["a", "b"]})) is None
