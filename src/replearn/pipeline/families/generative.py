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
(``replearn.pipeline.report.family_figures.generative_figures``; this module holds no drawing code).
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ..._constraints import Interval, IntSequence, Options
from ...exceptions import ConfigError, ConvergenceWarning
from ..schema import Choice, Optional_, Range
from ..seeding import derive_seed
from . import Outcome, Unit, check_dataset, load, unit_params

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
N_IMAGES = 16  # generated digits kept for the pictures
N_POINTS = 500  # generated 2-D points kept for the pictures (and for the MMD)
N_KDE = 1000  # generated samples behind sample_kde_nll
N_DRAWS = max(N_KDE, N_POINTS, N_IMAGES)


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

    from ..params import project_root

    try:
        return project_root()
    except ConfigError:
        return Path(__file__).resolve().parents[4]


def check_spec(spec: dict) -> list[str]:
    """Conditions across keys (the pipeline's config check calls this after checking each key)."""
    if spec.get("data") != "digits":
        return []
    return [f"{k}: only a gaussian_mixture_2d problem takes {k!r}, not digits" for k in _MIXTURE_ONLY if k in spec]


def _params(unit: str, hp: dict | None) -> dict:
    """``hp`` over the defaults of this family's unit ``unit``, checked (:func:`~.unit_params`)."""
    return unit_params(UNITS, unit, hp)


def build(spec: dict, seed: int) -> DensityProblem:
    """The problem a dataset config describes (deterministic in ``spec`` and ``seed``)."""
    check_dataset(load(NAME), spec)
    heldout = float(spec.get("heldout", 0.3))
    if spec["data"] == "digits":
        from ..data import load_dataset

        counts = load_dataset("digits", {"source": "shipped"}, seed=seed, root=data_root()).X
        n = int(spec["n_samples"]) if "n_samples" in spec else int(counts.shape[0])
        if n > counts.shape[0]:
            raise ConfigError(f"dataset.n_samples: the digits have {counts.shape[0]} images, got n_samples={n}")
        u = np.random.default_rng(derive_seed(seed, "dequantize")).uniform(size=counts.shape)
        X = (counts + u) / _DIGITS_LEVELS
        image_shape: tuple[int, int] | None = (8, 8)
        mixture = None
    else:
        from ...deep import make_gaussian_ring

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
        from ...deep import gaussian_ring_log_density

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


def gaussian_kde_log_density(X: np.ndarray, centers: np.ndarray, bandwidth: float) -> np.ndarray:
    """``log (1/m) sum_j N(x; c_j, h^2 I)`` for each row of ``X`` (log-sum-exp, no underflow)."""
    d = X.shape[1]
    a = -0.5 * _sq_dists(X, centers) / bandwidth**2
    return logsumexp(a, axis=1) - np.log(centers.shape[0]) - 0.5 * d * np.log(2.0 * np.pi * bandwidth**2)


def scott_bandwidth(X: np.ndarray) -> float:
    """Scott's rule for an isotropic Gaussian kernel: ``n^(-1/(d+4))`` times the mean per-feature std."""
    n, d = X.shape
    spread = float(np.mean(X.std(axis=0)))
    return max(spread, 1e-12) * n ** (-1.0 / (d + 4))


def mmd2_unbiased(X: np.ndarray, Y: np.ndarray, bandwidth: float) -> float:
    """Unbiased estimate of the squared MMD with kernel ``exp(-||x - y||^2 / (2 h^2))`` (Gretton et al. 2012)."""
    g = -0.5 / bandwidth**2
    kxx, kyy, kxy = np.exp(g * _sq_dists(X, X)), np.exp(g * _sq_dists(Y, Y)), np.exp(g * _sq_dists(X, Y))
    m, n = X.shape[0], Y.shape[0]
    return float(
        (kxx.sum() - np.trace(kxx)) / (m * (m - 1)) + (kyy.sum() - np.trace(kyy)) / (n * (n - 1)) - 2.0 * kxy.mean()
    )


def _sample_scores(problem: DensityProblem, samples: np.ndarray) -> dict[str, float | None]:
    if not np.all(np.isfinite(samples)):
        return {"sample_kde_nll": None, "sample_mmd": None}
    kde = samples[:N_KDE]
    nll = -gaussian_kde_log_density(problem.X_test, kde, scott_bandwidth(kde)).mean()
    mmd = mmd2_unbiased(samples[:N_POINTS], problem.X_test[:N_POINTS], problem.mmd_bandwidth)
    return {"sample_kde_nll": float(nll), "sample_mmd": mmd}


def _extra(problem: DensityProblem, pictures: np.ndarray, samples: np.ndarray) -> dict:
    """The samples kept for the report's pictures (rounded, JSON-able) and, on the ring, mode coverage."""
    if problem.image_shape is not None:
        kept = pictures[:N_IMAGES]
        kept = kept[np.all(np.isfinite(kept), axis=1)]
        extra: dict[str, Any] = {"samples": np.round(np.clip(kept, -1.0, 2.0), 3).tolist()}
    else:
        kept = samples[:N_POINTS]
        extra = {"samples": np.round(kept[np.all(np.isfinite(kept), axis=1)], 3).tolist()}  # JSON has no inf/NaN
    if problem.mixture is not None and np.all(np.isfinite(samples)):
        from ...deep import mode_coverage, ring_centers

        centers = ring_centers(problem.mixture["n_modes"], problem.mixture["radius"])
        covered, close = mode_coverage(samples[:N_KDE], centers, problem.mixture["std"])
        extra.update(modes_covered=covered, share_near_a_mode=close)
    return extra


def _outcome(problem, scores, pictures, samples, *, n_iter, converged, curve, curve_label, extra, t0) -> Outcome:
    scores = {**{m: None for m in METRICS}, **scores, **_sample_scores(problem, samples)}
    scores = {k: (None if v is None or not np.isfinite(v) else float(v)) for k, v in scores.items()}
    return Outcome(
        scores=scores,
        n_iter=n_iter,
        converged=converged,
        curve=None if curve is None else [float(v) for v in curve],
        curve_label=curve_label,
        extra={**_extra(problem, pictures, samples), **extra},
        timing={"run_seconds": time.perf_counter() - t0},
    )


# -- units ---------------------------------------------------------------------------------------------------
def _latent_k(unit: str, k: int, problem: DensityProblem) -> int:
    d = problem.X_train.shape[1]
    if k >= d:
        raise ConfigError(f"{unit}: n_components must be < n_features = {d} for this problem, got {k}")
    return k


def _sizes(value) -> tuple[int, ...]:
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


def run_vae(hp: dict, problem: DensityProblem, seed: int) -> Outcome:
    from ...deep import VAE

    p, t0 = _params("vae", hp), time.perf_counter()
    vae = VAE(
        n_components=p["n_components"],
        hidden_layer_sizes=_sizes(p["hidden_layer_sizes"]),
        activation=p["activation"],
        likelihood="gaussian",
        learning_rate=p["learning_rate"],
        batch_size=p["batch_size"],
        max_iter=p["max_iter"],
        random_state=derive_seed(seed, "fit"),
    ).fit(problem.X_train)
    Xt = problem.X_test
    nll = -vae.score_samples(Xt, n_importance=p["n_importance"], random_state=derive_seed(seed, "importance")).mean()
    neg_elbo = -vae.elbo(Xt, n_samples=1, random_state=derive_seed(seed, "elbo")).mean()
    recon = vae.decode(vae.transform(Xt))
    rng = np.random.default_rng(derive_seed(seed, "sample"))
    means = vae.decode(rng.normal(size=(N_DRAWS, p["n_components"])))
    samples = means + float(np.exp(vae.log_sigma_.data)) * rng.normal(size=means.shape)
    return _outcome(
        problem,
        {"heldout_nll": nll, "reconstruction_error": float(((Xt - recon) ** 2).sum(1).mean())},
        means,
        samples,
        n_iter=vae.n_iter_,
        converged=True,
        curve=vae.loss_history_,
        curve_label="negative ELBO (nats per example)",
        extra={"heldout_neg_elbo": float(neg_elbo), "decoder_sigma": float(np.exp(vae.log_sigma_.data))},
        t0=t0,
    )


def ppca_log_density(X: np.ndarray, mean, components, eigenvalues, sigma2: float) -> np.ndarray:
    """``log N(x; mu, U diag(lambda) U^T + sigma^2 (I - U U^T))`` per row (``U`` orthonormal rows ``components``)."""
    d, k = X.shape[1], components.shape[0]
    Xc = X - mean
    Y = Xc @ components.T
    quad = (Y**2 / eigenvalues).sum(1) + ((Xc * Xc).sum(1) - (Y * Y).sum(1)) / sigma2
    log_det = np.log(eigenvalues).sum() + (d - k) * np.log(sigma2)
    return -0.5 * (d * np.log(2.0 * np.pi) + log_det + quad)


def run_ppca(hp: dict, problem: DensityProblem, seed: int) -> Outcome:
    from ...models.decomposition.pca import PCA

    p, t0 = _params("ppca", hp), time.perf_counter()
    X, Xt = problem.X_train, problem.X_test
    k = _latent_k("ppca", p["n_components"], problem)
    pca = PCA(n_components=k, solver="svd").fit(X)
    n, d = X.shape
    lam = pca.singular_values_**2 / n  # eigenvalues of the 1/n covariance (the maximum-likelihood one)
    Xc = X - pca.mean_
    sigma2 = (float(np.einsum("ij,ij->", Xc, Xc)) / n - lam.sum()) / (d - k)
    if not sigma2 > 0:
        raise ConfigError(f"ppca: the data have rank <= n_components={k}; the noise variance would be {sigma2}")
    lam = np.maximum(lam, sigma2)
    nll = -ppca_log_density(Xt, pca.mean_, pca.components_, lam, sigma2).mean()
    rng = np.random.default_rng(derive_seed(seed, "sample"))
    z = rng.normal(size=(N_DRAWS, k))
    means = pca.mean_ + (z * np.sqrt(lam - sigma2)) @ pca.components_
    samples = means + np.sqrt(sigma2) * rng.normal(size=means.shape)
    return _outcome(
        problem,
        {"heldout_nll": nll, "reconstruction_error": pca.reconstruction_error(Xt)},
        means,
        samples,
        n_iter=None,
        converged=True,
        curve=None,
        curve_label="",
        extra={"noise_variance": float(sigma2)},
        t0=t0,
    )


def run_fa(hp: dict, problem: DensityProblem, seed: int) -> Outcome:
    from ...models.decomposition.factor_analysis import FactorAnalysis

    p, t0 = _params("fa_density", hp), time.perf_counter()
    X, Xt = problem.X_train, problem.X_test
    k = _latent_k("fa_density", p["n_components"], problem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # recorded as converged=False instead
        fa = FactorAnalysis(n_components=k, tol=p["tol"], max_iter=p["max_iter"], algorithm=p["algorithm"]).fit(X)
    Lam = fa.components_.T
    recon = fa.mean_ + fa.transform(Xt) @ fa.components_
    rng = np.random.default_rng(derive_seed(seed, "sample"))
    means = fa.mean_ + rng.normal(size=(N_DRAWS, k)) @ Lam.T
    samples = means + np.sqrt(fa.noise_variance_) * rng.normal(size=means.shape)
    return _outcome(
        problem,
        {"heldout_nll": -fa.score(Xt), "reconstruction_error": float(((Xt - recon) ** 2).sum(1).mean())},
        means,
        samples,
        n_iter=int(fa.n_iter_),
        converged=bool(fa.converged_),
        curve=-np.asarray(fa.log_likelihood_history_),
        curve_label="training NLL (nats per example)",
        extra={},
        t0=t0,
    )


def run_gan(hp: dict, problem: DensityProblem, seed: int) -> Outcome:
    from ...deep import GAN

    p, t0 = _params("gan", hp), time.perf_counter()
    gan = GAN(
        n_components=p["n_components"],
        generator_hidden=_sizes(p["generator_hidden"]),
        discriminator_hidden=_sizes(p["discriminator_hidden"]),
        activation=p["activation"],
        learning_rate=p["learning_rate"],
        batch_size=p["batch_size"],
        max_iter=p["max_iter"],
        random_state=derive_seed(seed, "fit"),
    ).fit(problem.X_train)
    samples = gan.sample(N_DRAWS, random_state=derive_seed(seed, "sample"))
    return _outcome(
        problem,
        {},
        samples,
        samples,
        n_iter=gan.n_iter_,
        converged=True,
        curve=[d for d, _ in gan.loss_history_],
        curve_label="discriminator loss (nats)",
        extra={"generator_loss": [float(g) for _, g in gan.loss_history_]},
        t0=t0,
    )


def run_flow(hp: dict, problem: DensityProblem, seed: int) -> Outcome:
    from ...deep import RealNVP

    p, t0 = _params("flow", hp), time.perf_counter()
    flow = RealNVP(
        n_couplings=p["n_couplings"],
        hidden_layer_sizes=_sizes(p["hidden_layer_sizes"]),
        activation=p["activation"],
        s_max=p["s_max"],
        learning_rate=p["learning_rate"],
        batch_size=p["batch_size"],
        max_iter=p["max_iter"],
        random_state=derive_seed(seed, "fit"),
    ).fit(problem.X_train)
    samples = flow.sample(N_DRAWS, random_state=derive_seed(seed, "sample"))
    return _outcome(
        problem,
        {"heldout_nll": -flow.score(problem.X_test)},
        samples,
        samples,
        n_iter=flow.n_iter_,
        converged=True,
        curve=flow.loss_history_,
        curve_label="training NLL (nats per example)",
        extra={},
        t0=t0,
    )


def run_kde(hp: dict, problem: DensityProblem, seed: int) -> Outcome:
    p, t0 = _params("kde", hp), time.perf_counter()
    X = problem.X_train
    h = scott_bandwidth(X) if p["bandwidth"] is None else float(p["bandwidth"])
    nll = -gaussian_kde_log_density(problem.X_test, X, h).mean()
    rng = np.random.default_rng(derive_seed(seed, "sample"))
    means = X[rng.integers(0, X.shape[0], size=N_DRAWS)]
    samples = means + h * rng.normal(size=means.shape)
    return _outcome(
        problem,
        {"heldout_nll": nll},
        samples,
        samples,
        n_iter=None,
        converged=True,
        curve=None,
        curve_label="",
        extra={"bandwidth": float(h)},
        t0=t0,
    )


_POS_INT = Interval(int, 1, None)
_RATE = Interval(float, 0.0, 1.0, closed="right")
_ACT = Options({"relu", "elu", "tanh", "sigmoid", "softplus"})
UNITS = {
    "vae": Unit(
        "vae",
        "variational autoencoder, Gaussian encoder and decoder; held-out NLL by importance sampling",
        run_vae,
        constraints={
            "n_components": _POS_INT,
            "hidden_layer_sizes": IntSequence(1, 4096),
            "activation": _ACT,
            "learning_rate": _RATE,
            "batch_size": _POS_INT,
            "max_iter": Interval(int, 1, 10_000),
            "n_importance": Interval(int, 1, 10_000),
        },
        defaults={
            "n_components": 8,
            "hidden_layer_sizes": [64],
            "activation": "elu",
            "learning_rate": 0.003,
            "batch_size": 64,
            "max_iter": 60,
            "n_importance": 50,
        },
        section="CS229 notes §11.5 (VAE, ELBO, reparameterization)",
    ),
    "ppca": Unit(
        "ppca",
        "probabilistic PCA in closed form (isotropic noise), from replearn's PCA",
        run_ppca,
        constraints={"n_components": _POS_INT},
        defaults={"n_components": 8},
        section="CS229 notes §12 (PCA); Tipping and Bishop 1999",
    ),
    "fa_density": Unit(
        "fa_density",
        "factor analysis (diagonal noise) as a density, replearn's FactorAnalysis",
        run_fa,
        constraints={
            "n_components": _POS_INT,
            "tol": Interval(float, 0.0, None),
            "max_iter": Interval(int, 1, 100_000),
            "algorithm": Options({"profile", "em"}),
        },
        defaults={"n_components": 8, "tol": 1e-6, "max_iter": 500, "algorithm": "profile"},
        section="CS229 notes, factor analysis fragment (EM)",
    ),
    "gan": Unit(
        "gan",
        "generative adversarial network, non-saturating generator loss; no likelihood",
        run_gan,
        constraints={
            "n_components": _POS_INT,
            "generator_hidden": IntSequence(1, 4096),
            "discriminator_hidden": IntSequence(1, 4096),
            "activation": _ACT,
            "learning_rate": _RATE,
            "batch_size": _POS_INT,
            "max_iter": Interval(int, 1, 10_000),
        },
        defaults={
            "n_components": 2,
            "generator_hidden": [64, 64],
            "discriminator_hidden": [64, 64],
            "activation": "relu",
            "learning_rate": 0.002,
            "batch_size": 128,
            "max_iter": 60,
        },
        section="CS480/680 §13 (GANs as f-divergence minimization)",
    ),
    "flow": Unit(
        "flow",
        "RealNVP normalizing flow (affine couplings), exact log-likelihood",
        run_flow,
        constraints={
            "n_couplings": Interval(int, 1, 64),
            "hidden_layer_sizes": IntSequence(1, 4096),
            "activation": _ACT,
            "s_max": Interval(float, 0.0, None, closed="neither"),
            "learning_rate": _RATE,
            "batch_size": _POS_INT,
            "max_iter": Interval(int, 1, 10_000),
        },
        defaults={
            "n_couplings": 6,
            "hidden_layer_sizes": [32, 32],
            "activation": "relu",
            "s_max": 2.0,
            "learning_rate": 0.01,
            "batch_size": 256,
            "max_iter": 60,
        },
        section="CS480/680 §14 (normalizing flows)",
    ),
    "kde": Unit(
        "kde",
        "Gaussian kernel density estimate of the training data (the nonparametric reference)",
        run_kde,
        constraints={"bandwidth": (None, Interval(float, 0.0, None, closed="neither"))},
        defaults={"bandwidth": None},
        section="kernel density estimation (Parzen windows)",
    ),
}
