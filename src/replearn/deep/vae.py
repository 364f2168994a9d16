"""Variational autoencoder (Kingma and Welling 2014; CS229 notes §11.5, seed 000 L4713-4791).

Model: ``z ~ N(0, I_k)``, ``x | z ~ p_theta(x | z)`` with a decoder network ``g(z; theta)``:

* ``likelihood="bernoulli"``: ``x_j | z ~ Bernoulli(sigmoid(g_j(z)))`` for ``x`` in [0, 1]
  (binarized digits);
* ``likelihood="gaussian"``: ``x | z ~ N(g(z), sigma^2 I)`` -- the notes' decoder (L4730) -- with
  ``sigma`` learned (``decoder_variance="learned"``) or fixed to ``sqrt(decoder_variance)``.

Encoder (the notes' ``Q_i = N(q(x; phi), diag(v(x; psi))^2)``, L4745-4760): one network outputs the
mean ``mu(x)`` and the log-variance ``log s^2(x)`` of a diagonal Gaussian. Objective: the ELBO
(CS229 eq. 11.15, L4607-4630)::

    ELBO(x) = E_{q(z|x)}[log p(x | z)] - KL(q(z | x) || N(0, I))  <=  log p(x)

with the expectation estimated by the reparameterization ``z = mu + s * xi``, ``xi ~ N(0, I)``
(L4770-4791; ``n_samples`` draws per example, the notes' "often 1 sample") and the KL in closed
form. Training maximizes the mean ELBO with Adam (the notes' gradient ascent, L4762).

``score_samples(X, n_importance=S)`` estimates ``log p(x)`` by importance sampling with the
encoder as proposal, ``log (1/S) sum_s p(x, z_s) / q(z_s | x)`` (Burda et al. 2016's bound, which
is >= the ELBO in expectation and -> log p(x) as S grows); ``elbo(X)`` returns the per-example ELBO.
``transform(X)`` gives the encoder means (a k-dimensional embedding). The ELBO <= log-likelihood
property is tested on a linear-Gaussian model, where ``log p(x)`` has a closed form.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Boolean, Interval, IntSequence, Options
from ..autodiff import Tensor, ops
from ..base import BaseEstimator, TransformerMixin
from ..validation import check_array, check_is_fitted, check_n_features, check_random_state
from .layers import ACTIVATIONS, hidden_sizes, mlp
from .losses import LOG_2PI, binary_cross_entropy_with_logits, gaussian_kl, gaussian_log_likelihood
from .training import train_epochs

__all__ = ["VAE"]


class VAE(TransformerMixin, BaseEstimator):
    """Gaussian-encoder VAE with a Bernoulli or Gaussian decoder.

    Parameters
    ----------
    n_components : int, default 2
        Latent dimension ``k``.
    hidden_layer_sizes : tuple of int, default (64,)
        Encoder widths; the decoder uses them in reverse. ``()`` makes both maps affine.
    activation : str, default "elu"
        One of ``replearn.deep.layers.ACTIVATIONS``.
    likelihood : {"bernoulli", "gaussian"}, default "bernoulli"
    decoder_variance : "learned" or float > 0, default "learned"
        ``sigma^2`` of the Gaussian decoder (ignored for Bernoulli).
    batchnorm : bool, default False
        Batch normalization after each hidden linear layer (encoder and decoder).
    n_samples : int, default 1
        Reparameterized draws per example in each training step.
    learning_rate, batch_size, max_iter (epochs), random_state

    Attributes
    ----------
    encoder_, decoder_ : Sequential
    log_sigma_ : Tensor or None
        ``log sigma`` of the Gaussian decoder.
    loss_history_ : list of float
        Mean negative ELBO (nats per example) of each epoch.
    """

    #: the valid values, declared once: read by fit (_validate_params), by the generative family's vae unit
    #: (pipeline/families/generative/units.py takes its table from here) and so by the configuration check
    _constraints = {
        "n_components": Interval(int, 1, None),
        "hidden_layer_sizes": IntSequence(1, None),
        "activation": Options(set(ACTIVATIONS)),
        "likelihood": Options({"bernoulli", "gaussian"}),
        "decoder_variance": (Options({"learned"}), Interval(float, 0.0, None, closed="neither")),
        "batchnorm": Boolean(),
        "n_samples": Interval(int, 1, None),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
    }

    def __init__(
        self,
        n_components=2,
        hidden_layer_sizes=(64,),
        activation="elu",
        likelihood="bernoulli",
        decoder_variance="learned",
        batchnorm=False,
        n_samples=1,
        learning_rate=1e-3,
        batch_size=64,
        max_iter=50,
        random_state=None,
    ):
        self.n_components = n_components
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.likelihood = likelihood
        self.decoder_variance = decoder_variance
        self.batchnorm = batchnorm
        self.n_samples = n_samples
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.random_state = random_state

    def _check_X(self, X) -> np.ndarray:
        X = check_array(X)
        if self.likelihood == "bernoulli" and (X.min() < 0 or X.max() > 1):
            raise ValueError(
                f"a Bernoulli decoder needs X in [0, 1], got values in [{X.min()}, {X.max()}]; "
                "scale or binarize X, or use likelihood='gaussian'"
            )
        return X

    def fit(self, X, y=None):
        """Maximize the mean ELBO of the rows of ``X``; ``y`` is ignored."""
        self._validate_params()
        X = self._check_X(X)
        rng = check_random_state(self.random_state)
        d, k = X.shape[1], int(self.n_components)
        hidden = hidden_sizes(self.hidden_layer_sizes)
        self.encoder_ = mlp((d,) + hidden + (2 * k,), rng, self.activation, batchnorm=self.batchnorm)
        self.decoder_ = mlp((k,) + hidden[::-1] + (d,), rng, self.activation, batchnorm=self.batchnorm)
        self.log_sigma_ = None
        if self.likelihood == "gaussian":
            learned = self.decoder_variance == "learned"
            value = 0.0 if learned else 0.5 * np.log(float(self.decoder_variance))
            self.log_sigma_ = Tensor(np.array(value), requires_grad=learned)
        self.n_features_in_ = d
        params = self.encoder_.parameters() + self.decoder_.parameters()
        if self.log_sigma_ is not None and self.log_sigma_.requires_grad:
            params.append(self.log_sigma_)
        S = int(self.n_samples)

        def batch_loss(idx):
            xb = X[idx]
            mu, logvar = self._encode(xb)
            recon = 0.0
            for _ in range(S):
                z = mu + ops.exp(0.5 * logvar) * rng.normal(size=mu.shape)
                recon = recon + self._log_px_given_z(xb, z)
            elbo = recon / S - gaussian_kl(mu, logvar)
            return -elbo.mean()

        self.encoder_.train()
        self.decoder_.train()
        self.loss_history_ = train_epochs(
            params,
            batch_loss,
            X.shape[0],
            batch_size=self.batch_size,
            max_iter=self.max_iter,
            learning_rate=self.learning_rate,
            rng=rng,
            name="VAE",
        )
        self.encoder_.eval()
        self.decoder_.eval()
        self.n_iter_ = len(self.loss_history_)
        return self

    # -- the two networks -------------------------------------------------------------------------
    def _encode(self, X):
        h = self.encoder_(X)
        k = int(self.n_components)
        return h[:, :k], h[:, k:]

    def _log_px_given_z(self, X, z) -> Tensor:
        out = self.decoder_(z)
        if self.likelihood == "bernoulli":
            return -binary_cross_entropy_with_logits(out, X)
        return gaussian_log_likelihood(X, out, self.log_sigma_)

    def _checked(self, X) -> np.ndarray:
        check_is_fitted(self, "encoder_")
        X = self._check_X(X)
        check_n_features(self, X)
        return X

    # -- public methods ---------------------------------------------------------------------------
    def encode(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Mean and log-variance of ``q(z | x)`` for each row."""
        X = self._checked(X)
        mu, logvar = self._encode(X)
        return mu.data, logvar.data

    def transform(self, X) -> np.ndarray:
        """The encoder means ``mu(x)``."""
        return self.encode(X)[0]

    def decode(self, Z) -> np.ndarray:
        """Decoder mean: pixel probabilities (Bernoulli) or ``g(z)`` (Gaussian)."""
        check_is_fitted(self, "decoder_")
        Z = check_array(Z, name="Z")
        out = self.decoder_(Z).data
        return ops.sigmoid(out).data if self.likelihood == "bernoulli" else out

    def elbo(self, X, n_samples: int = 1, random_state=None) -> np.ndarray:
        """Per-example Monte-Carlo ELBO (``n_samples`` reparameterized draws, closed-form KL)."""
        X = self._checked(X)
        rng = check_random_state(random_state)
        mu, logvar = self._encode(X)
        recon = np.zeros(X.shape[0])
        for _ in range(int(n_samples)):
            z = mu.data + np.exp(0.5 * logvar.data) * rng.normal(size=mu.shape)
            recon += self._log_px_given_z(X, z).data
        return recon / int(n_samples) - gaussian_kl(mu, logvar).data

    def score_samples(self, X, n_importance: int = 100, random_state=None) -> np.ndarray:
        """Importance-sampling estimate of ``log p(x)`` per row (encoder as proposal)."""
        X = self._checked(X)
        rng = check_random_state(random_state)
        mu, logvar = (t.data for t in self._encode(X))
        std = np.exp(0.5 * logvar)
        logw = np.empty((int(n_importance), X.shape[0]))
        for s in range(int(n_importance)):
            eps = rng.normal(size=mu.shape)
            z = mu + std * eps
            log_prior = -0.5 * np.sum(z * z + LOG_2PI, axis=1)
            log_q = -0.5 * np.sum(eps * eps + LOG_2PI + logvar, axis=1)
            logw[s] = self._log_px_given_z(X, z).data + log_prior - log_q
        m = logw.max(axis=0)
        return m + np.log(np.mean(np.exp(logw - m), axis=0))

    def score(self, X, y=None) -> float:
        """Mean ELBO (one draw per example, fixed seed 0); higher is better."""
        return float(self.elbo(X, n_samples=1, random_state=0).mean())

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """Decoder means of ``n`` latent draws from the prior."""
        check_is_fitted(self, "decoder_")
        rng = check_random_state(random_state)
        return self.decode(rng.normal(size=(int(n), int(self.n_components))))
