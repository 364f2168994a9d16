"""The neural-network methods of issue 40: regression heads (ReLU output, absolute error; CS229 summaries §8.2),
multi-label outputs (§8.1.2), pretraining and adaptation (CS229 §14.1-14.2) and the hand-wired 12-parameter
housing network (CS229 §7.2)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.linear_model import LogisticRegression

from replearn import models
from replearn.models.neural.gradcheck import numerical_gradient
from replearn.models.neural.housing import N_PARAMETERS, HandWiredHousingNetwork, housing_network_forward
from replearn.models.neural.losses import (
    absolute_error,
    multilabel_binary_cross_entropy,
    relu_absolute_error,
    relu_squared_error,
    sigmoid_binary_cross_entropy,
)
from replearn.models.neural.mlp import MultiLabelMLP
from replearn.models.neural.transfer import finetune, linear_probe, supervised_pretraining


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ---------------------------------------------------------------------------------------------- losses


@pytest.mark.parametrize(
    "loss", [absolute_error, relu_squared_error, relu_absolute_error, multilabel_binary_cross_entropy]
)
def test_fused_losses_have_the_gradient_of_their_value(loss):
    rng = np.random.default_rng(0)
    Z, Y = rng.normal(size=(7, 3)), (rng.random((7, 3)) > 0.5).astype(float)
    value, G = loss(Z, Y)
    V = Z.copy()
    num = numerical_gradient(lambda: loss(V, Y, need_grad=False)[0], V)
    np.testing.assert_allclose(G, num, atol=1e-6)
    assert value == pytest.approx(loss(Z, Y, need_grad=False)[0])


def test_the_multilabel_loss_is_the_sum_of_independent_binary_losses():
    rng = np.random.default_rng(1)
    Z, Y = rng.normal(size=(9, 4)), (rng.random((9, 4)) > 0.5).astype(float)
    per_label = sum(sigmoid_binary_cross_entropy(Z[:, [c]], Y[:, [c]])[0] for c in range(4))
    assert multilabel_binary_cross_entropy(Z, Y)[0] == pytest.approx(per_label, rel=1e-12)


# ---------------------------------------------------------------------------------------------- regression heads


def test_a_relu_head_never_predicts_a_negative_value_and_fits_non_negative_targets():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = np.maximum(X @ [1.0, 2.0, -1.0], 0.0) + 0.05 * rng.random(300)  # ages: never negative
    relu = models.create(
        "mlp", task="regression", hidden_layer_sizes=[16], output_activation="relu", random_state=0, max_iter=300
    ).fit(X, y)
    ident = models.create("mlp", task="regression", hidden_layer_sizes=[16], random_state=0, max_iter=300).fit(X, y)
    far = rng.normal(scale=5, size=(2000, 3))
    assert relu.predict(far).min() >= 0.0 and ident.predict(far).min() < 0.0
    assert relu.out_activation_ == "relu" and relu.y_mean_ == 0.0 and relu.score(X, y) > 0.95


def test_the_absolute_error_head_is_least_absolute_deviations():
    """No hidden layer + absolute error = LAD regression, solved exactly as a linear program."""
    rng = np.random.default_rng(3)
    n = 200
    X = rng.normal(size=(n, 2))
    y = X @ [1.5, -0.5] + 0.3 + rng.standard_t(1.5, n)  # heavy tails: LAD and least squares differ
    mlp = models.create(
        "mlp",
        task="regression",
        hidden_layer_sizes=[],
        loss="absolute_error",
        alpha=0.0,
        standardize_target=False,
        early_stopping=False,
        batch_size=n,
        learning_rate_init=0.01,
        max_iter=2000,
        tol=0.0,
        n_iter_no_change=2000,
        random_state=0,
    ).fit(X, y)
    A = np.c_[X, np.ones(n)]
    # min sum t  s.t.  -t <= A b - y <= t
    c = np.r_[np.zeros(3), np.ones(n)]
    res = linprog(
        c,
        A_ub=np.block([[A, -np.eye(n)], [-A, -np.eye(n)]]),
        b_ub=np.r_[y, -y],
        bounds=[(None, None)] * 3 + [(0, None)] * n,
        method="highs",
    )
    lad = res.x[:3]
    got = np.r_[mlp.coefs_[0].ravel(), mlp.intercepts_[0]]
    np.testing.assert_allclose(got, lad, atol=0.03)
    ols = np.linalg.lstsq(A, y, rcond=None)[0]
    assert np.abs(got - lad).max() < 0.3 * np.abs(ols - lad).max()


def test_regression_heads_are_refused_for_classification():
    with pytest.raises(ValueError, match="regression head"):
        models.create("mlp", loss="absolute_error").fit(np.zeros((4, 2)), [0, 1, 0, 1])


# ---------------------------------------------------------------------------------------------- multi-label


def test_a_multilabel_network_without_hidden_layers_is_one_logistic_regression_per_label():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 4))
    Y = (X @ rng.normal(size=(4, 3)) + 1.5 * rng.normal(size=(200, 3)) > 0).astype(int)
    m = MultiLabelMLP(
        hidden_layer_sizes=[],
        alpha=1.0,
        batch_size=200,
        learning_rate_init=0.05,
        max_iter=3000,
        tol=1e-10,
        n_iter_no_change=50,
        random_state=0,
    ).fit(X, Y)
    for c in range(3):  # alpha / (2n) ||w||^2 on the mean loss = scikit-learn's C = 1 / alpha
        ref = LogisticRegression(C=1.0).fit(X, Y[:, c])
        np.testing.assert_allclose(m.coefs_[0][:, c], ref.coef_.ravel(), atol=2e-3)
        assert m.intercepts_[0][c] == pytest.approx(ref.intercept_[0], abs=2e-3)
    P = m.predict_proba(X)
    assert P.shape == (200, 3) and not np.allclose(P.sum(axis=1), 1.0)  # not a softmax: labels co-occur
    np.testing.assert_array_equal(m.predict(X), (P > 0.5).astype(int))
    assert m.score(X, Y) == pytest.approx(np.mean(np.all(m.predict(X) == Y, axis=1)))


def test_multilabel_targets_are_checked():
    with pytest.raises(ValueError, match="0s and 1s"):
        MultiLabelMLP().fit(np.zeros((4, 2)), np.full((4, 3), 2.0))
    with pytest.raises(ValueError, match="inconsistent"):
        MultiLabelMLP().fit(np.zeros((4, 2)), np.zeros((3, 3)))
    assert "task" not in MultiLabelMLP().get_params()


# ---------------------------------------------------------------------------------------------- transfer


def _shared_representation(seed, n, V):
    rng = np.random.default_rng(seed)
    A = np.random.default_rng(100).normal(size=(20, 6))  # the representation every task shares
    X = rng.normal(size=(n, 20))
    return X, np.argmax(np.maximum(X @ A, 0.0) @ V, axis=1)


def test_supervised_pretraining_keeps_the_penultimate_layer_and_finetuning_starts_there():
    V = np.random.default_rng(7).normal(size=(6, 8))
    Xs, ys = _shared_representation(0, 600, V)
    pre = models.create("mlp", hidden_layer_sizes=[16], random_state=0, max_iter=30).fit(Xs, ys)
    before = [p.copy() for p in pre.coefs_]
    feats = supervised_pretraining(pre)
    Phi = feats.transform(Xs[:50])
    assert Phi.shape == (50, 16) and Phi.min() >= 0.0  # ReLU activations of the last hidden layer
    np.testing.assert_allclose(
        Phi @ feats.head.coef_ + feats.head.intercept_, pre.decision_function(Xs[:50]), atol=1e-12
    )  # U phi(x) is the network
    yt = (Xs[:40, 0] > 0).astype(int)
    frozen = finetune(pre, Xs[:40], yt, random_state=1, learning_rate_init=1e-12, max_iter=1)
    np.testing.assert_allclose(frozen.coefs_[0], before[0], atol=1e-9)  # theta <- theta-hat (eq. 14.4)
    assert frozen.coefs_[-1].shape == (16, 1) and np.abs(frozen.coefs_[-1]).max() > 0  # w random (14.3)
    for p, q in zip(pre.coefs_, before):
        np.testing.assert_array_equal(p, q)  # the pretrained model is untouched


def test_pretraining_helps_a_small_downstream_task():
    """Three seeds: finetuning (14.2-14.4) and the linear probe (14.1) beat training the same network from
    scratch on 40 labelled examples of a task that shares the representation."""
    gains_ft, gains_lp = [], []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        Vs, Vt = rng.normal(size=(6, 8)), rng.normal(size=(6, 2))
        Xs, ys = _shared_representation(10 + seed, 2000, Vs)
        Xt, yt = _shared_representation(20 + seed, 40, Vt)
        Xe, ye = _shared_representation(30 + seed, 2000, Vt)
        pre = models.create("mlp", hidden_layer_sizes=[16], random_state=0, max_iter=60).fit(Xs, ys)
        scratch = models.create("mlp", hidden_layer_sizes=[16], random_state=1, max_iter=100).fit(Xt, yt)
        ft = finetune(pre, Xt, yt, random_state=1, max_iter=100)
        feats = supervised_pretraining(pre)
        probe = linear_probe(feats, Xt, yt)
        gains_ft.append(ft.score(Xe, ye) - scratch.score(Xe, ye))
        gains_lp.append(probe.score(feats.transform(Xe), ye) - scratch.score(Xe, ye))
    assert np.mean(gains_ft) > 0.02 and np.mean(gains_lp) > 0.02


def test_transfer_refuses_what_has_no_representation():
    with pytest.raises(TypeError, match="MLP"):
        supervised_pretraining(models.create("logistic_regression"))
    with pytest.raises(Exception, match="not fitted"):
        supervised_pretraining(models.create("mlp"))
    linear = models.create("mlp", hidden_layer_sizes=[], max_iter=5, random_state=0).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="no hidden layer"):
        supervised_pretraining(linear)


# ---------------------------------------------------------------------------------------------- housing network


def test_the_housing_network_has_the_notes_twelve_parameters_and_wiring():
    theta = np.arange(1.0, 13.0) / 10
    X = np.random.default_rng(5).normal(size=(30, 4))
    h, A = housing_network_forward(theta, X)
    t = theta
    a1 = np.maximum(t[0] * X[:, 0] + t[1] * X[:, 1] + t[2], 0)
    a2 = np.maximum(t[3] * X[:, 2] + t[4], 0)
    a3 = np.maximum(t[5] * X[:, 2] + t[6] * X[:, 3] + t[7], 0)
    np.testing.assert_allclose(A, np.c_[a1, a2, a3], atol=1e-15)
    np.testing.assert_allclose(h, t[8] * a1 + t[9] * a2 + t[10] * a3 + t[11], atol=1e-14)  # eq. 7.8
    assert N_PARAMETERS == 12  # L2690-2696; fully connected 4-3-1 would have 19
    X2 = X.copy()
    X2[:, 3] += 1.0  # wealth feeds only "school quality"
    np.testing.assert_allclose(housing_network_forward(theta, X2)[1][:, :2], A[:, :2])


def test_the_housing_network_learns_by_gradient_descent():
    from replearn.models.neural.housing import _loss_and_gradient

    rng = np.random.default_rng(6)
    X = rng.normal(size=(200, 4))
    theta = np.array([1.0, 0.5, 0.5, 1.0, 0.5, 0.8, 0.6, 0.5, 2.0, 1.0, 1.5, 0.5])
    y = housing_network_forward(theta, X)[0] + 0.05 * rng.normal(size=200)
    t0 = rng.normal(size=12)
    g = _loss_and_gradient(t0, X, y)[1]
    v = t0.copy()
    num = numerical_gradient(lambda: _loss_and_gradient(v, X, y)[0], v)
    np.testing.assert_allclose(g, num, atol=1e-6)  # back-propagation through the wiring
    net = HandWiredHousingNetwork(learning_rate=0.05, max_iter=1500, random_state=0).fit(X, y)
    assert np.all(np.diff(net.loss_history_) <= 1e-12)  # a small enough step: J never increases
    A = np.c_[X, np.ones(200)]
    ols = np.mean((A @ np.linalg.lstsq(A, y, rcond=None)[0] - y) ** 2) / 2
    assert net.loss_history_[-1] < 0.5 * ols and net.theta_.shape == (12,)
    with pytest.raises(ValueError, match="4 features"):
        net.fit(X[:, :3], y)
