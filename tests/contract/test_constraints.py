"""Issue 17 §3: one declaration of each hyperparameter's valid values, used by fit and by the configuration."""
# Registry-wide suites cover the built-in models only (models.builtin_names()); installed plugins such as
# examples/replearn-sklearn are checked at registration (models.check_protocol) and by tests/models/test_plugins.py.

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
CONSTRAINED = [n for n in models.builtin_names() if models.get_class(n)._constraints]


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


@pytest.mark.parametrize("name", models.builtin_names())
def test_declared_constraints_accept_the_defaults(name):
    cls = models.get_class(name)
    assert set(cls._constraints) <= set(models.hyperparameters(name)), "constraint on an unknown hyperparameter"
    assert violations(cls._constraints, models.hyperparameters(name)) == []


CHECKED = list(models.builtin_names())
MODEL_SOURCES = Path(models.__file__).parent


def _numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@pytest.mark.parametrize("name", models.builtin_names())
def test_every_numeric_hyperparameter_has_a_declared_constraint(name):
    cls = models.get_class(name)
    numeric = [hp for hp, default in models.hyperparameters(name).items() if _numeric(default)]
    assert [hp for hp in numeric if hp not in cls._constraints] == []
    # choices and flags are declared too: every string or bool default has its options in the table
    flags = [hp for hp, d in models.hyperparameters(name).items() if isinstance(d, (str, bool)) and hp != "estimator"]
    assert [hp for hp in flags if hp not in cls._constraints] == []


def test_no_hand_written_validation_ladders_are_left():
    """fit reads the declared table (``self._validate_params()``); ``check_scalar(self.<hp>`` duplicates it."""
    offenders = []
    for path in sorted(MODEL_SOURCES.rglob("*.py")):
        rel = path.relative_to(MODEL_SOURCES).as_posix()
        offenders += [
            f"{rel}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1) if "check_scalar(self." in line
        ]
    assert offenders == []


def _bad_values(spec, default):
    """Values that break ``spec`` while having the type of its default where the default has one (so the
    configuration's type check passes and the range check is what rejects them); a flag gets a string."""
    alternatives = [c for c in (spec if isinstance(spec, tuple) else (spec,)) if c is not None]
    candidates = []
    for c in alternatives:
        if isinstance(c, Interval):
            if c.lo is not None:
                candidates.append(c.kind(c.lo - 1))
            if c.hi is not None:
                candidates.append(c.kind(c.hi + 1))
            if c.kind is float:
                candidates.append(math.nan)
        elif isinstance(c, IntSequence):
            candidates.append([c.lo - 1])
        elif isinstance(c, Options) and not isinstance(c, Boolean):
            candidates.append("not-an-option")
    candidates.append("yes")  # a type mistake where a flag is expected (fit_inverse_transform="yes")
    for value in candidates:
        if satisfies(spec, value):
            continue
        errors = []
        config._check_like_default(value, default, "k", errors)
        typed = not errors or all(isinstance(c, Boolean) for c in alternatives)
        if typed:
            return value
    raise AssertionError(f"no out-of-range value found for {spec}")


def _expected_text(spec) -> list[str]:
    """What both messages must say about the valid values: each interval's range, each option."""
    out = []
    for c in spec if isinstance(spec, tuple) else (spec,):
        if isinstance(c, Options) and not isinstance(c, Boolean):
            out += [repr(o) for o in sorted(c.options, key=repr)]
        elif isinstance(c, (Interval, IntSequence)):
            out.append(c.describe())
    return out


BAD = {
    (name, hp): _bad_values(spec, models.hyperparameters(name)[hp])
    for name in CHECKED
    for hp, spec in models.get_class(name)._constraints.items()
}


@pytest.fixture(scope="module")
def config_errors(base_params) -> str:
    """One validation of a configuration holding every bad value of BAD, each in a model of its own."""
    params = copy.deepcopy(base_params)
    params["models"] = {
        f"m{i}": {"name": name, "params": {hp: value}} for i, ((name, hp), value) in enumerate(BAD.items())
    }
    params["stats"]["control"] = None
    with pytest.raises(ConfigError) as info:
        config.validate(params, root=ROOT)
    return str(info.value)


def _fit_data(model):
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(12, 3)))
    return X, (np.arange(12) % 2 if model._estimator_type == "classifier" else X[:, 0])


@pytest.mark.parametrize("name, hp", sorted(BAD), ids=[f"{n}.{h}" for n, h in sorted(BAD)])
def test_out_of_range_values_are_rejected_by_fit_and_the_configuration_alike(name, hp, config_errors):
    spec, value = models.get_class(name)._constraints[hp], BAD[(name, hp)]
    key = f"models.m{list(BAD).index((name, hp))}.params.{hp}:"
    line = next((ln for ln in config_errors.splitlines() if key in ln), None)
    assert line is not None, f"the configuration accepts {name}.{hp}={value!r}"
    assert repr(value) in line
    model = models.create(name, **{hp: value})
    X, y = _fit_data(model)
    with pytest.raises((ValueError, TypeError)) as info:
        model.fit(X, y)
    fit_message = str(info.value)
    assert fit_message.startswith(f"{hp} must be"), fit_message
    assert repr(value) in fit_message
    if "out of range" in line:  # a range (not a type) error: the same valid values in both
        for text in _expected_text(spec):
            assert text in fit_message and text in line, (text, fit_message, line)
    if all(isinstance(c, Boolean) for c in (spec if isinstance(spec, tuple) else (spec,))):
        assert isinstance(info.value, TypeError) and "must be a bool" in fit_message


def test_type_mistakes_for_flags_are_rejected():
    X = np.random.default_rng(0).normal(size=(10, 2))
    for value in ("yes", 1, None):
        with pytest.raises(
            TypeError, match=rf"fit_inverse_transform must be a bool \(true or false\), got .*{value!r}"
        ):
            models.create("kernel_pca", fit_inverse_transform=value).fit(X)
    with pytest.raises(TypeError, match="fit_intercept must be a bool"):
        models.create("ridge", fit_intercept="no").fit(X, X[:, 0])


def test_kernel_constraints_match_the_kernels_each_model_computes():
    """kernel k-means and kernel PCA compute the kernels of models.decomposition.kernels, the kernel machines
    those of replearn.kernels: each table lists exactly the names its fit accepts."""
    X = np.random.default_rng(0).normal(size=(12, 2))
    for name, kernel in (("kernel_kmeans", "poly"), ("kernel_pca", "sigmoid"), ("svm", "laplace")):
        assert satisfies(models.get_class(name)._constraints["kernel"], kernel)
        params = {"n_clusters": 2} if name == "kernel_kmeans" else {}
        y = np.arange(12) % 2
        models.create(name, kernel=kernel, **params).fit(X, y)
    for name, kernel in (("kernel_kmeans", "polynomial"), ("svm", "poly")):
        with pytest.raises(ValueError, match="kernel must be one of"):
            models.create(name, kernel=kernel).fit(X, np.arange(12) % 2)


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
