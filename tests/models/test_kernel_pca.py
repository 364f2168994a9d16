"""Kernel PCA: the linear kernel is PCA; RBF and polynomial kernels against scikit-learn's KernelPCA."""

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SKKernelPCA

from replearn.models import create
from replearn.models.decomposition.kernel_pca import KernelPCA
from replearn.models.decomposition.pca import PCA


def data(n=120, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 2.0


def same_up_to_sign(A, B, **tol):
    """Columns of A equal columns of B up to sign."""
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A, B * signs, **tol)


def test_registry():
    model = create("kernel_pca", n_components=2)
    assert isinstance(model, KernelPCA) and model._estimator_type == "transformer"


def test_linear_kernel_equals_pca():
    X = data()
    Xnew = data(n=20, seed=1)
    kp = KernelPCA(3, kernel="linear").fit(X)
    p = PCA(3).fit(X)
    np.testing.assert_allclose(kp.eigenvalues_, p.singular_values_**2, rtol=1e-9)
    same_up_to_sign(kp.fit_transform(X), p.transform(X), rtol=1e-8, atol=1e-8)
    same_up_to_sign(kp.transform(Xnew), p.transform(Xnew), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(kp.explained_variance_ratio_, p.explained_variance_ratio_, rtol=1e-9)


@pytest.mark.parametrize(
    "kernel, params", [("rbf", {"gamma": 0.05}), ("rbf", {}), ("poly", {"degree": 2, "gamma": 0.1, "coef0": 1.0})]
)
def test_matches_sklearn_kernel_pca(kernel, params):
    X = data(seed=2)
    Xnew = data(n=15, seed=3)
    ours = KernelPCA(4, kernel=kernel, **params).fit(X)
    ref = SKKernelPCA(4, kernel=kernel, eigen_solver="dense", **params).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-9)
    same_up_to_sign(ours.transform(X), ref.transform(X), rtol=1e-7, atol=1e-9)
    same_up_to_sign(ours.transform(Xnew), ref.transform(Xnew), rtol=1e-7, atol=1e-9)


def test_arpack_equals_dense():
    X = data(n=400, seed=7)
    dense = KernelPCA(6, kernel="rbf", gamma=0.05, eigen_solver="dense").fit(X)
    arpack = KernelPCA(6, kernel="rbf", gamma=0.05, eigen_solver="arpack").fit(X)
    auto = KernelPCA(6, kernel="rbf", gamma=0.05).fit(X)  # n > 200 and k < n / 10: ARPACK
    np.testing.assert_allclose(arpack.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    np.testing.assert_array_equal(auto.eigenvalues_, arpack.eigenvalues_)
    same_up_to_sign(arpack.transform(X[:50]), dense.transform(X[:50]), rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError, match="needs an explicit n_components"):
        KernelPCA(eigen_solver="arpack").fit(X)


def test_fit_transform_equals_transform_of_the_training_data():
    X = data(seed=4)
    model = KernelPCA(5, kernel="rbf", gamma=0.1)
    np.testing.assert_allclose(model.fit_transform(X), model.transform(X), rtol=1e-8, atol=1e-10)


def test_default_drops_zero_eigenvalues_and_ratios_sum_to_one():
    X = data(n=30, d=2, seed=5)
    model = KernelPCA(kernel="linear").fit(X)  # centred linear Gram matrix has rank 2
    assert model.n_components_ == 2
    assert model.explained_variance_ratio_.sum() == pytest.approx(1.0)
    Y = model.transform(X)
    assert np.all(np.isfinite(Y))


def test_requested_null_components_score_zero():
    X = data(n=30, d=2, seed=6)
    model = KernelPCA(4, kernel="linear").fit(X)
    assert model.eigenvalues_[2:].tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(model.transform(X)[:, 2:], 0.0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 0}, "n_components must be >= 1"),
        ({"n_components": 500}, "n_components must be <= 120"),
        ({"kernel": "laplacian"}, "kernel must be one of"),
        ({"degree": 0}, "degree must be >= 1"),
        ({"eigen_solver": "lobpcg"}, "eigen_solver must be one of"),
    ],
)
def test_invalid_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        KernelPCA(**params).fit(data())


def test_learned_pre_images_match_sklearn():
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    from replearn.models import create

    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 5))
    ours = create(
        "kernel_pca",
        n_components=3,
        kernel="rbf",
        gamma=0.2,
        eigen_solver="dense",
        fit_inverse_transform=True,
        alpha=0.1,
    ).fit(X)
    ref = SkKernelPCA(
        n_components=3, kernel="rbf", gamma=0.2, eigen_solver="dense", fit_inverse_transform=True, alpha=0.1
    ).fit(X)
    np.testing.assert_allclose(
        ours.inverse_transform(ours.transform(X[:10])),
        ref.inverse_transform(ref.transform(X[:10])),
        rtol=1e-6,
        atol=1e-8,
    )
    with pytest.raises(NotImplementedError, match="fit_inverse_transform=True"):
        create("kernel_pca", n_components=2).fit(X).inverse_transform(np.zeros((1, 2)))


def test_widely_spread_features_give_a_clustered_spectrum_not_an_index_error():
    """Issue 17: features scaled by 1e5 make the RBF Gram matrix ~ the identity; LAPACK's subset
    eigensolver then returned no eigenpairs and fit raised IndexError."""
    rng = np.random.default_rng(0)
    rng.normal(size=(60, 3)), rng.laplace(size=(60, 3)), rng.normal(size=(3, 3)), rng.normal(size=(60, 3))
    X = rng.laplace(size=(60, 3)) @ rng.normal(size=(3, 3)) * 1e5  # a case where ?syevr returned nothing
    model = KernelPCA(n_components=2).fit(X)
    assert model.eigenvalues_.shape == (2,)
    np.testing.assert_allclose(model.eigenvalues_, 1.0, atol=1e-6)  # K = I: every centred eigenvalue is 1
    assert np.all(np.isfinite(model.transform(X)))


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_fit_inverse_transform_must_be_a_bool(value):
    with pytest.raises(TypeError, match="fit_inverse_transform must be a bool"):
        KernelPCA(fit_inverse_transform=value).fit(np.random.default_rng(0).normal(size=(10, 2)))
