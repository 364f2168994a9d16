"""The smallest difference a t-based verdict detects: what a "not significant" could have found.

A verdict of "no significant difference" says nothing by itself: with a large standard error every difference
is "not significant". :func:`detectable_difference` turns the test's own standard error and degrees of freedom
into the **minimum detectable effect** (Cohen 1988, ch. 2): the true difference that the two-sided t-test on
``df`` degrees of freedom at level ``alpha`` rejects with probability ``power``,

    P(|T'| > t_{1 - alpha/2, df}) = power,   T' ~ noncentral t(df, delta / se),

solved for ``delta`` (in the units of the scores). For large df it tends to ``(z_{1-alpha/2} + z_power) se``
(2.80 se at 0.05 and 80 %). The report prints it on every "not significant" pair, at the level of the first
step of the pair family's correction (``alpha / m``, Holm and Bonferroni alike), so it never promises more
power than the family has.
"""

from __future__ import annotations

import numpy as np

__all__ = ["detectable_difference", "t_power", "t_quantile"]


def t_quantile(q: float, df: float) -> float:
    """Student's ``q`` quantile on ``df`` degrees of freedom (the normal's for infinite df)."""
    from scipy import stats as st

    return float(st.t.ppf(q, df)) if np.isfinite(df) else float(st.norm.ppf(q))


def t_power(delta: float, se: float, df: float, alpha: float = 0.05) -> float:
    """Power of the two-sided t-test at level ``alpha`` on ``df`` degrees of freedom when the true difference is
    ``delta`` and the standard error ``se`` (noncentral t)."""
    from scipy import stats as st

    if not (se > 0 and df > 0 and 0 < alpha < 1):
        raise ValueError(f"need se > 0, df > 0 and 0 < alpha < 1, got {se}, {df}, {alpha}")
    nc = abs(float(delta)) / float(se)  # the power is symmetric in the sign of the difference
    crit = t_quantile(1.0 - alpha / 2.0, df)
    if np.isfinite(df) and df < 1e5:
        with np.errstate(all="ignore"):
            upper = float(st.nct.sf(crit, df, nc))
            lower = float(st.nct.cdf(-crit, df, nc))  # the far tail: scipy's series can fail where it is ~0
        if not np.isfinite(lower):
            lower = float(st.norm.cdf(-crit - nc))
        if np.isfinite(upper):
            return min(max(upper + lower, 0.0), 1.0)
    # very large df or a noncentrality where scipy's series fails: the normal approximation at Student's
    # critical value (exact in the limit, and within 1e-3 of the noncentral t where both are computed)
    return float(st.norm.sf(crit - nc) + st.norm.cdf(-crit - nc))


def detectable_difference(se: float, df: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference (score units, positive) detected with probability ``power`` by the two-sided
    t-test at level ``alpha`` with standard error ``se`` on ``df`` degrees of freedom (module docstring).
    ``se = 0`` gives 0; a non-finite ``se`` or ``df`` raises."""
    from scipy import optimize

    se, df = float(se), float(df)
    if not (np.isfinite(se) and se >= 0 and df > 0):
        raise ValueError(f"need a finite se >= 0 and df > 0, got {se} and {df}")
    if not (0 < alpha < 1 and alpha < power < 1):
        raise ValueError(f"need 0 < alpha < power < 1, got alpha = {alpha}, power = {power}")
    if se == 0:
        return 0.0
    hi = 4.0 * se
    while t_power(hi, se, df, alpha) < power:
        hi *= 2.0
    return float(optimize.brentq(lambda d: t_power(d, se, df, alpha) - power, 0.0, hi, xtol=1e-12 * se))
