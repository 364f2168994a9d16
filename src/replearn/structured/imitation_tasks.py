"""Two small sequential tasks with known experts for :mod:`replearn.structured.imitation`.

* :class:`SequenceLabelingTask` — structured prediction as sequential decisions (CIML §18.5): label
  a sequence left to right; the observation holds the current, previous and next inputs and the
  previously *predicted* label; the loss is Hamming. The expert is eq. 18.8,
  ``expert(l, y, yhat) = argmin_a best(l, y, yhat o a)``, which under Hamming loss is the gold label.
* :class:`GridNavigation` — walk to a goal cell on a grid with walls; the expert is CIML Alg. 46's
  depth-limited DFS with the score h = -(steps taken + Manhattan distance to the goal) (§18.4: an
  expensive search used as the expert), exact once the depth covers the shortest path.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_scalar
from .features import check_sequences
from .imitation import depth_limited_dfs


def hamming_best(y, prefix) -> int:
    """best(Hamming, y, yhat): the loss of the best output reachable from the prefix ``yhat`` (L5671).

    Left to right, the rest can always be labelled correctly, so it is the prefix's Hamming loss.
    """
    y, prefix = np.asarray(y), np.asarray(prefix)
    if prefix.size > y.size:
        raise ValueError(f"the prefix has {prefix.size} labels, the sequence only {y.size}")
    return int(np.sum(y[: prefix.size] != prefix))


def sequence_expert(y, prefix, labels) -> object:
    """Eq. 18.8: argmin_a best(l, y, yhat o a) over ``labels`` (first minimizer), for Hamming loss."""
    scores = [hamming_best(y, list(prefix) + [a]) for a in labels]
    return list(labels)[int(np.argmin(scores))]


class SequenceLabelingTask:
    """Label sequences left to right (CIML §18.5). Episode i is sequence i.

    State: (episode, position t, predicted prefix). Observation phi(x, yhat): [x_t, x_{t-1}, x_{t+1},
    one-hot of the previous predicted label (or a start symbol)] — features of the input and of the
    prefix, "not limited to Markov style features" (L5689). Loss l_t = 1[a_t != y_t].
    Labels must be integer codes 0 .. n_labels - 1.
    """

    def __init__(self, X_seqs, Y_seqs, n_labels=None):
        X, Y = check_sequences(X_seqs, Y_seqs)
        Y = [np.asarray(y) for y in Y]
        for i, y in enumerate(Y):
            if y.dtype.kind not in "iu":
                raise ValueError(f"Y_seqs[{i}] must hold integer label codes 0..K-1, got dtype {y.dtype}")
        top = max(int(y.max()) for y in Y) + 1
        self.n_labels = top if n_labels is None else int(n_labels)
        if any(int(y.min()) < 0 for y in Y) or top > self.n_labels:
            raise ValueError(f"labels must lie in 0..{self.n_labels - 1}")
        self.X, self.Y = X, [y.astype(np.int64) for y in Y]
        self.n_actions = self.n_labels
        self._d = X[0].shape[1]

    @property
    def n_episodes(self) -> int:
        return len(self.X)

    def reset(self, episode):
        return (int(episode), 0, ())

    def is_terminal(self, state) -> bool:
        i, t, _ = state
        return t >= self.Y[i].size

    def observe(self, state) -> np.ndarray:
        i, t, prefix = state
        x = self.X[i]
        zero = np.zeros(self._d)
        prev = np.zeros(self.n_labels + 1)
        prev[prefix[-1] if prefix else self.n_labels] = 1.0
        return np.concatenate([x[t], x[t - 1] if t > 0 else zero, x[t + 1] if t + 1 < x.shape[0] else zero, prev])

    def step(self, state, action):
        i, t, prefix = state
        return (i, t + 1, prefix + (int(action),)), float(action != self.Y[i][t])

    def expert(self, state) -> int:
        i, t, prefix = state
        return int(sequence_expert(self.Y[i][: t + 1], prefix, range(self.n_labels)))


#: action id -> (row step, column step)
MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))
ACTION_NAMES = ("up", "down", "left", "right", "stay")


class GridNavigation:
    """Reach ``goal`` on a grid with walls; episode e starts in ``starts[e]``.

    Actions: 0 up, 1 down, 2 left, 3 right, 4 stay (moves into walls or off the grid stay put). The
    loss is 1 per step spent away from the goal, so an episode's total loss is the number of steps
    taken to reach it (``horizon`` at most). Observation: the one-hot cell. The expert is
    :func:`~replearn.structured.imitation.depth_limited_dfs` (Alg. 46) over the four moves with
    h(x) = -(steps so far + Manhattan distance to the goal); it is memoized per cell.
    """

    def __init__(self, walls, goal, starts, horizon=30, max_depth=6):
        walls = np.asarray(walls, dtype=bool)
        if walls.ndim != 2:
            raise ValueError(f"walls must be a 2-D boolean grid, got shape {walls.shape}")
        self.walls = walls
        self.shape = walls.shape
        self.goal = self._cell(goal, "goal")
        self.starts = [self._cell(s, f"starts[{i}]") for i, s in enumerate(starts)]
        if not self.starts:
            raise ValueError("starts is empty; at least one start cell is needed")
        check_scalar(horizon, "horizon", numbers.Integral, low=1)
        check_scalar(max_depth, "max_depth", numbers.Integral, low=1)
        self.horizon = int(horizon)
        self.max_depth = int(max_depth)
        self.n_actions = len(MOVES)
        self._cache: dict = {}

    def _cell(self, rc, what):
        r, c = (int(v) for v in rc)
        if not (0 <= r < self.shape[0] and 0 <= c < self.shape[1]) or self.walls[r, c]:
            raise ValueError(f"{what}={rc} is off the grid or inside a wall")
        return (r, c)

    def move(self, cell, action):
        dr, dc = MOVES[action]
        r, c = cell[0] + dr, cell[1] + dc
        if 0 <= r < self.shape[0] and 0 <= c < self.shape[1] and not self.walls[r, c]:
            return (r, c)
        return cell

    @property
    def n_episodes(self) -> int:
        return len(self.starts)

    def reset(self, episode):
        return (self.starts[int(episode)], 0)

    def is_terminal(self, state) -> bool:
        cell, t = state
        return cell == self.goal or t >= self.horizon

    def observe(self, state) -> np.ndarray:
        x = np.zeros(self.walls.size)
        x[state[0][0] * self.shape[1] + state[0][1]] = 1.0
        return x

    def step(self, state, action):
        cell, t = state
        return (self.move(cell, int(action)), t + 1), 1.0  # every step taken before arriving costs 1

    def dfs_action(self, cell, max_depth=None):
        """Alg. 46 from ``cell``: (action, score) with score -(steps + Manhattan distance) at the leaves."""
        depth = self.max_depth if max_depth is None else max_depth

        def heuristic(node):
            (r, c), steps = node
            return -(steps + abs(r - self.goal[0]) + abs(c - self.goal[1]))

        return depth_limited_dfs(
            (cell, 0),
            lambda node: range(4),
            lambda node, a: (self.move(node[0], a), node[1] + 1),
            heuristic,
            depth,
            lambda node: node[0] == self.goal,
        )

    def expert(self, state) -> int:
        cell = state[0]
        if cell == self.goal:
            return 4
        if cell not in self._cache:
            self._cache[cell] = self.dfs_action(cell)[0]
        return self._cache[cell]

    def shortest_distances(self) -> np.ndarray:
        """Exact number of steps from every free cell to the goal (breadth-first search; -1 = unreachable)."""
        dist = np.full(self.shape, -1, dtype=np.int64)
        dist[self.goal] = 0
        frontier = [self.goal]
        while frontier:
            nxt = []
            for cell in frontier:
                for a in range(4):
                    n = self.move(cell, a)
                    if dist[n] < 0:
                        dist[n] = dist[cell] + 1
                        nxt.append(n)
            frontier = nxt
        return dist
