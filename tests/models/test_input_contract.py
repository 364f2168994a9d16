"""The input contract, checked on every model in the registry (issue 17 §1-2).

Scipy sparse input (accepted where a model declares ``_accept_sparse``, otherwise refused with how to
densify), object arrays of numbers, a column-vector y, too few training examples, values so large
that float64 overflows, optional methods that exist only where they can be called, binary
``decision_function`` of shape (n,), and ``NotFittedError``'s place in the exception hierarchy.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from replearn.exceptions import (
    ConvergenceWarning,
    DataConversionWarning,
    InputScaleError,
    NotFittedError,
    ReplearnError,
    SparseInputError,
)
from replearn.models import builtin_names as available
from replearn.models import create, hyperparameters

pytestmark = pytest.mark.filterwarnings(f"ignore::{ConvergenceWarning.__module__}.{ConvergenceWarning.__name__}")

FAST = {
    "random_forest": {"n_estimators": 5},
    "random_structure_forest": {"n_estimators": 5},
    "adaboost": {"n_estimators": 5},
    "bagging": {"n_estimators": 3},
    "mlp": {"max_iter": 30},
    "cnn": {"max_iter": 10},
    "matrix_factorization": {"max_iter": 20},
}


def _params(name):
    seed = {"random_state": 0} if "random_state" in hyperparameters(name) else {}
    return {**seed, **FAST.get(name, {})}


CASES = [(name, _params(name)) for name in available()] + [
    (name, {**_params(name), "task": "regression"}) for name in available() if "task" in hyperparameters(name)
]
IDS = [name + ("-regression" if params.get("task") == "regression" else "") for name, params in CASES]
SUPERVISED = [(n, p) for n, p in CASES if create(n, **p)._estimator_type in ("classifier", "regressor")]
SUPERVISED_IDS = [i for i, (n, p) in zip(IDS, CASES) if (n, p) in SUPERVISED]
REGRESSORS = [(n, p) for n, p in CASES if create(n, **p)._estimator_type == "regressor"]


def data(model, n=40, d=3, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    kind = model._estimator_type
    if kind == "recommender":  # fit(R) on a ratings matrix (NaN = missing), no targets
        R = 3.0 + rng.normal(size=(n // 4, d + 3))
        R[rng.random(R.shape) < 0.2] = np.nan
        return R, None
    if kind == "classifier":
        y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), np.linspace(-0.5, 0.5, n_classes - 1))
    else:
        y = X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    if getattr(model, "event_model", None) in ("multinomial", "categorical"):  # naive Bayes: counts / codes
        X = np.floor(2.0 * np.abs(X))
    return X, y


def output(model, X):
    if model._estimator_type == "recommender":
        return model.rmse(X)
    return model.transform(X) if model._estimator_type == "transformer" else model.predict(X)


def same(a, b):
    if np.asarray(a).dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    else:
        np.testing.assert_array_equal(a, b)


def test_not_fitted_error_is_attribute_and_value_error():
    assert issubclass(NotFittedError, AttributeError) and issubclass(NotFittedError, ValueError)
    with pytest.raises(ValueError, match="not fitted yet"):
        create("ridge").predict(np.ones((2, 2)))


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_sparse_input_is_used_or_refused_with_how_to_densify(name, params):
    model = create(name, **params)
    X, y = data(model)
    X[np.abs(X) < 0.5] = 0.0  # some structural zeros
    for fmt in (sp.csr_matrix, sp.csc_array):
        if model._accept_sparse:
            dense = create(name, **params).fit(X, y)
            sparse = create(name, **params).fit(fmt(X), y)
            same(output(sparse, fmt(X)), output(dense, X))
        else:
            with pytest.raises(SparseInputError, match=r"sparse input is not supported.*[XR]\.toarray\(\)"):
                model.fit(fmt(X), y)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_object_array_of_numbers_is_accepted(name, params):
    model = create(name, **params)
    X, y = data(model)
    expected = output(create(name, **params).fit(X, y), X)
    same(output(model.fit(X.astype(object), y), X.astype(object)), expected)
    bad = X.astype(object)
    bad[3, 1] = "a"
    with pytest.raises(ValueError, match="must be numeric, got dtype object holding str 'a'"):
        create(name, **params).fit(bad, y)


@pytest.mark.parametrize("name, params", SUPERVISED, ids=SUPERVISED_IDS)
def test_column_vector_y_warns(name, params):
    model = create(name, **params)
    X, y = data(model)
    with pytest.warns(DataConversionWarning, match=r"column vector.*y\.ravel\(\)"):
        model.fit(X, y[:, None])


@pytest.mark.parametrize(
    "name, params",
    REGRESSORS,
    ids=[n + ("-regression" if "task" in p else "") for n, p in REGRESSORS],
)
def test_one_training_example_is_refused(name, params):
    model = create(name, **params)
    X, y = data(model)
    with pytest.raises(ValueError, match="needs at least 2 training examples to learn from, got 1"):
        model.fit(X[:1], y[:1])
    model.fit(X[:6], y[:6])  # a handful is enough


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_optional_methods_exist_only_where_they_can_be_called(name, params):
    model = create(name, **params)
    X, y = data(model)
    model.fit(X, y)
    for method in ("predict_proba", "decision_function", "transform"):
        if hasattr(model, method):
            assert np.all(np.isfinite(getattr(model, method)(X)))
        else:
            with pytest.raises(AttributeError):
                getattr(model, method)


@pytest.mark.parametrize(
    "name",
    [
        n
        for n, p in CASES
        if create(n, **p)._estimator_type == "classifier" and hasattr(type(create(n)), "decision_function")
    ],
)
def test_binary_decision_function_is_one_column_positive_for_classes_1(name):
    model = create(name, **_params(name))
    X, y = data(model, n_classes=2)
    labels = np.array(["no", "yes"])[y]
    model.fit(X, labels)
    if not hasattr(model, "decision_function"):
        pytest.skip("no decision_function with this base learner")
    scores = model.decision_function(X)
    assert scores.shape == (len(X),)
    pred = model.predict(X)
    decided = scores != 0
    np.testing.assert_array_equal((scores > 0)[decided], (pred == model.classes_[1])[decided])


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_huge_values_raise_a_scaling_error_or_give_finite_output(name, params):
    model = create(name, **params)
    X, y = data(model)
    try:
        model.fit(X * 1e300, y)
    except ReplearnError as exc:
        assert isinstance(exc, InputScaleError) and "standardize" in str(exc)
        assert "column" in str(exc)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            assert np.all(np.isfinite(output(model, X * 1e300)))
    if model._estimator_type == "regressor":
        with pytest.raises(InputScaleError, match=r"y has values as large as .*standardize"):
            create(name, **params).fit(X, y * 1e300)
