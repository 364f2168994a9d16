"""More resampling schemes: grouped k-fold, leave-one-out, the bootstrap, train/dev/test hold-out.

All return :class:`~replearn.evaluation.splits.Split` objects (``index, repeat, fold, train,
test, seed``), and :func:`~replearn.evaluation.splits.make_splits` reaches them by name
("group_kfold", "leave_one_out", "bootstrap").  Seeds follow the module
:mod:`~replearn.evaluation.splits`: repeat r draws from ``default_rng(repeat_seed(seed, r))``.

* **Grouped k-fold** (CIML §5.6, seed 001 L1610-1612: "cross-validate over images, not pixels;
  over documents, not words"): every example carries the id of the independently drawn unit it
  comes from, and a whole group is in the test fold or in the training part, never split.  The
  groups are put in random order (``rng.permutation`` of the sorted group ids), then sorted by
  size, largest first (a stable sort, so equal sizes keep the random order), and each goes to
  the fold with the fewest examples so far (ties: the lowest fold number).  Folds then have
  nearly equal numbers of examples.  Needs at least ``folds`` groups.
* **Leave-one-out** (CS229 §9.3, seed 000 L4051-4068; CIML L1577 calls K = N - 1 leave-one-out,
  but only K = N gives singleton folds with Alg. 8's ``n mod K``): n splits, split i tests
  example i.  No randomness; the seed is recorded unchanged.
* **Bootstrap** (out-of-bag): repeat r trains on ``rng.integers(0, n, n)`` -- n draws with
  replacement, so ``train`` holds repeated indices (sorted) -- and tests on the examples never
  drawn (about ``(1 - 1/n)^n ~ 36.8%`` of them).  A repeat whose out-of-bag set is empty is
  an error (n is then tiny).
* **Train/dev/test** hold-out (CIML §2.5, L527-542: 70/10/20 with tuning on dev):
  :func:`train_dev_test_split_indices`.

The .632 and .632+ bootstrap estimators of the prediction error (Efron 1983; Efron &
Tibshirani 1997) are in :mod:`replearn.evaluation.bootstrap_error`.
"""

from __future__ import annotations

import numpy as np

from .splits import Split, _check_int, _check_y, _frozen, repeat_seed, train_test_split_indices

__all__ = [
    "bootstrap_splits",
    "group_kfold_splits",
    "leave_one_out_splits",
    "train_dev_test_split_indices",
]


def _check_groups(groups, n: int | None = None) -> np.ndarray:
    if groups is None:
        raise ValueError("groups is None; grouped splits need the group id of every example")
    g = np.asarray(groups)
    if g.ndim != 1:
        raise ValueError(f"groups must be 1-D, got shape {g.shape}")
    if n is not None and g.size != n:
        raise ValueError(f"groups has {g.size} entries but there are {n} examples")
    if g.size < 2:
        raise ValueError(f"at least 2 examples are needed to split, got {g.size}")
    return g


def group_kfold_splits(groups, *, folds: int = 5, seed: int = 0, shuffle: bool = True) -> list[Split]:
    """K-fold splits in which no group is on both sides (see the module docstring).

    ``shuffle=False`` keeps the sorted group ids as the initial order (deterministic, no seed).
    """
    g = _check_groups(groups)
    folds = _check_int(folds, "folds", 2)
    seed = _check_int(seed, "seed", 0)
    ids, inverse, sizes = np.unique(g, return_inverse=True, return_counts=True)
    if ids.size < folds:
        raise ValueError(f"group k-fold with {folds} folds needs at least {folds} groups, got {ids.size}")
    rs = repeat_seed(seed, 0)
    order = np.random.default_rng(rs).permutation(ids.size) if shuffle else np.arange(ids.size)
    order = order[np.argsort(-sizes[order], kind="stable")]
    load = np.zeros(folds, dtype=np.int64)
    fold_of_group = np.empty(ids.size, dtype=np.int64)
    for gi in order:
        f = int(np.argmin(load))
        fold_of_group[gi] = f
        load[f] += sizes[gi]
    fold_of = fold_of_group[inverse]
    return [
        Split(f, 0, f, _frozen(np.flatnonzero(fold_of != f)), _frozen(np.flatnonzero(fold_of == f)), rs)
        for f in range(folds)
    ]


def leave_one_out_splits(n: int, *, seed: int = 0) -> list[Split]:
    """n splits; split i tests example i and trains on the others."""
    n = _check_int(n, "n", 2)
    seed = _check_int(seed, "seed", 0)
    everything = np.arange(n)
    return [Split(i, 0, i, _frozen(np.delete(everything, i)), _frozen([i]), seed) for i in range(n)]


def bootstrap_splits(n: int, *, repeats: int = 100, seed: int = 0) -> list[Split]:
    """``repeats`` bootstrap splits: train on n draws with replacement, test out-of-bag."""
    n = _check_int(n, "n", 2)
    repeats = _check_int(repeats, "repeats", 1)
    seed = _check_int(seed, "seed", 0)
    out = []
    for r in range(repeats):
        rs = repeat_seed(seed, r)
        train = np.random.default_rng(rs).integers(0, n, n)
        oob = np.setdiff1d(np.arange(n), train)
        if oob.size == 0:
            raise ValueError(f"bootstrap repeat {r} drew every one of the n={n} examples: no out-of-bag test set")
        out.append(Split(r, r, 0, _frozen(train), _frozen(oob), rs))
    return out


def train_dev_test_split_indices(y, *, dev_size=0.1, test_size=0.2, stratify: bool, random_state: int):
    """Three-way hold-out ``(train, dev, test)`` (CIML L527: 70% / 10% / 20% of 1000 examples).

    First the test part is split off with ``test_size`` (a fraction of all n, or a count), then
    the dev part from the rest with ``dev_size`` (a fraction of **all** n, or a count), each by
    :func:`~replearn.evaluation.splits.train_test_split_indices` (stratified when asked), the
    second with seed ``repeat_seed(random_state, 1)``.  Returns sorted index arrays into ``y``.
    """
    y = _check_y(y)
    n = y.size
    rs = _check_int(random_state, "random_state", 0)
    rest, test = train_test_split_indices(y, test_size, stratify=stratify, random_state=rs)
    if isinstance(dev_size, float):
        if not 0.0 < dev_size < 1.0:
            raise ValueError(f"dev_size must lie in (0, 1) when it is a fraction, got {dev_size!r}")
        n_dev = int(np.ceil(dev_size * n))
    else:
        n_dev = _check_int(dev_size, "dev_size", 1)
    if not 1 <= n_dev <= rest.size - 1:
        raise ValueError(f"dev_size={dev_size!r} leaves no training data: {n_dev} dev examples out of {rest.size}")
    tr, dev = train_test_split_indices(y[rest], n_dev, stratify=stratify, random_state=repeat_seed(rs, 1))
    return _frozen(rest[tr]), _frozen(rest[dev]), test
