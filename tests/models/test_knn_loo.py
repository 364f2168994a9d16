"""Fast leave-one-out for k-NN (CIML Alg. 9, corrected): equal to refitting without each example."""

import numpy as np
import pytest

from replearn.models.neighbors.knn import KNearestNeighbors
from replearn.models.neighbors.loo import loo_errors


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=50), [-0.5, 0.5])
    X[7] = X[5]  # a duplicate: distance exactly 0
    return X, y


def brute_force_loo(X, y, k, weights, task):
    errs = []
    for i in range(len(X)):
        keep = np.arange(len(X)) != i
        pred = KNearestNeighbors(k, weights=weights, task=task).fit(X[keep], y[keep]).predict(X[i : i + 1])[0]
        errs.append(pred != y[i] if task == "classification" else (pred - y[i]) ** 2)
    return np.mean(errs)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_loo_equals_refitting_for_every_k(data, weights):
    X, y = data
    errors = loo_errors(X, y, max_k=12, weights=weights)
    expected = [brute_force_loo(X, y, k, weights, "classification") for k in range(1, 13)]
    np.testing.assert_array_equal(errors, expected)


def test_loo_regression_equals_refitting(data):
    X, _ = data
    t = X[:, 0] ** 2 + X[:, 1]
    errors = loo_errors(X, t, max_k=6, weights="distance", task="regression")
    np.testing.assert_allclose(
        errors, [brute_force_loo(X, t, k, "distance", "regression") for k in range(1, 7)], rtol=1e-12
    )


def test_line_9_compares_with_the_held_out_label():
    """The book's line 9 tests y_hat != y_m (the neighbour just added), which would count an error for
    every neighbour of the other class; the corrected rule tests the prediction against y_n."""
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    y = np.array([-1, -1, -1, 1, 1, 1])
    errors = loo_errors(X, y)  # K = 1..N-1
    assert errors[0] == 0.0  # 1-NN: every point's nearest neighbour has its label
    assert errors[1] == 0.0  # 2-NN: the two nearest are in the same cluster
    assert errors[4] == 1.0  # 5-NN: the other class has 3 of the 5 votes for every point
    assert len(errors) == 5


def test_method_on_the_estimator_uses_its_settings(data):
    X, y = data
    model = KNearestNeighbors(weights="distance")
    np.testing.assert_array_equal(model.loo_errors(X, y, max_k=5), loo_errors(X, y, max_k=5, weights="distance"))
    assert not hasattr(model, "X_fit_")  # nothing is fitted
    assert model.loo_errors(X, y).shape == (len(X) - 1,)


def test_blocks_of_rows_give_the_same_answer(data, monkeypatch):
    import replearn.models.neighbors.loo as loo

    X, y = data
    full = loo_errors(X, y, max_k=10)
    monkeypatch.setattr(loo, "_BLOCK_ELEMENTS", 7 * 10 * 3)  # 7 rows per block
    np.testing.assert_array_equal(loo_errors(X, y, max_k=10), full)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"max_k": 50}, "max_k must be <= 49"),
        ({"max_k": 0}, "max_k must be >= 1"),
        ({"weights": "gaussian"}, "weights must be one of"),
        ({"task": "ranking"}, "task must be one of"),
    ],
)
def test_bad_arguments(data, kwargs, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        loo_errors(X, y, **kwargs)
