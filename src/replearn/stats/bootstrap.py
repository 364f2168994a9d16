"""Bootstrap confidence intervals and the paired bootstrap test.

**Resamples.**  Every function draws all its resamples at once as
``idx = numpy.random.default_rng(seed).integers(0, n, (n_resamples, n))``: row b lists the
examples (with repetition) of resample b.  This is exactly how ``scipy.stats.bootstrap`` draws
them when given ``rng=numpy.random.default_rng(seed)`` (and the default ``batch=None``), so
:func:`bootstrap_ci` reproduces SciPy's intervals to rounding error, and any result here can be
recomputed to the last digit from its recorded ``seed`` and ``n_resamples``.  Paired samples
(a tuple of arrays) are resampled with the same rows of ``idx``.

**Intervals** (``method``), with ``theta_b`` the B bootstrap values and ``alpha = (1 -
confidence)/2`` (two-sided) or ``1 - confidence`` (one-sided):

* ``"percentile"``: the ``alpha`` and ``1 - alpha`` quantiles of ``theta_b`` (linear interpolation,
  ``numpy.quantile``'s default).
* ``"basic"``: ``2 theta_hat - `` the percentile interval, reversed.
* ``"bca"`` (default; Efron & Tibshirani 1993, §14.3): the quantiles at
  ``Phi(z0 + (z0 + z)/(1 - a (z0 + z)))`` for ``z = Phi^-1(alpha), Phi^-1(1 - alpha)``, with the
  bias correction ``z0 = Phi^-1((#{theta_b < theta_hat} + #{theta_b <= theta_hat}) / (2B))`` and
  the jackknife acceleration ``a = sum(u^3) / (6 (sum u^2)^(3/2))``, ``u_i = mean_j(theta_(j)) -
  theta_(i)`` (``theta_(i)``: the statistic without example i).  A degenerate bootstrap
  distribution gives NaN bounds (with a RuntimeWarning), as in SciPy.

A one-sided interval sets the other bound to -inf ("less") or +inf ("greater").
``standard_error`` is the ddof=1 standard deviation of ``theta_b``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field, fields

import numpy as np
from scipy.special import ndtr, ndtri

from ._resample import as_1d, check_resamples, check_seed, per_example, resolve_metric, resolve_statistic
from ._result import TestResult, to_jsonable

#: The most resamples a bootstrap or permutation test draws, and the most resampled values it holds at once
#: (resamples x examples; 2.5e8 int64 indices are 2 GB): larger requests are refused before any work.
MAX_RESAMPLES = 10**7
MAX_RESAMPLED_VALUES = 250_000_000


def _resamples(n_resamples, low: int = 1, n: int | None = None) -> int:
    """``check_resamples`` with the upper limits above (``n``: the number of examples resampled)."""
    b = check_resamples(n_resamples, low)
    if b > MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be <= {MAX_RESAMPLES:,} (stats.bootstrap.MAX_RESAMPLES), got {b:,}")
    if n is not None and b * n > MAX_RESAMPLED_VALUES:
        raise ValueError(
            f"n_resamples x n = {b:,} x {n:,} resampled values, above the limit of "
            f"{MAX_RESAMPLED_VALUES:,} (stats.bootstrap.MAX_RESAMPLED_VALUES); use fewer resamples"
        )
    return b


__all__ = ["BootstrapResult", "bootstrap_ci", "bootstrap_metric", "bootstrap_indices", "paired_bootstrap_test"]

METHODS = ("percentile", "basic", "bca")
ALTERNATIVES = ("two-sided", "less", "greater")


@dataclass
class BootstrapResult:
    """A bootstrap estimate: ``estimate`` (the statistic on the data), its ``ci`` and
    ``standard_error``; how it was computed (``method``, ``confidence``, ``alternative``,
    ``n_resamples``, ``seed``); the ``distribution`` of the B bootstrap values; ``conventions``
    and ``extra`` (for :func:`bootstrap_metric`: CIML's mean and standard deviation)."""

    estimate: float
    ci: tuple[float, float]
    standard_error: float
    method: str
    confidence: float
    alternative: str
    n_resamples: int
    seed: int
    distribution: np.ndarray = field(repr=False)
    conventions: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def to_dict(self, *, distribution: bool = False) -> dict:
        """JSON-ready fields (the bootstrap distribution only when asked for)."""
        return {
            f.name: to_jsonable(getattr(self, f.name)) for f in fields(self) if f.name != "distribution" or distribution
        }


def _as_extreme(values: np.ndarray, observed: float, alternative: str) -> int:
    """How many resampled ``values`` are at least as extreme as ``observed`` in the direction of ``alternative``
    (two-sided: ``|value| >= |observed|``); within 100 machine epsilons of ``|observed|`` (relative) counts as a
    tie with it, as in ``scipy.stats.permutation_test``."""
    tol = 100 * np.finfo(np.float64).eps * abs(observed)
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(values) >= abs(observed) - tol))
    if alternative == "greater":
        return int(np.count_nonzero(values >= observed - tol))
    return int(np.count_nonzero(values <= observed + tol))


def bootstrap_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """``default_rng(seed).integers(0, n, (n_resamples, n))``: the resamples every function here uses."""
    return np.random.default_rng(check_seed(seed)).integers(0, n, (_resamples(n_resamples, n=n), n))


def _check_common(confidence, alternative, method=None) -> None:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < float(confidence) < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    if method is not None and method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")


def _jackknife_indices(n: int) -> np.ndarray:
    keep = ~np.eye(n, dtype=bool)
    return np.broadcast_to(np.arange(n), (n, n))[keep].reshape(n, n - 1)


def _interval(
    stat_of_indices, n: int, theta_hat: float, theta_b: np.ndarray, method: str, confidence: float, alternative: str
) -> tuple[float, float]:
    alpha = (1.0 - confidence) / 2.0 if alternative == "two-sided" else 1.0 - confidence
    if method == "bca":
        if n < 2:
            raise ValueError("the BCa interval needs at least 2 examples (it jackknifes them)")
        b = theta_b.size
        z0 = ndtri((np.count_nonzero(theta_b < theta_hat) + np.count_nonzero(theta_b <= theta_hat)) / (2.0 * b))
        theta_i = np.asarray(stat_of_indices(_jackknife_indices(n)), dtype=np.float64)
        u = (n - 1) * (theta_i.mean() - theta_i)
        num = np.sum(u**3) / n**3
        den = np.sum(u**2) / n**2
        with np.errstate(divide="ignore", invalid="ignore"):
            a_hat = num / den**1.5 / 6.0
            z = ndtri(alpha)
            lo = ndtr(z0 + (z0 + z) / (1 - a_hat * (z0 + z)))
            hi = ndtr(z0 + (z0 - z) / (1 - a_hat * (z0 - z)))
        probs = np.array([lo, hi])
    else:
        probs = np.array([alpha, 1.0 - alpha])
    if np.any(np.isnan(probs)):
        warnings.warn(
            "the BCa interval cannot be computed: the bootstrap distribution is degenerate",
            RuntimeWarning,
            stacklevel=3,
        )
        low = high = np.nan
    else:
        low, high = (float(v) for v in np.quantile(theta_b, probs))
    if method == "basic":
        low, high = 2 * theta_hat - high, 2 * theta_hat - low
    if alternative == "less":
        low = -np.inf
    elif alternative == "greater":
        high = np.inf
    return float(low), float(high)


def _run(stat_of_indices, n, *, n_resamples, seed, method, confidence, alternative, conventions, extra=None):
    idx = bootstrap_indices(n, n_resamples, seed)
    theta_b = np.asarray(stat_of_indices(idx), dtype=np.float64).reshape(-1)
    theta_hat = float(np.asarray(stat_of_indices(np.arange(n)[None, :]), dtype=np.float64).reshape(-1)[0])
    ci = _interval(stat_of_indices, n, theta_hat, theta_b, method, confidence, alternative)
    return BootstrapResult(
        estimate=theta_hat,
        ci=ci,
        standard_error=float(np.std(theta_b, ddof=1)) if theta_b.size > 1 else float("nan"),
        method=method,
        confidence=float(confidence),
        alternative=alternative,
        n_resamples=int(n_resamples),
        seed=int(seed),
        distribution=theta_b,
        conventions={
            "resamples": "numpy.random.default_rng(seed).integers(0, n, (n_resamples, n))",
            "quantiles": "numpy.quantile, linear interpolation",
            **conventions,
        },
        extra=extra or {},
    )


def _samples(data) -> list[np.ndarray]:
    if isinstance(data, (tuple, list)) and len(data) == 0:
        raise ValueError("data is empty: a bootstrap needs at least one value")
    samples = [data] if not isinstance(data, (tuple, list)) or np.ndim(data[0]) == 0 else list(data)
    out = [as_1d(np.asarray(s, dtype=np.float64), "data", min_size=1) for s in samples]
    if len({s.size for s in out}) != 1:
        raise ValueError(f"paired samples must have the same length, got {[s.size for s in out]}")
    return out


def bootstrap_ci(
    data,
    statistic="mean",
    *,
    n_resamples: int = 9999,
    confidence: float = 0.95,
    method: str = "bca",
    seed: int = 0,
    alternative: str = "two-sided",
    vectorized: bool | None = None,
) -> BootstrapResult:
    """Bootstrap confidence interval of ``statistic(data)`` (see the module docstring).

    ``data``: a 1-D array, or a tuple of equal-length 1-D arrays resampled together (paired;
    SciPy's ``paired=True``).  ``statistic``: "mean", "median" or a callable ``f(*samples,
    axis=-1)`` (vectorized; detected from an ``axis`` parameter unless ``vectorized`` says) or
    ``f(*samples)``.  Same numbers as ``scipy.stats.bootstrap(data, statistic, n_resamples=B,
    confidence_level=c, method=m, rng=np.random.default_rng(seed))``.
    """
    _check_common(confidence, alternative, method)
    samples = _samples(data)
    seed = check_seed(seed)
    name, f = resolve_statistic(statistic, vectorized)
    n = samples[0].size
    return _run(
        lambda idx: f(*(s[idx] for s in samples)),
        n,
        n_resamples=_resamples(n_resamples, n=n),
        seed=seed,
        method=method,
        confidence=confidence,
        alternative=alternative,
        conventions={"statistic": name, "paired_samples": len(samples)},
    )


def bootstrap_metric(
    y_true,
    y_pred,
    metric,
    *,
    n_resamples: int = 100,
    confidence: float = 0.95,
    method: str = "percentile",
    seed: int = 0,
    classes=None,
) -> BootstrapResult:
    """CIML Alg. 10 Bootstrap-Evaluate (§5.7, seed 001 L1660-1689): a metric's bootstrap distribution.

    Resample the test examples with replacement (the rows of ``idx``), compute the (possibly
    non-decomposable, e.g. F) ``metric(y_true, y_pred)`` on each resample; no retraining.  CIML
    returns the mean and standard deviation of the B values (in ``extra["mean"]`` and
    ``extra["std"]``, ddof=1 like CIML eq. 5.16; 100 resamples by default as in the book);
    ``estimate`` is the metric on the full test set and ``ci`` the interval of ``method``.
    ``metric``: a callable or a name in ``replearn.evaluation.METRICS`` (then ``y_pred`` is
    labels/values, or probabilities for a probability metric, and ``classes`` those of the
    full set, default the sorted labels of ``y_true``).
    """
    _check_common(confidence, "two-sided", method)
    yt = as_1d(y_true, "y_true")
    yp = np.asarray(y_pred)
    if yp.shape[0] != yt.size:
        raise ValueError(f"y_true and y_pred have different lengths: {yt.size} and {yp.shape[0]}")
    if classes is None and isinstance(metric, str):
        classes = np.unique(yt)
    name, f = resolve_metric(metric, classes)
    stat = lambda idx: np.array([f(yt[i], yp[i]) for i in idx], dtype=np.float64)  # noqa: E731
    res = _run(
        stat,
        yt.size,
        n_resamples=_resamples(n_resamples, 2, n=yt.size),
        seed=check_seed(seed),
        method=method,
        confidence=confidence,
        alternative="two-sided",
        conventions={"metric": name, "source": "CIML 5.7 Alg. 10 Bootstrap-Evaluate"},
    )
    res.extra = {"mean": float(res.distribution.mean()), "std": float(res.distribution.std(ddof=1))}
    return res


def paired_bootstrap_test(
    a,
    b,
    *,
    statistic="mean",
    y_true=None,
    metric=None,
    n_resamples: int = 9999,
    seed: int = 0,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    classes=None,
) -> TestResult:
    """Paired bootstrap test of ``delta = T(a) - T(b) = 0`` on one shared test set.

    Two modes: per-example scores ``a``, ``b`` (losses, 0/1 correctness) with ``T`` =
    ``statistic`` ("mean", "median" or a vectorized callable); or predictions ``a``, ``b`` of two
    models with ``y_true`` and ``T(pred) = metric(y_true, pred)`` for any metric, decomposable or
    not (Koehn 2004; Berg-Kirkpatrick et al. 2012).  Each resample b recomputes
    ``delta*_b`` on the rows ``idx[b]`` (the same for both models).  H0 is imposed by centring
    the bootstrap distribution on 0 (Efron & Tibshirani 1993, §16.4):

    * two-sided: ``p = (1 + #{|delta*_b - delta| >= |delta|}) / (B + 1)``
    * "greater" (``a`` larger): ``(1 + #{delta*_b - delta >= delta}) / (B + 1)``; "less" mirrored.

    The ``+ 1`` counts the observed data as one resample, so p is never 0 (and a valid p-value
    for a finite B).  ``ci``: percentile interval of ``delta``; ``effect_size``: ``delta``.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    seed = check_seed(seed)
    n_resamples = _resamples(n_resamples)
    delta_of = _paired_statistic(a, b, statistic, y_true, metric, classes)
    n = np.asarray(a).shape[0]
    delta = float(delta_of(np.arange(n)[None, :])[0])
    idx = bootstrap_indices(n, n_resamples, seed)
    star = delta_of(idx)
    count = _as_extreme(star - delta, delta, alternative)
    p = (1.0 + count) / (n_resamples + 1.0)
    lo, hi = np.quantile(star, [(1 - confidence) / 2, (1 + confidence) / 2])
    mode = f"metric {delta_of.name} on predictions" if y_true is not None else f"statistic {delta_of.name} of scores"
    return TestResult(
        test="paired_bootstrap_test",
        statistic=delta,
        pvalue=float(min(1.0, p)),
        effect_size=delta,
        effect_size_name="difference",
        ci=(float(lo), float(hi)),
        alternative=alternative,
        conventions={
            "difference": "T(a) - T(b)",
            "mode": mode,
            "null": "bootstrap distribution centred at 0 (delta* - delta)",
            "pvalue": "(1 + count) / (B + 1)",
            "resamples": "numpy.random.default_rng(seed).integers(0, n, (n_resamples, n))",
            "ci": f"{confidence:g} percentile interval of the difference",
        },
        extra={"n_resamples": n_resamples, "seed": seed, "n": int(n), "count": int(count)},
    )


class _Delta:
    """``delta(idx)``: the statistic difference on each row of an index matrix."""

    def __init__(self, name, func):
        self.name = name
        self.func = func

    def __call__(self, idx):
        return np.asarray(self.func(idx), dtype=np.float64).reshape(-1)


def _paired_statistic(a, b, statistic, y_true, metric, classes) -> _Delta:
    if y_true is not None:
        if metric is None:
            raise ValueError("with y_true (predictions mode) pass metric=, a callable metric(y_true, y_pred) or a name")
        yt = as_1d(y_true, "y_true")
        pa, pb = np.asarray(a), np.asarray(b)
        if pa.shape[0] != yt.size or pb.shape[0] != yt.size:
            raise ValueError(
                f"y_true, a and b must have the same length, got {yt.size}, {pa.shape[0]} and {pb.shape[0]}"
            )
        if classes is None and isinstance(metric, str):
            classes = np.unique(np.concatenate([yt, pa.ravel(), pb.ravel()])) if pa.ndim == 1 else np.unique(yt)
        name, f = resolve_metric(metric, classes)
        g = per_example(metric)
        if g is not None and pa.ndim == 1 and pb.ndim == 1:  # a mean of per-example values: every row at once
            la, lb = g(yt, pa), g(yt, pb)
            return _Delta(name, lambda idx: la[idx].mean(axis=1) - lb[idx].mean(axis=1))
        return _Delta(name, lambda idx: [f(yt[i], pa[i]) - f(yt[i], pb[i]) for i in idx])
    if metric is not None:
        raise ValueError("metric= needs y_true= (the predictions mode); for per-example scores use statistic=")
    xa = as_1d(np.asarray(a, dtype=np.float64), "a")
    xb = as_1d(np.asarray(b, dtype=np.float64), "b")
    if xa.size != xb.size:
        raise ValueError(f"a and b must be paired (same length), got {xa.size} and {xb.size}")
    name, f = resolve_statistic(statistic)
    return _Delta(name, lambda idx: f(xa[idx]) - f(xb[idx]))
