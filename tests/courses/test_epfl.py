"""replearn.courses.epfl: EPFL CS-433 project 1's six functions against the public grading tests' published numbers
(epfml/ML_course, projects/project1/grading_tests/test_project1_public.py; rtol 1e-4, atol 1e-8 as there), their
shapes, and the course's conventions checked against replearn's estimators."""

from __future__ import annotations

import numpy as np
import pytest

from replearn import models
from replearn.courses import epfl
from replearn.reproductions.epfl_project1 import CASES, TX, W0, Y

RTOL, ATOL = 1e-4, 1e-8


@pytest.mark.parametrize("test", sorted(CASES))
def test_the_public_grading_tests_pass(test):
    function, args, w_expected, loss_expected = CASES[test]
    call_args = args()
    w, loss = getattr(epfl, function)(*call_args)
    np.testing.assert_allclose(loss, loss_expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(np.ravel(w), w_expected, rtol=RTOL, atol=ATOL)
    assert np.ndim(loss) == 0  # "assert loss.ndim == 0"
    assert np.shape(w) == (2, 1)  # "assert w.shape == expected_w.shape"


def test_the_conventions_against_replearn_and_by_hand():
    rng = np.random.default_rng(0)
    tx = np.c_[np.ones(50), rng.normal(size=(50, 2))]
    y = tx @ np.array([0.5, -1.0, 2.0]) + 0.1 * rng.normal(size=50)
    w_ls, mse = epfl.least_squares(y, tx)
    assert w_ls.shape == (3,) and mse == pytest.approx(0.5 * np.mean((y - tx @ w_ls) ** 2))
    w_gd, _ = epfl.mean_squared_error_gd(y, tx, np.zeros(3), 2000, 0.5)
    np.testing.assert_allclose(w_gd, w_ls, atol=1e-8)  # GD on the course's MSE reaches least squares
    lam = 0.3
    w_r, _ = epfl.ridge_regression(y, tx, lam)
    np.testing.assert_allclose((tx.T @ tx + 2 * 50 * lam * np.eye(3)) @ w_r, tx.T @ y, atol=1e-10)  # 2 N lambda
    yb = (y > 0).astype(float)
    w_lr, loss = epfl.reg_logistic_regression(yb, tx, 0.01, np.zeros(3), 3000, 1.0)
    ref = models.create("logistic_regression", C=1.0 / (2 * 50 * 0.01), fit_intercept=False, tol=1e-12).fit(tx, yb)
    np.testing.assert_allclose(w_lr, ref.coef_.ravel(), atol=1e-4)  # lambda ||w||^2 on the mean loss = C 1/(2 N lambda)
    t = tx @ w_lr
    assert loss == pytest.approx(np.mean(np.log1p(np.exp(t)) - yb * t))  # reported without the penalty


def test_sgd_is_reproducible_and_bad_inputs_are_refused():
    a = epfl.mean_squared_error_sgd(Y, TX, W0, 20, 0.05, random_state=3)
    b = epfl.mean_squared_error_sgd(Y, TX, W0, 20, 0.05, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="rows"):
        epfl.least_squares(Y[:2], TX)
    with pytest.raises(ValueError, match="0, 1"):
        epfl.logistic_regression(Y, TX, W0, 2, 0.1)
    with pytest.raises(ValueError, match="max_iters"):
        epfl.mean_squared_error_gd(Y, TX, W0, -1, 0.1)
    with pytest.raises(ValueError, match="gamma"):
        epfl.mean_squared_error_gd(Y, TX, W0, 1, 0.0)
    with pytest.raises(ValueError, match="initial_w"):
        epfl.mean_squared_error_gd(Y, TX, np.zeros(3), 1, 0.1)
