"""CNN: digits accuracy, image shapes, architecture, curves, persistence and bad settings."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from replearn.exceptions import ConvergenceWarning
from replearn.models import create
from replearn.models.neural.cnn import CNN, image_shape_for
from replearn.models.neural.conv import AvgPool2D, Conv2D, MaxPool2D
from replearn.persistence import load_model, save_model

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def digits():
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
        return model.fit(X, y)


def test_cnn_learns_digits(digits):
    Xtr, Xte, ytr, yte = digits
    model = quiet_fit(
        CNN(
            image_shape=[8, 8],
            conv_channels=[8],
            hidden_layer_sizes=[64],
            learning_rate_init=0.01,
            batch_size=64,
            max_iter=10,
            validation_fraction=0.1,
            random_state=0,
        ),
        Xtr,
        ytr,
    )
    assert model.score(Xte, yte) >= 0.97
    assert list(model.image_shape_) == [1, 8, 8]
    assert model.loss_curve_.shape == model.validation_loss_curve_.shape == (10,)
    assert model.validation_loss_curve_[-1] < model.validation_loss_curve_[0]
    assert model.loss_curve_[-5:].mean() < model.loss_curve_[:5].mean()


def test_architecture_shapes():
    X = np.random.default_rng(0).normal(size=(30, 64))
    model = quiet_fit(
        CNN(conv_channels=[4, 6], hidden_layer_sizes=[5], pool="avg", max_iter=2, random_state=0), X, np.arange(30) % 3
    )
    convs = [layer for layer in model.layers_ if isinstance(layer, Conv2D)]
    assert [c.coef_.shape for c in convs] == [(4, 1, 3, 3), (6, 4, 3, 3)]
    assert sum(isinstance(layer, AvgPool2D) for layer in model.layers_) == 2
    dense = [layer for layer in model.layers_ if type(layer).__name__ == "Dense"]
    assert [d.coef_.shape for d in dense] == [(6 * 2 * 2, 5), (5, 3)]  # 8 -> 4 -> 2 after two 2x2 pools
    strided = quiet_fit(
        CNN(
            conv_channels=[2], conv_stride=2, padding=0, pool="none", hidden_layer_sizes=[], max_iter=1, random_state=0
        ),
        X,
        np.arange(30) % 2,
    )
    assert [d.coef_.shape for d in strided.layers_ if type(d).__name__ == "Dense"] == [(2 * 3 * 3, 1)]


def test_image_shapes():
    assert image_shape_for(None, 64) == (1, 8, 8)
    assert image_shape_for([8, 8], 64) == (1, 8, 8)
    assert image_shape_for([3, 4, 2], 24) == (3, 4, 2)
    assert image_shape_for(None, 3) == (1, 1, 3)  # not square: one row of pixels
    with pytest.raises(ValueError, match=r"image_shape \[8, 7\] has 56 pixels, but X has 64 columns"):
        image_shape_for([8, 7], 64)
    with pytest.raises(ValueError, match="image_shape must be"):
        image_shape_for([1, 2, 2, 2], 8)


def test_flattened_channels_are_read_channel_first():
    # two channels of a 2x2 image: a 1x1 convolution selecting channel 1 must see columns 4..7
    X = np.arange(16, dtype=float).reshape(2, 8)
    model = quiet_fit(
        CNN(
            image_shape=[2, 2, 2],
            conv_channels=[1],
            kernel_size=1,
            padding=0,
            pool="none",
            hidden_layer_sizes=[],
            activation="identity",
            max_iter=1,
            random_state=0,
        ),
        X,
        [0, 1],
    )
    conv = next(layer for layer in model.layers_ if isinstance(layer, Conv2D))
    conv.coef_[...] = np.array([0.0, 1.0]).reshape(1, 2, 1, 1)
    conv.intercept_[...] = 0.0
    from replearn.models.neural.network import forward

    out = forward(model.layers_[:3], X)  # reshape, conv, identity
    np.testing.assert_array_equal(out[:, 0].reshape(2, 4), X[:, 4:])


def test_tiny_inputs_clip_the_pool_window():
    X = np.random.default_rng(1).normal(size=(40, 3))
    model = quiet_fit(CNN(max_iter=5, random_state=0), X, (X[:, 0] > 0).astype(int))
    pool = next(layer for layer in model.layers_ if isinstance(layer, MaxPool2D))
    assert pool.pool_size == [1, 2]
    assert model.predict_proba(X).shape == (40, 2)


def test_binary_cnn_and_early_stopping(digits):
    Xtr, Xte, ytr, yte = digits
    keep_tr, keep_te = np.isin(ytr, [3, 8]), np.isin(yte, [3, 8])
    model = CNN(
        conv_channels=[4],
        hidden_layer_sizes=[16],
        learning_rate_init=0.01,
        early_stopping=True,
        n_iter_no_change=3,
        max_iter=60,
        random_state=0,
    )
    quiet_fit(model, Xtr[keep_tr], ytr[keep_tr])
    assert model.out_activation_ == "logistic"
    assert model.score(Xte[keep_te], yte[keep_te]) >= 0.95
    curve = model.validation_loss_curve_
    assert model.best_epoch_ is not None and model.best_validation_loss_ == curve.min() == curve[model.best_epoch_ - 1]


def test_save_load_and_determinism(digits, tmp_path):
    Xtr, Xte, ytr, _ = digits
    kw = dict(image_shape=[8, 8], conv_channels=[4], hidden_layer_sizes=[8], dropout=0.3, max_iter=3, random_state=5)
    a = quiet_fit(create("cnn", **kw), Xtr[:300], ytr[:300])
    b = quiet_fit(create("cnn", **kw), Xtr[:300], ytr[:300])
    np.testing.assert_array_equal(a.loss_curve_, b.loss_curve_)
    save_model(a, tmp_path / "cnn", registry_name="cnn")
    loaded = load_model(tmp_path / "cnn")
    np.testing.assert_array_equal(loaded.predict_proba(Xte), a.predict_proba(Xte))
    np.testing.assert_array_equal(loaded.loss_curve_, a.loss_curve_)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(activation="maxout"), "only available in the mlp model"),
        (dict(pool="min"), "pool must be one of"),
        (dict(kernel_size=5, padding=0, image_shape=[2, 2]), "does not fit"),
        (dict(conv_channels=[]), None),
        (dict(padding=-1), "padding must be >= 0"),
    ],
)
def test_bad_settings(params, match):
    X, y = np.random.default_rng(0).normal(size=(20, 4)), np.arange(20) % 2
    if match is None:  # no convolution at all is allowed: a plain MLP on the pixels
        quiet_fit(CNN(max_iter=2, **params), X, y)
        return
    with pytest.raises(ValueError, match=match):
        CNN(**params).fit(X, y)
