"""Generative adversarial network with the non-saturating generator loss (Goodfellow et al. 2014).

CS480/680 §13 (seed 003 L1236-1346) derives the GAN from the variational bound of an f-divergence:
with the Jensen-Shannon ``f`` and the reparameterization ``S <- log S``, the inner problem is
``max_phi sum_i log D(x_i) + sum_j log(1 - D(G(z_j)))`` -- logistic regression of real (label 1)
against generated (label 0) points (L1320-1346). Here ``D = sigmoid(d_phi(x))`` and
``G = g_theta(z)``, ``z ~ N(0, I)`` (a push-forward of noise, Thm 13.1). Each training step:

1. discriminator: one Adam step on
   ``L_D = mean softplus(-d(x)) + mean softplus(d(G(z)))`` (the logistic loss of both classes);
2. generator: one Adam step on the *non-saturating* loss ``L_G = mean softplus(-d(G(z)))``
   ``= -mean log D(G(z))`` instead of minimizing ``log(1 - D(G(z)))``, whose gradient vanishes
   while ``D`` rejects the samples confidently (Goodfellow et al. §3).

Adam uses ``beta_1 = 0.5`` (Radford et al. 2016). The text's typos (the JS divergence written with
``q`` twice, ``(2 pi)^{+d/2}`` in the Gaussian density, catalogue B1 §13) do not affect this loss.
``loss_history_`` holds ``(L_D, L_G)`` per epoch; GAN losses do not measure sample quality, so the
tests use :func:`~replearn.deep.toy_data.mode_coverage` on generated points instead.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Interval, IntSequence, Options
from ..autodiff import Adam, ops
from ..base import BaseEstimator
from ..validation import check_array, check_is_fitted, check_random_state
from .layers import ACTIVATIONS, hidden_sizes, mlp
from .training import check_finite_loss

__all__ = ["GAN"]


class GAN(BaseEstimator):
    """Generator and discriminator MLPs trained adversarially on the rows of ``X``.

    Parameters
    ----------
    n_components : int, default 2
        Noise dimension.
    generator_hidden, discriminator_hidden : tuple of int, default (64, 64)
    activation : str, default "relu"
    learning_rate : float, default 1e-3
        For both players.
    batch_size : int, default 128
    max_iter : int, default 100
        Epochs over ``X`` (one discriminator and one generator step per batch).
    random_state : int, Generator or None

    Attributes
    ----------
    generator_, discriminator_ : Sequential
    loss_history_ : list of (float, float)
    """

    _constraints = {
        "n_components": Interval(int, 1, None),
        "generator_hidden": IntSequence(1, None),
        "discriminator_hidden": IntSequence(1, None),
        "activation": Options(set(ACTIVATIONS)),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
    }

    def __init__(
        self,
        n_components=2,
        generator_hidden=(64, 64),
        discriminator_hidden=(64, 64),
        activation="relu",
        learning_rate=1e-3,
        batch_size=128,
        max_iter=100,
        random_state=None,
    ):
        self.n_components = n_components
        self.generator_hidden = generator_hidden
        self.discriminator_hidden = discriminator_hidden
        self.activation = activation
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        self._validate_params()
        X = check_array(X)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        k = int(self.n_components)
        G = mlp((k,) + hidden_sizes(self.generator_hidden) + (d,), rng, self.activation)
        D = mlp((d,) + hidden_sizes(self.discriminator_hidden) + (1,), rng, self.activation)
        opt_g = Adam(G.parameters(), lr=self.learning_rate, betas=(0.5, 0.999))
        opt_d = Adam(D.parameters(), lr=self.learning_rate, betas=(0.5, 0.999))
        B = min(int(self.batch_size), n)
        history = []
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            for epoch in range(int(self.max_iter)):
                perm = rng.permutation(n)
                ld_sum = lg_sum = 0.0
                steps = 0
                for start in range(0, n, B):
                    xb = X[perm[start : start + B]]
                    b = xb.shape[0]
                    fake = G(rng.normal(size=(b, k))).data  # a constant for the discriminator step
                    opt_d.zero_grad()
                    loss_d = ops.softplus(-D(xb)).mean() + ops.softplus(D(fake)).mean()
                    loss_d.backward()
                    opt_d.step()
                    opt_g.zero_grad()
                    loss_g = ops.softplus(-D(G(rng.normal(size=(b, k))))).mean()
                    loss_g.backward()
                    opt_g.step()  # the discriminator's gradients from this pass are discarded
                    ld_sum += loss_d.item()
                    lg_sum += loss_g.item()
                    steps += 1
                check_finite_loss(ld_sum + lg_sum, f"GAN, epoch {epoch}")
                history.append((ld_sum / steps, lg_sum / steps))
        self.generator_, self.discriminator_ = G, D
        self.n_features_in_ = d
        self.loss_history_ = history
        self.n_iter_ = len(history)
        return self

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """``n`` generated points ``G(z)``, ``z ~ N(0, I)``."""
        check_is_fitted(self, "generator_")
        rng = check_random_state(random_state)
        return self.generator_(rng.normal(size=(int(n), int(self.n_components)))).data

    def decision_function(self, X) -> np.ndarray:
        """The discriminator's logit ``d(x)`` (positive: judged real)."""
        check_is_fitted(self, "discriminator_")
        return self.discriminator_(check_array(X)).data[:, 0]
