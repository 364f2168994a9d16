"""Resampling splits: partitions, stratification, determinism, CIML Alg. 8 interleaving, 5x2."""

import numpy as np
import pytest

from replearn.evaluation.splits import SCHEMES, Split, make_splits, repeat_seed, train_test_split_indices


def _labels(counts, kind=int):
    y = np.concatenate([np.full(c, i) for i, c in enumerate(counts)])
    return np.random.default_rng(0).permutation(y).astype(kind)


def _assert_partitions(splits, n):
    by_repeat = {}
    for s in splits:
        assert np.all(np.diff(s.test) > 0) and np.all(np.diff(s.train) > 0), "indices sorted, no duplicates"
        assert np.intersect1d(s.train, s.test).size == 0
        np.testing.assert_array_equal(np.union1d(s.train, s.test), np.arange(n))
        by_repeat.setdefault(s.repeat, []).append(s.test)
    for tests in by_repeat.values():
        np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(n))
    return by_repeat


@pytest.mark.parametrize(
    "scheme, kwargs, n_splits",
    [
        ("kfold", dict(folds=5), 5),
        ("kfold", dict(folds=4, interleaved=True), 4),
        ("stratified_kfold", dict(folds=3), 3),
        ("repeated_kfold", dict(folds=4, repeats=3), 12),
        ("repeated_stratified_kfold", dict(folds=3, repeats=2), 6),
        ("5x2", dict(), 10),
    ],
)
def test_test_folds_partition_each_repeat(scheme, kwargs, n_splits):
    y = _labels([13, 9, 7])
    splits = make_splits(scheme, y, seed=3, **kwargs)
    assert len(splits) == n_splits
    assert [s.index for s in splits] == list(range(n_splits))
    _assert_partitions(splits, y.size)


def test_kfold_fold_sizes_differ_by_at_most_one():
    splits = make_splits("repeated_kfold", np.zeros(23), folds=5, repeats=2, seed=1)
    sizes = [s.test.size for s in splits]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 2 * 23


@pytest.mark.parametrize("folds", [2, 3, 5])
def test_stratified_class_counts_differ_by_at_most_one(folds):
    y = _labels([17, 11, 6, 5])
    splits = make_splits("repeated_stratified_kfold", y, folds=folds, repeats=3, seed=7)
    for r in range(3):
        per_fold = np.array([[np.sum(y[s.test] == c) for c in range(4)] for s in splits if s.repeat == r])
        assert np.all(per_fold.max(axis=0) - per_fold.min(axis=0) <= 1)
        np.testing.assert_array_equal(per_fold.sum(axis=0), [17, 11, 6, 5])
        sizes = per_fold.sum(axis=1)
        assert sizes.max() - sizes.min() <= 1


def test_stratified_string_labels():
    y = np.array(["spam"] * 6 + ["ham"] * 9)
    for s in make_splits("stratified_kfold", y, folds=3, seed=0):
        assert sorted(y[s.test].tolist()) == ["ham"] * 3 + ["spam"] * 2


def test_same_seed_same_splits_different_seed_different_splits():
    y = _labels([20, 20])
    a = make_splits("repeated_stratified_kfold", y, folds=5, repeats=2, seed=11)
    b = make_splits("repeated_stratified_kfold", y, folds=5, repeats=2, seed=11)
    c = make_splits("repeated_stratified_kfold", y, folds=5, repeats=2, seed=12)
    assert a == b
    assert [s.meta() for s in a] == [s.meta() for s in b]
    assert any(not np.array_equal(s.test, t.test) for s, t in zip(a, c))


def test_repeats_differ_and_record_their_seed():
    splits = make_splits("repeated_kfold", np.zeros(30), folds=3, repeats=3, seed=5)
    seeds = [s.seed for s in splits]
    assert seeds == [repeat_seed(5, r) for r in (0, 0, 0, 1, 1, 1, 2, 2, 2)]
    assert len(set(seeds)) == 3
    assert not np.array_equal(splits[0].test, splits[3].test)
    # a repeat is reproducible from its recorded seed alone
    perm = np.random.default_rng(splits[3].seed).permutation(30)
    np.testing.assert_array_equal(splits[3].test, np.sort(perm[:10]))


def test_seed_streams_do_not_overlap_between_neighbouring_seeds():
    # with seed + repeat, seed=0's repeat 1 would equal seed=1's repeat 0
    assert repeat_seed(0, 1) != repeat_seed(1, 0)


def test_interleaved_is_ciml_algorithm_8():
    n, k = 11, 3
    splits = make_splits("kfold", np.zeros(n), folds=k, interleaved=True, seed=99)
    for s in splits:
        np.testing.assert_array_equal(s.test, [i for i in range(n) if i % k == s.fold])
    # CIML Alg. 8 (1-based n): fold k tests {n : n mod K = k - 1}; the same sets, numbered differently
    ciml = [sorted(i - 1 for i in range(1, n + 1) if i % k == kk - 1) for kk in range(1, k + 1)]
    assert sorted(map(list, (s.test.tolist() for s in splits))) == sorted(ciml)
    # interleaving ignores the seed
    other = make_splits("kfold", np.zeros(n), folds=k, interleaved=True, seed=1)
    assert all(np.array_equal(s.test, t.test) for s, t in zip(splits, other))


def test_5x2_structure():
    y = _labels([10, 7])
    splits = make_splits("5x2", y, folds=10, repeats=3, seed=0)  # folds/repeats ignored
    assert len(splits) == 10
    assert [(s.repeat, s.fold) for s in splits] == [(r, f) for r in range(5) for f in range(2)]
    for r in range(5):
        a, b = splits[2 * r], splits[2 * r + 1]
        np.testing.assert_array_equal(a.train, b.test)
        assert abs(np.sum(y[a.test] == 1) - np.sum(y[b.test] == 1)) <= 1  # stratified
    assert len({s.seed for s in splits}) == 5


def test_5x2_float_targets_are_not_stratified():
    y = np.linspace(0, 1, 9)  # every value unique: stratification would fail
    splits = make_splits("5x2", y, seed=0)
    _assert_partitions(splits, 9)


def test_holdout_scheme_and_meta():
    y = _labels([30, 10])
    splits = make_splits("holdout", y, test_size=0.25, repeats=2, seed=4)
    assert len(splits) == 2
    m = splits[1].meta()
    assert m == {"index": 1, "repeat": 1, "fold": 0, "n_train": 30, "n_test": 10, "seed": repeat_seed(4, 1)}
    assert all(type(v) is int for v in m.values())
    # quotas 7.5 and 2.5: the tied remainder goes to the larger class
    for s in splits:
        assert [int(np.sum(y[s.test] == c)) for c in (0, 1)] == [8, 2]
    assert not np.array_equal(splits[0].test, splits[1].test)


def test_train_test_split_stratified_proportions():
    y = _labels([50, 30, 20])
    tr, te = train_test_split_indices(y, 0.3, stratify=True, random_state=0)
    assert te.size == 30 and tr.size == 70
    assert [int(np.sum(y[te] == c)) for c in range(3)] == [15, 9, 6]
    np.testing.assert_array_equal(np.union1d(tr, te), np.arange(100))
    assert np.all(np.diff(te) > 0)


def test_train_test_split_largest_remainder_rounding():
    # quotas for 4 test places: 7*4/12 = 2.33, 3*4/12 = 1.0, 2*4/12 = 0.67 -> floors 2,1,0 and the
    # remaining place goes to the largest fraction (class 2)
    y = np.array([0] * 7 + [1] * 3 + [2] * 2)
    _, te = train_test_split_indices(y, 4, stratify=True, random_state=1)
    assert [int(np.sum(y[te] == c)) for c in range(3)] == [2, 1, 1]


def test_train_test_split_deterministic_and_plain():
    y = np.arange(20)
    a = train_test_split_indices(y, 0.25, stratify=False, random_state=3)
    b = train_test_split_indices(y, 0.25, stratify=False, random_state=3)
    c = train_test_split_indices(y, 0.25, stratify=False, random_state=4)
    np.testing.assert_array_equal(a[1], b[1])
    assert a[1].size == 5 and not np.array_equal(a[1], c[1])


def test_split_arrays_are_read_only():
    s = make_splits("kfold", np.zeros(6), folds=2)[0]
    assert isinstance(s, Split)
    with pytest.raises(ValueError):
        s.test[0] = 3


# ----------------------------------------------------------------------------- errors
def test_errors():
    y = _labels([6, 4])
    with pytest.raises(ValueError, match="unknown split scheme 'loo'"):
        make_splits("loo", y)
    with pytest.raises(ValueError, match="folds must be >= 2"):
        make_splits("kfold", y, folds=1)
    with pytest.raises(ValueError, match="folds=11 is larger than the number of examples n=10"):
        make_splits("kfold", y, folds=11)
    with pytest.raises(ValueError, match="class 1 has only 4 member"):
        make_splits("stratified_kfold", y, folds=5)
    with pytest.raises(ValueError, match="interleaved=True is only defined for scheme 'kfold'"):
        make_splits("stratified_kfold", y, interleaved=True)
    with pytest.raises(ValueError, match="use 'repeated_kfold'"):
        make_splits("kfold", y, repeats=3)
    with pytest.raises(TypeError, match="folds must be an integer"):
        make_splits("kfold", y, folds=2.5)
    with pytest.raises(ValueError, match="for regression targets use 'kfold'"):
        make_splits("stratified_kfold", np.linspace(0, 1, 10), folds=2)


def test_holdout_errors():
    y = np.array(["a", "a", "b", "b", "c"])
    with pytest.raises(ValueError, match="class 'c' has 1 member"):
        train_test_split_indices(y, 0.4, stratify=True, random_state=0)
    with pytest.raises(ValueError, match="test_size must lie in"):
        train_test_split_indices(y, 1.5, stratify=False, random_state=0)
    with pytest.raises(ValueError, match="gives 5 test examples out of 5"):
        train_test_split_indices(y, 5, stratify=False, random_state=0)


def test_schemes_constant():
    assert SCHEMES == ("kfold", "stratified_kfold", "repeated_kfold", "repeated_stratified_kfold", "5x2", "holdout")
