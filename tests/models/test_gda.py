"""GDA: the logistic posterior of CS229 §4.1.3, MLE formulas, scikit-learn LDA, scipy densities."""

from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import multivariate_normal
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from replearn.models.generative.gda import GaussianDiscriminantAnalysis

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def cs229_ps1():
    data = np.loadtxt(FIXTURES / "cs229_ps1_q1_logistic.csv", delimiter=",", skiprows=1)
    return data[:, :2], data[:, 2].astype(int)


def three_classes(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    A = rng.normal(size=(3, 3))
    X = rng.normal(size=(n, 3)) @ A + 2.0 * rng.normal(size=(3, 3))[y]
    return X, y


@pytest.mark.parametrize("which", ["cs229", "admission"])
def test_shared_covariance_posterior_is_exactly_the_logistic_function(which):
    """CS229 notes §4.1.3: p(y=1|x) = 1/(1 + exp(-(theta^T x + theta_0))) with theta = Sigma^{-1}(mu1 - mu0),
    theta_0 = -1/2 (mu1^T Sigma^{-1} mu1 - mu0^T Sigma^{-1} mu0) + log(phi/(1 - phi))."""
    if which == "cs229":
        X, y = cs229_ps1()
    else:
        data = np.loadtxt(FIXTURES / "coursera_ex2data1_exam_admission.csv", delimiter=",", skiprows=1)
        X, y = data[:, :2], data[:, 2].astype(int)
    model = GaussianDiscriminantAnalysis(reg_covar=0.0).fit(X, y)
    # the MLEs, computed independently
    phi = y.mean()
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    R = X - np.where(y[:, None] == 1, mu1, mu0)
    Sigma = R.T @ R / len(y)
    np.testing.assert_allclose(model.means_, [mu0, mu1], rtol=1e-13)
    np.testing.assert_allclose(model.covariance_, Sigma, rtol=1e-12)
    theta = np.linalg.solve(Sigma, mu1 - mu0)
    theta0 = -0.5 * (mu1 @ np.linalg.solve(Sigma, mu1) - mu0 @ np.linalg.solve(Sigma, mu0)) + np.log(phi / (1 - phi))
    np.testing.assert_allclose(model.theta_, theta, rtol=1e-10)
    assert model.theta0_ == pytest.approx(theta0, rel=1e-10)
    grid = np.random.default_rng(0).normal(size=(50, 2)) * X.std(axis=0) + X.mean(axis=0)
    for Q in (X, grid):
        np.testing.assert_allclose(model.predict_proba(Q)[:, 1], expit(Q @ theta + theta0), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(model.decision_function(Q), Q @ theta + theta0, rtol=1e-9, atol=1e-9)


def test_shared_matches_sklearn_lda():
    X, y = three_classes()
    ours = GaussianDiscriminantAnalysis(reg_covar=0.0).fit(X, y)
    ref = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("covariance", ["shared", "per_class"])
def test_log_densities_match_scipy(covariance):
    X, y = three_classes(seed=1)
    model = GaussianDiscriminantAnalysis(covariance=covariance, reg_covar=0.0).fit(X, y)
    jll = model._joint_log_likelihood(X)
    for k in range(3):
        Xk = X[y == k]
        cov = model.covariance_ if covariance == "shared" else model.covariance_[k]
        if covariance == "per_class":  # the per-class MLE divides by n_k
            np.testing.assert_allclose(cov, np.cov(Xk.T, bias=True), rtol=1e-12)
        ref = np.log(np.mean(y == k)) + multivariate_normal(Xk.mean(axis=0), cov).logpdf(X)
        np.testing.assert_allclose(jll[:, k], ref, rtol=1e-11)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_per_class_covariances_give_a_quadratic_boundary():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 300)
    X = np.vstack([rng.normal(size=(300, 2)) * 0.5, rng.normal(size=(300, 2)) * 2.0])  # same mean, other spread
    shared = GaussianDiscriminantAnalysis().fit(X, y)
    quad = GaussianDiscriminantAnalysis(covariance="per_class").fit(X, y)
    assert quad.score(X, y) > 0.8 > shared.score(X, y)


def test_priors_shift_the_log_odds():
    X, y = cs229_ps1()
    base = GaussianDiscriminantAnalysis().fit(X, y)
    shifted = GaussianDiscriminantAnalysis(priors=[0.2, 0.8]).fit(X, y)
    phi = y.mean()
    delta = np.log(0.8 / 0.2) - np.log(phi / (1 - phi))
    np.testing.assert_allclose(shifted.decision_function(X) - base.decision_function(X), delta, rtol=1e-9)


def test_constant_feature_needs_regularization():
    X, y = cs229_ps1()
    Xc = np.column_stack([X, np.ones(len(X))])
    with pytest.raises(ValueError, match="singular.*increase reg_covar"):
        GaussianDiscriminantAnalysis(reg_covar=0.0).fit(Xc, y)
    model = GaussianDiscriminantAnalysis().fit(Xc, y)  # default reg_covar = 1e-6
    np.testing.assert_array_equal(model.predict(Xc), GaussianDiscriminantAnalysis().fit(X, y).predict(X))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"covariance": "diag"}, "covariance must be one of"),
        ({"reg_covar": -1.0}, ">= 0"),
        ({"priors": [0.5, 0.6]}, "sum to 1"),
    ],
)
def test_bad_hyperparameters(params, match):
    X, y = cs229_ps1()
    with pytest.raises(ValueError, match=match):
        GaussianDiscriminantAnalysis(**params).fit(X, y)


def test_regularization_is_relative_so_unscaled_data_give_lda():
    """Issue 17: an absolute reg_covar=1e-6 moved the posteriors on unscaled breast_cancer (variances
    down to ~1e-6) by up to 0.096 from LDA's; a well-conditioned covariance is now used as estimated."""

    path = Path(__file__).resolve().parents[2] / "data" / "uci" / "breast_cancer.csv"
    X = np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(30))
    y = np.loadtxt(path, delimiter=",", skiprows=1, usecols=30, dtype=str)
    ours = GaussianDiscriminantAnalysis().fit(X, y).predict_proba(X)
    ref = LinearDiscriminantAnalysis().fit(X, y).predict_proba(X)
    np.testing.assert_allclose(ours, ref, atol=1e-8)
    # and in any units: rescaling the features changes nothing
    np.testing.assert_allclose(GaussianDiscriminantAnalysis().fit(X * 1e-4, y).predict_proba(X * 1e-4), ours, atol=1e-8)


def test_class_means_compiled_and_one_hot_agree(monkeypatch):
    from replearn.models.generative import gda

    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, size=200)
    X = rng.normal(size=(200, 4)) + 3.0 * rng.normal(size=(3, 4))[y]
    ours = GaussianDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(ours.means_, np.stack([X[y == k].mean(axis=0) for k in range(3)]), rtol=1e-12)
    monkeypatch.setattr(gda, "jit_available", lambda: False)
    ref = GaussianDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-10)
