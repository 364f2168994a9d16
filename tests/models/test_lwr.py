"""Locally weighted linear regression: statsmodels WLS per query, limits in tau, stability, bad inputs."""

from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm

from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.lwr import LocallyWeightedRegression

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def cs229_lwr():
    data = np.loadtxt(FIXTURES / "cs229_ps1_q2_lwr.csv", delimiter=",", skiprows=1)
    return data[:, :1], data[:, 1]


@pytest.mark.parametrize("tau", [0.1, 0.5, 2.0])
def test_matches_statsmodels_wls_at_each_query(tau):
    """theta(x) = argmin sum_i w_i (y_i - theta^T x_i)^2, w_i = exp(-(x_i - x)^2 / (2 tau^2)) (CS229 §1.4)."""
    X, y = cs229_lwr()
    model = LocallyWeightedRegression(tau=tau).fit(X, y)
    queries = np.linspace(X.min() - 0.5, X.max() + 0.5, 7)[:, None]
    pred = model.predict(queries)
    coefs = model.local_coef(queries)
    for q, p, c in zip(queries, pred, coefs):
        w = np.exp(-((X[:, 0] - q[0]) ** 2) / (2 * tau**2))
        ref = sm.WLS(y, sm.add_constant(X), weights=w).fit()
        assert p == pytest.approx(ref.predict(np.array([[1.0, q[0]]]))[0], rel=1e-8, abs=1e-10)
        np.testing.assert_allclose(c, ref.params[::-1], rtol=1e-7, atol=1e-10)  # (slope, intercept)


def test_large_tau_is_ordinary_least_squares():
    X, y = cs229_lwr()
    ols = LinearRegression().fit(X, y)
    lwr = LocallyWeightedRegression(tau=1e5).fit(X, y)
    np.testing.assert_allclose(lwr.predict(X), ols.predict(X), rtol=1e-7, atol=1e-8)


def test_small_tau_fits_the_training_data_more_closely():
    """Small tau -> jagged, overfitting curve; large tau -> smooth (the correct direction; the CS229
    summaries state it reversed at seed 002 L268)."""
    X, y = cs229_lwr()
    errors = [np.mean((LocallyWeightedRegression(tau=t).fit(X, y).predict(X) - y) ** 2) for t in (0.03, 0.3, 3.0, 30.0)]
    assert errors == sorted(errors)
    assert errors[0] < 0.25 * errors[-1]


def test_multivariate_weights_use_the_euclidean_distance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=80)
    model = LocallyWeightedRegression(tau=0.8).fit(X, y)
    q = rng.normal(size=(4, 3))
    for qi, p in zip(q, model.predict(q)):
        w = np.exp(-np.sum((X - qi) ** 2, axis=1) / (2 * 0.8**2))
        ref = sm.WLS(y, sm.add_constant(X, prepend=False), weights=w).fit()
        assert p == pytest.approx(float(ref.predict(np.append(qi, 1.0)[None, :])[0]), rel=1e-8)


def test_far_queries_and_tiny_tau_stay_finite():
    X, y = cs229_lwr()
    model = LocallyWeightedRegression(tau=0.001).fit(X, y)  # below the closest spacing of the x's (0.00136)
    far = np.array([[1e3], [-1e3]])  # every weight underflows unless rescaled
    assert np.all(np.isfinite(model.predict(far)))
    # with one dominant point the weighted system is (numerically) singular: the min-norm least-squares
    # solution is used and the curve passes through every training point
    pred = model.predict(X)
    assert np.all(np.isfinite(pred))
    np.testing.assert_allclose(pred, y, atol=1e-6)


def test_ridge_term_shrinks_the_local_slope():
    X, y = cs229_lwr()
    plain = LocallyWeightedRegression(tau=0.5).fit(X, y).local_coef(X[:5])
    ridge = LocallyWeightedRegression(tau=0.5, alpha=10.0).fit(X, y).local_coef(X[:5])
    assert np.all(np.abs(ridge[:, 0]) < np.abs(plain[:, 0]))


def test_without_intercept():
    X, y = cs229_lwr()
    model = LocallyWeightedRegression(tau=0.5, fit_intercept=False).fit(X, y)
    q = np.array([[1.0]])
    w = np.exp(-((X[:, 0] - 1.0) ** 2) / (2 * 0.25))
    ref = sm.WLS(y, X, weights=w).fit()
    assert model.predict(q)[0] == pytest.approx(ref.params[0] * 1.0, rel=1e-8)


@pytest.mark.parametrize("params, match", [({"tau": 0.0}, "tau must be > 0"), ({"alpha": -1.0}, "alpha must be >= 0")])
def test_bad_hyperparameters(params, match):
    X, y = cs229_lwr()
    with pytest.raises(ValueError, match=match):
        LocallyWeightedRegression(**params).fit(X, y)
