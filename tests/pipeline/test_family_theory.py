"""The ``theory`` experiment family: simulations against the texts' bounds, their scores, errors and figure."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from replearn.exceptions import ConfigError
from replearn.pipeline.families import Outcome, load
from replearn.pipeline.families.theory import problems as T
from replearn.pipeline.families.theory import units as TU
from replearn.pipeline.families.theory.report import figures as theory_figures
from replearn.pipeline.families.theory.report import violations

SPEC = {"source": "theory", "n": 200, "trials": 400}


@pytest.fixture(scope="module")
def sim():
    return T.build(SPEC, 0)


def test_module_meets_the_family_contract():
    assert load("theory") is T
    assert T.NAME == "theory" and T.TASK == "simulation" and T.PRIMARY == "slack"
    assert {"bound", "measured", "slack", "violation_rate"} <= set(T.METRICS)
    assert not {"source", "models"} & set(T.DATASET_KEYS)  # the config adds those two
    assert T.SCALE_BY == "n" and set(T.SCALE_METRICS) <= set(T.METRICS)
    assert T.check_spec(SPEC) == [] and "above the limit" in T.check_spec({**SPEC, "n": 10**6, "trials": 1000})[0]
    for name, unit in TU.UNITS.items():
        assert unit.name == name and unit.section and set(unit.constraints) <= set(unit.defaults)


def test_build_fills_defaults_and_describe_is_json(sim):
    assert (sim.n, sim.trials, sim.delta, sim.n_hypotheses) == (200, 400, 0.05, 21)
    d = T.describe(sim)
    assert json.loads(json.dumps(d)) == d
    assert d["hoeffding_deviation_bound"] == pytest.approx(math.sqrt(math.log(2 / 0.05) / 400))
    assert d["uniform_convergence_gap"] == pytest.approx(math.sqrt(math.log(2 * 21 / 0.05) / 400))
    # the best threshold on the grid of 21 points is 0.35 (|0.35 - 0.37| = 0.02): 0.1 + 0.8 * 0.02
    assert d["best_threshold_risk"] == pytest.approx(0.116)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"n": 0}, r"dataset\.n: expected an integer in \[1, 1000000\]"),
        ({"delta": 1.5}, r"dataset\.delta: expected a finite number in \(0\.0, 1\.0\)"),
        ({"label_noise": 0.5}, r"dataset\.label_noise: expected a finite number in \[0\.0, 0\.5\)"),
        ({"simulation": "coins"}, r"dataset\.simulation: unknown key"),
        ({"n": 100_000, "trials": 10_000}, r"n x trials = 1,000,000,000 draws, above the limit"),
    ],
)
def test_bad_dataset_specs_name_the_key_and_the_range(change, match):
    with pytest.raises(ConfigError, match=match):
        T.build({**SPEC, **change}, 0)


@pytest.mark.parametrize("unit", sorted(TU.UNITS))
def test_unit_runs_are_deterministic_and_depend_on_the_seed(sim, unit):
    run = TU.UNITS[unit].run
    a, b, c = run({}, sim, 5), run({}, sim, 5), run({}, sim, 6)
    assert isinstance(a, Outcome) and a == b
    assert set(a.scores) == set(T.METRICS)
    assert (a.scores, a.extra) != (c.scores, c.extra)
    s = a.scores
    assert s["slack"] == pytest.approx(s["bound"] - s["measured"]) and s["slack"] >= 0  # the bound holds
    assert 0.0 <= s["violation_rate"] <= sim.delta + 0.03
    assert a.scores["bound"] == c.scores["bound"]  # the bound does not depend on the draws


def test_bounds_are_the_texts_formulas(sim):
    n, delta = sim.n, sim.delta
    coins = TU.UNITS["hoeffding_coins"].run({"gamma": 0.1}, sim, 0).scores
    assert coins["bound"] == pytest.approx(math.sqrt(math.log(2 / delta) / (2 * n)))
    assert coins["prob_bound"] == pytest.approx(2 * math.exp(-2 * 0.1**2 * n))  # 2 e^{-4} = 0.0366
    erm = TU.UNITS["erm_finite_h"].run({}, sim, 0).scores
    assert erm["bound"] == pytest.approx(math.sqrt(math.log(2 * 21 / delta) / (2 * n)))
    big = T.build({**SPEC, "n": 1000, "trials": 20}, 0)
    epfl = TU.UNITS["test_set_selection"].run({"n_models": 10}, big, 0).scores
    assert epfl["bound"] == pytest.approx(0.0547, abs=5e-5)  # EPFL notes: K = 10, n = 1000, delta = 0.05


def test_coin_flips_match_the_exact_binomial_probability():
    sim = T.build({"source": "theory", "n": 50, "trials": 20_000, "coin_bias": 0.3}, 0)
    out = TU.UNITS["hoeffding_coins"].run({"gamma": 0.1}, sim, 1).scores
    k = np.arange(51)
    exact = stats.binom.pmf(k, 50, 0.3)[np.abs(k - 15) > 5].sum()  # |k/50 - 0.3| > 0.1 in integers: no float ties
    se = math.sqrt(exact * (1 - exact) / 20_000)
    assert abs(out["prob_measured"] - exact) < 4 * se
    assert out["prob_measured"] < out["prob_bound"] == pytest.approx(2 * math.exp(-1))
    # the 1 - delta quantile of |phi_hat - phi| is an attainable deviation: a multiple of 1/n
    assert out["measured"] * 50 == pytest.approx(round(out["measured"] * 50))


def test_a_fair_certain_coin_never_deviates():
    sim = T.build({**SPEC, "coin_bias": 1.0}, 0)
    out = TU.UNITS["hoeffding_coins"].run({}, sim, 0).scores
    assert out["measured"] == 0.0 and out["prob_measured"] == 0.0 and out["slack"] == out["bound"]


def test_empirical_threshold_risks_equal_brute_force():
    rng = np.random.default_rng(0)
    x = rng.random((6, 40))
    y = rng.random((6, 40)) < 0.5
    grid = np.linspace(0.0, 1.0, 9)
    x[0, :3] = grid[2:5]  # points exactly on thresholds: h_t(x) = 1[x >= t]
    brute = np.mean((x[:, None, :] >= grid[None, :, None]) != y[:, None, :], axis=2)
    np.testing.assert_allclose(TU._empirical_threshold_risks(x, y, grid), brute)


def test_threshold_risk_formula_by_monte_carlo(sim):
    rng = np.random.default_rng(3)
    x = rng.random((1, 400_000))
    y = (x >= sim.threshold) ^ (rng.random(x.shape) < sim.label_noise)
    grid = np.linspace(0.0, 1.0, sim.n_hypotheses)
    np.testing.assert_allclose(TU._empirical_threshold_risks(x, y, grid)[0], T._threshold_risks(sim), atol=0.003)


def test_measured_gap_shrinks_with_n_like_the_bound():
    out = {n: TU.UNITS["erm_finite_h"].run({}, T.build({**SPEC, "n": n}, 0), 0).scores for n in (50, 200, 800)}
    assert out[50]["measured"] > out[200]["measured"] > out[800]["measured"]
    ratio = [out[n]["bound"] / out[n]["measured"] for n in (50, 200, 800)]
    assert all(1.0 < r < 6.0 for r in ratio)  # the union bound is loose, but by a bounded factor here


def test_the_union_bound_covers_the_worst_of_k_models():
    sim = T.build({**SPEC, "n": 100, "trials": 2000}, 0)
    one = TU.UNITS["test_set_selection"].run({"n_models": 1}, sim, 0)
    assert one.scores["bound"] == one.extra["single_model_bound"]
    assert one.scores["violation_rate"] == one.extra["single_model_violation_rate"]
    many = TU.UNITS["test_set_selection"].run({"n_models": 200, "max_angle": math.pi}, sim, 0)
    # the worst of 200 deviations exceeds the one-model bound more often than one model does; the bound with
    # the union over K = 200 holds
    assert many.extra["single_model_violation_rate"] > 2 * one.extra["single_model_violation_rate"]
    assert many.scores["violation_rate"] <= sim.delta
    assert many.scores["bound"] == pytest.approx(math.sqrt(math.log(2 * 200 / 0.05) / 200))


@pytest.mark.parametrize(
    "unit, hp, match",
    [
        ("hoeffding_coins", {"gamma": 0.0}, r"hoeffding_coins\.gamma: 0\.0 is out of range; expected a number in \(0"),
        ("hoeffding_coins", {"epsilon": 0.1}, r"hoeffding_coins\.epsilon: unknown hyperparameter; valid: gamma"),
        ("erm_finite_h", {"k": 3}, r"erm_finite_h\.k: unknown hyperparameter; valid: \(none\)"),
        ("test_set_selection", {"n_models": 0}, r"test_set_selection\.n_models: 0 is out of range"),
    ],
)
def test_bad_hyperparameters_are_clear_errors(sim, unit, hp, match):
    with pytest.raises(ConfigError, match=match):
        TU.UNITS[unit].run(hp, sim, 0)


def _evaluations(evaluation, slack_shift=0.0):
    """Crossval records of the theory units (``evaluation``: the conftest builder of a complete record)."""
    evals, desc = {}, {}
    for n in (50, 200, 1000):
        sim = T.build({**SPEC, "n": n, "trials": 200}, 0)
        models = {}
        for key in ("hoeffding_coins", "erm_finite_h"):
            outs = [TU.UNITS[key].run({}, sim, seed) for seed in range(3)]
            scores = {m: [o.scores[m] for o in outs] for m in T.METRICS}
            scores["measured"] = [v + slack_shift for v in scores["measured"]]
            scores["slack"] = [b - m for b, m in zip(scores["bound"], scores["measured"])]
            models[key] = {"scores": scores}
        evals[f"theory_n{n}"] = evaluation(models, dataset=f"theory_n{n}", metric="measured")
        desc[f"theory_n{n}"] = T.describe(sim)
    return evals, desc


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50, metadata={"Software": None})
    return buf.getvalue()


def test_figures_draw_bound_and_measured_against_n(evaluation):
    evals, desc = _evaluations(evaluation)
    figs = theory_figures(evals, desc)
    assert [t for t, _ in figs] == [
        "Bounds against measured deviations",
        "Hoeffding's inequality: coin flips against the bound",
    ]
    ax = figs[0][1].axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log" and ax.get_title() == "erm_finite_h"
    assert list(ax.lines[0].get_xdata()) == [50, 200, 1000]  # the bound line, one point per dataset
    assert _png(figs[0][1]) == _png(theory_figures(evals, desc)[0][1])  # deterministic
    assert theory_figures(evals, {}) == []  # nothing to place on the n axis
    coins = figs[1][1].axes[0]  # at n = 1000 no trial in 200 deviates by 0.1: a hollow marker at 1/T
    assert any("none in T trials" in line.get_label() for line in coins.lines)
    assert violations(evals) == []


def test_violated_bounds_are_listed_and_marked(evaluation):
    evals, desc = _evaluations(evaluation, slack_shift=1.0)
    bad = violations(evals)
    assert len(bad) == 2 * 3 * 3 and all(b["slack"] < 0 for b in bad)
    ax = theory_figures(evals, desc)[0][1].axes[0]
    assert any(line.get_label() == "bound violated" for line in ax.lines)


CONF = Path(__file__).resolve().parents[2] / "conf"


def test_the_preset_files_are_valid_for_the_family():
    preset = yaml.safe_load((CONF / "experiment" / "theory.yaml").read_text())
    groups = {k: v for d in preset["defaults"] for k, v in d.items()}
    ns = []
    for name in groups["override /dataset"]:
        spec = yaml.safe_load((CONF / "dataset" / f"{name}.yaml").read_text())[name]
        ns.append(T.build(spec, 0).n)
    assert ns == sorted(ns) and len(ns) >= 3  # one dataset per n: bound and measured against n
    for key in groups["override /models"]:
        entry = yaml.safe_load((CONF / "models" / f"{key}.yaml").read_text())[key]
        assert TU._resolve(entry["name"], entry["params"]) is not None
    assert groups["override /design"] == "seeds"
