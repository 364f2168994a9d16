"""Paired t-tests on per-example or per-split scores.

* :func:`paired_ttest` -- the classical paired t-test, CIML §5.7 eq. 5.15 (seed 001, L1634-1638):
  ``t = (mu_a - mu_b) sqrt(N (N-1) / sum_n (a_hat_n - b_hat_n)^2)``, i.e. ``mean(d) / (sd(d)/sqrt(N))``.
* :func:`corrected_resampled_ttest` -- Nadeau & Bengio's (2003) corrected resampled t-test,
  which is Bouckaert & Frank's (2004) corrected repeated k-fold test when the splits come from
  repeated k-fold.

Shared conventions: ``d = a - b``; ``alternative="greater"`` tests ``mean(d) > 0`` (``a``
better when larger is better); sample variance with ``ddof = 1``; ``df = J - 1``.
**Zero variance** (every ``d_j`` equal): if ``mean(d) == 0`` the statistic is 0 and the p-value
1 (for every alternative: the data carry no evidence); otherwise the statistic is ``+/-inf`` and
the p-value 0 for a two-sided test or the matching one-sided alternative (1 for the opposite
one).  SciPy returns NaN in this case.  Confidence intervals are for ``mean(d)``: two-sided
``mean +/- t_{(1+c)/2, df} se``, and one-sided ``(-inf, mean + t_{c, df} se]`` for "less",
``[mean - t_{c, df} se, inf)`` for "greater" (as in ``scipy.stats.ttest_rel``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._result import TestResult
from ._tdist import t_cdf, t_ppf, t_sf
from .effect_sizes import _ratio, paired_differences

__all__ = ["corrected_resampled_ttest", "paired_ttest", "t_critical_value"]

ALTERNATIVES = ("two-sided", "less", "greater")

_ZERO_VARIANCE = "var(d) = 0: statistic 0 and p = 1 if mean(d) = 0, else statistic +/-inf (p = 0 two-sided)"


def _check_options(alternative: str, confidence: float) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")


def _t_pvalue(t: float, df: float, alternative: str) -> float:
    if alternative == "greater":
        p = t_sf(t, df)
    elif alternative == "less":
        p = t_cdf(t, df)
    else:
        p = 2.0 * t_sf(abs(t), df)
    return float(min(1.0, max(0.0, p)))


def _t_ci(mean: float, se: float, df: float, alternative: str, confidence: float) -> tuple[float, float]:
    if alternative == "two-sided":
        h = t_ppf(0.5 + confidence / 2.0, df) * se
        return (mean - h, mean + h)
    h = t_ppf(confidence, df) * se
    return (-np.inf, mean + h) if alternative == "less" else (mean - h, np.inf)


def t_result(
    name: str,
    mean: float,
    sd: float,
    se: float,
    df: float,
    alternative: str,
    confidence: float,
    conventions: dict,
    extra: dict,
) -> TestResult:
    """The result of ``t = mean / se`` on ``df`` degrees of freedom (zero ``se``: the module's convention),
    with Cohen's ``d_z = mean / sd`` and the interval of the mean; shared by every t-test of the package."""
    if se > 0:
        t = mean / se
        p = _t_pvalue(t, df, alternative)
    elif mean == 0:
        t, p = 0.0, 1.0
    else:
        t = float(np.copysign(np.inf, mean))
        p = _t_pvalue(t, df, alternative)
    return TestResult(
        test=name,
        statistic=float(t),
        pvalue=p,
        df=df,
        effect_size=_ratio(mean, sd),
        effect_size_name="cohens_dz",
        ci=_t_ci(mean, se, df, alternative, confidence),
        alternative=alternative,
        conventions=conventions,
        extra={"mean_difference": mean, "sd_difference": sd, "standard_error": se, **extra},
    )


def _t_test(
    name: str, d: np.ndarray, var_factor: float, alternative: str, confidence: float, conventions: dict
) -> TestResult:
    """Shared core: ``t = mean(d) / sqrt(var_factor * var(d, ddof=1))`` with ``df = J - 1``."""
    j = d.size
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    return t_result(
        name,
        mean,
        sd,
        float(np.sqrt(var_factor)) * sd,
        float(j - 1),
        alternative,
        confidence,
        {
            "difference": "a - b",
            "variance": "sample variance of d with ddof=1",
            "zero_variance": _ZERO_VARIANCE,
            "ci": f"{confidence:g} confidence interval of mean(a - b)",
            **conventions,
        },
        {"n_pairs": int(j)},
    )


def paired_ttest(a, b, *, alternative: str = "two-sided", confidence: float = 0.95) -> TestResult:
    """Paired t-test of ``mean(a - b) = 0`` (CIML §5.7 eq. 5.15; ``scipy.stats.ttest_rel``).

    ``t = mean(d) / (sd(d) / sqrt(J))`` with ``d = a - b`` over J pairs, ``df = J - 1``.  Use it
    on per-example losses of two models on the **same** test set (CIML L1634), where the pairs
    are independent.  Effect size: Cohen's ``d_z = mean(d)/sd(d)``.

    .. warning::
       Do not use it on cross-validation fold scores.  The training sets of different folds
       overlap (with K folds any two share a fraction (K-2)/(K-1) of their examples), so the fold
       scores are positively correlated, ``var(d)/J`` underestimates the variance of the mean,
       and the test rejects a true null far more often than ``alpha`` (Dietterich 1998; Nadeau
       & Bengio 2003).  Use :func:`corrected_resampled_ttest` for resampled scores.
    """
    _check_options(alternative, confidence)
    d = paired_differences(a, b)
    return _t_test(
        "paired_ttest",
        d,
        1.0 / d.size,
        alternative,
        confidence,
        {"variance_correction": "1/J (none)", "source": "CIML 5.7 eq. 5.15"},
    )


def _sizes(x, name: str, j: int) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(j, float(arr))
    if arr.ndim != 1 or arr.size != j:
        raise ValueError(f"{name} must be a number or an array with one entry per split ({j}), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be positive and finite, got {arr.tolist() if arr.size < 10 else arr}")
    return arr


def corrected_resampled_ttest(
    a, b, n_train, n_test, *, alternative: str = "two-sided", confidence: float = 0.95
) -> TestResult:
    """Nadeau & Bengio's (2003) corrected resampled t-test on J paired split scores.

    ``t = mean(d) / sqrt((1/J + n_test/n_train) var(d))`` with ``d = a - b`` over the J splits,
    ``var`` with ddof=1 and ``df = J - 1``.  The extra ``n_test/n_train`` term accounts for the
    correlation between scores of splits whose training sets overlap; for r repeats of k-fold
    CV (J = r k, ``n_test/n_train = 1/(k-1)``) this is Bouckaert & Frank's (2004) corrected
    repeated k-fold cv test (recommended: 10 x 10-fold).

    ``n_train`` and ``n_test`` are the training and test set sizes: numbers, or arrays with
    one entry per split, in which case the ratio used is the mean of the per-split ratios
    ``mean_j(n_test_j / n_train_j)`` (k-fold folds differ in size by at most one example, so
    any reasonable average gives almost the same value).  Effect size: ``d_z = mean(d)/sd(d)``
    (uncorrected).  The confidence interval of ``mean(d)`` uses the corrected standard error.
    """
    _check_options(alternative, confidence)
    d = paired_differences(a, b)
    j = d.size
    ratio = float(np.mean(_sizes(n_test, "n_test", j) / _sizes(n_train, "n_train", j)))
    per_split = np.ndim(n_train) > 0 or np.ndim(n_test) > 0
    return _t_test(
        "corrected_resampled_ttest",
        d,
        1.0 / j + ratio,
        alternative,
        confidence,
        {
            "variance_correction": "1/J + n_test/n_train",
            "n_test_over_n_train": ratio,
            "ratio_from": "mean of per-split n_test/n_train" if per_split else "scalar sizes",
            "source": "Nadeau & Bengio (2003); Bouckaert & Frank (2004) for repeated k-fold",
        },
    )


def t_critical_value(level: float, df: float | None = None, *, two_sided: bool = False) -> float:
    """The critical value of the t statistic at confidence ``level``: the ``level`` quantile of t(df)
    (one-sided), or its ``(1 + level) / 2`` quantile (``two_sided``). ``df=None`` is the large-N limit, the
    standard normal quantile -- CIML Table 5.3 (§5.7, seed 001 L1626-1632): "t >= 1.28 ... 90%, 1.64 ... 95%,
    1.96 ... 97.5%, 2.58 ... 99.5%" for N in the hundreds, the one-sided quantiles."""
    import numbers

    from scipy.special import ndtri

    from ..validation import check_scalar
    from ._tdist import t_ppf

    check_scalar(level, "level", numbers.Real, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    q = (1.0 + level) / 2.0 if two_sided else float(level)
    if df is None:
        return float(ndtri(q))
    check_scalar(df, "df", numbers.Real, low=0.0, low_inclusive=False)
    return t_ppf(q, float(df))
