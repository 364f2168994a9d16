"""Synthetic sequence-labelling data from a hidden Markov model with seeded parameters.

The hidden states are the labels y_l, the emitted symbols the "words" x_l (CIML §17.2's
"monsters eat tasty bunnies" / "noun verb adj noun" setting):

    y_1 ~ Categorical(start_prob),  y_l | y_{l-1} ~ Categorical(transmat[y_{l-1}]),
    x_l | y_l ~ Categorical(emissionprob[y_l])

Each row of ``transmat`` is a Dirichlet draw plus ``self_transition`` mass on its diagonal (sticky
labels); each row of ``emissionprob`` is a Dirichlet(``emission_concentration``) draw (small values
give peaked, informative words). Inputs are returned one-hot, (L, n_symbols) per sequence, ready for
the joint feature map of :mod:`replearn.structured.features`.

:func:`hmm_viterbi` decodes with the true parameters (the Bayes-optimal sequence decoder, through
:func:`replearn.structured.viterbi` with log-probabilities as scores) — the ceiling a learned model is
compared with.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from ..validation import check_random_state, check_scalar
from .viterbi import viterbi


@dataclass
class HMMSequences:
    """Sampled sequences with the HMM that generated them."""

    X: list = field(repr=False)  # one-hot inputs, (L_i, n_symbols) each
    y: list = field(repr=False)  # label sequences, (L_i,) ints each
    symbols: list = field(repr=False)  # emitted symbol ids, (L_i,) each
    start_prob: np.ndarray = field(repr=False)
    transmat: np.ndarray = field(repr=False)
    emissionprob: np.ndarray = field(repr=False)
    n_states: int = 0
    n_symbols: int = 0
    random_state: int | None = None


def make_hmm_params(n_states=3, n_symbols=8, *, self_transition=0.5, emission_concentration=0.3, random_state=None):
    """(start_prob, transmat, emissionprob) drawn from seeded Dirichlet distributions (see module doc)."""
    check_scalar(n_states, "n_states", numbers.Integral, low=2)
    check_scalar(n_symbols, "n_symbols", numbers.Integral, low=1)
    check_scalar(self_transition, "self_transition", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
    check_scalar(emission_concentration, "emission_concentration", numbers.Real, low=0.0, low_inclusive=False)
    rng = check_random_state(random_state)
    start = rng.dirichlet(np.ones(n_states))
    trans = (1.0 - self_transition) * rng.dirichlet(np.ones(n_states), size=n_states) + self_transition * np.eye(
        n_states
    )
    emit = rng.dirichlet(np.full(n_symbols, float(emission_concentration)), size=n_states)
    emit = np.maximum(emit, 1e-12)  # tiny Dirichlet draws can underflow to 0; keep log-probabilities finite
    return start, trans, emit / emit.sum(axis=1, keepdims=True)


def make_hmm_sequences(
    n_sequences=100,
    length=10,
    n_states=3,
    n_symbols=8,
    *,
    self_transition=0.5,
    emission_concentration=0.3,
    random_state=None,
) -> HMMSequences:
    """Sample ``n_sequences`` label/word sequences from a seeded HMM.

    ``length`` is an int, or a pair (min, max) for lengths drawn uniformly in [min, max]. The HMM's
    parameters and the samples both come from ``random_state`` (parameters first), so a seed fixes
    everything; use :func:`sample_hmm` to draw more data from the same HMM.
    """
    rng = check_random_state(random_state)
    start, trans, emit = make_hmm_params(
        n_states,
        n_symbols,
        self_transition=self_transition,
        emission_concentration=emission_concentration,
        random_state=rng,
    )
    out = sample_hmm(start, trans, emit, n_sequences, length, random_state=rng)
    out.random_state = random_state if isinstance(random_state, (int, np.integer)) else None
    return out


def sample_hmm(start_prob, transmat, emissionprob, n_sequences=100, length=10, *, random_state=None) -> HMMSequences:
    """Sample sequences from given HMM parameters (see :func:`make_hmm_sequences`)."""
    check_scalar(n_sequences, "n_sequences", numbers.Integral, low=1)
    start, trans, emit = (np.asarray(a, dtype=np.float64) for a in (start_prob, transmat, emissionprob))
    K, V = emit.shape
    if start.shape != (K,) or trans.shape != (K, K):
        raise ValueError(f"start_prob must be ({K},) and transmat ({K}, {K}) to match emissionprob {emit.shape}")
    for name, p in (("start_prob", start[None]), ("transmat", trans), ("emissionprob", emit)):
        if np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0):
            raise ValueError(f"{name} rows must be probability vectors (non-negative, summing to 1)")
    if isinstance(length, (numbers.Integral, np.integer)) and not isinstance(length, bool):
        lo = hi = int(length)
    else:
        try:
            lo, hi = (int(v) for v in length)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"length must be an int or a (min, max) pair, got {length!r}") from exc
    if not 1 <= lo <= hi:
        raise ValueError(f"length must satisfy 1 <= min <= max, got ({lo}, {hi})")
    rng = check_random_state(random_state)
    X, Y, S = [], [], []
    for _ in range(int(n_sequences)):
        L = int(rng.integers(lo, hi + 1))
        y = np.empty(L, dtype=np.int64)
        y[0] = rng.choice(K, p=start)
        for pos in range(1, L):
            y[pos] = rng.choice(K, p=trans[y[pos - 1]])
        s = np.array([rng.choice(V, p=emit[k]) for k in y], dtype=np.int64)
        x = np.zeros((L, V))
        x[np.arange(L), s] = 1.0
        X.append(x)
        Y.append(y)
        S.append(s)
    return HMMSequences(
        X=X, y=Y, symbols=S, start_prob=start, transmat=trans, emissionprob=emit, n_states=K, n_symbols=V
    )


def hmm_viterbi(symbols, start_prob, transmat, emissionprob) -> np.ndarray:
    """Most probable state sequence argmax_y p(y, x) with the true HMM parameters.

    Scores: unary[l, k] = log emissionprob[k, x_l] (+ log start_prob[k] at l = 0), transition = log transmat.
    """
    s = np.asarray(symbols, dtype=np.int64)
    with np.errstate(divide="ignore"):
        unary = np.log(np.asarray(emissionprob)[:, s].T)
        unary[0] += np.log(np.asarray(start_prob))
        trans = np.log(np.asarray(transmat))
    return viterbi(np.maximum(unary, -1e30), np.maximum(trans, -1e30))[0]
