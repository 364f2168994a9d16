"""scikit-learn interoperability, checked on every model in the registry (scikit-learn is test-only).

clone, get_params(deep=True) / set_params round trips (a base learner's hyperparameters as
``estimator__<name>``), scikit-learn's tags, a Pipeline behind a scaler, GridSearchCV over one
hyperparameter and cross_val_score -- each on small data of the model's task. Transformers run in a
Pipeline that ends in a replearn classifier; clusterers are scored by their own ``score``.
"""

import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags

from replearn.exceptions import ConvergenceWarning
from replearn.models import builtin_names as available
from replearn.models import create, hyperparameters

pytestmark = pytest.mark.filterwarnings(f"ignore::{ConvergenceWarning.__module__}.{ConvergenceWarning.__name__}")

# smaller ensembles and networks, so ~600 fits stay fast
FAST = {
    "random_forest": {"n_estimators": 5, "random_state": 0},
    "random_structure_forest": {"n_estimators": 5, "random_state": 0},
    "adaboost": {"n_estimators": 5},
    "bagging": {"n_estimators": 3, "random_state": 0},
    "mlp": {"max_iter": 60, "random_state": 0},
    "cnn": {"max_iter": 20, "random_state": 0},
    "gmm": {"n_components": 2, "random_state": 0},
    "kmeans": {"n_clusters": 2, "random_state": 0},
    "kernel_kmeans": {"n_clusters": 2, "random_state": 0},
    "pca": {"n_components": 2},
    "kernel_pca": {"n_components": 2},
    "factor_analysis": {"n_components": 2},
    "ica": {"random_state": 0},
}


def _has_task(name):
    return "task" in hyperparameters(name)


def _params(name):  # fixed seeds: the by-hand refit below must reproduce cross_val_score exactly
    seed = {"random_state": 0} if "random_state" in hyperparameters(name) else {}
    return {**seed, **FAST.get(name, {})}


def _sklearn_kind(name) -> bool:
    """scikit-learn's protocol covers X -> y models; a recommender (fit(R), predict(rows, cols)) has none there
    (its protocol: tests/models/test_protocol.py, tests/contract/test_registry_validation.py)."""
    return create(name)._estimator_type != "recommender"


CASES = [(name, _params(name)) for name in available() if _sklearn_kind(name)] + [
    (name, {**_params(name), "task": "regression"}) for name in available() if _has_task(name)
]
IDS = [name + "".join(f"-{k}={v}" for k, v in params.items() if k == "task") for name, params in CASES]

# (hyperparameter, two values) searched by GridSearchCV; nested ones go through estimator__<name>
GRID = {
    "adaboost": ("estimator__max_depth", [1, 2]),
    "bagging": ("estimator__max_depth", [2, 3]),
    "all_vs_all": ("estimator__C", [0.5, 1.0]),
    "one_vs_all": ("estimator__C", [0.5, 1.0]),
    "tree_reduction": ("estimator__C", [0.5, 1.0]),
    "imbalanced": ("estimator__C", [0.5, 1.0]),
    "pairwise_ranking": ("estimator__C", [0.5, 1.0]),
    "gmm": ("n_components", [2, 3]),
    "kmeans": ("n_clusters", [2, 3]),
    "kernel_kmeans": ("n_clusters", [2, 3]),
    "pca": ("n_components", [1, 2]),
    "kernel_pca": ("n_components", [1, 2]),
    "factor_analysis": ("n_components", [1, 2]),
    "ica": ("max_iter", [100, 200]),
    "voting": ("weights", [None, [2.0, 1.0, 1.0]]),
    "gda": ("covariance", ["shared", "per_class"]),
    "gaussian_naive_bayes": ("var_smoothing", [1e-9, 1e-8]),
    "mae_regression": ("learning_rate", [0.05, 0.1]),
    "bayesian_linear_regression": ("prior_variance", [0.5, 1.0]),
}
FALLBACK = [
    ("alpha", [0.5, 1.0]),
    ("C", [0.5, 1.0]),
    ("n_neighbors", [3, 5]),
    ("max_depth", [2, 3]),
    ("n_estimators", [3, 5]),
    ("tau", [0.5, 1.0]),
    ("max_iter", [60, 80]),
]


def grid_for(name):
    if name in GRID:
        return GRID[name]
    hp = hyperparameters(name)
    return next((p, v) for p, v in FALLBACK if p in hp)


def data(model, n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    kind = model._estimator_type
    if kind == "clusterer":
        X[: n // 2] += 4.0
        return X, None
    if kind in ("classifier", "transformer"):  # transformers feed a classifier
        return X, np.digitize(X[:, 0] + 0.2 * rng.normal(size=n), [-0.4, 0.4])
    return X, X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)


def pipeline(model):
    if model._estimator_type == "transformer":
        return Pipeline([("scale", StandardScaler()), ("model", model), ("clf", create("logistic_regression"))])
    return Pipeline([("scale", StandardScaler()), ("model", model)])


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_clone_and_tags(name, params):
    model = create(name, **params)
    copy = clone(model)
    assert type(copy) is type(model) and copy is not model
    assert copy.get_params(deep=False) == model.get_params(deep=False)
    tags = get_tags(model)
    kind = model._estimator_type
    assert tags.estimator_type == kind
    assert is_classifier(model) == (kind == "classifier")
    assert is_regressor(model) == (kind == "regressor")
    assert tags.target_tags.required == (kind in ("classifier", "regressor"))
    assert (tags.transformer_tags is not None) == hasattr(model, "transform")
    assert tags.input_tags.sparse == model._accept_sparse


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_deep_params_round_trip(name, params):
    model = create(name, **params)
    shallow, deep = model.get_params(deep=False), model.get_params(deep=True)
    assert shallow == model.get_params()  # the default is the constructor's arguments
    assert shallow.items() <= deep.items()
    other = create(name).set_params(**deep)
    got = other.get_params(deep=True)
    # estimator_params now lists every base hyperparameter explicitly: the same model
    assert {k: v for k, v in got.items() if k != "estimator_params"} == {
        k: v for k, v in deep.items() if k != "estimator_params"
    }
    nested = sorted(k for k in deep if "__" in k)
    if "estimator_params" in shallow and isinstance(shallow.get("estimator"), str):
        base = model.estimator
        assert nested == sorted(f"estimator__{k}" for k in hyperparameters(base))
        key = nested[0]
        before = model.estimator_params
        model.set_params(**{key: deep[key]})
        assert model.estimator_params == {**(before or {}), key.split("__")[1]: deep[key]}
        with pytest.raises(ValueError, match="has no hyperparameter 'nope'"):
            model.set_params(estimator__nope=1)
    else:
        assert nested == []
        with pytest.raises(ValueError, match="invalid parameter"):
            model.set_params(estimator__nope=1)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_pipeline_grid_search_and_cross_val_score(name, params):
    model = create(name, **params)
    X, y = data(model)
    pipe = pipeline(model).fit(X, y)
    out = pipe.predict(X)
    assert out.shape == (len(X),)
    for method in ("predict_proba", "decision_function"):
        assert hasattr(pipe, method) == hasattr(pipe[-1], method)
        if hasattr(pipe, method):
            assert np.all(np.isfinite(getattr(pipe, method)(X)))

    param, values = grid_for(name)
    cv = KFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(pipeline(create(name, **params)), {f"model__{param}": values}, cv=cv, error_score="raise")
    search.fit(X, y)
    assert len(search.cv_results_["params"]) == 2
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert (
        search.best_estimator_.named_steps["model"].get_params(deep=True)[param]
        == search.best_params_[f"model__{param}"]
    )

    scores = cross_val_score(pipeline(create(name, **params)), X, y, cv=cv, error_score="raise")
    assert scores.shape == (3,) and np.all(np.isfinite(scores))
    train, test = next(cv.split(X))  # the first fold by hand: same model, same score
    first = pipeline(create(name, **params)).fit(X[train], None if y is None else y[train])
    assert first.score(X[test], None if y is None else y[test]) == pytest.approx(scores[0])
