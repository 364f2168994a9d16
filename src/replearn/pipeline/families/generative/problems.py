"""The ``generative`` family: density models compared on held-out data (issue 14, the ``generative`` preset).

Problems (a dataset config ``{source: generative, data: ...}``):

* ``data: digits`` -- the shipped 8x8 UCI digits (``data/uci/digits.csv``, checked against its sha256 by
  :func:`replearn.pipeline.data.load_dataset`), **uniformly dequantized**: pixel counts ``c in {0..16}``
  become ``x = (c + u) / 17`` with ``u ~ U[0, 1)`` drawn once from the problem's seed (Theis, van den Oord
  and Bethge 2016). Every model is then a density on ``[0, 1)^64`` and their log-likelihoods are comparable
  (a continuous density on the dequantized data bounds the discrete likelihood of the counts:
  ``log P(c) >= E_u log p((c + u) / 17) - 64 log 17``); no pixel is constant, so factor analysis's noise
  variances stay positive.
* ``data: gaussian_mixture_2d`` -- the ring of ``n_modes`` isotropic Gaussians of
  :func:`replearn.deep.make_gaussian_ring`, drawn from the seed; its exact density is known, so
  :func:`describe` reports the held-out NLL of the truth (the floor every model is measured against).

``build`` holds out ``heldout`` of the examples (a permutation drawn from the seed).

Units (``run(hp, problem, seed)``; ``seed`` drives initialization, mini-batches and sampling):

* ``vae``: :class:`replearn.deep.VAE` with a Gaussian decoder (learned ``sigma``) -- CS229 §11.5;
  held-out NLL by importance sampling with the encoder as proposal (``n_importance`` draws; Burda et al.'s
  bound, so in expectation an *upper* bound on the true NLL); the held-out negative ELBO goes to ``extra``.
* ``ppca``: probabilistic PCA in closed form (Tipping and Bishop 1999) from replearn's
  :class:`~replearn.models.PCA`: ``x ~ N(mu, U_k diag(lambda_k) U_k^T + sigma^2 (I - U_k U_k^T))`` with
  ``lambda`` the eigenvalues of the ``1/n`` covariance and ``sigma^2`` the mean of the discarded ones.
* ``fa_density``: replearn's :class:`~replearn.models.FactorAnalysis` (diagonal noise), exact
  ``log N(x; mu, Lambda Lambda^T + Psi)``.
* ``gan``: :class:`replearn.deep.GAN` (non-saturating loss); it has no likelihood (``heldout_nll`` is
  ``None``) and is compared through its samples.
* ``flow``: :class:`replearn.deep.RealNVP`, exact log-likelihood.
* ``kde``: a Gaussian kernel density estimate of the training data (bandwidth by Scott's rule unless
  given) -- the nonparametric reference.

Metrics (all lower is better):

* ``heldout_nll``: ``-mean log p(x)`` over the held-out examples, nats per example (``None`` for the GAN);
* ``sample_kde_nll``: the held-out NLL under a Gaussian KDE (Scott's bandwidth) of ``n_generated`` samples
  of the model -- defined for every unit, the GAN included; a measure of the samples, not of the model's
  own density;
* ``sample_mmd``: the unbiased squared maximum mean discrepancy between 500 model samples and (at most)
  500 held-out examples, Gaussian kernel with the median-distance bandwidth of the held-out data
  (Gretton et al. 2012);
* ``reconstruction_error``: mean squared error per example of reconstructing held-out examples through
  the latent code (VAE: decoder of the encoder mean; PPCA: projection; FA: ``mu + Lambda E[z|x]``); ``None``
  for units without an encoder.

``Outcome.curve`` is the training loss per epoch (VAE: negative ELBO; flow: NLL; GAN: discriminator
loss, the generator's in ``extra``) or per iteration (FA: negative log-likelihood); ``Outcome.extra``
carries a few generated samples (16 images as noise-free means, or 500 points), which the report draws
(``replearn.pipeline.families.generative.report.figures``; this module holds no drawing code).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ....exceptions import ConfigError
from ...schema import Choice, Optional_, Range
from ...seeding import derive_seed
from .. import check_dataset, load

NAME = "generative"
TASK = "density"
METRICS = {"heldout_nll": False, "sample_kde_nll": False, "sample_mmd": False, "reconstruction_error": False}
PRIMARY = "heldout_nll"
DATA = ("digits", "gaussian_mixture_2d")
DATASET_KEYS = {  # the family's own keys; the pipeline adds ``source`` and ``models``
    "data": Choice(DATA, "generative data"),
    "heldout": Optional_(Range(float, 0.05, 0.9, why="share of the examples held out for scoring")),
    "n_samples": Optional_(Range(int, 100, 100_000, why="examples drawn (mixture) or kept (digits)")),
    "n_modes": Optional_(Range(int, 1, 64, why="mixture components on the ring")),
    "radius": Optional_(Range(float, 0.0, 100.0, open_lo=True, why="radius of the ring of means")),
    "std": Optional_(Range(float, 0.0, 10.0, open_lo=True, why="standard deviation of each component")),
}
_MIXTURE_ONLY = ("n_modes", "radius", "std")
_DIGITS_LEVELS = 17  # pixel counts 0..16

N_POINTS = 500  # generated 2-D points kept for the pictures (and for the MMD)


@dataclasses.dataclass(frozen=True)
class DensityProblem:
    """Training and held-out examples of one density-estimation problem."""

    data: str
    X_train: np.ndarray
    X_test: np.ndarray
    image_shape: tuple[int, int] | None
    mixture: dict | None  # n_modes, radius, std of the true ring mixture
    mmd_bandwidth: float


# -- problems ------------------------------------------------------------------------------------------------
def data_root():
    """The project whose ``data/`` a problem reads: the one around the working directory (as the stages run),
    else the source checkout this module lives in (a test run from elsewhere)."""
    from pathlib import Path

    from ...params import project_root

    try:
        return project_root()
    except ConfigError:
        return Path(__file__).resolve().parents[4]


def check_spec(spec: dict) -> list[str]:
    """Conditions across keys (the pipeline's config check calls this after checking each key)."""
    if spec.get("data") != "digits":
        return []
    return [f"{k}: only a gaussian_mixture_2d problem takes {k!r}, not digits" for k in _MIXTURE_ONLY if k in spec]


def build(spec: dict, seed: int) -> DensityProblem:
    """The problem a dataset config describes (deterministic in ``spec`` and ``seed``)."""
    check_dataset(load(NAME), spec)
    heldout = float(spec.get("heldout", 0.3))
    if spec["data"] == "digits":
        from ...data import load_dataset

        counts = load_dataset("digits", {"source": "shipped"}, seed=seed, root=data_root()).X
        n = int(spec["n_samples"]) if "n_samples" in spec else int(counts.shape[0])
        if n > counts.shape[0]:
            raise ConfigError(f"dataset.n_samples: the digits have {counts.shape[0]} images, got n_samples={n}")
        u = np.random.default_rng(derive_seed(seed, "dequantize")).uniform(size=counts.shape)
        X = (counts + u) / _DIGITS_LEVELS
        image_shape: tuple[int, int] | None = (8, 8)
        mixture = None
    else:
        from ....deep import make_gaussian_ring

        n = int(spec.get("n_samples", 2000))
        n_modes, radius, std = int(spec.get("n_modes", 8)), float(spec.get("radius", 2.0)), float(spec.get("std", 0.2))
        mixture = {"n_modes": n_modes, "radius": radius, "std": std}
        X, _ = make_gaussian_ring(n, n_modes, radius, std, random_state=derive_seed(seed, "mixture"))
        image_shape = None
    order = np.random.default_rng(derive_seed(seed, "split")).permutation(X.shape[0])[:n]
    n_test = max(1, int(round(heldout * n)))
    if n - n_test < 2:
        raise ConfigError(f"dataset.heldout={heldout} leaves {n - n_test} training examples of {n}; need at least 2")
    X_test, X_train = X[order[:n_test]], X[order[n_test:]]
    return DensityProblem(spec["data"], X_train, X_test, image_shape, mixture, _median_distance(X_test[:N_POINTS]))


def describe(problem: DensityProblem) -> dict:
    """JSON-able facts for meta.json and the report (sizes; for the mixture its parameters and true held-out NLL)."""
    out: dict[str, Any] = {
        "data": problem.data,
        "n_train": int(problem.X_train.shape[0]),
        "n_test": int(problem.X_test.shape[0]),
        "n_features": int(problem.X_train.shape[1]),
        "image_shape": list(problem.image_shape) if problem.image_shape else None,
        "mmd_bandwidth": round(float(problem.mmd_bandwidth), 12),
    }
    if problem.data == "digits":
        out["preprocessing"] = "uniform dequantization: x = (count + u) / 17, u ~ U[0, 1)"
        # exact IEEE arithmetic on the shipped counts: a fingerprint that changes (and so reruns the stages after
        # prepare, whose meta.json holds it) exactly when the problem does
        out["digest"] = _digest(problem.X_train, problem.X_test)
    if problem.mixture is not None:
        from ....deep import gaussian_ring_log_density

        out["mixture"] = dict(problem.mixture)
        out["true_heldout_nll"] = round(float(-gaussian_ring_log_density(problem.X_test, **problem.mixture).mean()), 12)
    return out


def _digest(*arrays: np.ndarray) -> str:
    import hashlib

    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


# -- sample-based measures -----------------------------------------------------------------------------------
def _sq_dists(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.maximum(d, 0.0)


def _median_distance(X: np.ndarray) -> float:
    d = np.sqrt(_sq_dists(X, X)[np.triu_indices(X.shape[0], 1)])
    med = float(np.median(d)) if d.size else 1.0
    return med if med > 0 else 1.0
