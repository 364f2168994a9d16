"""Statistics for a handful of runs: the interquartile mean, stratified bootstrap intervals, the probability of
improvement, performance profiles, and what a few paired replicates can and cannot detect.

With 5 to 10 seeds per problem (the experiment families: agents on environments, ...), point estimates and
"significant / not significant" verdicts say little on their own. Agarwal et al. (2021, "Deep reinforcement
learning at the edge of the statistical precipice", NeurIPS; the rliable library) recommend interval estimates of
robust aggregates instead, and this module implements them in numpy/scipy (no rliable dependency):

* :func:`iqm` -- the **interquartile mean**: the mean of the middle 50 % of all runs x tasks scores, i.e.
  ``scipy.stats.trim_mean(scores.ravel(), 0.25)``. Less sensitive to outlying runs than the mean, far less noisy
  than the median with few runs.
* :func:`stratified_bootstrap_ci` -- a **stratified bootstrap** percentile interval for any statistic of a
  ``(runs, tasks)`` score array: every resample draws, independently within each task, as many runs as the task
  has, with replacement (the tasks are fixed, the runs are the random part). With one task it is the ordinary
  percentile bootstrap over the runs. Several arrays (one per algorithm) are resampled independently.
* :func:`probability_of_improvement` -- ``P(X > Y) + P(X = Y) / 2`` for a random run of X and a random run of Y
  on the same task (the Mann-Whitney ``U / (n m)``, also called the common-language effect size or A12),
  averaged over the tasks; 0.5 means neither tends to score higher. :func:`probability_of_improvement_ci` gives
  its stratified bootstrap interval.
* :func:`performance_profile` -- the fraction of runs (pooled over tasks) whose score exceeds each threshold
  ``tau``: the run-score distribution of Agarwal et al. (2021, Fig. 5), optionally min-max normalised per task.

What a few **paired replicates** can show (the replicate tests of :mod:`replearn.stats.registry`):

* :func:`smallest_attainable_pvalue` -- the exact two-sided Wilcoxon signed-rank test (Wilcoxon 1945) and the
  sign test (Dixon & Mood 1946) on n paired replicates cannot give a p-value below ``2 / 2^n`` (every difference
  of one sign: one of the 2^n equally likely sign patterns at each end). With 5 seeds that is 0.0625 > 0.05: the
  test can never reject. The paired t-test can reach any level with n >= 2.
* :func:`smallest_adjusted_pvalue` and :func:`min_replicates` -- the same after a correction over m comparisons:
  Holm, Bonferroni, Shaffer and Bergmann-Hommel multiply the smallest p-value by m (their first step), so the
  smallest adjusted p is ``min(1, m 2 / 2^n)``; Hochberg, Hommel and no correction leave it at ``2 / 2^n`` (all
  m p-values at the minimum). :func:`min_replicates` is the smallest n that can reach ``alpha``.
* :func:`paired_t_power` and :func:`minimum_detectable_effect` -- the power of the two-sided paired t-test on n
  pairs, and the smallest effect it detects with a given power, in units of the standard deviation of the paired
  differences (Cohen's d_z). Under H1 the statistic ``t = mean(d) / (sd(d) / sqrt(n))`` follows the noncentral t
  distribution with ``n - 1`` degrees of freedom and noncentrality ``delta sqrt(n)`` (``scipy.stats.nct``), so
  ``power = P(|T| > t_{1 - a/2, n-1})``. With m comparisons the level is the worst case of Holm (and of every
  correction here but ``none``): ``a = alpha / m``. At one standard deviation the power is 40 %, 51 % and 68 %
  with 5, 6 and 8 pairs at alpha = 0.05: "not told apart" with so few seeds is no evidence of equivalence.

References: Agarwal, Schwarzer, Castro, Courville & Bellemare (2021), NeurIPS 34; Wilcoxon (1945), Biometrics
Bulletin 1(6); Dixon & Mood (1946), JASA 41; Mann & Whitney (1947), Ann. Math. Stat. 18; Cohen (1988), Statistical
Power Analysis, ch. 2; Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np

from ._resample import check_resamples, check_seed
from .bootstrap import MAX_RESAMPLED_VALUES, MAX_RESAMPLES, BootstrapResult

__all__ = [
    "RANK_TESTS",
    "T_TESTS",
    "iqm",
    "min_replicates",
    "minimum_detectable_effect",
    "paired_t_power",
    "performance_profile",
    "probability_of_improvement",
    "probability_of_improvement_ci",
    "smallest_adjusted_pvalue",
    "smallest_attainable_pvalue",
    "stratified_bootstrap_ci",
]

#: names (registry names or functions of replearn.stats) of the exact tests whose smallest p is 2 / 2^n
RANK_TESTS = ("replicate_wilcoxon", "replicate_sign_test", "wilcoxon", "sign_test")
#: names of the paired t-tests (any level is reachable with n >= 2)
T_TESTS = ("replicate_ttest", "paired_ttest")
#: corrections whose smallest adjusted p-value is m times the smallest raw p-value (their first step is Bonferroni)
_TIMES_M = ("holm", "bonferroni", "shaffer", "bergmann_hommel")
#: corrections whose smallest adjusted p-value is the smallest raw p-value (every p-value at the minimum)
_TIMES_1 = ("hochberg", "hommel", "none")
#: the most replicates min_replicates searches (2 / 2^n is below 1e-300 long before)
_MAX_N = 1100


# -- input checks ----------------------------------------------------------------------------------
def _scores_2d(scores, name: str = "scores") -> np.ndarray:
    """``scores`` as a finite float (runs, tasks) array; a 1-D array is one task."""
    a = np.asarray(scores, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty (runs, tasks) array (or 1-D: one task), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def _check_confidence(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < float(confidence) < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    return float(confidence)


def _check_alpha(alpha, name: str = "alpha") -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < float(alpha) < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {alpha!r}")
    return float(alpha)


def _check_int(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _test_kind(test_name: str) -> str:
    """``"rank"`` (exact Wilcoxon / sign test) or ``"t"`` (paired t) for a registry or function name."""
    if test_name in RANK_TESTS:
        return "rank"
    if test_name in T_TESTS:
        return "t"
    raise ValueError(f"unknown replicate test {test_name!r}; use one of {', '.join(T_TESTS + RANK_TESTS)}")


def _check_correction(correction: str | None) -> str:
    correction = "none" if correction is None else correction
    if correction not in _TIMES_M + _TIMES_1:
        raise ValueError(f"unknown correction {correction!r}; use one of {', '.join(_TIMES_M + _TIMES_1)}")
    return correction


# -- point estimates -------------------------------------------------------------------------------
def iqm(scores) -> float:
    """Interquartile mean of all runs x tasks scores (Agarwal et al. 2021): the mean of the middle 50 % of the
    flattened scores, ``scipy.stats.trim_mean(scores, 0.25, axis=None)`` (a quarter of the values cut at each end,
    rounded down, as SciPy does)."""
    from scipy import stats

    a = np.asarray(scores, dtype=np.float64).ravel()
    if a.size < 1:
        raise ValueError("iqm needs at least one score")
    if not np.all(np.isfinite(a)):
        raise ValueError("scores contain NaN or infinite values")
    return float(stats.trim_mean(a, 0.25, axis=None))


def _iqm_batch(samples: np.ndarray) -> np.ndarray:
    """IQM of each resample of a (B, runs, tasks) array."""
    from scipy import stats

    flat = samples.reshape(samples.shape[0], -1)
    return np.asarray(stats.trim_mean(flat, 0.25, axis=1), dtype=np.float64)


def probability_of_improvement(x, y) -> float:
    """Probability that a run of X scores higher than a run of Y on the same task, ties counting one half:
    ``P(X > Y) + 0.5 P(X = Y)`` per task -- the Mann-Whitney ``U / (n m)`` of the task's n runs of X and m runs
    of Y -- averaged over the tasks (Agarwal et al. 2021, eq. in section 4.3). ``x`` is (n, tasks), ``y`` is
    (m, tasks); 1-D arrays are one task. Higher scores are better: pass negated losses.

    ``probability_of_improvement(x, x) == 0.5`` and ``probability_of_improvement(x, y) +
    probability_of_improvement(y, x) == 1``."""
    a, b = _scores_2d(x, "x"), _scores_2d(y, "y")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"x and y must have the same number of tasks (columns), got {a.shape[1]} and {b.shape[1]}")
    return float(_poi_batch(a[None], b[None])[0])


def _poi_batch(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Probability of improvement of each resample: x (B, n, tasks), y (B, m, tasks)."""
    out = np.empty(x.shape[0])
    step = max(1, 2_000_000 // max(1, x.shape[1] * y.shape[1] * x.shape[2]))  # bound the (n, m) comparison arrays
    for lo in range(0, x.shape[0], step):
        xs, ys = x[lo : lo + step, :, None, :], y[lo : lo + step, None, :, :]
        u = (xs > ys).mean(axis=(1, 2)) + 0.5 * (xs == ys).mean(axis=(1, 2))  # (b, tasks)
        out[lo : lo + step] = u.mean(axis=1)
    return out


def performance_profile(scores, taus, *, low=None, high=None) -> np.ndarray:
    """The run-score distribution (Agarwal et al. 2021, section 4.2): for each threshold ``tau``, the fraction of
    the runs whose score exceeds it, pooled over the tasks -- the mean over tasks of each task's fraction of runs
    with ``score > tau``.

    ``scores`` is (runs, tasks) (1-D: one task). With ``low`` and ``high`` (a number, or one per task) the scores
    are min-max normalised first, ``(score - low) / (high - low)`` per task, so tasks of different scales weigh
    equally and ``taus`` run over [0, 1]; a task with ``high == low`` has every normalised score 0.
    Returns an array of ``len(taus)`` fractions, non-increasing in ``tau``."""
    a = _scores_2d(scores)
    t = np.asarray(taus, dtype=np.float64).ravel()
    if not np.all(np.isfinite(t)):
        raise ValueError("taus must be finite")
    if (low is None) != (high is None):
        raise ValueError("give both low and high (the per-task normalisation) or neither")
    if low is not None:
        lo = np.broadcast_to(np.asarray(low, dtype=np.float64), (a.shape[1],))
        hi = np.broadcast_to(np.asarray(high, dtype=np.float64), (a.shape[1],))
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(hi < lo):
            raise ValueError("low and high must be finite with high >= low")
        span = hi - lo
        a = np.where(span > 0, (a - lo) / np.where(span > 0, span, 1.0), 0.0)
    return (a[None, :, :] > t[:, None, None]).mean(axis=1).mean(axis=1)


# -- stratified bootstrap --------------------------------------------------------------------------
def _resolve(statistic) -> tuple[str, Callable[..., float], Callable[..., np.ndarray]]:
    """``(name, f(*arrays) -> float, batch(*B-stacked arrays) -> (B,) values)`` for a statistic."""
    if isinstance(statistic, str):
        by_name: dict[str, Callable[..., float]] = {
            "iqm": iqm,
            "mean": lambda a: float(np.mean(a)),
            "median": lambda a: float(np.median(a)),
            "probability_of_improvement": probability_of_improvement,
        }
        if statistic not in by_name:
            raise ValueError(f"unknown statistic {statistic!r}; use one of {sorted(by_name)} or a callable")
        func = by_name[statistic]
        batches: dict[str, Callable[..., np.ndarray]] = {
            "iqm": _iqm_batch,
            "mean": lambda s: s.reshape(s.shape[0], -1).mean(axis=1),
            "median": lambda s: np.median(s.reshape(s.shape[0], -1), axis=1),
            "probability_of_improvement": _poi_batch,
        }
        return statistic, func, batches[statistic]
    if not callable(statistic):
        raise ValueError(f"statistic must be a name or a callable, got {statistic!r}")
    if statistic is iqm:
        return "iqm", iqm, _iqm_batch
    if statistic is probability_of_improvement:
        return "probability_of_improvement", probability_of_improvement, _poi_batch

    def looped(*samples):
        return np.array([statistic(*(s[i] for s in samples)) for i in range(samples[0].shape[0])], dtype=np.float64)

    return getattr(statistic, "__name__", "callable"), statistic, looped


def stratified_bootstrap_ci(
    scores,
    statistic: str | Callable = "iqm",
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> BootstrapResult:
    """Stratified bootstrap percentile interval of ``statistic`` (Agarwal et al. 2021, section 3; Efron &
    Tibshirani 1993, ch. 13).

    ``scores`` is a (runs, tasks) array, or a tuple of such arrays (one per algorithm, same number of tasks,
    possibly different numbers of runs) for a statistic of several arguments such as
    :func:`probability_of_improvement`. Each of the ``n_resamples`` resamples keeps the tasks and draws, within
    every task independently and for every array independently, as many runs as there are with replacement; the
    interval is the ``(1 - confidence)/2`` and ``(1 + confidence)/2`` quantiles of the statistic over the resamples
    (``numpy.quantile``, linear interpolation).

    ``statistic``: "iqm" (default), "mean", "median", "probability_of_improvement", or a callable taking the
    array(s) and returning a number. Randomness: ``numpy.random.default_rng(seed)`` draws, for each array in
    order, the indices ``integers(0, runs, (n_resamples, runs, tasks))``: the same seed gives the same interval.

    Returns a :class:`~replearn.stats.bootstrap.BootstrapResult` (``estimate`` on the data, ``ci``,
    ``standard_error`` = the ddof=1 sd of the resampled values, ``method="percentile"``, ``distribution``)."""
    arrays = tuple(scores) if isinstance(scores, tuple) else (scores,)
    arrays = tuple(_scores_2d(a, f"scores[{i}]" if len(arrays) > 1 else "scores") for i, a in enumerate(arrays))
    if len({a.shape[1] for a in arrays}) != 1:
        raise ValueError(f"every score array must have the same number of tasks, got {[a.shape for a in arrays]}")
    b = check_resamples(n_resamples, 1)
    if b > MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be <= {MAX_RESAMPLES:,}, got {b:,}")
    total = b * sum(a.size for a in arrays)
    if total > MAX_RESAMPLED_VALUES:
        raise ValueError(
            f"{total:,} resampled values, above the limit of {MAX_RESAMPLED_VALUES:,}; use fewer resamples"
        )
    conf = _check_confidence(confidence)
    rng = np.random.default_rng(check_seed(seed))
    name, func, batch = _resolve(statistic)
    estimate = float(func(*arrays))
    samples = []
    for a in arrays:
        runs, tasks = a.shape
        idx = rng.integers(0, runs, (b, runs, tasks))
        samples.append(np.take_along_axis(np.broadcast_to(a, (b, runs, tasks)), idx, axis=1))
    theta = np.asarray(batch(*samples), dtype=np.float64)
    half = (1.0 - conf) / 2.0
    lo, hi = np.quantile(theta, [half, 1.0 - half])
    return BootstrapResult(
        estimate=estimate,
        ci=(float(lo), float(hi)),
        standard_error=float(np.std(theta, ddof=1)) if b > 1 else float("nan"),
        method="percentile",
        confidence=conf,
        alternative="two-sided",
        n_resamples=b,
        seed=int(seed),
        distribution=theta,
        conventions={
            "statistic": name,
            "resampling": "stratified: runs with replacement within each task, each array independently",
            "interval": "percentile (numpy.quantile, linear)",
            "source": "Agarwal et al. (2021); Efron & Tibshirani (1993)",
        },
        extra={"runs": [int(a.shape[0]) for a in arrays], "tasks": int(arrays[0].shape[1])},
    )


def probability_of_improvement_ci(
    x, y, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0
) -> BootstrapResult:
    """:func:`probability_of_improvement` of X over Y with its stratified bootstrap percentile interval (runs of
    X and of Y resampled independently within each task, as Agarwal et al. 2021): see
    :func:`stratified_bootstrap_ci`."""
    return stratified_bootstrap_ci((x, y), "probability_of_improvement", n_resamples, confidence, seed)


# -- what few paired replicates can show -----------------------------------------------------------
def smallest_attainable_pvalue(test_name: str, n: int) -> float:
    """The smallest two-sided p-value a replicate test can give with ``n`` paired replicates.

    Exact Wilcoxon signed-rank and sign test (``replicate_wilcoxon``/``wilcoxon``, ``replicate_sign_test``/
    ``sign_test``): ``min(1, 2 / 2^n)`` -- all differences of one sign, no zeros or ties, is one of the 2^n
    equally likely sign patterns under H0, doubled for two sides. Paired t-test (``replicate_ttest``/
    ``paired_ttest``): 0 for ``n >= 2`` (the t statistic is unbounded), 1 for ``n < 2`` (no test)."""
    n = _check_int(n, "n", 0)
    if _test_kind(test_name) == "t":
        return 0.0 if n >= 2 else 1.0
    return float(min(1.0, 2.0 * 0.5**n)) if n >= 1 else 1.0


def smallest_adjusted_pvalue(test_name: str, n: int, n_comparisons: int = 1, correction: str | None = "holm") -> float:
    """The smallest p-value a replicate test can reach with ``n`` replicates after ``correction`` over
    ``n_comparisons`` p-values: ``min(1, m p_min)`` for holm, bonferroni, shaffer and bergmann_hommel (their
    first step multiplies the smallest p-value by m), ``p_min`` for hochberg, hommel and none (reached when every
    p-value is at the minimum). Every one of these adjustments is non-decreasing in each raw p-value, so setting
    all of them to :func:`smallest_attainable_pvalue` gives the minimum."""
    m = _check_int(n_comparisons, "n_comparisons", 1)
    correction = _check_correction(correction)
    p = smallest_attainable_pvalue(test_name, n)
    return float(min(1.0, m * p)) if correction in _TIMES_M else p


def min_replicates(test_name: str, alpha: float = 0.05, n_comparisons: int = 1, correction: str | None = "holm") -> int:
    """The smallest number of paired replicates (>= 2) with which ``test_name`` can reach ``p <= alpha`` after
    ``correction`` over ``n_comparisons`` comparisons (:func:`smallest_adjusted_pvalue`). The exact Wilcoxon and
    sign tests need 6 for one comparison at alpha = 0.05 (2/2^6 = 0.031), 7 for three pairs under Holm
    (3 x 2/2^7 = 0.047); the paired t-test needs 2."""
    alpha = _check_alpha(alpha)
    for n in range(2, _MAX_N + 1):
        if smallest_adjusted_pvalue(test_name, n, n_comparisons, correction) <= alpha:
            return n
    raise ValueError(f"{test_name} cannot reach alpha = {alpha:g} with up to {_MAX_N} replicates")


def _level(alpha: float, n_comparisons: int, correction: str | None) -> float:
    """The per-comparison level in the worst case of the correction: alpha / m (alpha without a correction)."""
    m = _check_int(n_comparisons, "n_comparisons", 1)
    return alpha if _check_correction(correction) == "none" else alpha / m


def paired_t_power(effect_sd, n: int, alpha: float = 0.05, n_comparisons: int = 1, correction: str = "holm") -> float:
    """Power of the two-sided paired t-test on ``n`` pairs to reject at level ``alpha`` (``alpha / m`` with a
    correction over ``m = n_comparisons``, the worst case of Holm) when the true mean difference is
    ``effect_sd`` standard deviations of the paired differences (Cohen's d_z):
    ``P(|T| > t_{1 - a/2, n-1})`` with ``T ~ nct(n - 1, effect_sd sqrt(n))``."""
    from scipy import stats

    n = _check_int(n, "n", 2)
    a = _level(_check_alpha(alpha), n_comparisons, correction)
    d = float(effect_sd)
    if not math.isfinite(d):
        raise ValueError(f"effect_sd must be finite, got {effect_sd!r}")
    df, nc = n - 1, d * math.sqrt(n)
    crit = float(stats.t.ppf(1.0 - a / 2.0, df))
    # T(nc) = -T(-nc): both tails as upper tails at |nc|. The far tail is below Phi(-|nc|) (T > c > 0 needs
    # Z > |nc|); SciPy returns NaN for it at large |nc|, where it is negligible.
    near = float(stats.nct.sf(crit, df, abs(nc)))
    if not math.isfinite(near):
        near = 1.0 - float(stats.nct.cdf(crit, df, abs(nc)))
    far = float(stats.nct.sf(crit, df, -abs(nc)))
    far = min(far, float(stats.norm.cdf(-abs(nc)))) if math.isfinite(far) else 0.0
    return float(min(1.0, near + far))


def minimum_detectable_effect(
    n: int, alpha: float = 0.05, power: float = 0.8, n_comparisons: int = 1, correction: str = "holm"
) -> float:
    """The smallest true mean difference, in standard deviations of the paired differences, that the two-sided
    paired t-test on ``n`` pairs detects with probability ``power`` at level ``alpha`` (``alpha / m`` with a
    correction over ``m = n_comparisons``): the root in ``delta`` of :func:`paired_t_power` ``= power``
    (noncentral t; Cohen 1988, ch. 2). Multiply by the standard deviation of the paired differences for score
    units. 80 % power at alpha = 0.05 needs 1.43 sd with 6 pairs, 1.00 sd with 10."""
    from scipy import optimize

    n = _check_int(n, "n", 2)
    alpha = _check_alpha(alpha)
    power = _check_alpha(power, "power")
    a = _level(alpha, n_comparisons, correction)
    if power <= a:
        return 0.0
    hi = 1.0
    while paired_t_power(hi, n, a, 1, "none") < power:
        hi *= 2.0
        if hi > 1e9:
            raise ValueError(f"no effect reaches power {power:g} with n = {n}")
    return float(optimize.brentq(lambda d: paired_t_power(d, n, a, 1, "none") - power, 0.0, hi, xtol=1e-12))
