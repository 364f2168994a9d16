"""MAE (least absolute deviations) regression by subgradient descent (EPFL): against the linear program of least
absolute deviations, scikit-learn's QuantileRegressor, robustness to outliers, the subgradient itself."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog

from replearn.exceptions import ConvergenceWarning
from replearn.models import create
from replearn.models.linear.mae import MAERegression, mae


def lad_linprog(X, y, fit_intercept=True):
    """min (1/n) sum t_i  s.t.  -t <= y - A theta <= t  (A = [X, 1]): the LP form of least absolute deviations."""
    n, d = X.shape
    A = np.column_stack([X, np.ones(n)]) if fit_intercept else X
    p = A.shape[1]
    c = np.r_[np.zeros(p), np.ones(n) / n]
    A_ub = np.block([[A, -np.eye(n)], [-A, -np.eye(n)]])
    res = linprog(c, A_ub=A_ub, b_ub=np.r_[y, -y], bounds=[(None, None)] * p + [(0, None)] * n, method="highs")
    assert res.success
    return res.x[:p], res.fun


def data(n=200, d=3, seed=0, outliers=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 20.0, size=d) + rng.normal(size=d) * 5  # unstandardized
    w = rng.normal(size=d)
    y = X @ w + 3.0 + rng.standard_t(3, size=n)
    if outliers:
        y[:outliers] += 500.0
    return X, y, w


@pytest.mark.parametrize("n, d, seed", [(200, 3, 0), (500, 5, 1), (150, 8, 2)])
def test_subgradient_descent_reaches_the_lp_optimum(n, d, seed):
    X, y, _ = data(n, d, seed)
    theta, best = lad_linprog(X, y)
    model = create("mae_regression").fit(X, y)
    assert model.converged_
    got = mae(y, model.predict(X))
    assert best <= got <= best * (1 + 5e-4)
    np.testing.assert_allclose(model.coef_, theta[:d], rtol=0.05, atol=0.02 * np.abs(theta[:d]).max())


def test_stochastic_subgradient_descent_gets_close():
    X, y, _ = data(300, 3, 4)
    _, best = lad_linprog(X, y)
    model = MAERegression(solver="sgd", random_state=0).fit(X, y)
    assert best <= mae(y, model.predict(X)) <= best * 1.01


def test_without_intercept_and_against_scikit_learn():
    from sklearn.linear_model import QuantileRegressor

    X, y, _ = data(120, 2, 5)
    theta, best = lad_linprog(X, y, fit_intercept=False)
    model = MAERegression(fit_intercept=False).fit(X, y)
    assert model.intercept_ == 0.0
    assert mae(y, model.predict(X)) <= best * (1 + 5e-4)
    ref = QuantileRegressor(quantile=0.5, alpha=0.0, fit_intercept=False, solver="highs").fit(X, y)
    assert mae(y, model.predict(X)) <= mae(y, ref.predict(X)) * (1 + 5e-4)


def test_intercept_only_is_the_median():
    y = np.array([1.0, 2.0, 7.0, 100.0, 3.0])
    model = MAERegression().fit(np.zeros((5, 1)), y)
    assert model.predict(np.zeros((1, 1)))[0] == pytest.approx(3.0, abs=1e-3)


def test_robust_to_outliers_where_least_squares_is_not():
    X, y, w = data(300, 2, 6, outliers=30)  # 10% of the targets shifted by +500
    mae_fit = create("mae_regression").fit(X, y)
    ls_fit = create("linear_regression").fit(X, y)
    assert np.max(np.abs(mae_fit.coef_ - w)) < 0.1
    assert abs(ls_fit.intercept_ - 3.0) > 20 and abs(mae_fit.intercept_ - 3.0) < 1.0


def test_the_update_is_epfls_subgradient():
    """The first step from w = 0 in standardized units is -gamma_0 g with g = -(1/N) X^T sign(y)."""
    X, y, _ = data(50, 2, 7)
    model = MAERegression(max_iter=1, n_iter_no_change=1, learning_rate=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    Z = np.column_stack([(X - X.mean(0)) / X.std(0), np.ones(50)])
    med = np.median(y)
    t = (y - med) / np.mean(np.abs(y - med))
    theta = 0.1 * (Z.T @ np.sign(t)) / 50  # w - gamma g from w = 0
    assert model.loss_history_[1] == pytest.approx(np.mean(np.abs(t - Z @ theta)), rel=1e-12)
    if np.mean(np.abs(t - Z @ theta)) < np.mean(np.abs(t)):  # kept only if it improved on the start
        scale = np.mean(np.abs(y - med))
        np.testing.assert_allclose(model.coef_, theta[:2] * scale / X.std(0), rtol=1e-12)
    assert len(model.loss_history_) == 2 and model.loss_history_[0] == pytest.approx(1.0)
    assert np.all(np.diff(model.best_loss_history_) <= 0)


def test_units_do_not_change_the_answer():
    X, y, _ = data(200, 3, 8)
    a = create("mae_regression").fit(X, y)
    b = create("mae_regression").fit(X * np.array([1e-3, 1.0, 1e4]) + 7.0, y * 100.0)
    np.testing.assert_allclose(b.coef_ * np.array([1e-3, 1.0, 1e4]) / 100.0, a.coef_, rtol=1e-8)


def test_convergence_is_recorded_and_max_iter_warns():
    X, y, _ = data(100, 2, 9)
    with pytest.warns(ConvergenceWarning, match="increase max_iter"):
        model = MAERegression(max_iter=5).fit(X, y)
    assert model.n_iter_ == 5 and not model.converged_


@pytest.mark.parametrize(
    "params, match",
    [
        ({"learning_rate": 0.0}, "learning_rate must be > 0"),
        ({"solver": "lbfgs"}, "solver must be one of"),
        ({"n_iter_no_change": 0}, "n_iter_no_change must be >= 1"),
    ],
)
def test_bad_hyperparameters(params, match):
    X, y, _ = data(20, 2, 0)
    with pytest.raises(ValueError, match=match):
        MAERegression(**params).fit(X, y)
