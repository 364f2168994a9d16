"""Planning in a known finite MDP: policy evaluation, value iteration, policy iteration (CS229 §15.1-15.2, 15.5).

All three return an :class:`MDPSolution` (values, policy, Q-values and the per-iteration history).

* **Policy evaluation** (§15.1, L5318-5324): ``V^pi`` solves the ``|S|`` linear Bellman equations
  ``(I - gamma P_pi) V = R_pi`` (``method="exact"``, LU or sparse LU), or is approached by the
  iterative update ``V := R_pi + gamma P_pi V`` (eq. 15.12, ``method="iterative"``).
* **Value iteration** (Alg. 6, eq. 15.4, L5356-5370): ``V := max_a [R(s, a) + gamma sum_s' P_sa(s') V(s')]``
  from ``V = 0``. ``update="synchronous"`` applies the Bellman backup operator to all states at once
  (one sparse/dense matrix-vector product per sweep); ``update="gauss-seidel"`` is the notes'
  *asynchronous* variant, looping over the states and using each new value immediately.
* **Policy iteration** (Alg. 7, L5372-5389): ``V := V^pi`` by a linear solve, then ``pi := greedy(V)``,
  until the policy stops changing -- at most ``|A|^|S|`` iterations, since no policy repeats (each
  improvement raises ``V^pi`` strictly somewhere). ``evaluation_steps=k`` gives the notes'
  Algorithm 8 (§15.5, L5575-5604): ``k`` sweeps of eq. 15.12 warm-started from the current ``V``
  (option 2) instead of the exact solve; ``k = 1`` is value iteration.

Stopping rule and error bound (value iteration, gamma < 1). The backup ``B`` is a gamma-contraction
in the sup norm (notes §16.1 theorem, L5696-5702), and so is one Gauss-Seidel sweep. With the residual
``r_k = ||V_k - V_{k-1}||_inf``,

    ||V_k - V*||_inf <= gamma r_k / (1 - gamma)      (recorded as ``bounds[k-1]``),

and the greedy policy ``pi`` of the final ``V`` loses at most ``2 gamma ||BV - V||_inf / (1 - gamma)``
(``policy_loss_bound``; Williams & Baird 1993). Iteration stops once the first bound is ``<= tol``. With gamma = 1 (a
stochastic shortest path problem, see :mod:`replearn.rl.mdp`) there is no sup-norm contraction: the
run stops when ``r_k <= tol`` and the bound is recorded as ``inf``.

Ties. ``greedy`` takes the smallest action among those within ``atol = 1e-10`` of the best Q-value;
policy iteration keeps the current action when it is within ``atol`` of the best, so floating-point
noise cannot make it cycle between tied actions.
"""

from __future__ import annotations

import numbers
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..exceptions import ConvergenceWarning, DivergenceError
from ..validation import check_random_state, check_scalar
from .exceptions import ImproperMDPError, MDPValidationError
from .mdp import FiniteMDP, _argmax_ties_low

__all__ = ["MDPSolution", "greedy_policy", "policy_evaluation", "policy_iteration", "value_iteration"]

TIE_ATOL = 1e-10
_VI_UPDATES = ("synchronous", "gauss-seidel")


@dataclass
class MDPSolution:
    """What a planning routine found, and how it got there.

    Attributes
    ----------
    values : array (S,)
        The value function (``V*`` for value/policy iteration, ``V^pi`` for policy evaluation).
    policy : int array (S,) or array (S, A)
        Greedy policy w.r.t. ``values`` (or the evaluated policy, as given).
    q_values : array (S, A)
        ``R + gamma P values``.
    method : str
    gamma : float
    n_iter : int
        Sweeps (value iteration, iterative evaluation) or improvement steps (policy iteration).
    converged : bool
    error_bound : float
        Guaranteed bound on ``||values - V_target||_inf`` (``V*`` or ``V^pi``): ``gamma r / (1 - gamma)``
        for value iteration and iterative evaluation, ``||BV - V|| / (1 - gamma)`` for Algorithm 8, 0 for
        exact solves, ``inf`` when no bound is available (gamma = 1).
    policy_loss_bound : float
        Bound on ``||V^policy - V*||_inf``: ``2 gamma ||B V - V||_inf / (1 - gamma)`` after value iteration
        or Algorithm 8, 0 after exact policy iteration, ``nan`` for policy evaluation.
    residuals, bounds, times : arrays (n_iter,)
        Per iteration: ``||V_k - V_{k-1}||_inf`` (policy iteration: the Bellman residual
        ``||B V^pi_k - V^pi_k||_inf``), the error bound after it, and its wall-clock seconds.
    policy_changes : int array (n_iter,) or None
        Policy iteration only: how many states changed action at each improvement step.
    value_history : array (n_iter + 1, S) or None
        The iterates ``V_0, V_1, ...`` when ``keep_values=True``.
    conventions : dict
        Update scheme, stopping rule, tie-breaking, initialization.
    """

    values: np.ndarray
    policy: np.ndarray
    q_values: np.ndarray
    method: str
    gamma: float
    n_iter: int
    converged: bool
    error_bound: float
    policy_loss_bound: float
    residuals: np.ndarray
    bounds: np.ndarray
    times: np.ndarray
    policy_changes: np.ndarray | None = None
    value_history: np.ndarray | None = None
    conventions: dict = field(default_factory=dict)


def greedy_policy(mdp: FiniteMDP, values, *, atol: float = TIE_ATOL) -> np.ndarray:
    """``pi(s) = argmax_a R(s, a) + gamma sum_s' P_sa(s') V(s')`` (notes eq. 15.3); ties go to the lowest action."""
    _check_mdp(mdp)
    return mdp.greedy_policy(_check_values(values, mdp.n_states), atol=atol)


# -- policy evaluation ------------------------------------------------------------------------------
def policy_evaluation(
    mdp: FiniteMDP,
    policy,
    *,
    method: str = "exact",
    tol: float = 1e-10,
    max_iter: int = 100_000,
    initial_values=None,
    keep_values: bool = False,
) -> MDPSolution:
    """Value function ``V^pi`` of a deterministic (S,) or stochastic (S, A) policy (notes §15.1, eq. 15.12).

    ``method="exact"`` solves ``(I - gamma P_pi) V = R_pi``; with gamma = 1 only on the states outside
    the absorbing set (where ``V = 0``), after checking the policy is proper (raises
    :class:`ImproperMDPError` otherwise -- its value would be infinite or undefined).
    ``method="iterative"`` repeats ``V := R_pi + gamma P_pi V`` from ``initial_values`` (default 0)
    until the bound ``gamma r / (1 - gamma) <= tol`` (gamma = 1: ``r <= tol``).
    """
    _check_mdp(mdp)
    check_scalar(method, "method", str, choices=("exact", "iterative"))
    probs = mdp.policy_probabilities(policy)
    P_pi, R_pi = mdp.policy_model(probs)
    gamma = mdp.gamma
    S = mdp.n_states
    if gamma == 1.0:
        proper = mdp.policy_is_proper(probs)
        if not proper.all():
            raise ImproperMDPError(
                f"the policy never reaches the absorbing zero-reward set from states "
                f"{np.flatnonzero(~proper)[:20].tolist()}; with gamma = 1 its value is not finite"
            )
    given = np.asarray(policy)
    conventions = {"evaluation": method}
    if method == "exact":
        t0 = time.perf_counter()
        V = _solve_bellman(P_pi, R_pi, gamma, mdp.absorbing_set)
        dt = time.perf_counter() - t0
        Q = mdp.q_values(V)
        return MDPSolution(
            V,
            given,
            Q,
            "policy_evaluation(exact)",
            gamma,
            1,
            True,
            0.0,
            float("nan"),
            np.zeros(1),
            np.zeros(1),
            np.array([dt]),
            None,
            np.vstack([V]) if keep_values else None,
            conventions,
        )
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    V = np.zeros(S) if initial_values is None else _check_values(initial_values, S).copy()
    history = [V.copy()] if keep_values else None
    residuals, bounds, times = [], [], []
    converged = False
    for _ in range(max_iter):
        t0 = time.perf_counter()
        V_new = R_pi + gamma * np.asarray(P_pi @ V)
        r = float(np.max(np.abs(V_new - V)))
        V = V_new
        _check_finite(V, "iterative policy evaluation")
        b = _bound(gamma, r)
        residuals.append(r)
        bounds.append(b)
        times.append(time.perf_counter() - t0)
        if history is not None:
            history.append(V.copy())
        if (b if gamma < 1 else r) <= tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"iterative policy evaluation stopped at max_iter={max_iter} with residual {r:.3g}",
            ConvergenceWarning,
            stacklevel=2,
        )
    conventions["stopping"] = _stop_text(gamma, tol)
    return MDPSolution(
        V,
        given,
        mdp.q_values(V),
        "policy_evaluation(iterative)",
        gamma,
        len(residuals),
        converged,
        bounds[-1],
        float("nan"),
        np.array(residuals),
        np.array(bounds),
        np.array(times),
        None,
        np.array(history) if history is not None else None,
        conventions,
    )


# -- value iteration --------------------------------------------------------------------------------
def value_iteration(
    mdp: FiniteMDP,
    *,
    tol: float = 1e-8,
    max_iter: int = 100_000,
    update: str = "synchronous",
    initial_values=None,
    order=None,
    keep_values: bool = False,
) -> MDPSolution:
    """Value iteration (CS229 Alg. 6, eq. 15.4): ``V(s) := max_a [R(s, a) + gamma sum_s' P_sa(s') V(s')]``.

    Parameters
    ----------
    mdp : FiniteMDP
    tol : float >= 0
        Stop once the guaranteed bound ``gamma r_k / (1 - gamma)`` on ``||V_k - V*||_inf`` is ``<= tol``
        (gamma = 1: once the residual ``r_k <= tol``).
    max_iter : int
        Most sweeps; reaching it warns :class:`ConvergenceWarning`.
    update : {"synchronous", "gauss-seidel"}
        All states from the old ``V`` (the Bellman backup operator), or one state at a time using the
        newest values (the notes' asynchronous update).
    initial_values : array (S,), optional
        Start (default ``V = 0``, the notes' step 1; pass the previous solution to warm-start, §15.3).
    order : int array (S,), optional
        State order of a Gauss-Seidel sweep (default ``0, ..., S - 1``).
    keep_values : bool
        Store every iterate in ``value_history`` (for checking the bound).
    """
    _check_mdp(mdp)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(update, "update", str, choices=_VI_UPDATES)
    S, gamma = mdp.n_states, mdp.gamma
    V = np.zeros(S) if initial_values is None else _check_values(initial_values, S).copy()
    if update == "gauss-seidel":
        order = np.arange(S) if order is None else _check_order(order, S)
        sweep = _gauss_seidel_sweeper(mdp, order)
    history = [V.copy()] if keep_values else None
    residuals, bounds, times = [], [], []
    converged = False
    r = float("inf")
    for _ in range(max_iter):
        t0 = time.perf_counter()
        if update == "synchronous":
            V_new = mdp.bellman_backup(V)
        else:
            V_new = sweep(V.copy())
        r = float(np.max(np.abs(V_new - V)))
        V = V_new
        _check_finite(V, "value iteration")
        b = _bound(gamma, r)
        residuals.append(r)
        bounds.append(b)
        times.append(time.perf_counter() - t0)
        if history is not None:
            history.append(V.copy())
        if (b if gamma < 1 else r) <= tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"value iteration stopped at max_iter={max_iter} with residual {r:.3g} (tol={tol:g})",
            ConvergenceWarning,
            stacklevel=2,
        )
    Q = mdp.q_values(V)
    policy = _argmax_ties_low(Q, TIE_ATOL)
    loss = _greedy_loss(gamma, float(np.max(np.abs(Q.max(axis=1) - V))))
    conventions = {
        "update": update,
        "init": "V = 0" if initial_values is None else "given",
        "stopping": _stop_text(gamma, tol),
        "tie_break": f"lowest action within {TIE_ATOL:g} of max Q",
    }
    return MDPSolution(
        V,
        policy,
        Q,
        f"value_iteration({update})",
        gamma,
        len(residuals),
        converged,
        bounds[-1],
        loss,
        np.array(residuals),
        np.array(bounds),
        np.array(times),
        None,
        np.array(history) if history is not None else None,
        conventions,
    )


def _gauss_seidel_sweeper(mdp: FiniteMDP, order: np.ndarray):
    """Return ``sweep(V)`` updating ``V`` in place state by state (the notes' asynchronous update)."""
    A, gamma, R = mdp.n_actions, mdp.gamma, mdp.rewards
    P = mdp.transitions_flat
    if sp.issparse(P):
        # a grid-world state has a handful of successors: plain Python floats beat per-state numpy calls
        indptr, indices, data = P.indptr, P.indices.tolist(), P.data.tolist()
        rows = [
            [
                (
                    float(R[s, a]),
                    list(
                        zip(
                            indices[indptr[s * A + a] : indptr[s * A + a + 1]],
                            data[indptr[s * A + a] : indptr[s * A + a + 1]],
                        )
                    ),
                )
                for a in range(A)
            ]
            for s in range(mdp.n_states)
        ]
        order_list = [int(s) for s in order]

        def sweep(V):
            Vl = V.tolist()
            for s in order_list:
                Vl[s] = max(r + gamma * sum([p * Vl[j] for j, p in row]) for r, row in rows[s])
            return np.array(Vl)
    else:
        blocks = P.reshape(mdp.n_states, A, mdp.n_states)

        def sweep(V):
            for s in order:
                V[s] = np.max(R[s] + gamma * (blocks[s] @ V))
            return V

    return sweep


# -- policy iteration -------------------------------------------------------------------------------
def policy_iteration(
    mdp: FiniteMDP,
    *,
    initial_policy=None,
    evaluation_steps: int | None = None,
    tol: float = 1e-8,
    max_iter: int = 10_000,
    random_state=None,
    keep_values: bool = False,
) -> MDPSolution:
    """Policy iteration (CS229 Alg. 7): ``V := V^pi`` (linear solve), ``pi := greedy(V)``, until ``pi`` is stable.

    Parameters
    ----------
    mdp : FiniteMDP
    initial_policy : None, "random" or int array (S,)
        The notes start from a random policy (``"random"``, drawn from ``random_state``). Default
        ``None``: action 0 everywhere when gamma < 1; with gamma = 1 a proper policy
        (:meth:`FiniteMDP.proper_policy`), since an improper start has an infinite value.
    evaluation_steps : int >= 1 or None
        ``None``: exact evaluation (Alg. 7). ``k``: Algorithm 8's ``VE(pi, k)``, ``k`` sweeps of eq. 15.12
        warm-started from the current ``V`` (option 2); then iteration stops when the Bellman residual
        bound ``gamma r / (1 - gamma) <= tol`` (gamma = 1: ``r <= tol``) and the policy is stable.
    max_iter : int
        Most improvement steps (exact evaluation needs at most ``|A|^|S|``).
    """
    _check_mdp(mdp)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    if evaluation_steps is not None:
        check_scalar(evaluation_steps, "evaluation_steps", numbers.Integral, low=1)
    S, gamma = mdp.n_states, mdp.gamma
    if initial_policy is None:
        policy = mdp.proper_policy() if gamma == 1.0 else np.zeros(S, dtype=np.int64)
        init = "proper (breadth-first towards the absorbing set)" if gamma == 1.0 else "action 0"
    elif isinstance(initial_policy, str):
        check_scalar(initial_policy, "initial_policy", str, choices=("random",))
        policy = check_random_state(random_state).integers(0, mdp.n_actions, size=S)
        init = "random"
    else:
        policy = np.argmax(mdp.policy_probabilities(initial_policy), axis=1)
        if np.asarray(initial_policy).ndim != 1:
            raise MDPValidationError("initial_policy must be deterministic: an int array of shape (n_states,)")
        init = "given"
    V = np.zeros(S)
    history = [] if keep_values else None
    residuals, bounds, times, changes = [], [], [], []
    converged = False
    for _ in range(max_iter):
        t0 = time.perf_counter()
        if evaluation_steps is None:
            if gamma == 1.0 and not mdp.policy_is_proper(policy).all():
                raise ImproperMDPError("policy iteration reached an improper policy; start from a proper one")
            P_pi, R_pi = mdp.policy_model(policy)
            V = _solve_bellman(P_pi, R_pi, gamma, mdp.absorbing_set)
        else:
            P_pi, R_pi = mdp.policy_model(policy)
            for _k in range(evaluation_steps):
                V = R_pi + gamma * np.asarray(P_pi @ V)
            _check_finite(V, "policy iteration")
        Q = mdp.q_values(V)
        best = Q.max(axis=1)
        r = float(np.max(np.abs(best - V)))
        current = Q[np.arange(S), policy]
        new_policy = np.where(current >= best - TIE_ATOL, policy, _argmax_ties_low(Q, TIE_ATOL))
        n_changed = int(np.sum(new_policy != policy))
        policy = new_policy
        residuals.append(r)
        b = 0.0 if evaluation_steps is None else (r / (1.0 - gamma) if gamma < 1.0 else float("inf"))
        bounds.append(b)
        changes.append(n_changed)
        times.append(time.perf_counter() - t0)
        if history is not None:
            history.append(V.copy())
        stable = n_changed == 0
        if evaluation_steps is None and stable:
            converged = True
            break
        if evaluation_steps is not None and stable and (b if gamma < 1 else r) <= tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"policy iteration stopped at max_iter={max_iter} before the policy was stable",
            ConvergenceWarning,
            stacklevel=2,
        )
    if evaluation_steps is None:
        error_bound, loss = 0.0, 0.0
        method = "policy_iteration"
    else:
        error_bound = bounds[-1]
        loss = _greedy_loss(gamma, residuals[-1])
        method = f"policy_iteration(evaluation_steps={evaluation_steps})"
    conventions = {
        "init": init,
        "evaluation": "exact linear solve"
        if evaluation_steps is None
        else f"{evaluation_steps} sweeps of eq. 15.12, warm start",
        "tie_break": f"keep the current action if within {TIE_ATOL:g} of max Q, else the lowest best action",
    }
    return MDPSolution(
        V,
        policy,
        Q,
        method,
        gamma,
        len(residuals),
        converged,
        error_bound,
        loss,
        np.array(residuals),
        np.array(bounds),
        np.array(times),
        np.array(changes),
        np.array(history) if history is not None else None,
        conventions,
    )


# -- helpers ----------------------------------------------------------------------------------------
def _solve_bellman(P_pi, R_pi, gamma: float, absorbing: np.ndarray) -> np.ndarray:
    """Solve ``(I - gamma P_pi) V = R_pi``; with gamma = 1 on the non-absorbing states only (``V = 0`` on Z)."""
    S = R_pi.shape[0]
    V = np.zeros(S)
    idx = np.arange(S) if gamma < 1.0 else np.flatnonzero(~absorbing)
    if idx.size == 0:
        return V
    if sp.issparse(P_pi):
        sub = P_pi[idx][:, idx]
        M = (sp.identity(idx.size, format="csc") - gamma * sub).tocsc()
        V[idx] = spla.spsolve(M, R_pi[idx])
    else:
        sub = P_pi[np.ix_(idx, idx)]
        M = np.eye(idx.size) - gamma * sub
        V[idx] = scipy.linalg.solve(M, R_pi[idx])
    _check_finite(V, "policy evaluation")
    return V


def _bound(gamma: float, r: float) -> float:
    return gamma * r / (1.0 - gamma) if gamma < 1.0 else float("inf")


def _greedy_loss(gamma: float, bellman_residual: float) -> float:
    """Williams & Baird (1993): the greedy policy of ``V`` loses at most ``2 gamma ||BV - V|| / (1 - gamma)``."""
    return 2.0 * gamma * bellman_residual / (1.0 - gamma) if gamma < 1.0 else float("inf")


def _stop_text(gamma: float, tol: float) -> str:
    if gamma < 1.0:
        return f"gamma * residual / (1 - gamma) <= {tol:g} (bound on ||V - V*||_inf)"
    return f"residual ||V_k - V_(k-1)||_inf <= {tol:g} (gamma = 1: no sup-norm bound)"


def _check_mdp(mdp) -> None:
    if not isinstance(mdp, FiniteMDP):
        raise TypeError(f"expected a FiniteMDP, got {type(mdp).__name__}")


def _check_values(values, S: int) -> np.ndarray:
    V = np.asarray(values, dtype=np.float64)
    if V.shape != (S,):
        raise MDPValidationError(f"a value function must have shape (n_states,) = ({S},), got {V.shape}")
    if not np.all(np.isfinite(V)):
        raise MDPValidationError("the value function contains NaN or infinite values")
    return V


def _check_order(order, S: int) -> np.ndarray:
    order = np.asarray(order)
    if order.shape != (S,) or order.dtype.kind not in "iu" or not np.array_equal(np.sort(order), np.arange(S)):
        raise MDPValidationError(f"order must be a permutation of 0..{S - 1}")
    return order


def _check_finite(V: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(V)):
        raise DivergenceError(f"{what} produced NaN or infinite values")
