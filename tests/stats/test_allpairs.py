"""Shaffer and Bergmann-Hommel for all pairwise comparisons: exhaustive sets by brute force, invariants."""

import itertools

import numpy as np
import pytest

from replearn.stats import bergmann_hommel, exhaustive_sets, holm, shaffer, shaffer_multipliers


def _closed_subsets(k):
    """Brute force over all 2^m sets of pairs: keep those equal to the within-component pairs of
    the graph they define (transitively closed, so they can be exactly the true hypotheses)."""
    pairs = list(itertools.combinations(range(k), 2))
    out = set()
    for bits in range(1, 2 ** len(pairs)):
        chosen = {pairs[i] for i in range(len(pairs)) if bits >> i & 1}
        comp = list(range(k))
        for _ in range(k):  # label propagation to the smallest reachable model
            for i, j in chosen:
                comp[i] = comp[j] = min(comp[i], comp[j])
        closure = {(i, j) for i, j in pairs if comp[i] == comp[j]}
        if closure == chosen:
            out.add(tuple(sorted(chosen)))
    return out


@pytest.mark.parametrize("k", [3, 4, 5])
def test_exhaustive_sets_equal_transitively_closed_pair_sets(k):
    pairs = list(itertools.combinations(range(k), 2))
    ours = {tuple(p for p, m in zip(pairs, row) if m) for row in exhaustive_sets(k)}
    assert ours == _closed_subsets(k)


def test_number_of_exhaustive_sets_is_bell_minus_one():
    bell = {2: 2, 3: 5, 4: 15, 5: 52, 6: 203, 7: 877}
    for k, b in bell.items():
        assert exhaustive_sets(k).shape == (b - 1, k * (k - 1) // 2)


def test_shaffer_multipliers_known_values():
    np.testing.assert_array_equal(shaffer_multipliers(3), [3, 1, 1])
    np.testing.assert_array_equal(shaffer_multipliers(4), [6, 3, 3, 3, 2, 1])
    np.testing.assert_array_equal(shaffer_multipliers(5), [10, 6, 6, 6, 6, 4, 4, 3, 2, 1])
    # t_j is the largest exhaustive-set size <= m - j + 1
    for k in (4, 6):
        sizes = set(exhaustive_sets(k).sum(axis=1).tolist()) | {0}
        m = k * (k - 1) // 2
        expected = [max(s for s in sizes if s <= m - j + 1) for j in range(1, m + 1)]
        np.testing.assert_array_equal(shaffer_multipliers(k), expected)


def test_shaffer_by_hand_k3():
    p = np.array([0.01, 0.04, 0.02])  # sorted 0.01, 0.02, 0.04 with multipliers 3, 1, 1
    np.testing.assert_allclose(shaffer(p), [0.03, 0.04, 0.03])
    # Bergmann-Hommel for k = 3: the exhaustive sets are the 3 singletons and all three pairs
    np.testing.assert_allclose(bergmann_hommel(p), [0.03, 0.04, 0.03])


@pytest.mark.parametrize("k", [3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bergmann_hommel_le_shaffer_le_holm(k, seed):
    m = k * (k - 1) // 2
    p = np.random.default_rng(seed).uniform(0, 0.08, m) ** 1.5
    bh, sh, ho = bergmann_hommel(p), shaffer(p), holm(p)
    assert np.all(p <= bh + 1e-15)
    assert np.all(bh <= sh + 1e-15) and np.all(sh <= ho + 1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_bergmann_hommel_rejections_match_the_acceptance_set_definition(seed):
    k = 4
    pairs = list(itertools.combinations(range(k), 2))
    p = np.random.default_rng(seed).uniform(0, 0.06, len(pairs))
    sets = [[i for i, pr in enumerate(pairs) if pr in s] for s in _closed_subsets(k)]
    adj = bergmann_hommel(p)
    for alpha in (0.01, 0.02, 0.05, 0.1):
        accepted = set()
        for s in sets:  # A = union of the exhaustive I with min_{i in I} p_i > alpha / |I|
            if min(p[s]) > alpha / len(s):
                accepted.update(s)
        rejected = {i for i in range(len(pairs)) if i not in accepted}
        assert rejected == {i for i in range(len(pairs)) if adj[i] <= alpha}


def test_matrix_input_and_invariance_under_relabelling():
    k = 4
    rng = np.random.default_rng(3)
    mat = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    mat[iu] = rng.uniform(0, 0.05, iu[0].size)
    mat.T[iu] = mat[iu]
    out = bergmann_hommel(mat)
    np.testing.assert_allclose(out[iu], bergmann_hommel(mat[iu]))
    assert np.allclose(out, out.T)
    perm = np.array([2, 0, 3, 1])  # relabelling the models permutes the adjusted p-values the same way
    np.testing.assert_allclose(bergmann_hommel(mat[np.ix_(perm, perm)]), out[np.ix_(perm, perm)])
    np.testing.assert_allclose(shaffer(mat[np.ix_(perm, perm)]), shaffer(mat)[np.ix_(perm, perm)])


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="not k \\(k-1\\) / 2"):
        shaffer([0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="symmetric"):
        bergmann_hommel([[1, 0.1], [0.2, 1]])
    with pytest.raises(ValueError, match="use shaffer"):
        exhaustive_sets(11)
