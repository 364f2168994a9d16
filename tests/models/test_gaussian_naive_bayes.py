"""GaussianNaiveBayes: against scikit-learn's GaussianNB, priors, zero variance, bad inputs."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.naive_bayes import GaussianNB

from replearn.models.naive_bayes.gaussian import GaussianNaiveBayes


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=200)
    X = rng.normal(size=(200, 5)) * (1 + y[:, None]) + 2 * y[:, None]
    return X, y, rng.normal(size=(50, 5)) * 3


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-2])
def test_matches_sklearn(data, var_smoothing):
    X, y, X_test = data
    ours = GaussianNaiveBayes(var_smoothing=var_smoothing).fit(X, y)
    ref = GaussianNB(var_smoothing=var_smoothing).fit(X, y)
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-12)
    assert ours.epsilon_ == pytest.approx(ref.epsilon_, rel=1e-12)
    np.testing.assert_allclose(ours.class_prior_, ref.class_prior_)
    np.testing.assert_allclose(ours.class_count_, ref.class_count_)
    np.testing.assert_allclose(ours.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-8)
    np.testing.assert_allclose(ours.predict_log_proba(X_test), ref.predict_log_proba(X_test), rtol=1e-8, atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


def test_matches_sklearn_on_iris():
    X, y = load_iris(return_X_y=True)
    ours = GaussianNaiveBayes().fit(X, y)
    ref = GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    assert ours.score(X, y) == pytest.approx(ref.score(X, y))


def test_variances_are_mle_not_unbiased(data):
    X, y, _ = data
    model = GaussianNaiveBayes(var_smoothing=0.0).fit(X, y)
    np.testing.assert_allclose(model.var_[1], np.var(X[y == 1], axis=0, ddof=0), rtol=1e-12)


def test_priors_are_respected(data):
    X, y, X_test = data
    priors = np.array([0.7, 0.2, 0.1])
    ours = GaussianNaiveBayes(priors=priors).fit(X, y)
    ref = GaussianNB(priors=priors).fit(X, y)
    np.testing.assert_array_equal(ours.class_prior_, priors)
    np.testing.assert_allclose(ours.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-8)
    # changing only the prior shifts each log posterior ratio by the log prior ratio
    flat = GaussianNaiveBayes(priors=[1 / 3] * 3).fit(X, y)
    shift = ours.predict_log_proba(X_test) - flat.predict_log_proba(X_test)
    ratio = shift[:, 0] - shift[:, 1]
    np.testing.assert_allclose(ratio, np.log(0.7 / 0.2), rtol=1e-9)


@pytest.mark.parametrize(
    "priors, match",
    [
        ([0.5, 0.5], "priors has 2 entries but y has 3 classes"),
        ([0.5, 0.6, -0.1], "non-negative"),
        ([0.2, 0.2, 0.2], "must sum to 1"),
    ],
)
def test_bad_priors_raise(data, priors, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=match):
        GaussianNaiveBayes(priors=priors).fit(X, y)


def test_zero_variance_feature_gives_no_nan(data):
    X, y, X_test = data
    X = X.copy()
    X[:, 2] = 3.0  # constant everywhere
    X[y == 1, 4] = -1.0  # constant within one class
    model = GaussianNaiveBayes().fit(X, y)
    proba = model.predict_proba(X_test)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    # tiny variances make |jll| ~ 1e10, where scikit-learn's jll - logsumexp(jll) itself is only
    # accurate to ~1e10 * eps; agree to that precision
    np.testing.assert_allclose(proba, GaussianNB().fit(X, y).predict_proba(X_test), atol=1e-5)


def test_all_constant_features_and_no_smoothing():
    X = np.ones((4, 2))
    y = np.array([0, 0, 1, 1])
    proba = GaussianNaiveBayes().fit(X, y).predict_proba([[1.0, 1.0], [5.0, -3.0]])
    np.testing.assert_allclose(proba, 0.5)  # uninformative features: the prior
    with pytest.raises(ValueError, match="zero variance within class 0 and var_smoothing=0"):
        GaussianNaiveBayes(var_smoothing=0.0).fit(X, y)


def test_far_away_point_gives_finite_probabilities(data):
    X, y, _ = data
    proba = GaussianNaiveBayes().fit(X, y).predict_proba(np.full((1, 5), 1e6))
    assert np.all(np.isfinite(proba)) and proba.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([["a"], ["b"]], [0, 1], "must be numeric"),
        ([1.0, 2.0], [0, 1], "must be 2-D"),
        ([[np.nan], [2.0]], [0, 1], "NaN"),
        ([[1.0], [2.0]], [0, 1, 0], "X has 2, y has 3"),
        ([[1.0], [2.0]], [1, 1], r"1 class\(es\)"),
    ],
)
def test_bad_inputs(X, y, match):
    with pytest.raises(ValueError, match=match):
        GaussianNaiveBayes().fit(X, y)


def test_bad_var_smoothing():
    with pytest.raises(ValueError, match="var_smoothing must be >= 0"):
        GaussianNaiveBayes(var_smoothing=-1.0).fit([[0.0], [1.0]], [0, 1])
