"""Issue 38: feature maps declare their valid values once (``_constraints``), read by ``fit`` and by the
configuration check alike: ``binning n_bins=-3`` and ``hashing n_features=0`` fail in ``config.validate`` (the
validate stage, ``replearn validate``) before featurize runs, with the wording ``fit`` uses."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from replearn import features
from replearn._constraints import Boolean, violations
from replearn.exceptions import ConfigError
from replearn.pipeline import config

from .test_constraints import _bad_values, _expected_text

ROOT = Path(__file__).resolve().parents[2]
FEATURES = features.available()
#: hyperparameters whose valid values another table declares: tree_leaves' task and criterion are its tree's
#: (DecisionTree's _constraints, checked by that tree's fit), one_hot's columns are checked against X's width
DELEGATED = {
    ("tree_leaves", "task"),
    ("tree_leaves", "criterion"),
    ("tree_leaves", "random_state"),
    ("one_hot", "columns"),
}


def _bad_or_none(spec, default):
    try:
        return _bad_values(spec, default)
    except AssertionError:  # any integer is valid (a padding id): only a type mistake, which the type check catches
        return None


BAD = {
    (name, hp): bad
    for name in FEATURES
    for hp, spec in features.get_class(name)._constraints.items()
    if (bad := _bad_or_none(spec, features.hyperparameters(name)[hp])) is not None
}


@pytest.fixture(scope="module")
def base_params():
    return config.load_params(ROOT / "params.yaml")


def _validate_steps(base_params, steps) -> str:
    params = copy.deepcopy(base_params)
    params["features"]["steps"] = steps
    with pytest.raises(ConfigError) as info:
        config.validate(params, root=ROOT)
    return str(info.value)


@pytest.mark.parametrize("name", FEATURES)
def test_every_hyperparameter_of_every_feature_map_is_declared(name):
    cls, defaults = features.get_class(name), features.hyperparameters(name)
    assert set(cls._constraints) <= set(defaults), "constraint on an unknown hyperparameter"
    assert violations(cls._constraints, defaults) == []  # the defaults are valid
    assert [hp for hp in defaults if hp not in cls._constraints and (name, hp) not in DELEGATED] == []


def test_no_feature_map_checks_its_hyperparameters_by_hand():
    """fit reads the declared table (``self._validate_params()``); ``check_scalar(self.<hp>`` would duplicate it."""
    folder = Path(features.__file__).parent
    offenders = [
        f"{p.name}:{i}"
        for p in sorted(folder.glob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if "check_scalar(self." in line
    ]
    assert offenders == []


@pytest.fixture(scope="module")
def config_errors(base_params) -> str:
    """One validation of a configuration holding every bad value of BAD, each in a step of its own."""
    return _validate_steps(base_params, [{"name": name, "params": {hp: value}} for (name, hp), value in BAD.items()])


def _fit_data(name):
    rng = np.random.default_rng(0)
    if name in ("bag_of_words", "hashing"):
        return rng.integers(0, 5, size=(12, 4)), np.arange(12) % 2
    return np.abs(rng.normal(size=(12, 3))) + 1, np.arange(12) % 2


@pytest.mark.parametrize("name, hp", sorted(BAD), ids=[f"{n}.{h}" for n, h in sorted(BAD)])
def test_out_of_range_values_are_rejected_by_fit_and_the_configuration_alike(name, hp, config_errors):
    spec, value = features.get_class(name)._constraints[hp], BAD[(name, hp)]
    key = f"features.steps[{list(BAD).index((name, hp))}].params.{hp}:"
    line = next((ln for ln in config_errors.splitlines() if key in ln), None)
    assert line is not None, f"the configuration accepts {name} {hp}={value!r}"
    assert repr(value) in line
    X, y = _fit_data(name)
    with pytest.raises((ValueError, TypeError)) as info:
        features.create(name, **{hp: value}).fit(X, y)
    fit_message = str(info.value)
    assert fit_message.startswith(f"{hp} must be"), fit_message
    assert repr(value) in fit_message
    if "out of range" in line:  # a range error: the same valid values in both messages, from the one table
        for text in _expected_text(spec):
            assert text in fit_message and text in line, (text, fit_message, line)
    if all(isinstance(c, Boolean) for c in (spec if isinstance(spec, tuple) else (spec,))):
        assert isinstance(info.value, TypeError) and "must be a bool" in fit_message


def test_the_issue_examples_fail_in_validate(base_params):
    text = _validate_steps(base_params, [{"name": "binning", "params": {"n_bins": -3}}])
    assert "features.steps[0].params.n_bins: -3 is out of range; expected an integer in [2, inf)" in text
    text = _validate_steps(base_params, [{"name": "hashing", "params": {"n_features": 0}}])
    assert "features.steps[0].params.n_features: 0 is out of range; expected an integer in [1, inf)" in text


# -- family units: the same table read by the configuration check and by the unit's run (units.unit_params) ------
def _all_units():
    from replearn.pipeline import units

    return {name: unit for name, (_, unit) in units.units().items()}


UNITS = _all_units()
UNIT_BAD = {
    (name, hp): bad
    for name, unit in sorted(UNITS.items())
    for hp, spec in unit.constraints.items()
    if hp in unit.defaults and (bad := _bad_or_none(spec, unit.defaults[hp])) is not None
}


def test_every_unit_declares_the_valid_values_of_its_numeric_hyperparameters():
    undeclared = [
        f"{name}.{hp}"
        for name, unit in UNITS.items()
        for hp, default in unit.defaults.items()
        if isinstance(default, (int, float, str)) and not isinstance(default, bool) and hp not in unit.constraints
    ]
    assert undeclared == []
    assert ("vae", "max_iter") in UNIT_BAD and len(UNIT_BAD) >= 20


@pytest.mark.parametrize("name, hp", sorted(UNIT_BAD), ids=[f"{n}.{h}" for n, h in sorted(UNIT_BAD)])
def test_out_of_range_unit_values_are_rejected_by_the_configuration_and_the_run_alike(name, hp):
    from replearn.pipeline import units
    from replearn.pipeline.families import unit_params

    unit, value = UNITS[name], UNIT_BAD[(name, hp)]
    errors: list[str] = []
    config._check_unit("m", {"name": name, "params": {hp: value}}, errors)
    assert len(errors) == 1 and errors[0].startswith(f"models.m.params.{hp}:") and repr(value) in errors[0], errors
    family = units.family_of_unit(name, supervised=())
    registry = {n: u for n, (f, u) in units.units().items() if f == family}
    with pytest.raises(ConfigError, match=rf"^{name}: {hp} must be") as info:
        unit_params(registry, name, {hp: value})
    if "out of range" in errors[0]:
        for text in _expected_text(unit.constraints[hp]):
            assert text in str(info.value) and text in errors[0]


def test_the_vae_unit_reads_the_models_own_table():
    from replearn.deep import VAE

    unit = UNITS["vae"]
    shared = set(unit.constraints) & set(VAE._constraints)
    assert shared >= {"n_components", "hidden_layer_sizes", "activation", "learning_rate", "batch_size", "max_iter"}
    assert all(unit.constraints[hp] is VAE._constraints[hp] for hp in shared)  # one object, declared once
