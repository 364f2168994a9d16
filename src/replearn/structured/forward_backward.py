"""Sums over label sequences: the forward algorithm, forward-backward marginals, and their HMM form.

Viterbi (:mod:`replearn.structured.viterbi`, CIML §17.3/§17.7 Alg. 42) finds max_y s(y) on the trellis of
eqs. 17.15-17.16, ``s(y) = sum_l unary[l, y_l] + sum_{l>=1} transition[y_{l-1}, y_l]``. CIML calls it "a
variant of the Viterbi algorithm for hidden Markov models" (seed 001 L5128) and stops at the argmax; the texts
never write the sum. Replacing max by a sum over the same lattice (the sum-product semiring) gives:

* the **forward algorithm**: ``log_alpha[0, k] = unary[0, k]``,
  ``log_alpha[l, k] = unary[l, k] + logsumexp_{k'} (log_alpha[l-1, k'] + transition[k', k])``, and
  ``log Z = logsumexp_k log_alpha[L-1, k] = log sum_y exp s(y)``;
* the **backward algorithm**: ``log_beta[L-1, k] = 0``,
  ``log_beta[l, k] = logsumexp_{k'} (transition[k, k'] + unary[l+1, k'] + log_beta[l+1, k'])``;
* **marginals** of p(y) = exp(s(y) - log Z): ``p(y_l = k) = exp(log_alpha[l, k] + log_beta[l, k] - log Z)``
  and ``p(y_{l-1} = k', y_l = k) = exp(log_alpha[l-1, k'] + transition[k', k] + unary[l, k] + log_beta[l, k]
  - log Z)`` -- the expected feature counts a CRF's gradient needs, in O(L K^2) instead of O(K^L).

For an HMM (the generator of :mod:`replearn.structured.data`) the scores are log-probabilities,
``unary[l, k] = log emissionprob[k, x_l]`` (+ ``log start_prob[k]`` at l = 0) and ``transition = log transmat``;
then s(y) = log p(x, y), so ``log Z = log p(x)`` (the likelihood of the observed sequence, summed over the hidden
states) and the marginals are the posteriors p(y_l | x) and p(y_{l-1}, y_l | x) of the E-step of Baum-Welch
(EPFL names Baum-Welch, seed 004 L1224). Everything runs in log space (logsumexp), so sequences of thousands
of positions neither underflow nor need Rabiner's per-step scaling; -inf scores (impossible transitions) are
allowed. Checked against enumeration of all K^L sequences (:func:`brute_force_marginals`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ..validation import check_array

__all__ = [
    "SequenceMarginals",
    "backward",
    "brute_force_marginals",
    "forward",
    "hmm_log_likelihood",
    "hmm_posteriors",
    "hmm_scores",
    "sequence_marginals",
]

_MAX_BRUTE_FORCE = 2_000_000


@dataclass
class SequenceMarginals:
    """Result of :func:`sequence_marginals`: ``node`` (L, K) with rows summing to 1, ``edge`` (L-1, K, K) with
    ``edge[l-1, k', k] = p(y_{l-1} = k', y_l = k)``, ``log_partition`` = log sum_y exp s(y) (log p(x) for an
    HMM), and the tables ``log_alpha``, ``log_beta`` (L, K)."""

    node: np.ndarray
    edge: np.ndarray
    log_partition: float
    log_alpha: np.ndarray
    log_beta: np.ndarray


def _log_scores(values, name: str) -> np.ndarray:
    """A float array checked by the shared validator, where -inf (probability 0) is allowed; NaN, +inf refused."""
    try:
        arr = np.asarray(values)
    except Exception:  # ragged lists: the validator words the error
        return check_array(values, name=name)
    neg = np.isneginf(arr) if arr.dtype.kind == "f" else None
    checked = check_array(np.where(neg, 0.0, arr) if neg is not None else arr, name=name)
    if neg is not None:
        checked = np.where(neg, -np.inf, checked)
    return checked


def _scores(unary, transition) -> tuple[np.ndarray, np.ndarray]:
    u = _log_scores(unary, "unary")
    t = _log_scores(transition, "transition")
    K = u.shape[1]
    if t.shape != (K, K):
        raise ValueError(f"transition must have shape (K, K) = ({K}, {K}) to match unary's {K} labels, got {t.shape}")
    return u, t


def _check_reachable(log_z: float) -> None:
    if not np.isfinite(log_z):
        raise ValueError("every label sequence has score -inf (probability 0): the scores allow no sequence at all")


def forward(unary, transition) -> tuple[np.ndarray, float]:
    """The forward algorithm: ``(log_alpha (L, K), log Z)`` with log Z = log sum_y exp s(y) (see the module)."""
    u, t = _scores(unary, transition)
    L, K = u.shape
    log_alpha = np.empty((L, K))
    log_alpha[0] = u[0]
    for pos in range(1, L):
        log_alpha[pos] = u[pos] + logsumexp(log_alpha[pos - 1][:, None] + t, axis=0)
    log_z = float(logsumexp(log_alpha[-1]))
    _check_reachable(log_z)
    return log_alpha, log_z


def backward(unary, transition) -> np.ndarray:
    """The backward algorithm: ``log_beta (L, K)``, log of the summed scores of every completion after l."""
    u, t = _scores(unary, transition)
    L, K = u.shape
    log_beta = np.zeros((L, K))
    for pos in range(L - 2, -1, -1):
        log_beta[pos] = logsumexp(t + (u[pos + 1] + log_beta[pos + 1])[None, :], axis=1)
    return log_beta


def sequence_marginals(unary, transition) -> SequenceMarginals:
    """Forward-backward: the node and edge marginals of p(y) proportional to exp s(y) (see the module)."""
    u, t = _scores(unary, transition)
    log_alpha, log_z = forward(u, t)
    log_beta = backward(u, t)
    with np.errstate(invalid="ignore"):  # -inf + -inf stays -inf; exp gives 0
        node = np.exp(log_alpha + log_beta - log_z)
        edge = np.exp(log_alpha[:-1, :, None] + t[None, :, :] + (u[1:] + log_beta[1:])[:, None, :] - log_z)
    return SequenceMarginals(
        node=np.nan_to_num(node), edge=np.nan_to_num(edge), log_partition=log_z, log_alpha=log_alpha, log_beta=log_beta
    )


def brute_force_marginals(unary, transition) -> SequenceMarginals:
    """Reference: enumerate all K^L sequences (refused above two million); ``log_alpha``/``log_beta`` are
    left empty."""
    u, t = _scores(unary, transition)
    L, K = u.shape
    if K**L > _MAX_BRUTE_FORCE:
        raise ValueError(f"brute force would enumerate K^L = {K}^{L} sequences; use sequence_marginals instead")
    seqs = np.array(list(itertools.product(range(K), repeat=L)), dtype=np.int64)
    with np.errstate(invalid="ignore"):
        s = u[np.arange(L)[None, :], seqs].sum(axis=1) + t[seqs[:, :-1], seqs[:, 1:]].sum(axis=1)
    log_z = float(logsumexp(s))
    _check_reachable(log_z)
    p = np.exp(s - log_z)
    node = np.zeros((L, K))
    edge = np.zeros((max(L - 1, 0), K, K))
    for pos in range(L):
        np.add.at(node[pos], seqs[:, pos], p)
        if pos >= 1:
            np.add.at(edge[pos - 1], (seqs[:, pos - 1], seqs[:, pos]), p)
    return SequenceMarginals(node, edge, log_z, np.empty((0, K)), np.empty((0, K)))


# -- hidden Markov models -------------------------------------------------------------------------------------
def hmm_scores(symbols, start_prob, transmat, emissionprob) -> tuple[np.ndarray, np.ndarray]:
    """Trellis scores of an HMM: ``unary[l, k] = log emissionprob[k, x_l]`` (+ log start_prob at l = 0) and
    ``transition = log transmat``, so that s(y) = log p(x, y). Zero probabilities give -inf."""
    start = check_array(start_prob, name="start_prob", ndim=1)
    trans = check_array(transmat, name="transmat")
    emit = check_array(emissionprob, name="emissionprob")
    K, V = emit.shape
    if start.shape != (K,) or trans.shape != (K, K):
        raise ValueError(f"start_prob must be ({K},) and transmat ({K}, {K}) to match emissionprob {emit.shape}")
    for name, p in (("start_prob", start[None]), ("transmat", trans), ("emissionprob", emit)):
        if np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0):
            raise ValueError(f"{name} rows must be probability vectors (non-negative, summing to 1)")
    x = np.asarray(symbols)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"symbols must be a non-empty 1-D sequence of symbol ids, got shape {x.shape}")
    if x.dtype.kind not in "iu":
        raise ValueError(f"symbols must be integer symbol ids in [0, {V - 1}], got dtype {x.dtype}")
    if x.min() < 0 or x.max() >= V:
        raise ValueError(f"symbols must lie in [0, {V - 1}] (emissionprob has {V} symbols), got [{x.min()}, {x.max()}]")
    with np.errstate(divide="ignore"):
        unary = np.log(emit[:, x].T)
        unary[0] += np.log(start)
        return unary, np.log(trans)


def hmm_log_likelihood(symbols, start_prob, transmat, emissionprob) -> float:
    """log p(x) = log sum_y p(x, y) of an observed symbol sequence, by the forward algorithm."""
    return forward(*hmm_scores(symbols, start_prob, transmat, emissionprob))[1]


def hmm_posteriors(symbols, start_prob, transmat, emissionprob) -> SequenceMarginals:
    """Posterior state marginals p(y_l | x) (``node``) and transition marginals p(y_{l-1}, y_l | x)
    (``edge``) of an HMM, with ``log_partition = log p(x)`` -- forward-backward (the E-step of Baum-Welch)."""
    return sequence_marginals(*hmm_scores(symbols, start_prob, transmat, emissionprob))
