"""The ``theory`` experiment family: learning-theory bounds against what simulations measure.

A dataset ``{source: theory, n: ..., ...}`` fixes a sample size ``n`` and the distributions the units draw
from; one dataset per ``n`` (``theory_n50``, ``theory_n200``, ``theory_n1000``) puts bound and measured value
against ``n`` in the report (:func:`figures`). Every unit runs ``trials`` seeded Monte-Carlo trials of
``n`` draws and reports, in the same currency — a deviation that holds with probability ``1 - delta``:

* ``bound``: the text's bound on the deviation at confidence ``1 - delta``;
* ``measured``: the empirical ``(1 - delta)``-quantile of the deviation over the trials (the quantity the bound
  bounds);
* ``slack = bound - measured``: must be >= 0; a negative slack is a violated bound (:func:`violations`
  lists them for the report);
* ``violation_rate``: the fraction of trials in which the bound's event failed (the theorems promise at most
  ``delta``).

Units:

* ``hoeffding_coins`` (CS229 notes §8.3.1, seed 000 L3622-3636): ``n`` tosses of a Bernoulli(``coin_bias``)
  coin; deviation ``|phi_hat - phi|``, bound ``sqrt(log(2/delta)/(2n))``. It also gives the probability form
  the notes state: ``prob_measured`` = P(|phi_hat - phi| > gamma) over the trials against ``prob_bound`` =
  min(1, 2 exp(-2 gamma^2 n)).
* ``erm_finite_h`` (CS229 §8.3.2, L3679-3768): empirical risk minimization over the ``n_hypotheses``
  thresholds ``h_t(x) = 1[x >= t]`` on an even grid of [0, 1], with x ~ Uniform[0, 1] and
  ``y = 1[x >= threshold]`` flipped with probability ``label_noise``, so that the risk of every hypothesis is
  known exactly: ``eps(h_t) = noise + (1 - 2 noise) |t - threshold|``. Deviation: the generalization gap
  ``|eps(h_hat) - eps_hat(h_hat)|`` of the ERM choice; bound: the uniform-convergence gap
  ``gamma = sqrt(log(2k/delta)/(2n))`` (L3736); violation: ``max_h |eps(h) - eps_hat(h)| > gamma``.
* ``test_set_selection`` (EPFL notes, seed 004 L603-651): ``n_models`` fixed linear classifiers through the
  origin in 2-D at seeded angles from the true direction, x ~ N(0, I) (risk ``noise + (1 - 2 noise)
  angle / pi`` exactly); the one with the smallest loss on a test set of ``n`` examples is chosen (grid search
  on the test set). Deviation: ``|L_D(f_hat) - L_S(f_hat)|``; bound: the test-set bound with a union bound over
  the K models, ``sqrt(ln(2K/delta)/(2n))``; violation: any of the K deviations above it.

The significance stage compares the units by ``slack`` (lower: a tighter bound), replicates paired by seed.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..._constraints import Interval
from ...exceptions import ConfigError
from ...theory import deviates, hoeffding_bound, test_set_bound, uniform_convergence_gap
from ..schema import Optional_, Range
from . import Outcome, Unit, check_dataset, load, resolve_unit_params

NAME = "theory"
TASK = "simulation"
METRICS = {
    "bound": False,
    "measured": False,
    "slack": False,
    "violation_rate": False,
    "prob_bound": False,
    "prob_measured": False,
}
PRIMARY = "slack"

#: the family's own keys of a dataset entry (the config adds ``source`` and ``models``)
DATASET_KEYS = {
    "n": Range(int, 1, 1_000_000, why="sample size: coin tosses, training or test examples"),
    "trials": Range(int, 10, 1_000_000, why="Monte-Carlo trials per run"),
    "delta": Optional_(Range(float, 0.0, 1.0, open_lo=True, open_hi=True, why="the bounds hold w.p. 1 - delta")),
    "coin_bias": Optional_(Range(float, 0.0, 1.0, why="phi of hoeffding_coins")),
    "n_hypotheses": Optional_(Range(int, 2, 100_000, why="thresholds on a grid of [0, 1] for erm_finite_h")),
    "label_noise": Optional_(Range(float, 0.0, 0.5, open_hi=True, why="probability a label is flipped")),
    "threshold": Optional_(Range(float, 0.0, 1.0, why="the true threshold of erm_finite_h")),
}
_DEFAULTS = {"delta": 0.05, "coin_bias": 0.3, "n_hypotheses": 21, "label_noise": 0.1, "threshold": 0.37}
_MAX_DRAWS = 50_000_000  # n x trials (x n_models): bounds the memory and time of one run


@dataclasses.dataclass(frozen=True)
class Simulation:
    """The settings every unit draws from (the problem of a ``theory`` dataset); the draws use the unit's seed."""

    n: int
    trials: int
    delta: float
    coin_bias: float
    n_hypotheses: int
    label_noise: float
    threshold: float


#: the report draws these metrics against ``describe(problem)["n"]`` across the run's datasets
SCALE_BY = "n"
SCALE_METRICS = ("bound", "measured", "slack")


def check_spec(spec: dict) -> list[str]:
    """Conditions across keys of a dataset entry whose keys passed :data:`DATASET_KEYS` (config messages)."""
    draws = spec["n"] * spec["trials"]
    if draws > _MAX_DRAWS:
        return [f"n x trials = {draws:,} draws, above the limit of {_MAX_DRAWS:,}; use fewer trials"]
    return []


def _resolve(unit: str, hp: dict | None) -> dict:
    """``hp`` over the defaults of this family's unit ``unit``, checked (:func:`~.resolve_unit_params`)."""
    return resolve_unit_params(UNITS, unit, hp)


def build(spec: dict, seed: int) -> Simulation:
    """The simulation settings of a dataset config (``seed`` unused: the trials are drawn by each unit's seed)."""
    check_dataset(load(NAME), spec)
    s = {**_DEFAULTS, **{k: v for k, v in spec.items() if v is not None}}
    return Simulation(
        n=int(s["n"]),
        trials=int(s["trials"]),
        delta=float(s["delta"]),
        coin_bias=float(s["coin_bias"]),
        n_hypotheses=int(s["n_hypotheses"]),
        label_noise=float(s["label_noise"]),
        threshold=float(s["threshold"]),
    )


def describe(problem: Simulation) -> dict:
    """The settings (JSON-able) and the closed-form numbers the units are checked against."""
    return {
        **dataclasses.asdict(problem),
        "hoeffding_deviation_bound": uniform_convergence_gap(problem.n, problem.delta, 1),
        "uniform_convergence_gap": uniform_convergence_gap(problem.n, problem.delta, problem.n_hypotheses),
        "best_threshold_risk": float(min(_threshold_risks(problem))),
    }


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


def _threshold_risks(sim: Simulation) -> np.ndarray:
    grid = np.linspace(0.0, 1.0, sim.n_hypotheses)
    return sim.label_noise + (1.0 - 2.0 * sim.label_noise) * np.abs(grid - sim.threshold)


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
