"""solve_spd calls LAPACK's ?potrf / ?pocon / ?potrs directly: the same numbers as scipy's cho_factor /
cho_solve (which call the same routines), the same fallbacks and errors."""

import numpy as np
import pytest
import scipy.linalg

from replearn.linalg import SingularMatrixError, solve_spd


def spd(d, seed=0, ridge=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(3 * d + 2, d))
    return X.T @ X + ridge * np.eye(d)


@pytest.mark.parametrize("d", [1, 3, 11, 40])
@pytest.mark.parametrize("k", [None, 1, 4])
def test_same_solution_as_cho_factor_cho_solve(d, k):
    A = spd(d, seed=d)
    rng = np.random.default_rng(1)
    b = rng.normal(size=(d,) if k is None else (d, k))
    expected = scipy.linalg.cho_solve(scipy.linalg.cho_factor(A, lower=True), b)
    x = solve_spd(A, b)
    assert x.shape == b.shape
    np.testing.assert_array_equal(x, expected)
    A2 = A.copy()
    np.testing.assert_array_equal(solve_spd(A2, b, overwrite_a=True), expected)
    np.testing.assert_array_equal(solve_spd(np.asfortranarray(A), b), expected)


def test_inputs_are_not_modified_without_overwrite():
    A, b = spd(5), np.ones(5)
    A0, b0 = A.copy(), b.copy()
    solve_spd(A, b)
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(b, b0)
    solve_spd(A, b, overwrite_a=True)
    np.testing.assert_array_equal(b, b0)  # b is never overwritten


def test_fallbacks_and_errors_are_unchanged():
    X = np.random.default_rng(2).normal(size=(10, 3))
    X = np.column_stack([X, X[:, 0]])  # a duplicated column: X^T X singular
    A, b = X.T @ X, np.ones(4)
    np.testing.assert_allclose(solve_spd(A, b), scipy.linalg.lstsq(A, b)[0], rtol=1e-8, atol=1e-10)
    A_copy = A.copy()
    np.testing.assert_allclose(solve_spd(A_copy, b, overwrite_a=True), scipy.linalg.lstsq(A, b)[0], rtol=1e-8)
    with pytest.raises(SingularMatrixError, match="is not positive definite|is ill-conditioned"):
        solve_spd(A, b, fallback="raise")
    with pytest.raises(SingularMatrixError, match="not positive definite"):
        solve_spd(-np.eye(3), np.ones(3), fallback="raise")
    with pytest.raises(SingularMatrixError, match="ill-conditioned"):
        solve_spd(np.diag([1.0, 1e-17]), np.ones(2), fallback="raise")
    with pytest.raises(SingularMatrixError, match="not positive definite"):
        solve_spd(np.zeros((2, 2)), np.ones(2), fallback="raise")
    np.testing.assert_array_equal(solve_spd(np.zeros((0, 0)), np.zeros(0)), np.zeros(0))
