"""Sequence data for the transformer: synthetic copy/reverse tasks and character-level text.

* :func:`make_copy_task`: rows ``[a_1..a_L, SEP, b_1..b_L]`` with ``a`` uniform over ``vocab_size``
  symbols, ``SEP = vocab_size`` and ``b = a`` (``task="copy"``) or ``b = reversed(a)``
  (``"reverse"``); the returned mask marks the ``b`` positions, the only ones a model can predict.
* :func:`sequence_accuracy`: greedy decoding of ``b`` from the prompt ``[a, SEP]``; the share of
  rows with every symbol right, and the share of symbols right.
* :class:`CharVocabulary`: the sorted characters of a text, ``encode``/``decode``.
* :func:`strided_windows`: windows of ``length`` tokens for evaluating a model of limited context on
  a long text; every token after the first is scored exactly once, with at least
  ``length - stride - 1`` tokens of context after the first window.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import check_random_state, check_scalar

__all__ = ["make_copy_task", "sequence_accuracy", "CharVocabulary", "strided_windows"]


def make_copy_task(n_samples: int, length: int, vocab_size: int, task: str = "copy", random_state=None):
    """Return ``(X, target_mask)``: ``X`` of shape ``(n_samples, 2 length + 1)``, ids in ``[0, vocab_size]``."""
    check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
    check_scalar(length, "length", numbers.Integral, low=1)
    check_scalar(vocab_size, "vocab_size", numbers.Integral, low=2)
    check_scalar(task, "task", str, choices=("copy", "reverse"))
    rng = check_random_state(random_state)
    a = rng.integers(0, vocab_size, size=(n_samples, length))
    b = a if task == "copy" else a[:, ::-1]
    sep = np.full((n_samples, 1), vocab_size)
    X = np.concatenate([a, sep, b], axis=1)
    mask = np.zeros_like(X, dtype=bool)
    mask[:, length + 1 :] = True
    return X, mask


def sequence_accuracy(model, X: np.ndarray, length: int) -> tuple[float, float]:
    """``(exact-match rate, per-symbol accuracy)`` of greedy decoding of the answer half of ``X``."""
    prompt = X[:, : length + 1]
    out = model.generate(prompt, n_new=length, greedy=True)[:, length + 1 :]
    right = out == X[:, length + 1 :]
    return float(np.mean(right.all(axis=1))), float(np.mean(right))


class CharVocabulary:
    """Map characters to ids ``0..V-1`` in sorted order."""

    def __init__(self, text: str):
        if not text:
            raise ValueError("the text is empty")
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        unknown = sorted(set(text) - set(self.index))
        if unknown:
            raise ValueError(f"characters not in the vocabulary: {unknown}")
        return np.array([self.index[c] for c in text], dtype=np.intp)

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in np.asarray(ids).ravel())


def strided_windows(ids, length: int, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """Windows ``(n_windows, length)`` and a target mask scoring every token after the first once.

    The first window scores its positions ``1..length-1``; each later window (starting ``stride``
    tokens after the previous one) scores only its last ``stride`` positions. A tail shorter than a
    stride gets one final window ending at the last token.
    """
    ids = np.asarray(ids, dtype=np.intp).ravel()
    check_scalar(length, "length", numbers.Integral, low=2)
    check_scalar(stride, "stride", numbers.Integral, low=1, high=length - 1)
    if ids.size < length:
        raise ValueError(f"the sequence has {ids.size} tokens, fewer than the window length {length}")
    starts = list(range(0, ids.size - length + 1, stride))
    last_end = starts[-1] + length
    if last_end < ids.size:
        starts.append(ids.size - length)
    W = np.stack([ids[s : s + length] for s in starts])
    mask = np.zeros_like(W, dtype=bool)
    mask[0, 1:] = True
    covered = length
    for r, s in enumerate(starts[1:], start=1):
        new = s + length - covered  # tokens this window adds
        mask[r, length - new :] = True
        covered = s + length
    return W, mask
