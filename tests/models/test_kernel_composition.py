"""New kernels from old ones (EPFL notes L1181-1185; CIML §11.4 Thm. 13): sums, non-negative scalings,
products, f(x) f(z) and composition with a map -- against scikit-learn's kernel algebra, their explicit feature
maps, and Mercer's condition."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.gaussian_process import kernels as sk

from replearn.kernels import Kernel, feature_product_kernel, is_psd, kernel_matrix

rng = np.random.default_rng(0)
X, Z = rng.normal(size=(15, 3)), rng.normal(size=(9, 3))


def test_sums_scalings_and_products_equal_scikit_learns_kernel_algebra():
    gamma = 0.3
    ours = 2.5 * Kernel("rbf", gamma=gamma) + Kernel("linear") * Kernel("rbf", gamma=1.0)
    ref = sk.ConstantKernel(2.5, "fixed") * sk.RBF(length_scale=np.sqrt(1 / (2 * gamma))) + sk.DotProduct(
        sigma_0=0.0, sigma_0_bounds="fixed"
    ) * sk.RBF(length_scale=np.sqrt(0.5))
    np.testing.assert_allclose(ours(X, Z), ref(X, Z), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.diagonal(X), ref.diag(X), rtol=1e-10)
    np.testing.assert_allclose(kernel_matrix(X, Z, kernel=ours), ours(X, Z))


def _phi_quadratic(x):  # feature map of (x'z)^2
    return np.einsum("ni,nj->nij", x, x).reshape(len(x), -1)


def test_the_feature_maps_of_a_sum_and_a_product():
    """k1 + k2 has the concatenated features (phi1, phi2); k1 * k2 the tensor product phi1 (x) phi2."""
    k1, k2 = Kernel("linear"), Kernel("polynomial", degree=2, gamma=1.0, coef0=0.0)
    phi1, phi2 = X, _phi_quadratic(X)
    cat = np.hstack([phi1, phi2])
    np.testing.assert_allclose((k1 + k2)(X), cat @ cat.T, rtol=1e-10, atol=1e-12)
    tensor = np.einsum("ni,nj->nij", phi1, phi2).reshape(len(X), -1)
    np.testing.assert_allclose((k1 * k2)(X), tensor @ tensor.T, rtol=1e-10, atol=1e-12)
    a = 3.0
    np.testing.assert_allclose((a * k1)(X), (np.sqrt(a) * phi1) @ (np.sqrt(a) * phi1).T, rtol=1e-12)


def test_every_composite_is_psd_and_a_negative_scaling_is_refused():
    """Thm. 13 and L3784-3800: sums, non-negative combinations and products of kernels are kernels."""
    base = [
        Kernel("rbf", gamma=0.7),
        Kernel("linear"),
        Kernel("polynomial", degree=3, coef0=1.0),
        Kernel("laplace", gamma=0.5),
    ]
    for i, k1 in enumerate(base):
        for k2 in base[i:]:
            for k in (k1 + k2, k1 * k2, 0.3 * k1 + 2.0 * k2, sum([k1, k2, k1 * k2])):
                assert is_psd(k(X)), k
    with pytest.raises(ValueError, match="a >= 0"):
        -1.0 * Kernel("rbf")
    assert not is_psd(Kernel("rbf")(X) - 2 * Kernel("linear")(X))  # the reason: a difference need not be PSD


def test_feature_products_and_compositions():
    f = lambda A: np.sin(A[:, 0]) + A[:, 1] ** 2  # noqa: E731
    k = feature_product_kernel(f)
    np.testing.assert_allclose(k(X, Z), np.outer(f(X), f(Z)))
    assert is_psd(k(X)) and np.linalg.matrix_rank(k(X)) == 1
    psi = lambda A: np.c_[A, A[:, :1] * A[:, 1:2]]  # noqa: E731
    composed = Kernel("rbf", gamma=0.2).compose(psi)
    np.testing.assert_allclose(composed(X, Z), Kernel("rbf", gamma=0.2)(psi(X), psi(Z)))
    assert is_psd(composed(X)) and np.allclose(composed.diagonal(X), 1.0)


def test_bad_kernels():
    with pytest.raises(ValueError, match="kernel must be one of"):
        Kernel("tanh")
    with pytest.raises(ValueError, match="takes"):
        Kernel("linear", gamma=1.0)
    with pytest.raises(TypeError):
        Kernel("rbf") * "2"
    with pytest.raises(ValueError, match="one real per row"):
        feature_product_kernel(lambda A: A)(X)
