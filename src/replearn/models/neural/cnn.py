"""Convolutional network classifier for small images given as flattened rows (e.g. 8x8 digits)."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from ..._constraints import Interval, IntSequence, Options
from ...base import ClassifierMixin
from ...validation import check_classification_targets, check_X_y
from .activations import ACTIVATIONS, softmax
from .conv import AvgPool2D, Conv2D, MaxPool2D, conv_output_size
from .init import resolve_init
from .layers import Dense, Dropout, Flatten, Reshape
from .mlp import check_layer_sizes
from .network import NETWORK_CONSTRAINTS, NeuralNetworkBase
from .normalization import NORMALIZATIONS

_POOLS = ("max", "avg", "none")


def image_shape_for(image_shape, n_features: int) -> tuple[int, int, int]:
    """(channels, height, width) from the ``image_shape`` hyperparameter and the number of columns.

    ``None``: a square single-channel image when ``n_features`` is a perfect square, else one row of
    ``n_features`` pixels. ``[H, W]`` or ``[C, H, W]`` (channel-first, as the columns are stored).
    """
    if image_shape is None:
        side = math.isqrt(n_features)
        return (1, side, side) if side * side == n_features else (1, 1, n_features)
    shape = check_layer_sizes(image_shape, "image_shape")
    if len(shape) == 2:
        shape = [1] + shape
    if len(shape) != 3:
        raise ValueError(f"image_shape must be [height, width] or [channels, height, width], got {image_shape!r}")
    if int(np.prod(shape)) != n_features:
        raise ValueError(
            f"image_shape {list(image_shape)} has {int(np.prod(shape))} pixels, but X has {n_features} columns"
        )
    return tuple(shape)


class CNN(ClassifierMixin, NeuralNetworkBase):
    """Convolutional neural network: [Conv2D -> (normalization) -> activation -> pool] per entry of
    ``conv_channels``, then flatten -> [Dense -> (normalization) -> activation -> Dropout] per entry of
    ``hidden_layer_sizes`` -> Dense output with softmax + cross-entropy (sigmoid for two classes).

    Sources: CS480/680 §10 (convolution, channels, stride, padding, pooling, LeNet's
    conv-pool-dense shape chain; seed 003 L1042-1121) and the EPFL notes' CNN part (weight sharing,
    zero padding, channels; seed 004 L1867-1910). The layers are the im2col-vectorized
    :mod:`replearn.models.neural.conv`; training, objective, stopping and recorded curves are those
    of :class:`~replearn.models.neural.mlp.MLP` (:mod:`replearn.models.neural.network`).

    The input rows are flattened images in row-major (channel, row, column) order — the 8x8 digits'
    ``pixel_r_c`` columns — reshaped to ``image_shape``. A pooling window larger than the feature map
    is clipped to it (so the model also runs on tiny inputs).

    Parameters
    ----------
    image_shape : [H, W] or [C, H, W], default None (square single-channel, see :func:`image_shape_for`)
    conv_channels : list of int, default None (= [16])
        Number of kernels of each convolution layer.
    kernel_size : int, default 3
    conv_stride : int, default 1
    padding : int, default 1
        Zeros on each side; 1 with a 3x3 kernel keeps the size ("same").
    pool : {"max", "avg", "none"}, default "max"
    pool_size : int, default 2 (stride = window)
    hidden_layer_sizes : list of int, default None (= [64])
    activation : {"relu", "leaky_relu", "elu", "sigmoid", "tanh", "identity"}, default "relu"
    normalization : {None, "batch", "layer"}, default None
        Batch normalization (per channel after a convolution, per unit after a Dense layer; batch
        statistics while training, running averages when predicting) or layer normalization (per
        example) before each hidden activation (:mod:`replearn.models.neural.normalization`).

    Notes
    -----
    Other parameters: as :class:`~replearn.models.neural.mlp.MLP` (solver, learning rate and schedule,
    batch size, epochs, L2 ``alpha`` on weights and kernels, dropout on the dense hidden layers,
    optimizer settings, sampling, early stopping, validation split, tolerance, init, warm start, seed).

    Attributes: ``layers_``, ``classes_``, ``image_shape_`` [C, H, W], ``n_features_in_``,
    ``out_activation_``, ``loss_curve_``, ``loss_history_``, ``validation_loss_curve_``, ``n_iter_``,
    ``best_epoch_``, ``best_validation_loss_`` (see MLP).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        **NETWORK_CONSTRAINTS,
        "conv_channels": (None, IntSequence(1)),
        "kernel_size": Interval(int, 1, None),
        "conv_stride": Interval(int, 1, None),
        "padding": Interval(int, 0, None),
        "pool": Options(set(_POOLS)),
        "pool_size": Interval(int, 1, None),
        "hidden_layer_sizes": (None, IntSequence(1)),
        "activation": Options(set(ACTIVATIONS)),
    }

    def __init__(
        self,
        image_shape=None,
        conv_channels=None,
        kernel_size=3,
        conv_stride=1,
        padding=1,
        pool="max",
        pool_size=2,
        hidden_layer_sizes=None,
        activation="relu",
        solver="adam",
        learning_rate_init=0.001,
        lr_schedule="constant",
        lr_decay=None,
        batch_size=None,
        max_iter=100,
        alpha=0.0001,
        dropout=0.0,
        momentum=0.9,
        beta_1=0.9,
        beta_2=0.999,
        rho=0.9,
        epsilon=1e-8,
        sampling="shuffle",
        early_stopping=False,
        validation_fraction=None,
        n_iter_no_change=10,
        tol=0.0001,
        init="auto",
        normalization=None,
        warm_start=False,
        random_state=None,
    ):
        self.image_shape = image_shape
        self.conv_channels = conv_channels
        self.kernel_size = kernel_size
        self.conv_stride = conv_stride
        self.padding = padding
        self.pool = pool
        self.pool_size = pool_size
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.learning_rate_init = learning_rate_init
        self.lr_schedule = lr_schedule
        self.lr_decay = lr_decay
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.alpha = alpha
        self.dropout = dropout
        self.momentum = momentum
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.rho = rho
        self.epsilon = epsilon
        self.sampling = sampling
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.init = init
        self.normalization = normalization
        self.warm_start = warm_start
        self.random_state = random_state

    def _check_architecture(self):
        if self.activation == "maxout":
            raise ValueError("activation='maxout' is only available in the mlp model")
        self._validate_params()
        channels = [16] if self.conv_channels is None else check_layer_sizes(self.conv_channels, "conv_channels")
        hidden = [64] if self.hidden_layer_sizes is None else check_layer_sizes(self.hidden_layer_sizes)
        return channels, hidden

    def _build_layers(self, n_features: int, n_outputs: int, rng):
        channels, hidden = self._check_architecture()
        init = resolve_init(self.init, self.activation)
        shape = tuple(int(s) for s in self.image_shape_)
        layers, out_shape = [Reshape(list(shape))], shape
        norm = None if self.normalization is None else NORMALIZATIONS[self.normalization]
        k, s, p = int(self.kernel_size), int(self.conv_stride), int(self.padding)
        for filters in channels:
            h, w = out_shape[1:]
            if conv_output_size(h, k, s, p) < 1 or conv_output_size(w, k, s, p) < 1:
                raise ValueError(
                    f"a {k}x{k} kernel with padding {p} does not fit in a {h}x{w} feature map; "
                    "use fewer convolution layers, a smaller kernel or more padding"
                )
            conv = Conv2D(filters, kernel_size=k, stride=s, padding=p, init=init)
            out_shape = conv.build(out_shape, rng)
            layers.append(conv)
            if norm is not None:
                layers.append(norm())
                layers[-1].build(out_shape, rng)
            layers.append(ACTIVATIONS[self.activation]())
            if self.pool != "none":
                size = [min(int(self.pool_size), out_shape[1]), min(int(self.pool_size), out_shape[2])]
                pool = (MaxPool2D if self.pool == "max" else AvgPool2D)(pool_size=size)
                out_shape = pool.build(out_shape, rng)
                layers.append(pool)
        layers.append(Flatten())
        out_shape = (int(np.prod(out_shape)),)
        for units in hidden:
            dense = Dense(units, init=init)
            out_shape = dense.build(out_shape, rng)
            layers.append(dense)
            if norm is not None:
                layers.append(norm())
                layers[-1].build(out_shape, rng)
            layers.append(ACTIVATIONS[self.activation]())
            if self.dropout > 0:
                layers.append(Dropout(float(self.dropout)))
        out = Dense(n_outputs, init="glorot_uniform")
        out.build(out_shape, rng)
        layers.append(out)
        return layers

    def fit(self, X, y):
        """Train on flattened images ``X`` (n, C*H*W) and labels ``y``; returns ``self``."""
        self._check_architecture()
        X, y = check_X_y(X, y, estimator=self)
        self.image_shape_ = list(image_shape_for(self.image_shape, X.shape[1]))
        self.classes_ = check_classification_targets(y)
        codes = np.searchsorted(self.classes_, y)
        if self.classes_.size == 2:
            output, n_outputs, T = "logistic", 1, codes.astype(np.float64)[:, None]
        else:
            output, n_outputs, T = "softmax", int(self.classes_.size), codes
        self.n_features_in_ = X.shape[1]
        self.n_outputs_ = n_outputs
        self.out_activation_ = output
        self._train(X, T, output, n_outputs, codes)
        return self

    def decision_function(self, X):
        """Logits (n, n_classes), or (n,) for two classes."""
        Z = self._forward_eval(X)
        return Z[:, 0] if Z.shape[1] == 1 else Z

    def predict_proba(self, X):
        Z = self._forward_eval(X)
        if self.out_activation_ == "logistic":
            p = expit(Z[:, 0])
            return np.column_stack([1.0 - p, p])
        return softmax(Z)

    def predict(self, X):
        Z = self._forward_eval(X)
        idx = (Z[:, 0] > 0).astype(int) if Z.shape[1] == 1 else np.argmax(Z, axis=1)
        return self.classes_[idx]
