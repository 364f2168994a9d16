"""The units of the ``theory`` experiment family (its ``problems`` module builds the problems):
``UNITS`` and the run of each. Kept apart from the problems so that building them (the ``prepare`` stage) does not
depend on the models the units fit (:mod:`replearn.pipeline.deps`)."""

from __future__ import annotations

import math

import numpy as np

from ...._constraints import Interval
from ....exceptions import ConfigError
from ....theory import deviates, hoeffding_bound, test_set_bound, uniform_convergence_gap
from ...families import Outcome, Unit, resolve_unit_params
from ...families.theory.problems import _MAX_DRAWS, Simulation, _threshold_risks


def _resolve(unit: str, hp: dict | None) -> dict:
    """``hp`` over the defaults of this family's unit ``unit``, checked
    (:func:`~replearn.pipeline.families.resolve_unit_params`)."""
    return resolve_unit_params(UNITS, unit, hp)


def _quantile(values: np.ndarray, delta: float) -> float:
    """The empirical (1 - delta)-quantile, an observed value (numpy's "higher" rule)."""
    return float(np.quantile(values, 1.0 - delta, method="higher"))


def _deviation_scores(bound: float, deviations: np.ndarray, delta: float, violated: np.ndarray) -> dict:
    measured = _quantile(deviations, delta)
    return {
        "bound": bound,
        "measured": measured,
        "slack": bound - measured,
        "violation_rate": float(np.mean(violated)),
        "prob_bound": None,
        "prob_measured": None,
    }


def _run_hoeffding_coins(hp: dict, sim: Simulation, seed: int) -> Outcome:
    p = _resolve("hoeffding_coins", hp)
    rng = np.random.default_rng(seed)
    counts = rng.binomial(sim.n, sim.coin_bias, size=sim.trials)
    phi_hat = counts / sim.n
    dev = np.abs(phi_hat - sim.coin_bias)
    bound = uniform_convergence_gap(sim.n, sim.delta, 1)  # Hoeffding solved for the deviation at level delta
    scores = _deviation_scores(bound, dev, sim.delta, dev > bound)
    scores["prob_bound"] = min(1.0, hoeffding_bound(sim.n, p["gamma"]))
    scores["prob_measured"] = float(np.mean(deviates(counts, sim.n, sim.coin_bias, p["gamma"])))  # exact ties
    return Outcome(scores=scores, n_iter=sim.trials, extra={"mean_deviation": float(dev.mean()), "gamma": p["gamma"]})


def _empirical_threshold_risks(x: np.ndarray, y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Training error of every threshold ``h_j(x) = 1[x >= grid[j]]`` in every trial: (T, k) from (T, n) draws.

    With c = the number of grid points <= x, h_j predicts 1 exactly when j < c; its errors are the positives
    with c <= j plus the negatives with c > j, so cumulative counts over c give all k risks in O(T (n + k)).
    """
    T, n = x.shape
    k = grid.size
    cell = np.searchsorted(grid, x, side="right") + (k + 1) * np.arange(T)[:, None]
    pos = np.bincount(cell[y], minlength=T * (k + 1)).reshape(T, k + 1)
    neg = np.bincount(cell[~y], minlength=T * (k + 1)).reshape(T, k + 1)
    cum_pos, cum_neg = np.cumsum(pos, axis=1)[:, :k], np.cumsum(neg, axis=1)[:, :k]
    return (cum_pos + (neg.sum(axis=1, keepdims=True) - cum_neg)) / n


def _run_erm_finite_h(hp: dict, sim: Simulation, seed: int) -> Outcome:
    _resolve("erm_finite_h", hp)
    rng = np.random.default_rng(seed)
    k, n, T = sim.n_hypotheses, sim.n, sim.trials
    grid = np.linspace(0.0, 1.0, k)
    risk = _threshold_risks(sim)
    x = rng.random((T, n))
    y = (x >= sim.threshold) ^ (rng.random((T, n)) < sim.label_noise)
    emp = _empirical_threshold_risks(x, y, grid)
    choice = np.argmin(emp, axis=1)  # ERM (first minimizer)
    rows = np.arange(T)
    gap = np.abs(risk[choice] - emp[rows, choice])
    uniform = np.max(np.abs(risk[None, :] - emp), axis=1)
    bound = uniform_convergence_gap(n, sim.delta, k)
    excess = risk[choice] - risk.min()
    return Outcome(
        scores=_deviation_scores(bound, gap, sim.delta, uniform > bound),
        n_iter=T,
        extra={
            "mean_gap": float(gap.mean()),
            "uniform_deviation_quantile": _quantile(uniform, sim.delta),
            "mean_excess_risk": float(excess.mean()),
            "excess_risk_bound": 2.0 * bound,  # CS229's theorem (L3750): eps(h_hat) <= min eps + 2 gamma
            "excess_risk_violation_rate": float(np.mean(excess > 2.0 * bound)),
        },
    )


def _run_test_set_selection(hp: dict, sim: Simulation, seed: int) -> Outcome:
    p = _resolve("test_set_selection", hp)
    K, n, T = int(p["n_models"]), sim.n, sim.trials
    if K * n * T > _MAX_DRAWS * 4:
        raise ConfigError(
            f"test_set_selection.n_models: n_models x n x trials = {K * n * T:,} above the limit of "
            f"{_MAX_DRAWS * 4:,}; use fewer models or trials"
        )
    rng = np.random.default_rng(seed)
    angles = rng.uniform(0.0, p["max_angle"], size=K)  # the models, "trained elsewhere"
    risk = sim.label_noise + (1.0 - 2.0 * sim.label_noise) * angles / math.pi
    test_loss = np.empty((T, K))
    for t in range(T):  # one test set of n examples per trial; x ~ N(0, I), true direction (1, 0)
        x = rng.standard_normal((n, 2))
        y = (x[:, 0] >= 0) ^ (rng.random(n) < sim.label_noise)
        pred = (x @ np.stack([np.cos(angles), np.sin(angles)])) >= 0  # (n, K)
        test_loss[t] = np.mean(pred != y[:, None], axis=0)
    choice = np.argmin(test_loss, axis=1)  # grid search on the test set
    dev = np.abs(risk[choice] - test_loss[np.arange(T), choice])
    worst = np.max(np.abs(risk[None, :] - test_loss), axis=1)
    bound = test_set_bound(n, sim.delta, K)
    single = test_set_bound(n, sim.delta, 1)
    return Outcome(
        scores=_deviation_scores(bound, dev, sim.delta, worst > bound),
        n_iter=T,
        extra={
            "n_models": K,
            "single_model_bound": single,  # what one model alone would get; the selected one needs the union
            "single_model_violation_rate": float(np.mean(worst > single)),
            "mean_deviation": float(dev.mean()),
        },
    )


UNITS = {
    "hoeffding_coins": Unit(
        name="hoeffding_coins",
        summary="coin flips against Hoeffding's inequality (deviation and probability forms)",
        run=_run_hoeffding_coins,
        constraints={"gamma": Interval(float, 0.0, 1.0, closed="right")},
        defaults={"gamma": 0.1},
        section="CS229 notes §8.3.1, seed 000 L3622-3636",
    ),
    "erm_finite_h": Unit(
        name="erm_finite_h",
        summary="ERM over k thresholds: generalization gap against the uniform-convergence bound",
        run=_run_erm_finite_h,
        constraints={},
        defaults={},
        section="CS229 notes §8.3.2, seed 000 L3679-3768",
    ),
    "test_set_selection": Unit(
        name="test_set_selection",
        summary="best of K models on a test set against the test-set bound with a union bound over K",
        run=_run_test_set_selection,
        constraints={
            "n_models": Interval(int, 1, 10_000),
            "max_angle": Interval(float, 0.0, math.pi, closed="right"),
        },
        defaults={"n_models": 10, "max_angle": math.pi / 2},
        section="EPFL CS-433 notes, seed 004 L603-651",
    ),
}
