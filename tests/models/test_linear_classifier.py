"""LinearClassifier (CIML ch. 7 and 14): Alg. 22 by hand, optima of scikit-learn models, gradients, sparsity."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge
from sklearn.svm import SVC

from replearn.exceptions import DivergenceError, InputScaleError
from replearn.models.linear.linear_classifier import LinearClassifier, margin_loss, margin_loss_derivative


def data(n=200, d=4, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + 0.3 + noise * rng.normal(size=n) > 0).astype(int)
    return X, y


def params(model):
    return np.append(model.coef_[0], model.intercept_[0])


def with_ones(X):
    return np.column_stack([X, np.ones(len(X))])


def test_losses_at_the_margin():
    z = np.array([-1.0, 0.0, 1.0, 2.0])
    np.testing.assert_allclose(margin_loss("hinge", z), [2, 1, 0, 0])
    np.testing.assert_allclose(margin_loss("logistic", z)[1], 1.0)  # the 1/log 2 makes l(0) = 1 (CIML L2275)
    np.testing.assert_allclose(margin_loss("exponential", z), np.exp(-z))
    np.testing.assert_allclose(margin_loss("squared", z), (1 - z) ** 2)
    # every surrogate upper-bounds the 0/1 loss 1[z <= 0]
    zz = np.linspace(-3, 3, 61)
    for loss in ("hinge", "logistic", "exponential", "squared"):
        assert np.all(margin_loss(loss, zz) >= (zz <= 0) - 1e-12)
    np.testing.assert_array_equal(margin_loss_derivative("hinge", np.array([0.5, 1.0, 1.5])), [-1, -1, 0])


def test_hinge_l2_gd_is_cimls_algorithm_22():
    """HingeRegularizedGD (seed 001 L2445-2468) run by hand: eta_CIML = eta / n, lambda = n alpha."""
    X, y = data(n=50, d=3, seed=1)
    s = np.where(y == 1, 1.0, -1.0)
    n, eta, alpha, iters = len(y), 0.5, 0.01, 7
    model = LinearClassifier(
        loss="hinge",
        penalty="l2",
        alpha=alpha,
        solver="gd",
        learning_rate=eta,
        schedule="constant",
        max_iter=iters,
        tol=0.0,
        n_iter_no_change=100,
    )
    with pytest.warns(Warning):
        model.fit(X, y)
    lam, step = n * alpha, eta / n
    w, b = np.zeros(3), 0.0
    for _ in range(iters):
        g, gb = np.zeros(3), 0.0
        for x_n, y_n in zip(X, s):
            if y_n * (w @ x_n + b) <= 1:
                g += y_n * x_n
                gb += y_n
        g -= lam * w
        w, b = w + step * g, b + step * gb
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-12, atol=1e-15)
    assert model.intercept_[0] == pytest.approx(b, rel=1e-12, abs=1e-15)
    assert model.n_iter_[0] == iters and model.loss_history_.shape == (1, iters + 1)


def test_logistic_l2_optimum_is_sklearn_logistic_regression():
    X, y = data(seed=2)
    n, alpha = len(y), 0.01
    model = LinearClassifier(
        loss="logistic",
        alpha=alpha,
        solver="gd",
        schedule="constant",
        learning_rate=2.0,
        max_iter=20_000,
        tol=1e-15,
        n_iter_no_change=3,
    ).fit(X, y)
    ref = SkLogisticRegression(C=1 / (n * alpha * np.log(2)), tol=1e-12, solver="newton-cholesky").fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-7)


def test_squared_l2_optimum_is_ridge_on_plus_minus_one_targets():
    X, y = data(seed=3)
    n, alpha = len(y), 0.05
    model = LinearClassifier(
        loss="squared",
        alpha=alpha,
        solver="gd",
        schedule="constant",
        learning_rate=0.2,
        max_iter=20_000,
        tol=1e-15,
        n_iter_no_change=3,
    ).fit(X, y)
    ref = Ridge(alpha=n * alpha / 2).fit(X, 2.0 * y - 1.0)
    np.testing.assert_allclose(model.coef_[0], ref.coef_, rtol=1e-6)
    assert model.intercept_[0] == pytest.approx(ref.intercept_, rel=1e-6, abs=1e-9)


def test_hinge_sgd_reaches_the_svm_objective():
    """The optimum of mean hinge + alpha/2 ||w||^2 is the soft-margin SVM with C = 1/(n alpha) (CIML eq. 7.48)."""
    X, y = data(seed=4)
    n, alpha = len(y), 0.01
    model = LinearClassifier(loss="hinge", alpha=alpha, learning_rate=0.5, max_iter=300, random_state=0).fit(X, y)
    svc = SVC(kernel="linear", C=1 / (n * alpha), tol=1e-10).fit(X, y)
    s = np.where(y == 1, 1.0, -1.0)
    ours = model.objective(params(model), with_ones(X), s)
    best = model.objective(np.append(svc.coef_[0], svc.intercept_), with_ones(X), s)
    assert best <= ours <= best * 1.02
    assert model.score(X, y) >= svc.score(X, y) - 0.02


@pytest.mark.parametrize("loss", ["logistic", "exponential", "squared"])
@pytest.mark.parametrize("penalty", ["l2", "lp", None])
def test_gradient_matches_finite_differences(loss, penalty):
    X, y = data(n=30, d=3, seed=5)
    s = np.where(y == 1, 1.0, -1.0)
    model = LinearClassifier(loss=loss, penalty=penalty, alpha=0.3, p=3.0)
    theta = np.random.default_rng(1).normal(size=4) * 0.5
    Xa = with_ones(X)
    g = model.gradient(theta, Xa, s)
    h = 1e-6
    num = [(model.objective(theta + h * e, Xa, s) - model.objective(theta - h * e, Xa, s)) / (2 * h) for e in np.eye(4)]
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)


@pytest.mark.filterwarnings("ignore::replearn.exceptions.ConvergenceWarning")
def test_truncated_gradient_gives_exact_zeros_and_more_with_more_penalty():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 20))
    y = (X[:, 0] - 2 * X[:, 1] + 0.5 * rng.normal(size=300) > 0).astype(int)  # 2 relevant features of 20
    zeros = []
    for alpha in (0.001, 0.05, 0.1):
        m = LinearClassifier(
            loss="logistic",
            penalty="l1",
            alpha=alpha,
            solver="truncated_gradient",
            learning_rate=0.5,
            batch_size=50,
            max_iter=50,
            random_state=0,
        ).fit(X, y)
        zeros.append(int(np.sum(m.coef_ == 0)))
    assert zeros == sorted(zeros) and zeros[0] == 0 and zeros[-1] >= 12
    assert m.coef_[0, 0] > 0 > m.coef_[0, 1]  # the relevant features survive
    # plain subgradient SGD with the same L1 penalty does not land on exact zeros
    sub = LinearClassifier(
        loss="logistic",
        penalty="l1",
        alpha=0.1,
        solver="sgd",
        learning_rate=0.5,
        batch_size=50,
        max_iter=50,
        random_state=0,
    ).fit(X, y)
    assert np.sum(sub.coef_ == 0) < zeros[-1]


def test_multiclass_is_one_vs_all():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, size=240)
    X = rng.normal(size=(240, 2)) + 3 * np.array([[0, 0], [1, 0], [0, 1]])[y]
    model = LinearClassifier(loss="logistic", alpha=1e-3, random_state=0).fit(X, y)
    assert model.coef_.shape == (3, 2) and model.n_iter_.shape == (3,)
    assert model.score(X, y) > 0.85
    # the first class-vs-rest problem is the binary problem fitted with the same generator state
    binary = LinearClassifier(loss="logistic", alpha=1e-3, random_state=0).fit(X, (y == 0).astype(int))
    np.testing.assert_allclose(binary.coef_[0], model.coef_[0])
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_predict_proba_only_for_the_logistic_loss():
    X, y = data()
    hinge = LinearClassifier(random_state=0).fit(X, y)
    assert not hasattr(hinge, "predict_proba")
    with pytest.raises(AttributeError, match="only available for loss='logistic'"):
        hinge.predict_proba(X)
    assert hasattr(LinearClassifier(loss="logistic", random_state=0).fit(X, y), "predict_proba")


def test_exponential_loss_with_a_huge_step_diverges_with_a_clear_error():
    X, y = data()
    with pytest.raises(DivergenceError, match="too large"):
        LinearClassifier(loss="exponential", solver="gd", schedule="constant", learning_rate=10.0).fit(X * 10, y)
    # a step that moves margins by more than MAX_STEP_MARGIN is refused before the first step (issue 24)
    with pytest.raises(InputScaleError, match="standardize the features"):
        LinearClassifier(loss="exponential", solver="gd", schedule="constant", learning_rate=1e4).fit(X * 10, y)


def test_string_labels():
    X, y = data()
    labels = np.where(y == 1, "pos", "neg")
    m = LinearClassifier(random_state=0).fit(X, labels)
    np.testing.assert_array_equal(m.classes_, ["neg", "pos"])
    np.testing.assert_allclose(m.coef_, LinearClassifier(random_state=0).fit(X, y).coef_)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"loss": "log"}, "loss must be one of"),
        ({"penalty": "l0"}, "penalty must be one of"),
        ({"p": 0.5}, "p must be >= 1"),
        ({"solver": "truncated_gradient", "penalty": "l2"}, "needs penalty='l1'"),
        ({"alpha": -1.0}, "alpha must be >= 0"),
    ],
)
def test_bad_hyperparameters(params, match):
    X, y = data()
    with pytest.raises(ValueError, match=match):
        LinearClassifier(**params).fit(X, y)
