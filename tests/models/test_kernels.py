"""replearn.kernels: kernel functions against scikit-learn and explicit feature maps, the PSD check."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import euclidean_distances, polynomial_kernel, rbf_kernel

from replearn.kernels import (
    KernelRows,
    is_psd,
    kernel_diagonal,
    kernel_matrix,
    min_eigenvalue,
    resolve_kernel_params,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(40, 5)), rng.normal(size=(25, 5))


@pytest.mark.parametrize(
    "kernel, params, reference",
    [
        ("linear", {}, lambda X, Z: X @ Z.T),
        (
            "polynomial",
            {"degree": 3, "gamma": 0.5, "coef0": 2.0},
            lambda X, Z: polynomial_kernel(X, Z, degree=3, gamma=0.5, coef0=2.0),
        ),
        ("rbf", {"gamma": 0.3}, lambda X, Z: rbf_kernel(X, Z, gamma=0.3)),
        ("laplace", {"gamma": 0.7}, lambda X, Z: np.exp(-0.7 * euclidean_distances(X, Z))),
    ],
)
def test_kernel_matrix_matches_reference(data, kernel, params, reference):
    X, Z = data
    np.testing.assert_allclose(kernel_matrix(X, Z, kernel, **params), reference(X, Z), rtol=1e-10, atol=1e-12)
    K = kernel_matrix(X, None, kernel, **params)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.diag(K), kernel_diagonal(X, kernel, **params), rtol=1e-10)


@pytest.mark.parametrize("kernel", ["linear", "polynomial", "rbf", "laplace"])
def test_kernel_rows_are_rows_of_the_matrix(data, kernel):
    X, _ = data
    params = {"gamma": 0.4, "degree": 2, "coef0": 1.5}
    K = kernel_matrix(X, None, kernel, **params)
    rows = KernelRows(X, kernel, **params)
    out = np.empty(X.shape[0])
    for i in (0, 7, 39):
        np.testing.assert_allclose(rows.row(i, out), K[i], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rows.diag, np.diag(K), rtol=1e-12)


def test_polynomial_kernel_is_an_inner_product_of_explicit_features(data):
    """CS229 notes §5.4 (seed 000 L1860, corrected sqrt(2c)): (x.z + c)^2 = phi(x).phi(z) with
    phi(x) = (x_i x_j for all i, j; sqrt(2c) x_i; c)."""
    X, Z = data
    c = 1.7

    def phi(A):
        quad = np.einsum("ni,nj->nij", A, A).reshape(len(A), -1)
        return np.hstack([quad, np.sqrt(2 * c) * A, np.full((len(A), 1), c)])

    np.testing.assert_allclose(
        kernel_matrix(X, Z, "polynomial", degree=2, gamma=1.0, coef0=c), phi(X) @ phi(Z).T, rtol=1e-10
    )
    # seed 003 L641-653: (<x,z> + 1)^2 with phi = (vec(xx^T), sqrt(2) x, 1), dimension d^2 + d + 1
    assert phi(X).shape[1] == 5**2 + 5 + 1


def test_cubic_feature_map_identity(data):
    """CS229 notes §5.3 (L1778): <phi(x), phi(z)> = 1 + <x,z> + <x,z>^2 + <x,z>^3 for the monomials of
    degree <= 3 with repetitions (1 + d + d^2 + d^3 entries)."""
    X, Z = data

    def phi(A):
        n = len(A)
        deg2 = np.einsum("ni,nj->nij", A, A).reshape(n, -1)
        deg3 = np.einsum("ni,nj,nk->nijk", A, A, A).reshape(n, -1)
        return np.hstack([np.ones((n, 1)), A, deg2, deg3])

    G = X @ Z.T
    np.testing.assert_allclose(phi(X) @ phi(Z).T, 1 + G + G**2 + G**3, rtol=1e-10)
    assert phi(X).shape[1] == 1 + 5 + 25 + 125


@pytest.mark.parametrize("kernel", ["linear", "polynomial", "rbf", "laplace"])
def test_valid_kernels_give_psd_matrices(data, kernel):
    X, _ = data
    K = kernel_matrix(X, None, kernel, gamma=0.5, degree=3, coef0=1.0)
    assert is_psd(K)


def test_tanh_kernel_fails_the_mercer_check():
    """CIML eq. 11.21: tanh(1 + x.z) is not a valid kernel."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    K = np.tanh(1 + X @ X.T)
    assert min_eigenvalue(K) < -1e-3
    assert not is_psd(K)


def test_is_psd_rejects_asymmetric_and_bad_input():
    assert not is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
    assert is_psd(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="square matrix"):
        is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        is_psd(np.array([[np.nan, 0.0], [0.0, 1.0]]))


def test_gamma_none_is_scale_for_distance_kernels_and_one_for_polynomial(data):
    X, _ = data
    assert resolve_kernel_params("rbf", None, 3, 1.0, X)["gamma"] == pytest.approx(1 / (X.shape[1] * X.var()))
    assert resolve_kernel_params("laplace", None, 3, 1.0, X)["gamma"] == pytest.approx(1 / (X.shape[1] * X.var()))
    assert resolve_kernel_params("polynomial", None, 2, 0.5, X) == {"gamma": 1.0, "degree": 2, "coef0": 0.5}
    assert resolve_kernel_params("linear", 3.0, 2, 0.5, X) == {}


@pytest.mark.parametrize(
    "kernel, gamma, degree, coef0, error, match",
    [
        ("sigmoid", None, 3, 1.0, ValueError, r"kernel must be one of \['laplace', 'linear', 'polynomial', 'rbf'\]"),
        ("rbf", 0.0, 3, 1.0, ValueError, "gamma must be > 0"),
        ("rbf", "auto", 3, 1.0, TypeError, "gamma must be a number"),
        ("polynomial", 1.0, 0, 1.0, ValueError, "degree must be >= 1"),
        ("polynomial", 1.0, 2, -1.0, ValueError, "coef0 must be >= 0"),
    ],
)
def test_bad_kernel_parameters(data, kernel, gamma, degree, coef0, error, match):
    X, _ = data
    with pytest.raises(error, match=match):
        resolve_kernel_params(kernel, gamma, degree, coef0, X)


def test_kernel_matrix_checks_shapes(data):
    X, Z = data
    with pytest.raises(ValueError, match="X has 5 features but Z has 4"):
        kernel_matrix(X, Z[:, :4], "linear")
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_matrix(X, Z, "cosine")
