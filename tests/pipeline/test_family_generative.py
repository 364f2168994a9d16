"""The ``generative`` experiment family: problems, units, metrics, errors and the sample pictures."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from replearn import models
from replearn.exceptions import ConfigError
from replearn.pipeline import families, units
from replearn.pipeline.families.generative import problems as gen
from replearn.pipeline.families.generative import units as gen_units

pytestmark = pytest.mark.usefixtures("single_threaded_blas")

MIXTURE = {"source": "generative", "data": "gaussian_mixture_2d", "n_samples": 400}
DIGITS = {"source": "generative", "data": "digits", "n_samples": 400}
FAST = {  # a few epochs: these tests check the plumbing, not the models' quality
    "vae": {"max_iter": 2, "n_importance": 5, "hidden_layer_sizes": [16], "n_components": 2},
    "gan": {"max_iter": 2, "generator_hidden": [16], "discriminator_hidden": [16]},
    "flow": {"max_iter": 2, "n_couplings": 2, "hidden_layer_sizes": [8]},
    "ppca": {"n_components": 1},
    "fa_density": {"n_components": 1},
    "kde": {},
}


@pytest.fixture(scope="module")
def mixture():
    return gen.build(MIXTURE, 7)


@pytest.fixture(scope="module")
def digits():
    return gen.build(DIGITS, 7)


def _same(a: families.Outcome, b: families.Outcome) -> bool:
    strip = lambda o: dataclasses.replace(o, timing={})  # noqa: E731 - wall-clock time is never compared
    return json.dumps(dataclasses.asdict(strip(a)), sort_keys=True) == json.dumps(
        dataclasses.asdict(strip(b)), sort_keys=True
    )


# -- the module contract -------------------------------------------------------------------------------------
def test_module_provides_the_family_contract():
    assert families.load("generative") is gen
    assert gen.NAME == "generative" and gen.TASK == "density" and gen.PRIMARY in gen.METRICS
    assert gen.METRICS["heldout_nll"] is False  # lower is better
    for name, unit in gen_units.UNITS.items():
        assert unit.name == name and unit.summary and unit.section
        assert set(unit.constraints) <= set(unit.defaults)
        assert units.family_of_unit(name, supervised=models.available()) == "generative"


def test_unit_names_do_not_shadow_supervised_models():
    from replearn import models

    assert not set(gen_units.UNITS) & set(models.available())


# -- problems ------------------------------------------------------------------------------------------------
def test_build_is_deterministic_and_the_seed_moves_the_split(mixture):
    again = gen.build(MIXTURE, 7)
    assert np.array_equal(again.X_train, mixture.X_train) and np.array_equal(again.X_test, mixture.X_test)
    other = gen.build(MIXTURE, 8)
    assert not np.array_equal(other.X_test, mixture.X_test)
    assert mixture.X_train.shape == (280, 2) and mixture.X_test.shape == (120, 2)


def test_digits_are_dequantized_counts(digits):
    X = np.concatenate([digits.X_train, digits.X_test])
    assert X.shape == (400, 64) and X.min() >= 0.0 and X.max() < 1.0
    counts = np.floor(X * 17)  # (c + u) / 17 with u in [0, 1) floors back to the pixel count c
    assert set(np.unique(counts)) <= set(range(17)) and X.std(axis=0).min() > 0  # no constant pixel
    assert digits.image_shape == (8, 8) and digits.mixture is None


def test_describe_is_json_and_gives_the_true_heldout_nll(mixture, digits):
    d = gen.describe(mixture)
    json.dumps(d)
    from replearn.deep import gaussian_ring_log_density

    truth = -gaussian_ring_log_density(mixture.X_test, n_modes=8, radius=2.0, std=0.2).mean()
    assert d["true_heldout_nll"] == pytest.approx(truth) and d["mixture"] == {"n_modes": 8, "radius": 2.0, "std": 0.2}
    assert gen.describe(digits)["image_shape"] == [8, 8] and "true_heldout_nll" not in gen.describe(digits)


@pytest.mark.parametrize(
    "spec, match",
    [
        ({"source": "generative", "data": "faces"}, "unknown generative data 'faces'; valid choices: digits"),
        ({"source": "generative", "data": "digits", "noise": 1}, "dataset.noise: unknown key"),
        (
            {"source": "generative", "data": "digits", "n_modes": 4},
            "only a gaussian_mixture_2d problem takes 'n_modes'",
        ),
        ({"source": "generative", "data": "digits", "heldout": 0.95}, r"dataset.heldout: expected a finite number in"),
        ({"source": "generative", "data": "digits", "n_samples": 5000}, "the digits have 1797 images"),
        ({"source": "synthetic", "data": "digits"}, "expected 'generative'"),
        ({"source": "generative"}, "dataset.data: missing"),
    ],
)
def test_bad_dataset_specs_are_rejected_clearly(spec, match):
    with pytest.raises(ConfigError, match=match):
        gen.build(spec, 0)


def test_check_spec_gives_the_cross_key_conditions_the_config_check_prefixes():
    assert gen.check_spec({"source": "generative", "data": "digits", "std": 0.1, "n_modes": 3}) == [
        "n_modes: only a gaussian_mixture_2d problem takes 'n_modes', not digits",
        "std: only a gaussian_mixture_2d problem takes 'std', not digits",
    ]
    assert gen.check_spec(MIXTURE) == [] and "source" not in gen.DATASET_KEYS  # the pipeline adds source, models


# -- units ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("unit", ["vae", "ppca", "fa_density", "kde"])
def test_units_on_digits_are_deterministic_and_keep_16_images(unit, digits):
    a = gen_units.UNITS[unit].run(FAST[unit], digits, 3)
    assert _same(a, gen_units.UNITS[unit].run(FAST[unit], digits, 3))
    assert set(a.scores) == set(gen.METRICS) and a.scores["heldout_nll"] is not None
    assert np.asarray(a.extra["samples"]).shape == (16, 64)
    json.dumps(dataclasses.asdict(a))
    b = gen_units.UNITS[unit].run(FAST[unit], digits, 4)
    assert a.scores["sample_mmd"] != b.scores["sample_mmd"]  # the samples (at least) follow the seed
    if unit == "vae":
        assert a.scores["heldout_nll"] != b.scores["heldout_nll"] and len(a.curve) == 2
        assert a.extra["heldout_neg_elbo"] > a.scores["heldout_nll"]  # the importance-sampled bound is the tighter one
    else:  # fitted in closed form or by a deterministic iteration: only the samples depend on the seed
        assert a.scores["heldout_nll"] == b.scores["heldout_nll"]


@pytest.mark.parametrize("unit", ["gan", "flow", "kde"])
def test_units_on_the_mixture_are_deterministic_and_keep_500_points(unit, mixture):
    a = gen_units.UNITS[unit].run(FAST[unit], mixture, 3)
    assert _same(a, gen_units.UNITS[unit].run(FAST[unit], mixture, 3))
    assert np.asarray(a.extra["samples"]).shape == (500, 2) and 0.0 <= a.extra["modes_covered"] <= 1.0
    assert a.scores["reconstruction_error"] is None and a.scores["sample_kde_nll"] is not None
    if unit == "gan":
        assert a.scores["heldout_nll"] is None  # no likelihood: compared through its samples
        assert len(a.curve) == 2 and len(a.extra["generator_loss"]) == 2
    if unit != "kde":
        assert not _same(a, gen_units.UNITS[unit].run(FAST[unit], mixture, 4))


def test_ppca_density_is_the_gaussian_with_the_closed_form_covariance(digits):
    out = gen_units.UNITS["ppca"].run({"n_components": 5}, digits, 0)
    X = digits.X_train
    S = np.cov(X, rowvar=False, bias=True)
    lam, U = np.linalg.eigh(S)
    lam, U = lam[::-1], U[:, ::-1]
    sigma2 = lam[5:].mean()
    C = U[:, :5] @ np.diag(lam[:5]) @ U[:, :5].T + sigma2 * (np.eye(64) - U[:, :5] @ U[:, :5].T)
    expected = -multivariate_normal(X.mean(0), C).logpdf(digits.X_test).mean()
    assert out.scores["heldout_nll"] == pytest.approx(expected, rel=1e-8)
    assert out.extra["noise_variance"] == pytest.approx(sigma2)


def test_linear_gaussian_models_recover_the_true_heldout_likelihood():
    rng = np.random.default_rng(0)
    W, psi = rng.normal(size=(6, 2)), rng.uniform(0.1, 0.5, size=6)
    C = W @ W.T + np.diag(psi)
    X = rng.multivariate_normal(np.zeros(6), C, size=6000)
    problem = gen.DensityProblem("synthetic", X[:4000], X[4000:], None, None, 1.0)
    truth = -multivariate_normal(np.zeros(6), C).logpdf(X[4000:]).mean()
    fa = gen_units.UNITS["fa_density"].run({"n_components": 2}, problem, 0)
    ppca = gen_units.UNITS["ppca"].run({"n_components": 2}, problem, 0)
    assert fa.scores["heldout_nll"] == pytest.approx(truth, abs=0.03)
    assert ppca.scores["heldout_nll"] > fa.scores["heldout_nll"] + 0.01  # isotropic noise is the wrong model here
    assert fa.converged and fa.curve[-1] <= fa.curve[0]


def test_kde_unit_matches_a_direct_sum_of_gaussians(mixture):
    out = gen_units.UNITS["kde"].run({"bandwidth": 0.3}, mixture, 0)
    dens = np.mean(
        [multivariate_normal(c, 0.09 * np.eye(2)).pdf(mixture.X_test) for c in mixture.X_train],
        axis=0,
    )
    assert out.scores["heldout_nll"] == pytest.approx(-np.log(dens).mean(), rel=1e-10)


def test_kde_log_density_integrates_to_one():
    centers = np.array([[0.0, 0.0], [1.0, -0.5], [-0.7, 0.4]])
    g = np.linspace(-4, 4, 201)
    gx, gy = np.meshgrid(g, g)
    p = np.exp(gen_units.gaussian_kde_log_density(np.column_stack([gx.ravel(), gy.ravel()]), centers, 0.4))
    assert p.sum() * (g[1] - g[0]) ** 2 == pytest.approx(1.0, abs=1e-6)


def test_mmd_is_zero_in_expectation_for_one_distribution_and_positive_for_two():
    rng = np.random.default_rng(1)
    X, Y, Z = rng.normal(size=(300, 2)), rng.normal(size=(300, 2)), rng.normal(loc=1.0, size=(300, 2))
    assert abs(gen_units.mmd2_unbiased(X, Y, 1.0)) < 0.01 < gen_units.mmd2_unbiased(X, Z, 1.0)
    A, B = X[:4], Z[:3]
    k = lambda a, b: np.exp(-((a - b) ** 2).sum() / 2.0)  # noqa: E731
    brute = (
        sum(k(a, b) for i, a in enumerate(A) for j, b in enumerate(A) if i != j) / 12
        + sum(k(a, b) for i, a in enumerate(B) for j, b in enumerate(B) if i != j) / 6
        - 2 * sum(k(a, b) for a in A for b in B) / 12
    )
    assert gen_units.mmd2_unbiased(A, B, 1.0) == pytest.approx(brute)


@pytest.mark.parametrize(
    "unit, hp, match",
    [
        ("vae", {"n_components": 0}, r"vae: n_components must be >= 1, got 0"),
        ("vae", {"learning_rate": -1.0}, r"vae: learning_rate must be > 0.0"),
        ("vae", {"latent": 2}, r"vae: unknown hyperparameter 'latent'; valid hyperparameters: activation"),
        ("gan", {"max_iter": "ten"}, r"gan: max_iter must be an integer"),
        ("flow", {"activation": "swish"}, r"flow: activation must be one of"),
        ("ppca", {"n_components": 2}, r"ppca: n_components must be < n_features = 2"),
        ("fa_density", {"algorithm": "svd"}, r"fa_density: algorithm must be one of \['em', 'profile'\]"),
        (
            "kde",
            {"bandwidth": 0.0},
            r"kde: bandwidth must be > 0.0, got 0.0 \(expected None or a number in \(0.0, inf\)\)",
        ),
    ],
)
def test_bad_hyperparameters_are_rejected_clearly(unit, hp, match, mixture):
    with pytest.raises(ConfigError, match=match):
        gen_units.UNITS[unit].run(hp, mixture, 0)


# -- pictures (the family's report views: replearn.pipeline.families.generative.report) --------------------------------
def test_the_report_draws_digit_grids_and_scatters(digits, mixture, evaluation):
    from replearn.pipeline import family_views
    from replearn.pipeline.families.generative import report as gen_report

    def record(problem, units):  # a crossval record of one replicate per unit
        extras = {u: gen_units.UNITS[u].run(FAST[u], problem, 0).extra for u in units}
        return evaluation({u: {"scores": {"nll": [0.0]}, "extras": [extras[u]]} for u in units})

    evaluations = {
        "ring_mixture": record(mixture, ("kde", "gan")),
        "digits_density": record(digits, ("ppca", "kde")),
        "no_samples": evaluation({"x": {"scores": {"nll": [0.0]}, "extras": [{}]}}),
    }
    descriptions = {"digits_density": gen.describe(digits), "ring_mixture": gen.describe(mixture), "no_samples": {}}
    assert family_views.figures("generative") is gen_report.figures
    figs = gen_report.figures(evaluations, descriptions)
    assert [t.split(":")[0] for t, _ in figs] == ["digits_density", "ring_mixture"]
    grid = figs[0][1].axes[0].images[0].get_array()
    first = np.asarray(evaluations["digits_density"]["models"]["kde"]["extras"][0]["samples"][0]).reshape(8, 8)
    assert grid.shape == (35, 35) and np.allclose(grid[:8, :8], np.clip(first, 0, 1))
    assert np.ma.getmaskarray(grid)[8, :].all() and np.ma.getmaskarray(grid)[:, 8].all()  # separators (NaN)
    assert [ax.get_title() for ax in figs[0][1].axes] == ["kde", "ppca"]
    scatter = figs[1][1].axes
    gan = evaluations["ring_mixture"]["models"]["gan"]["extras"][0]
    expected = f"gan: {gan['modes_covered']:.0%} of modes hit,\n{gan['share_near_a_mode']:.0%} of points within 3 sd"
    assert len(scatter) == 2 and scatter[0].get_title() == expected
    assert scatter[0].collections[-1].get_offsets().shape == (500, 2)
    assert len(scatter[0].collections) > 1  # the true density's contours under the points
