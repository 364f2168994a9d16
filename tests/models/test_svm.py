"""SVM by SMO and linear SVMs: against scikit-learn's SVC / LinearSVC, KKT conditions, hard margin."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.svm import SVC, LinearSVC

from replearn.exceptions import ConvergenceWarning
from replearn.kernels import kernel_matrix
from replearn.models.svm.linear_svm import LinearSVM, primal_objective
from replearn.models.svm.svm import SVM


@pytest.fixture
def binary():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=200) > 0).astype(int)
    return X, y, rng.normal(size=(50, 4))


def dual_objective(X, y_pm, alpha, kernel, **params):
    """W(a) = sum a - 1/2 (a y)^T K (a y), computed from scratch."""
    ay = alpha * y_pm
    return alpha.sum() - 0.5 * ay @ kernel_matrix(X, X, kernel, **params) @ ay


def sk_alpha(ref, n):
    a = np.zeros(n)
    a[ref.support_] = np.abs(ref.dual_coef_[0])
    return a


@pytest.mark.parametrize(
    "kernel, sk_kernel, params",
    [
        ("rbf", "rbf", {"gamma": 0.5}),
        ("linear", "linear", {}),
        ("polynomial", "poly", {"gamma": 1.0, "degree": 2, "coef0": 1.0}),
    ],
)
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_smo_matches_sklearn_svc(binary, kernel, sk_kernel, params, C):
    X, y, X_test = binary
    ours = SVM(C=C, kernel=kernel, tol=1e-6, **params).fit(X, y)
    ref = SVC(C=C, kernel=sk_kernel, tol=1e-6, **params).fit(X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    W_ref = dual_objective(X, y_pm, sk_alpha(ref, len(X)), kernel, **params)
    assert ours.dual_objective_[0] == pytest.approx(W_ref, rel=1e-6)
    np.testing.assert_allclose(ours.decision_function(X_test), ref.decision_function(X_test), atol=1e-3 * max(1, C))
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


def test_smo_at_default_tolerance_is_within_1e3_of_sklearn(binary):
    X, y, _ = binary
    ours = SVM(C=1.0, gamma=0.5).fit(X, y)
    ref = SVC(C=1.0, gamma=0.5).fit(X, y)
    W_ref = dual_objective(X, np.where(y == 1, 1.0, -1.0), sk_alpha(ref, len(X)), "rbf", gamma=0.5)
    assert abs(ours.dual_objective_[0] - W_ref) / abs(W_ref) < 1e-3
    # dual_objective_ (tracked incrementally) equals W(a) recomputed from the final multipliers
    alpha = np.zeros(len(X))
    alpha[ours.support_] = np.abs(ours.dual_coef_[0])
    W = dual_objective(X, np.where(y == 1, 1.0, -1.0), alpha, "rbf", gamma=0.5)
    assert ours.dual_objective_[0] == pytest.approx(W, rel=1e-10)


def test_kkt_conditions_hold_at_the_solution(binary):
    """CS229 §6.7: a = 0 => y f >= 1; a = C => y f <= 1; 0 < a < C => y f = 1; and sum a y = 0."""
    X, y, _ = binary
    C, tol = 1.0, 1e-5
    model = SVM(C=C, gamma=0.5, tol=tol).fit(X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    alpha = np.zeros(len(X))
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    yf = y_pm * model.decision_function(X)
    assert np.all((alpha >= 0) & (alpha <= C))
    assert abs(alpha @ y_pm) < 1e-10
    assert np.all(yf[alpha == 0] >= 1 - 2 * tol)
    assert np.all(yf[alpha >= C] <= 1 + 2 * tol)
    free = (alpha > 0) & (alpha < C)
    assert free.any() and np.allclose(yf[free], 1.0, atol=2 * tol)


def test_dual_objective_increases_every_smo_step(binary):
    X, y, _ = binary
    h = SVM(C=1.0, gamma=0.5).fit(X, y).loss_history_
    assert h[0] > 0 and np.all(np.diff(h) >= -1e-12)


def test_hard_margin_on_separable_data():
    """C = inf: every point has y (w.x + b) >= 1 with equality on the support vectors; the bias equals
    CS229's b* = -(max_{y=-1} w.x + min_{y=1} w.x) / 2 (seed 000 L2245-2311)."""
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(size=(40, 2)) + [3, 3], rng.normal(size=(40, 2)) - [3, 3]]
    y = np.r_[np.ones(40), -np.ones(40)]
    model = SVM(C=float("inf"), kernel="linear", tol=1e-8).fit(X, y)
    w = model.dual_coef_[0] @ model.support_vectors_
    margins = y * (X @ w + model.intercept_[0])
    assert margins.min() == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(margins[model.support_], 1.0, atol=1e-6)
    b_star = -(np.max(X[y == -1] @ w) + np.min(X[y == 1] @ w)) / 2
    assert model.intercept_[0] == pytest.approx(b_star, abs=1e-6)
    ref = SVC(C=1e8, kernel="linear", tol=1e-8).fit(X, y)
    np.testing.assert_allclose(w, ref.coef_[0], rtol=1e-4)


def test_hard_margin_on_overlapping_data_does_not_converge():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = rng.integers(0, 2, 40)
    with pytest.warns(ConvergenceWarning, match="C=inf needs separable data"):
        SVM(C=float("inf"), kernel="linear", max_iter=500).fit(X, y)


def test_multiclass_one_vs_one_matches_sklearn():
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    ours = SVM(C=1.0, gamma=0.3, tol=1e-6).fit(X, y)
    ref = SVC(C=1.0, gamma=0.3, tol=1e-6).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-3)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)


def test_small_cache_gives_the_same_solution(binary):
    X, y, X_test = binary
    full = SVM(C=1.0, gamma=0.5).fit(X, y)
    tiny = SVM(C=1.0, gamma=0.5, cache_size=0.004).fit(X, y)  # room for 2 kernel rows
    np.testing.assert_allclose(tiny.decision_function(X_test), full.decision_function(X_test), rtol=1e-12)


def test_string_labels_and_decision_sign(binary):
    X, y, _ = binary
    labels = np.array(["no", "yes"])[y]
    model = SVM(gamma=0.5).fit(X, labels)
    np.testing.assert_array_equal(model.predict(X), np.where(model.decision_function(X) > 0, "yes", "no"))


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"C": 0.0}, ValueError, r"C must be > 0.0, got 0.0 \(expected a number in \(0.0, inf\]\)"),  # inf: hard margin
        ({"C": "big"}, TypeError, "C must be a number"),
        ({"tol": 0.0}, ValueError, "tol must be > 0"),
        ({"kernel": "sigmoid"}, ValueError, "kernel must be one of"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
    ],
)
def test_svm_bad_hyperparameters(binary, params, error, match):
    X, y, _ = binary
    with pytest.raises(error, match=match):
        SVM(**params).fit(X, y)


# -- linear SVM ---------------------------------------------------------------------------------
def _augment(X):
    return np.hstack([X, np.ones((len(X), 1))])


@pytest.mark.parametrize("C", [0.05, 1.0])
def test_dual_coordinate_descent_matches_liblinear(binary, C):
    X, y, X_test = binary
    ours = LinearSVM(C=C, tol=1e-6, max_iter=20000, random_state=0).fit(X, y)
    ref = LinearSVC(C=C, loss="hinge", tol=1e-6, max_iter=200000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-3, atol=1e-5)
    y_pm = np.where(y == 1, 1.0, -1.0)[:, None]
    W_ref = np.r_[ref.coef_[0], ref.intercept_][:, None]
    assert ours.loss_history_[-1] == pytest.approx(primal_objective(_augment(X), y_pm, W_ref, C), rel=1e-6)


def test_dual_cd_one_vs_rest_matches_liblinear():
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    ours = LinearSVM(C=1.0, tol=1e-6, max_iter=50000, random_state=0).fit(X, y)
    ref = LinearSVC(C=1.0, loss="hinge", tol=1e-6, max_iter=500000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-2, atol=1e-3)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_pegasos_approaches_the_dual_cd_optimum(binary):
    X, y, X_test = binary
    exact = LinearSVM(C=0.1, tol=1e-8, max_iter=20000, random_state=0).fit(X, y)
    sgd = LinearSVM(C=0.1, solver="pegasos", max_iter=200, random_state=0).fit(X, y)
    assert sgd.loss_history_[-1] == pytest.approx(exact.loss_history_[-1], rel=1e-2)
    assert np.mean(sgd.predict(X_test) == exact.predict(X_test)) >= 0.95
    assert sgd.loss_history_[-1] < sgd.loss_history_[0]


def test_linear_svm_without_intercept_and_determinism(binary):
    X, y, X_test = binary
    a = LinearSVM(fit_intercept=False, random_state=1).fit(X, y)
    assert np.all(a.intercept_ == 0)
    b = LinearSVM(fit_intercept=False, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_dual_cd_warns_at_max_iter(binary):
    X, y, _ = binary
    with pytest.warns(ConvergenceWarning, match="max_iter=1 epochs"):
        LinearSVM(C=10.0, max_iter=1, tol=1e-10, random_state=0).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": -1.0}, "C must be > 0"),
        ({"solver": "smo"}, r"solver must be one of \['dual_cd', 'pegasos'\]"),
        ({"batch_size": 0}, "batch_size must be >= 1"),
    ],
)
def test_linear_svm_bad_hyperparameters(binary, params, match):
    X, y, _ = binary
    with pytest.raises(ValueError, match=match), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        LinearSVM(**params).fit(X, y)
