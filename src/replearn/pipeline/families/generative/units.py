"""The units of the ``generative`` experiment family (its ``problems`` module builds the problems):
``UNITS`` and the run of each. Kept apart from the problems so that building them (the ``prepare`` stage) does not
depend on the models the units fit (:mod:`replearn.pipeline.deps`)."""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ...._constraints import Interval
from ....deep.flow import RealNVP
from ....deep.gan import GAN
from ....deep.vae import VAE
from ....exceptions import ConfigError, ConvergenceWarning
from ....models.decomposition.factor_analysis import FactorAnalysis
from ...families import Outcome, Unit, model_constraints, unit_params
from ...families.generative.problems import METRICS, N_POINTS, DensityProblem, _sq_dists
from ...seeding import derive_seed

N_IMAGES = 16  # generated digits kept for the pictures
N_KDE = 1000  # generated samples behind sample_kde_nll
N_DRAWS = max(N_KDE, N_POINTS, N_IMAGES)


def _params(unit: str, hp: dict | None) -> dict:
    """``hp`` over the defaults of this family's unit ``unit``, checked
    (:func:`~replearn.pipeline.families.unit_params`)."""
    return unit_params(UNITS, unit, hp)


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
        from ....deep import mode_coverage, ring_centers

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
    from ....models.decomposition.pca import PCA

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
UNITS = {
    "vae": Unit(
        "vae",
        "variational autoencoder, Gaussian encoder and decoder; held-out NLL by importance sampling",
        run_vae,
        constraints=model_constraints(  # the model's own table (deep/vae.py), plus what only the unit has
            VAE,
            "n_components",
            "hidden_layer_sizes",
            "activation",
            "learning_rate",
            "batch_size",
            "max_iter",
            n_importance=Interval(int, 1, 10_000),
        ),
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
        constraints={  # the model's own table (models/decomposition/factor_analysis.py), plus what only the unit has
            "n_components": _POS_INT,  # an integer latent dimension (the model also takes None: no reduction)
            **model_constraints(FactorAnalysis, "tol", "max_iter", "algorithm"),
        },
        defaults={"n_components": 8, "tol": 1e-6, "max_iter": 500, "algorithm": "profile"},
        section="CS229 notes, factor analysis fragment (EM)",
    ),
    "gan": Unit(
        "gan",
        "generative adversarial network, non-saturating generator loss; no likelihood",
        run_gan,
        constraints=model_constraints(  # the model's own table (deep/gan.py)
            GAN,
            "n_components",
            "generator_hidden",
            "discriminator_hidden",
            "activation",
            "learning_rate",
            "batch_size",
            "max_iter",
        ),
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
        constraints=model_constraints(  # the model's own table (deep/flow.py)
            RealNVP,
            "n_couplings",
            "hidden_layer_sizes",
            "activation",
            "s_max",
            "learning_rate",
            "batch_size",
            "max_iter",
        ),
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
