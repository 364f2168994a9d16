"""Layers, activations, losses, convolution and pooling: finite-difference gradient checks (relative
error < 1e-6 in float64), a naive reference convolution, the course texts' worked numbers and errata."""

import numpy as np
import pytest
from scipy.special import expit

from replearn.models.neural.activations import Identity, LeakyReLU, ReLU, Sigmoid, Softmax, Tanh
from replearn.models.neural.cnn import CNN
from replearn.models.neural.conv import AvgPool2D, Conv2D, MaxPool2D, col2im, conv_output_size, im2col
from replearn.models.neural.gradcheck import check_layer_gradients, numerical_gradient, relative_error
from replearn.models.neural.init import initialize
from replearn.models.neural.layers import Dense, Dropout, Flatten, Maxout, Reshape
from replearn.models.neural.losses import sigmoid_binary_cross_entropy, softmax_cross_entropy, squared_error
from replearn.models.neural.mlp import MLP
from replearn.models.neural.network import backward, forward

TOL = 1e-6


def rng(seed=0):
    return np.random.default_rng(seed)


def away_from_zero(shape, seed=0):
    """Inputs with |x| >= 0.1, so ReLU-type kinks are never within the finite-difference step."""
    r = rng(seed)
    return r.choice([-1.0, 1.0], size=shape) * r.uniform(0.1, 2.0, size=shape)


def assert_gradients_ok(layer, X, **kw):
    errors = check_layer_gradients(layer, X, **kw)
    assert max(errors.values()) < TOL, errors
    return errors


# -- dense, maxout, dropout, reshaping ---------------------------------------------------------------
def test_dense_gradients():
    layer = Dense(4, init="glorot_normal")
    layer.build((5,), rng(1))
    layer.intercept_[:] = rng(2).normal(size=4)
    errors = assert_gradients_ok(layer, rng(3).normal(size=(6, 5)))
    assert set(errors) == {"input", "param0", "param1"}


def test_dense_skips_the_input_gradient_when_not_needed():
    layer = Dense(3)
    layer.build((2,), rng())
    layer.forward(np.ones((4, 2)))
    assert layer.backward(np.ones((4, 3)), need_input_grad=False) is None
    np.testing.assert_allclose(layer.gradients()[1], [4.0, 4.0, 4.0])


def test_maxout_gradients_and_values():
    layer = Maxout(3, pieces=4)
    layer.build((5,), rng(1))
    layer.intercept_[:] = rng(2).normal(size=12)
    X = rng(3).normal(size=(7, 5))
    assert_gradients_ok(layer, X)
    Z = (X @ layer.coef_ + layer.intercept_).reshape(7, 3, 4)
    np.testing.assert_allclose(layer.forward(X), Z.max(axis=2))


def test_maxout_with_pieces_relu_and_zero_is_relu():
    # max(z, 0): maxout generalizes ReLU (EPFL notes L1805)
    layer = Maxout(1, pieces=2)
    layer.build((1,), rng())
    layer.coef_[:] = [[1.0, 0.0]]
    layer.intercept_[:] = 0.0
    x = np.array([[-2.0], [0.5], [3.0]])
    np.testing.assert_allclose(layer.forward(x)[:, 0], np.maximum(x[:, 0], 0))


def test_dropout_gradient_with_a_fixed_mask():
    X = rng(1).normal(size=(5, 6))
    mask = (rng(2).random(X.shape) < 0.7) / 0.7
    layer = Dropout(0.3)
    layer.build((6,), rng())
    assert_gradients_ok(layer, X, training=True, mask=mask)
    np.testing.assert_allclose(layer.forward(X, training=True, mask=mask), X * mask)


def test_dropout_is_identity_at_prediction_and_keeps_the_expectation():
    layer = Dropout(0.2)
    layer.build((1000,), rng())
    layer._rng = rng(5)
    X = np.ones((50, 1000))
    assert layer.forward(X) is X
    out = layer.forward(X, training=True)
    assert set(np.unique(out)) == {0.0, 1.25}
    assert abs(np.mean(out == 0) - 0.2) < 0.01
    assert abs(out.mean() - 1.0) < 0.02


def test_flatten_and_reshape_gradients():
    X = rng().normal(size=(3, 2, 3, 4))
    assert_gradients_ok(Flatten(), X)
    layer = Reshape([2, 3, 4])
    assert layer.build((24,), rng()) == (2, 3, 4)
    assert_gradients_ok(layer, X.reshape(3, -1))
    with pytest.raises(ValueError, match="cannot reshape"):
        Reshape([5, 5]).build((24,), rng())


# -- activations -----------------------------------------------------------------------------------
@pytest.mark.parametrize("layer", [ReLU(), LeakyReLU(0.1), Sigmoid(), Tanh(), Identity(), Softmax()], ids=repr)
def test_activation_gradients(layer):
    layer.build((6,), rng())
    assert_gradients_ok(layer, away_from_zero((5, 6)))


def test_activation_values():
    z = np.array([[-2.0, -0.5, 0.0, 0.5, 3.0]])
    np.testing.assert_allclose(ReLU().forward(z), [[0, 0, 0, 0.5, 3.0]])
    np.testing.assert_allclose(LeakyReLU(0.1).forward(z), [[-0.2, -0.05, 0, 0.5, 3.0]])
    np.testing.assert_allclose(Sigmoid().forward(z), 1 / (1 + np.exp(-z)))
    s = Softmax().forward(np.array([[1000.0, 1000.0, -1000.0]]))  # stable for huge logits
    np.testing.assert_allclose(s, [[0.5, 0.5, 0.0]])


def test_sigmoid_derivative_is_s_times_one_minus_s_not_the_ciml_formula():
    # CIML eq. 9.41 (seed 001 L3178) prints ds/dz = z s(z)^2 (erratum); the derivative is s (1 - s)
    z = np.linspace(-4, 4, 9)
    numeric = (expit(z + 1e-6) - expit(z - 1e-6)) / 2e-6
    s = expit(z)
    np.testing.assert_allclose(numeric, s * (1 - s), rtol=1e-8)
    assert np.max(np.abs(numeric - z * s**2)) > 0.1


def test_tanh_identity_is_two_sigmoid_of_two_t_minus_one_not_the_cs480_formula():
    # CS480/680 (seed 003 L925) prints tanh(t) = 1 - 2 sgm(t); the identity is 2 sgm(2t) - 1
    t = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(np.tanh(t), 2 * expit(2 * t) - 1, atol=1e-15)
    assert np.max(np.abs(np.tanh(t) - (1 - 2 * expit(t)))) > 0.5


def test_relu_derivative_at_zero_is_zero():
    layer = ReLU()
    layer.forward(np.array([[0.0, 1.0, -1.0]]))
    np.testing.assert_array_equal(layer.backward(np.ones((1, 3))), [[0.0, 1.0, 0.0]])


# -- losses ----------------------------------------------------------------------------------------
def loss_gradient_error(loss_fn, Z, T):
    _, grad = loss_fn(Z, T)
    Z = Z.copy()
    numeric = numerical_gradient(lambda: loss_fn(Z, T, need_grad=False)[0], Z)
    return relative_error(grad, numeric)


def test_softmax_cross_entropy_gradient_and_value():
    Z, y = rng(1).normal(size=(6, 4)) * 3, np.array([0, 3, 1, 1, 2, 0])
    assert loss_gradient_error(softmax_cross_entropy, Z, y) < TOL
    loss, grad = softmax_cross_entropy(Z, y)
    P = Softmax().forward(Z)
    assert loss == pytest.approx(-np.mean(np.log(P[np.arange(6), y])), rel=1e-12)
    np.testing.assert_allclose(grad, (P - np.eye(4)[y]) / 6, atol=1e-15)


def test_sigmoid_binary_cross_entropy_gradient_and_value():
    Z, y = rng(2).normal(size=(7, 1)) * 3, (rng(3).random((7, 1)) < 0.5).astype(float)
    assert loss_gradient_error(sigmoid_binary_cross_entropy, Z, y) < TOL
    loss, grad = sigmoid_binary_cross_entropy(Z, y)
    p = expit(Z)
    assert loss == pytest.approx(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)), rel=1e-12)
    np.testing.assert_allclose(grad, (p - y) / 7)


def test_squared_error_gradient_is_the_corrected_cs229_output_error():
    Z, Y = rng(4).normal(size=(5, 2)), rng(5).normal(size=(5, 2))
    assert loss_gradient_error(squared_error, Z, Y) < TOL
    # CS229 Alg. 5 (seed 000 L3165) prints delta^[r] = z^[r] - o; for one example it is z^[r] - y
    loss, grad = squared_error(Z[:1], Y[:1])
    np.testing.assert_allclose(grad, Z[:1] - Y[:1])
    assert loss == pytest.approx(0.5 * np.sum((Z[:1] - Y[:1]) ** 2))


def test_fused_losses_stay_finite_for_huge_logits():
    loss, grad = softmax_cross_entropy(np.array([[1000.0, -1000.0]]), np.array([1]))
    assert loss == pytest.approx(2000.0) and np.all(np.isfinite(grad))
    loss, grad = sigmoid_binary_cross_entropy(np.array([[-800.0]]), np.array([[1.0]]))
    assert loss == pytest.approx(800.0) and np.all(np.isfinite(grad))


# -- convolution and pooling -----------------------------------------------------------------------
def naive_conv(X, W, b, stride, pad):
    """Reference cross-correlation with explicit loops over every output pixel."""
    n, C, H, Wd = X.shape
    F, _, kh, kw = W.shape
    sh, sw = stride
    ph, pw = pad
    Xp = np.zeros((n, C, H + 2 * ph, Wd + 2 * pw))
    Xp[:, :, ph : ph + H, pw : pw + Wd] = X
    Ho, Wo = (H + 2 * ph - kh) // sh + 1, (Wd + 2 * pw - kw) // sw + 1
    out = np.zeros((n, F, Ho, Wo))
    for i in range(n):
        for f in range(F):
            for r in range(Ho):
                for c in range(Wo):
                    window = Xp[i, :, r * sh : r * sh + kh, c * sw : c * sw + kw]
                    out[i, f, r, c] = np.sum(window * W[f]) + b[f]
    return out


CONV_CASES = [
    dict(C=1, F=2, kernel=3, stride=1, pad=0),
    dict(C=3, F=4, kernel=3, stride=2, pad=1),
    dict(C=2, F=3, kernel=[2, 3], stride=[1, 2], pad=[1, 0]),
    dict(C=2, F=2, kernel=1, stride=1, pad=2),
]


def make_conv(case, shape, seed=0):
    layer = Conv2D(
        case["F"], kernel_size=case["kernel"], stride=case["stride"], padding=case["pad"], init="glorot_normal"
    )
    out_shape = layer.build(shape, rng(seed))
    layer.intercept_[:] = rng(seed + 1).normal(size=case["F"])
    return layer, out_shape


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_conv_forward_equals_naive_convolution(case):
    X = rng(2).normal(size=(3, case["C"], 7, 6))
    layer, out_shape = make_conv(case, X.shape[1:])
    ref = naive_conv(X, layer.coef_, layer.intercept_, pair(case["stride"]), pair(case["pad"]))
    out = layer.forward(X)
    assert out.shape == (3,) + out_shape == ref.shape
    np.testing.assert_allclose(out, ref, atol=1e-12)


@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_conv_gradients(case):
    X = rng(3).normal(size=(2, case["C"], 6, 5))
    layer, _ = make_conv(case, X.shape[1:])
    errors = assert_gradients_ok(layer, X)
    assert set(errors) == {"input", "param0", "param1"}


def test_conv_example_10_1_of_cs480():
    # CS480/680 Example 10.1 (seed 003 L1058-1062)
    X = np.array([[1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1], [0, 0, 1, 1, 0], [0, 1, 1, 0, 0]], float)
    K = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], float)
    layer = Conv2D(1, kernel_size=3)
    layer.build((1, 5, 5), rng())
    layer.coef_[...] = K
    layer.intercept_[:] = 0
    np.testing.assert_array_equal(layer.forward(X[None, None])[0, 0], [[4, 3, 4], [2, 4, 3], [2, 3, 4]])


def test_output_size_formula_and_same_padding():
    # floor(1 + (m + 2p - a) / s) (CS480/680 L1072); LeNet: 32 -> 28 with a 5x5 kernel (L1118)
    assert conv_output_size(32, 5, 1, 0) == 28
    assert conv_output_size(5, 3, 1, 0) == 3
    assert conv_output_size(7, 3, 2, 1) == 4
    for k in (1, 3, 5, 7):  # "same" padding (k - 1) / 2 at stride 1
        assert conv_output_size(8, k, 1, (k - 1) // 2) == 8


def test_im2col_and_col2im_are_adjoint():
    X = rng(4).normal(size=(2, 3, 6, 5))
    cols = im2col(X, 3, 2, (2, 1), (1, 1))
    C = rng(5).normal(size=cols.shape)
    assert np.vdot(cols, C) == pytest.approx(np.vdot(X, col2im(C, X.shape, 3, 2, (2, 1), (1, 1))), rel=1e-12)


@pytest.mark.parametrize("pool_cls", [MaxPool2D, AvgPool2D])
@pytest.mark.parametrize(
    "size, stride, hw", [(2, None, (6, 4)), (2, None, (7, 5)), (3, 1, (5, 6)), ([2, 3], [1, 2], (6, 7))]
)
def test_pool_gradients(pool_cls, size, stride, hw):
    X = rng(6).normal(size=(2, 3) + hw)
    layer = pool_cls(pool_size=size, stride=stride)
    out_shape = layer.build(X.shape[1:], rng())
    assert layer.forward(X).shape == (2,) + out_shape
    assert_gradients_ok(layer, X)


def test_pool_values():
    X = np.arange(16, dtype=float).reshape(1, 1, 4, 4)
    mx, av = MaxPool2D(2), AvgPool2D(2)
    np.testing.assert_array_equal(mx.forward(X)[0, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(av.forward(X)[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    g = mx.backward(np.ones((1, 1, 2, 2)))
    assert g.sum() == 4 and g[0, 0, 1, 1] == g[0, 0, 3, 3] == 1
    with pytest.raises(ValueError, match="does not fit"):
        MaxPool2D(5).build((1, 4, 4), rng())


# -- whole networks --------------------------------------------------------------------------------
def objective_gradient_errors(model, X, T, output, n_outputs, alpha):
    """Relative errors of backprop + weight decay against finite differences of the full objective."""
    from replearn.models.neural.losses import LOSSES

    layers = model._build_layers(X.shape[1], n_outputs, rng(7))
    for layer in layers:
        for p in layer.parameters():
            p += 0.1 * rng(8).normal(size=p.shape)  # non-zero biases
    loss_fn, n = LOSSES[output], X.shape[0]
    params = [p for layer in layers for p in layer.parameters()]
    flags = [f for layer in layers for f in layer.decayed()]

    def J():
        pen = sum(np.vdot(p, p) for p, f in zip(params, flags) if f)
        return loss_fn(forward(layers, X), T, need_grad=False)[0] + alpha / (2 * n) * pen

    _, grad = loss_fn(forward(layers, X), T)
    backward(layers, grad)
    grads = [
        g.copy() + (alpha / n * p if f else 0)
        for layer in layers
        for g, p, f in zip(layer.gradients(), layer.parameters(), layer.decayed())
    ]
    return [relative_error(g, numerical_gradient(J, p)) for g, p in zip(grads, params)]


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "maxout"])
def test_mlp_objective_gradient_with_weight_decay(activation):
    X = rng(1).normal(size=(8, 4))
    y = np.array([0, 1, 2, 0, 1, 2, 2, 1])
    model = MLP(hidden_layer_sizes=[5, 3], activation=activation)
    errors = objective_gradient_errors(model, X, y, "softmax", 3, alpha=0.3)
    assert len(errors) == 6 and max(errors) < TOL, errors


def test_mlp_regression_and_binary_objective_gradients():
    X = rng(2).normal(size=(6, 3))
    model = MLP(hidden_layer_sizes=[4], activation="tanh")
    assert max(objective_gradient_errors(model, X, rng(3).normal(size=(6, 1)), "identity", 1, alpha=0.1)) < TOL
    yb = np.array([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0]])
    assert max(objective_gradient_errors(model, X, yb, "logistic", 1, alpha=0.1)) < TOL


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_cnn_objective_gradient(pool):
    X = rng(4).normal(size=(3, 2 * 6 * 6))
    model = CNN(conv_channels=[3, 2], hidden_layer_sizes=[4], activation="tanh", pool=pool, padding=1)
    model.image_shape_ = [2, 6, 6]
    errors = objective_gradient_errors(model, X, np.array([0, 2, 1]), "softmax", 3, alpha=0.2)
    assert len(errors) == 8 and max(errors) < TOL, errors


def test_initializers_have_the_documented_scale():
    r = rng(9)
    W = initialize((400, 600), 400, 600, "glorot_uniform", r)
    assert np.max(np.abs(W)) <= np.sqrt(6 / 1000) and W.std() == pytest.approx(np.sqrt(2 / 1000), rel=0.02)
    assert initialize((400, 600), 400, 600, "glorot_normal", r).std() == pytest.approx(np.sqrt(2 / 1000), rel=0.02)
    assert initialize((400, 600), 400, 600, "he_normal", r).std() == pytest.approx(np.sqrt(2 / 400), rel=0.02)
    W = initialize((400, 600), 400, 600, "he_uniform", r)
    assert np.max(np.abs(W)) <= np.sqrt(6 / 400) and W.std() == pytest.approx(np.sqrt(2 / 400), rel=0.02)
    with pytest.raises(ValueError, match="init must be one of"):
        initialize((2, 2), 2, 2, "ones", r)
