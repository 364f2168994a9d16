"""Friedman test with the Iman-Davenport F correction, and the Nemenyi post-hoc analysis.

Follows Demsar (2006), "Statistical Comparisons of Classifiers over Multiple Data Sets",
JMLR 7:1-30, §3.2.2.  ``scores`` is an ``(N, k)`` array: N data sets (rows) by k models
(columns), one score per cell (e.g. the mean CV accuracy of model j on data set i).

* Ranks: within each data set, rank 1 is the best model (highest score when
  ``higher_is_better``, else lowest); tied models get the average of the ranks they span.
  ``R_j`` is model j's rank averaged over the data sets.
* ``chi2_F = 12 N / (k (k+1)) [sum_j R_j^2 - k (k+1)^2 / 4]`` against chi-square(k - 1).
  With ``tie_correction=True`` it is divided by ``1 - sum(t^3 - t) / (N k (k^2 - 1))`` (t running
  over the sizes of the tie groups in every row), which is what ``scipy.stats.friedmanchisquare``
  computes.  Demsar's formula has no correction (the default here).
* Iman & Davenport: ``F_F = (N-1) chi2_F / (N (k-1) - chi2_F)`` against F(k-1, (k-1)(N-1)); less
  conservative than chi2_F and the statistic Demsar recommends.  When ``chi2_F`` reaches its
  maximum ``N (k-1)`` (every data set ranks the models identically) ``F_F = inf`` and its p = 0.
  When every row is entirely tied both statistics are 0 and both p-values 1.
* Nemenyi: two models differ significantly when their average ranks differ by at least the
  critical difference ``CD = q_alpha sqrt(k (k+1) / (6 N))`` with ``q_alpha`` the studentized
  range quantile (infinite df) divided by sqrt(2) (Demsar's Table 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._result import TestResult

__all__ = [
    "FriedmanResult",
    "friedman",
    "friedman_exact_pvalue",
    "nemenyi_cd",
    "nemenyi_cliques",
    "nemenyi_pairwise",
    "nemenyi_q",
    "rank_scores",
]


def _check_scores(scores) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError(f"scores must be 2-D (n_datasets, k_models), got shape {s.shape}")
    n, k = s.shape
    if n < 2:
        raise ValueError(f"the Friedman test needs at least 2 data sets (rows), got {n}")
    if k < 2:
        raise ValueError(f"the Friedman test needs at least 2 models (columns), got {k}")
    if not np.all(np.isfinite(s)):
        bad = np.argwhere(~np.isfinite(s))[0]
        raise ValueError(f"scores contain NaN or infinite values (first at data set {bad[0]}, model {bad[1]})")
    return s


def rank_scores(scores, *, higher_is_better: bool = True, decimals: int | None = None) -> np.ndarray:
    """Per-row ranks of an ``(N, k)`` score array: 1 = best, average ranks for ties.

    ``decimals``: round the scores to this many decimals before ranking (``None``: as given), so
    that scores equal at the precision they are reported with tie.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    s = _check_scores(scores)
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
            raise ValueError(f"decimals must be an integer or None, got {decimals!r}")
        s = np.round(s, int(decimals))
    return stats.rankdata(-s if higher_is_better else s, axis=1)


#: Exact p-values are computed for at most this many data sets by default (``exact=None``); above it the
#: chi-square approximation is used. The enumeration also needs k <= EXACT_MAX_K.
EXACT_MAX_N = 10
EXACT_MAX_K = 6
_EXACT_STATE_BUDGET = 2_000_000


@dataclass
class FriedmanResult(TestResult):
    """:class:`TestResult` of :func:`friedman` with the Iman-Davenport statistic and the p-value's method.

    ``pvalue`` is the exact p-value of ``chi2_F`` under the null (every ranking within a data set equally
    likely) when ``pvalue_method == "exact"``, else its chi-square approximation ``chi2_pvalue``.
    ``f_statistic``/``f_pvalue`` are Iman & Davenport's F and its F-distribution p-value; at small N
    that p-value is liberal (it rejects 17-19 % of true nulls at N = 2-3 and alpha = 0.05), so report the
    exact ``pvalue`` there. ``f_statistic`` is ``inf`` when every data set ranks the models identically.
    """

    __test__ = False

    f_statistic: float = float("nan")
    f_pvalue: float = float("nan")
    df_f: tuple = ()
    chi2_pvalue: float = float("nan")
    pvalue_method: str = "chi2"
    n_datasets: int = 0
    k_models: int = 0


def friedman_exact_pvalue(ranks) -> float | None:
    """Exact p-value of Friedman's statistic, conditional on each data set's ranks (ties included).

    Under the null every permutation of a data set's ranks among the models is equally likely, so the
    null distribution of the vector of rank sums is the convolution of the data sets' uniform
    distributions over those permutations. The distribution is exchangeable across models, so states
    are kept sorted, which keeps the enumeration small (k = 3, N = 10: 3,000 states). ``chi2_F`` is an
    increasing function of the sum of squared rank sums, whose upper tail gives the p-value. Returns
    ``None`` when k > EXACT_MAX_K or the enumeration would exceed its budget.
    """
    from itertools import permutations

    r = np.asarray(ranks, dtype=np.float64)
    n, k = r.shape
    if k > EXACT_MAX_K:
        return None
    twice = np.rint(2 * r).astype(np.int64)  # mid-ranks are multiples of 1/2
    states = np.zeros((1, k), dtype=np.int64)  # sorted rank-sum vectors ...
    probs: np.ndarray = np.ones(1)  # ... and their probabilities
    base = int(twice.sum(axis=0).max() if n else 0) + 2 * k * n + 1
    weights = base ** np.arange(k, dtype=np.int64)
    for row in twice:
        perms = np.array(sorted(set(permutations(row.tolist()))), dtype=np.int64)
        if len(states) * len(perms) > _EXACT_STATE_BUDGET:
            return None
        cand = np.sort((states[:, None, :] + perms[None, :, :]).reshape(-1, k), axis=1)
        keys = cand @ weights
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        probs = np.bincount(inverse, weights=np.repeat(probs / len(perms), len(perms)), minlength=len(uniq))
        states = cand[first]
    observed = int(np.sum(twice.sum(axis=0) ** 2))
    p = float(probs[np.sum(states**2, axis=1) >= observed].sum())
    return float(min(1.0, p))


def friedman(
    scores,
    *,
    higher_is_better: bool = True,
    tie_correction: bool = False,
    decimals: int | None = None,
    exact: bool | None = None,
) -> FriedmanResult:
    """Friedman test over N data sets and k models (Demsar 2006 §3.2.2); see the module docstring.

    Returns a :class:`TestResult` with ``statistic = chi2_F``, its chi-square(k-1) p-value,
    ``df = k - 1``, effect size Kendall's ``W = chi2_F / (N (k-1))`` (concordance of the
    rankings, in [0, 1]) and ``extra`` = {"f_statistic": F_F, "f_pvalue", "df_f": [k-1,
    (k-1)(N-1)], "average_ranks": [R_1, ..., R_k], "n_datasets": N, "k_models": k,
    "tie_factor": the divisor used (1.0 without correction)}.  The result does not depend on
    the order of the data sets.  ``decimals`` rounds the scores before ranking (see
    :func:`rank_scores`).
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    ranks = rank_scores(scores, higher_is_better=higher_is_better, decimals=decimals)
    n, k = ranks.shape
    avg = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(avg**2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # rounding can leave -1e-15 when all ranks are equal
    factor = 1.0
    if tie_correction:
        ties = 0.0
        for row in ranks:
            _, t = np.unique(row, return_counts=True)
            ties += float(np.sum(t**3 - t))
        factor = 1.0 - ties / (n * k * (k * k - 1))
    if factor > 0:
        chi2 /= factor
    else:  # every row fully tied: chi2 is 0/0, reported as 0
        chi2 = 0.0
    df = k - 1
    df2 = (k - 1) * (n - 1)
    chi2_p = float(stats.chi2.sf(chi2, df))
    exact_p = None
    if exact or (exact is None and n <= EXACT_MAX_N):
        exact_p = friedman_exact_pvalue(ranks)
        if exact_p is None and exact:
            raise ValueError(
                f"the exact Friedman p-value needs k <= {EXACT_MAX_K} and a small enumeration; "
                f"got k = {k}, N = {n}: use exact=None or False"
            )
    pvalue = chi2_p if exact_p is None else exact_p
    denom = n * (k - 1) - chi2
    if denom > 1e-12 * n * (k - 1):
        f_stat = (n - 1) * chi2 / denom
        f_p = float(stats.f.sf(f_stat, df, df2))
    else:
        f_stat, f_p = np.inf, 0.0
    return FriedmanResult(
        test="friedman",
        statistic=float(chi2),
        pvalue=pvalue,
        df=float(df),
        effect_size=float(chi2 / (n * (k - 1))),
        effect_size_name="kendall_w",
        alternative="two-sided",
        conventions={
            "ranks": "1 = best; " + ("higher score is better" if higher_is_better else "lower score is better"),
            "ties": "average ranks",
            "decimals": decimals,
            "tie_correction": bool(tie_correction),
            "f_statistic": "Iman-Davenport F_F = (N-1) chi2_F / (N(k-1) - chi2_F)",
            "source": "Demsar (2006) section 3.2.2",
            "pvalue": "exact (permutations of each data set's ranks)"
            if exact_p is not None
            else "chi-square approximation",
        },
        f_statistic=float(f_stat),
        f_pvalue=float(f_p),
        df_f=(int(df), int(df2)),
        chi2_pvalue=chi2_p,
        pvalue_method="exact" if exact_p is not None else "chi2",
        n_datasets=int(n),
        k_models=int(k),
        extra={
            "f_statistic": float(f_stat),
            "f_pvalue": f_p,
            "df_f": [int(df), int(df2)],
            "average_ranks": [float(r) for r in avg],
            "n_datasets": int(n),
            "k_models": int(k),
            "tie_factor": float(factor),
            "chi2_pvalue": chi2_p,
            "pvalue_method": "exact" if exact_p is not None else "chi2",
        },
    )


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """``q_alpha`` of Demsar's Table 5: ``studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``."""
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    k = _check_k(k)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k (number of models) must be an integer >= 2, got {k!r}")
    return int(k)


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference ``q_alpha sqrt(k (k+1) / (6 n))`` for k models on n data sets.

    Demsar's example: k = 4, n = 14, alpha = 0.05 gives q = 2.569 and CD = 1.25.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (number of data sets) must be an integer >= 1, got {n!r}")
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def _names_and_ranks(average_ranks) -> tuple[list, np.ndarray]:
    if isinstance(average_ranks, Mapping):
        names = list(average_ranks.keys())
        r = np.asarray([average_ranks[name] for name in names], dtype=np.float64)
    else:
        r = np.asarray(average_ranks, dtype=np.float64)
        if r.ndim != 1:
            raise ValueError(f"average_ranks must be 1-D or a dict, got shape {r.shape}")
        names = list(range(r.size))
    if r.size < 2:
        raise ValueError(f"at least 2 models are needed, got {r.size}")
    if not np.all(np.isfinite(r)):
        raise ValueError("average_ranks contain NaN or infinite values")
    return names, r


def nemenyi_cliques(average_ranks, cd: float) -> list[list]:
    """Groups of models whose average ranks are not significantly different (the CD-diagram bars).

    Models are sorted by average rank (best first; equal ranks keep input order).  A group is a
    run of consecutive models whose rank range (last - first) is **strictly less** than ``cd``
    (Demsar: a difference "at least" CD is significant), maximal (it cannot be extended) and not
    contained in another group.  Single models are not groups.  Names are the dict keys, or
    the positions 0..k-1 for a sequence; each group lists them best first, and groups are
    ordered by their best member.
    """
    names, r = _names_and_ranks(average_ranks)
    if not np.isfinite(cd) or cd < 0:
        raise ValueError(f"cd must be a finite number >= 0, got {cd!r}")
    order = np.argsort(r, kind="stable")
    sr = r[order]
    k = sr.size
    # reach[i]: the last position j with sr[j] - sr[i] < cd; it never decreases with i, so the
    # run [i, reach[i]] is nested in the previous run exactly when reach[i] == reach[i - 1].
    reach = [i + int(np.sum(sr[i:] - sr[i] < cd)) - 1 for i in range(k)]
    groups: list[list] = []
    for i in range(k):
        if reach[i] > i and (i == 0 or reach[i] > reach[i - 1]):
            groups.append([names[o] for o in order[i : reach[i] + 1]])
    return groups


def nemenyi_pairwise(average_ranks, n: int) -> np.ndarray:
    """Unadjusted two-sided p-values of all pairwise rank comparisons (normal approximation).

    ``z_ij = |R_i - R_j| / sqrt(k (k+1) / (6 n))`` and ``p_ij = 2 (1 - Phi(z_ij))``, in the order
    of ``average_ranks`` (dict order or positions); the diagonal is 1.  These p-values are
    *not* adjusted for the ``k (k-1)/2`` comparisons: adjust them with
    :func:`replearn.stats.holm` (as Demsar's §3.2.2 suggests for comparisons with a control), or
    use :func:`nemenyi_cd`, whose studentized-range quantile controls the family-wise error of
    all pairs.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    _, r = _names_and_ranks(average_ranks)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (number of data sets) must be an integer >= 1, got {n!r}")
    k = r.size
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    z = np.abs(r[:, None] - r[None, :]) / se
    p = 2.0 * stats.norm.sf(z)
    np.fill_diagonal(p, 1.0)
    return np.minimum(p, 1.0)
