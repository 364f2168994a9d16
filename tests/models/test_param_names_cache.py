"""BaseEstimator reads a constructor's signature once (cached per ``__init__``), with the same answers."""

import inspect

import pytest

from replearn.base import BaseEstimator, _init_parameters
from replearn.models.linear.least_squares import LinearRegression


def test_param_names_and_defaults_are_the_signatures():
    sig = inspect.signature(LinearRegression.__init__)
    names = sorted(p for p in sig.parameters if p != "self")
    assert LinearRegression._param_names() == names
    defaults = {p.name: p.default for p in sig.parameters.values() if p.name != "self"}
    assert LinearRegression._param_defaults() == defaults
    # callers get their own containers
    LinearRegression._param_names().append("x")
    LinearRegression._param_defaults()["solver"] = "x"
    assert LinearRegression._param_names() == names
    assert LinearRegression._param_defaults()["solver"] == "normal"


def test_signature_is_computed_once_per_constructor(monkeypatch):
    class Model(BaseEstimator):
        def __init__(self, b=2, a=1):
            self.a, self.b = a, b

    calls = []
    real = inspect.signature
    monkeypatch.setattr(inspect, "signature", lambda fn, *args, **kw: calls.append(fn) or real(fn, *args, **kw))
    for _ in range(5):
        assert Model(a=3).get_params() == {"a": 3, "b": 2}
        repr(Model())
    assert calls == [Model.__init__]

    def new_init(self, c=0):
        self.c = c

    Model.__init__ = new_init  # a replaced constructor is read afresh
    assert Model(c=4).get_params() == {"c": 4}
    assert _init_parameters(new_init)[0] == ("c",)


def test_variadic_constructor_still_rejected():
    class Bad(BaseEstimator):
        def __init__(self, *args):
            pass

    with pytest.raises(TypeError, match=r"Bad.__init__ must not take \*args or \*\*kwargs"):
        Bad().get_params()
