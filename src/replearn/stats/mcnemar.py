"""McNemar's test: do two classifiers have the same error rate on one shared test set?

Only the discordant examples matter.  With ``correct_a`` and ``correct_b`` the per-example
correctness of models A and B on the same N test examples, write ``n_ij`` for the number of
examples with ``correct_a == i`` and ``correct_b == j``:

* ``n01`` = A wrong, B right;  ``n10`` = A right, B wrong  (``n00`` both wrong, ``n11`` both right).

Under H0 (equal error rates) each discordant example is equally likely to fall either way, so
``n01 ~ Binomial(n01 + n10, 1/2)``.  Methods (``b = n01``, ``c = n10``):

* "exact": ``p = min(1, 2 BinomCDF(min(b, c); b + c, 1/2))``; statistic ``min(b, c)``.
* "midp": mid-p version ``p = min(1, 2 BinomCDF(min(b, c)) - BinomPMF(min(b, c)))``, less
  conservative than "exact" (Fagerland, Lydersen & Laake 2013 recommend it).
* "chi2": ``(b - c)^2 / (b + c)`` against chi-square(1).
* "chi2_cc": Edwards' continuity correction ``max(0, |b - c| - 1)^2 / (b + c)``.  The ``max``
  makes the statistic 0 when ``b == c``; statsmodels computes ``(|b - c| - 1)^2 / (b + c)``,
  which differs only when ``b == c`` (it then gives a small positive value).

``b + c == 0`` (the models agree on every example): statistic 0 and p = 1 for every method.
Dietterich (1998) recommends McNemar's test for comparing two classifiers trained once and
evaluated on one test set.
"""

from __future__ import annotations

import numpy as np

from ._result import TestResult

__all__ = ["mcnemar"]

METHODS = ("exact", "midp", "chi2", "chi2_cc")


def _correctness(x, name: str) -> np.ndarray:
    if x is None:
        raise ValueError(f"{name} is None; expected a 1-D array of per-example correctness (bool or 0/1)")
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if arr.dtype != bool:
        if arr.dtype.kind not in "biuf" or not np.all(np.isin(arr, (0, 1))):
            raise ValueError(f"{name} must hold booleans or 0/1 values (was the example predicted correctly?)")
        arr = arr.astype(bool)
    return arr


def mcnemar(correct_a, correct_b, *, method: str = "exact") -> TestResult:
    """McNemar's test on paired per-example correctness; see the module docstring.

    Returns a :class:`TestResult` (``df`` = 1 for the chi-square methods, else ``None``) whose
    ``extra`` holds ``n00, n01, n10, n11`` (``n01``: A wrong and B right), ``n`` and the two
    accuracies, and whose ``effect_size`` is the difference of accuracies ``acc_a - acc_b =
    (n10 - n01) / n``.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    a = _correctness(correct_a, "correct_a")
    b_ = _correctness(correct_b, "correct_b")
    if a.size != b_.size:
        raise ValueError(
            f"correct_a and correct_b must be paired (same test examples), got lengths {a.size} and {b_.size}"
        )
    n01 = int(np.sum(~a & b_))
    n10 = int(np.sum(a & ~b_))
    n00 = int(np.sum(~a & ~b_))
    n11 = int(np.sum(a & b_))
    n = a.size
    b, c = n01, n10
    m = b + c
    df = 1.0 if method.startswith("chi2") else None
    if m == 0:
        stat, p = 0.0, 1.0
    elif method == "exact":
        stat = float(min(b, c))
        p = min(1.0, 2.0 * float(stats.binom.cdf(min(b, c), m, 0.5)))
    elif method == "midp":
        k = min(b, c)
        stat = float(k)
        p = min(1.0, 2.0 * float(stats.binom.cdf(k, m, 0.5)) - float(stats.binom.pmf(k, m, 0.5)))
    elif method == "chi2":
        stat = (b - c) ** 2 / m
        p = float(stats.chi2.sf(stat, 1))
    else:
        stat = max(0, abs(b - c) - 1) ** 2 / m
        p = float(stats.chi2.sf(stat, 1))
    return TestResult(
        test="mcnemar",
        statistic=float(stat),
        pvalue=float(p),
        df=df,
        effect_size=(n10 - n01) / n,
        effect_size_name="accuracy_difference",
        alternative="two-sided",
        conventions={
            "method": method,
            "n01": "A wrong, B right",
            "n10": "A right, B wrong",
            "no_discordant_pairs": "statistic 0, p = 1",
            **({"continuity_correction": "max(0, |b - c| - 1)^2 / (b + c)"} if method == "chi2_cc" else {}),
        },
        extra={
            "n00": n00,
            "n01": n01,
            "n10": n10,
            "n11": n11,
            "n": int(n),
            "accuracy_a": (n10 + n11) / n,
            "accuracy_b": (n01 + n11) / n,
        },
    )
