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
* Procedures that exploit the logic of *all pairwise* comparisons (Shaffer, Bergmann-Hommel)
  live in :mod:`replearn.stats.allpairs`.

Order of power (smaller adjusted p-values): ``hommel <= hochberg <= holm <= bonferroni``, each
matching ``statsmodels.stats.multitest.multipletests`` (checked in the tests).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ADJUSTMENTS", "adjust", "bonferroni", "bonferroni_dunn", "hochberg", "holm", "hommel"]


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


ADJUSTMENTS = {
    "none": lambda p: _check_pvalues(p).copy(),
    "bonferroni": bonferroni,
    "bonferroni_dunn": bonferroni_dunn,
    "holm": holm,
    "hochberg": hochberg,
    "hommel": hommel,
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
