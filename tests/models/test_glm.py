"""GLMs fitted by IRLS: statsmodels / scikit-learn references, the Coursera ex2 numbers, exponential-family facts."""

from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.special import gammaln
from sklearn.linear_model import PoissonRegressor, Ridge

from replearn.exceptions import ConvergenceWarning
from replearn.models.linear.glm import FAMILIES, GeneralizedLinearModel
from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.logistic import LogisticRegression

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def counts(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = rng.poisson(np.exp(X @ np.array([0.3, -0.2, 0.5, 0.1]) + 0.5)).astype(float)
    return X, y


def test_poisson_matches_statsmodels_exactly():
    X, y = counts()
    ours = GeneralizedLinearModel(family="poisson", tol=1e-12).fit(X, y)
    ref = sm.GLM(y, sm.add_constant(X), family=sm.families.Poisson()).fit(tol=1e-14)
    np.testing.assert_allclose(ours.coef_, ref.params[1:], rtol=1e-10)
    assert ours.intercept_ == pytest.approx(ref.params[0], rel=1e-10)
    assert ours.deviance_ == pytest.approx(ref.deviance, rel=1e-10)
    assert ours.n_iter_ <= 10  # Newton / Fisher scoring: quadratic convergence
    np.testing.assert_allclose(ours.predict(X), ref.predict(sm.add_constant(X)), rtol=1e-10)


@pytest.mark.parametrize("alpha", [0.0, 0.05, 1.0])
def test_poisson_matches_sklearn_poisson_regressor(alpha):
    """Same objective: mean NLL (= half mean Poisson deviance + const) + alpha/2 ||w||^2."""
    X, y = counts(seed=1)
    ours = GeneralizedLinearModel(family="poisson", alpha=alpha, tol=1e-12).fit(X, y)
    ref = PoissonRegressor(alpha=alpha, tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-9)
    assert ours.intercept_ == pytest.approx(ref.intercept_, rel=1e-6)


def test_bernoulli_reproduces_the_coursera_ex2_numbers():
    """Coursera ML ex2 (exam admission): theta = (-25.161, 0.206, 0.201), J = 0.203, p(45, 85) = 0.776."""
    data = np.loadtxt(FIXTURES / "coursera_ex2data1_exam_admission.csv", delimiter=",", skiprows=1)
    X, y = data[:, :2], data[:, 2]
    model = GeneralizedLinearModel(family="bernoulli", tol=1e-12).fit(X, y)
    assert model.intercept_ == pytest.approx(-25.161, abs=1e-3)
    np.testing.assert_allclose(model.coef_, [0.206, 0.201], atol=1e-3)
    ybar = y.mean()  # IRLS starts from the intercept-only fit b = logit(mean y): J = the entropy of mean y
    assert model.loss_history_[0] == pytest.approx(-(ybar * np.log(ybar) + (1 - ybar) * np.log(1 - ybar)), rel=1e-12)
    assert model.loss_history_[-1] == pytest.approx(0.203, abs=1e-3)
    assert model.predict(np.array([[45.0, 85.0]]))[0] == pytest.approx(0.776, abs=1e-3)
    # the same fit as unpenalized logistic regression by Newton's method
    logi = LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(model.coef_, logi.coef_[0], rtol=1e-8)


def test_bernoulli_with_penalty_is_logistic_regression_with_c():
    X, y = counts(seed=2)
    y = (y > 1).astype(float)
    alpha = 0.02
    glm = GeneralizedLinearModel(family="bernoulli", alpha=alpha, tol=1e-12).fit(X, y)
    logi = LogisticRegression(C=1 / (len(y) * alpha), tol=1e-12).fit(X, y)
    np.testing.assert_allclose(glm.coef_, logi.coef_[0], rtol=1e-8)


def test_gaussian_is_least_squares_and_ridge():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 5))
    y = X @ rng.normal(size=5) + 2.0 + rng.normal(size=100)
    glm = GeneralizedLinearModel(family="gaussian", tol=1e-12).fit(X, y)
    np.testing.assert_allclose(glm.coef_, LinearRegression().fit(X, y).coef_, rtol=1e-10)
    assert glm.n_iter_ == 1  # one IRLS step solves a quadratic exactly
    alpha = 0.3
    glm = GeneralizedLinearModel(family="gaussian", alpha=alpha, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(glm.coef_, Ridge(alpha=len(y) * alpha).fit(X, y).coef_, rtol=1e-10)


@pytest.mark.parametrize("name", ["gaussian", "bernoulli", "poisson"])
def test_exponential_family_mean_and_variance_are_derivatives_of_a(name):
    """E[y] = a'(eta), Var[y] = a''(eta) (CS229 §3.1 annotation; seed 002 L617-628)."""
    fam = FAMILIES[name]
    eta = np.linspace(-2, 2, 9)
    h = 1e-5
    d1 = (fam.log_partition(eta + h) - fam.log_partition(eta - h)) / (2 * h)
    d2 = (fam.log_partition(eta + h) - 2 * fam.log_partition(eta) + fam.log_partition(eta - h)) / h**2
    np.testing.assert_allclose(fam.mean(eta), d1, rtol=1e-7)
    np.testing.assert_allclose(fam.variance(eta), d2, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fam.link(fam.mean(eta)), eta, atol=1e-12)


@pytest.mark.parametrize("name, support", [("bernoulli", np.array([0.0, 1.0])), ("poisson", np.arange(0.0, 80.0))])
def test_exponential_family_densities_sum_to_one_with_the_right_mean(name, support):
    fam = FAMILIES[name]
    for eta in (-1.3, 0.0, 0.7, 2.0):
        p = np.exp(fam.log_base(support) + eta * support - fam.log_partition(np.array(eta)))
        assert p.sum() == pytest.approx(1.0, rel=1e-12)
        assert p @ support == pytest.approx(float(fam.mean(np.array(eta))), rel=1e-12)
    assert np.allclose(FAMILIES["poisson"].log_base(np.array([3.0])), -gammaln(4.0))


def test_irls_is_monotone():
    X, y = counts(seed=4)
    model = GeneralizedLinearModel(family="poisson", tol=1e-12).fit(X * 3, y)  # a harder start
    assert np.all(np.diff(model.loss_history_) <= 1e-14)


def test_bad_targets_and_params():
    X, y = counts()
    with pytest.raises(ValueError, match="family='poisson' needs non-negative targets"):
        GeneralizedLinearModel(family="poisson").fit(X, y - 5)
    with pytest.raises(ValueError, match="family='bernoulli' needs targets in"):
        GeneralizedLinearModel(family="bernoulli").fit(X, y)
    with pytest.raises(ValueError, match="at least one positive target"):
        GeneralizedLinearModel(family="poisson").fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="family must be one of"):
        GeneralizedLinearModel(family="gamma").fit(X, y)


def test_separable_bernoulli_raises_and_suggests_a_penalty():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="linearly separable.*alpha > 0"):
        GeneralizedLinearModel(family="bernoulli").fit(X, y)
    model = GeneralizedLinearModel(family="bernoulli", alpha=0.1).fit(X, y)
    assert np.all((model.predict(X) > 0.5) == (y == 1))


def test_max_iter_warns():
    X, y = counts()
    with pytest.warns(ConvergenceWarning, match="did not converge in 1 IRLS iterations"):
        GeneralizedLinearModel(family="poisson", max_iter=1).fit(X, y)
