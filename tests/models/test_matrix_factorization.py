"""Matrix factorization by ALS and SGD (EPFL notes): published cost, invariants, held-out ratings.

This model is excluded from tests/models/test_protocol.py (it takes a ratings matrix with NaNs and
predicts by index), so the protocol checks that apply are made here.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from replearn.exceptions import ConvergenceWarning, NotFittedError
from replearn.models import create
from replearn.models.factorization.matrix_factorization import MatrixFactorization, _als_half_step, _objective
from replearn.persistence import load_model, save_model

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def low_rank(D=120, N=80, k=3, frac=0.35, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    R = 3.0 + 0.7 * rng.normal(size=(D, k)) @ rng.normal(size=(N, k)).T + noise * rng.normal(size=(D, N))
    observed = rng.uniform(size=R.shape) < frac
    return np.where(observed, R, np.nan), np.where(~observed, R, np.nan)


def test_registry():
    model = create("matrix_factorization", n_components=3)
    assert isinstance(model, MatrixFactorization) and model._tasks == ("matrix_completion",)


def test_objective_matches_the_coursera_ex8_published_cost():
    # ex8.pdf collaborative filtering on the 5 movies x 4 users subset with 3 features:
    # "cost at loaded parameters: 22.22" (22.224604) and 31.34 (31.344056) with lambda = 1.5
    df = pd.read_csv(FIXTURES / "coursera_ex8_cofi_subset.csv")

    def mat(name):
        part = df[df.matrix == name]
        M = np.zeros((part.row.max() + 1, part.col.max() + 1))
        M[part.row, part.col] = part.value
        return M

    Y, R, X, Theta = mat("Y"), mat("R"), mat("X"), mat("Theta")
    mask = R == 1
    Yc = np.where(mask, Y, 0.0)
    assert _objective(Yc, mask, X, Theta, 0.0, 0.0) == pytest.approx(22.224604, abs=5e-7)
    assert _objective(Yc, mask, X, Theta, 1.5, 1.5) == pytest.approx(31.344056, abs=5e-7)


def test_als_loss_never_increases_and_beats_the_mean_on_held_out_entries():
    train, test = low_rank()
    model = MatrixFactorization(3, lambda_w=1.0, lambda_z=1.0, random_state=0).fit(train)
    h = model.loss_history_
    assert model.converged_ and h.size == model.n_iter_ + 1
    assert np.all(np.diff(h) <= 1e-12 * h[0])
    baseline = np.sqrt(np.nanmean((test - np.nanmean(train)) ** 2))
    assert model.rmse(test) < 0.5 * baseline
    assert model.score(test) == -model.rmse(test)


def test_sgd_reaches_the_als_objective():
    train, test = low_rank(seed=1)
    als = MatrixFactorization(3, lambda_w=1.0, lambda_z=1.0, random_state=0).fit(train)
    sgd = MatrixFactorization(
        3,
        solver="sgd",
        lambda_w=1.0,
        lambda_z=1.0,
        learning_rate=0.02,
        batch_size=128,
        max_iter=300,
        tol=1e-5,
        random_state=0,
    ).fit(train)
    assert sgd.loss_history_[-1] == pytest.approx(als.loss_history_[-1], rel=0.05)
    baseline = np.sqrt(np.nanmean((test - np.nanmean(train)) ** 2))
    assert sgd.rmse(test) < 0.5 * baseline


def test_fully_observed_als_half_step_is_the_closed_form():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 7))
    W = rng.normal(size=(10, 3))
    lam = 0.3
    Z = _als_half_step(X.T, np.ones_like(X.T, dtype=bool), W, lam)
    expected = np.linalg.solve(W.T @ W + lam * np.eye(3), W.T @ X).T  # Z^T = (W^T W + lambda I)^{-1} W^T X
    np.testing.assert_allclose(Z, expected, rtol=1e-12)


def test_fully_observed_als_reaches_the_eckart_young_optimum():
    rng = np.random.default_rng(3)
    R = rng.normal(size=(30, 20)) @ np.diag(np.linspace(3, 0.1, 20))
    model = MatrixFactorization(4, lambda_w=1e-8, lambda_z=1e-8, tol=1e-12, max_iter=2000, random_state=0).fit(R)
    s = np.linalg.svd(R - R.mean(), compute_uv=False)
    best = 0.5 * np.sum(s[4:] ** 2) / R.size
    assert model.loss_history_[-1] == pytest.approx(best, rel=1e-4)


def test_predict_by_index_agrees_with_the_completed_matrix():
    train, _ = low_rank(seed=4)
    model = MatrixFactorization(3, random_state=0).fit(train)
    rows, cols = np.array([0, 5, 7]), np.array([1, 1, 60])
    np.testing.assert_allclose(model.predict(rows, cols), model.predict_matrix()[rows, cols], rtol=1e-12)
    with pytest.raises(ValueError, match=r"cols must lie in \[0, 80\)"):
        model.predict(np.array([0]), np.array([80]))


def test_empty_rows_get_zero_factors_and_need_regularization():
    train, _ = low_rank(seed=5)
    train[3] = np.nan
    model = MatrixFactorization(3, random_state=0).fit(train)
    np.testing.assert_array_equal(model.row_factors_[3], 0.0)
    assert model.predict(np.array([3]), np.array([0]))[0] == pytest.approx(model.mean_)
    with pytest.raises(ValueError, match="row 3 has no observed entry"):
        MatrixFactorization(2, lambda_w=0.0).fit(train)


def test_protocol_checks():
    train, _ = low_rank(seed=6)
    model = MatrixFactorization(2, solver="sgd", random_state=0)
    got = model.get_params()
    assert create("matrix_factorization", **got).get_params() == got
    with pytest.raises(ValueError, match="invalid parameter 'rank'"):
        model.set_params(rank=3)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        model.predict(np.array([0]), np.array([0]))
    train0 = train.copy()
    with pytest.warns(ConvergenceWarning):
        assert model.set_params(max_iter=2).fit(train) is model
    np.testing.assert_array_equal(train, train0)  # input untouched
    assert model.n_features_in_ == train.shape[1] and model.n_rows_ == train.shape[0]


def test_save_load_round_trip(tmp_path):
    train, _ = low_rank(seed=7)
    model = MatrixFactorization(3, random_state=0).fit(train)
    save_model(model, tmp_path / "mf", registry_name="matrix_factorization")
    loaded = load_model(tmp_path / "mf")
    np.testing.assert_array_equal(loaded.predict_matrix(), model.predict_matrix())


@pytest.mark.parametrize(
    "R, match",
    [
        (np.array([[1.0, np.inf]]), "infinite values"),
        (np.full((2, 2), np.nan), "no observed entry"),
        (np.array([1.0, 2.0]), "must be 2-D"),
        (np.array([["a", "b"]]), "must be numeric"),
    ],
)
def test_invalid_ratings(R, match):
    with pytest.raises(ValueError, match=match):
        MatrixFactorization(1).fit(R)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 0}, "n_components must be >= 1"),
        ({"solver": "svd"}, "solver must be one of"),
        ({"lambda_w": -1.0}, "lambda_w must be >= 0"),
        ({"learning_rate": 0.0}, "learning_rate must be > 0"),
    ],
)
def test_invalid_parameters(params, match):
    train, _ = low_rank()
    with pytest.raises(ValueError, match=match):
        MatrixFactorization(**params).fit(train)
