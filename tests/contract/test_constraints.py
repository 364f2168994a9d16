"""Issue 17 §3: one declaration of each hyperparameter's valid values, used by fit and by the configuration."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest

import replearn.models as models
from replearn import features
from replearn._constraints import Boolean, Interval, IntSequence, Options, satisfies, violations
from replearn.exceptions import ConfigError
from replearn.pipeline import config

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINED = [n for n in models.available() if models.get_class(n)._constraints]


@pytest.fixture(scope="module")
def base_params():
    return config.load_params(ROOT / "params.yaml")


def _bad_value(spec):
    """One value that breaks ``spec`` but has the type of a valid value (so only the range check can catch it)."""
    c = next(c for c in (spec if isinstance(spec, tuple) else (spec,)) if c is not None)
    if isinstance(c, Interval):
        if c.lo is not None:
            return c.kind(c.lo - 1)
        if c.hi is not None:
            return c.kind(c.hi + 1)
        return math.nan if c.kind is float else None
    if isinstance(c, Boolean):
        return None
    if isinstance(c, IntSequence):
        return [c.lo - 1]
    if isinstance(c, Options):
        return "not-an-option"
    raise AssertionError(c)


def test_the_main_models_declare_constraints():
    for name, hps in {
        "knn": ("n_neighbors", "weights"),
        "svm": ("C", "kernel", "gamma", "degree"),
        "logistic_regression": ("C", "penalty", "max_iter", "tol"),
        "ridge": ("alpha",),
        "lasso": ("alpha", "max_iter", "tol"),
        "decision_tree": ("max_depth", "min_samples_split", "min_samples_leaf"),
        "random_forest": ("n_estimators",),
        "bagging": ("n_estimators",),
        "kmeans": ("n_clusters", "n_init"),
        "gmm": ("n_components", "n_init"),
        "mlp": ("hidden_layer_sizes", "learning_rate_init", "max_iter"),
    }.items():
        assert set(hps) <= set(models.get_class(name)._constraints), name
    assert "degree" in features.get_class("polynomial")._constraints


@pytest.mark.parametrize("name", models.available())
def test_declared_constraints_accept_the_defaults(name):
    cls = models.get_class(name)
    assert set(cls._constraints) <= set(models.hyperparameters(name)), "constraint on an unknown hyperparameter"
    assert violations(cls._constraints, models.hyperparameters(name)) == []


@pytest.mark.parametrize("name", CONSTRAINED)
def test_config_rejects_one_out_of_range_value_per_constrained_hyperparameter(name, base_params):
    cls = models.get_class(name)
    checked = 0
    for hp, spec in cls._constraints.items():
        bad = _bad_value(spec)
        if bad is None:
            continue
        assert not satisfies(spec, bad)
        params = copy.deepcopy(base_params)
        params["models"] = {"m": {"name": name, "params": {hp: bad}}}
        params["stats"]["control"] = None
        with pytest.raises(ConfigError, match=rf"models\.m\.params\.{hp}: .* out of range; expected"):
            config.validate(params, root=ROOT)
        checked += 1
    assert checked


def test_the_message_names_key_value_and_range(base_params):
    params = copy.deepcopy(base_params)
    params["models"]["knn"]["params"]["n_neighbors"] = -1
    with pytest.raises(
        ConfigError,
        match=r"models\.knn\.params\.n_neighbors: -1 is out of range; expected an integer "
        r"in \[1, inf\)",
    ):
        config.validate(params, root=ROOT)
    params = copy.deepcopy(base_params)
    params["models"]["logistic_regression"]["params"]["C"] = -1.0
    with pytest.raises(ConfigError, match=r"models\.logistic_regression\.params\.C: -1.0 is out of range"):
        config.validate(params, root=ROOT)


def test_nested_estimator_params_are_checked(base_params):
    params = copy.deepcopy(base_params)
    params["models"] = {
        "bag": {
            "name": "bagging",
            "params": {"estimator": "decision_tree", "estimator_params": {"min_samples_leaf": 0}},
        }
    }
    with pytest.raises(ConfigError, match=r"models\.bag\.params\.estimator_params\.min_samples_leaf: 0"):
        config.validate(params, root=ROOT)


def test_fit_uses_the_same_constraints():
    X, y = np.random.default_rng(0).normal(size=(10, 2)), np.arange(10) % 2
    with pytest.raises(ValueError, match=r"n_neighbors must be >= 1, got -1"):
        models.create("knn", n_neighbors=-1).fit(X, y)
    with pytest.raises(ValueError, match=r"weights must be one of \['distance', 'uniform'\]"):
        models.create("knn", weights="gaussian").fit(X, y)
    with pytest.raises(TypeError, match="n_neighbors must be an integer"):
        models.create("knn", n_neighbors=2.5).fit(X, y)


def test_polynomial_width_is_estimated_before_any_work(base_params):
    from replearn.features.polynomial import PolynomialFeatures, output_width

    for d, deg, io, bias in [(3, 2, False, False), (4, 3, True, True), (1, 5, False, True)]:
        fitted = PolynomialFeatures(deg, io, bias).fit(np.ones((2, d)))
        assert fitted.n_output_features_ == output_width(d, deg, io, bias)
    with pytest.raises(ValueError, match=r"more than the limit of 100000; lower the degree or raise the limit"):
        PolynomialFeatures(degree=10).fit(np.ones((2, 1000)))  # 3e23 columns: refused without building them
    params = copy.deepcopy(base_params)
    params["features"]["steps"] = [{"name": "polynomial", "params": {"degree": 6}}]
    with pytest.raises(
        ConfigError,
        match=r"features\.steps\[0\]: polynomial degree 6 on dataset 'breast_cancer' "
        r"gives 1,947,791 columns, above the limit of 100,000",
    ):
        config.validate(params, root=ROOT)
    params["features"]["max_columns"] = 2_000_000
    config.validate(params, root=ROOT)
    params["features"]["steps"] = [{"name": "polynomial", "params": {"degree": 11}}]
    with pytest.raises(ConfigError, match=r"features\.steps\[0\]\.params\.degree: 11 is out of range"):
        config.validate(params, root=ROOT)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("n_samples", -5, r"dataset\.s\.n_samples: expected an integer in \[1, 10000000\]"),
        ("n_samples", 10**10, r"dataset\.s\.n_samples: expected an integer in \[1, 10000000\]"),
        ("n_features", 0, r"dataset\.s\.n_features: expected an integer in \[1, 10000\]"),
        ("noise", -1.0, r"dataset\.s\.noise"),
    ],
)
def test_synthetic_datasets_have_ranges(base_params, field, value, message):
    params = copy.deepcopy(base_params)
    params["dataset"]["s"] = {"source": "synthetic", "generator": "blobs", "n_samples": 100, field: value}
    with pytest.raises(ConfigError, match=message):
        config.validate(params, root=ROOT)


def test_synthetic_dataset_size_has_a_limit(base_params):
    params = copy.deepcopy(base_params)
    params["dataset"]["s"] = {"source": "synthetic", "generator": "blobs", "n_samples": 10**7, "n_features": 1000}
    with pytest.raises(ConfigError, match=r"n_samples x n_features = 10,000,000,000 values, above the limit"):
        config.validate(params, root=ROOT)


def test_resource_hungry_settings_are_refused(base_params):
    params = copy.deepcopy(base_params)
    params["cv"].update(folds=100, repeats=1000)
    with pytest.raises(ConfigError, match=r"cv: folds x repeats = 100,000 fits .* above the limit of 10,000"):
        config.validate(params, root=ROOT)
    params = copy.deepcopy(base_params)
    params["stats"]["resamples"] = 1_000_000
    params["models"].update({f"knn{i}": {"name": "knn", "params": {}} for i in range(5)})
    with pytest.raises(ConfigError, match=r"stats\.resamples: 1,000,000 resamples x 28 model pairs"):
        config.validate(params, root=ROOT)


@pytest.mark.parametrize("key", ["x" * 300, "../../escape_model", "/tmp/abs", "knn.v1", "1knn", "a b", ""])
def test_keys_must_be_safe_file_names(base_params, key):
    for section in ("models", "dataset"):
        params = copy.deepcopy(base_params)
        entry = (
            {"name": "knn", "params": {}}
            if section == "models"
            else {"source": "synthetic", "generator": "moons", "n_samples": 50}
        )
        params[section][key] = entry
        with pytest.raises(ConfigError, match=r"invalid key .*must match"):
            config.validate(params, root=ROOT)


def test_valid_keys_pass(base_params):
    params = copy.deepcopy(base_params)
    params["models"]["knn-v2_b"] = {"name": "knn", "params": {}}
    params["dataset"]["M" + "x" * 63] = {"source": "synthetic", "generator": "moons", "n_samples": 50}
    config.validate(params, root=ROOT)
