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

import numpy as np

from ....theory import uniform_convergence_gap
from ...schema import Optional_, Range
from .. import check_dataset, load

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


def _threshold_risks(sim: Simulation) -> np.ndarray:
    grid = np.linspace(0.0, 1.0, sim.n_hypotheses)
    return sim.label_noise + (1.0 - 2.0 * sim.label_noise) * np.abs(grid - sim.threshold)
