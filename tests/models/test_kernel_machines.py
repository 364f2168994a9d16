"""Kernel ridge, the kernel perceptron and kernel LMS: against scikit-learn and their primal forms."""

import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Perceptron, Ridge

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.kernels import kernel_matrix
from replearn.models import create, supports
from replearn.models.kernel.kernel_lms import KernelLMS
from replearn.models.kernel.kernel_perceptron import KernelPerceptron
from replearn.models.kernel.kernel_ridge import KernelRidge


@pytest.fixture
def regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=80)
    return X, y, rng.normal(size=(30, 3))


def circles(n=200, seed=0):
    rng = np.random.default_rng(seed)
    r = np.where(np.arange(n) % 2 == 0, 1.0, 0.4) + 0.05 * rng.normal(size=n)
    t = rng.uniform(0, 2 * np.pi, n)
    return np.c_[r * np.cos(t), r * np.sin(t)], (np.arange(n) % 2 == 0).astype(int)


# -- kernel ridge -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kernel, sk_kernel, params",
    [
        ("rbf", "rbf", {"gamma": 0.5}),
        ("polynomial", "poly", {"gamma": 0.7, "degree": 3, "coef0": 1.0}),
        ("linear", "linear", {}),
    ],
)
def test_kernel_ridge_matches_sklearn(regression, kernel, sk_kernel, params):
    X, y, X_test = regression
    ours = KernelRidge(alpha=0.3, kernel=kernel, **params).fit(X, y)
    ref = SkKernelRidge(alpha=0.3, kernel=sk_kernel, **params).fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_[:, 0], ref.dual_coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-8, atol=1e-10)


def test_kernel_ridge_laplace_matches_sklearn_on_our_kernel_matrix(regression):
    X, y, X_test = regression
    ours = KernelRidge(alpha=0.1, kernel="laplace", gamma=0.8).fit(X, y)
    ref = SkKernelRidge(alpha=0.1, kernel="precomputed").fit(kernel_matrix(X, X, "laplace", gamma=0.8), y)
    np.testing.assert_allclose(
        ours.predict(X_test), ref.predict(kernel_matrix(X_test, X, "laplace", gamma=0.8)), rtol=1e-8, atol=1e-10
    )


def test_linear_kernel_ridge_is_ridge_without_intercept(regression):
    """EPFL notes L1101-1117: w = X^T (X X^T + alpha I)^{-1} y equals the primal ridge solution."""
    X, y, _ = regression
    ours = KernelRidge(alpha=2.0, kernel="linear").fit(X, y)
    ref = Ridge(alpha=2.0, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(X.T @ ours.dual_coef_[:, 0], ref.coef_, rtol=1e-8)


def test_kernel_ridge_classification_on_circles():
    X, y = circles()
    model = KernelRidge(alpha=0.1, kernel="rbf", gamma=2.0, task="classification").fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.decision_function(X).shape == (len(X),)
    assert np.array_equal(model.decision_function(X) > 0, model.predict(X) == 1)
    linear = KernelRidge(alpha=0.1, kernel="linear", task="classification").fit(X, y)
    assert linear.score(X, y) < 0.7  # not linearly separable
    assert supports("kernel_ridge", "classification") and supports("kernel_ridge", "regression")


def test_kernel_ridge_regression_has_no_decision_function(regression):
    X, y, _ = regression
    with pytest.raises(AttributeError, match="only available with task='classification'"):
        KernelRidge().fit(X, y).decision_function(X)


# -- kernel perceptron --------------------------------------------------------------------------
@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_kernel_perceptron_is_the_primal_perceptron(regression, n_classes):
    """With the linear kernel, sum_n alpha_n x_n is the primal perceptron's w (CIML Thm. 12); scikit-learn's
    Perceptron (eta0=1, no penalty, no shuffling) makes the same updates, one-vs-rest."""
    X, _, X_test = regression
    y = np.digitize(X[:, 0] + 0.3 * X[:, 1], [0.0] if n_classes == 2 else [-0.5, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = KernelPerceptron(kernel="linear", shuffle=False, max_iter=6).fit(X, y)
        ref = Perceptron(shuffle=False, max_iter=6, tol=None, eta0=1.0).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X_test), ref.decision_function(X_test), rtol=1e-10, atol=1e-10)
    w = ours.support_vectors_.T @ ours.dual_coef_
    np.testing.assert_allclose(w.T, ref.coef_, rtol=1e-10, atol=1e-10)


def test_kernel_perceptron_separates_circles_with_rbf():
    X, y = circles()
    model = KernelPerceptron(kernel="rbf", gamma=2.0, max_iter=50, random_state=0).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.loss_history_[-1] == 0 and model.n_iter_ < 50  # a pass without mistakes ends training
    assert np.all(model.dual_coef_ != 0) and len(model.support_) < len(X)
    # alpha_n counts signed mistakes on example n: integer-valued, and b is their sum (CIML Alg. 30)
    np.testing.assert_array_equal(model.dual_coef_, np.round(model.dual_coef_))
    assert model.intercept_[0] == pytest.approx(model.dual_coef_.sum())


def test_kernel_perceptron_first_example_is_a_mistake():
    """The test is y a <= 0 (CIML L1010): from alpha = 0 the first example is always updated."""
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    with pytest.warns(ConvergenceWarning):  # one pass, two mistakes
        model = KernelPerceptron(kernel="linear", shuffle=False, max_iter=1).fit(X, [1, 0])
    # example 0 (label +1): a = 0 -> alpha_0 = +1, b = 1; example 1 (label -1): a = -1 + 1 = 0 -> mistake
    np.testing.assert_array_equal(model.dual_coef_[:, 0], [1.0, -1.0])
    assert model.intercept_[0] == 0.0


def test_kernel_perceptron_warns_when_not_separable():
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    with pytest.warns(ConvergenceWarning, match="still made"):
        KernelPerceptron(kernel="linear", max_iter=3, random_state=0).fit(X, [0, 1, 0, 1])


# -- kernel LMS ---------------------------------------------------------------------------------
def test_linear_kernel_lms_iterates_are_batch_gradient_descent(regression):
    """CS229 notes §5.3: theta_t = sum_i beta_i x_i follows theta := theta + alpha X^T (y - X theta)."""
    X, y, X_test = regression
    lr, steps = 0.002, 25
    model = KernelLMS(kernel="linear", learning_rate=lr, max_iter=steps, fit_intercept=False).fit(X, y)
    theta = np.zeros(X.shape[1])
    for _ in range(steps):
        theta += lr * X.T @ (y - X @ theta)
    np.testing.assert_allclose(X.T @ model.dual_coef_[:, 0], theta, rtol=1e-10)
    np.testing.assert_allclose(model.predict(X_test), X_test @ theta, rtol=1e-10, atol=1e-12)


def test_kernel_lms_loss_decreases_towards_interpolation(regression):
    X, y, _ = regression
    model = KernelLMS(kernel="laplace", gamma=1.0, max_iter=300).fit(X, y)
    h = model.loss_history_
    assert np.all(np.diff(h) <= 1e-12)  # step 1 / max row sum <= 1 / lambda_max(K): monotone
    assert h[-1] < 0.2 * h[0]
    assert model.n_iter_ == 300 and model.learning_rate_ > 0


def test_kernel_lms_with_tol_stops_or_warns(regression):
    X, y, _ = regression
    model = KernelLMS(kernel="rbf", gamma=0.5, max_iter=5000, tol=1e-3).fit(X, y)
    assert model.n_iter_ < 5000
    with pytest.warns(ConvergenceWarning, match="without the loss settling"):
        KernelLMS(kernel="rbf", max_iter=3, tol=1e-12).fit(X, y)


def test_kernel_lms_too_large_a_step_diverges(regression):
    X, y, _ = regression
    with pytest.raises(DivergenceError, match="exceeds 2 / lambda_max"), np.errstate(over="ignore", invalid="ignore"):
        KernelLMS(kernel="linear", learning_rate=10.0, max_iter=2000).fit(X, y)


def test_kernel_lms_classifies_xor():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(200, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    model = create("kernel_lms", kernel="rbf", gamma=4.0, max_iter=500, task="classification").fit(X, y)
    assert model.score(X, y) > 0.95


@pytest.mark.parametrize(
    "model, match",
    [
        (KernelRidge(alpha=-1.0), "alpha must be >= 0"),
        (KernelRidge(kernel="sigmoid"), "kernel must be one of"),
        (KernelRidge(task="ranking"), r"task must be one of \['classification', 'regression'\]"),
        (KernelPerceptron(max_iter=0), "max_iter must be >= 1"),
        (KernelPerceptron(gamma=-2.0), "gamma must be > 0"),
        (KernelLMS(learning_rate=0.0), "learning_rate must be > 0"),
    ],
)
def test_bad_hyperparameters(regression, model, match):
    X, y, _ = regression
    yy = (y > y.mean()).astype(int) if isinstance(model, KernelPerceptron) else y
    with pytest.raises(ValueError, match=match):
        model.fit(X, yy)
