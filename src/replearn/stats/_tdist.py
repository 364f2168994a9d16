"""Student's t distribution by :mod:`scipy.special`'s ufuncs, for the tests called thousands of times a run.

``scipy.stats.t``'s methods are these same functions (``_cdf = stdtr(df, x)``, ``_sf = stdtr(df, -x)``,
``_ppf = stdtrit(df, q)``) behind ~0.3 ms of argument checking and broadcasting per call, which made the
benchmark's 2,838 corrected t-tests and Bayesian correlated t-tests spend more time in that checking than in
the tests (and importing ``scipy.stats`` costs ~0.5 s more). The callers check their arguments themselves:
``df > 0``, ``scale > 0``, ``0 < q < 1``. Values equal ``scipy.stats.t``'s bit for bit (a test compares them).
"""

from __future__ import annotations

from scipy import special


def t_cdf(x: float, df: float, loc: float = 0.0, scale: float = 1.0) -> float:
    """``P(T <= x)`` for ``T = loc + scale * t(df)``."""
    return float(special.stdtr(df, (x - loc) / scale))


def t_sf(x: float, df: float, loc: float = 0.0, scale: float = 1.0) -> float:
    """``P(T > x)`` for ``T = loc + scale * t(df)``."""
    return float(special.stdtr(df, -((x - loc) / scale)))


def t_ppf(q: float, df: float, loc: float = 0.0, scale: float = 1.0) -> float:
    """The ``q`` quantile of ``loc + scale * t(df)``, ``0 < q < 1``."""
    return float(special.stdtrit(df, q) * scale + loc)
