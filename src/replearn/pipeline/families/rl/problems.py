"""The reinforcement-learning family: planners and agents on environments (issue 12, CS229 notes ch. 15-17).

A dataset config with ``source: rl`` names an **environment** (:data:`ENVIRONMENTS`):

* ``gridworld_4x3`` -- the 4x3 world of the MDP chapter (Russell & Norvig, AIMA Fig. 17.1; ``noise``,
  ``living_reward``, ``gamma``, default 0.2, -0.04, 1). :func:`describe` solves it exactly and lists V* at the
  four cells AIMA Fig. 17.3 prints (0.705, 0.812, 0.918, 0.388 for the defaults) beside the published values;
* ``random_gridworld`` -- a ``size`` x ``size`` world whose walls, terminals and start are drawn from the
  dataset's seed (``wall_fraction``, ``noise``, ``living_reward``, ``gamma``, default gamma 0.95): grow
  ``size`` to study how planners scale with the state count;
* ``cartpole`` -- the inverted pendulum of CS229 problem set 4 (:mod:`replearn.rl.envs.cartpole`: reward -1
  on failure, 0 otherwise; ``gamma`` default 0.99);
* ``linear_gaussian`` -- a double integrator ``x = (position, velocity)``, ``u`` a force, with Gaussian process
  noise (``process_noise``), noisy position readings (``obs_noise``) and cost ``x'x + u'Ru``: the LQR / LQG
  setting (§16.2-16.4).

Every unit run is scored on ``episodes`` seeded evaluation episodes of at most ``horizon`` steps:

* ``return`` -- the mean discounted return ``sum_t gamma^t r_t`` of the unit's final policy from the start
  state (grid worlds), from the PS4 start (cart-pole: each coordinate uniform in [-0.05, 0.05]) or from
  ``x_0 ~ N(0, I)`` (linear system: ``-`` the realized finite-horizon cost); greater is better;
* ``iterations`` -- sweeps (value iteration), improvement steps (policy iteration), value-iteration sweeps
  summed over the rounds (model-based), fitted-VI iterations;
* ``bellman_backups`` -- the deterministic cost of planning: state-action backups ``Q(s, a)`` computed
  (one sweep of value iteration backs up every pair; policy iteration's greedy step too; its exact
  evaluation is a linear solve, counted in ``iterations``, not here);
* ``value_error`` -- ``||V - V*||_inf`` of the unit's value function against the exact ``V*`` (policy
  iteration with exact evaluation on the true MDP), for planners on grid worlds;
* ``gradient_variance`` -- REINFORCE only: the variance of the one-trajectory gradient estimates (summed over
  parameters) averaged over the iterations; the baseline exists to lower it.

Wall-clock seconds go to ``Outcome.timing`` (MLflow only). The seed of a run seeds the agent's own randomness
(exploration, sampled states, trajectories) and then its evaluation episodes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ....exceptions import ConfigError
from ...schema import Choice, Optional_, Range
from ...seeding import derive_seed

NAME = "rl"
TASK = "control"
METRICS = {
    "return": True,
    "iterations": False,
    "bellman_backups": False,
    "value_error": False,
    "gradient_variance": False,
}
PRIMARY = "return"
#: the problem fact the report draws the non-primary metrics against, across the datasets of a run
SCALE_BY = "n_states"
SCALE_METRICS = ("iterations", "bellman_backups", "value_error")

GRIDS = ("gridworld_4x3", "random_gridworld")
ENVIRONMENTS = (*GRIDS, "cartpole", "linear_gaussian")

DATASET_KEYS = {
    "environment": Choice(ENVIRONMENTS, "environment"),
    "gamma": Optional_(Range(float, 0.0, 1.0, why="discount; 1 only for the grid worlds, whose terminals absorb")),
    "noise": Optional_(Range(float, 0.0, 1.0, why="probability of slipping at right angles (grid worlds)")),
    "living_reward": Optional_(Range(float, -10.0, 10.0, why="reward of every non-terminal cell")),
    "size": Optional_(Range(int, 2, 100, why="rows and columns of a random grid world")),
    "wall_fraction": Optional_(Range(float, 0.0, 0.6, why="probability that a cell of a random grid is a wall")),
    "episodes": Optional_(Range(int, 1, 100_000, why="evaluation episodes per run")),
    "horizon": Optional_(Range(int, 1, 100_000, why="most steps of an evaluation episode")),
    "process_noise": Optional_(Range(float, 0.0, 100.0, why="std of the linear system's process noise")),
    "obs_noise": Optional_(Range(float, 0.0, 100.0, why="std of the linear system's position readings")),
}

#: environment -> (keys it reads besides ``environment``, defaults)
_ENV_DEFAULTS: dict[str, dict[str, Any]] = {
    "gridworld_4x3": {"gamma": 1.0, "noise": 0.2, "living_reward": -0.04, "episodes": 200, "horizon": 100},
    "random_gridworld": {
        "gamma": 0.95,
        "noise": 0.2,
        "living_reward": -0.04,
        "size": 8,
        "wall_fraction": 0.2,
        "episodes": 200,
        "horizon": 200,
    },
    "cartpole": {"gamma": 0.99, "episodes": 100, "horizon": 500},
    "linear_gaussian": {"episodes": 500, "horizon": 50, "process_noise": 0.1, "obs_noise": 0.5},
}

#: AIMA Fig. 17.3: V* of the 4x3 world with gamma = 1, noise 0.2, living reward -0.04; (row, col) from the top
PUBLISHED_4X3 = {
    "start (1,1)": ((2, 0), 0.705),
    "top-left (1,3)": ((0, 0), 0.812),
    "beside +1 (3,3)": ((0, 2), 0.918),
    "bottom-right (4,1)": ((2, 3), 0.388),
}


@dataclasses.dataclass
class Problem:
    """An environment as the units see it (built by :func:`build`, deterministic in the spec and seed)."""

    environment: str
    settings: dict
    gamma: float
    episodes: int
    horizon: int
    world: Any = None  # GridWorld
    mdp: Any = None  # FiniteMDP of the grid world
    v_star: np.ndarray | None = None
    system: dict | None = None  # linear_gaussian matrices


def _settings(spec: dict) -> dict:
    env = spec["environment"]
    allowed = _ENV_DEFAULTS[env]
    extra = sorted(k for k in DATASET_KEYS if k != "environment" and spec.get(k) is not None and k not in allowed)
    if extra:
        raise ConfigError(
            f"environment {env}: key(s) {', '.join(extra)} do not apply; it reads {', '.join(sorted(allowed))}"
        )
    return {k: spec.get(k) if spec.get(k) is not None else v for k, v in allowed.items()}


def check_spec(spec: dict) -> list[str]:
    """Problems of a dataset spec the schema alone cannot see (keys that do not apply, gamma = 1 off the grids)."""
    try:
        s = _settings(spec)
    except ConfigError as exc:
        return [str(exc)]
    env = spec["environment"]
    if env in ("cartpole",) and s["gamma"] >= 1.0:
        return [f"gamma: {s['gamma']!r} on {env}; fitted value iteration and discounted returns need gamma < 1"]
    return []


def build(spec: dict, seed: int) -> Problem:
    """The environment of a dataset config (random layouts from ``seed``) with, for grid worlds, the exact V*."""
    from ....rl import policy_iteration
    from ....rl.envs import random_grid_world, russell_norvig_4x3

    errors = check_spec(spec)
    if errors:
        raise ConfigError(f"dataset environment {spec['environment']}: " + "; ".join(errors))
    s = _settings(spec)
    env = spec["environment"]
    p = Problem(env, s, float(s.get("gamma", 1.0)), int(s["episodes"]), int(s["horizon"]))
    if env in GRIDS:
        if env == "gridworld_4x3":
            p.world = russell_norvig_4x3(living_reward=s["living_reward"], noise=s["noise"])
        else:
            p.world = random_grid_world(
                s["size"],
                s["size"],
                wall_fraction=s["wall_fraction"],
                living_reward=s["living_reward"],
                noise=s["noise"],
                random_state=derive_seed(seed, "layout"),
            )
        p.mdp = p.world.to_mdp(p.gamma)
        p.v_star = policy_iteration(p.mdp).values  # exact evaluation: V* to solver precision
    elif env == "linear_gaussian":
        dt = 0.1
        p.system = {
            "A": np.array([[1.0, dt], [0.0, 1.0]]),
            "B": np.array([[0.5 * dt * dt], [dt]]),
            "C": np.array([[1.0, 0.0]]),
            "Q": np.eye(2),
            "R": np.array([[0.1]]),
            "process_cov": (s["process_noise"] ** 2) * np.eye(2),
            "obs_cov": np.array([[s["obs_noise"] ** 2]]),
            "initial_mean": np.zeros(2),
            "initial_cov": np.eye(2),
        }
    return p


def describe(problem: Problem) -> dict:
    """Facts for meta.json and the report: sizes, settings and (4x3 world) V* beside AIMA's published values."""
    out: dict[str, Any] = {"environment": problem.environment, **problem.settings}
    if problem.world is not None and problem.v_star is not None:
        w = problem.world
        out.update(
            n_states=int(problem.mdp.n_states),
            n_actions=int(problem.mdp.n_actions),
            layout=list(w.layout),
            start_state=int(w.start_state),
            v_star_start=float(problem.v_star[w.start_state]),
        )
        if problem.environment == "gridworld_4x3":
            default = (problem.gamma, problem.settings["noise"], problem.settings["living_reward"]) == (1.0, 0.2, -0.04)
            out["v_star_cells"] = [
                {
                    "cell": name,
                    "state": int(w.state_of(*rc)),
                    "v_star": round(float(problem.v_star[w.state_of(*rc)]), 6),
                    "published": value if default else None,
                    "source": "Russell & Norvig, AIMA Fig. 17.3" if default else None,
                }
                for name, (rc, value) in PUBLISHED_4X3.items()
            ]
    elif problem.environment == "cartpole":
        out.update(n_states=None, state_dim=4, n_actions=2, dynamics="CS229 PS4 cart-pole (Euler, tau = 0.02 s)")
    else:
        out.update(n_states=None, state_dim=2, control_dim=1, system="double integrator, dt = 0.1, R = 0.1")
    return out


# -- units --------------------------------------------------------------------------------------------------
#: the pipeline passes every unit of a replicate the same ``eval_seed`` (common random numbers): units that reach
#: the same policy get the same return, and a difference in return is the policies', not the episodes' luck
COMMON_EVALUATION = True
