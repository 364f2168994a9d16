"""Continuous-state MDPs with finitely many actions (CS229 notes §15.4).

Both methods use a *simulator* (§15.4.2, L5466-5500): ``simulator(states, action, rng)`` maps an
``(n, d)`` array of states and one action index to ``n`` sampled next states, and ``reward(states)``
gives the state reward ``R(s)`` of each row.

* **Discretization** (§15.4.1, L5434-5460): :class:`StateGrid` cuts a box into ``k^d`` cells;
  :func:`discretize_mdp` estimates ``P(cell' | cell, a)`` by simulating ``samples_per_cell`` points
  drawn uniformly in each cell (next states outside the box are clipped to the nearest cell) and
  ``R(cell)`` as the mean reward of those points, giving a :class:`~replearn.rl.mdp.FiniteMDP`
  whose piecewise-constant solution is applied to a continuous state through its cell.
* **Fitted value iteration** (§15.4.2, L5502-5573): sample states ``s^(1..n)``; repeat: for each
  state and action draw ``k`` next states, ``q(a) = R(s) + gamma (1/k) sum_j V(s'_j)``,
  ``y = max_a q(a)``; then fit ``V`` to the ``(s^(i), y^(i))`` pairs. ``regressor="linear"`` is the
  notes' ``theta := argmin 1/2 sum (theta^T phi(s) - y)^2`` (plus a tiny ridge ``alpha`` for
  conditioning); as the notes say (L5553) it need not converge. ``regressor="kernel"`` is
  Nadaraya-Watson kernel regression ``V(s) = sum_i w_i(s) y_i / sum_i w_i(s)`` with Gaussian
  weights ``w_i(s) = exp(-||s - s^(i)||^2 / (2 h^2))``; it is an averager (a non-expansion), so with
  fixed next-state samples (``resample=False``) the iteration is a gamma-contraction and converges
  (Gordon 1995). The policy is ``argmax_a (1/k) sum_j V(s'_j)`` (eq. 15.9), with ``k = 1`` for a
  deterministic simulator.

Terminal states (a fallen pole): if ``terminal(states)`` is given, a next state it flags has value
``terminal_value`` (fitted VI) or moves to an absorbing state paying ``terminal_reward`` once
(discretization).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import DivergenceError
from ..validation import check_array, check_random_state, check_scalar
from .exceptions import MDPValidationError
from .mdp import FiniteMDP, check_gamma

__all__ = ["FittedVIResult", "StateGrid", "discretize_mdp", "fitted_value_iteration", "quadratic_features"]


class StateGrid:
    """A regular grid of ``prod(n_bins)`` cells on the box ``[low, high]`` (cells numbered C-order)."""

    def __init__(self, low, high, n_bins):
        self.low = np.atleast_1d(np.asarray(low, dtype=np.float64))
        self.high = np.atleast_1d(np.asarray(high, dtype=np.float64))
        d = self.low.size
        bins = np.broadcast_to(np.asarray(n_bins), (d,)).astype(np.int64)
        if (
            self.high.shape != self.low.shape
            or np.any(self.high <= self.low)
            or not np.all(np.isfinite(self.low))
            or not np.all(np.isfinite(self.high))
        ):
            raise MDPValidationError("StateGrid needs finite bounds with low < high in every dimension")
        if np.any(bins < 1):
            raise MDPValidationError("n_bins must be >= 1 in every dimension")
        self.n_bins = bins
        self.n_dims = d
        self.n_cells = int(np.prod(bins))
        self.widths = (self.high - self.low) / bins

    def index(self, states) -> np.ndarray:
        """Cell index of each row of ``states`` (points outside the box go to the nearest cell)."""
        X = np.atleast_2d(np.asarray(states, dtype=np.float64))
        if X.shape[1] != self.n_dims:
            raise MDPValidationError(f"states have {X.shape[1]} dimensions, the grid has {self.n_dims}")
        ij = np.floor((X - self.low) / self.widths).astype(np.int64)
        ij = np.clip(ij, 0, self.n_bins - 1)
        return np.ravel_multi_index(ij.T, self.n_bins)

    def centers(self) -> np.ndarray:
        """Cell centres, shape (n_cells, d), in index order."""
        ij = np.array(np.unravel_index(np.arange(self.n_cells), self.n_bins)).T
        return self.low + (ij + 0.5) * self.widths

    def sample_in_cells(self, per_cell: int, rng: np.random.Generator) -> np.ndarray:
        """``per_cell`` uniform points in every cell: shape (n_cells, per_cell, d)."""
        c = self.centers()
        u = rng.random((self.n_cells, per_cell, self.n_dims)) - 0.5
        return c[:, None, :] + u * self.widths


def _check_fn(fn, name):
    if not callable(fn):
        raise TypeError(f"{name} must be callable")


def _simulate(simulator, states, action, rng, d):
    out = np.asarray(simulator(states, action, rng), dtype=np.float64)
    if out.shape != states.shape:
        raise MDPValidationError(
            f"simulator returned shape {out.shape} for {states.shape} states; expected the same shape"
        )
    if not np.all(np.isfinite(out)):
        raise DivergenceError("the simulator returned NaN or infinite states")
    return out


def _rewards(reward, states):
    r = np.asarray(reward(states), dtype=np.float64).ravel()
    if r.shape != (states.shape[0],) or not np.all(np.isfinite(r)):
        raise MDPValidationError("reward(states) must return one finite number per state")
    return r


def discretize_mdp(
    simulator,
    reward,
    grid: StateGrid,
    n_actions: int,
    gamma: float,
    *,
    samples_per_cell: int = 10,
    terminal=None,
    terminal_reward: float = 0.0,
    random_state=None,
) -> FiniteMDP:
    """Discretize a continuous-state MDP on ``grid`` (notes §15.4.1; module docstring).

    States ``0 .. n_cells - 1`` are the cells; with ``terminal`` given, state ``n_cells`` is the
    terminal state (reward ``terminal_reward``) and ``n_cells + 1`` an absorbing zero-reward sink.
    """
    _check_fn(simulator, "simulator")
    _check_fn(reward, "reward")
    check_scalar(n_actions, "n_actions", numbers.Integral, low=1)
    check_scalar(samples_per_cell, "samples_per_cell", numbers.Integral, low=1)
    gamma = check_gamma(gamma)
    rng = check_random_state(random_state)
    C, k, d = grid.n_cells, samples_per_cell, grid.n_dims
    S = C + (2 if terminal is not None else 0)
    pts = grid.sample_in_cells(k, rng).reshape(C * k, d)
    P = np.zeros((S, n_actions, S))
    R = np.zeros(S)
    R[:C] = _rewards(reward, pts).reshape(C, k).mean(axis=1)
    src = np.repeat(np.arange(C), k)
    for a in range(n_actions):
        nxt = _simulate(simulator, pts, a, rng, d)
        dest = grid.index(nxt)
        if terminal is not None:
            dest = np.where(np.asarray(terminal(nxt), dtype=bool), C, dest)
        np.add.at(P[:, a, :], (src, dest), 1.0 / k)
    if terminal is not None:
        R[C] = float(terminal_reward)
        P[C, :, C + 1] = 1.0
        P[C + 1, :, C + 1] = 1.0
    return FiniteMDP(P, R, gamma)


def quadratic_features(states) -> np.ndarray:
    """``phi(s) = [1, s_1, ..., s_d, s_i s_j (i <= j)]``, the default feature map of fitted VI."""
    X = np.atleast_2d(np.asarray(states, dtype=np.float64))
    iu = np.triu_indices(X.shape[1])
    return np.hstack([np.ones((X.shape[0], 1)), X, (X[:, :, None] * X[:, None, :])[:, iu[0], iu[1]]])


@dataclass
class FittedVIResult:
    """Fitted value iteration's approximation of ``V*`` and its greedy policy (eq. 15.9).

    ``theta`` (linear) or ``targets`` (kernel: the fitted ``y`` at ``sample_states``) define
    :meth:`value`. ``residuals[k]`` is ``max_i |y_k^(i) - y_{k-1}^(i)|``, ``coef_changes[k]`` is
    ``||theta_k - theta_{k-1}||_inf`` (linear only).
    """

    regressor: str
    sample_states: np.ndarray
    theta: np.ndarray | None
    targets: np.ndarray
    n_iter: int
    converged: bool
    residuals: np.ndarray
    coef_changes: np.ndarray | None
    gamma: float
    bandwidth: float | None
    features: object = None
    simulator: object = None
    n_actions: int = 0
    terminal: object = None
    terminal_value: float = 0.0
    conventions: dict = field(default_factory=dict)

    def value(self, states) -> np.ndarray:
        """``V(s)`` for each row of ``states``."""
        X = np.atleast_2d(np.asarray(states, dtype=np.float64))
        if self.regressor == "linear":
            v = self.features(X) @ self.theta
        else:
            v = _nadaraya_watson(X, self.sample_states, self.targets, self.bandwidth)
        if self.terminal is not None:
            v = np.where(np.asarray(self.terminal(X), dtype=bool), self.terminal_value, v)
        return v

    def action_values(self, states, *, k: int = 1, random_state=None) -> np.ndarray:
        """``(1/k) sum_j V(s'_j)`` with ``s'_j ~ P_sa``, shape (n, n_actions) (eq. 15.9)."""
        rng = check_random_state(random_state)
        X = np.atleast_2d(np.asarray(states, dtype=np.float64))
        rep = np.repeat(X, k, axis=0)
        out = np.empty((X.shape[0], self.n_actions))
        for a in range(self.n_actions):
            out[:, a] = self.value(_simulate(self.simulator, rep, a, rng, X.shape[1])).reshape(-1, k).mean(axis=1)
        return out

    def policy(self, states, *, k: int = 1, random_state=None) -> np.ndarray:
        """Greedy actions ``argmax_a E V(s')`` (lowest action on ties)."""
        return np.argmax(self.action_values(states, k=k, random_state=random_state), axis=1)


def _nadaraya_watson(X, centers, y, h):
    d2 = np.sum(X**2, axis=1)[:, None] - 2 * X @ centers.T + np.sum(centers**2, axis=1)[None, :]
    logw = -np.maximum(d2, 0.0) / (2 * h * h)
    logw -= logw.max(axis=1, keepdims=True)  # the nearest centre gets weight 1: never 0/0
    w = np.exp(logw)
    return (w @ y) / w.sum(axis=1)


def fitted_value_iteration(
    simulator,
    reward,
    sample_states,
    n_actions: int,
    *,
    gamma: float,
    regressor: str = "linear",
    features=None,
    alpha: float = 1e-8,
    bandwidth: float | None = None,
    k: int = 1,
    max_iter: int = 200,
    tol: float = 1e-6,
    resample: bool = True,
    terminal=None,
    terminal_value: float = 0.0,
    random_state=None,
) -> FittedVIResult:
    """Fitted value iteration (CS229 §15.4.2) on the states ``sample_states`` (n, d); module docstring.

    Parameters
    ----------
    simulator : callable (states (n, d), action, rng) -> next states (n, d)
    reward : callable states (n, d) -> (n,)
    sample_states : array (n, d)
        The notes' ``s^(1), ..., s^(n)`` (sampled by the caller, e.g. uniformly on a box).
    n_actions : int
    gamma : float in [0, 1)
    regressor : {"linear", "kernel"}
    features : callable (m, d) -> (m, p), optional
        ``phi`` for the linear regressor (default :func:`quadratic_features`).
    alpha : float >= 0
        Ridge term ``alpha/2 ||theta||^2`` added to the least-squares fit (0: plain least squares).
    bandwidth : float > 0, optional
        ``h`` of the kernel regressor (default: median nearest-neighbour distance of the samples).
    k : int >= 1
        Next states drawn per state and action (1 for a deterministic simulator).
    max_iter, tol
        Stop when ``max_i |y_k^(i) - y_{k-1}^(i)| <= tol`` or after ``max_iter`` sweeps (no warning:
        the notes give no convergence guarantee; ``converged`` records it).
    resample : bool
        Draw fresh next states every iteration (the notes' pseudo-code) or once at the start.
    terminal : callable states -> bool (n,), optional
    terminal_value : float
        ``V`` of a terminal next state.
    """
    _check_fn(simulator, "simulator")
    _check_fn(reward, "reward")
    X = check_array(sample_states, name="sample_states")
    check_scalar(n_actions, "n_actions", numbers.Integral, low=1)
    gamma = check_gamma(gamma)
    if gamma >= 1.0:
        raise MDPValidationError("fitted value iteration needs gamma < 1")
    check_scalar(regressor, "regressor", str, choices=("linear", "kernel"))
    check_scalar(alpha, "alpha", numbers.Real, low=0.0)
    check_scalar(k, "k", numbers.Integral, low=1)
    check_scalar(max_iter, "max_iter", numbers.Integral, low=1)
    check_scalar(tol, "tol", numbers.Real, low=0.0)
    rng = check_random_state(random_state)
    n, d = X.shape
    R = _rewards(reward, X)
    phi = features if features is not None else quadratic_features
    if regressor == "linear":
        F = np.asarray(phi(X), dtype=np.float64)
        if F.ndim != 2 or F.shape[0] != n:
            raise MDPValidationError(f"features(states) must return shape (n, p); got {F.shape}")
        p = F.shape[1]
        G = F.T @ F + alpha * np.eye(p)
        theta = np.zeros(p)
        h = None
    else:
        if bandwidth is None:
            d2 = np.sum(X**2, 1)[:, None] - 2 * X @ X.T + np.sum(X**2, 1)[None, :]
            np.fill_diagonal(d2, np.inf)
            h = float(np.median(np.sqrt(np.maximum(d2.min(axis=1), 0.0))))
            h = h if h > 0 else 1.0
        else:
            h = float(check_scalar(bandwidth, "bandwidth", numbers.Real, low=0.0, low_inclusive=False))
        theta = None
    rep = np.repeat(X, k, axis=0)

    def draw():
        return [_simulate(simulator, rep, a, rng, d) for a in range(n_actions)]

    nexts = draw()
    y = np.zeros(n)

    def value(S_):
        if regressor == "linear":
            v = np.asarray(phi(S_), dtype=np.float64) @ theta
        else:
            v = _nadaraya_watson(S_, X, y, h)
        if terminal is not None:
            v = np.where(np.asarray(terminal(S_), dtype=bool), terminal_value, v)
        return v

    residuals, coef_changes = [], []
    converged = False
    for it in range(max_iter):
        if resample and it > 0:
            nexts = draw()
        q = np.column_stack([R + gamma * value(nx).reshape(n, k).mean(axis=1) for nx in nexts])
        y_new = q.max(axis=1)
        if not np.all(np.isfinite(y_new)):
            raise DivergenceError("fitted value iteration diverged (non-finite targets); try the kernel regressor")
        r = float(np.max(np.abs(y_new - y)))
        y = y_new
        if regressor == "linear":
            theta_new = np.linalg.solve(G, F.T @ y) if alpha > 0 else np.linalg.lstsq(F, y, rcond=None)[0]
            coef_changes.append(float(np.max(np.abs(theta_new - theta))))
            theta = theta_new
        residuals.append(r)
        if r <= tol:
            converged = True
            break
    conventions = {
        "regressor": regressor,
        "k": k,
        "resample": resample,
        "features": getattr(phi, "__name__", repr(phi)) if regressor == "linear" else None,
        "stopping": f"max |y_k - y_(k-1)| <= {tol:g}",
    }
    return FittedVIResult(
        regressor,
        X,
        theta,
        y,
        len(residuals),
        converged,
        np.array(residuals),
        np.array(coef_changes) if regressor == "linear" else None,
        gamma,
        h,
        phi if regressor == "linear" else None,
        simulator,
        n_actions,
        terminal,
        float(terminal_value),
        conventions,
    )
