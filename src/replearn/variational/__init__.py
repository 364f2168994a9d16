"""Variational inference: mean-field coordinate ascent (CAVI) for a Bayesian Gaussian mixture.

The variational autoencoder, which learns an amortized Gaussian posterior by the same ELBO, is
:class:`replearn.deep.VAE`.
"""

from .mean_field_gmm import MeanFieldGaussianMixture

__all__ = ["MeanFieldGaussianMixture"]
