"""Imitation learning (CIML ch. 18): the expert of eq. 18.8, DFS (Alg. 46), supervised IL (Alg. 43-44),
DAgger (Alg. 45)."""

import numpy as np
import pytest

from replearn.structured import (
    DAgger,
    GridNavigation,
    SequenceLabelingTask,
    depth_limited_dfs,
    evaluate_policy,
    hamming_best,
    make_hmm_sequences,
    rollout,
    sequence_expert,
    supervised_imitation_test,
    supervised_imitation_train,
)

NOUN, VERB, ADJ = "noun", "verb", "adj"


def test_worked_expert_example_noun_noun_prefix():
    # L5675-5681: y = noun verb adj noun, prefix "noun noun": best = 1 and the expert says adj
    y = [NOUN, VERB, ADJ, NOUN]
    assert hamming_best(y, [NOUN, NOUN]) == 1
    assert sequence_expert(y, [NOUN, NOUN], [NOUN, VERB, ADJ]) == ADJ


def test_depth_limited_dfs_is_algorithm_46_on_a_small_tree():
    # states are action strings; h scores the leaves; the best depth-2 path is "ba" (score 5)
    h = {"": 0, "a": 3, "b": 1, "aa": 2, "ab": 0, "ba": 5, "bb": -1}
    search = {
        "actions": lambda s: "ab",
        "transition": lambda s, a: s + a,
        "heuristic": lambda s: h[s],
        "is_terminal": lambda s: len(s) >= 2,
    }
    assert depth_limited_dfs("", max_depth=2, **search) == ("b", 5.0)
    assert depth_limited_dfs("", max_depth=1, **search) == ("a", 3.0)  # greedy with one step of look-ahead
    assert depth_limited_dfs("ab", max_depth=3, **search) == (None, 0.0)  # terminal: (no action, h(x))


def grid():
    walls = np.zeros((5, 5), dtype=bool)
    walls[1:4, 2] = True  # a wall between the left and the right half
    goal = (2, 4)
    free = [(r, c) for r in range(5) for c in range(5) if not walls[r, c] and (r, c) != goal]
    order = np.random.default_rng(0).permutation(len(free))
    return GridNavigation(walls, goal, [free[i] for i in order], horizon=15, max_depth=7)


def test_dfs_expert_is_optimal_where_the_search_reaches_the_goal():
    task = grid()
    dist = task.shortest_distances()
    for r in range(5):
        for c in range(5):
            if dist[r, c] > 0:
                nxt = task.move((r, c), task.expert(((r, c), 0)))
                if dist[r, c] <= task.max_depth:
                    assert dist[nxt] == dist[r, c] - 1, (r, c)
    expert_loss = np.mean([rollout(task, e).total_loss for e in range(task.n_episodes)])
    assert expert_loss == pytest.approx(np.mean([dist[s] for s in task.starts]))


def test_dagger_beats_supervised_imitation_on_the_grid():
    task = grid()
    train, dev = list(range(4)), list(range(4, task.n_episodes))
    model = DAgger(estimator="naive_bayes", max_iter=4, n_per_iter=3, random_state=0).fit(task, train, dev)
    assert len(model.policies_) == len(model.loss_history_) == len(model.error_history_) == 5
    assert np.all(np.diff(model.n_samples_history_) > 0)  # the data set only grows (aggregation)
    supervised = supervised_imitation_train(task, train, estimator="naive_bayes", random_state=0)
    sup_loss, _ = evaluate_policy(task, supervised, dev)
    assert sup_loss == model.loss_history_[0]  # f_0 is Alg. 43's policy
    assert model.loss_history_[model.best_index_] < 0.7 * sup_loss  # 12.1 -> 6.6 steps per episode
    assert model.best_index_ == int(np.argmin(model.loss_history_))
    np.testing.assert_array_equal(model.predict(np.eye(25)), model.policy_.predict(np.eye(25)))


def test_dagger_on_sequence_labelling_as_search():
    d = make_hmm_sequences(
        60, (6, 10), n_states=3, n_symbols=6, self_transition=0.8, emission_concentration=1.0, random_state=1
    )
    task = SequenceLabelingTask(d.X, d.y)
    x = task.observe(task.reset(0))
    assert x.size == 3 * 6 + 4  # x_t, x_{t-1}, x_{t+1}, previous label or start
    # the expert under Hamming loss is the gold label, whatever the (possibly wrong) prefix
    state = task.reset(0)
    for _t, label in enumerate(d.y[0]):
        assert task.expert(state) == label
        state, loss = task.step(state, (label + 1) % 3)
        assert loss == 1.0
    assert supervised_imitation_test(task, _Always(0), 0) == np.sum(d.y[0] != 0)  # Alg. 44: total loss
    model = DAgger(estimator="naive_bayes", max_iter=3, n_per_iter=10, random_state=0).fit(
        task, list(range(40)), list(range(40, 60))
    )
    assert min(model.loss_history_[1:]) < model.loss_history_[0]
    assert max(model.error_history_) < 0.5


class _Always:
    def __init__(self, a):
        self.a = a

    def predict(self, X):
        return np.full(len(X), self.a)


def test_errors():
    task = grid()
    with pytest.raises(ValueError, match="episodes is empty"):
        DAgger().fit(task, [])
    with pytest.raises(ValueError, match="inside a wall"):
        GridNavigation(task.walls, (2, 2), [(0, 0)])
    with pytest.raises(ValueError, match="not a classifier"):
        DAgger(estimator="ridge", max_iter=0).fit(task, [0, 1, 2])
    with pytest.raises(ValueError, match="the task has actions 0..4"):
        rollout(task, 0, _Always(7))
