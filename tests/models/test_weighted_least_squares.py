"""Weighted least squares (``sample_weight``) and multi-output least squares (issue 13 §4).

References: numpy's ``lstsq`` on the sqrt(w)-scaled design (the textbook reduction of weighted to
ordinary least squares, CS229 PS1 5a, seed 002 L2728-2796), scikit-learn's
``LinearRegression(sample_weight=...)`` (test-only), and repeated rows for integer weights.
"""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import Ridge as SkRidge

from replearn.exceptions import ConvergenceWarning
from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.ridge import Ridge


@pytest.fixture
def hetero():
    """The heteroscedastic model of CS229 PS1 5a(iii): y_i ~ N(theta^T x_i + b, sigma_i^2), sigma_i known."""
    rng = np.random.default_rng(7)
    n = 200
    X = rng.normal(size=(n, 3)) * [1.0, 2.0, 0.5] + [0.0, 1.0, -2.0]
    sigma = np.exp(rng.uniform(-2.0, 1.5, size=n))
    y = X @ np.array([1.5, -0.7, 2.0]) + 3.0 + sigma * rng.normal(size=n)
    return X, y, 1.0 / sigma**2


def lstsq_weighted(X, y, w, fit_intercept=True):
    """numpy lstsq on [X, 1] with every row (and target) multiplied by sqrt(w_i)."""
    A = np.column_stack([X, np.ones(len(X))]) if fit_intercept else X
    r = np.sqrt(w)
    theta = np.linalg.lstsq(A * r[:, None], (y.T * r).T, rcond=None)[0]
    return (theta[:-1], theta[-1]) if fit_intercept else (theta, 0.0)


def quiet(model, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(*args, **kwargs)


@pytest.mark.parametrize("solver", ["normal", "lstsq"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_closed_form_weighted_fit_matches_lstsq_on_scaled_rows_and_sklearn(hetero, solver, fit_intercept):
    X, y, w = hetero
    model = LinearRegression(solver=solver, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    coef, intercept = lstsq_weighted(X, y, w, fit_intercept)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-9, atol=1e-12)
    assert model.intercept_ == pytest.approx(intercept, rel=1e-9, abs=1e-12)
    ref = SkLinearRegression(fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-8)
    assert model.intercept_ == pytest.approx(ref.intercept_, rel=1e-8, abs=1e-10)
    # the weights matter: the ordinary fit is a different line
    ols = LinearRegression(solver=solver, fit_intercept=fit_intercept).fit(X, y)
    assert np.max(np.abs(ols.coef_ - model.coef_)) > 1e-3


def test_weighted_fit_is_closer_to_the_truth_under_heteroscedastic_noise():
    # the MLE of the heteroscedastic model (weights 1/sigma^2) beats OLS on average over datasets
    rng = np.random.default_rng(0)
    theta = np.array([1.5, -0.7, 2.0])
    err_w, err_o = [], []
    for _ in range(30):
        X = rng.normal(size=(60, 3))
        sigma = np.exp(rng.uniform(-2.0, 1.5, size=60))
        y = X @ theta + sigma * rng.normal(size=60)
        err_w.append(np.sum((LinearRegression().fit(X, y, sample_weight=sigma**-2).coef_ - theta) ** 2))
        err_o.append(np.sum((LinearRegression().fit(X, y).coef_ - theta) ** 2))
    assert np.mean(err_w) < 0.5 * np.mean(err_o)


@pytest.mark.parametrize("solver", ["normal", "lstsq", "gd"])
def test_integer_weights_equal_repeated_rows(hetero, solver):
    X, y, _ = hetero
    counts = np.random.default_rng(3).integers(0, 4, size=len(y))
    kw = dict(learning_rate=0.1, max_iter=20000, tol=1e-12) if solver == "gd" else {}
    weighted = quiet(LinearRegression(solver=solver, **kw), X, y, sample_weight=counts)
    repeated = quiet(LinearRegression(solver=solver, **kw), np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-9, atol=1e-12)
    assert weighted.intercept_ == pytest.approx(repeated.intercept_, rel=1e-9)
    if solver == "gd":  # the same objective, so the same path of J
        assert weighted.n_iter_ == repeated.n_iter_
        np.testing.assert_allclose(weighted.loss_history_, repeated.loss_history_, rtol=1e-9)


def test_gd_reaches_the_weighted_solution_and_records_the_weighted_objective(hetero):
    X, y, w = hetero
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    model = quiet(LinearRegression(solver="gd", learning_rate=0.5, max_iter=20000, tol=1e-12), Xs, y, sample_weight=w)
    coef, intercept = lstsq_weighted(Xs, y, w)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-7)
    assert model.intercept_ == pytest.approx(intercept, rel=1e-7)
    r = Xs @ model.coef_ + model.intercept_ - y
    assert model.loss_history_[-1] == pytest.approx(0.5 * np.sum(w * r**2) / np.sum(w), rel=1e-9)


@pytest.mark.parametrize("solver, batch", [("sgd", 1), ("minibatch", 16)])
def test_stochastic_solvers_converge_to_the_weighted_solution(solver, batch):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 3))
    sigma = np.exp(rng.uniform(-1.0, 1.0, size=300))
    y = X @ np.array([1.0, -2.0, 0.5]) + 1.0 + sigma * rng.normal(size=300)
    w = sigma**-2
    model = quiet(
        LinearRegression(
            solver=solver, batch_size=batch, learning_rate=0.02, schedule="inverse", decay=0.01, max_iter=300,
            tol=0.0, n_iter_no_change=300, random_state=0,
        ),
        X, y, sample_weight=w,
    )  # fmt: skip
    coef, intercept = lstsq_weighted(X, y, w)
    ols = np.linalg.lstsq(np.column_stack([X, np.ones(300)]), y, rcond=None)[0]
    assert np.max(np.abs(model.coef_ - coef)) < 0.02
    assert model.intercept_ == pytest.approx(intercept, abs=0.02)
    assert np.max(np.abs(ols[:3] - coef)) > 0.05  # far enough apart that the test tells them apart


@pytest.mark.parametrize("solver", ["normal", "lstsq", "gd", "sgd"])
def test_unit_weights_and_scaled_weights_change_nothing(hetero, solver):
    X, y, w = hetero
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    kw = dict(learning_rate=0.1, max_iter=20000, tol=1e-12, random_state=0)
    plain = quiet(LinearRegression(solver=solver, **kw), X, y)
    ones = quiet(LinearRegression(solver=solver, **kw), X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_allclose(ones.coef_, plain.coef_, rtol=1e-9)
    a = quiet(LinearRegression(solver=solver, **kw), X, y, sample_weight=w)
    b = quiet(LinearRegression(solver=solver, **kw), X, y, sample_weight=1000.0 * w)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9)


def test_zero_weight_rows_are_ignored(hetero):
    X, y, w = hetero
    w = w.copy()
    w[::3] = 0.0
    y_bad = y.copy()
    y_bad[::3] = 1e6  # garbage where the weight is zero
    full = LinearRegression().fit(X, y_bad, sample_weight=w)
    kept = LinearRegression().fit(X[w > 0], y[w > 0], sample_weight=w[w > 0])
    np.testing.assert_allclose(full.coef_, kept.coef_, rtol=1e-9)


@pytest.mark.parametrize(
    "weights, error, match",
    [
        (np.ones(5), ValueError, r"sample_weight has 5 entries, but X has 200 samples"),
        (np.r_[-1.0, np.ones(199)], ValueError, r"non-negative \(>= 0\), got -1.0 at index 0"),
        (np.zeros(200), ValueError, "zero for every sample"),
        (np.r_[np.nan, np.ones(199)], ValueError, "sample_weight contains NaN or infinite"),
        (np.r_[np.inf, np.ones(199)], ValueError, "sample_weight contains NaN or infinite"),
        (np.ones((200, 2)), ValueError, "sample_weight must be 1-D"),
    ],
)
@pytest.mark.parametrize("model", [LinearRegression(), LinearRegression(solver="sgd"), Ridge()])
def test_bad_weights_are_refused(hetero, weights, error, match, model):
    X, y, _ = hetero
    with pytest.raises(error, match=match):
        model.fit(X, y, sample_weight=weights)


# -- ridge shares the reduction -------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["primal", "dual"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_weighted_ridge_matches_sklearn(hetero, solver, fit_intercept):
    X, y, w = hetero
    ours = Ridge(alpha=3.0, solver=solver, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    ref = SkRidge(alpha=3.0, fit_intercept=fit_intercept, solver="cholesky").fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-8)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-8, abs=1e-10)


def test_weighted_ridge_on_sparse_input_matches_dense(hetero):
    import scipy.sparse as sp

    X, y, w = hetero
    X = np.where(np.abs(X) < 0.8, 0.0, X)
    dense = Ridge(alpha=2.0, solver="primal").fit(X, y, sample_weight=w)
    sparse = Ridge(alpha=2.0, solver="primal").fit(sp.csr_array(X), y, sample_weight=w)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9)
    assert sparse.intercept_ == pytest.approx(dense.intercept_, rel=1e-9)


def test_integer_weights_equal_repeated_rows_for_ridge(hetero):
    X, y, _ = hetero
    counts = np.random.default_rng(4).integers(0, 4, size=len(y))
    a = Ridge(alpha=5.0).fit(X, y, sample_weight=counts)
    b = Ridge(alpha=5.0).fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9)


# -- multi-output ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver", ["normal", "lstsq", "gd"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_output_matches_lstsq_column_by_column(hetero, solver, weighted):
    X, y, w = hetero
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    Y = np.column_stack([y, -2.0 * y + X[:, 0], np.sin(X[:, 1])])
    sw = w if weighted else np.ones(len(y))
    kw = dict(learning_rate=0.5, max_iter=20000, tol=1e-13) if solver == "gd" else {}
    model = quiet(LinearRegression(solver=solver, **kw), X, Y, sample_weight=sw if weighted else None)
    coef, intercept = lstsq_weighted(X, Y, sw)
    assert model.coef_.shape == (3, 3) and model.intercept_.shape == (3,)
    np.testing.assert_allclose(model.coef_, coef.T, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.intercept_, intercept, rtol=1e-7)
    pred = model.predict(X)
    assert pred.shape == (len(y), 3)
    for k in range(3):  # each column is the single-output fit
        single = quiet(LinearRegression(solver=solver, **kw), X, Y[:, k], sample_weight=sw if weighted else None)
        np.testing.assert_allclose(pred[:, k], single.predict(X), rtol=1e-7, atol=1e-9)
    ref = SkLinearRegression().fit(X, Y, sample_weight=sw)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-7, atol=1e-9)


def test_multi_output_without_intercept_and_column_vector_still_warns(hetero):
    X, y, _ = hetero
    Y = np.column_stack([y, 2 * y])
    model = LinearRegression(fit_intercept=False).fit(X, Y)
    np.testing.assert_array_equal(model.intercept_, [0.0, 0.0])
    np.testing.assert_allclose(model.coef_[1], 2 * model.coef_[0], rtol=1e-10)
    with pytest.warns(Warning, match="column vector"):
        single = LinearRegression().fit(X, y[:, None])
    assert single.coef_.shape == (3,) and isinstance(single.intercept_, float)


@pytest.mark.parametrize("solver", ["sgd", "minibatch"])
def test_stochastic_solvers_refuse_multi_output_clearly(hetero, solver):
    X, y, _ = hetero
    with pytest.raises(ValueError, match=r"fits one target, but y has shape \(200, 2\)"):
        LinearRegression(solver=solver).fit(X, np.column_stack([y, y]))


def test_multi_output_targets_are_validated(hetero):
    X, y, _ = hetero
    Y = np.column_stack([y, y])
    Y[4, 1] = np.nan
    with pytest.raises(ValueError, match="y contains NaN"):
        LinearRegression().fit(X, Y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LinearRegression().fit(X, np.ones((10, 2)))
