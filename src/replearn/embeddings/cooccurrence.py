"""Tokens, vocabularies and word-context co-occurrence counts (EPFL notes, text representations,
seed 004 L1515-1531).

``n_dn`` counts how often word ``d`` and context word ``n`` appear within ``window`` positions of each
other in the same sentence. With ``weighting="harmonic"`` a pair at distance ``k`` adds ``1/k``
(GloVe's counting, Pennington et al. 2014 §4.2); ``"uniform"`` adds 1. The matrix is symmetric:
each pair is counted from both sides. It is dense here (the corpora are small); the EPFL text's
``x_dn = log n_dn`` on the non-zero set ``Omega`` is what GloVe fits.
"""

from __future__ import annotations

import numbers
import re
from collections import Counter

import numpy as np

from ..validation import check_scalar

__all__ = ["tokenize", "split_sentences", "Vocabulary", "cooccurrence_matrix"]

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def tokenize(text: str) -> list[str]:
    """Lower-case words (letters, with an inner apostrophe allowed)."""
    return _WORD.findall(text.lower())


def split_sentences(text: str) -> list[list[str]]:
    """Token lists of the sentences of ``text`` (split at ``.``, ``;``, ``!``, ``?`` and blank lines)."""
    parts = re.split(r"[.;!?]+|\n\s*\n", text)
    return [t for t in (tokenize(p) for p in parts) if t]


class Vocabulary:
    """Words seen at least ``min_count`` times, most frequent first (ties alphabetical)."""

    def __init__(self, sentences: list[list[str]], min_count: int = 1):
        check_scalar(min_count, "min_count", numbers.Integral, low=1)
        counts = Counter(w for s in sentences for w in s)
        kept = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        if not kept:
            raise ValueError(f"no word occurs at least min_count={min_count} times")
        self.words = kept
        self.index = {w: i for i, w in enumerate(kept)}
        self.counts = np.array([counts[w] for w in kept], dtype=float)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def encode(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Each sentence as an array of word ids; words outside the vocabulary are dropped."""
        return [np.array([self.index[w] for w in s if w in self.index], dtype=np.intp) for s in sentences]


def cooccurrence_matrix(
    encoded: list[np.ndarray], vocab_size: int, window: int = 2, weighting: str = "harmonic"
) -> np.ndarray:
    """Symmetric ``(V, V)`` matrix of (weighted) co-occurrence counts within ``window`` positions."""
    check_scalar(window, "window", numbers.Integral, low=1)
    check_scalar(weighting, "weighting", str, choices=("harmonic", "uniform"))
    C = np.zeros((vocab_size, vocab_size))
    for ids in encoded:
        for k in range(1, int(window) + 1):
            if ids.size <= k:
                break
            w = 1.0 / k if weighting == "harmonic" else 1.0
            np.add.at(C, (ids[:-k], ids[k:]), w)
            np.add.at(C, (ids[k:], ids[:-k]), w)
    return C
