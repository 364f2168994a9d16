"""SoftmaxRegression: against scikit-learn's multinomial LogisticRegression, gradients, Newton, identifiability."""

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.datasets import load_iris, load_wine
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from replearn.exceptions import ConvergenceWarning
from replearn.models.linear.logistic import LogisticRegression
from replearn.models.linear.softmax import SoftmaxRegression, _hessian, _objective


def standardized(loader):
    X, y = loader(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def blobs(n=240, d=4, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) + 0.8 * rng.normal(size=(k, d))[y]
    return X, y


def objective_gradient(model, X, y, C):
    """Gradient of C sum -log p + 1/2 ||W||^2 at the fitted (W, b): zero at the optimum."""
    P = model.predict_proba(X)
    Y = (y[:, None] == model.classes_[None, :]).astype(float)
    gW = C * (P - Y).T @ X + model.coef_
    gb = C * (P - Y).sum(axis=0)
    return gW, gb


@pytest.mark.parametrize("loader", [load_iris, load_wine])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_matches_sklearn_multinomial(loader, C):
    X, y = standardized(loader)
    ours = SoftmaxRegression(C=C, tol=1e-12).fit(X, y)
    ref = SkLogisticRegression(C=C, tol=1e-12, max_iter=100_000).fit(X, y)  # lbfgs, multinomial
    # scikit-learn's lbfgs stops at ~1e-7 relative accuracy; our Newton solution is exact (gradient ~1e-12)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-5, atol=1e-5 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(ours.intercept_, ref.intercept_ - ref.intercept_.mean(), atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    gW, gb = objective_gradient(ours, X, y, C)
    assert np.max(np.abs(gW)) < 1e-8 * len(y) * C and np.max(np.abs(gb)) < 1e-8 * len(y) * C
    assert ours.n_iter_ < 15
    assert abs(ours.intercept_.sum()) < 1e-12  # centred intercepts
    np.testing.assert_allclose(ours.coef_.sum(axis=0), 0.0, atol=1e-12)  # the rows sum to 0 at the optimum


def test_unpenalized_fixes_the_last_class_and_matches_sklearn_probabilities():
    X, y = blobs(seed=3)
    ours = SoftmaxRegression(penalty=None, tol=1e-12).fit(X, y)
    ref = SkLogisticRegression(C=np.inf, tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert np.all(ours.coef_[-1] == 0) and ours.intercept_[-1] == 0  # theta_k = 0 (CS229 L869-873)
    # same model as scikit-learn's, up to the shift that is not identified
    np.testing.assert_allclose(ours.coef_, ref.coef_ - ref.coef_[-1], rtol=1e-4, atol=1e-5)


def test_two_classes_reduce_to_logistic_regression():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = (X @ [1.0, -1.0, 0.5] + rng.normal(size=150) > 0).astype(int)
    # no penalty: exactly logistic regression (the last class is fixed at 0, the other is free)
    soft = SoftmaxRegression(penalty=None, tol=1e-12).fit(X, y)
    logi = LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(soft.predict_proba(X), logi.predict_proba(X), rtol=1e-9, atol=1e-12)
    # L2 with C: logistic regression with 2C (w_1 - w_0 = 2 w_1 carries half the penalty)
    soft = SoftmaxRegression(C=0.3, tol=1e-12).fit(X, y)
    logi = LogisticRegression(C=0.6, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(soft.coef_[1] - soft.coef_[0], logi.coef_[0], rtol=1e-8)
    np.testing.assert_allclose(soft.predict_proba(X), logi.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("c", [-1.0, 0.0])  # deviation coding (l2) and the notes' theta_K = 0 (no penalty)
def test_gradient_and_hessian_match_finite_differences(c):
    X, y = blobs(n=40, d=2, k=3, seed=4)
    Xa = np.column_stack([X, np.ones(len(X))])
    Y = np.eye(3)[y]
    lam = np.array([0.3, 0.3, 0.0]) * (c != 0)
    v = np.random.default_rng(0).normal(size=2 * 3)

    def f(u):
        return _objective(u, Xa, Y, lam, c)[0]

    def grad(u):
        return _objective(u, Xa, Y, lam, c)[1]

    h = 1e-6
    E = np.eye(6)
    np.testing.assert_allclose(grad(v), [(f(v + h * e) - f(v - h * e)) / (2 * h) for e in E], rtol=1e-6, atol=1e-9)
    P = _objective(v, Xa, Y, lam, c)[2]
    H = _hessian(Xa, P, c) / len(X) + np.kron(np.eye(2) + c * c * np.ones((2, 2)), np.diag(lam))
    num_H = np.array([(grad(v + h * e) - grad(v - h * e)) / (2 * h) for e in E])
    np.testing.assert_allclose(H, num_H, rtol=1e-5, atol=1e-8)


def test_newton_is_monotone_and_gd_agrees():
    X, y = standardized(load_iris)
    newton = SoftmaxRegression(C=1.0, tol=1e-12).fit(X, y)
    h = newton.loss_history_
    assert h[0] == pytest.approx(np.log(3)) and np.all(np.diff(h) <= 0)
    gd = SoftmaxRegression(C=1.0, solver="gd", learning_rate=1.0, max_iter=50_000, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(gd.coef_, newton.coef_, atol=1e-6)
    np.testing.assert_allclose(gd.predict_proba(X), newton.predict_proba(X), atol=1e-7)


def test_probabilities_are_a_stable_softmax():
    X, y = blobs(seed=5)
    model = SoftmaxRegression().fit(X, y)
    P = model.predict_proba(X * 1e3)  # huge scores: no overflow
    assert np.all(np.isfinite(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(model.predict_proba(X), softmax(model.decision_function(X), axis=1))
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), model.predict_proba(X))


def test_separable_without_penalty_raises():
    X, y = blobs(n=90, d=2, k=3, seed=6)
    X = X + 10 * np.array([[0, 0], [1, 0], [0, 1]])[y]  # three well-separated clusters
    with pytest.raises(ValueError, match="linearly separable.*penalty='l2'"):
        SoftmaxRegression(penalty=None).fit(X, y)
    assert SoftmaxRegression(C=1.0).fit(X, y).score(X, y) == 1.0


def test_max_iter_warns():
    X, y = blobs()
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 iterations"):
        SoftmaxRegression(max_iter=2).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"penalty": "l1"}, r"penalty must be one of \['l2', None\]"),
        ({"C": 0}, "C must be > 0"),
        ({"solver": "lbfgs"}, "solver must be one of"),
    ],
)
def test_bad_hyperparameters(params, match):
    X, y = blobs()
    with pytest.raises(ValueError, match=match):
        SoftmaxRegression(**params).fit(X, y)
