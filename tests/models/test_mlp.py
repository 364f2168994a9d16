"""MLP: the CS480/680 XOR network, training on XOR and digits, scikit-learn's exact steps, early
stopping, divergence, determinism, curves and bad hyperparameters."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.neural_network import MLPClassifier, MLPRegressor

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.models import create
from replearn.models.neural.activations import ReLU
from replearn.models.neural.layers import Dense
from replearn.models.neural.losses import softmax_cross_entropy
from replearn.models.neural.mlp import MLP
from replearn.models.neural.network import forward, validation_split

ROOT = Path(__file__).resolve().parents[2]
XOR_X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
XOR_Y = np.array([-1, 1, 1, -1])


@pytest.fixture(scope="module")
def digits():
    """data/uci/digits.csv, a fixed 75/25 split, standardized with the training part's statistics."""
    data = np.loadtxt(ROOT / "data" / "uci" / "digits.csv", delimiter=",", skiprows=1)
    X, y = data[:, :-1], data[:, -1].astype(int)
    perm = np.random.default_rng(0).permutation(len(y))
    tr, te = perm[:1347], perm[1347:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    return (X[tr] - mu) / sd, (X[te] - mu) / sd, y[tr], y[te]


def quiet_fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return model.fit(X, y)


# -- XOR ---------------------------------------------------------------------------------------------
def test_cs480_hand_set_xor_network_reproduces_its_scores():
    # CS480/680 Example 9.1 (seed 003 L908-916): U = [[1,1],[1,1]], c = (0,-1), w = (2,-4), b = -1, ReLU.
    # Rows are examples here, so the dense layer holds U^T.
    hidden, relu, out = Dense(2), ReLU(), Dense(1)
    hidden.build((2,), np.random.default_rng(0))
    out.build((2,), np.random.default_rng(0))
    hidden.coef_[...] = np.array([[1.0, 1.0], [1.0, 1.0]]).T
    hidden.intercept_[...] = [0.0, -1.0]
    out.coef_[...] = [[2.0], [-4.0]]
    out.intercept_[...] = -1.0
    h = forward([hidden, relu], XOR_X)
    np.testing.assert_array_equal(h, [[0, 0], [1, 0], [1, 0], [2, 1]])
    scores = forward([hidden, relu, out], XOR_X)[:, 0]
    np.testing.assert_array_equal(scores, [-1, 1, 1, -1])
    np.testing.assert_array_equal(np.sign(scores), XOR_Y)


def test_hand_set_weights_in_a_fitted_mlp_predict_xor():
    model = quiet_fit(MLP(hidden_layer_sizes=[2], max_iter=1, random_state=0), XOR_X, XOR_Y)
    dense = [layer for layer in model.layers_ if isinstance(layer, Dense)]
    dense[0].coef_[...] = 1.0
    dense[0].intercept_[...] = [0.0, -1.0]
    dense[1].coef_[...] = [[2.0], [-4.0]]
    dense[1].intercept_[...] = -1.0
    np.testing.assert_array_equal(model.decision_function(XOR_X), [-1, 1, 1, -1])
    np.testing.assert_array_equal(model.predict(XOR_X), XOR_Y)
    np.testing.assert_allclose(model.predict_proba(XOR_X)[:, 1], 1 / (1 + np.exp([1, -1, -1, 1])))


@pytest.mark.parametrize("activation, width", [("tanh", 4), ("relu", 8), ("maxout", 2)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trained_mlp_separates_xor(activation, width, seed):
    model = MLP(
        hidden_layer_sizes=[width],
        activation=activation,
        learning_rate_init=0.05,
        alpha=0.0,
        max_iter=400,
        tol=0.0,
        random_state=seed,
    )
    quiet_fit(model, XOR_X, XOR_Y)
    np.testing.assert_array_equal(model.predict(XOR_X), XOR_Y)
    assert model.loss_curve_[-1] < 0.1 < model.loss_curve_[0]


def test_a_linear_model_cannot_separate_xor():
    # no hidden layer = logistic regression: at most 3 of the 4 points (CS480/680 Ex. 2.10)
    model = quiet_fit(MLP(hidden_layer_sizes=[], learning_rate_init=0.05, max_iter=300, random_state=0), XOR_X, XOR_Y)
    assert model.score(XOR_X, XOR_Y) <= 0.75


# -- digits ------------------------------------------------------------------------------------------
def test_mlp_reaches_97_percent_on_digits(digits):
    Xtr, Xte, ytr, yte = digits
    model = quiet_fit(MLP(hidden_layer_sizes=[100], learning_rate_init=0.003, max_iter=40, random_state=0), Xtr, ytr)
    assert model.score(Xte, yte) >= 0.97
    assert model.predict_proba(Xte).shape == (len(yte), 10)
    np.testing.assert_allclose(model.predict_proba(Xte).sum(axis=1), 1.0)
    # the loss decreases on average: every tenth of the curve is below the one before
    tenths = [c.mean() for c in np.array_split(model.loss_curve_, 10)]
    assert all(b < a for a, b in zip(tenths, tenths[1:]))
    assert len(model.loss_curve_) == len(model.loss_history_) == model.n_iter_
    assert np.all(model.loss_history_ > model.loss_curve_)  # the objective adds the penalty
    assert model.validation_loss_curve_.shape == (0,) and model.best_epoch_ is None


@pytest.mark.parametrize("solver, lr", [("sgd", 0.1), ("nesterov", 0.02), ("rmsprop", 0.001), ("adagrad", 0.05)])
def test_other_solvers_learn_digits(digits, solver, lr):
    Xtr, Xte, ytr, yte = digits
    model = quiet_fit(
        MLP(hidden_layer_sizes=[64], solver=solver, learning_rate_init=lr, max_iter=30, random_state=0), Xtr, ytr
    )
    assert model.score(Xte, yte) >= 0.95


def test_early_stopping_restores_the_best_weights(digits):
    Xtr, _, ytr, _ = digits
    X, y = Xtr[:600], ytr[:600]
    model = MLP(
        hidden_layer_sizes=[64],
        learning_rate_init=0.01,
        alpha=0.0,
        early_stopping=True,
        validation_fraction=0.25,
        n_iter_no_change=5,
        tol=0.0,
        max_iter=200,
        random_state=3,
    )
    model.fit(X, y)
    curve = model.validation_loss_curve_
    assert model.n_iter_ == len(curve) == model.best_epoch_ + 6 < 200  # stopped after 6 epochs without a new best
    assert model.best_validation_loss_ == curve.min() == curve[model.best_epoch_ - 1]
    assert curve[-1] > curve.min()
    # the returned weights are those of the best epoch: their validation loss is the minimum
    codes = np.searchsorted(model.classes_, y)
    _, va = validation_split(len(y), 0.25, codes, np.random.default_rng(3))
    loss, _ = softmax_cross_entropy(model.decision_function(X[va]), codes[va], need_grad=False)
    assert loss == pytest.approx(curve.min(), rel=1e-12)


def test_validation_curve_is_recorded_without_early_stopping(digits):
    Xtr, _, ytr, _ = digits
    model = quiet_fit(MLP(hidden_layer_sizes=[32], validation_fraction=0.2, max_iter=15, random_state=0), Xtr, ytr)
    assert model.validation_loss_curve_.shape == (model.n_iter_,) == (15,)
    assert model.validation_loss_curve_[-1] < model.validation_loss_curve_[0]
    assert model.best_epoch_ is None and model.best_validation_loss_ is None


# -- agreement with scikit-learn ---------------------------------------------------------------------
SK_SOLVERS = [
    ("sgd", dict(solver="sgd", momentum=0.0)),
    ("momentum", dict(solver="sgd", momentum=0.9, nesterovs_momentum=False)),
    ("nesterov", dict(solver="sgd", momentum=0.9, nesterovs_momentum=True)),
    ("adam", dict(solver="adam")),
]


def copy_sklearn_weights(ours, ref):
    dense = [layer for layer in ours.layers_ if hasattr(layer, "coef_")]
    for layer, W, b in zip(dense, ref.coefs_, ref.intercepts_):
        layer.coef_[...] = W
        layer.intercept_[...] = b


@pytest.mark.parametrize("solver, sk", SK_SOLVERS, ids=[s for s, _ in SK_SOLVERS])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_same_steps_as_sklearn_from_the_same_weights(solver, sk, n_classes):
    # full-batch training from identical weights: the objective (incl. alpha's convention), the
    # backward pass and the update rules agree with MLPClassifier to rounding error
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5] if n_classes == 3 else [0.0])
    common = dict(activation="tanh", learning_rate_init=0.05, batch_size=50, alpha=0.01, tol=0.0, random_state=0)
    ours = quiet_fit(MLP(hidden_layer_sizes=[6, 5], solver=solver, max_iter=1, **common), X, y)
    ref = quiet_fit(MLPClassifier(hidden_layer_sizes=(6, 5), max_iter=1, shuffle=False, **common, **sk), X, y)
    copy_sklearn_weights(ours, ref)
    quiet_fit(ours.set_params(warm_start=True, max_iter=8), X, y)
    quiet_fit(ref.set_params(warm_start=True, max_iter=8), X, y)
    for a, b in zip(ours.coefs_ + ours.intercepts_, ref.coefs_ + ref.intercepts_):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    # scikit-learn's loss_curve_ (incl. the penalty) lags ours by the warm-up epoch
    np.testing.assert_allclose(ours.loss_history_[:7], ref.loss_curve_[1:8], rtol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-9)


def test_regression_same_steps_as_sklearn():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    common = dict(
        activation="relu", solver="adam", learning_rate_init=0.01, batch_size=40, alpha=0.1, tol=0.0, random_state=0
    )
    common["early_stopping"] = False  # scikit-learn's default (ours: on for regression)
    ours = quiet_fit(
        MLP(hidden_layer_sizes=[8], task="regression", standardize_target=False, max_iter=1, **common), X, y
    )
    ref = quiet_fit(MLPRegressor(hidden_layer_sizes=(8,), max_iter=1, shuffle=False, **common), X, y)
    copy_sklearn_weights(ours, ref)
    quiet_fit(ours.set_params(warm_start=True, max_iter=10), X, y)
    quiet_fit(ref.set_params(warm_start=True, max_iter=10), X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-10)


def test_regression_fits_a_smooth_function():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, size=(300, 2))
    y = 50 + 20 * np.sin(X[:, 0]) * X[:, 1]
    model = quiet_fit(
        MLP(hidden_layer_sizes=[32, 32], task="regression", learning_rate_init=0.01, max_iter=300, random_state=0), X, y
    )
    assert model._estimator_type == "regressor"
    assert model.score(X, y) > 0.95
    assert model.y_mean_ == pytest.approx(y.mean()) and model.y_scale_ == pytest.approx(y.std())
    with pytest.raises(AttributeError, match="only available with task='classification'"):
        model.predict_proba(X)


# -- training loop behaviour -------------------------------------------------------------------------
def test_divergence_error_on_a_huge_learning_rate():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 5))
    with pytest.raises(DivergenceError, match="learning rate 1e\\+06 \\(sgd\\) is too large"):
        MLP(solver="sgd", learning_rate_init=1e6, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    with pytest.raises(DivergenceError, match="too large"):
        MLP(task="regression", solver="sgd", learning_rate_init=10.0, random_state=0).fit(X, 3 * X[:, 0])


def test_determinism_with_random_state(digits):
    Xtr, _, ytr, _ = digits
    kw = dict(hidden_layer_sizes=[16], dropout=0.2, validation_fraction=0.1, max_iter=5, sampling="replacement")
    a = quiet_fit(MLP(random_state=7, **kw), Xtr[:300], ytr[:300])
    b = quiet_fit(MLP(random_state=7, **kw), Xtr[:300], ytr[:300])
    c = quiet_fit(MLP(random_state=8, **kw), Xtr[:300], ytr[:300])
    np.testing.assert_array_equal(a.loss_curve_, b.loss_curve_)
    np.testing.assert_array_equal(a.validation_loss_curve_, b.validation_loss_curve_)
    for wa, wb in zip(a.coefs_, b.coefs_):
        np.testing.assert_array_equal(wa, wb)
    assert not np.array_equal(a.coefs_[0], c.coefs_[0])


def test_sampling_with_replacement_batch_of_one_is_cs229_algorithm_1():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    model = quiet_fit(
        MLP(
            hidden_layer_sizes=[4],
            solver="sgd",
            learning_rate_init=0.05,
            batch_size=1,
            sampling="replacement",
            max_iter=20,
            random_state=0,
        ),
        X,
        y,
    )
    assert model.score(X, y) >= 0.95
    assert model.loss_curve_[-1] < model.loss_curve_[0]


def test_weight_decay_shrinks_and_dropout_does_not_touch_prediction(digits):
    Xtr, _, ytr, _ = digits
    X, y = Xtr[:400], ytr[:400]
    kw = dict(hidden_layer_sizes=[32], solver="sgd", learning_rate_init=0.1, max_iter=30, random_state=0)
    norms = [np.linalg.norm(quiet_fit(MLP(alpha=a, **kw), X, y).coefs_[0]) for a in (0.0, 10.0, 50.0)]
    assert norms[2] < 0.5 * norms[1] < 0.5 * norms[0]
    model = quiet_fit(MLP(hidden_layer_sizes=[32], dropout=0.5, max_iter=10, random_state=0), X, y)
    np.testing.assert_array_equal(model.predict_proba(X[:20]), model.predict_proba(X[:20]))


def test_learning_rate_schedule_is_applied():
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(80, 3)), rng.integers(0, 2, size=80)
    kw = dict(hidden_layer_sizes=[5], solver="sgd", learning_rate_init=0.1, batch_size=80, random_state=0)
    one = quiet_fit(MLP(max_iter=1, **kw), X, y)
    # exponential decay with gamma = 1e-12: after the first epoch the steps are negligible
    frozen = quiet_fit(MLP(max_iter=5, lr_schedule="exponential", lr_decay=1e-12, **kw), X, y)
    moving = quiet_fit(MLP(max_iter=5, **kw), X, y)
    np.testing.assert_allclose(frozen.coefs_[0], one.coefs_[0], atol=1e-10)
    assert np.max(np.abs(moving.coefs_[0] - one.coefs_[0])) > 1e-4


def test_convergence_warning_at_max_iter_and_stop_on_tol():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(50, 3)), rng.integers(0, 3, size=50)
    with pytest.warns(ConvergenceWarning, match="max_iter=2 epochs"):
        MLP(max_iter=2, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = MLP(max_iter=500, tol=10.0, n_iter_no_change=3, random_state=0).fit(X, y)
    # the first epoch sets the best objective; no later one improves on it by 10, so training stops
    # once n_iter_no_change is exceeded (scikit-learn's rule): after 1 + (3 + 1) epochs
    assert model.n_iter_ == 5


def test_coefs_shapes_and_registry():
    model = quiet_fit(
        create("mlp", hidden_layer_sizes=[7, 5], max_iter=3, random_state=0),
        np.random.default_rng(0).normal(size=(30, 4)),
        np.arange(30) % 3,
    )
    assert [W.shape for W in model.coefs_] == [(4, 7), (7, 5), (5, 3)]
    assert [b.shape for b in model.intercepts_] == [(7,), (5,), (3,)]
    assert model._estimator_type == "classifier" and MLP._tasks == ("classification", "regression")


@pytest.mark.parametrize(
    "params, error, match",
    [
        # the declared constraint (replearn._constraints) words both; the configuration says the same
        (dict(hidden_layer_sizes=[10, 0]), ValueError, r"hidden_layer_sizes must be None or a list of integers in \[1"),
        (dict(hidden_layer_sizes="10"), ValueError, "hidden_layer_sizes must be None or a list of integers"),
        (dict(activation="softplus"), ValueError, "activation must be one of"),
        (dict(solver="lbfgs"), ValueError, "solver must be one of"),
        (dict(learning_rate_init=0.0), ValueError, "learning_rate_init must be > 0"),
        (dict(dropout=1.0), ValueError, "dropout must be < 1"),
        (
            dict(early_stopping=True, validation_fraction=0.0),
            ValueError,
            "early_stopping=True needs validation_fraction > 0",
        ),
        (dict(task="ranking"), ValueError, "task must be one of"),
        (dict(lr_schedule="cyclic"), ValueError, "lr_schedule must be one of"),
        (dict(momentum=1.5, solver="momentum"), ValueError, "momentum must be < 1"),
        (dict(batch_size=0), ValueError, "batch_size must be >= 1"),
    ],
)
def test_bad_hyperparameters_are_reported(params, error, match):
    X, y = np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2
    with pytest.raises(error, match=match):
        MLP(**params).fit(X, y)


def test_default_init_is_scikit_learns_glorot_uniform_with_biases():
    X = np.random.default_rng(0).normal(size=(20, 7))
    y = np.arange(20) % 3
    for activation, factor in (("relu", 6.0), ("tanh", 6.0), ("logistic", 2.0)):
        model = quiet_fit(
            MLP(
                hidden_layer_sizes=[50, 40], activation=activation, max_iter=1, learning_rate_init=1e-12, random_state=0
            ),
            X,
            y,
        )
        for W, b in zip(model.coefs_, model.intercepts_):
            bound = np.sqrt(factor / sum(W.shape))
            assert np.abs(W).max() <= bound and np.abs(b).max() <= bound
            assert np.abs(W).max() > 0.9 * bound and np.abs(b).max() > 0.5 * bound  # biases drawn, not zero
            assert np.std(W) == pytest.approx(bound / np.sqrt(3), rel=0.15)  # uniform on ±bound
    he = quiet_fit(
        MLP(hidden_layer_sizes=[50], init="he_normal", max_iter=1, learning_rate_init=1e-12, random_state=0), X, y
    )
    assert max(np.abs(b).max() for b in he.intercepts_) < 1e-9  # the named rules start the biases at 0


def test_regression_defaults_match_sklearn_on_friedman1():
    from sklearn.datasets import make_friedman1
    from sklearn.metrics import r2_score
    from sklearn.model_selection import train_test_split

    X, y = make_friedman1(n_samples=500, random_state=0)
    y = (y - y.mean()) / y.std()
    ours, ref = [], []
    for seed in range(3):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed)
        ours.append(r2_score(yte, quiet_fit(MLP(task="regression", random_state=seed), Xtr, ytr).predict(Xte)))
        ref.append(r2_score(yte, quiet_fit(MLPRegressor(random_state=seed), Xtr, ytr).predict(Xte)))
    assert np.mean(ours) >= np.mean(ref) - 0.01, (ours, ref)
