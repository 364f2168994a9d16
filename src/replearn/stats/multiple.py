"""Multiple-comparison adjustments of p-values.

Every function takes a 1-D array of raw p-values and returns the **adjusted** p-values in the
input order (reject hypothesis i at family-wise level alpha iff ``adjusted[i] <= alpha``),
clipped at 1.  Procedures: :func:`bonferroni` and :func:`holm` (step-down, Holm 1979).  More
(Hochberg, Hommel, Shaffer) are to be added here with the same signature.
"""

from __future__ import annotations

import numpy as np

__all__ = ["bonferroni", "holm"]


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
