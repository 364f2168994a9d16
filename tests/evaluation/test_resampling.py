"""Grouped k-fold, leave-one-out, bootstrap (out-of-bag) and train/dev/test splits."""

import numpy as np
import pytest

from replearn.evaluation import (
    ALL_SCHEMES,
    SCHEMES,
    bootstrap_splits,
    group_kfold_splits,
    leave_one_out_splits,
    make_splits,
    train_dev_test_split_indices,
)
from replearn.evaluation.splits import repeat_seed


def test_pipeline_schemes_unchanged_and_extended():
    assert SCHEMES == ("kfold", "stratified_kfold", "repeated_kfold", "repeated_stratified_kfold", "5x2", "holdout")
    assert set(ALL_SCHEMES) == set(SCHEMES) | {"group_kfold", "leave_one_out", "bootstrap"}


def test_group_kfold_never_splits_a_group():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 23, 200)  # e.g. 23 images, pixels as examples (CIML L1610)
    splits = make_splits("group_kfold", np.zeros(200), folds=5, seed=4, groups=groups)
    assert len(splits) == 5
    tests = np.sort(np.concatenate([s.test for s in splits]))
    np.testing.assert_array_equal(tests, np.arange(200))
    for s in splits:
        assert not set(groups[s.train]) & set(groups[s.test])
        assert s.meta()["n_train"] + s.meta()["n_test"] == 200
    sizes = [s.test.size for s in splits]
    assert max(sizes) - min(sizes) <= np.bincount(groups).max()  # greedy balancing


def test_group_kfold_determinism_and_seed():
    groups = np.repeat(np.arange(10), [5, 1, 3, 3, 2, 7, 1, 1, 4, 3])
    a = group_kfold_splits(groups, folds=3, seed=1)
    assert a == group_kfold_splits(groups, folds=3, seed=1)
    assert a[0].seed == repeat_seed(1, 0)
    assert any(not np.array_equal(x.test, y.test) for x, y in zip(a, group_kfold_splits(groups, folds=3, seed=2)))
    fixed = group_kfold_splits(groups, folds=3, shuffle=False)
    unshuffled = group_kfold_splits(groups, folds=3, shuffle=False, seed=9)
    assert all(np.array_equal(x.test, y.test) for x, y in zip(fixed, unshuffled))  # the seed plays no role
    assert [s.test.size for s in fixed] == [10, 10, 10]  # sizes 7, 5, 4, 3, 3, 3, 2, 1, 1, 1 dealt greedily
    with pytest.raises(ValueError, match="at least 4 groups"):
        group_kfold_splits([0, 0, 1, 2], folds=4)
    with pytest.raises(ValueError, match="groups has 3 entries"):
        make_splits("group_kfold", np.zeros(4), groups=[0, 1, 2])
    with pytest.raises(ValueError, match="only used by scheme 'group_kfold'"):
        make_splits("kfold", np.zeros(4), folds=2, groups=[0, 1, 2, 3])


def test_leave_one_out():
    splits = leave_one_out_splits(6, seed=3)
    assert [s.test.tolist() for s in splits] == [[i] for i in range(6)]
    assert all(s.train.size == 5 and s.seed == 3 for s in splits)
    assert make_splits("leave_one_out", np.zeros(6), seed=3) == splits


def test_bootstrap_out_of_bag():
    splits = bootstrap_splits(50, repeats=20, seed=7)
    assert len(splits) == 20 and [s.repeat for s in splits] == list(range(20))
    for s in splits:
        draw = np.random.default_rng(s.seed).integers(0, 50, 50)
        np.testing.assert_array_equal(s.train, np.sort(draw))  # with repetitions
        np.testing.assert_array_equal(s.test, np.setdiff1d(np.arange(50), draw))
    oob = np.mean([s.test.size / 200 for s in bootstrap_splits(200, repeats=200, seed=0)])
    assert oob == pytest.approx((1 - 1 / 200) ** 200, abs=0.01)  # about 36.8% out of bag
    assert make_splits("bootstrap", np.zeros(50), repeats=20, seed=7) == splits


def test_train_dev_test():
    y = np.repeat([0, 1], [700, 300])
    tr, dev, te = train_dev_test_split_indices(y, dev_size=0.1, test_size=0.2, stratify=True, random_state=0)
    assert (tr.size, dev.size, te.size) == (700, 100, 200)  # CIML L527
    np.testing.assert_array_equal(np.sort(np.concatenate([tr, dev, te])), np.arange(1000))
    assert np.mean(y[dev]) == pytest.approx(0.3) and np.mean(y[te]) == pytest.approx(0.3)
    again = train_dev_test_split_indices(y, dev_size=0.1, test_size=0.2, stratify=True, random_state=0)
    assert all(np.array_equal(a, b) for a, b in zip(again, (tr, dev, te)))
    with pytest.raises(ValueError, match="leaves no training data"):
        train_dev_test_split_indices(y, dev_size=800, test_size=0.2, stratify=False, random_state=0)
