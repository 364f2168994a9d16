"""The allocation-free forms of the neural hot paths give the same numbers as the plain formulas.

Optimizers update through preallocated scratch arrays, ReLU uses ``fmax``, Dense adds its bias in place,
Dropout builds its mask in place and training back-propagates only down to the lowest layer with
parameters: each is checked against the expression it replaced, bit for bit.
"""

import numpy as np
import pytest

from replearn.models.neural.activations import ReLU
from replearn.models.neural.cnn import CNN
from replearn.models.neural.layers import Dense, Dropout
from replearn.models.neural.network import backward, forward
from replearn.optim.optimizers import make_optimizer


def reference_steps(name, params, grads_seq, lr=0.01, mu=0.9, b1=0.9, b2=0.999, rho=0.9, eps=1e-8):
    """The update rules as written before (numpy temporaries)."""
    params = [p.copy() for p in params]
    s1 = [np.zeros_like(p) for p in params]
    s2 = [np.zeros_like(p) for p in params]
    for t, grads in enumerate(grads_seq, start=1):
        for p, g, a, b in zip(params, grads, s1, s2):
            if name == "sgd":
                p -= lr * g
            elif name == "momentum":
                a *= mu
                a -= lr * g
                p += a
            elif name == "nesterov":
                a *= mu
                a -= lr * g
                p += mu * a - lr * g
            elif name == "adagrad":
                a += g * g
                p -= lr * g / (np.sqrt(a) + eps)
            elif name == "rmsprop":
                a *= rho
                a += (1.0 - rho) * g * g
                p -= lr * g / (np.sqrt(a) + eps)
            else:
                lr_t = lr * np.sqrt(1.0 - b2**t) / (1.0 - b1**t)
                a *= b1
                a += (1.0 - b1) * g
                b *= b2
                b += (1.0 - b2) * g * g
                p -= lr_t * a / (np.sqrt(b) + eps)
    return params


@pytest.mark.parametrize("name", ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"])
def test_in_place_updates_equal_the_formulas(name):
    rng = np.random.default_rng(0)
    params = [rng.normal(size=(5, 4)), rng.normal(size=4)]
    grads_seq = [[rng.normal(size=(5, 4)), rng.normal(size=4)] for _ in range(6)]
    opt = make_optimizer(name, learning_rate=0.01)
    mine = [p.copy() for p in params]
    for grads in grads_seq:
        kept = [g.copy() for g in grads]
        opt.step(mine, grads)
        for g, k in zip(grads, kept):  # the gradients are read, never written
            np.testing.assert_array_equal(g, k)
    for a, b in zip(mine, reference_steps(name, params, grads_seq)):
        np.testing.assert_array_equal(a, b)
    opt.reset()
    assert opt._work == [] and opt._state is None


def test_relu_matches_where_including_nan():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(7, 6))
    X[0, 0], X[1, 1], X[2, 2] = np.nan, 0.0, np.inf
    layer = ReLU()
    out = layer.forward(X)
    np.testing.assert_array_equal(out, np.where(X > 0, X, 0.0))
    G = rng.normal(size=X.shape)
    np.testing.assert_array_equal(layer.backward(G), G * (X > 0))


def test_dense_forward_and_dropout_mask_are_unchanged():
    rng = np.random.default_rng(2)
    layer = Dense(3)
    layer.build((4,), rng)
    layer.intercept_ = rng.normal(size=3)
    X = rng.normal(size=(5, 4))
    np.testing.assert_array_equal(layer.forward(X), X @ layer.coef_ + layer.intercept_)
    drop = Dropout(0.3)
    drop.build((4,), rng)
    drop._rng = np.random.default_rng(3)
    out = drop.forward(X, training=True)
    expected_mask = (np.random.default_rng(3).random(X.shape) < 0.7) / 0.7
    np.testing.assert_array_equal(drop._mask, expected_mask)
    np.testing.assert_array_equal(out, X * expected_mask)


def test_training_backprop_stops_at_the_lowest_parametrized_layer():
    """The CNN starts with a Reshape: the parameter gradients are those of the full backward pass."""
    rng = np.random.default_rng(4)
    X = rng.random((12, 64))
    y = rng.integers(0, 3, size=12)
    model = CNN(image_shape=[8, 8], conv_channels=[2], hidden_layer_sizes=[5], max_iter=1, random_state=0)
    with pytest.warns(Warning):
        model.fit(X, y)
    layers = model.layers_
    first = next(k for k, layer in enumerate(layers) if layer.parameters())
    assert first > 0
    G = rng.normal(size=(12, 3))
    forward(layers, X, training=True)
    backward(layers, G)
    full = [g.copy() for layer in layers for g in layer.gradients()]
    forward(layers, X, training=True)
    backward(layers[first:], G)
    for a, b in zip(full, [g for layer in layers for g in layer.gradients()]):
        np.testing.assert_array_equal(a, b)


def test_adam_kernel_py_func_compiled_and_array_form_agree(monkeypatch):
    from replearn import _jit
    from replearn.optim import optimizers

    rng = np.random.default_rng(5)
    params = [rng.normal(size=(6, 3)), rng.normal(size=3), np.asfortranarray(rng.normal(size=(4, 5)))]
    grads_seq = [[rng.normal(size=(6, 3)), rng.normal(size=3), rng.normal(size=(4, 5))] for _ in range(4)]
    expected = reference_steps("adam", params, grads_seq)
    runs = {"default": None, "python": optimizers._adam_kernel.py_func, "array": "array"}
    for label, impl in runs.items():
        if impl == "array":
            monkeypatch.setattr(optimizers, "jit_available", lambda: False)
        elif impl is not None:
            monkeypatch.setattr(optimizers._adam_kernel, "_impl", impl)
        opt = make_optimizer("adam", learning_rate=0.01)
        mine = [p.copy(order="K") for p in params]
        for grads in grads_seq:
            opt.step(mine, grads)
        for a, b in zip(mine, expected):
            np.testing.assert_array_equal(a, b, err_msg=label)
        monkeypatch.undo()
    if _jit.jit_available():
        assert optimizers._adam_kernel.compiled
