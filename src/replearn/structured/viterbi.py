"""The argmax problem for sequences: Viterbi (CIML §17.3 and §17.7, Alg. 42), its loss-augmented
version for the structured SVM (eq. 17.53), and brute-force enumeration as the reference.

Scores decompose over positions (eqs. 17.15-17.16): with unary scores ``unary[l, k]`` (the weight of
the unary features "x_l has label k") and transition scores ``transition[k', k]`` (the weight of the
Markov feature "label k' is followed by k"), the score of a label sequence y is::

    s(y) = sum_l unary[l, y_l] + sum_{l >= 1} transition[y_{l-1}, y_l]

Viterbi (Alg. 42) computes, for every position l and label k, the best prefix score
``alpha[l, k] = max_{k'} alpha[l-1, k'] + transition[k', k] + unary[l, k]`` (eq. 17.48) and the
back-pointer ``zeta[l, k]`` = the maximizing k' (eq. 17.49), in O(L K^2) instead of O(K^L).

Erratum (catalogue 001 §3.3 item 19): Alg. 42's traceback line 12 reads ``y_l <- zeta_{l, y_{l+1}}``;
with back-pointers stored as in eq. 17.49 it must be ``y_l <- zeta_{l+1, y_{l+1}}``, which is what
:func:`viterbi` does. Ties go to the lowest label index (``numpy.argmax``).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..validation import check_array

#: brute force enumerates K**L sequences; refuse more than this
_MAX_BRUTE_FORCE = 2_000_000


def _check_scores(unary, transition) -> tuple[np.ndarray, np.ndarray]:
    unary = check_array(unary, name="unary")
    transition = check_array(transition, name="transition")
    K = unary.shape[1]
    if transition.shape != (K, K):
        raise ValueError(
            f"transition must have shape (K, K) = ({K}, {K}) to match unary's {K} labels, got {transition.shape}"
        )
    return unary, transition


def _check_gold(gold, L: int, K: int) -> np.ndarray:
    gold = np.asarray(gold)
    if gold.ndim != 1 or gold.shape[0] != L:
        raise ValueError(f"gold must be a 1-D sequence of {L} label indices, got shape {gold.shape}")
    if gold.dtype.kind not in "iu" and not (gold.dtype.kind == "f" and np.all(np.mod(gold, 1) == 0)):
        raise ValueError(f"gold must hold integer label indices, got dtype {gold.dtype}")
    gold = gold.astype(np.int64)
    if gold.size and (gold.min() < 0 or gold.max() >= K):
        raise ValueError(f"gold label indices must lie in [0, {K - 1}], got range [{gold.min()}, {gold.max()}]")
    return gold


def sequence_score(unary, transition, labels) -> float:
    """s(y) = sum_l unary[l, y_l] + sum_l transition[y_{l-1}, y_l] (eqs. 17.15-17.16)."""
    unary, transition = _check_scores(unary, transition)
    y = _check_gold(labels, unary.shape[0], unary.shape[1])
    return float(unary[np.arange(y.size), y].sum() + transition[y[:-1], y[1:]].sum())


def hamming_loss(y_true, y_pred) -> int:
    """Number of positions where two label sequences differ (CIML eq. 17.17)."""
    a, b = np.asarray(y_true), np.asarray(y_pred)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"hamming_loss needs two 1-D sequences of the same length, got {a.shape} and {b.shape}")
    return int(np.sum(a != b))


def viterbi(unary, transition, *, gold=None, return_tables: bool = False):
    """Best label sequence by dynamic programming (CIML Alg. 42).

    Parameters
    ----------
    unary : (L, K) array — ``unary[l, k]`` = w . (unary features of position l with label k).
    transition : (K, K) array — ``transition[k', k]`` = w . (Markov feature "k' then k").
    gold : None or (L,) label indices — if given, the argmax is **loss-augmented** with the Hamming
        loss against ``gold`` (eq. 17.53): every cell whose label differs from ``gold[l]`` gets +1.
        The returned score then includes the loss.
    return_tables : also return the dynamic-programming tables ``alpha`` (L, K) and back-pointers
        ``zeta`` (L, K) (``zeta[0]`` is -1: no previous label).

    Returns
    -------
    (labels, score) — labels first: the (L,) int array argmax_y s(y) [+ loss(gold, y)], and its score;
    with ``return_tables``, (labels, score, alpha, zeta).
    """
    unary, transition = _check_scores(unary, transition)
    L, K = unary.shape
    if gold is not None:
        g = _check_gold(gold, L, K)
        unary = unary + (np.arange(K)[None, :] != g[:, None])  # + 1[k != y_l]  (eq. 17.53)
    alpha = np.empty((L, K))
    zeta = np.full((L, K), -1, dtype=np.int64)
    alpha[0] = unary[0]  # alpha_0 = 0 plus the unary features of the first position
    for pos in range(1, L):
        cand = alpha[pos - 1][:, None] + transition  # cand[k', k] = alpha_{l-1,k'} + w.phi_l(..., k', k)
        zeta[pos] = np.argmax(cand, axis=0)
        alpha[pos] = cand[zeta[pos], np.arange(K)] + unary[pos]
    y = np.empty(L, dtype=np.int64)
    y[-1] = int(np.argmax(alpha[-1]))
    for pos in range(L - 1, 0, -1):
        y[pos - 1] = zeta[pos, y[pos]]  # corrected traceback: zeta_{l+1, y_{l+1}} in CIML's 1-based indexing
    score = float(alpha[-1, y[-1]])
    if return_tables:
        return y, score, alpha, zeta
    return y, score


def loss_augmented_viterbi(unary, transition, gold):
    """argmax_y s(y) + Hamming(gold, y) (Alg. 41 line 4, eq. 17.53); returns (labels, augmented score)."""
    return viterbi(unary, transition, gold=gold)


def brute_force_argmax(unary, transition, *, gold=None):
    """Reference argmax by enumerating all K**L sequences (CIML §17.2: |Y(x)| = K^L).

    Ties go to the lexicographically first sequence. Refuses more than two million sequences.
    """
    unary, transition = _check_scores(unary, transition)
    L, K = unary.shape
    if K**L > _MAX_BRUTE_FORCE:
        raise ValueError(f"brute force would enumerate K^L = {K}^{L} sequences; use viterbi instead")
    g = None if gold is None else _check_gold(gold, L, K)
    best, best_score = None, -np.inf
    for seq in itertools.product(range(K), repeat=L):
        y = np.asarray(seq)
        s = unary[np.arange(L), y].sum() + transition[y[:-1], y[1:]].sum()
        if g is not None:
            s += np.sum(y != g)
        if s > best_score:
            best, best_score = y, s
    return best.astype(np.int64), float(best_score)


def structured_hinge_loss(unary, transition, gold) -> float:
    """max{0, max_y [s(y) + Hamming(gold, y)] - s(gold)} (CIML eq. 17.22)."""
    _, aug = viterbi(unary, transition, gold=gold)
    return max(0.0, aug - sequence_score(unary, transition, gold))
