"""Losses as differentiable graph functions (all return a scalar :class:`~replearn.autodiff.Tensor`).

* :func:`cross_entropy`: mean of ``-log softmax(logits)[y]`` over the (unmasked) positions -- the
  softmax regression / language-model loss (CS229 notes §3.2.3 and §14.3, seed 000 L839-961 and
  L5188-5231; CS480/680 §11 "-<Y, log Y_hat>", seed 003 L1177).
* :func:`binary_cross_entropy_with_logits`: ``softplus(s) - y s`` summed per example, i.e.
  ``-[y log sigmoid(s) + (1 - y) log(1 - sigmoid(s))]`` without overflow (Bernoulli decoder, GAN).
* :func:`gaussian_kl`: ``KL(N(mu, diag(exp(logvar))) || N(0, I)) =
  1/2 sum(exp(logvar) + mu^2 - 1 - logvar)`` per example (Kingma and Welling 2014, App. B).
* :func:`gaussian_log_likelihood`: ``log N(x; mean, sigma^2 I)`` per example.
* :func:`nt_xent`: SimCLR's normalized-temperature cross-entropy (Chen et al. 2020), the CS229
  contrastive loss (§14.2, seed 000 L5168-5186) with cosine similarity, a temperature and both
  views as anchors: for ``2B`` projections ``u`` (rows normalized), ``s_ij = u_i^T u_j / tau``,
  ``l_i = -log[exp(s_{i,p(i)}) / sum_{k != i} exp(s_ik)]`` where ``p(i)`` is the other view of the
  same example; the loss is the mean of ``l_i``. CS229's printed form uses the raw inner product,
  one direction, and the positive pair plus the other examples' *second* views in the denominator;
  ``cosine=False, temperature=1`` gives the raw inner product.
"""

from __future__ import annotations

import numpy as np

from ..autodiff import Tensor, ops
from ..autodiff.tensor import as_tensor

__all__ = [
    "cross_entropy",
    "binary_cross_entropy_with_logits",
    "gaussian_kl",
    "gaussian_log_likelihood",
    "nt_xent",
    "mse",
]

LOG_2PI = float(np.log(2.0 * np.pi))


def cross_entropy(logits, targets, mask=None) -> Tensor:
    """Mean negative log-probability of integer ``targets`` under ``softmax(logits)`` along the last axis.

    ``logits`` has shape ``(..., V)``, ``targets`` the leading shape ``(...)``; positions where the
    optional boolean ``mask`` is False are left out of the mean.
    """
    logits = as_tensor(logits)
    targets = np.asarray(targets, dtype=np.intp)
    if targets.shape != logits.shape[:-1]:
        raise ValueError(f"targets have shape {targets.shape}, expected {logits.shape[:-1]}")
    logp = ops.log_softmax(logits, axis=-1)
    flat = logp.reshape(-1, logits.shape[-1])
    t = targets.reshape(-1)
    picked = flat[np.arange(t.size), t]
    if mask is None:
        return -picked.mean()
    m = np.asarray(mask, dtype=bool).reshape(-1)
    if not m.any():
        raise ValueError("the mask leaves no position to score")
    return -(picked * m.astype(float)).sum() / float(m.sum())


def binary_cross_entropy_with_logits(logits, targets) -> Tensor:
    """Per-example sum over the last axis of the Bernoulli negative log-likelihood (shape ``(n,)``)."""
    logits = as_tensor(logits)
    y = np.asarray(targets.data if isinstance(targets, Tensor) else targets, dtype=float)
    return (ops.softplus(logits) - logits * y).sum(axis=-1)


def gaussian_kl(mu, logvar) -> Tensor:
    """Per-example ``KL(N(mu, diag exp(logvar)) || N(0, I))`` (shape ``(n,)``)."""
    mu, logvar = as_tensor(mu), as_tensor(logvar)
    return 0.5 * (ops.exp(logvar) + ops.square(mu) - 1.0 - logvar).sum(axis=-1)


def gaussian_log_likelihood(x, mean, log_sigma) -> Tensor:
    """Per-example ``log N(x; mean, sigma^2 I)`` with ``log_sigma`` a scalar or per-feature tensor."""
    x, mean, log_sigma = as_tensor(x), as_tensor(mean), as_tensor(log_sigma)
    z = (x - mean) / ops.exp(log_sigma)
    per = -0.5 * ops.square(z) - log_sigma - 0.5 * LOG_2PI
    return per.sum(axis=-1)


def mse(pred, target) -> Tensor:
    """Mean squared error over every entry."""
    return ops.square(as_tensor(pred) - as_tensor(target)).mean()


def nt_xent(z1, z2, temperature: float = 0.5, cosine: bool = True) -> Tensor:
    """SimCLR's NT-Xent loss for two views ``z1``, ``z2`` of shape ``(B, k)`` (row i of each is a positive pair)."""
    z1, z2 = as_tensor(z1), as_tensor(z2)
    if z1.shape != z2.shape or z1.ndim != 2:
        raise ValueError(f"the two views must have the same 2-D shape, got {z1.shape} and {z2.shape}")
    b = z1.shape[0]
    if b < 2:
        raise ValueError("NT-Xent needs a batch of at least 2 pairs (the other pairs are the negatives)")
    z = ops.concat([z1, z2], axis=0)
    if cosine:
        z = z / ops.sqrt(ops.square(z).sum(axis=1, keepdims=True) + 1e-12)
    sim = (z @ z.T) / float(temperature)
    eye = np.eye(2 * b, dtype=bool)
    sim = ops.where(eye, -1e9, sim)  # a view is never its own negative
    positive = np.concatenate([np.arange(b, 2 * b), np.arange(b)])
    return cross_entropy(sim, positive)
