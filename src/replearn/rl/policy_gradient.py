"""Policy gradient: REINFORCE with and without a baseline (CS229 notes ch. 17, L5946-6046).

Objective (eq. 17.1): ``eta(theta) = E[sum_{t<T} gamma^t R(s_t, a_t)]`` over trajectories of the
randomized policy ``pi_theta``. Likelihood-ratio gradient (eqs. 17.3-17.8)::

    grad eta = E[ (sum_t grad log pi_theta(a_t | s_t)) f(tau) ],      f(tau) = sum_t gamma^t R(s_t, a_t)

(``estimator="total"``). Because ``E[grad log pi(a_t | s_t) | s_t] = 0`` (eq. 17.9), rewards before
``t`` can be dropped and any function ``B(s_t)`` subtracted (eqs. 17.10-17.11)::

    grad eta = sum_t E[ gamma^t grad log pi_theta(a_t | s_t) (R_{>=t} - B(s_t)) ],
    R_{>=t} = sum_{j>=t} gamma^{j-t} R(s_j, a_j)

(``estimator="reward_to_go"``, the default). Both are unbiased. The ``gamma^t`` factor is kept:
the notes' Algorithm 9 (eq. 17.13) drops it on purpose ("it gives a large update", footnote 4),
which biases the estimate of ``grad eta``; pass ``gamma=1`` to make the two coincide. Erratum
(L6000): the notes write ``grad_theta P_theta(tau)`` for ``grad_theta log P_theta(tau)``.

Baselines: ``None``; a callable ``B(t, observations) -> (n,)`` (e.g. the exact ``V_t``); or
``"fitted"``, Algorithm 9's least-squares fit ``min sum (R_{>=t} - B(s_t))^2`` with ``B`` linear in
the policy's features, fitted on the same batch (this makes the estimate very slightly biased, by
O(1/n); a fixed callable keeps it exactly unbiased).

Variance. :func:`policy_gradient` returns the per-trajectory terms ``g_i`` whose mean is the estimate;
:func:`reinforce` records each iteration's ``sum_j Var(g_ij)`` (sample variance summed over the
coordinates: the variance of a one-trajectory estimate; the batch mean's is this over ``n``), so the
baseline's effect is visible in ``grad_variances``.

Policies (``theta`` is always a flat vector):

* :class:`SoftmaxPolicy` (discrete actions): ``pi(a | s) = exp(theta_a . phi(s)) / sum_b exp(theta_b . phi(s))``,
  ``grad_{theta_b} log pi(a | s) = (1{a = b} - pi(b | s)) phi(s)``.
* :class:`GaussianPolicy` (continuous actions): ``a ~ N(W phi(s), diag(sigma^2))``,
  ``grad_W log pi = ((a - mu) / sigma^2) phi^T``, ``grad_{log sigma} log pi = (a - mu)^2 / sigma^2 - 1``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import DivergenceError
from ..validation import check_random_state, check_scalar
from .exceptions import MDPValidationError
from .mdp import FiniteMDP, check_gamma

__all__ = [
    "GaussianPolicy",
    "ReinforceResult",
    "SoftmaxPolicy",
    "Trajectories",
    "collect_trajectories",
    "exact_policy_gradient",
    "expected_return",
    "policy_gradient",
    "reinforce",
    "sample_mdp_trajectories",
]


# -- policies ---------------------------------------------------------------------------------------
class _LinearPolicy:
    def __init__(self, n_features, features=None):
        self.n_features = int(n_features)
        self.features = features

    def features_of(self, observations) -> np.ndarray:
        """``phi`` of a batch of observations, shape (N, d)."""
        obs = np.asarray(observations)
        F = self.features(obs) if self.features is not None else obs
        F = np.asarray(F, dtype=np.float64)
        if F.ndim == 1:
            F = F[:, None] if self.n_features == 1 else F[None, :]
        if F.shape[-1] != self.n_features:
            raise MDPValidationError(f"features have {F.shape[-1]} columns, the policy expects {self.n_features}")
        return F

    def _check_theta(self, theta):
        theta = np.asarray(theta, dtype=np.float64)
        if theta.shape != (self.n_params,):
            raise MDPValidationError(f"theta must have shape ({self.n_params},), got {theta.shape}")
        return theta


class SoftmaxPolicy(_LinearPolicy):
    """Softmax (Boltzmann) policy over ``n_actions`` with linear scores ``theta_a . phi(s)``.

    ``features`` maps a batch of observations to ``(N, n_features)`` (default: the observations are the
    features). :meth:`tabular` builds the one-hot features of a finite MDP.
    """

    def __init__(self, n_actions, n_features, features=None):
        super().__init__(n_features, features)
        self.n_actions = int(n_actions)
        self.n_params = self.n_actions * self.n_features

    @classmethod
    def tabular(cls, n_states: int, n_actions: int) -> SoftmaxPolicy:
        """One parameter per (state, action): ``phi(s) = e_s``."""
        eye = np.eye(n_states)
        return cls(n_actions, n_states, features=lambda s: eye[np.asarray(s, dtype=np.int64)])

    def _scores(self, theta, F):
        return F @ self._check_theta(theta).reshape(self.n_actions, self.n_features).T

    def probabilities(self, theta, observations) -> np.ndarray:
        z = self._scores(theta, self.features_of(observations))
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def log_prob(self, theta, observations, actions) -> np.ndarray:
        z = self._scores(theta, self.features_of(observations))
        zmax = z.max(axis=1, keepdims=True)
        logZ = (zmax + np.log(np.exp(z - zmax).sum(axis=1, keepdims=True))).ravel()
        a = np.asarray(actions, dtype=np.int64)
        return z[np.arange(z.shape[0]), a] - logZ

    def grad_log_prob(self, theta, observations, actions) -> np.ndarray:
        F = self.features_of(observations)
        p = self.probabilities(theta, observations)
        onehot = np.zeros_like(p)
        onehot[np.arange(p.shape[0]), np.asarray(actions, dtype=np.int64)] = 1.0
        return ((onehot - p)[:, :, None] * F[:, None, :]).reshape(F.shape[0], self.n_params)

    def sample(self, theta, observations, rng) -> np.ndarray:
        p = self.probabilities(theta, observations)
        u = rng.random(p.shape[0])
        return np.minimum(np.sum(np.cumsum(p, axis=1) <= u[:, None], axis=1), self.n_actions - 1)


class GaussianPolicy(_LinearPolicy):
    """``a ~ N(W phi(s), diag(exp(2 log_std)))`` with ``W`` of shape (action_dim, n_features).

    ``theta = [W.ravel(), log_std]`` when ``learn_std`` (default), else ``theta = W.ravel()`` and the
    standard deviation is fixed at ``exp(log_std)``.
    """

    def __init__(self, action_dim, n_features, features=None, *, learn_std=True, log_std=0.0):
        super().__init__(n_features, features)
        self.action_dim = int(action_dim)
        self.learn_std = bool(learn_std)
        self.log_std = np.broadcast_to(np.asarray(log_std, dtype=np.float64), (self.action_dim,)).copy()
        self.n_params = self.action_dim * self.n_features + (self.action_dim if self.learn_std else 0)

    def _split(self, theta):
        theta = self._check_theta(theta)
        k = self.action_dim * self.n_features
        W = theta[:k].reshape(self.action_dim, self.n_features)
        log_std = theta[k:] if self.learn_std else self.log_std
        return W, log_std

    def mean(self, theta, observations) -> np.ndarray:
        W, _ = self._split(theta)
        return self.features_of(observations) @ W.T

    def log_prob(self, theta, observations, actions) -> np.ndarray:
        W, log_std = self._split(theta)
        mu = self.features_of(observations) @ W.T
        a = np.asarray(actions, dtype=np.float64).reshape(mu.shape)
        z = (a - mu) / np.exp(log_std)
        return np.sum(-0.5 * z**2 - log_std - 0.5 * np.log(2 * np.pi), axis=1)

    def grad_log_prob(self, theta, observations, actions) -> np.ndarray:
        W, log_std = self._split(theta)
        F = self.features_of(observations)
        mu = F @ W.T
        a = np.asarray(actions, dtype=np.float64).reshape(mu.shape)
        var = np.exp(2 * log_std)
        gW = (((a - mu) / var)[:, :, None] * F[:, None, :]).reshape(F.shape[0], -1)
        if not self.learn_std:
            return gW
        return np.hstack([gW, (a - mu) ** 2 / var - 1.0])

    def sample(self, theta, observations, rng) -> np.ndarray:
        W, log_std = self._split(theta)
        mu = self.features_of(observations) @ W.T
        return mu + np.exp(log_std) * rng.standard_normal(mu.shape)


# -- trajectories -----------------------------------------------------------------------------------
@dataclass
class Trajectories:
    """A batch of ``n`` trajectories padded to ``T`` steps.

    ``observations`` (n, T, ...) and ``actions`` (n, T, ...) at each step, ``rewards`` (n, T) and
    ``mask`` (n, T), True where the step happened (False after the episode ended).
    """

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    mask: np.ndarray

    @property
    def n(self) -> int:
        return self.rewards.shape[0]

    def discounted_returns(self, gamma: float) -> np.ndarray:
        """``f(tau) = sum_t gamma^t R_t`` per trajectory."""
        T = self.rewards.shape[1]
        return (self.rewards * self.mask) @ (gamma ** np.arange(T))


def sample_mdp_trajectories(
    mdp: FiniteMDP, policy: SoftmaxPolicy, theta, n: int, horizon: int, *, initial_distribution=None, random_state=None
) -> Trajectories:
    """``n`` trajectories of ``horizon`` steps in a finite MDP, simulated in parallel (vectorized)."""
    rng = check_random_state(random_state)
    S = mdp.n_states
    mu = _initial(initial_distribution, S)
    s = rng.choice(S, size=n, p=mu)
    obs = np.zeros((n, horizon), dtype=np.int64)
    acts = np.zeros((n, horizon), dtype=np.int64)
    rew = np.zeros((n, horizon))
    for t in range(horizon):
        a = policy.sample(theta, s, rng)
        obs[:, t], acts[:, t] = s, a
        rew[:, t] = mdp.rewards[s, a]
        s = mdp.sample_next_states(s, a, rng)
    return Trajectories(obs, acts, rew, np.ones((n, horizon), dtype=bool))


def collect_trajectories(env, policy, theta, n: int, horizon: int, *, random_state=None) -> Trajectories:
    """Run ``policy`` in an environment (``reset``/``step`` interface) for ``n`` episodes of at most
    ``horizon`` steps."""
    rng = check_random_state(random_state)
    obs_l, act_l, rew, mask = [], [], np.zeros((n, horizon)), np.zeros((n, horizon), dtype=bool)
    for i in range(n):
        o, _ = env.reset(seed=int(rng.integers(2**63 - 1)))
        os_, as_ = [], []
        for t in range(horizon):
            a = policy.sample(theta, np.asarray(o)[None, ...], rng)[0]
            a_env = int(a) if isinstance(policy, SoftmaxPolicy) else np.asarray(a)
            os_.append(np.asarray(o, dtype=np.float64))
            as_.append(np.asarray(a, dtype=np.float64))
            o, r, terminated, truncated, _ = env.step(a_env)
            rew[i, t] = r
            mask[i, t] = True
            if terminated or truncated:
                break
        pad = horizon - len(os_)
        os_ += [np.zeros_like(os_[0])] * pad
        as_ += [np.zeros_like(as_[0])] * pad
        obs_l.append(np.stack(os_))
        act_l.append(np.stack(as_))
    acts = np.stack(act_l)
    if isinstance(policy, SoftmaxPolicy):
        acts = acts.astype(np.int64)
    return Trajectories(np.stack(obs_l), acts, rew, mask)


# -- the estimator ----------------------------------------------------------------------------------
def policy_gradient(
    trajectories: Trajectories, policy, theta, *, gamma: float, baseline=None, estimator: str = "reward_to_go"
):
    """REINFORCE estimate of ``grad eta(theta)`` from a batch (module docstring).

    Returns ``(estimate, samples)``: ``samples[i]`` is trajectory ``i``'s term (shape (n, p)) and
    ``estimate = samples.mean(axis=0)``.
    """
    gamma = check_gamma(gamma)
    check_scalar(estimator, "estimator", str, choices=("reward_to_go", "total"))
    tr = trajectories
    n, T = tr.rewards.shape
    obs_flat = tr.observations.reshape((n * T,) + tr.observations.shape[2:])
    act_flat = tr.actions.reshape((n * T,) + tr.actions.shape[2:])
    glp = policy.grad_log_prob(theta, obs_flat, act_flat).reshape(n, T, -1) * tr.mask[:, :, None]
    disc = gamma ** np.arange(T)
    r = tr.rewards * tr.mask
    if estimator == "total":
        if baseline is not None:
            raise MDPValidationError(
                "baselines apply to the reward-to-go estimator (eq. 17.11); use estimator='reward_to_go'"
            )
        samples = glp.sum(axis=1) * (r @ disc)[:, None]
        return samples.mean(axis=0), samples
    # R_{>=t} = sum_{j>=t} gamma^(j-t) r_j, by a reverse cumulative sum
    G = np.zeros((n, T))
    acc = np.zeros(n)
    for t in range(T - 1, -1, -1):
        acc = r[:, t] + gamma * acc
        G[:, t] = acc
    B = _baseline_values(baseline, tr, policy, G, obs_flat)
    weights = disc[None, :] * (G - B) * tr.mask
    samples = np.einsum("nt,ntp->np", weights, glp)
    return samples.mean(axis=0), samples


def _baseline_values(baseline, tr, policy, G, obs_flat):
    n, T = G.shape
    if baseline is None:
        return np.zeros((n, T))
    if callable(baseline):
        B = np.column_stack(
            [np.asarray(baseline(t, tr.observations[:, t]), dtype=np.float64).reshape(n) for t in range(T)]
        )
        return B
    if baseline == "fitted":
        # Algorithm 9, eq. 17.12: least squares of R_{>=t} on phi(s_t) over all valid steps
        F = policy.features_of(obs_flat)
        m = tr.mask.ravel()
        w, *_ = np.linalg.lstsq(F[m], G.ravel()[m], rcond=None)
        return (F @ w).reshape(n, T)
    raise MDPValidationError(f"baseline must be None, 'fitted' or a callable B(t, observations), got {baseline!r}")


# -- the REINFORCE loop -----------------------------------------------------------------------------
@dataclass
class ReinforceResult:
    """Per-iteration history of :func:`reinforce` (row ``k`` = iteration ``k``, before its update)."""

    theta: np.ndarray
    theta_history: np.ndarray  # (n_iter + 1, p)
    mean_returns: np.ndarray  # (n_iter,) batch mean of f(tau), the estimate of eta
    grad_norms: np.ndarray  # (n_iter,) ||estimate||_2
    grad_variances: np.ndarray  # (n_iter,) sum_j sample Var(g_ij) of one-trajectory terms
    n_iter: int
    conventions: dict = field(default_factory=dict)


def reinforce(
    env,
    policy,
    theta0,
    *,
    n_iter: int = 100,
    n_episodes: int = 20,
    horizon: int = 50,
    gamma: float = 0.99,
    learning_rate: float = 0.01,
    baseline=None,
    estimator: str = "reward_to_go",
    initial_distribution=None,
    random_state=None,
) -> ReinforceResult:
    """Vanilla policy gradient ascent ``theta := theta + learning_rate * g_hat`` (notes ch. 17, Alg. 9).

    ``env`` is a :class:`FiniteMDP` (trajectories simulated in parallel from ``initial_distribution``,
    default uniform) or an environment with the ``reset``/``step`` interface. ``random_state`` seeds
    every batch.
    """
    check_scalar(n_iter, "n_iter", numbers.Integral, low=1)
    check_scalar(n_episodes, "n_episodes", numbers.Integral, low=2)
    check_scalar(horizon, "horizon", numbers.Integral, low=1)
    check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
    gamma = check_gamma(gamma)
    rng = check_random_state(random_state)
    theta = np.asarray(theta0, dtype=np.float64).copy()
    policy._check_theta(theta)
    hist, rets, norms, varis = [theta.copy()], [], [], []
    for _ in range(n_iter):
        if isinstance(env, FiniteMDP):
            tr = sample_mdp_trajectories(
                env, policy, theta, n_episodes, horizon, initial_distribution=initial_distribution, random_state=rng
            )
        else:
            tr = collect_trajectories(env, policy, theta, n_episodes, horizon, random_state=rng)
        g, samples = policy_gradient(tr, policy, theta, gamma=gamma, baseline=baseline, estimator=estimator)
        rets.append(float(tr.discounted_returns(gamma).mean()))
        norms.append(float(np.linalg.norm(g)))
        varis.append(float(np.sum(samples.var(axis=0, ddof=1))))
        theta = theta + learning_rate * g
        if not np.all(np.isfinite(theta)):
            raise DivergenceError("REINFORCE produced non-finite parameters; lower learning_rate")
        hist.append(theta.copy())
    conventions = {
        "estimator": estimator,
        "baseline": baseline if isinstance(baseline, (str, type(None))) else "callable",
        "discount_in_gradient": "gamma^t kept (eq. 17.11)",
        "variance": "sum over coordinates of the sample variance (ddof=1) of per-trajectory terms",
    }
    return ReinforceResult(theta, np.array(hist), np.array(rets), np.array(norms), np.array(varis), n_iter, conventions)


# -- exact quantities on a small finite MDP (for checks) --------------------------------------------
def _initial(initial_distribution, S):
    if initial_distribution is None:
        return np.full(S, 1.0 / S)
    mu = np.asarray(initial_distribution, dtype=np.float64)
    if mu.shape != (S,) or mu.min() < 0 or not np.isclose(mu.sum(), 1.0):
        raise MDPValidationError(f"initial_distribution must be a distribution over the {S} states")
    return mu


def _finite_horizon_q(mdp, probs, horizon, gamma):
    """Q_t(s, a) = R(s, a) + gamma sum_s' P V_{t+1}(s'), V_T = 0, for t = 0..T-1."""
    S, A = mdp.n_states, mdp.n_actions
    Q = np.zeros((horizon, S, A))
    V = np.zeros(S)
    for t in range(horizon - 1, -1, -1):
        Q[t] = mdp.rewards + gamma * mdp.expected_next_values(V)
        V = np.sum(probs * Q[t], axis=1)
    return Q


def _state_distributions(mdp, probs, horizon, mu):
    P_pi, _ = mdp.policy_model(probs)
    d = np.zeros((horizon, mdp.n_states))
    cur = mu
    for t in range(horizon):
        d[t] = cur
        cur = np.asarray(P_pi.T @ cur).ravel()
    return d


def expected_return(
    mdp: FiniteMDP, policy: SoftmaxPolicy, theta, horizon: int, *, gamma: float | None = None, initial_distribution=None
) -> float:
    """Exact ``eta(theta) = E[sum_{t<T} gamma^t R(s_t, a_t)]`` by propagating the state distribution."""
    gamma = mdp.gamma if gamma is None else check_gamma(gamma)
    probs = policy.probabilities(theta, np.arange(mdp.n_states))
    d = _state_distributions(mdp, probs, horizon, _initial(initial_distribution, mdp.n_states))
    r_pi = np.sum(probs * mdp.rewards, axis=1)
    return float(np.sum((gamma ** np.arange(horizon)) * (d @ r_pi)))


def exact_policy_gradient(
    mdp: FiniteMDP, policy: SoftmaxPolicy, theta, horizon: int, *, gamma: float | None = None, initial_distribution=None
) -> np.ndarray:
    """Exact ``grad eta`` = ``sum_t gamma^t sum_s d_t(s) sum_a pi(a|s) grad log pi(a|s) Q_t(s, a)`` (finite horizon)."""
    gamma = mdp.gamma if gamma is None else check_gamma(gamma)
    S, A = mdp.n_states, mdp.n_actions
    states = np.arange(S)
    probs = policy.probabilities(theta, states)
    d = _state_distributions(mdp, probs, horizon, _initial(initial_distribution, S))
    Q = _finite_horizon_q(mdp, probs, horizon, gamma)
    grads = np.stack([policy.grad_log_prob(theta, states, np.full(S, a)) for a in range(A)], axis=1)  # (S, A, p)
    w = np.einsum("t,ts,sa,tsa->sa", gamma ** np.arange(horizon), d, probs, Q)
    return np.einsum("sa,sap->p", w, grads)
