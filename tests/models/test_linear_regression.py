"""LinearRegression: against scikit-learn, the CS229 Portland numbers, GD behaviour, bad inputs."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression as SkLinearRegression

from replearn.exceptions import ConvergenceWarning, DivergenceError, NotFittedError
from replearn.models.linear.least_squares import LinearRegression

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def portland():
    data = np.loadtxt(FIXTURES / "portland_housing.csv", delimiter=",", skiprows=1)
    return data[:, :2], data[:, 2] / 1000.0  # (living_area, bedrooms), price in $1000s


def standardize(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


@pytest.fixture
def random_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 6)) * [1, 10, 0.1, 3, 1, 5] + [0, 50, -3, 0, 1, 0]
    y = X @ rng.normal(size=6) + 4.0 + rng.normal(scale=0.5, size=120)
    return X, y


@pytest.mark.parametrize("solver", ["normal", "lstsq"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_closed_form_matches_sklearn_random(random_data, solver, fit_intercept):
    X, y = random_data
    ours = LinearRegression(solver=solver, fit_intercept=fit_intercept).fit(X, y)
    ref = SkLinearRegression(fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8)


@pytest.mark.parametrize("solver", ["normal", "lstsq"])
def test_closed_form_matches_sklearn_diabetes(solver):
    X, y = load_diabetes(return_X_y=True, scaled=False)
    ours = LinearRegression(solver=solver).fit(X, y)
    ref = SkLinearRegression().fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6)
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), rel=1e-10)
    assert ours.solver_used_ == ("cholesky" if solver == "normal" else "lstsq")


def test_portland_published_theta_one_feature():
    """CS229 notes §1.1 (seed 000 L246): theta0 = 71.27, theta1 = 0.1345 (price in $1000s on area)."""
    X, y = portland()
    model = LinearRegression().fit(X[:, :1], y)
    assert model.intercept_ == pytest.approx(71.27, abs=0.01)
    assert model.coef_[0] == pytest.approx(0.1345, abs=1e-4)


def test_portland_published_theta_two_features():
    """CS229 notes §1.1 (seed 000 L250): theta = (89.60, 0.1392, -8.738) with bedrooms."""
    X, y = portland()
    model = LinearRegression(solver="lstsq").fit(X, y)
    assert model.intercept_ == pytest.approx(89.60, abs=0.01)
    assert model.coef_[0] == pytest.approx(0.1392, abs=1e-4)
    assert model.coef_[1] == pytest.approx(-8.738, abs=1e-3)


def test_gd_on_standardized_portland_recovers_published_theta():
    X, y = portland()
    x = X[:, :1]
    mu, sd = x.mean(axis=0), x.std(axis=0)
    model = LinearRegression(solver="gd", learning_rate=0.5, max_iter=5000, tol=1e-14).fit((x - mu) / sd, y)
    theta1 = model.coef_[0] / sd[0]
    theta0 = model.intercept_ - theta1 * mu[0]
    assert theta0 == pytest.approx(71.27, abs=0.01)
    assert theta1 == pytest.approx(0.1345, abs=1e-4)


def test_gd_stops_on_the_gradient_not_on_a_small_change_of_the_loss():
    """Standardized living area + bedrooms: a relative loss change of 1e-6 stopped 0.7-11% short of the
    normal equations; a gradient norm of 1e-6 of the starting one stops within 1e-4."""
    X, y = portland()
    Xs = standardize(X)
    exact = LinearRegression().fit(Xs, y)
    gd = LinearRegression(solver="gd", max_iter=20000).fit(Xs, y)
    np.testing.assert_allclose(gd.coef_, exact.coef_, rtol=1e-4)
    assert gd.n_iter_ < 20000


@pytest.mark.parametrize("dataset", ["random", "diabetes"])
def test_gd_converges_to_the_closed_form_solution(random_data, dataset):
    X, y = random_data if dataset == "random" else load_diabetes(return_X_y=True, scaled=False)
    Xs = standardize(X)
    exact = LinearRegression(solver="lstsq").fit(Xs, y)
    gd = LinearRegression(solver="gd", learning_rate=0.1, max_iter=100_000, tol=1e-12).fit(Xs, y)
    np.testing.assert_allclose(gd.coef_, exact.coef_, rtol=1e-4, atol=1e-6 * np.abs(exact.coef_).max())
    assert gd.intercept_ == pytest.approx(exact.intercept_, rel=1e-6)
    history = gd.loss_history_
    assert len(history) == gd.n_iter_ + 1
    assert np.all(np.diff(history) <= 1e-12 * history[0])  # non-increasing
    # the last value is J at the solution: 1/(2n) * residual sum of squares
    rss = np.sum((y - exact.predict(Xs)) ** 2)
    assert history[-1] == pytest.approx(rss / (2 * len(y)), rel=1e-8)


def test_gd_with_huge_learning_rate_raises_divergence_error(random_data):
    X, y = random_data
    message = r"became (inf|nan) at iteration \d+; the learning rate 1000 is too large"
    with pytest.raises(DivergenceError, match=message):
        LinearRegression(solver="gd", learning_rate=1000.0, max_iter=10_000).fit(standardize(X), y)


def test_gd_tiny_max_iter_warns(random_data):
    X, y = random_data
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        model = LinearRegression(solver="gd", max_iter=3).fit(standardize(X), y)
    assert model.n_iter_ == 3 and len(model.loss_history_) == 4


def test_rank_deficient_normal_falls_back_to_lstsq(random_data):
    X, y = random_data
    Xd = np.column_stack([X, X[:, 1]])  # duplicated column: X^T X is singular
    normal = LinearRegression(solver="normal").fit(Xd, y)
    lstsq = LinearRegression(solver="lstsq").fit(Xd, y)
    assert normal.solver_used_ == "lstsq"
    np.testing.assert_allclose(normal.predict(Xd), lstsq.predict(Xd), rtol=1e-10)
    np.testing.assert_allclose(normal.coef_, lstsq.coef_, rtol=1e-8)
    # minimum-norm solution splits the weight of the duplicated column equally
    assert normal.coef_[1] == pytest.approx(normal.coef_[-1], rel=1e-8)
    # predictions equal those of the full-rank fit
    full = LinearRegression().fit(X, y)
    np.testing.assert_allclose(normal.predict(Xd), full.predict(X), rtol=1e-8)


def test_closed_form_solvers_do_not_set_gd_attributes(random_data):
    model = LinearRegression().fit(*random_data)
    assert model.n_iter_ is None and model.loss_history_ is None
    assert model.n_features_in_ == 6


def test_unknown_solver_lists_valid_ones(random_data):
    with pytest.raises(
        ValueError, match=r"solver must be one of \['gd', 'lstsq', 'minibatch', 'normal', 'sgd'\], got 'qr'"
    ):
        LinearRegression(solver="qr").fit(*random_data)


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([["a", "b"], ["c", "d"]], [1.0, 2.0], "must be numeric"),
        ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], "must be 2-D"),
        ([[1.0, np.nan], [2.0, 3.0]], [1.0, 2.0], "NaN"),
        ([[1.0], [2.0], [3.0]], [1.0, 2.0], "inconsistent numbers of samples: X has 3, y has 2"),
        ([[1.0], [2.0]], [1.0, np.nan], "NaN"),
    ],
)
def test_bad_inputs_raise(X, y, match):
    with pytest.raises(ValueError, match=match):
        LinearRegression().fit(X, y)


def test_predict_checks(random_data):
    X, y = random_data
    with pytest.raises(NotFittedError):
        LinearRegression().predict(X)
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but LinearRegression was fitted with 6"):
        model.predict(X[:, :5])


def test_bad_hyperparameters_raise(random_data):
    X, y = random_data
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        LinearRegression(solver="gd", learning_rate=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="max_iter must be an integer"):
        LinearRegression(solver="gd", max_iter=10.5).fit(X, y)


# -- stochastic solvers: LMS (sgd) and mini-batch --------------------------------------------------------
@pytest.mark.parametrize("solver, batch", [("sgd", 1), ("minibatch", 16)])
def test_stochastic_solvers_converge_to_the_closed_form_with_a_decaying_step(random_data, solver, batch):
    X, y = random_data
    Xs = standardize(X)
    exact = LinearRegression(solver="lstsq").fit(Xs, y)
    model = LinearRegression(
        solver=solver,
        batch_size=batch,
        learning_rate=0.05,
        schedule="inverse",
        decay=0.01,
        max_iter=300,
        tol=0.0,
        n_iter_no_change=1000,
        random_state=0,
    )
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=300 epochs"):  # patience > max_iter
        model.fit(Xs, y)
    np.testing.assert_allclose(model.coef_, exact.coef_, atol=1e-3 * np.abs(exact.coef_).max())
    assert model.intercept_ == pytest.approx(exact.intercept_, rel=1e-9)  # exact by centring
    assert model.solver_used_ == solver and model.n_iter_ == 300
    assert len(model.loss_history_) == 301
    rss = np.sum((y - exact.predict(Xs)) ** 2) / (2 * len(y))
    assert model.loss_history_[-1] == pytest.approx(rss, rel=1e-4)
    # with the default patience it stops by itself once J stalls, close to the minimum
    stopped = LinearRegression(
        solver=solver,
        batch_size=batch,
        learning_rate=0.05,
        schedule="inverse",
        decay=0.01,
        max_iter=300,
        random_state=0,
    ).fit(Xs, y)
    assert stopped.n_iter_ < 300 and stopped.loss_history_[-1] == pytest.approx(rss, rel=1e-3)


def test_lms_recovers_portland_theta_with_decaying_steps():
    X, y = portland()
    x = X[:, :1]
    mu, sd = x.mean(axis=0), x.std(axis=0)
    # eta_t = 0.05 / (1 + 0.05 t) -> 0: the LMS rule then converges (CS229 notes, footnote L298), slowly
    model = LinearRegression(
        solver="sgd",
        learning_rate=0.05,
        schedule="inverse",
        decay=0.05,
        max_iter=1000,
        tol=0.0,
        n_iter_no_change=1000,
        random_state=3,
    )
    with pytest.warns(ConvergenceWarning):
        model.fit((x - mu) / sd, y)
    theta1 = model.coef_[0] / sd[0]
    assert theta1 == pytest.approx(0.1345, abs=1e-4)
    assert model.intercept_ - theta1 * mu[0] == pytest.approx(71.27, abs=0.2)


def test_sgd_loss_history_decreases_on_average_and_is_reproducible(random_data):
    X, y = random_data
    Xs = standardize(X)
    kw = dict(solver="sgd", learning_rate=0.01, max_iter=20, tol=1e-9, n_iter_no_change=100, random_state=5)
    with pytest.warns(ConvergenceWarning):
        a = LinearRegression(**kw).fit(Xs, y)
    h = a.loss_history_
    assert h[-1] < 0.01 * h[0] and np.mean(np.diff(h) < 0) > 0.5
    with pytest.warns(ConvergenceWarning):
        b = LinearRegression(**kw).fit(Xs, y)
        c = LinearRegression(**{**kw, "random_state": 6}).fit(Xs, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)  # another order of the examples


def test_sgd_with_huge_step_raises_divergence_error(random_data):
    X, y = random_data
    with pytest.raises(DivergenceError, match="the learning rate 100 is too large"):
        LinearRegression(solver="sgd", learning_rate=100.0, random_state=0).fit(standardize(X), y)


def test_stochastic_hyperparameters_are_validated(random_data):
    X, y = random_data
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        LinearRegression(solver="minibatch", batch_size=0).fit(X, y)
    with pytest.raises(ValueError, match="schedule must be one of"):
        LinearRegression(solver="sgd", schedule="cosine").fit(X, y)
