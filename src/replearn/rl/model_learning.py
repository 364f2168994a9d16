"""Learning an MDP's model from experience and planning in it (CS229 notes §15.3, L5391-5426).

Maximum-likelihood estimates from counts (eq. 15.5)::

    P_sa(s') = #(s, a -> s') / #(s, a),        R(s, a) = average reward observed after taking a in s.

Unseen pairs (the notes' "0/0") get a stated prior: ``prior="uniform"`` sets ``P_sa`` to the uniform
distribution over all states (the notes' ``1/|S|``); ``prior="self_loop"`` makes the pair stay in
``s`` (a pessimistic-neutral choice that never invents transitions). Their reward is
``unseen_reward`` (default 0). With ``reward_type="state"`` the reward is averaged per state, as the
notes do for ``R(s)``.

Episode ends. A transition flagged ``terminated`` marks its *next* state as terminal: that state
is never left in the data, so :meth:`ModelEstimator.to_mdp` makes it absorbing with reward 0
(the environment stopped there; nothing more is earned).

:func:`model_based_rl` is the notes' loop: initialize ``pi`` randomly; repeat {execute ``pi`` for some
trials; update the counts; value iteration on the estimated MDP, warm-started from the previous
``V``; ``pi := greedy(V)``}. ``epsilon`` (default 0, the notes' purely greedy loop) adds
epsilon-greedy exploration, which the notes do not discuss (catalogue: exploration is absent).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import ConvergenceWarning
from ..validation import check_random_state, check_scalar
from .exceptions import MDPValidationError
from .mdp import FiniteMDP
from .planning import value_iteration

__all__ = ["ModelBasedRLResult", "ModelEstimator", "model_based_rl"]

PRIORS = ("uniform", "self_loop")


class ModelEstimator:
    """Accumulates transition and reward counts and turns them into a :class:`FiniteMDP` (eq. 15.5).

    Parameters
    ----------
    n_states, n_actions : int
    prior : {"uniform", "self_loop"}
        Distribution given to pairs never tried (module docstring).
    unseen_reward : float
        Reward of pairs (or states) never observed.
    reward_type : {"state_action", "state"}
        Average rewards per ``(s, a)`` or per ``s`` (the notes' ``R(s)``).

    Attributes
    ----------
    transition_counts_ : int array (S, A, S)
    reward_sums_, visit_counts_ : arrays (S, A)
    terminal_ : bool array (S,)
        States reached by a ``terminated`` transition.
    """

    def __init__(self, n_states, n_actions, *, prior="uniform", unseen_reward=0.0, reward_type="state_action"):
        self.n_states = n_states
        self.n_actions = n_actions
        self.prior = prior
        self.unseen_reward = unseen_reward
        self.reward_type = reward_type
        check_scalar(n_states, "n_states", numbers.Integral, low=1)
        check_scalar(n_actions, "n_actions", numbers.Integral, low=1)
        check_scalar(prior, "prior", str, choices=PRIORS)
        check_scalar(unseen_reward, "unseen_reward", numbers.Real)
        check_scalar(reward_type, "reward_type", str, choices=("state_action", "state"))
        self.transition_counts_ = np.zeros((n_states, n_actions, n_states), dtype=np.int64)
        self.reward_sums_ = np.zeros((n_states, n_actions))
        self.visit_counts_ = np.zeros((n_states, n_actions), dtype=np.int64)
        self.terminal_ = np.zeros(n_states, dtype=bool)

    def update(self, states, actions, next_states, rewards=None, terminated=None):
        """Add observed transitions ``(s, a, r, s')`` (arrays of equal length); counts accumulate."""
        s = self._check_index(states, self.n_states, "states")
        a = self._check_index(actions, self.n_actions, "actions")
        s2 = self._check_index(next_states, self.n_states, "next_states")
        if not (s.shape == a.shape == s2.shape):
            raise MDPValidationError(
                f"states, actions and next_states must have the same length, got {s.size}, {a.size}, {s2.size}"
            )
        np.add.at(self.transition_counts_, (s, a, s2), 1)
        np.add.at(self.visit_counts_, (s, a), 1)
        if rewards is not None:
            r = np.asarray(rewards, dtype=np.float64).ravel()
            if r.shape != s.shape or not np.all(np.isfinite(r)):
                raise MDPValidationError("rewards must be finite and one per transition")
            np.add.at(self.reward_sums_, (s, a), r)
        if terminated is not None:
            done = np.asarray(terminated, dtype=bool).ravel()
            if done.shape != s.shape:
                raise MDPValidationError("terminated must have one flag per transition")
            self.terminal_[s2[done]] = True
        return self

    def transition_estimate(self) -> np.ndarray:
        """``P_hat`` (S, A, S): count ratios, the prior on unseen pairs, terminal states absorbing."""
        S = self.n_states
        counts = self.visit_counts_[:, :, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            P = np.where(counts > 0, self.transition_counts_ / np.maximum(counts, 1), 0.0)
        unseen = self.visit_counts_ == 0
        if self.prior == "uniform":
            P[unseen] = 1.0 / S
        else:
            s_idx, a_idx = np.nonzero(unseen)
            P[s_idx, a_idx, s_idx] = 1.0
        term = np.flatnonzero(self.terminal_)
        P[term] = 0.0
        P[term, :, term] = 1.0
        return P

    def reward_estimate(self) -> np.ndarray:
        """``R_hat`` (S, A) or (S,): average observed rewards, ``unseen_reward`` where nothing was seen;
        0 on terminals."""
        if self.reward_type == "state":
            n = self.visit_counts_.sum(axis=1)
            R = np.where(n > 0, self.reward_sums_.sum(axis=1) / np.maximum(n, 1), float(self.unseen_reward))
            R[self.terminal_] = 0.0
            return R
        n = self.visit_counts_
        R = np.where(n > 0, self.reward_sums_ / np.maximum(n, 1), float(self.unseen_reward))
        R[self.terminal_] = 0.0
        return R

    def to_mdp(self, gamma: float) -> FiniteMDP:
        """The estimated MDP ``(P_hat, R_hat, gamma)``."""
        return FiniteMDP(self.transition_estimate(), self.reward_estimate(), gamma)

    @staticmethod
    def _check_index(x, n, name):
        arr = np.asarray(x).ravel()
        if arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() >= n):
            raise MDPValidationError(f"{name} must be integers in [0, {n - 1}]")
        return arr.astype(np.int64)


@dataclass
class ModelBasedRLResult:
    """Outcome of :func:`model_based_rl`: the final model, value function and policy, and per-round history."""

    model: ModelEstimator
    values: np.ndarray
    policy: np.ndarray
    returns: np.ndarray  # (n_rounds, episodes_per_round) undiscounted episode returns
    vi_iterations: np.ndarray  # value-iteration sweeps per round (warm start makes them shrink)
    policy_changes: np.ndarray  # states whose greedy action changed each round
    conventions: dict = field(default_factory=dict)


def model_based_rl(
    env,
    *,
    gamma: float = 0.99,
    n_rounds: int = 20,
    episodes_per_round: int = 10,
    max_steps: int = 100,
    epsilon: float = 0.0,
    prior: str = "uniform",
    reward_type: str = "state_action",
    tol: float = 1e-6,
    warm_start: bool = True,
    random_state=None,
) -> ModelBasedRLResult:
    """The notes' model-learning loop (§15.3) on an environment with ``Discrete`` spaces.

    Each round executes the current policy (epsilon-greedy if ``epsilon > 0``) for
    ``episodes_per_round`` episodes of at most ``max_steps`` steps, adds the transitions to the
    counts, runs value iteration on the estimated MDP (from the previous ``V`` when ``warm_start``)
    and takes the greedy policy. The first policy is drawn uniformly at random. ``random_state``
    seeds the policy, the exploration and every episode.
    """
    check_scalar(n_rounds, "n_rounds", numbers.Integral, low=1)
    check_scalar(episodes_per_round, "episodes_per_round", numbers.Integral, low=1)
    check_scalar(max_steps, "max_steps", numbers.Integral, low=1)
    check_scalar(epsilon, "epsilon", numbers.Real, low=0.0, high=1.0)
    rng = check_random_state(random_state)
    S, A = env.observation_space.n, env.action_space.n
    model = ModelEstimator(S, A, prior=prior, reward_type=reward_type)
    policy = rng.integers(0, A, size=S)
    V = np.zeros(S)
    returns = np.zeros((n_rounds, episodes_per_round))
    vi_iters, changes = [], []
    for k in range(n_rounds):
        batch = ([], [], [], [], [])
        for e in range(episodes_per_round):
            s, _ = env.reset(seed=int(rng.integers(2**63 - 1)))
            total = 0.0
            for _t in range(max_steps):
                a = int(rng.integers(A)) if epsilon > 0 and rng.random() < epsilon else int(policy[s])
                s2, r, terminated, truncated, _ = env.step(a)
                for lst, v in zip(batch, (s, a, s2, r, terminated)):
                    lst.append(v)
                total += r
                s = s2
                if terminated or truncated:
                    break
            returns[k, e] = total
        model.update(*(np.array(x) for x in batch))
        mdp = model.to_mdp(gamma)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sol = value_iteration(mdp, tol=tol, initial_values=V if warm_start else None)
        V = sol.values
        vi_iters.append(sol.n_iter)
        changes.append(int(np.sum(sol.policy != policy)))
        policy = sol.policy
    conventions = {
        "prior": prior,
        "reward_type": reward_type,
        "epsilon": epsilon,
        "warm_start": warm_start,
        "initial_policy": "uniform random",
        "terminated": "next state absorbing, reward 0",
    }
    return ModelBasedRLResult(model, V, policy, returns, np.array(vi_iters), np.array(changes), conventions)
