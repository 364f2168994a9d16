"""SimCLR: augmentations, and a linear probe on the learned representation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from replearn.deep import SimCLR, augment_images, linear_probe_accuracy, mlp

DIGITS = Path(__file__).resolve().parents[2] / "data" / "uci" / "digits.csv"


def test_augmentation_shifts_without_wrapping():
    img = np.zeros((1, 16))
    img[0, 0] = 1.0  # top-left pixel of a 4 x 4 image
    rng = np.random.default_rng(0)
    outs = [augment_images(img, rng, side=4, max_shift=1, drop_prob=0.0, noise_std=0.0) for _ in range(40)]
    positions = {int(np.flatnonzero(o[0])[0]) for o in outs if o.any()}
    assert positions <= {0, 1, 4, 5}  # moved right/down by at most one; shifts off the edge drop the pixel
    assert len(positions) > 1
    assert all(o.sum() <= 1 for o in outs)


def test_contrastive_representation_beats_a_random_encoder_in_a_linear_probe():
    D = np.loadtxt(DIGITS, delimiter=",", skiprows=1)
    X, y = D[:, :64] / 16.0, D[:, 64].astype(int)
    perm = np.random.default_rng(0).permutation(len(X))
    tr, te = perm[:1000], perm[1000:]
    model = SimCLR(max_iter=30, random_state=0).fit(X[tr])
    acc = linear_probe_accuracy(model.transform(X[tr]), y[tr], model.transform(X[te]), y[te], C=0.1)
    random_encoder = mlp((64, 128, 32), np.random.default_rng(0), "relu", batchnorm=True).eval()
    base = linear_probe_accuracy(random_encoder(X[tr]).data, y[tr], random_encoder(X[te]).data, y[te], C=0.1)
    assert acc >= 0.91
    assert acc > base + 0.015
    assert model.loss_history_[-1] < model.loss_history_[0]
