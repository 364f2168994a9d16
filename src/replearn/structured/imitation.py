"""Imitation learning (CIML ch. 18): supervised imitation (Alg. 43-44), DAgger (Alg. 45) and a
depth-limited DFS expert (Alg. 46).

A *task* is any object with the small interface below (two are provided in
:mod:`replearn.structured.imitation_tasks`: sequence labelling as search, CIML §18.5, and grid
navigation with a DFS expert, §18.4)::

    task.n_actions                 -> int, actions are 0 .. n_actions - 1
    task.reset(episode)            -> the initial state of episode ``episode`` (an int id)
    task.observe(state)            -> 1-D feature vector x_t (what the policy sees)
    task.step(state, action)       -> (next_state, instantaneous loss l_t)
    task.is_terminal(state)        -> bool
    task.expert(state)             -> the expert's action in ``state``

A policy is a fitted classifier from :mod:`replearn.models` (``predict`` on a (1, D) row); the
learner is named by registry name and hyperparameters (``estimator``, ``estimator_params``), so it
stays JSON-configurable like the reductions.

Numbering: the text's algorithms are Alg. 43 SupervisedImitationTrain, Alg. 44
SupervisedImitationTest, Alg. 45 DaggerTrain and Alg. 46 DepthLimitedDFS (seed 001 L5492-5652).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .. import models  # noqa: F401 -- the registry names the base learners (and registers them with replearn.base)
from .._constraints import Interval
from ..base import BaseEstimator
from ..validation import check_is_fitted, check_random_state, check_scalar

_SEED_MAX = 2**31 - 1


@dataclass
class Trajectory:
    """One run of a policy: observations x_t, the actions taken, the expert's actions and the losses l_t."""

    observations: np.ndarray = field(repr=False)
    actions: np.ndarray = field(repr=False)
    expert_actions: np.ndarray = field(repr=False)
    losses: np.ndarray = field(repr=False)

    @property
    def total_loss(self) -> float:
        return float(self.losses.sum())


def _act(policy, x: np.ndarray) -> int:
    return int(np.asarray(policy.predict(x[None, :]))[0])


def rollout(task, episode, policy=None, *, max_steps: int = 10_000) -> Trajectory:
    """Run ``policy`` (None: the expert) on one episode, recording x_t, a_t, expert(x_t) and l_t.

    The expert is queried in every visited state, also when the policy is in control (DAgger's
    "the expert is trying to steer, but the car is ignoring them", L5574).
    """
    state = task.reset(episode)
    obs, acts, expert, losses = [], [], [], []
    for _ in range(max_steps):
        if task.is_terminal(state):
            break
        x = np.asarray(task.observe(state), dtype=np.float64)
        e = int(task.expert(state))
        a = e if policy is None else _act(policy, x)
        if not 0 <= a < task.n_actions:
            raise ValueError(f"the policy chose action {a}; the task has actions 0..{task.n_actions - 1}")
        state, loss = task.step(state, a)
        obs.append(x)
        acts.append(a)
        expert.append(e)
        losses.append(float(loss))
    else:
        raise RuntimeError(f"episode {episode} did not terminate within max_steps={max_steps}")
    d = len(obs[0]) if obs else 0
    return Trajectory(
        np.asarray(obs, dtype=np.float64).reshape(-1, d),
        np.asarray(acts, dtype=np.int64),
        np.asarray(expert, dtype=np.int64),
        np.asarray(losses),
    )


def supervised_imitation_test(task, policy, episode) -> float:
    """CIML Alg. 44: run the policy for one episode and return the total loss sum_t l_t."""
    return rollout(task, episode, policy).total_loss


def evaluate_policy(task, policy, episodes) -> tuple[float, float]:
    """(mean total loss per episode, error rate against the expert on the visited states)."""
    trajs = [rollout(task, e, policy) for e in episodes]
    loss = float(np.mean([t.total_loss for t in trajs]))
    n = sum(t.actions.size for t in trajs)
    wrong = sum(int(np.sum(t.actions != t.expert_actions)) for t in trajs)
    return loss, wrong / n if n else 0.0


def _make_learner(name, params, seed):
    from ..models import create, hyperparameters

    if not isinstance(name, str):
        raise TypeError(f"estimator must be a registry name (str), got {type(name).__name__}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"estimator_params must be a dict or None, got {type(params).__name__}")
    hp = dict(params or {})
    valid = hyperparameters(name)
    if "task" in valid:
        hp.setdefault("task", "classification")
    if "random_state" in valid and hp.get("random_state") is None:
        hp["random_state"] = int(seed)
    model = create(name, **hp)
    if getattr(model, "_estimator_type", "") != "classifier":
        raise ValueError(f"estimator {name!r} is not a classifier; a policy maps observations to actions")
    return model


def _fit_policy(name, params, seed, X_parts, A_parts):
    X, A = np.concatenate(X_parts), np.concatenate(A_parts)
    if np.unique(A).size < 2:  # a classifier needs two classes; a constant policy is what the data says
        return _ConstantPolicy(int(A[0]))
    return _make_learner(name, params, seed).fit(X, A)


class _ConstantPolicy:
    """The policy "always take action a" (when every collected expert action is the same)."""

    def __init__(self, action: int):
        self.action = action

    def predict(self, X):
        return np.full(np.asarray(X).shape[0], self.action, dtype=np.int64)


def supervised_imitation_train(
    task, episodes, estimator="logistic_regression", estimator_params=None, random_state=None
):
    """CIML Alg. 43: collect every (x, a) pair of the expert's trajectories and train a classifier on them."""
    seed = int(check_random_state(random_state).integers(_SEED_MAX))
    trajs = [rollout(task, e) for e in _check_episodes(episodes)]
    return _fit_policy(estimator, estimator_params, seed, [t.observations for t in trajs], [t.actions for t in trajs])


def _check_episodes(episodes) -> list:
    eps = list(episodes)
    if not eps:
        raise ValueError("episodes is empty; at least one training episode is needed")
    return eps


class DAgger(BaseEstimator):
    """Dataset Aggregation (CIML Alg. 45 DaggerTrain, §18.3, seed 001 L5576-5596).

    Update rule::

        tau^(0) <- run the expert on N_0 episodes;  D_0 <- {(x, a)};  f_0 <- A(D_0)        (Alg. 43)
        for i = 1 .. MaxIter:
            tau^(i) <- run f_{i-1} on N episodes
            D_i <- {(x, expert(x)) : x visited by f_{i-1}}      (states of the learner, labels of the expert)
            f_i <- A(D_0 u ... u D_i)

    All policies f_0 .. f_MaxIter are kept (``policies_``); since DAgger need not improve
    monotonically, the one with the lowest loss on the development episodes is used (L5598),
    ``best_index_``. ``max_iter=0`` is supervised imitation learning (Alg. 43). Theorem 20 (eq. 18.4):
    the loss grows like T eps instead of supervised imitation's T^2 eps (Thm. 18, eq. 18.2).

    Parameters
    ----------
    estimator : str — registry name of the multiclass classifier A; estimator_params : dict or None.
    max_iter : int >= 0 — DAgger iterations (MaxIter).
    n_initial : int or None — expert trajectories for f_0 (None: every training episode; L5602 suggests
        a large initial N).
    n_per_iter : int >= 1 — learner trajectories per iteration (may be as small as 1, L5602), on
        training episodes drawn at random without replacement.
    random_state : None or int — episode draws and the learners' seeds.

    ``fit(task, episodes, dev_episodes=None)``; without ``dev_episodes`` the training episodes are
    used for the histories and the choice of the best policy.

    Attributes
    ----------
    policies_ : list of fitted classifiers f_0 .. f_MaxIter; policy_ : the selected one; best_index_.
    loss_history_ : mean total loss per episode of each f_i on the development episodes.
    error_history_ : error rate of each f_i against the expert on the states it visits there.
    n_samples_history_ : size of the aggregated data set each f_i was trained on.
    """

    _constraints = {
        "max_iter": Interval(int, 0, None),
        "n_initial": (None, Interval(int, 1, None)),
        "n_per_iter": Interval(int, 1, None),
    }

    def __init__(
        self,
        estimator="logistic_regression",
        estimator_params=None,
        max_iter=5,
        n_initial=None,
        n_per_iter=5,
        random_state=None,
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.max_iter = max_iter
        self.n_initial = n_initial
        self.n_per_iter = n_per_iter
        self.random_state = random_state

    def fit(self, task, episodes, dev_episodes=None):
        """Run Alg. 45 on the training episodes; returns ``self``."""
        self._validate_params()
        episodes = _check_episodes(episodes)
        dev = episodes if dev_episodes is None else _check_episodes(dev_episodes)
        rng = check_random_state(self.random_state)

        def draw(k):
            k = min(int(k), len(episodes))
            return [episodes[i] for i in np.sort(rng.choice(len(episodes), size=k, replace=False))]

        first = episodes if self.n_initial is None else draw(self.n_initial)
        trajs = [rollout(task, e) for e in first]  # line 1: run the expert
        X_parts = [t.observations for t in trajs]
        A_parts = [t.actions for t in trajs]
        policy = _fit_policy(self.estimator, self.estimator_params, rng.integers(_SEED_MAX), X_parts, A_parts)
        policies, losses, errors, sizes = [policy], [], [], [sum(a.size for a in A_parts)]
        loss, err = evaluate_policy(task, policy, dev)
        losses.append(loss)
        errors.append(err)
        for _ in range(int(self.max_iter)):
            for t in (rollout(task, e, policy) for e in draw(self.n_per_iter)):  # line 5: run f_{i-1}
                X_parts.append(t.observations)
                A_parts.append(t.expert_actions)  # line 6: the expert's labels on the learner's states
            policy = _fit_policy(self.estimator, self.estimator_params, rng.integers(_SEED_MAX), X_parts, A_parts)
            policies.append(policy)
            sizes.append(sum(a.size for a in A_parts))
            loss, err = evaluate_policy(task, policy, dev)
            losses.append(loss)
            errors.append(err)
        self.policies_ = policies
        self.loss_history_ = losses
        self.error_history_ = errors
        self.n_samples_history_ = sizes
        self.best_index_ = int(np.argmin(losses))
        self.policy_ = policies[self.best_index_]
        self.n_iter_ = int(self.max_iter)
        return self

    def predict(self, X):
        """Actions of the selected policy for observations ``X`` (n, D)."""
        check_is_fitted(self, "policy_")
        return self.policy_.predict(X)


def depth_limited_dfs(state, actions, transition, heuristic, max_depth, is_terminal):
    """CIML Alg. 46 DepthLimitedDFS(x, h, MaxDepth): (best action, its score); (None, h(x)) at the leaves.

    ``actions(state)`` lists the actions, ``transition(state, a)`` is x o a, ``heuristic(state)`` is h,
    ``is_terminal(state)`` ends the search. Ties keep the first action reaching the best score
    (line 7 uses a strict ``>``).
    """
    check_scalar(max_depth, "max_depth", numbers.Integral)
    if is_terminal(state) or max_depth <= 0:
        return None, float(heuristic(state))
    best_action, best_score = None, -np.inf
    for a in actions(state):
        _, score = depth_limited_dfs(transition(state, a), actions, transition, heuristic, max_depth - 1, is_terminal)
        if score > best_score:
            best_action, best_score = a, score
    return best_action, best_score
