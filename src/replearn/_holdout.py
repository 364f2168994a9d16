"""The deterministic hold-out split and the index helpers of :mod:`replearn.evaluation.splits` (numpy only).

They live here, outside the ``evaluation`` package, so that the ``prepare`` stage, which splits each dataset once
into train and sealed test, does not import that package (whose cross-validation builds models by registry name)
and so does not depend, for DVC, on every model (:mod:`replearn.pipeline.deps`). :mod:`replearn.evaluation.splits`
re-exports all of them; the largest-remainder allocation is described in that module's docstring.
"""

from __future__ import annotations

import numbers

import numpy as np


def _check_y(y) -> np.ndarray:
    if y is None:
        raise ValueError("y is None; make_splits needs the targets (or any array of length n)")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {arr.shape}")
    if arr.size < 2:
        raise ValueError(f"at least 2 examples are needed to split, got {arr.size}")
    return arr


def _check_int(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return int(value)


def _is_classification(y: np.ndarray) -> bool:
    return y.dtype.kind != "f"


def _frozen(idx) -> np.ndarray:
    arr = np.sort(np.asarray(idx, dtype=np.int64))
    arr.setflags(write=False)
    return arr


def _n_test(test_size, n: int) -> int:
    if isinstance(test_size, bool):
        raise TypeError(f"test_size must be a float in (0, 1) or an int, got {test_size!r}")
    if isinstance(test_size, (numbers.Integral, np.integer)):
        n_test = int(test_size)
    elif isinstance(test_size, numbers.Real):
        if not 0.0 < test_size < 1.0:
            raise ValueError(f"test_size must lie in (0, 1) when it is a fraction, got {test_size!r}")
        n_test = int(np.ceil(test_size * n))
    else:
        raise TypeError(f"test_size must be a float in (0, 1) or an int, got {type(test_size).__name__}")
    if not 1 <= n_test <= n - 1:
        raise ValueError(f"test_size={test_size!r} gives {n_test} test examples out of {n}; need between 1 and {n - 1}")
    return n_test


def _class_members(y: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    classes, inverse = np.unique(y, return_inverse=True)
    return classes, [np.flatnonzero(inverse == i) for i in range(classes.size)]


def _largest_remainder(counts: np.ndarray, total: int) -> np.ndarray:
    quota = counts * total / counts.sum()
    alloc = np.floor(quota).astype(np.int64)
    left = total - int(alloc.sum())
    if left:
        frac = quota - alloc
        # largest fraction first, then larger class, then earlier class
        order = np.lexsort((np.arange(counts.size), -counts, -frac))
        alloc[order[:left]] += 1
    return alloc


# ----------------------------------------------------------------------------- hold-out
def train_test_split_indices(y, test_size, *, stratify: bool, random_state: int) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic hold-out split: ``(train_idx, test_idx)``, each sorted.

    ``test_size``: a fraction in (0, 1) (``n_test = ceil(test_size * n)``) or a count.  Without
    stratification the test set is the first ``n_test`` entries of
    ``default_rng(random_state).permutation(n)``.  With ``stratify=True`` each class gets its
    largest-remainder share of ``n_test`` (module docstring) drawn at random from its members;
    every class needs at least 2 members.  CS229 §9.3 (seed 000, L4020-4032) suggests
    ``test_size`` between 1/4 and 1/3 (0.3 typical); CIML L491-497 uses 0.2.
    """
    y = _check_y(y)
    rs = _check_int(random_state, "random_state", 0)
    n = y.size
    n_test = _n_test(test_size, n)
    rng = np.random.default_rng(rs)
    if not stratify:
        perm = rng.permutation(n)
        return _frozen(perm[n_test:]), _frozen(perm[:n_test])
    classes, members = _class_members(y)
    counts = np.array([m.size for m in members])
    small = [(c, k) for c, k in zip(classes.tolist(), counts.tolist()) if k < 2]
    if small:
        c, k = small[0]
        raise ValueError(f"stratified split: class {c!r} has {k} member; every class needs at least 2")
    alloc = _largest_remainder(counts, n_test)
    if np.any(alloc == 0):  # a test part without a class scores nothing of it (minority F1, AUC): refuse
        i = int(np.flatnonzero(alloc == 0)[0])
        need = int(np.ceil(n / counts[i]))  # from here on its quota counts[i] * n_test / n is at least 1
        raise ValueError(
            f"stratified split: class {classes[i].item()!r} has {int(counts[i])} of the {n} members, and a test part "
            f"of {n_test} gets none of them (its share is {counts[i] * n_test / n:.2f}); every class needs at least "
            f"one test example: a test part of {need} or more holds one"
        )
    test = []
    for m, k in zip(members, alloc):
        test.append(rng.permutation(m)[:k])
    test_idx = np.concatenate(test)
    mask = np.zeros(n, dtype=bool)
    mask[test_idx] = True
    return _frozen(np.flatnonzero(~mask)), _frozen(test_idx)
