"""Multiple-comparison adjustments of p-values.

Every function takes a 1-D array of raw p-values and returns the **adjusted** p-values in the
input order (reject hypothesis i at family-wise level alpha iff ``adjusted[i] <= alpha``),
clipped at 1.  Ties among the raw p-values keep their input order when sorted.

* :func:`bonferroni` -- ``min(1, m p_i)``; valid under any dependence.
* :func:`bonferroni_dunn` -- the same adjustment for the ``k - 1`` comparisons of k models with a
  control (Dunn 1961; Demsar 2006 §3.2.2).
* :func:`holm` -- step-down (Holm 1979); valid under any dependence, never worse than Bonferroni.
* :func:`hochberg` -- step-up (Hochberg 1988); needs independence or positive dependence.
* :func:`hommel` -- Hommel (1988), via Wright's (1992) algorithm (R's ``p.adjust``); needs the
  same assumption as Hochberg and is never less powerful than it.
* :func:`graphical` -- the sequentially rejective graphical procedure (Bretz, Maurer, Brannath & Posch 2009):
  initial weights split alpha over the hypotheses, and a transition matrix passes a rejected hypothesis's level
  on to the others; Holm, fixed-sequence and gatekeeping procedures are special graphs. Valid under any
  dependence (a closed test of weighted Bonferroni tests).
* :func:`benjamini_hochberg` -- step-up control of the **false discovery rate** (Benjamini & Hochberg 1995),
  not of the family-wise error: of the hypotheses it rejects at level alpha, at most a share alpha is expected
  to be true nulls (independent or positively dependent tests). ``adjusted <= alpha`` reads "a discovery at
  FDR alpha".
* Procedures that exploit the logic of *all pairwise* comparisons (Shaffer, Bergmann-Hommel)
  live in :mod:`replearn.stats.allpairs`.

Order of power (smaller adjusted p-values): ``hommel <= hochberg <= holm <= bonferroni``, each
matching ``statsmodels.stats.multitest.multipletests`` (checked in the tests).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ADJUSTMENTS",
    "adjust",
    "benjamini_hochberg",
    "bonferroni",
    "bonferroni_dunn",
    "graphical",
    "hochberg",
    "holm",
    "hommel",
]


def _check_pvalues(pvalues) -> np.ndarray:
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D, got shape {p.shape}")
    if np.any(np.isnan(p)):
        raise ValueError("pvalues contain NaN")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"pvalues must lie in [0, 1], got values in [{p.min()}, {p.max()}]")
    return p


def bonferroni(pvalues) -> np.ndarray:
    """Bonferroni adjustment ``min(1, m p_i)`` for m hypotheses."""
    p = _check_pvalues(pvalues)
    return np.minimum(1.0, p * p.size)


def bonferroni_dunn(pvalues) -> np.ndarray:
    """Bonferroni-Dunn: Bonferroni over the ``k - 1`` comparisons of k models with a control.

    Pass the ``k - 1`` raw p-values of "control vs model j"; the adjustment is
    ``min(1, (k - 1) p_j)``.  Demsar (2006, §3.2.2) uses it with the rank z-statistics of
    :func:`replearn.stats.friedman_posthoc` (its critical difference is the Nemenyi CD with
    ``q_alpha`` from Bonferroni's ``alpha / (k - 1)``); :func:`holm` is uniformly more powerful.
    """
    return bonferroni(pvalues)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjustment.

    With ``p_(1) <= ... <= p_(m)`` sorted (ties keep input order),
    ``adj_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))``; the result is monotone in the sorted
    order and returned in the input order.  Uniformly more powerful than Bonferroni with the
    same family-wise error control; no assumption on the dependence between the tests.
    """
    p = _check_pvalues(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * np.arange(m, 0, -1))
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def hochberg(pvalues) -> np.ndarray:
    """Hochberg's step-up adjustment: ``adj_(i) = min(1, min_{j >= i} (m - j + 1) p_(j))``.

    Rejects whatever Holm rejects and possibly more, but controls the family-wise error only for
    independent or positively dependent tests (Simes' inequality).  statsmodels calls it
    ``"simes-hochberg"``.
    """
    p = _check_pvalues(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * np.arange(m, 0, -1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def hommel(pvalues) -> np.ndarray:
    """Hommel's (1988) closed Simes procedure, adjusted p-values by Wright's (1992) algorithm.

    With sorted ``p_(1..m)``: start from ``a = q = min_i(m p_(i) / i)``; for ``j = m-1, ..., 2``
    set ``q_i = min(j p_(i), min_{l=2..j} j p_(m-j+l) / l)`` for ``i <= m-j+1`` and ``q_i =
    q_(m-j+1)`` above, then ``a = max(a, q)``; the adjusted values are ``max(a, p)``.  The same
    algorithm as R's ``p.adjust(method = "hommel")``; never larger than :func:`hochberg`.
    """
    p = _check_pvalues(pvalues)
    m = p.size
    if m <= 1:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ps = p[order]
    i = np.arange(1, m + 1)
    q = np.full(m, np.min(m * ps / i))
    pa = q.copy()
    for j in range(m - 1, 1, -1):
        i1 = np.arange(m - j + 1)  # 0-based positions 0..m-j
        i2 = np.arange(m - j + 1, m)  # m-j+1..m-1
        q1 = np.min(j * ps[i2] / np.arange(2, j + 1))
        q[i1] = np.minimum(j * ps[i1], q1)
        q[i2] = q[m - j]
        pa = np.maximum(pa, q)
    out = np.empty(m)
    out[order] = np.minimum(1.0, np.maximum(pa, ps))
    return out


def graphical(pvalues, weights, transitions) -> np.ndarray:
    """Adjusted p-values of the graphical procedure (Bretz, Maurer, Brannath & Posch 2009, algorithm 2).

    ``weights`` -- the initial share of alpha of each hypothesis (non-negative, summing to at most 1);
    ``transitions`` -- ``G[i, j]``: the fraction of hypothesis i's level passed to j once i is rejected (rows
    non-negative, summing to at most 1, zero diagonal). Step by step the hypothesis with the smallest ``p / w``
    is rejected, its weight passed on along ``G`` and the graph updated
    (``G_lk <- (G_lk + G_lj G_jk) / (1 - G_lj G_jl)``); the adjusted p-value is the running maximum of
    ``min(1, p / w)``. Equal weights ``1/m`` with ``G = 1/(m-1)`` off the diagonal is Holm's procedure; weight 1
    on the first of a chain ``1 -> 2 -> ...`` is the fixed-sequence test.
    """
    p = _check_pvalues(pvalues)
    m = p.size
    w = np.asarray(weights, dtype=np.float64).copy()
    g = np.asarray(transitions, dtype=np.float64).copy()
    if w.shape != (m,) or g.shape != (m, m):
        raise ValueError(f"weights must have shape ({m},) and transitions ({m}, {m}), got {w.shape} and {g.shape}")
    tol = 1e-9
    if np.any(w < 0) or w.sum() > 1 + tol:
        raise ValueError(f"weights must be non-negative and sum to at most 1, got {w.tolist()}")
    if np.any(g < 0) or np.any(g.sum(axis=1) > 1 + tol) or np.any(np.abs(np.diag(g)) > 0):
        raise ValueError("transitions must be non-negative, with rows summing to at most 1 and a zero diagonal")
    active = list(range(m))
    out = np.ones(m)
    running = 0.0
    while active:
        ratios = [p[j] / w[j] if w[j] > 0 else np.inf for j in active]
        j = active[int(np.argmin(ratios))]
        running = max(running, min(1.0, float(np.min(ratios))))
        out[j] = running
        active.remove(j)
        new_g = np.zeros_like(g)
        for l_ in active:
            w[l_] += w[j] * g[j, l_]
            for k in active:
                if k == l_:
                    continue
                den = 1.0 - g[l_, j] * g[j, l_]
                new_g[l_, k] = (g[l_, k] + g[l_, j] * g[j, k]) / den if den > tol else 0.0
        w[j] = 0.0
        g = new_g
    return out


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini & Hochberg's (1995) step-up adjustment for the false discovery rate:
    ``adj_(i) = min(1, min_{j >= i} m p_(j) / j)`` (the "BH q-values"; statsmodels' ``fdr_bh``, R's
    ``p.adjust(method = "BH")``). Rejecting ``adj <= alpha`` keeps the expected share of true nulls among the
    rejected at most alpha for independent or positively dependent tests (Benjamini & Yekutieli 2001)."""
    p = _check_pvalues(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


ADJUSTMENTS = {
    "none": lambda p: _check_pvalues(p).copy(),
    "bonferroni": bonferroni,
    "bonferroni_dunn": bonferroni_dunn,
    "holm": holm,
    "hochberg": hochberg,
    "hommel": hommel,
    "bh": benjamini_hochberg,
}


def adjust(pvalues, method: str) -> np.ndarray:
    """Adjust ``pvalues`` by name: one of :data:`ADJUSTMENTS` or, for the ``k (k-1) / 2``
    p-values of all pairs of k models (in ``itertools.combinations(range(k), 2)`` order),
    ``"shaffer"`` or ``"bergmann_hommel"``."""
    if method in ("shaffer", "bergmann_hommel"):
        from . import allpairs

        return getattr(allpairs, method)(pvalues)
    if method not in ADJUSTMENTS:
        raise ValueError(
            f"unknown p-value adjustment {method!r}; choose one of "
            f"{sorted(ADJUSTMENTS) + ['bergmann_hommel', 'shaffer']}"
        )
    return ADJUSTMENTS[method](pvalues)
