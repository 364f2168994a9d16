"""replearn.linalg: Cholesky solve with fallback, centring, squared distances."""

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist

from replearn.linalg import (
    SingularMatrixError,
    add_intercept,
    center,
    logsumexp,
    solve_spd,
    sq_euclidean,
    sq_euclidean_chunks,
)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_solve_spd_matches_generic_solver(rng):
    M = rng.normal(size=(6, 6))
    A = M @ M.T + 0.1 * np.eye(6)
    b = rng.normal(size=(6, 3))
    np.testing.assert_allclose(solve_spd(A, b), np.linalg.solve(A, b), rtol=1e-10)
    np.testing.assert_allclose(solve_spd(A, b[:, 0]), np.linalg.solve(A, b[:, 0]), rtol=1e-10)


def test_solve_spd_overwrite_gives_same_answer(rng):
    M = rng.normal(size=(5, 5))
    A = M @ M.T + np.eye(5)
    b = rng.normal(size=5)
    expected = np.linalg.solve(A, b)
    np.testing.assert_allclose(solve_spd(A.copy(), b, overwrite_a=True), expected, rtol=1e-10)


def test_singular_matrix_falls_back_to_min_norm_lstsq(rng):
    X = rng.normal(size=(30, 3))
    X = np.column_stack([X, X[:, 0]])  # rank 3
    A, b = X.T @ X, X.T @ rng.normal(size=30)
    x = solve_spd(A, b)
    expected = scipy.linalg.lstsq(A, b)[0]
    np.testing.assert_allclose(x, expected, rtol=1e-6, atol=1e-10)
    # minimum norm: the duplicated columns share the weight equally
    assert x[0] == pytest.approx(x[3], rel=1e-6)


def test_singular_matrix_raises_when_asked(rng):
    X = rng.normal(size=(30, 2))
    X = np.column_stack([X, 2 * X[:, 1]])
    with pytest.raises(SingularMatrixError, match="3x3 system matrix"):
        solve_spd(X.T @ X, np.ones(3), fallback="raise")


def test_ill_conditioned_matrix_is_detected():
    # positive definite in exact arithmetic, but cond ~ 1e17: Cholesky "succeeds" but cannot be trusted
    A = np.diag([1.0, 1e-17])
    with pytest.raises(SingularMatrixError, match="ill-conditioned"):
        solve_spd(A, np.ones(2), fallback="raise")
    # a well-conditioned matrix is not flagged
    solve_spd(np.diag([1.0, 1e-3]), np.ones(2), fallback="raise")


def test_solve_spd_rejects_bad_shapes():
    with pytest.raises(ValueError, match="square"):
        solve_spd(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="2 rows but b has 3"):
        solve_spd(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="fallback must be one of"):
        solve_spd(np.eye(2), np.ones(2), fallback="pinv")


def test_center_and_add_intercept(rng):
    X = rng.normal(size=(10, 3)) + 5
    y = rng.normal(size=10) - 2
    Xc, x_mean, yc, y_mean = center(X, y)
    np.testing.assert_allclose(Xc.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Xc + x_mean, X)
    assert yc.mean() == pytest.approx(0, abs=1e-12) and y_mean == pytest.approx(y.mean())
    Xa = add_intercept(X)
    assert Xa.shape == (10, 4)
    np.testing.assert_array_equal(Xa[:, :3], X)
    np.testing.assert_array_equal(Xa[:, 3], 1.0)


def test_sq_euclidean_matches_cdist(rng):
    A = rng.normal(size=(17, 5))
    B = rng.normal(size=(11, 5))
    np.testing.assert_allclose(sq_euclidean(A, B), cdist(A, B, "sqeuclidean"), rtol=1e-10, atol=1e-12)


def test_sq_euclidean_chunking_is_invisible(rng):
    A = rng.normal(size=(23, 4))
    B = rng.normal(size=(9, 4))
    full = sq_euclidean(A, B)
    np.testing.assert_allclose(sq_euclidean(A, B, chunk_rows=5), full, rtol=1e-14)
    blocks = list(sq_euclidean_chunks(A, B, chunk_rows=5))
    assert [(s, e) for s, e, _ in blocks] == [(0, 5), (5, 10), (10, 15), (15, 20), (20, 23)]


def test_sq_euclidean_is_clipped_at_zero(rng):
    A = rng.normal(size=(50, 3)) * 1e3 + 1e4  # large norms: the identity rounds below zero
    D = sq_euclidean(A, A)
    assert np.all(D >= 0)
    assert np.all(np.diag(D) < 1e-3)


def test_sq_euclidean_rejects_mismatched_features():
    with pytest.raises(ValueError, match="A has 2 features but B has 3"):
        sq_euclidean(np.ones((2, 2)), np.ones((2, 3)))


def test_logsumexp_is_stable():
    assert logsumexp(np.array([1000.0, 1000.0])) == pytest.approx(1000 + np.log(2))
