"""Vapnik's generalization bound for an infinite hypothesis class of finite VC dimension (CS229 notes §8.3.3).

CS229's statement (seed 000 L3827-3831): with D = VC(H), with probability at least 1 - delta, for all h in H,

    |eps(h) - eps_hat(h)| <= O( sqrt( (D/n) log(n/D) + (1/n) log(1/delta) ) ),

and hence eps(h_hat) <= eps(h*) + 2 * (that gap) for empirical risk minimization (L3833-3835); the Corollary (L3837):
n = O_{gamma, delta}(D) examples suffice for a gap gamma. Correction: in the seed's text the square root closes
after ``log(n/D)``, putting ``(1/n) log(1/delta)`` outside it; the theorem (Ng's original notes, and the proof
below) has both terms under the root -- the confidence term of every Hoeffding-type bound is
sqrt(log(1/delta) / n), as in §8.3.2's sqrt(log(2k/delta) / (2n)).

The notes give only the O(.) form. The constants here are Vapnik and Chervonenkis's own (1971, Theorem 2;
Vapnik, *Statistical Learning Theory*, 1998, §4.5): for n >= 2 / gamma^2,

    P( sup_h |eps(h) - eps_hat(h)| > gamma ) <= 4 Pi_H(2n) exp(-n gamma^2 / 8),

where Pi_H(m), the growth function, is the largest number of labelings H realizes on m points. Sauer's lemma
(Sauer 1972; Shelah 1972) bounds it through the VC dimension alone: Pi_H(m) <= sum_{i=0}^{D} C(m, i)
(<= (e m / D)^D for m >= D) -- polynomial in m instead of 2^m, which is why a finite VC dimension gives uniform
convergence. Setting the right-hand side to delta:

    gamma = sqrt( (8 / n) (log Pi_H(2n) + log(4 / delta)) )            (:func:`vc_generalization_bound`)

which is O(sqrt((D/n) log(n/D) + (1/n) log(1/delta))) -- the notes' form (tested: the ratio stays within
constant bounds over n, D and delta). The condition n gamma^2 >= 2 holds automatically
(n gamma^2 >= 8 log 4). These constants are loose -- the bound exceeds 1, and so says nothing about a 0-1
error, until n is in the thousands for D = 3 -- but they are a theorem, and the simulation in the tests
confirms that the measured worst deviation never reaches them. For a finite class of k hypotheses compare
§8.3.2's sqrt(log(2k/delta) / (2n)) (:func:`replearn.theory.uniform_convergence_gap`); the 64-bit argument of
§8.3.3 (k = 2^{64 d}) gives the same linear-in-d sample complexity with a worse constant.

Logarithms are natural.
"""

from __future__ import annotations

import math
import numbers

from ..validation import check_scalar

__all__ = ["log_growth_function_bound", "vc_erm_bound", "vc_generalization_bound", "vc_sample_size"]


def _check_delta(delta) -> float:
    check_scalar(delta, "delta", numbers.Real, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    return float(delta)


def _check_int(value, name, low) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    check_scalar(value, name, numbers.Integral, low=low)
    return int(value)


def log_growth_function_bound(m, vc_dim) -> float:
    """log of Sauer's bound on the growth function: log sum_{i=0}^{min(D, m)} C(m, i) (exact integers).

    Equals m log 2 (all 2^m labelings) when m <= D, and is at most D log(e m / D) when m >= D.
    """
    m = _check_int(m, "m", 0)
    D = _check_int(vc_dim, "vc_dim", 0)
    total = sum(math.comb(m, i) for i in range(min(D, m) + 1))
    return math.log(total)


def vc_generalization_bound(n, delta, vc_dim) -> float:
    """gamma such that, with probability >= 1 - delta, |eps(h) - eps_hat(h)| <= gamma for every h of a class of
    VC dimension ``vc_dim`` after ``n`` examples: sqrt((8/n)(log Pi(2n) + log(4/delta))) (see the module)."""
    n = _check_int(n, "n", 1)
    delta = _check_delta(delta)
    D = _check_int(vc_dim, "vc_dim", 0)
    return float(math.sqrt(8.0 * (log_growth_function_bound(2 * n, D) + math.log(4.0 / delta)) / n))


def vc_erm_bound(n, delta, vc_dim, best_error=0.0) -> float:
    """eps(h_hat) <= eps(h*) + 2 gamma for the empirical risk minimizer (CS229 L3833), gamma of
    :func:`vc_generalization_bound`; ``best_error`` = eps(h*) = min_h eps(h)."""
    check_scalar(best_error, "best_error", numbers.Real, low=0.0, high=1.0)
    return float(best_error + 2.0 * vc_generalization_bound(n, delta, vc_dim))


def vc_sample_size(gamma, delta, vc_dim) -> int:
    """Smallest n whose :func:`vc_generalization_bound` is <= gamma -- the Corollary's n = O_{gamma,delta}(D)
    (L3837), linear in D up to a log factor. Found by doubling then bisection (the bound decreases in n)."""
    check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)
    delta = _check_delta(delta)
    D = _check_int(vc_dim, "vc_dim", 0)
    hi = 1
    while vc_generalization_bound(hi, delta, D) > gamma:
        hi *= 2
        if hi > 2**62:
            raise ValueError(f"no sample size reaches gamma={gamma!r}; it is too small")
    lo = hi // 2  # bound(lo) > gamma unless lo == 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if vc_generalization_bound(mid, delta, D) <= gamma:
            hi = mid
        else:
            lo = mid
    return int(hi)
