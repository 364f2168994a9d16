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
import time
import warnings
from typing import Any

import numpy as np

from ..._constraints import Interval, Options
from ...exceptions import ConfigError, ConvergenceWarning
from ..schema import Choice, Optional_, Range
from ..seeding import derive_seed
from . import Outcome, Unit

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
    from ...rl import policy_iteration
    from ...rl.envs import random_grid_world, russell_norvig_4x3

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


# -- evaluation -------------------------------------------------------------------------------------------
def _grid_return(problem: Problem, policy: np.ndarray, rng: np.random.Generator) -> float:
    """Mean discounted return of ``policy`` (actions (S,) or probabilities (S, A)) from the start state."""
    mdp, n = problem.mdp, problem.episodes
    R = mdp.rewards[:, 0] if mdp.state_rewards else None
    s = np.full(n, problem.world.start_state, dtype=np.int64)
    ret = np.zeros(n)
    disc = 1.0
    sink = problem.world.sink
    for _ in range(problem.horizon):
        if policy.ndim == 1:
            a = policy[s]
        else:
            cum = np.cumsum(policy[s], axis=1)
            a = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), mdp.n_actions - 1)
        ret += disc * (R[s] if R is not None else mdp.rewards[s, a])
        s = mdp.sample_next_states(s, a, rng)
        disc *= problem.gamma
        if np.all(s == sink):
            break
    return float(ret.mean())


def _cartpole_return(problem: Problem, act, rng: np.random.Generator) -> float:
    """Mean discounted return (-gamma^t at the failure step t, 0 if the pole stays up) of ``act(states)``."""
    from ...rl.envs import CARTPOLE_CONSTANTS, cartpole_dynamics

    n = problem.episodes
    s = rng.uniform(-0.05, 0.05, size=(n, 4))
    alive = np.ones(n, dtype=bool)
    ret = np.zeros(n)
    disc = 1.0
    for _ in range(problem.horizon):
        a = np.asarray(act(s), dtype=np.int64)
        s = np.where(alive[:, None], cartpole_dynamics(s, CARTPOLE_CONSTANTS["force_mag"] * (2.0 * a - 1.0)), s)
        fail = alive & _failed(s)
        ret[fail] -= disc
        alive &= ~fail
        disc *= problem.gamma
        if not alive.any():
            break
    return float(ret.mean())


def _failed(states: np.ndarray) -> np.ndarray:
    from ...rl.envs import CARTPOLE_CONSTANTS as c

    return (np.abs(states[..., 0]) > c["x_threshold"]) | (np.abs(states[..., 2]) > c["theta_threshold"])


def _scores(**given) -> dict:
    return {m: (None if given.get(m) is None else float(given[m])) for m in METRICS}


def _value_error(problem: Problem, V) -> float:
    return float(np.max(np.abs(np.asarray(V) - problem.v_star)))


# -- units --------------------------------------------------------------------------------------------------
#: the pipeline passes every unit of a replicate the same ``eval_seed`` (common random numbers): units that reach
#: the same policy get the same return, and a difference in return is the policies', not the episodes' luck
COMMON_EVALUATION = True


def _eval_rng(seed: int, eval_seed: int | None) -> np.random.Generator:
    """The evaluation episodes' generator: the replicate's shared ``eval_seed`` (or the unit's own seed)."""
    return np.random.default_rng(seed if eval_seed is None else eval_seed)


def _run_value_iteration(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ...rl import value_iteration

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sol = value_iteration(problem.mdp, tol=hp["tol"], update=hp["update"], max_iter=hp["max_iter"])
    seconds = time.perf_counter() - t0
    S, A = problem.mdp.n_states, problem.mdp.n_actions
    ret = _grid_return(problem, sol.policy, _eval_rng(seed, eval_seed))
    return Outcome(
        scores=_scores(
            **{"return": ret},
            iterations=sol.n_iter,
            bellman_backups=sol.n_iter * S * A,
            value_error=_value_error(problem, sol.values),
        ),
        n_iter=int(sol.n_iter),
        converged=bool(sol.converged),
        curve=[float(r) for r in sol.residuals],
        curve_label="Bellman residual ||V_k - V_k-1||_inf",
        extra={"n_states": int(S)},
        timing={"plan_seconds": seconds},
    )


def _run_policy_iteration(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ...rl import policy_iteration

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sol = policy_iteration(problem.mdp, evaluation_steps=hp["evaluation_steps"], max_iter=hp["max_iter"])
    seconds = time.perf_counter() - t0
    S, A = problem.mdp.n_states, problem.mdp.n_actions
    k = hp["evaluation_steps"]
    backups = sol.n_iter * S * A + (0 if k is None else sol.n_iter * k * S)
    ret = _grid_return(problem, sol.policy, _eval_rng(seed, eval_seed))
    return Outcome(
        scores=_scores(
            **{"return": ret},
            iterations=sol.n_iter,
            bellman_backups=backups,
            value_error=_value_error(problem, sol.values),
        ),
        n_iter=int(sol.n_iter),
        converged=bool(sol.converged),
        curve=[float(r) for r in sol.residuals],
        curve_label="Bellman residual ||V_k - V_k-1||_inf",
        extra={"n_states": int(S)},
        timing={"plan_seconds": seconds},
    )


def _run_model_based(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ...rl import model_based_rl
    from ...rl.envs import GridWorld

    w = problem.world
    env = GridWorld(w.layout, w.terminal_rewards, living_reward=w.living_reward, noise=w.noise)
    rng = _eval_rng(seed, eval_seed)
    t0 = time.perf_counter()
    # gamma = 1 is well posed on the true world (its terminals absorb) but not always on a learned model, where
    # a pair seen only a few times may never lead to the terminals: plan in the model with gamma at most 0.999
    res = model_based_rl(
        env,
        gamma=min(problem.gamma, 0.999),
        n_rounds=hp["n_rounds"],
        episodes_per_round=hp["episodes_per_round"],
        max_steps=hp["max_steps"],
        epsilon=hp["epsilon"],
        reward_type="state",
        random_state=derive_seed(seed, "learn"),
    )
    seconds = time.perf_counter() - t0
    S, A = problem.mdp.n_states, problem.mdp.n_actions
    sweeps = int(np.sum(res.vi_iterations))
    ret = _grid_return(problem, res.policy, rng)
    return Outcome(
        scores=_scores(
            **{"return": ret},
            iterations=sweeps,
            bellman_backups=sweeps * S * A,
            value_error=_value_error(problem, res.values),
        ),
        n_iter=int(hp["n_rounds"]),
        converged=bool(res.policy_changes[-1] == 0),
        curve=[float(r) for r in res.returns.mean(axis=1)],
        curve_label="mean episode return per round (exploration)",
        extra={"n_states": int(S)},
        timing={"learn_seconds": seconds},
    )


def _cartpole_simulator():
    from ...rl.envs import CARTPOLE_CONSTANTS, cartpole_dynamics

    return lambda states, action, rng: cartpole_dynamics(states, CARTPOLE_CONSTANTS["force_mag"] * (2.0 * action - 1.0))


_CARTPOLE_BOX = (np.array([-2.4, -3.0, -0.21, -3.0]), np.array([2.4, 3.0, 0.21, 3.0]))


def _run_fitted_vi(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ...rl import fitted_value_iteration

    rng = np.random.default_rng(derive_seed(seed, "samples"))
    lo, hi = _CARTPOLE_BOX
    X = rng.uniform(lo, hi, size=(hp["n_samples"], 4))
    t0 = time.perf_counter()
    res = fitted_value_iteration(
        _cartpole_simulator(),
        lambda S: np.zeros(len(S)),
        X,
        2,
        gamma=problem.gamma,
        regressor=hp["regressor"],
        max_iter=hp["max_iter"],
        tol=hp["tol"],
        terminal=_failed,
        terminal_value=-1.0,
        random_state=derive_seed(seed, "fit"),
    )
    seconds = time.perf_counter() - t0
    ret = _cartpole_return(problem, lambda S: res.policy(S), _eval_rng(seed, eval_seed))
    return Outcome(
        scores=_scores(**{"return": ret}, iterations=res.n_iter),
        n_iter=int(res.n_iter),
        converged=bool(res.converged),
        curve=[float(r) for r in res.residuals],
        curve_label="largest change of the fitted targets",
        extra={"n_samples": int(hp["n_samples"])},
        timing={"plan_seconds": seconds},
    )


def _run_discretized_vi(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ...rl import StateGrid, discretize_mdp, value_iteration

    lo, hi = _CARTPOLE_BOX
    bins = [hp["bins_x"], hp["bins_x"], hp["bins_theta"], hp["bins_theta"]]
    grid = StateGrid(lo, hi, bins)
    t0 = time.perf_counter()
    mdp = discretize_mdp(
        _cartpole_simulator(),
        lambda S: np.zeros(len(S)),
        grid,
        2,
        problem.gamma,
        samples_per_cell=hp["samples_per_cell"],
        terminal=_failed,
        terminal_reward=-1.0,
        random_state=derive_seed(seed, "discretize"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sol = value_iteration(mdp, tol=1e-6)
    seconds = time.perf_counter() - t0
    policy = sol.policy
    ret = _cartpole_return(problem, lambda S: policy[grid.index(S)], _eval_rng(seed, eval_seed))
    return Outcome(
        scores=_scores(
            **{"return": ret}, iterations=sol.n_iter, bellman_backups=sol.n_iter * mdp.n_states * mdp.n_actions
        ),
        n_iter=int(sol.n_iter),
        converged=bool(sol.converged),
        curve=[float(r) for r in sol.residuals],
        curve_label="Bellman residual ||V_k - V_k-1||_inf",
        extra={"n_states": int(mdp.n_states)},
        timing={"plan_seconds": seconds},
    )


def _run_lq(full_state: bool):
    def run(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
        from ...control import lqg, simulate_lqg

        s = problem.system
        if s is None:
            raise ConfigError(f"{problem.environment!r} is not a linear-Gaussian system; LQR/LQG need one")
        t0 = time.perf_counter()
        res = lqg(
            s["A"],
            s["B"],
            s["C"],
            s["Q"],
            s["R"],
            s["process_cov"],
            s["obs_cov"],
            s["initial_mean"],
            s["initial_cov"],
            problem.horizon,
        )
        seconds = time.perf_counter() - t0
        costs = simulate_lqg(
            res, problem.episodes, random_state=seed if eval_seed is None else eval_seed, full_state=full_state
        )
        return Outcome(
            scores=_scores(**{"return": -float(np.mean(costs))}),
            n_iter=None,
            converged=True,
            extra={"expected_cost_lqg": float(res.expected_cost), "horizon": problem.horizon},
            timing={"solve_seconds": seconds},
        )

    return run


def _run_reinforce(baseline):
    def run(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
        from ...rl import SoftmaxPolicy, reinforce

        mdp = problem.mdp
        S, A = mdp.n_states, mdp.n_actions
        policy = SoftmaxPolicy.tabular(S, A)
        start = np.zeros(S)
        start[problem.world.start_state] = 1.0
        t0 = time.perf_counter()
        res = reinforce(
            mdp,
            policy,
            np.zeros(S * A),
            n_iter=hp["n_iter"],
            n_episodes=hp["n_episodes"],
            horizon=hp["horizon"],
            gamma=problem.gamma,
            learning_rate=hp["learning_rate"],
            baseline=baseline,
            initial_distribution=start,
            random_state=derive_seed(seed, "learn"),
        )
        seconds = time.perf_counter() - t0
        probs = policy.probabilities(res.theta, np.arange(S))
        ret = _grid_return(problem, probs, _eval_rng(seed, eval_seed))
        return Outcome(
            scores=_scores(**{"return": ret}, iterations=res.n_iter, gradient_variance=np.mean(res.grad_variances)),
            n_iter=int(res.n_iter),
            converged=True,
            curve=[float(r) for r in res.mean_returns],
            curve_label="mean discounted return of the batch per iteration",
            extra={"n_states": int(S)},
            timing={"learn_seconds": seconds},
        )

    return run


def _on(*environments: str):
    return lambda spec: spec.get("environment") in environments


_REINFORCE_C = {
    "n_iter": Interval(int, 1, 100_000),
    "n_episodes": Interval(int, 2, 100_000),
    "horizon": Interval(int, 1, 100_000),
    "learning_rate": Interval(float, 0.0, None, closed="neither"),
}
_REINFORCE_D = {"n_iter": 60, "n_episodes": 20, "horizon": 40, "learning_rate": 0.5}

UNITS = {
    "value_iteration": Unit(
        "value_iteration",
        "value iteration, synchronous (Bellman backup operator) or Gauss-Seidel (asynchronous) sweeps",
        _run_value_iteration,
        constraints={
            "update": Options({"synchronous", "gauss-seidel"}),
            "tol": Interval(float, 0.0, None),
            "max_iter": Interval(int, 1, 10_000_000),
        },
        defaults={"update": "synchronous", "tol": 1e-8, "max_iter": 100_000},
        section="CS229 notes §15.2, Alg. 6",
        supports=_on(*GRIDS),
    ),
    "policy_iteration": Unit(
        "policy_iteration",
        "policy iteration with exact evaluation (or k sweeps: modified policy iteration)",
        _run_policy_iteration,
        constraints={"evaluation_steps": (None, Interval(int, 1, 1_000_000)), "max_iter": Interval(int, 1, 1_000_000)},
        defaults={"evaluation_steps": None, "max_iter": 10_000},
        section="CS229 notes §15.2, Alg. 7 (Alg. 8 with evaluation_steps)",
        supports=_on(*GRIDS),
    ),
    "model_based": Unit(
        "model_based",
        "learn P and R from experience (counts), plan in the estimate by value iteration, act greedily",
        _run_model_based,
        constraints={
            "n_rounds": Interval(int, 1, 10_000),
            "episodes_per_round": Interval(int, 1, 10_000),
            "max_steps": Interval(int, 1, 100_000),
            "epsilon": Interval(float, 0.0, 1.0),
        },
        defaults={"n_rounds": 10, "episodes_per_round": 10, "max_steps": 100, "epsilon": 0.1},
        section="CS229 notes §15.3",
        supports=_on(*GRIDS),
    ),
    "fitted_value_iteration": Unit(
        "fitted_value_iteration",
        "fitted value iteration on sampled states (linear regression on quadratic features, or a kernel smoother)",
        _run_fitted_vi,
        constraints={
            "n_samples": Interval(int, 10, 1_000_000),
            "regressor": Options({"linear", "kernel"}),
            "max_iter": Interval(int, 1, 100_000),
            "tol": Interval(float, 0.0, None),
        },
        defaults={"n_samples": 2000, "regressor": "kernel", "max_iter": 60, "tol": 1e-4},
        section="CS229 notes §15.4.2",
        supports=_on("cartpole"),
    ),
    "discretized_vi": Unit(
        "discretized_vi",
        "discretize the state space on a grid, estimate the cell MDP by simulation, value iteration",
        _run_discretized_vi,
        constraints={
            "bins_x": Interval(int, 1, 50),
            "bins_theta": Interval(int, 2, 100),
            "samples_per_cell": Interval(int, 1, 1000),
        },
        defaults={"bins_x": 3, "bins_theta": 8, "samples_per_cell": 5},
        section="CS229 notes §15.4.1",
        supports=_on("cartpole"),
    ),
    "lqr": Unit(
        "lqr",
        "finite-horizon LQR acting on the true state (Riccati recursion)",
        _run_lq(full_state=True),
        section="CS229 notes §16.2-16.3",
        supports=_on("linear_gaussian"),
    ),
    "lqg": Unit(
        "lqg",
        "LQG: Kalman filter on noisy readings + LQR gains (certainty equivalence)",
        _run_lq(full_state=False),
        section="CS229 notes §16.4",
        supports=_on("linear_gaussian"),
    ),
    "reinforce": Unit(
        "reinforce",
        "REINFORCE with a tabular softmax policy, reward-to-go estimator, no baseline",
        _run_reinforce(None),
        constraints=_REINFORCE_C,
        defaults=_REINFORCE_D,
        section="CS229 notes ch. 17, eq. 17.8",
        supports=_on(*GRIDS),
    ),
    "reinforce_baseline": Unit(
        "reinforce_baseline",
        "REINFORCE with a fitted state-value baseline (Alg. 9)",
        _run_reinforce("fitted"),
        constraints=_REINFORCE_C,
        defaults=_REINFORCE_D,
        section="CS229 notes ch. 17, Alg. 9, eq. 17.11-17.12",
        supports=_on(*GRIDS),
    ),
}
