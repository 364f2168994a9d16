"""PCA by eigendecomposition and SVD: scikit-learn, published Coursera numbers, Eckart-Young."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.decomposition import PCA as SKPCA
from sklearn.preprocessing import StandardScaler

from replearn.models import create
from replearn.models.decomposition.pca import PCA

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def correlated(n=200, d=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) * rng.uniform(0.5, 3, d) + rng.normal(size=d) * 5


def same_up_to_sign(A, B, **tol):
    signs = np.sign(np.sum(A * B, axis=-1, keepdims=True))
    np.testing.assert_allclose(A, signs * B, **tol)


def test_registry_and_type():
    model = create("pca", n_components=2)
    assert isinstance(model, PCA) and model._estimator_type == "transformer" and model._tasks == ("decomposition",)


@pytest.mark.parametrize("solver", ["svd", "eig"])
@pytest.mark.parametrize("standardize", [False, True])
def test_matches_sklearn_up_to_sign(solver, standardize):
    X = correlated()
    ours = PCA(3, solver=solver, standardize=standardize).fit(X)
    Xs = StandardScaler().fit_transform(X) if standardize else X
    ref = SKPCA(3, svd_solver="full").fit(Xs)
    same_up_to_sign(ours.components_, ref.components_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(ours.singular_values_, ref.singular_values_, rtol=1e-10)
    same_up_to_sign(ours.transform(X).T, ref.transform(Xs).T, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("shape", [(100, 8), (10, 40)])
def test_eig_solver_equals_svd_solver(shape):
    X = np.random.default_rng(1).normal(size=shape) @ np.diag(np.linspace(1, 3, shape[1]))
    a = PCA(solver="svd").fit(X)
    b = PCA(solver="eig").fit(X)
    k = min(shape) - 1  # the last direction of centred data with n <= d has zero variance
    np.testing.assert_allclose(a.singular_values_[:k], b.singular_values_[:k], rtol=1e-8)
    np.testing.assert_allclose(a.components_[:k], b.components_[:k], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(b.components_ @ b.components_.T, np.eye(min(shape)), atol=1e-8)


def test_coursera_ex7_published_numbers():
    # ex7.pdf (featureNormalize uses the n-1 standard deviation): top eigenvector
    # U(:,1) = [-0.707107 -0.707107], projection of the first example 1.481274, its recovery
    # [-1.047419 -1.047419] (all up to the sign of the eigenvector)
    X = np.loadtxt(FIXTURES / "coursera_ex7data1_pca.csv", delimiter=",", skiprows=1)
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    model = PCA(1).fit(Z)
    np.testing.assert_allclose(np.abs(model.components_[0]), [0.707107, 0.707107], atol=5e-7)
    y = model.transform(Z)
    assert abs(y[0, 0]) == pytest.approx(1.481274, abs=5e-7)
    np.testing.assert_allclose(model.inverse_transform(y)[0], [-1.047419, -1.047419], atol=5e-7)


@pytest.mark.parametrize("solver", ["svd", "eig"])
@pytest.mark.parametrize("k", [1, 2, 4])
def test_eckart_young_reconstruction_error(solver, k):
    X = correlated(seed=2)
    full = PCA(solver=solver).fit(X)
    model = PCA(k, solver=solver).fit(X)
    # sum of the remaining *squared* singular values (EPFL L1632 erratum), per example
    expected = np.sum(full.singular_values_[k:] ** 2) / len(X)
    assert model.reconstruction_error(X) == pytest.approx(expected, rel=1e-9)
    # and no other rank-k projection does better
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(X.shape[1], k)))
    Xc = X - X.mean(axis=0)
    other = np.sum((Xc - Xc @ Q @ Q.T) ** 2) / len(X)
    assert other >= model.reconstruction_error(X)


def test_full_rank_round_trip_and_diagonal_score_covariance():
    X = correlated(seed=3)
    model = PCA().fit(X)
    np.testing.assert_allclose(model.inverse_transform(model.transform(X)), X, rtol=1e-10, atol=1e-10)
    Y = model.transform(X)
    cov = np.cov(Y.T)
    np.testing.assert_allclose(cov, np.diag(model.explained_variance_), atol=1e-8 * cov.max())
    assert np.all(np.diff(model.explained_variance_) <= 0)
    assert model.explained_variance_ratio_.sum() == pytest.approx(1.0)


def test_fractional_n_components_keeps_enough_variance():
    X = correlated(seed=4)
    model = PCA(0.9).fit(X)
    ratios = PCA().fit(X).explained_variance_ratio_
    k = model.n_components_
    assert ratios[:k].sum() >= 0.9 > ratios[: k - 1].sum()
    assert model.components_.shape == (k, X.shape[1])


def test_standardize_uses_population_std_and_constant_features_are_safe():
    X = correlated(seed=5)
    X[:, 2] = 7.0
    model = PCA(standardize=True).fit(X)
    np.testing.assert_allclose(model.scale_[[0, 1]], X[:, [0, 1]].std(axis=0))
    assert model.scale_[2] == 1.0
    assert np.all(np.isfinite(model.transform(X)))


def test_sign_convention_largest_entry_positive():
    model = PCA().fit(correlated(seed=6))
    idx = np.argmax(np.abs(model.components_), axis=1)
    assert np.all(model.components_[np.arange(len(idx)), idx] > 0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 0}, "n_components must be >= 1"),
        ({"n_components": 7}, "n_components must be <= 6"),
        ({"n_components": 1.5}, "n_components must be < 1.0"),
        ({"solver": "arpack"}, "solver must be one of"),
    ],
)
def test_invalid_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        PCA(**params).fit(correlated())


def test_inverse_transform_checks_width():
    model = PCA(2).fit(correlated())
    with pytest.raises(ValueError, match="PCA has 2 components"):
        model.inverse_transform(np.zeros((3, 4)))
