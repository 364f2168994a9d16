"""Wilcoxon signed-rank test and the sign test for paired scores.

Both compare two models on N paired scores -- typically their scores on N data sets (Demsar
2006, §3.1.2-3.1.3: the tests to use for two classifiers over several data sets), or on the
folds of one cross-validation (where the folds' dependence makes them anti-conservative, like
the plain t-test).  ``d = a - b``; ``alternative="greater"`` tests whether ``a`` tends to be
larger.

Conventions (each a parameter, recorded in ``TestResult.conventions``):

* ``decimals``: the differences are rounded to this many decimals before anything else
  (``None``: no rounding).  Scores printed with 3 decimals should be compared at 3 decimals:
  ``0.768 - 0.763`` and ``0.936 - 0.931`` differ in the 17th digit and would otherwise not tie.
* ``zero_method`` (zero differences), for :func:`wilcoxon`:

  - ``"demsar"`` (default): zeros are ranked with the other differences and their ranks split
    evenly between ``R+`` and ``R-``; with an odd number of zeros one zero is dropped first
    (Demsar 2006, §3.1.3).
  - ``"zsplit"``: as "demsar" without dropping a zero (SciPy's ``zero_method="zsplit"``).
  - ``"wilcox"``: zeros are dropped before ranking (Wilcoxon's original; SciPy's default).
  - ``"pratt"``: zeros are ranked, then dropped (Pratt 1959).
* ``ties`` for :func:`sign_test`: ``"split"`` (default; ties shared evenly between wins and
  losses, one dropped if their number is odd, as Demsar §3.1.3) or ``"drop"``.
* Tied absolute differences get average ranks.

The Wilcoxon p-value is **exact** when ``method="exact"``, or ``"auto"`` with at most
``EXACT_MAX_N = 50`` ranked differences: the permutation distribution of ``R+`` under random
signs of the non-zero differences, *given* their (possibly tied, average) ranks and with the
zero ranks' share held fixed, computed by dynamic programming on the doubled ranks.  Without
ties or zeros this is the classical exact distribution (SciPy's ``method="exact"``); with them
it is what SciPy computes by enumeration for ``n <= 13`` (``method="auto"``).  Otherwise the
normal approximation ``z = (R+ - mu) / sigma`` is used, with ``mu = n_r (n_r + 1)/4`` and
``sigma^2 = n_r (n_r + 1)(2 n_r + 1)/24 - sum(t^3 - t)/48`` (``n_r`` ranked values, the tie term
with ``tie_correction=True``; Pratt subtracts the zeros' share, as SciPy), and an optional
continuity correction of 1/2.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ._result import TestResult
from .effect_sizes import average_ranks, paired_differences

__all__ = ["EXACT_MAX_N", "sign_test", "wilcoxon"]

EXACT_MAX_N = 50
ZERO_METHODS = ("demsar", "zsplit", "wilcox", "pratt")
ALTERNATIVES = ("two-sided", "less", "greater")


def _differences(a, b, decimals) -> np.ndarray:
    if b is None:
        d = np.asarray(a, dtype=np.float64)
        if d.ndim != 1 or d.size < 1:
            raise ValueError(f"a must be a non-empty 1-D array of differences, got shape {d.shape}")
        if not np.all(np.isfinite(d)):
            raise ValueError("a contains NaN or infinite values")
    else:
        d = paired_differences(a, b, min_size=1)
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, (numbers.Integral, np.integer)):
            raise ValueError(f"decimals must be an integer or None, got {decimals!r}")
        d = np.round(d, int(decimals))
        d[d == 0] = 0.0  # no -0.0
    return d


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}, got {alternative!r}")


def _signed_rank_null(doubled_ranks: np.ndarray) -> np.ndarray:
    """P(S = s) for ``S = sum of a random subset of doubled_ranks`` (each in with probability 1/2); read-only,
    shared by every call with the same ranks (a benchmark's pairs without ties all rank 1..N)."""
    return _signed_rank_null_of(tuple(int(w) for w in doubled_ranks))


@functools.lru_cache(maxsize=256)
def _signed_rank_null_of(doubled_ranks: tuple[int, ...]) -> np.ndarray:
    total = sum(doubled_ranks)
    prob = np.zeros(total + 1)
    prob[0] = 1.0
    for w in doubled_ranks:
        if w:
            prob[w:] += prob[: prob.size - w]  # numpy buffers the overlap: the shifted copy of the previous prob
        else:
            prob += prob
        prob *= 0.5
    prob.flags.writeable = False
    return prob


@functools.lru_cache(maxsize=4096)
def _binomial_tails(k: int, n: int) -> tuple[float, float]:
    """``(P(W <= k), P(W >= k))`` for ``W ~ Binomial(n, 1/2)``, by scipy's binom (cached: a benchmark's pairs
    repeat the same few (k, n))."""
    from scipy import stats

    return float(stats.binom.cdf(k, n, 0.5)), float(stats.binom.sf(k - 1, n, 0.5))


def _tail_pvalue(p_le: float, p_ge: float, alternative: str) -> float:
    if alternative == "greater":
        p = p_ge
    elif alternative == "less":
        p = p_le
    else:
        p = 2.0 * min(p_le, p_ge)
    return float(min(1.0, max(0.0, p)))


def wilcoxon(
    a,
    b=None,
    *,
    zero_method: str = "demsar",
    alternative: str = "two-sided",
    method: str = "auto",
    tie_correction: bool = True,
    correction: bool = False,
    decimals: int | None = None,
) -> TestResult:
    """Wilcoxon signed-rank test of the median of ``d = a - b`` (or of ``a`` when ``b`` is None).

    Ranks of ``|d|`` (average ranks for ties) are summed over positive differences (``R+``) and
    negative ones (``R-``), zeros handled by ``zero_method`` (module docstring; default Demsar's).
    ``statistic`` is ``min(R+, R-)`` for the two-sided test (Demsar's T) and ``R+`` for a
    one-sided one, as in ``scipy.stats.wilcoxon``.  ``method``: "auto" (exact when at most
    :data:`EXACT_MAX_N` values are ranked), "exact" or "approx".  The exact p-value conditions
    on the ranks; the two-sided one is ``min(1, 2 min(P(R+ <= r), P(R+ >= r)))``.

    Effect size: the matched-pairs rank-biserial correlation ``(R+ - R-) / (R+ + R-)`` with this
    zero handling (positive: ``a`` tends to be larger; 0 when every difference is zero).
    ``extra``: ``r_plus``, ``r_minus``, ``n_ranked`` (values ranked), ``n_zero`` (zero
    differences), ``z`` (the normal score, also when the p-value is exact) and ``method_used``.
    All differences zero: statistic per the formula, p = 1.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    _check_alternative(alternative)
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {list(ZERO_METHODS)}, got {zero_method!r}")
    if method not in ("auto", "exact", "approx"):
        raise ValueError(f"method must be 'auto', 'exact' or 'approx', got {method!r}")
    d = _differences(a, b, decimals)
    zeros = d == 0
    n_zero = int(zeros.sum())
    if zero_method == "demsar" and n_zero % 2 == 1:
        d = np.delete(d, np.flatnonzero(zeros)[0])
        zeros = d == 0
    if zero_method == "wilcox":
        d = d[~zeros]
        zeros = d == 0
    n = d.size
    ranks = average_ranks(np.abs(d)) if n else np.zeros(0)
    pos, neg = d > 0, d < 0
    zero_share = float(ranks[zeros].sum()) / 2.0 if zero_method in ("demsar", "zsplit") else 0.0
    r_plus = float(ranks[pos].sum()) + zero_share
    r_minus = float(ranks[neg].sum()) + zero_share
    nonzero_ranks = ranks[~zeros]

    # normal approximation (SciPy's formulas)
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0
    if zero_method == "pratt":
        mean -= n_zero * (n_zero + 1) / 4.0
        var -= n_zero * (n_zero + 1) * (2 * n_zero + 1) / 24.0
    if tie_correction and n:
        tie_ranks = ranks if zero_method != "pratt" else nonzero_ranks
        _, t = np.unique(tie_ranks, return_counts=True)
        var -= float(np.sum(t**3 - t)) / 48.0
    se = float(np.sqrt(max(var, 0.0)))
    z = (r_plus - mean) / se if se > 0 else 0.0

    use_exact = method == "exact" or (method == "auto" and n <= EXACT_MAX_N)
    if nonzero_ranks.size == 0:
        p = 1.0
    elif use_exact:
        prob = _signed_rank_null(np.round(2 * nonzero_ranks))
        s_obs = int(round(2 * (r_plus - zero_share)))
        cdf = np.cumsum(prob)
        p_le = float(cdf[min(s_obs, cdf.size - 1)])
        p_ge = float(1.0 - cdf[s_obs - 1]) if s_obs > 0 else 1.0
        p = _tail_pvalue(p_le, p_ge, alternative)
    else:
        zc = z
        if correction and se > 0:
            sign = 1.0 if alternative == "greater" else -1.0 if alternative == "less" else float(np.sign(z))
            zc = z - sign * 0.5 / se
        p_le, p_ge = float(stats.norm.cdf(zc)), float(stats.norm.sf(zc))
        if alternative == "two-sided":
            p = float(min(1.0, 2.0 * stats.norm.sf(abs(zc))))
        else:
            p = _tail_pvalue(p_le, p_ge, alternative)
    total = r_plus + r_minus
    statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    return TestResult(
        test="wilcoxon",
        statistic=float(statistic),
        pvalue=float(p),
        df=None,
        effect_size=(r_plus - r_minus) / total if total > 0 else 0.0,
        effect_size_name="rank_biserial",
        alternative=alternative,
        conventions={
            "difference": "a - b",
            "zero_method": zero_method,
            "ties": "average ranks of |d|",
            "decimals": decimals,
            "statistic": "min(R+, R-)" if alternative == "two-sided" else "R+",
            "method": method,
            "tie_correction": bool(tie_correction),
            "continuity_correction": bool(correction),
            "exact": "permutation distribution of R+ given the ranks (zeros' share fixed)",
            "source": "Wilcoxon (1945); Demsar (2006) section 3.1.3",
        },
        extra={
            "r_plus": r_plus,
            "r_minus": r_minus,
            "n_ranked": int(n),
            "n_zero": n_zero,
            "z": float(z),
            "method_used": "exact" if use_exact else "approx",
        },
    )


def sign_test(
    a,
    b=None,
    *,
    ties: str = "split",
    alternative: str = "two-sided",
    decimals: int | None = None,
    confidence: float = 0.95,
    interval: bool = True,
) -> TestResult:
    """Exact binomial sign test: does ``a`` beat ``b`` more (or less) often than half the time?

    Counts wins (``d > 0``), losses (``d < 0``) and ties (``d == 0``, after rounding to
    ``decimals``); ties are split (default, Demsar §3.1.3) or dropped.  Under H0 the wins are
    ``Binomial(wins + losses, 1/2)``; the two-sided p-value is ``min(1, 2 min(P(W <= w),
    P(W >= w)))`` (equal to ``scipy.stats.binomtest``'s for p = 1/2).  ``statistic`` = the
    number of wins (after splitting ties), ``effect_size`` = the proportion of wins, with its
    Clopper-Pearson ``ci`` at ``confidence`` (``interval=False``: no interval, ``ci`` None -- its root finding is
    most of the test's time, for callers that only read the counts and the p-value).  Demsar notes it is weaker
    than the Wilcoxon test but assumes nothing about the size of the differences.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    _check_alternative(alternative)
    if ties not in ("split", "drop"):
        raise ValueError(f"ties must be 'split' or 'drop', got {ties!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    d = _differences(a, b, decimals)
    wins, losses, n_ties = int(np.sum(d > 0)), int(np.sum(d < 0)), int(np.sum(d == 0))
    w, n_losses = float(wins), float(losses)
    if ties == "split":
        w += n_ties // 2
        n_losses += n_ties // 2
    n = int(w + n_losses)
    if n == 0:
        p, prop, ci = 1.0, 0.5, (0.0, 1.0)
    else:
        k = int(w)
        p = _tail_pvalue(*_binomial_tails(k, n), alternative)
        prop = k / n
        if interval:
            res = stats.binomtest(k, n, 0.5, alternative=alternative)
            ci_ = res.proportion_ci(confidence_level=confidence, method="exact")
            ci = (float(ci_.low), float(ci_.high))
        else:
            ci = None
    return TestResult(
        test="sign_test",
        statistic=float(w),
        pvalue=float(p),
        df=None,
        effect_size=float(prop),
        effect_size_name="proportion_of_wins",
        ci=ci,
        alternative=alternative,
        conventions={
            "difference": "a - b (a win: d > 0)",
            "ties": ties + (" (evenly between wins and losses; one dropped if odd)" if ties == "split" else ""),
            "decimals": decimals,
            "ci": f"{confidence:g} Clopper-Pearson interval of the proportion of wins",
            "source": "Demsar (2006) section 3.1.3",
        },
        extra={"wins": wins, "losses": losses, "ties": n_ties, "n": n},
    )
