"""The estimator protocol, checked on every model in the registry."""

import numpy as np
import pytest

from replearn.exceptions import NotFittedError
from replearn.models import available, create
from replearn.persistence import load_model, save_model

# (registry name, hyperparameters): every registered model, plus variants with other code paths
CASES = [(name, {}) for name in available()] + [
    ("knn", {"task": "regression", "weights": "distance"}),
    ("linear_regression", {"solver": "gd", "learning_rate": 0.1}),
    ("logistic_regression", {"penalty": None, "C": 2.0}),
]
IDS = [name + "".join(f"-{k}={v}" for k, v in params.items()) for name, params in CASES]


def make_data(model, n=60, d=3, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if model._estimator_type == "classifier":
        y = np.digitize(X[:, 0] + 0.8 * rng.normal(size=n), np.linspace(-0.5, 0.5, n_classes - 1))
    else:
        y = X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    return X, y


def test_every_model_is_covered():
    assert {name for name, _ in CASES} == set(available())


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_get_set_params_round_trip(name, params):
    model = create(name, **params)
    got = model.get_params()
    assert {k: got[k] for k in params} == params
    clone = create(name, **got)
    assert clone.get_params() == got
    assert model.set_params(**got) is model and model.get_params() == got
    with pytest.raises(ValueError, match="invalid parameter 'not_a_param'"):
        model.set_params(not_a_param=1)
    assert repr(model).startswith(type(model).__name__ + "(")


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_unfitted_predict_raises(name, params):
    model = create(name, **params)
    X, _ = make_data(model)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        model.predict(X)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_fit_returns_self_and_leaves_inputs_alone(name, params):
    model = create(name, **params)
    X, y = make_data(model)
    X0, y0 = X.copy(), y.copy()
    assert model.fit(X, y) is model
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    assert model.n_features_in_ == X.shape[1]
    assert model.predict(X).shape == (len(X),)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_nan_input_raises(name, params):
    model = create(name, **params)
    X, y = make_data(model)
    X[5, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite values \(first at row 5, column 1\)"):
        model.fit(X, y)
    X[5, 1] = 0.0
    model.fit(X, y)
    X[2, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.predict(X)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_wrong_number_of_features_raises(name, params):
    model = create(name, **params)
    X, y = make_data(model)
    model.fit(X, y)
    with pytest.raises(ValueError, match=rf"X has 2 features, but {type(model).__name__} was fitted with 3"):
        model.predict(X[:, :2])


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_save_load_round_trip(name, params, tmp_path):
    model = create(name, **params)
    X, y = make_data(model)
    model.fit(X, y)
    save_model(model, tmp_path / "model", registry_name=name)
    loaded = load_model(tmp_path / "model")
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    X_new, _ = make_data(model, seed=1)
    np.testing.assert_array_equal(loaded.predict(X_new), model.predict(X_new))
    for method in ("predict_proba", "decision_function"):
        if model._estimator_type == "classifier" and hasattr(model, method):
            np.testing.assert_array_equal(getattr(loaded, method)(X_new), getattr(model, method)(X_new))
