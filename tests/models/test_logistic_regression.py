"""LogisticRegression: Newton/IRLS and GD against scikit-learn, gradients, separability, bad inputs."""

from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.multiclass import OneVsRestClassifier

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.models.linear import logistic
from replearn.models.linear.logistic import LogisticRegression

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def binary_data(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    y = (X @ rng.normal(size=d) + 0.3 + rng.normal(size=n) > 0).astype(int)
    return X, y


def multiclass_data(n=300, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.7 * rng.normal(size=n), [-0.6, 0.6])
    return X, y


def sk_newton(C):
    # C=np.inf is scikit-learn's (non-deprecated) spelling of penalty=None
    return SkLogisticRegression(C=C, solver="newton-cholesky", tol=1e-12, max_iter=1000)


@pytest.mark.parametrize("C", [0.05, 1.0, 50.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_newton_matches_sklearn_binary(C, fit_intercept):
    X, y = binary_data()
    ours = LogisticRegression(C=C, tol=1e-12, fit_intercept=fit_intercept).fit(X, y)
    ref = sk_newton(C).set_params(fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.coef_.shape == (1, 5) and ours.intercept_.shape == (1,)


def test_newton_matches_sklearn_lbfgs():
    X, y = binary_data(seed=4)
    ours = LogisticRegression(C=0.5).fit(X, y)
    ref = SkLogisticRegression(C=0.5, solver="lbfgs", tol=1e-10, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-5)


def test_unpenalized_matches_sklearn_on_cs229_ps1_data():
    data = np.loadtxt(FIXTURES / "cs229_ps1_q1_logistic.csv", delimiter=",", skiprows=1)
    X, y = data[:, :2], data[:, 2].astype(int)
    ours = LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    ref = sk_newton(np.inf).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6)
    assert ours.n_iter_[0] < 15  # Newton's quadratic convergence


def test_unpenalized_matches_sklearn_random():
    X, y = binary_data(seed=2)
    ours = LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    ref = sk_newton(np.inf).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6)


def test_newton_converges_in_few_iterations_monotonically():
    X, y = binary_data(n=500, d=8, seed=3)
    model = LogisticRegression(C=10.0, tol=1e-10).fit(X, y)
    assert model.n_iter_[0] < 15
    history = model.loss_history_[0]
    assert history[0] == pytest.approx(np.log(2))  # theta = 0: every p = 1/2
    assert np.all(np.diff(history) <= 0)
    # quadratic convergence: the objective gaps shrink faster than linearly at the end
    gaps = history[:-1] - history[-1]
    gaps = gaps[gaps > 1e-14]
    assert len(gaps) >= 3
    assert gaps[-1] < 1e-2 * gaps[-2] and gaps[-2] < 0.1 * gaps[-3]


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_multiclass_ovr_matches_sklearn(C):
    X, y = multiclass_data()
    ours = LogisticRegression(C=C, tol=1e-12).fit(X, y)
    ref = OneVsRestClassifier(sk_newton(C)).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-6, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.coef_.shape == (3, 4) and ours.n_iter_.shape == (3,)
    np.testing.assert_allclose(ours.predict_proba(X).sum(axis=1), 1.0)
    assert ours.loss_history_.shape == (3, ours.n_iter_.max() + 1)


def test_gd_is_close_to_newton():
    X, y = binary_data(seed=5)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    newton = LogisticRegression(C=1.0).fit(X, y)
    gd = LogisticRegression(C=1.0, solver="gd", learning_rate=1.0, max_iter=20_000, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(gd.coef_, newton.coef_, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gd.intercept_, newton.intercept_, rtol=1e-6, atol=1e-7)
    assert np.all(np.diff(gd.loss_history_[0]) <= 1e-15)
    assert gd.loss_history_[0, -1] == pytest.approx(newton.loss_history_[0, -1], rel=1e-12)


def test_gd_tiny_max_iter_warns():
    X, y = binary_data()
    with pytest.warns(ConvergenceWarning, match="did not converge for class 1 in 5 iterations"):
        LogisticRegression(solver="gd", max_iter=5).fit(X, y)


@pytest.mark.parametrize("penalty", ["l2", None])
def test_gradient_matches_finite_differences(penalty):
    X, y = binary_data(n=40, d=3, seed=6)
    Xa = np.column_stack([X, np.ones(len(X))])
    lam = np.array([0.3, 0.3, 0.3, 0.0]) if penalty == "l2" else np.zeros(4)
    t = y.astype(float)
    theta = np.random.default_rng(0).normal(size=4)

    def f(th):
        return logistic._objective(Xa @ th, t, th, lam)

    grad = logistic._gradient(Xa, Xa @ theta, t, theta, lam)
    h = 1e-6
    numeric = np.array([(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


def test_objective_is_stable_for_huge_scores():
    z = np.array([800.0, -800.0])
    value = logistic._objective(z, np.array([1.0, 0.0]), np.zeros(1), np.zeros(1))
    assert value == pytest.approx(0.0, abs=1e-300)
    value = logistic._objective(z, np.array([0.0, 1.0]), np.zeros(1), np.zeros(1))
    assert value == pytest.approx(800.0)


@pytest.mark.parametrize("solver", ["newton", "gd"])
def test_separable_data_without_penalty_raises(solver):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 2))
    X = X[np.abs(X[:, 0] + X[:, 1]) > 0.2]  # separable with a margin
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    with pytest.raises(ValueError, match="linearly separable.*penalty='l2'"):
        LogisticRegression(penalty=None, solver=solver, learning_rate=1.0, max_iter=1000).fit(X, y)
    # with the penalty the estimate exists
    model = LogisticRegression(C=1.0, solver="newton").fit(X, y)
    assert model.score(X, y) > 0.95


def test_string_labels_and_classes():
    X, y = binary_data()
    labels = np.where(y == 1, "spam", "ham")
    model = LogisticRegression().fit(X, labels)
    np.testing.assert_array_equal(model.classes_, ["ham", "spam"])
    numeric = LogisticRegression().fit(X, y)
    np.testing.assert_allclose(model.coef_, numeric.coef_)
    assert set(model.predict(X)) <= {"ham", "spam"}
    assert model.decision_function(X).shape == (len(X),)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"solver": "lbfgs"}, r"solver must be one of \['gd', 'newton', 'sga'\], got 'lbfgs'"),
        ({"penalty": "elasticnet"}, r"penalty must be one of \['l1', 'l2', None\], got 'elasticnet'"),
        ({"penalty": "l1"}, r"penalty='l1' needs solver='gd' \(proximal gradient\) or solver='sga'"),
        ({"solver": "sga", "batch_size": 0}, "batch_size must be >= 1"),
        ({"C": 0.0}, "C must be > 0"),
        ({"max_iter": 0}, "max_iter must be >= 1"),
    ],
)
def test_bad_hyperparameters(params, match):
    X, y = binary_data()
    with pytest.raises(ValueError, match=match):
        LogisticRegression(**params).fit(X, y)


@pytest.mark.parametrize(
    "X, y, match",
    [
        ([["a", "b"], ["c", "d"]], [0, 1], "must be numeric"),
        ([1.0, 2.0], [0, 1], "must be 2-D"),
        ([[np.inf], [2.0]], [0, 1], "NaN or infinite"),
        ([[1.0], [2.0]], [0, 1, 1], "X has 2, y has 3"),
        ([[1.0], [2.0]], [1, 1], r"1 class\(es\)"),
        ([[1.0], [2.0]], [0.5, 1.5], "continuous"),
    ],
)
def test_bad_inputs(X, y, match):
    with pytest.raises(ValueError, match=match):
        LogisticRegression().fit(X, y)


# -- L1 penalty (proximal gradient) and stochastic gradient ascent ------------------------------------------
@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


@pytest.mark.parametrize("C", [0.05, 0.1])
def test_l1_matches_sklearn_saga(cancer, C):
    """Same objective C sum logloss + ||w||_1, intercept unpenalized (liblinear would penalize it)."""
    X, y = cancer
    ref = SkLogisticRegression(C=C, l1_ratio=1.0, solver="saga", tol=1e-12, max_iter=100_000).fit(X, y)
    ours = LogisticRegression(C=C, penalty="l1", solver="gd", learning_rate=1.0, max_iter=100_000, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-5 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-5)
    np.testing.assert_array_equal(ours.coef_ == 0, np.abs(ref.coef_) < 1e-8)  # same sparsity pattern
    assert 0 < np.count_nonzero(ours.coef_) < X.shape[1]


def test_l1_optimality_and_sparsity(cancer):
    X, y = cancer
    C = 0.1
    model = LogisticRegression(C=C, penalty="l1", solver="gd", learning_rate=1.0, max_iter=100_000, tol=1e-11).fit(X, y)
    z = X @ model.coef_[0] + model.intercept_[0]
    g = X.T @ (1 / (1 + np.exp(-z)) - y)  # gradient of sum logloss
    nz = model.coef_[0] != 0
    np.testing.assert_allclose(C * g[nz], -np.sign(model.coef_[0][nz]), atol=1e-7)
    assert np.all(np.abs(C * g[~nz]) <= 1 + 1e-7)
    assert np.all(np.diff(model.loss_history_[0]) <= 1e-15)  # step <= 1/L and monotone restarts


@pytest.mark.filterwarnings("ignore::replearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("penalty", ["l2", "l1"])
def test_sga_approaches_the_optimum(cancer, penalty):
    X, y = cancer
    C = 1.0 if penalty == "l2" else 0.1
    exact = LogisticRegression(
        C=C,
        penalty=penalty,
        solver="newton" if penalty == "l2" else "gd",
        learning_rate=1.0,
        max_iter=100_000,
        tol=1e-10,
    ).fit(X, y)
    sga = LogisticRegression(
        C=C,
        penalty=penalty,
        solver="sga",
        learning_rate=0.5,
        schedule="inverse",
        decay=0.001,
        batch_size=10,
        max_iter=60,
        tol=0.0,
        random_state=0,
    ).fit(X, y)
    best = exact.loss_history_[0][~np.isnan(exact.loss_history_[0])][-1]
    h = sga.loss_history_[0]
    assert h[0] == pytest.approx(np.log(2))
    # truncated (proximal) SGD's noise keeps it further from the optimum after 60 epochs
    assert h[-1] == pytest.approx(best, rel=2e-3 if penalty == "l2" else 3e-2)
    assert h[1] < h[0] and np.mean(h[1:11]) > np.mean(h[-10:])  # decreasing on average
    assert sga.score(X, y) >= exact.score(X, y) - 0.01


def test_sga_l1_truncation_gives_exact_zeros(cancer):
    X, y = cancer
    model = LogisticRegression(
        C=0.01, penalty="l1", solver="sga", learning_rate=0.1, batch_size=10, max_iter=30, random_state=0
    ).fit(X, y)
    assert np.sum(model.coef_ == 0) >= 10 and model.score(X, y) > 0.9


def test_sga_is_the_cs229_rule_for_one_example():
    """One epoch over one example from theta = 0: theta := theta + alpha (y - h(x)) x (seed 000 L580-592)."""
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([0, 1, 0])  # not linearly separable
    m = LogisticRegression(penalty=None, solver="sga", learning_rate=0.3, max_iter=1, tol=0.0, random_state=0)
    with pytest.warns(ConvergenceWarning):
        m.fit(X, y)
    order = np.random.default_rng(0).permutation(3)
    theta = np.zeros(2)
    Xa = np.column_stack([X, np.ones(3)])
    for i in order:
        theta = theta + 0.3 * (y[i] - 1 / (1 + np.exp(-Xa[i] @ theta))) * Xa[i]
    np.testing.assert_allclose(np.append(m.coef_[0], m.intercept_), theta, rtol=1e-14)


@pytest.mark.filterwarnings("ignore::replearn.exceptions.ConvergenceWarning")
def test_sga_reproducible_and_divergence(cancer):
    X, y = cancer
    kw = dict(solver="sga", max_iter=5, random_state=4)
    a = LogisticRegression(**kw).fit(X, y)
    b = LogisticRegression(**kw).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(DivergenceError, match="too large"):
        LogisticRegression(penalty=None, solver="sga", learning_rate=1e300, random_state=0).fit(X * 1e10, y)
