"""Factor analysis by EM: against scikit-learn's FactorAnalysis, SciPy densities and invariants."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.decomposition import FactorAnalysis as SKFactorAnalysis

from replearn.exceptions import ConvergenceWarning
from replearn.models import create
from replearn.models.decomposition.factor_analysis import FactorAnalysis


def fa_data(n=400, d=8, k=2, seed=0):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(d, k))
    psi = rng.uniform(0.2, 1.0, d)
    X = rng.normal(size=(n, k)) @ L.T + rng.normal(size=(n, d)) * np.sqrt(psi) + rng.normal(size=d) * 3
    return X


def test_registry():
    assert isinstance(create("factor_analysis", n_components=2), FactorAnalysis)


@pytest.mark.parametrize("seed, k", [(0, 2), (1, 3)])
def test_converged_log_likelihood_matches_sklearn(seed, k):
    X = fa_data(seed=seed, k=k)
    ours = FactorAnalysis(k, tol=1e-12, max_iter=5000).fit(X)
    ref = SKFactorAnalysis(k, tol=1e-12, max_iter=20000).fit(X)
    assert ours.converged_
    assert ours.score(X) == pytest.approx(ref.score(X), abs=1e-7)
    # the loadings are identified up to a rotation; the implied covariance is not
    np.testing.assert_allclose(ours.get_covariance(), ref.get_covariance(), atol=1e-3)
    np.testing.assert_allclose(ours.noise_variance_, ref.noise_variance_, atol=1e-3)


def test_log_likelihood_history_is_non_decreasing_and_ends_at_score():
    X = fa_data(seed=2)
    model = FactorAnalysis(2, tol=1e-10).fit(X)
    h = model.log_likelihood_history_
    assert h.size == model.n_iter_ + 1
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[:-1]))
    assert h[-1] == pytest.approx(model.score(X), rel=1e-10)


def test_score_samples_is_the_gaussian_log_density():
    X = fa_data(seed=3)
    model = FactorAnalysis(2).fit(X)
    expected = multivariate_normal(model.mean_, model.get_covariance()).logpdf(X)
    np.testing.assert_allclose(model.score_samples(X), expected, rtol=1e-10)


def test_transform_is_the_posterior_mean():
    X = fa_data(seed=3)
    model = FactorAnalysis(2).fit(X)
    Lam = model.components_.T
    C = model.get_covariance()
    expected = np.linalg.solve(C, (X - model.mean_).T).T @ Lam  # E[z|x] = Lambda^T C^{-1} (x - mu)
    np.testing.assert_allclose(model.transform(X), expected, rtol=1e-8, atol=1e-10)


def test_more_features_than_samples_still_gives_a_proper_density():
    X = fa_data(n=15, d=40, k=2, seed=5)  # the sample covariance is singular (CS229 FA fragment)
    model = FactorAnalysis(2, tol=1e-6).fit(X)
    assert np.all(model.noise_variance_ > 0)
    assert np.isfinite(model.score(X))
    assert np.linalg.eigvalsh(model.get_covariance()).min() > 0


def test_validation():
    X = fa_data()
    with pytest.raises(ValueError, match="n_components must be <= 8"):
        FactorAnalysis(9).fit(X)
    with pytest.raises(ValueError, match="at least 2 training examples"):
        FactorAnalysis(1).fit(X[:1])
    with pytest.raises(ValueError, match="algorithm must be one of"):
        FactorAnalysis(1, algorithm="svd").fit(X)


def collinear_data(random_state=2):
    """make_classification with redundant (exactly collinear) features: a Heywood case."""
    from sklearn.datasets import make_classification

    X, _ = make_classification(
        n_samples=500,
        n_features=20,
        n_informative=3,
        n_redundant=4,
        class_sep=0.5,
        flip_y=0.05,
        random_state=random_state,
    )
    return X


@pytest.mark.parametrize("algorithm", ["profile", "em"])
@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_collinear_features_fit_without_a_spurious_monotonicity_error(algorithm, k):
    X = collinear_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = FactorAnalysis(k, algorithm=algorithm).fit(X)
    assert np.isfinite(model.score(X))
    assert np.all(model.noise_variance_ >= 1e-12 * X.var(axis=0) * (1 - 1e-9))


@pytest.mark.parametrize("k", [3, 5, 8])
def test_reaches_sklearns_log_likelihood_with_collinear_features(k):
    X = collinear_data()
    Xs = (X - X.mean(0)) / X.std(0)  # unit variances: both noise floors are 1e-12
    ours = FactorAnalysis(k).fit(Xs)
    ref = SKFactorAnalysis(k, tol=1e-8 * len(Xs), max_iter=5000).fit(Xs)
    assert ours.converged_ and ours.n_iter_ < 100
    assert ours.score(Xs) >= ref.score(Xs) - 1e-2


@pytest.mark.parametrize("seed, k", [(0, 2), (1, 3), (4, 4)])
def test_default_reaches_sklearns_log_likelihood_at_default_settings(seed, k):
    X = fa_data(seed=seed, k=k)
    ours = FactorAnalysis(k).fit(X)
    ref = SKFactorAnalysis(k).fit(X)
    assert ours.converged_
    assert ours.score(X) >= ref.score(X) - 1e-6


def test_em_and_profile_iteration_agree_on_a_regular_problem():
    X = fa_data(seed=6, k=2)
    em = FactorAnalysis(2, algorithm="em", tol=1e-12, max_iter=20000).fit(X)
    prof = FactorAnalysis(2, tol=1e-12, max_iter=20000).fit(X)
    assert em.score(X) == pytest.approx(prof.score(X), abs=1e-7)
    np.testing.assert_allclose(em.get_covariance(), prof.get_covariance(), atol=1e-4)


@pytest.mark.parametrize("algorithm", ["profile", "em"])
def test_a_constant_feature_is_fitted_as_an_independent_point_mass(algorithm):
    """Issue 24: a constant feature used to be refused. No factor loads on it, and the other features get the
    fit they get without it (the same covariance, the same posterior means)."""
    X = fa_data()
    Xc = np.insert(X, 3, 1.5, axis=1)
    with_it = FactorAnalysis(2, algorithm=algorithm, tol=1e-10, max_iter=5000).fit(Xc)
    without = FactorAnalysis(2, algorithm=algorithm, tol=1e-10, max_iter=5000).fit(X)
    np.testing.assert_allclose(with_it.components_[:, 3], 0.0, atol=1e-8)
    keep = np.r_[0:3, 4:9]
    np.testing.assert_allclose(
        with_it.get_covariance()[np.ix_(keep, keep)], without.get_covariance(), rtol=1e-4, atol=1e-6
    )
    # Lambda E[z | x] does not depend on the rotation of the factors
    np.testing.assert_allclose(
        with_it.transform(Xc) @ with_it.components_[:, keep], without.transform(X) @ without.components_, atol=2e-3
    )
    assert np.all(np.isfinite(with_it.score_samples(Xc)))


def test_each_factor_has_a_fixed_sign_whatever_the_eigensolver_returns():
    """A factor's sign leaves the likelihood unchanged and is left by LAPACK to the build and the CPU: the fit fixes
    it (each factor's largest-magnitude loading is positive), so transform agrees across machines, and a fit on
    the features in reverse order loads the same factors."""
    from replearn.models.decomposition.factor_analysis import FactorAnalysis

    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 2)) @ rng.standard_normal((2, 5)) + 0.3 * rng.standard_normal((200, 5))
    fa = FactorAnalysis(n_components=2).fit(X)
    C = fa.components_
    assert np.all(C[np.arange(2), np.argmax(np.abs(C), axis=1)] > 0)
    rev = FactorAnalysis(n_components=2).fit(X[:, ::-1]).components_[:, ::-1]
    np.testing.assert_allclose(np.abs(rev), np.abs(C), atol=1e-6)
    np.testing.assert_allclose(rev, C, atol=1e-6)
