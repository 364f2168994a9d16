"""Lasso: coordinate descent and ISTA/FISTA against scikit-learn's Lasso, optimality conditions, diagnostics."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import Lasso as SkLasso

from replearn.exceptions import ConvergenceWarning
from replearn.models.linear.lasso import Lasso


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(return_X_y=True)


def rel_err(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("alpha", [0.01, 0.1, 1.0])
@pytest.mark.parametrize("solver", ["cd", "ista", "fista"])
def test_matches_sklearn_lasso(diabetes, alpha, solver):
    """Same objective 1/(2n)||y - Xw - b||^2 + alpha ||w||_1, same alpha."""
    X, y = diabetes
    ref = SkLasso(alpha=alpha, tol=1e-12, max_iter=100_000).fit(X, y)
    ours = Lasso(alpha=alpha, solver=solver, tol=1e-12, max_iter=100_000).fit(X, y)
    assert rel_err(ours.coef_, ref.coef_) < 1e-6
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6)
    np.testing.assert_array_equal(ours.coef_ == 0, ref.coef_ == 0)  # same support
    assert ours.dual_gap_ <= 1e-12 * np.var(y)


def test_without_intercept_matches_sklearn(diabetes):
    X, y = diabetes
    ref = SkLasso(alpha=0.05, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(X, y)
    ours = Lasso(alpha=0.05, fit_intercept=False, tol=1e-12).fit(X, y)
    assert rel_err(ours.coef_, ref.coef_) < 1e-6 and ours.intercept_ == 0.0


def test_optimality_conditions(diabetes):
    """KKT: x_j^T r / n = alpha sign(w_j) where w_j != 0, and |x_j^T r| / n <= alpha where w_j = 0."""
    X, y = diabetes
    alpha = 0.3
    model = Lasso(alpha=alpha, tol=1e-14, max_iter=10_000).fit(X, y)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    corr = Xc.T @ (yc - Xc @ model.coef_) / len(y)
    nz = model.coef_ != 0
    assert 0 < nz.sum() < X.shape[1]
    np.testing.assert_allclose(corr[nz], alpha * np.sign(model.coef_[nz]), atol=1e-9)
    assert np.all(np.abs(corr[~nz]) <= alpha + 1e-9)


def test_alpha_above_alpha_max_gives_all_zeros(diabetes):
    X, y = diabetes
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    alpha_max = np.max(np.abs(Xc.T @ yc)) / len(y)
    for solver in ("cd", "fista"):
        model = Lasso(alpha=1.0001 * alpha_max, solver=solver).fit(X, y)
        assert np.all(model.coef_ == 0) and model.intercept_ == pytest.approx(y.mean())
    assert np.any(Lasso(alpha=0.99 * alpha_max).fit(X, y).coef_ != 0)


def test_more_penalty_more_sparsity(diabetes):
    X, y = diabetes
    nnz = [np.count_nonzero(Lasso(alpha=a).fit(X, y).coef_) for a in (0.001, 0.05, 0.5, 2.0)]
    assert nnz == sorted(nnz, reverse=True) and nnz[0] > nnz[-1]


@pytest.mark.parametrize("solver", ["cd", "ista", "fista"])
def test_loss_history_is_monotone(diabetes, solver):
    X, y = diabetes
    model = Lasso(alpha=0.1, solver=solver, tol=1e-10, max_iter=50_000).fit(X, y)
    h = model.loss_history_
    assert len(h) == model.n_iter_ + 1
    assert np.all(np.diff(h) <= 1e-12 * h[0])
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    r = yc - Xc @ model.coef_
    assert h[-1] == pytest.approx(0.5 * r @ r / len(y) + 0.1 * np.abs(model.coef_).sum(), rel=1e-12)


def test_fista_needs_fewer_iterations_than_ista(diabetes):
    X, y = diabetes
    ista = Lasso(alpha=0.01, solver="ista", tol=1e-10, max_iter=100_000).fit(X, y)
    fista = Lasso(alpha=0.01, solver="fista", tol=1e-10, max_iter=100_000).fit(X, y)
    assert fista.n_iter_ < ista.n_iter_ / 2


def test_max_iter_warns_with_the_gap(diabetes):
    X, y = diabetes
    with pytest.warns(ConvergenceWarning, match=r"did not converge in max_iter=2 sweeps \(duality gap"):
        Lasso(alpha=0.01, max_iter=2, tol=1e-12).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=3 iterations"):
        Lasso(alpha=0.01, solver="ista", max_iter=3, tol=1e-12).fit(X, y)


def test_constant_column_gets_zero_weight(diabetes):
    X, y = diabetes
    Xc = np.column_stack([X, np.full(len(X), 3.0)])
    model = Lasso(alpha=0.1).fit(Xc, y)
    assert model.coef_[-1] == 0.0


@pytest.mark.parametrize(
    "params, match",
    [({"alpha": -1.0}, "alpha must be >= 0"), ({"solver": "lars"}, "solver must be one of"), ({"max_iter": 0}, ">= 1")],
)
def test_bad_hyperparameters(diabetes, params, match):
    X, y = diabetes
    with pytest.raises(ValueError, match=match):
        Lasso(**params).fit(X, y)
