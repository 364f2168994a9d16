"""Resampling splits: hold-out, (stratified, repeated) k-fold, interleaved k-fold and 5x2.

Course basis: CIML §5.6 Alg. 8 CrossValidate (seed 001, L1546-1567; interleaved folds
``n mod K``); CIML §2.5-2.6 and CS229 §9.3 (seed 000, L4020-4068) for hold-out and k-fold;
Dietterich (1998) for 5x2 cross-validation.

Conventions
-----------
* **Seeds.**  Every repeat ``r`` draws from its own generator
  ``np.random.default_rng(Split.seed)`` with
  ``Split.seed = int(np.random.SeedSequence([seed, r]).generate_state(1)[0])`` (a 32-bit
  integer).  Repeats are therefore independent streams, a run with ``seed=s`` shares no repeat
  with a run with ``seed=s+1`` (as ``seed + r`` would), and any repeat can be reproduced from the
  ``seed`` recorded in its splits.
* **k-fold** (shuffled): ``perm = rng.permutation(n)``; fold ``f`` is the ``f``-th of ``K``
  contiguous chunks of ``perm`` (``np.array_split``: the first ``n mod K`` folds have one more
  example).
* **Interleaved k-fold** (``interleaved=True``, scheme "kfold" only): no shuffling; example
  ``n`` (0-based) is in test fold ``n mod K``.  These are exactly the folds of CIML Alg. 8, which
  uses 1-based ``n`` and tests fold ``k`` on ``{n : n mod K = k - 1}``; only the numbering of
  the folds differs (book fold ``k`` = 1..K is our fold ``(k - 2) mod K``; the book's first fold
  is our last).  Interleaving keeps any order in the data (sorted by class or time)
  spread over all folds, but it is not random: shuffle the data first if its order means
  something.
* **Stratified k-fold**: within each class (classes in sorted order) the members are shuffled
  and dealt round-robin to the folds, each class continuing where the previous one stopped.
  Every fold then holds ``floor(n_c/K)`` or ``ceil(n_c/K)`` members of each class ``c`` and
  the fold sizes differ by at most one.  Each class needs at least ``K`` members.
* **Stratified hold-out**: the test count of class ``c`` is its proportional quota
  ``n_c * n_test / n`` rounded by the largest-remainder method (floor every quota, then give the
  remaining places to the largest fractional parts, ties to the larger class, then the
  earlier class in sorted order), so class test counts add up to ``n_test`` exactly.  A class
  with a quota below one may get no test example.  ``n_test = ceil(test_size * n)`` for a
  fractional ``test_size`` (scikit-learn's rounding), or ``test_size`` itself when it is an int.
* **Stratify or not** (holdout and 5x2): targets with a float dtype are treated as regression
  targets and split without stratification; any other dtype (int, bool, str, object) is
  treated as class labels and stratified.
* Indices are sorted within each fold, and the test folds of one repeat partition
  ``range(n)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ALL_SCHEMES", "SCHEMES", "Split", "make_splits", "repeat_seed", "train_test_split_indices"]

#: Schemes whose test folds partition the data and that need only the targets: the choices of the
#: pipeline's ``cv.scheme``.
SCHEMES = ("kfold", "stratified_kfold", "repeated_kfold", "repeated_stratified_kfold", "5x2", "holdout")
#: Every scheme :func:`make_splits` knows; the last three live in :mod:`replearn.evaluation.resampling`
#: ("group_kfold" needs ``groups``; "bootstrap" trains on draws with replacement and tests out-of-bag).
ALL_SCHEMES = SCHEMES + ("group_kfold", "leave_one_out", "bootstrap")


@dataclass(frozen=True)
class Split:
    """One train/test split: ``index`` counts splits in the list, ``repeat`` and ``fold`` locate it.

    ``train`` and ``test`` are sorted, read-only int64 index arrays; ``seed`` is the seed of
    the repeat's generator (see the module docstring).
    """

    index: int
    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray
    seed: int

    def meta(self) -> dict:
        """JSON-ready description (python ints): index, repeat, fold, n_train, n_test, seed."""
        return {
            "index": int(self.index),
            "repeat": int(self.repeat),
            "fold": int(self.fold),
            "n_train": int(self.train.size),
            "n_test": int(self.test.size),
            "seed": int(self.seed),
        }

    def __eq__(self, other) -> bool:
        if not isinstance(other, Split):
            return NotImplemented
        return (
            (self.index, self.repeat, self.fold, self.seed) == (other.index, other.repeat, other.fold, other.seed)
            and np.array_equal(self.train, other.train)
            and np.array_equal(self.test, other.test)
        )

    def __hash__(self) -> int:
        return hash((self.index, self.repeat, self.fold, self.seed, self.train.tobytes(), self.test.tobytes()))


def repeat_seed(seed: int, repeat: int) -> int:
    """The seed of repeat ``repeat``: ``SeedSequence([seed, repeat]).generate_state(1)[0]``."""
    return int(np.random.SeedSequence([int(seed), int(repeat)]).generate_state(1)[0])


# The helpers and the hold-out split live in replearn._holdout (numpy only), which the prepare stage imports without
# this package and the models registry its cross-validation reaches; they are part of this module's API as before.
from .._holdout import (  # noqa: E402,F401
    _check_int,
    _check_y,
    _class_members,
    _frozen,
    _is_classification,
    _largest_remainder,
    _n_test,
    train_test_split_indices,
)


# ----------------------------------------------------------------------------- k-fold
def _kfold_assign(n: int, folds: int, rng: np.random.Generator | None) -> np.ndarray:
    """Fold number of each example: shuffled contiguous chunks, or ``n mod K`` without rng."""
    if rng is None:
        return np.arange(n) % folds
    fold_of = np.empty(n, dtype=np.int64)
    for f, chunk in enumerate(np.array_split(rng.permutation(n), folds)):
        fold_of[chunk] = f
    return fold_of


def _stratified_assign(y: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    classes, members = _class_members(y)
    for c, m in zip(classes.tolist(), members):
        if m.size < folds:
            hint = " (y has a float dtype: for regression targets use 'kfold')" if y.dtype.kind == "f" else ""
            raise ValueError(
                f"stratified {folds}-fold split: class {c!r} has only {m.size} member(s); "
                f"every class needs at least {folds}{hint}"
            )
    order = np.concatenate([rng.permutation(m) for m in members])
    fold_of = np.empty(y.size, dtype=np.int64)
    fold_of[order] = np.arange(y.size) % folds
    return fold_of


def _folds_to_splits(fold_of: np.ndarray, folds: int, repeat: int, seed: int, start: int) -> list[Split]:
    out = []
    for f in range(folds):
        test = fold_of == f
        out.append(Split(start + f, repeat, f, _frozen(np.flatnonzero(~test)), _frozen(np.flatnonzero(test)), seed))
    return out


def make_splits(
    scheme: str,
    y,
    *,
    folds: int = 5,
    repeats: int = 1,
    seed: int = 0,
    test_size=0.25,
    interleaved: bool = False,
    groups=None,
) -> list[Split]:
    """All train/test splits of a resampling ``scheme`` (one of :data:`ALL_SCHEMES`), in order.

    * "kfold": one repeat of shuffled K-fold (``folds`` = K); with ``interleaved=True`` the
      unshuffled CIML Alg. 8 folds (example ``n`` in fold ``n mod K``).
    * "stratified_kfold": one repeat of stratified K-fold (class counts per fold differ by <= 1).
    * "repeated_kfold", "repeated_stratified_kfold": ``repeats`` repeats of the above, each with
      its own seed.
    * "5x2": Dietterich's 5 repeats of 2-fold CV (stratified for class labels, plain for float
      targets); ``folds`` and ``repeats`` are ignored.
    * "holdout": ``repeats`` independent hold-out splits with ``test_size`` (repeated hold-out
      when ``repeats > 1``; stratified for class labels); ``folds`` is ignored.

    * "group_kfold": K folds over the ``groups`` (one id per example), no group on both sides
      (CIML L1610-1612); "leave_one_out": n singleton test folds; "bootstrap": ``repeats``
      bootstrap samples with out-of-bag test sets (see :mod:`replearn.evaluation.resampling`).

    "kfold" and "stratified_kfold" require ``repeats == 1`` (use the repeated schemes).
    Returns a list of :class:`Split`; ``Split.index`` runs 0, 1, ... over the list.
    """
    if scheme not in ALL_SCHEMES:
        raise ValueError(f"unknown split scheme {scheme!r}; choose one of {list(ALL_SCHEMES)}")
    y = _check_y(y)
    n = y.size
    seed = _check_int(seed, "seed", 0)
    repeats = _check_int(repeats, "repeats", 1)
    if groups is not None and scheme != "group_kfold":
        raise ValueError(f"groups are only used by scheme 'group_kfold', got scheme {scheme!r}")
    if scheme in ("group_kfold", "leave_one_out", "bootstrap"):
        from . import resampling

        if interleaved:
            raise ValueError(f"interleaved=True is only defined for scheme 'kfold' (CIML Alg. 8), got {scheme!r}")
        if scheme == "group_kfold":
            if repeats != 1:
                raise ValueError(f"scheme 'group_kfold' has one repeat, got repeats={repeats}")
            return resampling.group_kfold_splits(resampling._check_groups(groups, n), folds=folds, seed=seed)
        if scheme == "leave_one_out":
            return resampling.leave_one_out_splits(n, seed=seed)
        return resampling.bootstrap_splits(n, repeats=repeats, seed=seed)
    if interleaved and scheme != "kfold":
        raise ValueError(f"interleaved=True is only defined for scheme 'kfold' (CIML Alg. 8), got {scheme!r}")
    if scheme in ("kfold", "stratified_kfold") and repeats != 1:
        raise ValueError(f"scheme {scheme!r} has one repeat, got repeats={repeats}; use 'repeated_{scheme}'")

    if scheme == "holdout":
        out = []
        for r in range(repeats):
            rs = repeat_seed(seed, r)
            tr, te = train_test_split_indices(y, test_size, stratify=_is_classification(y), random_state=rs)
            out.append(Split(r, r, 0, tr, te, rs))
        return out

    if scheme == "5x2":
        folds, repeats, stratified = 2, 5, _is_classification(y)
    else:
        folds = _check_int(folds, "folds", 2)
        stratified = "stratified" in scheme
    if folds > n:
        raise ValueError(f"folds={folds} is larger than the number of examples n={n}")

    out: list[Split] = []
    for r in range(repeats):
        rs = repeat_seed(seed, r)
        if interleaved:
            fold_of = _kfold_assign(n, folds, None)
        elif stratified:
            fold_of = _stratified_assign(y, folds, np.random.default_rng(rs))
        else:
            fold_of = _kfold_assign(n, folds, np.random.default_rng(rs))
        out.extend(_folds_to_splits(fold_of, folds, r, rs, len(out)))
    return out
