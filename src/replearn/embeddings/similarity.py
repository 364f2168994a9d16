"""Nearest neighbours and analogies in an embedding space (cosine similarity).

``analogy(a, b, c)`` answers "a is to b as c is to ?" with 3CosAdd (Mikolov et al. 2013):
``argmax_x cos(e_x, e_b - e_a + e_c)`` over words other than ``a``, ``b``, ``c`` -- e.g.
``analogy("man", "king", "woman") -> "queen"``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalize_rows", "most_similar", "analogy"]


def normalize_rows(E: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(E, axis=1, keepdims=True)
    return E / np.where(norms > 0, norms, 1.0)


def _index(words: list[str], word: str) -> int:
    try:
        return words.index(word)
    except ValueError:
        raise KeyError(f"{word!r} is not in the vocabulary") from None


def most_similar(E: np.ndarray, words: list[str], word: str, topn: int = 5) -> list[tuple[str, float]]:
    """The ``topn`` words with the highest cosine similarity to ``word`` (itself excluded)."""
    U = normalize_rows(np.asarray(E, dtype=float))
    i = _index(words, word)
    sims = U @ U[i]
    sims[i] = -np.inf
    order = np.argsort(-sims, kind="stable")[:topn]
    return [(words[j], float(sims[j])) for j in order]


def analogy(E: np.ndarray, words: list[str], a: str, b: str, c: str, topn: int = 1) -> list[tuple[str, float]]:
    """Words ``x`` maximizing ``cos(e_x, e_b - e_a + e_c)``, excluding ``a``, ``b`` and ``c``."""
    U = normalize_rows(np.asarray(E, dtype=float))
    ia, ib, ic = _index(words, a), _index(words, b), _index(words, c)
    target = U[ib] - U[ia] + U[ic]
    sims = U @ (target / np.linalg.norm(target))
    sims[[ia, ib, ic]] = -np.inf
    order = np.argsort(-sims, kind="stable")[:topn]
    return [(words[j], float(sims[j])) for j in order]
