"""The units of the ``rl`` experiment family (its ``problems`` module builds the problems):
``UNITS`` and the run of each. Kept apart from the problems so that building them (the ``prepare`` stage) does not
depend on the models the units fit (:mod:`replearn.pipeline.deps`)."""

from __future__ import annotations

import time
import warnings

import numpy as np

from ...._constraints import Interval, Options
from ....exceptions import ConfigError, ConvergenceWarning
from ...families import Outcome, Unit
from ...families.rl.problems import GRIDS, METRICS, Problem
from ...seeding import derive_seed


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
    from ....rl.envs import CARTPOLE_CONSTANTS, cartpole_dynamics

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
    from ....rl.envs import CARTPOLE_CONSTANTS as c

    return (np.abs(states[..., 0]) > c["x_threshold"]) | (np.abs(states[..., 2]) > c["theta_threshold"])


def _scores(**given) -> dict:
    return {m: (None if given.get(m) is None else float(given[m])) for m in METRICS}


def _value_error(problem: Problem, V) -> float:
    return float(np.max(np.abs(np.asarray(V) - problem.v_star)))


def _eval_rng(seed: int, eval_seed: int | None) -> np.random.Generator:
    """The evaluation episodes' generator: the replicate's shared ``eval_seed`` (or the unit's own seed)."""
    return np.random.default_rng(seed if eval_seed is None else eval_seed)


def _run_value_iteration(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ....rl import value_iteration

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
    from ....rl import policy_iteration

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
    from ....rl import model_based_rl
    from ....rl.envs import GridWorld

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
    from ....rl.envs import CARTPOLE_CONSTANTS, cartpole_dynamics

    return lambda states, action, rng: cartpole_dynamics(states, CARTPOLE_CONSTANTS["force_mag"] * (2.0 * action - 1.0))


_CARTPOLE_BOX = (np.array([-2.4, -3.0, -0.21, -3.0]), np.array([2.4, 3.0, 0.21, 3.0]))


def _run_fitted_vi(hp: dict, problem: Problem, seed: int, eval_seed: int | None = None) -> Outcome:
    from ....rl import fitted_value_iteration

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
    from ....rl import StateGrid, discretize_mdp, value_iteration

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
        from ....control import lqg, simulate_lqg

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
        from ....rl import SoftmaxPolicy, reinforce

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
