"""Grid worlds: the 4x3 world of the MDP chapter and random worlds for scaling studies.

The 4x3 world (CS229 lectures; Russell & Norvig, *AIMA*, §17.1, Fig. 17.1-17.3). In AIMA's
coordinates ``(x, y)`` -- column ``x = 1..4`` from the left, row ``y = 1..3`` from the bottom --
the start is (1, 1), a wall fills (2, 2), and the terminals are (4, 3) with reward +1 and (4, 2)
with reward -1. Every other cell pays the living reward (default -0.04). An action (up, right,
down, left) moves in the intended direction with probability 0.8 and at right angles with
probability 0.1 each (``noise = 0.2``); bumping into the wall or the edge leaves the agent in place.

States. Layout cells are numbered row by row from the *top-left*, skipping walls, and one absorbing
zero-reward *sink* comes last. A terminal cell pays its reward ``R(s)`` and then moves to the sink
whatever the action, so the terminals absorb and the undiscounted (gamma = 1) problem is well posed.
For the 4x3 world::

    state:   0      1      2      3          AIMA (x, y):  (1,3) (2,3) (3,3) (4,3)=+1
             4      #      5      6                        (1,2) wall  (3,2) (4,2)=-1
             7      8      9      10                       (1,1) (2,1) (3,1) (4,1)
    sink: 11

so the start (1, 1) is state 7, (1, 3) is state 0, (3, 3) -- left of the +1 terminal -- is state 2 and
(4, 1) is state 10. With gamma = 1 and living reward -0.04 AIMA reports ``U(1,1) = 0.705``,
``U(1,3) = 0.812``, ``U(3,3) = 0.918``, ``U(4,1) = 0.388`` (Fig. 17.3), reproduced in the tests.

Rewards follow the notes' state-reward convention (``V(s) = R(s) + gamma E V(s')``): ``step`` from
state ``s`` returns ``R(s)``, so an episode's return equals the MDP payoff. Actions are
0 = up, 1 = right, 2 = down, 3 = left.
"""

from __future__ import annotations

import numpy as np
import scipy.ndimage
import scipy.sparse as sp

from ...validation import check_random_state
from ..mdp import FiniteMDP, sample_rows
from .base import Env
from .spaces import Discrete

__all__ = ["ACTIONS", "GridWorld", "random_grid_world", "russell_norvig_4x3"]

#: (row, column) moves of the actions up, right, down, left (rows grow downwards)
ACTIONS = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]])
_OPEN, _WALL, _START, _TERMINAL = ".", "#", "S", "T"


class GridWorld(Env):
    """A grid of open cells, walls and terminal cells with noisy moves (module docstring).

    Parameters
    ----------
    layout : list of str
        One string per row, top row first: ``"."`` open, ``"#"`` wall, ``"S"`` start (open),
        ``"T"`` terminal.
    terminal_rewards : dict {(row, col): float}
        Reward of each terminal cell (every ``"T"`` needs one).
    living_reward : float
        Reward of every open (non-terminal) cell.
    noise : float in [0, 1]
        Probability of slipping at right angles (split equally between the two sides).
    random_state : None, int or Generator
    max_steps : int or None
        Truncate episodes after this many steps.

    Attributes
    ----------
    cells : int array (n_cells, 2)
        ``(row, col)`` of the state with the same index (the sink is not a cell).
    n_states : int
        Cells plus the sink.
    sink : int
        Index of the absorbing sink (``n_states - 1``).
    start_state : int
    state_rewards : array (n_states,)
    transitions_flat : CSR matrix (n_states * 4, n_states)
    """

    def __init__(self, layout, terminal_rewards, *, living_reward=-0.04, noise=0.2, random_state=None, max_steps=None):
        super().__init__(random_state=random_state, max_steps=max_steps)
        self.layout = [str(r) for r in layout]
        self.terminal_rewards = dict(terminal_rewards)
        self.living_reward = float(living_reward)
        self.noise = float(noise)
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError(f"noise must lie in [0, 1], got {noise!r}")
        grid = np.array([list(r) for r in self.layout])
        if grid.ndim != 2 or grid.size == 0:
            raise ValueError("layout must be non-empty rows of equal length")
        bad = set(np.unique(grid)) - {_OPEN, _WALL, _START, _TERMINAL}
        if bad:
            raise ValueError(f"layout has unknown characters {sorted(bad)}; use . # S T")
        self.shape = grid.shape
        cells = np.argwhere(grid != _WALL)
        self.cells = cells
        self.n_cells = len(cells)
        self.n_states = self.n_cells + 1
        self.sink = self.n_cells
        index = -np.ones(self.shape, dtype=np.int64)
        index[cells[:, 0], cells[:, 1]] = np.arange(self.n_cells)
        self._index = index
        starts = np.argwhere(grid == _START)
        self.start_state = int(index[tuple(starts[0])]) if len(starts) else 0
        terminal = np.zeros(self.n_states, dtype=bool)
        rewards = np.full(self.n_states, self.living_reward)
        rewards[self.sink] = 0.0
        for r, c in np.argwhere(grid == _TERMINAL):
            if (int(r), int(c)) not in self.terminal_rewards:
                raise ValueError(f"terminal cell {(int(r), int(c))} has no entry in terminal_rewards")
        for (r, c), value in self.terminal_rewards.items():
            if not (0 <= r < self.shape[0] and 0 <= c < self.shape[1]) or grid[r, c] != _TERMINAL:
                raise ValueError(f"terminal_rewards names {(r, c)}, which is not a 'T' cell of the layout")
            terminal[index[r, c]] = True
            rewards[index[r, c]] = float(value)
        self.terminal = terminal
        self.state_rewards = rewards
        self.transitions_flat = self._build_transitions()
        self.observation_space = Discrete(self.n_states)
        self.action_space = Discrete(4)
        self.state = self.start_state

    def _build_transitions(self) -> sp.csr_matrix:
        S, A = self.n_states, 4
        rows, cols, vals = [], [], []
        n_rows, n_cols = self.shape
        cells = self.cells
        for a in range(A):
            for direction, p in ((a, 1.0 - self.noise), ((a + 1) % 4, self.noise / 2), ((a + 3) % 4, self.noise / 2)):
                if p == 0.0:
                    continue
                target = cells + ACTIONS[direction]
                inside = (target[:, 0] >= 0) & (target[:, 0] < n_rows) & (target[:, 1] >= 0) & (target[:, 1] < n_cols)
                nxt = np.arange(self.n_cells)
                ok = np.flatnonzero(inside)
                t_idx = self._index[target[ok, 0], target[ok, 1]]
                nxt[ok[t_idx >= 0]] = t_idx[t_idx >= 0]
                live = ~self.terminal[: self.n_cells]
                s = np.flatnonzero(live)
                rows.append(s * A + a)
                cols.append(nxt[live])
                vals.append(np.full(s.size, p))
        absorbing = np.append(np.flatnonzero(self.terminal[: self.n_cells]), self.sink)
        for a in range(A):
            rows.append(absorbing * A + a)
            cols.append(np.full(absorbing.size, self.sink))
            vals.append(np.ones(absorbing.size))
        P = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(S * A, S))
        P = P.tocsr()  # duplicates (two slips into the same wall) are summed
        P.sum_duplicates()
        P.sort_indices()
        return P

    # -- MDP view ----------------------------------------------------------------------------------
    def to_mdp(self, gamma: float = 1.0, *, sparse: bool | None = None) -> FiniteMDP:
        """The grid world as a :class:`FiniteMDP` with state rewards (sparse when ``sparse`` or > 500 states)."""
        sparse = self.n_states > 500 if sparse is None else sparse
        P = (
            self.transitions_flat
            if sparse
            else self.transitions_flat.toarray().reshape(self.n_states, 4, self.n_states)
        )
        return FiniteMDP(P, self.state_rewards, gamma)

    def state_of(self, row: int, col: int) -> int:
        """Index of the cell at ``(row, col)`` (rows counted from the top)."""
        idx = int(self._index[row, col])
        if idx < 0:
            raise ValueError(f"({row}, {col}) is a wall")
        return idx

    def value_grid(self, values) -> np.ndarray:
        """Arrange a per-state array as the grid (NaN on walls; the sink is dropped)."""
        out = np.full(self.shape, np.nan)
        out[self.cells[:, 0], self.cells[:, 1]] = np.asarray(values)[: self.n_cells]
        return out

    # -- environment ---------------------------------------------------------------------------------
    def _reset(self):
        self.state = self.start_state
        return self.state

    def _step(self, action):
        s = self.state
        reward = self.state_rewards[s]
        nxt = int(sample_rows(self.transitions_flat, np.array([s * 4 + int(action)]), self.rng)[0])
        self.state = nxt
        return nxt, reward, nxt == self.sink, {}


def russell_norvig_4x3(
    *, living_reward: float = -0.04, noise: float = 0.2, random_state=None, max_steps=None
) -> GridWorld:
    """The 4x3 world of AIMA Fig. 17.1 (states numbered as in the module docstring)."""
    layout = ["...T", ".#.T", "S..."]
    return GridWorld(
        layout,
        {(0, 3): 1.0, (1, 3): -1.0},
        living_reward=living_reward,
        noise=noise,
        random_state=random_state,
        max_steps=max_steps,
    )


def random_grid_world(
    n_rows: int,
    n_cols: int,
    *,
    wall_fraction: float = 0.2,
    n_terminals: int = 2,
    living_reward: float = -0.04,
    noise: float = 0.2,
    random_state=None,
    max_steps=None,
) -> GridWorld:
    """A random ``n_rows x n_cols`` world for scaling studies.

    Each cell is a wall with probability ``wall_fraction`` (drawn from ``random_state``); open cells
    outside the largest 4-connected open region then become walls too, so every cell can reach the
    terminals (a sealed pocket would only decay at rate gamma and dominate value iteration's
    residual). Then ``n_terminals`` distinct open cells become terminals with rewards alternating
    +1, -1, +1, ..., and one more random open cell is the start. About
    ``(1 - wall_fraction) n_rows n_cols + 1`` states.
    """
    rng = check_random_state(random_state)
    if n_rows < 1 or n_cols < 1 or n_rows * n_cols < n_terminals + 1:
        raise ValueError("the grid must have room for the terminals and a start cell")
    is_open = rng.random((n_rows, n_cols)) >= wall_fraction
    labels, n_regions = scipy.ndimage.label(is_open)
    if n_regions > 1:
        sizes = np.bincount(labels.ravel())[1:]
        is_open = labels == 1 + int(np.argmax(sizes))
    grid = np.where(is_open, _OPEN, _WALL)
    open_cells = np.argwhere(grid == _OPEN)
    if len(open_cells) < n_terminals + 1:
        raise ValueError("too many walls: fewer open cells than terminals + start")
    pick = rng.choice(len(open_cells), size=n_terminals + 1, replace=False)
    rewards = {}
    for i, k in enumerate(pick[:n_terminals]):
        r, c = (int(v) for v in open_cells[k])
        grid[r, c] = _TERMINAL
        rewards[(r, c)] = 1.0 if i % 2 == 0 else -1.0
    r, c = open_cells[pick[-1]]
    grid[r, c] = _START
    layout = ["".join(row) for row in grid]
    return GridWorld(layout, rewards, living_reward=living_reward, noise=noise, random_state=rng, max_steps=max_steps)
