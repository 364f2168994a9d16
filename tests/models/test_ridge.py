"""Ridge: against scikit-learn, primal == dual, optimality, the augmentation identity."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.linear_model import Ridge as SkRidge

from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.ridge import Ridge


def make_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 5, size=d) + rng.normal(size=d)
    y = X @ rng.normal(size=d) + 2.0 + rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 100.0])
@pytest.mark.parametrize("shape", [(80, 5), (15, 40)])
def test_matches_sklearn(fit_intercept, alpha, shape):
    X, y = make_data(*shape)
    ours = Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, y)
    ref = SkRidge(alpha=alpha, fit_intercept=fit_intercept, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-10)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6, abs=1e-10)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("shape", [(60, 8), (10, 30)])
def test_primal_equals_dual(fit_intercept, shape):
    X, y = make_data(*shape, seed=3)
    primal = Ridge(alpha=0.7, solver="primal", fit_intercept=fit_intercept).fit(X, y)
    dual = Ridge(alpha=0.7, solver="dual", fit_intercept=fit_intercept).fit(X, y)
    assert primal.solver_used_ == "primal" and dual.solver_used_ == "dual"
    np.testing.assert_allclose(primal.coef_, dual.coef_, rtol=1e-8, atol=1e-12)
    assert primal.intercept_ == pytest.approx(dual.intercept_, rel=1e-8, abs=1e-12)


def test_auto_picks_dual_when_fewer_samples_than_features():
    assert Ridge().fit(*make_data(10, 30)).solver_used_ == "dual"
    assert Ridge().fit(*make_data(30, 10)).solver_used_ == "primal"


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_gradient_of_objective_vanishes_at_solution(fit_intercept):
    X, y = make_data(50, 6, seed=5)
    alpha = 3.0
    model = Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, y)
    r = y - X @ model.coef_ - model.intercept_
    grad_w = -2 * X.T @ r + 2 * alpha * model.coef_
    scale = np.abs(2 * X.T @ y).max()
    assert np.abs(grad_w).max() <= 1e-10 * scale
    if fit_intercept:  # intercept is not penalized: d/db = -2 sum r = 0
        assert abs(r.sum()) <= 1e-10 * np.abs(y).sum()


def test_equals_least_squares_on_augmented_data():
    """Ridge = least squares on [X; sqrt(alpha) I], [y; 0] (seed 003 Remark 3.6, L354-358)."""
    X, y = make_data(40, 5, seed=7)
    alpha = 2.5
    Xa = np.vstack([X, np.sqrt(alpha) * np.eye(5)])
    ya = np.concatenate([y, np.zeros(5)])
    w = scipy.linalg.lstsq(Xa, ya)[0]
    np.testing.assert_allclose(Ridge(alpha=alpha, fit_intercept=False).fit(X, y).coef_, w, rtol=1e-9)


def test_alpha_zero_is_least_squares_and_shrinkage_grows_with_alpha():
    X, y = make_data(40, 5, seed=8)
    np.testing.assert_allclose(Ridge(alpha=0.0).fit(X, y).coef_, LinearRegression().fit(X, y).coef_, rtol=1e-8)
    norms = [np.linalg.norm(Ridge(alpha=a).fit(X, y).coef_) for a in (0.1, 1.0, 10.0, 100.0)]
    assert all(a > b for a, b in zip(norms, norms[1:]))


def test_alpha_zero_dual_with_fewer_samples_gives_min_norm_interpolant():
    X, y = make_data(8, 20, seed=9)
    model = Ridge(alpha=0.0, fit_intercept=False, solver="dual").fit(X, y)
    np.testing.assert_allclose(model.predict(X), y, rtol=1e-8)
    np.testing.assert_allclose(model.coef_, np.linalg.pinv(X) @ y, rtol=1e-7)


def test_bad_hyperparameters_and_inputs():
    X, y = make_data(20, 3)
    with pytest.raises(ValueError, match=r"solver must be one of \['auto', 'dual', 'primal'\], got 'svd'"):
        Ridge(solver="svd").fit(X, y)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        Ridge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        Ridge().fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(ValueError, match="must be 2-D"):
        Ridge().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="X has 20, y has 19"):
        Ridge().fit(X, y[:-1])
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but Ridge was fitted with 3"):
        model.predict(X[:, :2])
