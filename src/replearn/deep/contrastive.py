"""SimCLR-style contrastive representation learning on small images (Chen et al. 2020; CS229 notes
§14.2, seed 000 L5168-5186).

Each step draws two random augmentations ``x_hat``, ``x_tilde`` of every image in a mini-batch,
encodes them with ``phi`` (an MLP; the representation), maps them through a projection head ``g``
(one hidden layer), and minimizes the NT-Xent loss (:func:`~replearn.deep.losses.nt_xent`): two
views of the same image are a positive pair, the other ``2B - 2`` views are negatives. CS229's loss
(L5176-5186) is the same idea with raw inner products and one direction; SimCLR's cosine
similarity, temperature and projection head are what make it work in practice (the head is
discarded; the representation is ``phi(x)``).

Augmentations of ``side x side`` images stored as rows (8 x 8 digits; pixel values in [0, 1]):
a random translation of up to ``max_shift`` pixels in each direction (zero fill), independent
pixel dropout with probability ``drop_prob``, and Gaussian noise of standard deviation ``noise_std``.

Evaluation (:func:`linear_probe_accuracy`): a multinomial logistic regression
(:class:`~replearn.models.linear.softmax.SoftmaxRegression`) trained on frozen representations of
labelled training images and scored on test images -- the standard linear-probe protocol.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Interval, Options
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features, check_random_state
from .layers import ACTIVATIONS, mlp
from .losses import nt_xent
from .training import train_epochs

__all__ = ["augment_images", "SimCLR", "linear_probe_accuracy"]


def augment_images(
    X: np.ndarray,
    rng: np.random.Generator,
    side: int,
    max_shift: int = 1,
    drop_prob: float = 0.2,
    noise_std: float = 0.1,
) -> np.ndarray:
    """One random augmentation of each row of ``X`` (flattened ``side x side`` images)."""
    n = X.shape[0]
    imgs = X.reshape(n, side, side)
    out = np.zeros_like(imgs)
    shifts = rng.integers(-max_shift, max_shift + 1, size=(n, 2))
    for dy in range(-max_shift, max_shift + 1):
        for dx in range(-max_shift, max_shift + 1):
            rows = np.flatnonzero((shifts[:, 0] == dy) & (shifts[:, 1] == dx))
            if rows.size == 0:
                continue
            src = imgs[rows]
            ys, yd = (slice(0, side - dy), slice(dy, side)) if dy >= 0 else (slice(-dy, side), slice(0, side + dy))
            xs, xd = (slice(0, side - dx), slice(dx, side)) if dx >= 0 else (slice(-dx, side), slice(0, side + dx))
            out[rows, yd, xd] = src[:, ys, xs]
    out = out.reshape(n, -1)
    if drop_prob > 0:
        out = out * (rng.random(out.shape) >= drop_prob)
    if noise_std > 0:
        out = out + noise_std * rng.normal(size=out.shape)
    return out


class SimCLR(TransformerMixin, BaseEstimator):
    """Contrastive encoder for square images stored as rows.

    Parameters
    ----------
    n_components : int, default 32
        Representation size (output of the encoder).
    hidden_layer_sizes : tuple of int, default (128,)
        Encoder hidden widths.
    projection_dim : int, default 16
        Output size of the projection head (one hidden layer of ``n_components`` units).
    temperature : float, default 0.2
    activation : str, default "relu"
    batchnorm : bool, default True
        Batch normalization in the encoder's hidden layers (SimCLR's encoders use it).
    max_shift, drop_prob, noise_std : int, float, float, default 1, 0.3, 0.1
        Augmentation strengths.
    learning_rate, batch_size, max_iter (epochs), random_state

    Attributes
    ----------
    encoder_, head_ : Sequential
    loss_history_ : list of float
        Mean NT-Xent loss of each epoch.
    """

    _constraints = {
        "n_components": Interval(int, 1, None),
        "projection_dim": Interval(int, 1, None),
        "temperature": Interval(float, 0.0, None, closed="neither"),
        "activation": Options(set(ACTIVATIONS)),
        "max_shift": Interval(int, 0, None),
        "drop_prob": Interval(float, 0.0, 1.0, closed="left"),
        "noise_std": Interval(float, 0.0, None),
        "batch_size": Interval(int, 2, None),
    }

    def __init__(
        self,
        n_components=32,
        hidden_layer_sizes=(128,),
        projection_dim=16,
        temperature=0.2,
        activation="relu",
        batchnorm=True,
        max_shift=1,
        drop_prob=0.3,
        noise_std=0.1,
        learning_rate=2e-3,
        batch_size=128,
        max_iter=30,
        random_state=None,
    ):
        self.n_components = n_components
        self.hidden_layer_sizes = hidden_layer_sizes
        self.projection_dim = projection_dim
        self.temperature = temperature
        self.activation = activation
        self.batchnorm = batchnorm
        self.max_shift = max_shift
        self.drop_prob = drop_prob
        self.noise_std = noise_std
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the encoder from the unlabeled rows of ``X`` (``y`` is ignored)."""
        self._validate_params()
        X = check_array(X)
        side = int(round(np.sqrt(X.shape[1])))
        if side * side != X.shape[1]:
            raise ValueError(f"X must hold square images as rows; {X.shape[1]} features is not a square")
        rng = check_random_state(self.random_state)
        k = int(self.n_components)
        self.encoder_ = mlp(
            (X.shape[1],) + tuple(self.hidden_layer_sizes) + (k,), rng, self.activation, batchnorm=self.batchnorm
        )
        self.head_ = mlp((k, k, int(self.projection_dim)), rng, "relu")
        self.n_features_in_ = X.shape[1]
        aug = dict(
            side=side, max_shift=int(self.max_shift), drop_prob=float(self.drop_prob), noise_std=float(self.noise_std)
        )

        def batch_loss(idx):
            if idx.size < 2:  # a lone leftover example has no negatives: borrow one
                idx = np.concatenate([idx, rng.integers(0, X.shape[0], size=1)])
            xb = X[idx]
            z1 = self.head_(self.encoder_(augment_images(xb, rng, **aug)))
            z2 = self.head_(self.encoder_(augment_images(xb, rng, **aug)))
            return nt_xent(z1, z2, temperature=float(self.temperature))

        self.encoder_.train()
        self.loss_history_ = train_epochs(
            self.encoder_.parameters() + self.head_.parameters(),
            batch_loss,
            X.shape[0],
            batch_size=self.batch_size,
            max_iter=self.max_iter,
            learning_rate=self.learning_rate,
            rng=rng,
            name="SimCLR",
        )
        self.encoder_.eval()
        self.n_iter_ = len(self.loss_history_)
        return self

    def transform(self, X) -> np.ndarray:
        """Representations ``phi(x)`` (batch normalization in evaluation mode)."""
        check_is_fitted(self, "encoder_")
        X = check_array(X)
        check_n_features(self, X)
        return self.encoder_(X).data


def linear_probe_accuracy(Z_train, y_train, Z_test, y_test, C: float = 1.0) -> float:
    """Test accuracy of a softmax regression fitted on standardized frozen features."""
    from ..models.linear.softmax import SoftmaxRegression

    Z_train, Z_test = check_array(Z_train, name="Z_train"), check_array(Z_test, name="Z_test")
    mu, sd = Z_train.mean(axis=0), Z_train.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    clf = SoftmaxRegression(C=C).fit((Z_train - mu) / sd, y_train)
    return float(clf.score((Z_test - mu) / sd, y_test))
