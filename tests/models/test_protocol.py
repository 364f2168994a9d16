"""The estimator protocol, checked on every model in the registry."""

import numpy as np
import pytest

from replearn.exceptions import NotFittedError
from replearn.models import builtin_names as available
from replearn.models import create
from replearn.persistence import load_model, save_model

# (registry name, hyperparameters): every registered model, plus variants with other code paths; the
# recommender's data is a ratings matrix (NaN = missing, its declared ``_allow_nan``), fitted without targets
CASES = [(name, {}) for name in available()] + [
    ("knn", {"task": "regression", "weights": "distance"}),
    ("linear_regression", {"solver": "gd", "learning_rate": 0.1}),
    ("logistic_regression", {"penalty": None, "C": 2.0}),
    # neural networks: regression, maxout + dropout + early stopping, a 1x3 "image" with average pooling
    ("mlp", {"task": "regression", "hidden_layer_sizes": [8, 4], "max_iter": 50, "random_state": 0}),
    ("mlp", {"activation": "maxout", "dropout": 0.2, "early_stopping": True, "solver": "nesterov", "random_state": 0}),
    ("cnn", {"image_shape": [1, 3], "pool": "avg", "conv_channels": [2, 2], "max_iter": 20, "random_state": 0}),
    ("kmeans", {"n_clusters": 3, "init": "furthest-first"}),
    ("gmm", {"n_components": 2, "covariance_type": "diag"}),
    ("gmm", {"n_components": 2, "covariance_type": "tied", "init_params": "random"}),
    ("pca", {"n_components": 2, "solver": "eig", "standardize": True}),
    ("kernel_pca", {"n_components": 2, "kernel": "poly", "degree": 2}),
    ("ica", {"algorithm": "gradient", "learning_rate": 0.5}),
    # supervised learning I: other solvers, event models, families and base learners
    ("linear_regression", {"solver": "sgd", "learning_rate": 0.05, "random_state": 0}),
    ("linear_regression", {"solver": "minibatch", "batch_size": 8, "learning_rate": 0.1, "random_state": 0}),
    ("logistic_regression", {"solver": "sga", "max_iter": 20, "random_state": 0}),
    ("logistic_regression", {"penalty": "l1", "solver": "gd", "learning_rate": 4.0, "tol": 1e-6}),
    ("lasso", {"alpha": 0.05, "solver": "fista"}),
    ("softmax_regression", {"penalty": None}),
    ("glm", {"family": "poisson"}),
    ("glm", {"family": "bernoulli", "alpha": 0.01}),
    ("linear_classifier", {"loss": "logistic", "solver": "gd", "schedule": "constant"}),
    ("linear_classifier", {"penalty": "l1", "solver": "truncated_gradient", "random_state": 0}),
    ("multiclass_perceptron", {"average": True, "random_state": 0}),
    ("gda", {"covariance": "per_class"}),
    ("naive_bayes", {"event_model": "multinomial"}),
    ("naive_bayes", {"event_model": "categorical", "alpha": 0.5}),
    ("naive_bayes", {"event_model": "gaussian"}),
    ("one_vs_all", {"estimator": "perceptron", "use_scores": False}),
    ("all_vs_all", {"estimator": "naive_bayes"}),
    ("tree_reduction", {"estimator": "averaged_perceptron", "random_state": 0}),
    ("imbalanced", {"strategy": "oversample", "estimator": "gda"}),
    ("pairwise_ranking", {"use_scores": False}),
    # supervised learning II: the other task, kernels, solvers and base learners
    ("kernel_ridge", {"task": "classification", "kernel": "polynomial", "degree": 2}),
    ("kernel_lms", {"task": "classification", "kernel": "laplace", "max_iter": 20}),
    ("kernel_perceptron", {"kernel": "linear", "shuffle": False, "max_iter": 3}),
    ("svm", {"kernel": "polynomial", "degree": 2, "C": 10.0}),
    ("linear_svm", {"solver": "pegasos", "max_iter": 20, "random_state": 0}),
    ("decision_tree", {"task": "regression", "max_depth": 3}),
    (
        "decision_tree",
        {"criterion": "entropy", "categorical_features": [2], "validation_fraction": 0.3, "random_state": 0},
    ),
    ("random_forest", {"task": "regression", "n_estimators": 5, "random_state": 0}),
    ("bagging", {"estimator": "knn", "task": "regression", "n_estimators": 3, "random_state": 0}),
    ("voting", {"voting": "soft", "estimators": ["decision_tree", "knn"], "weights": [2.0, 1.0]}),
    ("adaboost", {"estimator_params": {"max_depth": 2, "criterion": "gini"}, "n_estimators": 5}),
]
IDS = [name + "".join(f"-{k}={v}" for k, v in params.items()) for name, params in CASES]


def make_data(model, n=60, d=3, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if model._estimator_type == "recommender":  # fit(R): ratings, NaN = missing
        R = 3.0 + rng.normal(size=(n // 3, d + 3))
        R[rng.random(R.shape) < 0.2] = np.nan
        return R, None
    if model._estimator_type == "transformer":  # X-only; non-Gaussian, or ICA has nothing to find
        X = rng.laplace(size=(n, d)) @ rng.normal(size=(d, d))
    if model._estimator_type == "classifier":
        y = np.digitize(X[:, 0] + 0.8 * rng.normal(size=n), np.linspace(-0.5, 0.5, n_classes - 1))
    else:
        y = X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    if getattr(model, "event_model", None) in ("multinomial", "categorical"):  # naive Bayes: counts / codes
        X = np.floor(2.0 * np.abs(X))
    if model._estimator_type == "regressor" and getattr(model, "family", None) == "poisson":  # glm: counts
        y = rng.poisson(np.exp(0.5 * X[:, 0])).astype(float)
    if model._estimator_type == "regressor" and getattr(model, "family", None) == "bernoulli":  # glm: 0/1
        y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0).astype(float)
    return X, y


def output(model, X):
    """What a fitted model produces: predictions, the transformed data for transformers, the completed matrix of
    a recommender (after its error on the ratings ``X``, which validates them)."""
    if model._estimator_type == "recommender":
        model.rmse(X)
        return model.predict_matrix()
    return model.transform(X) if model._estimator_type == "transformer" else model.predict(X)


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
        output(model, X)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_fit_returns_self_and_leaves_inputs_alone(name, params):
    model = create(name, **params)
    X, y = make_data(model)
    X0, y0 = X.copy(), None if y is None else y.copy()
    assert model.fit(X, y) is model
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    assert model.n_features_in_ == X.shape[1]
    assert output(model, X).shape[0] == len(X)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_nan_input_raises(name, params):
    model = create(name, **params)
    X, y = make_data(model)
    bad = np.inf if model._allow_nan else np.nan  # declared: NaN marks a missing entry
    X[5, 1] = bad
    with pytest.raises(ValueError, match=r"infinite values.* \(first at row 5, column 1\)"):
        model.fit(X, y)
    X[5, 1] = 0.0
    model.fit(X, y)
    X[2, 0] = bad
    with pytest.raises(ValueError, match="NaN|infinite"):
        output(model, X)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_wrong_number_of_features_raises(name, params):
    model = create(name, **params)
    X, y = make_data(model)
    model.fit(X, y)
    if model._estimator_type == "recommender":  # a ratings matrix: rows x columns of the fitted one
        with pytest.raises(ValueError, match=r"R has shape \(20, 2\), the model was fitted on \(20, 6\)"):
            output(model, X[:, :2])
        return
    with pytest.raises(ValueError, match=rf"X has 2 features, but {type(model).__name__} was fitted with 3"):
        output(model, X[:, :2])


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
    np.testing.assert_array_equal(output(loaded, X_new), output(model, X_new))
    for method in ("predict_proba", "decision_function"):
        if model._estimator_type == "classifier" and hasattr(model, method):
            np.testing.assert_array_equal(getattr(loaded, method)(X_new), getattr(model, method)(X_new))
