"""Cochran's Q test: do k classifiers have the same accuracy on one shared test set?

The generalisation of McNemar's test to k >= 2 models (Cochran 1950; suggested for comparing
several classifiers on one test set by Dietterich 1998 and Raschka 2018).  Input: an ``(N, k)``
0/1 matrix, ``correct[n, j] = 1`` when model j classifies test example n correctly.  With
column totals ``C_j``, row totals ``R_n`` and grand total ``T``:

    Q = (k - 1) (k sum_j C_j^2 - T^2) / (k T - sum_n R_n^2),   against chi-square(k - 1).

Rows where every model is right (or every model wrong) contribute nothing.  When every row is
like that (the denominator is 0) the models never disagree: Q = 0 and p = 1.  For k = 2, Q is
McNemar's uncorrected chi-square ``(b - c)^2 / (b + c)``.
"""

from __future__ import annotations

import numpy as np

from ._result import TestResult

__all__ = ["cochrans_q"]


def cochrans_q(correct) -> TestResult:
    """Cochran's Q test on an ``(N, k)`` matrix of per-example correctness (see the module docstring).

    ``effect_size``: Serlin's ``eta^2_Q = Q / (N (k - 1))`` (in [0, 1]); ``extra`` holds the
    per-model accuracies and the number of rows on which the models disagree.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    x = np.asarray(correct)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 2:
        raise ValueError(f"correct must be a 2-D (n_examples, k_models) array with k >= 2, got shape {x.shape}")
    if x.dtype != bool:
        if x.dtype.kind not in "biuf" or not np.all(np.isin(x, (0, 1))):
            raise ValueError("correct must hold booleans or 0/1 values (was the example predicted correctly?)")
    x = x.astype(np.float64)
    n, k = x.shape
    col = x.sum(axis=0)
    row = x.sum(axis=1)
    total = float(col.sum())
    den = k * total - float(np.sum(row**2))
    if den > 0:
        q = (k - 1) * (k * float(np.sum(col**2)) - total**2) / den
        p = float(stats.chi2.sf(q, k - 1))
    else:
        q, p = 0.0, 1.0
    return TestResult(
        test="cochrans_q",
        statistic=float(q),
        pvalue=p,
        df=float(k - 1),
        effect_size=float(q / (n * (k - 1))),
        effect_size_name="eta_squared_q",
        alternative="two-sided",
        conventions={"no_disagreement": "Q = 0, p = 1", "source": "Cochran (1950)"},
        extra={
            "accuracies": (col / n).tolist(),
            "n": int(n),
            "k": int(k),
            "n_discordant_rows": int(np.sum((row > 0) & (row < k))),
        },
    )
