"""Models from installed distributions (entry-point group ``replearn.models``): discovery, refusals, protocol check,
hyperparameter validation. The entry points are faked by monkeypatching ``importlib.metadata.entry_points``."""

from __future__ import annotations

import importlib.metadata
import sys
import types

import pytest

from replearn import models
from replearn.base import BaseEstimator, ClassifierMixin
from replearn.exceptions import ConfigError, NotFittedError
from replearn.pipeline.config import _check_models


class Majority(ClassifierMixin, BaseEstimator):
    """A protocol-following plugin model without declared constraints (validated from its signature)."""

    def __init__(self, smoothing: float = 1.0, strategy: str = "majority"):
        self.smoothing = smoothing
        self.strategy = strategy

    def fit(self, X, y):
        import numpy as np

        values, counts = np.unique(y, return_counts=True)
        self.classes_, self.label_ = values, values[np.argmax(counts)]
        return self

    def predict(self, X):
        import numpy as np

        return np.full(len(X), self.label_)


class NoPredict(BaseEstimator):
    _estimator_type = "classifier"

    def fit(self, X, y):
        return self


class Kwargs(Majority):
    def __init__(self, **kwargs):
        self.kwargs = kwargs


class Dice(Majority):
    _stochastic = True  # draws random numbers but takes no random_state


@pytest.fixture
def fake_plugins(monkeypatch):
    """Install fake entry points: ``fake(name=value, ...)`` with values ``module:Class`` of a fake module."""
    module = types.ModuleType("fake_plugin_pkg")
    for cls in (Majority, NoPredict, Kwargs, Dice):
        setattr(module, cls.__name__, cls)
    monkeypatch.setitem(sys.modules, "fake_plugin_pkg", module)

    def install(**entries):
        dist = types.SimpleNamespace(name="fake-plugin", version="1.2.3")
        eps = []
        for name, value in entries.items():
            ep = importlib.metadata.EntryPoint(name=name, value=value, group=models.ENTRY_POINT_GROUP)
            eps.append(ep._for(dist) if hasattr(ep, "_for") else ep)

        def entry_points(**kw):
            assert kw == {"group": models.ENTRY_POINT_GROUP}
            return importlib.metadata.EntryPoints(eps)

        monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
        models.reset_plugins()

    yield install
    monkeypatch.undo()
    models.reset_plugins()


def test_a_registered_plugin_is_a_registry_model_with_its_provenance(fake_plugins):
    fake_plugins(majority="fake_plugin_pkg:Majority")
    assert "majority" in models.available() and "majority" in models.available("classification")
    assert "majority" not in models.builtin_names() and "knn" in models.builtin_names()
    cls = models.get_class("majority")  # the plugin's class, its protocol methods guarded (one line on failure)
    assert issubclass(cls, Majority) and (cls.__name__, cls.__module__) == ("Majority", Majority.__module__)
    assert models.source("majority") == "plugin fake-plugin 1.2.3" and models.source("knn") == "built-in"
    assert models.hyperparameters("majority") == {"smoothing": 1.0, "strategy": "majority"}
    assert models.create("majority", strategy="x").strategy == "x"
    assert models.plugins()["majority"].value == "fake_plugin_pkg:Majority"


def test_discovery_is_cached(fake_plugins, monkeypatch):
    fake_plugins(majority="fake_plugin_pkg:Majority")
    models.available()
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: pytest.fail("entry points read twice"))
    models.available()
    models.get_class("majority")


def test_a_name_colliding_with_a_built_in_is_refused_naming_both(fake_plugins):
    fake_plugins(knn="fake_plugin_pkg:Majority")
    with pytest.warns(RuntimeWarning, match="collides with the built-in model 'knn'"):
        names = models.available()
    assert names.count("knn") == 1 and models.source("knn") == "built-in"
    assert models.get_class("knn").__module__.startswith("replearn.models.")
    (message,) = models.refused_plugins()
    assert "fake_plugin_pkg:Majority" in message and "fake-plugin 1.2.3" in message
    assert "replearn.models.neighbors" in message  # the built-in's class


def test_an_import_failure_names_the_entry_point_and_leaves_the_built_ins_working(fake_plugins):
    fake_plugins(broken="no_such_package_xyz.sub:Model", majority="fake_plugin_pkg:Majority")
    with pytest.raises(ConfigError) as err:
        models.get_class("broken")
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    assert "'broken'" in message and "no_such_package_xyz.sub:Model" in message and "fake-plugin 1.2.3" in message
    assert "ModuleNotFoundError" in message
    assert "broken" not in models.available("classification")  # a task filter leaves it out
    assert "logistic_regression" in models.available("classification")
    assert models.create("knn", n_neighbors=3).n_neighbors == 3


@pytest.mark.parametrize(
    "value, why",
    [
        ("fake_plugin_pkg:NoPredict", "no method predict()"),
        ("fake_plugin_pkg:Kwargs", "hyperparameters must be named keyword arguments"),
        ("fake_plugin_pkg:Dice", "takes no random_state"),
        ("fake_plugin_pkg:Majority.fit", "is not a class"),
    ],
)
def test_a_class_breaking_the_protocol_is_refused_at_registration(fake_plugins, value, why):
    fake_plugins(bad=value)
    with pytest.raises(ConfigError, match="does not follow replearn's estimator protocol") as err:
        models.create("bad")
    assert why in str(err.value) and value in str(err.value)


def test_every_built_in_follows_the_protocol_check():
    assert {n: models.check_protocol(models.get_class(n)) for n in models.builtin_names()} == {
        n: [] for n in models.builtin_names()
    }


def _errors(params: dict) -> list[str]:
    errors: list[str] = []
    _check_models({"models": params}, errors)
    return errors


def test_config_validates_plugin_hyperparameters_from_the_signature(fake_plugins):
    fake_plugins(majority="fake_plugin_pkg:Majority")
    assert _errors({"m": {"name": "majority", "params": {"smoothing": 0.5}}}) == []
    (error,) = _errors({"m": {"name": "majority", "params": {"smothing": 0.5}}})
    assert error == "models.m.params.smothing: unknown hyperparameter of majority; valid: smoothing, strategy"
    (error,) = _errors({"m": {"name": "majority", "params": {"strategy": 3}}})
    assert error.startswith("models.m.params.strategy:") and "\n" not in error


def test_config_validates_plugin_hyperparameters_from_declared_constraints(fake_plugins):
    class Constrained(Majority):
        from replearn._constraints import Interval

        _constraints = {"smoothing": Interval(float, 0, None, closed="neither")}

    sys.modules["fake_plugin_pkg"].Constrained = Constrained
    fake_plugins(constrained="fake_plugin_pkg:Constrained")
    (error,) = _errors({"m": {"name": "constrained", "params": {"smoothing": -1.0}}})
    assert error.startswith("models.m.params.smoothing: -1.0 is out of range; expected a number in (0")


def test_a_config_naming_an_unregistered_import_path_is_refused(fake_plugins):
    fake_plugins(majority="fake_plugin_pkg:Majority")
    with pytest.raises(ConfigError, match="unknown model 'fake_plugin_pkg:Majority'"):
        models.get_class("fake_plugin_pkg:Majority")


class Raises(Majority):
    """A plugin whose library raises its own exceptions on bad input."""

    def fit(self, X, y):
        if len(set(y)) < 2:
            raise ValueError("needs two classes\n(a second line the one-line message leaves out)")
        return super().fit(X, y)

    def predict(self, X):
        raise TypeError("cannot predict from a list")


def test_a_plugin_models_exception_names_the_plugin_model_and_why_in_one_line(fake_plugins):
    import numpy as np

    from replearn.exceptions import PluginModelError

    sys.modules["fake_plugin_pkg"].Raises = Raises
    fake_plugins(raises="fake_plugin_pkg:Raises")
    X = np.zeros((4, 2))
    with pytest.raises(PluginModelError) as info:
        models.create("raises").fit(X, np.zeros(4))
    assert str(info.value) == (
        "plugin model 'raises' (fake-plugin 1.2.3, fake_plugin_pkg:Raises) failed in fit: ValueError: needs two classes"
    )
    assert isinstance(info.value, ValueError) and isinstance(info.value.__cause__, ValueError)
    fitted = models.create("raises").fit(X, np.arange(4) % 2)
    with pytest.raises(TypeError, match=r"^plugin model 'raises' .* failed in predict: TypeError: cannot predict"):
        fitted.predict(X)  # the original class still catches it (a PluginModelError and a TypeError)
    with pytest.raises(ConfigError, match="has no hyperparameter"):  # replearn's own errors pass unchanged
        models.create("raises", nope=1)
    with pytest.raises(ValueError, match=r"^plugin model 'raises' .* failed in set_params: ValueError: invalid para"):
        fitted.set_params(nope=1)


@pytest.mark.parametrize("name", ["sk_svc", "sk_logistic_regression"])
def test_the_scikit_learn_plugin_fails_on_a_one_class_target_in_one_line_naming_it(name):
    """The example plugin (examples/replearn-sklearn, installed by make install-test): scikit-learn's raw
    exception becomes one line naming the plugin model, its distribution and why."""
    import numpy as np

    from replearn.exceptions import PluginModelError

    pytest.importorskip("replearn_sklearn")
    models.reset_plugins()
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(PluginModelError) as info:
        models.create(name).fit(X, np.zeros(10, dtype=int))
    message = str(info.value)
    assert message.startswith(f"plugin model {name!r} (replearn-sklearn ") and " failed in fit: ValueError: " in message
    assert "class" in message and "\n" not in message
    # before fit: still replearn's NotFittedError, now naming the plugin model
    with pytest.raises(NotFittedError, match=rf"^plugin model {name!r} \(replearn-sklearn .* failed in predict: Not"):
        models.create(name).predict(X)
