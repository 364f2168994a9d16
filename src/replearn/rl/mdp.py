"""Finite Markov decision processes: the tuple (S, A, {P_sa}, gamma, R) of CS229 notes §15.1.

CS229 notes §15.1 (seed 000 L5280-5348): an MDP is states ``S``, actions ``A``, transition
distributions ``P_sa`` over next states, a discount ``gamma in [0, 1]`` and a reward ``R(s)`` or
``R(s, a)``. The payoff of a run is ``R(s_0, a_0) + gamma R(s_1, a_1) + ...``; the value of a
policy solves the Bellman equations ``V(s) = R(s, pi(s)) + gamma sum_s' P_{s pi(s)}(s') V(s')``.

Storage. Transitions are given either as a dense array of shape ``(S, A, S)`` (``P[s, a, s']``) or
as a ``scipy.sparse`` matrix of shape ``(S * A, S)`` whose row ``s * A + a`` is ``P_sa`` (large
grid worlds have a handful of successors per pair, so a 10,000-state world fits in kilobytes
instead of the 3 GB of a dense array). Internally both are one ``(S * A, S)`` matrix, so a
Bellman backup is one matrix-vector product: ``Q = R + gamma (P @ V).reshape(S, A)``.

Undiscounted problems (gamma = 1). The notes allow ``gamma in [0, 1]`` (L5287) but the total
reward is then only defined when the process ends. ``FiniteMDP`` accepts gamma = 1 when the MDP is
a *stochastic shortest path* problem in the sense of Bertsekas & Tsitsiklis (1991), checked by
graph reachability on the support of ``P`` (:meth:`FiniteMDP.check_properness`):

1. there is a closed zero-reward set ``Z`` (every action keeps the process in ``Z`` and earns 0;
   the sink after the terminals of the 4x3 grid world, for instance);
2. from every state, ``Z`` is reachable under *some* policy (so a proper policy exists: taking
   in each state an action that moves one step closer to ``Z`` in the transition graph reaches it
   with probability 1);
3. every policy that can avoid ``Z`` forever pays for it: for every state ``s`` of the largest set
   ``W`` (disjoint from ``Z``) in which each state has an action keeping the process in ``W``,
   each such action has ``R(s, a) < 0``. Then every improper policy has total reward ``-inf``,
   so ``V*`` is finite and unique and value and policy iteration converge.

Condition 3 is sufficient, not necessary (a trap with some rewards >= 0 but a negative average
would also do); when every policy is proper, ``W`` is empty and it holds trivially. The 4x3 world
with a living reward of -0.04 passes (an agent that keeps bumping into walls avoids the
terminals forever, but pays -0.04 a step); with a living reward >= 0 it is rejected.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .exceptions import ImproperMDPError, MDPValidationError

__all__ = ["FiniteMDP", "check_gamma", "sample_rows"]

#: tolerance on the row sums of P
ROW_SUM_ATOL = 1e-8


def check_gamma(gamma) -> float:
    """Return ``gamma`` as a float in [0, 1] or raise :class:`MDPValidationError`."""
    if isinstance(gamma, bool) or not isinstance(gamma, (numbers.Real, np.floating)):
        raise MDPValidationError(f"gamma must be a number in [0, 1], got {type(gamma).__name__} {gamma!r}")
    gamma = float(gamma)
    if not np.isfinite(gamma) or gamma < 0.0 or gamma > 1.0:
        raise MDPValidationError(f"the discount gamma must lie in [0, 1] (CS229 notes L5287), got {gamma!r}")
    return gamma


class FiniteMDP:
    """A finite MDP ``(S, A, {P_sa}, gamma, R)`` with validated arrays (CS229 notes §15.1).

    Parameters
    ----------
    transitions : array (S, A, S) or scipy.sparse matrix (S * A, S)
        ``P[s, a, s']``, the probability of moving to ``s'`` after action ``a`` in state ``s``.
        Entries must be finite and non-negative and each ``P_sa`` must sum to 1 (within 1e-8).
    rewards : array (S,) or (S, A)
        ``R(s)`` (the notes' state reward, received in ``s`` whatever the action) or ``R(s, a)``.
    gamma : float in [0, 1]
        Discount. ``gamma = 1`` is accepted only for stochastic-shortest-path problems (module
        docstring); otherwise :class:`ImproperMDPError` says which condition fails.

    Attributes
    ----------
    n_states, n_actions : int
    gamma : float
    rewards : array (S, A)
        ``R(s, a)`` (state rewards are broadcast over actions).
    state_rewards : bool
        Whether ``rewards`` was given per state.
    transitions_flat : ndarray or CSR matrix (S * A, S)
        Row ``s * A + a`` is ``P_sa``.
    absorbing_set : bool array (S,)
        The largest closed zero-reward set ``Z`` (all False when there is none).
    """

    def __init__(self, transitions, rewards, gamma):
        self.gamma = check_gamma(gamma)
        self.transitions_flat, self.n_states, self.n_actions = _check_transitions(transitions)
        self.rewards, self.state_rewards = _check_rewards(rewards, self.n_states, self.n_actions)
        self._support = None
        self.absorbing_set = self._closed_zero_reward_set()
        self._distance = None
        if self.gamma == 1.0:
            self.check_properness()

    # -- basic views ---------------------------------------------------------------------------
    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.transitions_flat)

    @property
    def transitions(self) -> np.ndarray:
        """Dense ``(S, A, S)`` array (built on demand for sparse MDPs; avoid for large ones)."""
        P = self.transitions_flat.toarray() if self.is_sparse else self.transitions_flat
        return P.reshape(self.n_states, self.n_actions, self.n_states)

    def __repr__(self) -> str:
        kind = "sparse" if self.is_sparse else "dense"
        return f"FiniteMDP(n_states={self.n_states}, n_actions={self.n_actions}, gamma={self.gamma}, {kind})"

    # -- Bellman operators -----------------------------------------------------------------------
    def expected_next_values(self, V) -> np.ndarray:
        """``E_{s' ~ P_sa}[V(s')]`` for every pair, shape (S, A): one matrix-vector product."""
        return np.asarray(self.transitions_flat @ V).reshape(self.n_states, self.n_actions)

    def q_values(self, V) -> np.ndarray:
        """``Q(s, a) = R(s, a) + gamma sum_s' P_sa(s') V(s')``, shape (S, A)."""
        return self.rewards + self.gamma * self.expected_next_values(V)

    def bellman_backup(self, V) -> np.ndarray:
        """The Bellman optimality operator ``(B V)(s) = max_a Q(s, a)`` (notes eq. 15.4)."""
        return self.q_values(V).max(axis=1)

    def policy_probabilities(self, policy) -> np.ndarray:
        """Validate a policy and return it as an ``(S, A)`` matrix of action probabilities.

        ``policy`` is an int array (S,) of actions (the notes' deterministic ``pi : S -> A``) or an
        ``(S, A)`` array whose rows are distributions over actions.
        """
        S, A = self.n_states, self.n_actions
        pol = np.asarray(policy)
        if pol.ndim == 1:
            if pol.shape[0] != S:
                raise MDPValidationError(
                    f"a deterministic policy must have one action per state ({S}), got {pol.shape[0]}"
                )
            if pol.dtype.kind not in "iu" and not (pol.dtype.kind == "f" and np.all(np.mod(pol, 1) == 0)):
                raise MDPValidationError(f"policy actions must be integers, got dtype {pol.dtype}")
            pol = pol.astype(np.int64)
            if pol.min() < 0 or pol.max() >= A:
                raise MDPValidationError(
                    f"policy actions must lie in [0, {A - 1}], got values in [{pol.min()}, {pol.max()}]"
                )
            probs = np.zeros((S, A))
            probs[np.arange(S), pol] = 1.0
            return probs
        if pol.ndim == 2:
            if pol.shape != (S, A):
                raise MDPValidationError(
                    f"a stochastic policy must have shape (n_states, n_actions) = ({S}, {A}), got {pol.shape}"
                )
            pol = pol.astype(np.float64)
            if (
                not np.all(np.isfinite(pol))
                or pol.min() < 0
                or not np.allclose(pol.sum(axis=1), 1.0, rtol=0, atol=ROW_SUM_ATOL)
            ):
                raise MDPValidationError(
                    "each row of a stochastic policy must be a probability distribution over actions"
                )
            return pol
        raise MDPValidationError(f"policy must be 1-D (actions) or 2-D (probabilities), got shape {pol.shape}")

    def policy_model(self, policy):
        """``(P_pi, R_pi)``: the Markov chain (S, S) and the expected reward (S,) under ``policy``."""
        probs = self.policy_probabilities(policy)
        S, A = self.n_states, self.n_actions
        rows = np.repeat(np.arange(S), A)
        cols = np.arange(S * A)
        mix = sp.csr_matrix((probs.ravel(), (rows, cols)), shape=(S, S * A))
        P_pi = mix @ self.transitions_flat
        if sp.issparse(P_pi):
            P_pi = P_pi.tocsr()
        else:
            P_pi = np.asarray(P_pi)
        R_pi = np.sum(probs * self.rewards, axis=1)
        return P_pi, R_pi

    def greedy_policy(self, V, *, atol: float = 1e-10) -> np.ndarray:
        """``pi(s) = argmax_a Q(s, a)`` (notes eq. 15.3 / 16.x); ties within ``atol`` go to the smallest action."""
        Q = self.q_values(V)
        return _argmax_ties_low(Q, atol)

    # -- sampling ------------------------------------------------------------------------------
    def sample_next_states(self, states, actions, rng: np.random.Generator) -> np.ndarray:
        """Draw ``s' ~ P_sa`` for arrays of states and actions (vectorized inverse-CDF sampling)."""
        rows = np.asarray(states, dtype=np.int64) * self.n_actions + np.asarray(actions, dtype=np.int64)
        return sample_rows(self.transitions_flat, rows, rng)

    # -- structure: absorbing set, properness ----------------------------------------------------
    def _support_flat(self):
        """Boolean support of P as a CSR matrix (S * A, S) of ones."""
        if self._support is None:
            P = self.transitions_flat
            supp = sp.csr_matrix(P) if not self.is_sparse else P.tocsr(copy=True)
            supp.eliminate_zeros()
            supp.data = np.ones_like(supp.data)
            self._support = supp
        return self._support

    def _leaves(self, inside: np.ndarray) -> np.ndarray:
        """(S, A) bool: action ``a`` in ``s`` has positive probability of leaving the set ``inside``."""
        out = self._support_flat() @ (~inside).astype(np.float64)
        return np.asarray(out).reshape(self.n_states, self.n_actions) > 0

    def _closed_zero_reward_set(self) -> np.ndarray:
        Z = np.all(self.rewards == 0.0, axis=1)
        while True:
            keep = Z & ~np.any(self._leaves(Z), axis=1)
            if np.array_equal(keep, Z):
                return Z
            Z = keep

    def distance_to_absorbing(self) -> np.ndarray:
        """Fewest transitions (under the best choice of actions) from each state to the absorbing set.

        ``-1`` marks states that cannot reach it. Computed by backward breadth-first search on the
        union of the supports of all ``P_sa``.
        """
        if self._distance is None:
            S, A = self.n_states, self.n_actions
            dist = np.full(S, -1, dtype=np.int64)
            reached = self.absorbing_set.copy()
            dist[reached] = 0
            supp = self._support_flat()
            level = 0
            while True:
                level += 1
                hits = np.asarray(supp @ reached.astype(np.float64)).reshape(S, A) > 0
                new = np.any(hits, axis=1) & ~reached
                if not new.any():
                    break
                dist[new] = level
                reached |= new
            self._distance = dist
        return self._distance

    def proper_policy(self) -> np.ndarray:
        """A deterministic policy that reaches the absorbing set with probability 1 from every state.

        In each state it takes an action with positive probability of moving one step closer to the
        absorbing set (breadth-first distances); under it every state has a positive-probability path
        of at most ``S`` steps into the set, so the set is reached almost surely.
        """
        dist = self.distance_to_absorbing()
        if np.any(dist < 0):
            raise ImproperMDPError(
                f"no policy reaches the absorbing zero-reward set from states {np.flatnonzero(dist < 0)[:20].tolist()}"
            )
        S, A = self.n_states, self.n_actions
        supp = self._support_flat().tocsr()
        d_next = dist[supp.indices].astype(np.float64)
        # smallest successor distance of every (s, a) row (each row has >= 1 entry: it sums to 1)
        best = np.minimum.reduceat(d_next, supp.indptr[:-1]).reshape(S, A)
        policy = np.argmin(best, axis=1)
        policy[self.absorbing_set] = 0
        return policy

    def check_properness(self) -> None:
        """Raise :class:`ImproperMDPError` unless gamma = 1 is well posed here (module docstring, conditions 1-3)."""
        Z = self.absorbing_set
        if not Z.any():
            raise ImproperMDPError(
                "gamma = 1 needs a closed set of zero-reward states that every run eventually enters "
                "(e.g. an absorbing state after the terminals); this MDP has none. Use gamma < 1."
            )
        dist = self.distance_to_absorbing()
        if np.any(dist < 0):
            bad = np.flatnonzero(dist < 0)
            raise ImproperMDPError(
                f"with gamma = 1 every state must be able to reach the absorbing zero-reward set; states "
                f"{bad[:20].tolist()} cannot under any policy, so their total reward is not finite. Use gamma < 1."
            )
        W = ~Z
        while True:
            stay = ~self._leaves(W)
            keep = W & np.any(stay, axis=1)
            if np.array_equal(keep, W):
                break
            W = keep
        if W.any():
            stay = ~self._leaves(W) & W[:, None]
            offending = stay & (self.rewards >= 0.0)
            if offending.any():
                s, a = np.argwhere(offending)[0]
                raise ImproperMDPError(
                    f"with gamma = 1 some policy never reaches the absorbing zero-reward set without paying for "
                    f"it: e.g. taking action {a} in state {s} keeps the process among states "
                    f"{np.flatnonzero(W)[:20].tolist()} forever with reward {self.rewards[s, a]:g} >= 0, so "
                    "its total reward is 0 or +inf and V* is not unique. Use gamma < 1 or make such rewards negative."
                )

    def policy_is_proper(self, policy) -> np.ndarray:
        """Bool (S,): under ``policy``, the absorbing set is reached with probability 1 from each state."""
        P_pi, _ = self.policy_model(policy)
        supp = sp.csr_matrix(P_pi) if not sp.issparse(P_pi) else P_pi
        reached = self.absorbing_set.copy()
        while True:
            new = (np.asarray(supp @ reached.astype(np.float64)) > 0) & ~reached
            if not new.any():
                break
            reached |= new
        # reaching with positive probability from every state of a finite chain = almost surely
        return reached


def sample_rows(P, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one column index from each of the given rows of a row-stochastic matrix (dense or CSR)."""
    u = rng.random(rows.shape)
    if sp.issparse(P):
        csum = np.cumsum(P.data)
        start = P.indptr[rows]
        end = P.indptr[rows + 1] - 1
        base = np.where(start > 0, csum[np.maximum(start - 1, 0)], 0.0)
        idx = np.searchsorted(csum, base + u * (csum[end] - base), side="right")
        return P.indices[np.minimum(idx, end)].astype(np.int64)
    cdf = np.cumsum(P[rows], axis=-1)
    nxt = np.sum(cdf <= (u * cdf[..., -1])[..., None], axis=-1)
    return np.minimum(nxt, P.shape[1] - 1).astype(np.int64)


def _argmax_ties_low(Q: np.ndarray, atol: float) -> np.ndarray:
    best = Q.max(axis=1, keepdims=True)
    return np.argmax(Q >= best - atol, axis=1)


def _check_transitions(transitions):
    if sp.issparse(transitions):
        P = sp.csr_matrix(transitions, dtype=np.float64)
        SA, S = P.shape
        if S == 0 or SA == 0 or SA % S != 0:
            raise MDPValidationError(
                f"sparse transitions must have shape (n_states * n_actions, n_states), got {P.shape}"
            )
        A = SA // S
        data = P.data
        if not np.all(np.isfinite(data)):
            raise MDPValidationError("transitions contain NaN or infinite values")
        if data.size and data.min() < 0:
            raise MDPValidationError("transition probabilities must be non-negative")
        sums = np.asarray(P.sum(axis=1)).ravel()
        P.sort_indices()
    else:
        try:
            arr = np.asarray(transitions, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise MDPValidationError(f"transitions could not be converted to a float array: {exc}") from exc
        if arr.ndim != 3 or arr.shape[0] != arr.shape[2] or arr.shape[0] == 0 or arr.shape[1] == 0:
            raise MDPValidationError(f"transitions must have shape (n_states, n_actions, n_states), got {arr.shape}")
        S, A = arr.shape[0], arr.shape[1]
        if not np.all(np.isfinite(arr)):
            raise MDPValidationError("transitions contain NaN or infinite values")
        if arr.min() < 0:
            raise MDPValidationError("transition probabilities must be non-negative")
        P = np.ascontiguousarray(arr.reshape(S * A, S))
        sums = P.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_ATOL)
    if bad.size:
        r = bad[0]
        raise MDPValidationError(
            f"each P_sa must sum to 1: P[s={r // A}, a={r % A}, :] sums to {sums[r]:.10g} "
            f"({bad.size} of {S * A} rows are off by more than {ROW_SUM_ATOL:g})"
        )
    return P, S, A


def _check_rewards(rewards, S: int, A: int):
    try:
        R = np.asarray(rewards, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MDPValidationError(f"rewards could not be converted to a float array: {exc}") from exc
    if not np.all(np.isfinite(R)):
        raise MDPValidationError("rewards contain NaN or infinite values")
    if R.shape == (S,):
        return np.repeat(R[:, None], A, axis=1), True
    if R.shape == (S, A):
        return R.copy(), False
    raise MDPValidationError(
        f"rewards must have shape (n_states,) = ({S},) or (n_states, n_actions) = ({S}, {A}), got {R.shape}"
    )
