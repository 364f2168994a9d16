"""The variance of a cross-validation estimate over data sets, by half-sampling (a population-level test).

A comparison on one data set can answer two questions. *Conditional*: are the two learners different on
**these** examples (this split, this data set)? *Population*: would they differ on a new data set of the same
size from the same distribution? Only the second is what "A is better than B" means to most readers, and its
standard error has a component no amount of resampling of one data set can see: how much the whole
cross-validation estimate would move with another data set (Nadeau & Bengio 2003; Bengio & Grandvalet 2004).

Write ``d_bar`` for the mean difference over the J splits of (repeated) cross-validation on a data set D of n
examples.  Its variance over data sets and splits is

    Var(d_bar) = Var_D(E[d_bar | D])  +  E_D[Var(d_bar | D)]
                 ``between``               ``within``

* ``within`` -- the split-to-split noise of this data set, estimated without bias from the R repeats: the repeat
  means are independent given D, so ``within = var(repeat means, ddof=1) / R`` (with independent replicates,
  ``var(d, ddof=1) / J``). With **one repeat** of k-fold the folds are not independent given D: every example
  is tested once, so ``var(fold differences) / K`` is mostly the test-sample noise that ``between`` already
  holds, and taking it counted that noise twice (10-fold x 1 rejected 1.8 % of true nulls, covered 98 %;
  issue 39). The one-partition term is then the partition-to-partition variance of one repeat, which the inner
  repeats of half-sampling measure at size m: ``within = R * S2 * m / n`` (a mean over independent examples'
  prediction changes scales as 1/n), on the ``B (R - 1)`` degrees of freedom of ``S2``, with which it is
  combined (not added as an independent mean square) in Satterthwaite's formula.
* ``between`` -- the data-sampling term that the corrected resampled t-test replaces by the heuristic
  ``n_test/n_train`` times the split variance.  The heuristic is right for stable learners and too small for
  unstable ones (1-NN: the calibration measures twice the nominal type-I error).  Here it is **estimated** by
  the delete-d jackknife with ``d = n - m`` (Shao & Wu 1989; half-sampling, McCarthy 1969, for ``m = n/2``):
  draw B subsets S of m examples, run an inner cross-validation (``repeats`` x ``folds``) **inside** each S
  only, and take

      between = (m / (n - m)) * ( S1  -  k * S2 ),
      S1 = var_S(T_S, ddof=1),   S2 = mean_S var_r(T_S^r, ddof=1) / repeats

  where ``T_S^r`` is the inner repeat r's mean difference on S and ``T_S`` their mean; ``S2`` estimates the
  inner split noise in ``S1`` (repeats are independent given S), and the result is clipped at 0.  The delete-d
  jackknife is consistent for non-smooth statistics (such as 1-NN's error) when d is a fixed fraction of n,
  where the delete-1 jackknife is not (Shao & Wu 1989).

The test is then ``t = d_bar / sqrt(between + within)`` on Satterthwaite's degrees of freedom of the whole
linear combination ``within + f S1 - f k S2`` of three independent mean squares (``df_within``, ``B - 1`` and
``B (repeats - 1)``; Satterthwaite 1946), and the interval ``d_bar +/- t_df sqrt(between + within)``.  Two
measured choices (``make calibration``; the normal-theory model of the three mean squares in
docs/statistics.md):

* the degrees of freedom count the noise term ``S2`` and the noise inside ``S1``.  Counting ``between`` alone
  (as ``B - 1`` degrees of freedom of a clean variance) is right only when the data-sampling term dominates;
  when it is of the size of the inner noise the test then rejected up to 10 % of true nulls.
* ``k = 1 + min(NOISE_FACTOR - 1, NOISE_SHARE * within / (f S2))`` (at most 1.5): a between term that is truly
  0 (learners that differ only by their seed) is estimated with an upward bias by the clipping, and with
  ``k = 1`` such learners were rejected 2.6 % of the time whatever the number of subsets. Subtracting more than
  the estimated noise removes that bias; the extra ``(k - 1) f S2`` is capped at ``NOISE_SHARE = 0.8`` times the
  within term, so when the between term is real it can understate the variance by at most that much of a term
  that the test also carries -- under the normal model of the three mean squares no between term in the range
  where the pipeline's designs run (within/(f S2) from 0.2 to 2) then gets a size above 6 %, where a fixed
  ``k = 1.5`` reached 9 %.

The defaults (B = 20 subsets of n/3, 6 repeats of 5-fold inside each for cross-validation splits, of 3-fold for
seeds on resampled hold-outs) are those calibrated; fewer repeats (a preset's budget) keep the test valid for
data-dependent learners but make it more conservative for seed-only ones.

:func:`mean_covariance` is the same estimator for several columns at once (models, or the points of a sweep):
the covariance matrix of their mean scores, from which the variance of any contrast follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._result import TestResult
from .ttests import _check_options, t_result

__all__ = [
    "MIN_SUBSETS",
    "NOISE_FACTOR",
    "MeanCovariance",
    "SelectedContrast",
    "half_sampling_ttest",
    "max_t_adjusted",
    "max_t_critical",
    "mean_covariance",
    "selected_contrast",
    "selected_neighbours",
]

#: ``k``: the largest multiple of the estimated inner noise subtracted from the subsets' variance, and the share
#: ``gamma`` of the within term the extra subtraction ``(k - 1) f S2`` may reach (module docstring).
NOISE_FACTOR = 1.5
NOISE_SHARE = 0.8
#: The fewest subsets the test is valid with (``make calibration``'s grid, 300 replications per cell, 3 Dec 2026): with
#: 2 subsets it rejected 14-38 % of true nulls, with 3 up to 11 % (three models) and 8 % (shared features), with 4
#: 3.0-5.7 %, with 5 2.3-4.7 %; fewer leave the between term's variance too noisy for Satterthwaite's t. The config
#: refuses ``cv.half_sampling.subsamples`` and sequential ``looks`` below it.
MIN_SUBSETS = 5
#: The smallest degrees of freedom a contrast gets: Satterthwaite's formula for a difference of mean squares
#: collapses towards 0 when the between estimate is a small difference of two large terms.
MIN_DF = 2.0


@dataclass(frozen=True)
class MeanCovariance:
    """The covariance of the columns' mean scores: ``cov = between + within``, with ``df`` degrees of freedom.

    ``between`` is None when no half-samples were given (a conditional analysis: the data set is held fixed);
    else ``between = psd(factor * (spread - noise_factor * noise))`` with ``spread`` the subsets' covariance
    (``B - 1`` degrees of freedom) and ``noise`` the inner split noise (``df_noise``).
    """

    means: np.ndarray
    cov: np.ndarray
    within: np.ndarray
    between: np.ndarray | None
    df: float
    n_subsamples: int
    subsample_size: int | None
    n_examples: int | None
    df_within: float | None = None
    spread: np.ndarray | None = None
    noise: np.ndarray | None = None
    df_noise: float | None = None
    factor: float | None = None
    noise_factor: float = NOISE_FACTOR
    within_noise: float | None = None  # one partition: within = within_noise * noise (module docstring)

    def contrast_df(self, weights) -> float:
        """Satterthwaite's degrees of freedom of a contrast's variance ``within + f S1 - f k S2`` (three
        independent mean squares; module docstring), at least ``MIN_DF``. A contrast whose between term is
        clipped to 0 keeps the within term's degrees of freedom."""
        w = np.asarray(weights, dtype=np.float64)
        vw = float(max(w @ self.within @ w, 0.0))
        if self.between is None:
            return self.df
        vb = float(max(w @ self.between @ w, 0.0))
        if vb <= 0.0 or self.spread is None or self.noise is None or self.factor is None:
            return float(self.df_within) if self.df_within else self.df
        s1 = self.factor * float(max(w @ self.spread @ w, 0.0))
        s2 = self.factor * self.noise_factor * float(max(w @ self.noise @ w, 0.0))
        if self.within_noise is not None:  # within is a multiple of the same mean square as the noise term
            s2 = (self.within_noise - self.factor * self.noise_factor) * float(max(w @ self.noise @ w, 0.0))
            vw_term = 0.0
        else:
            vw_term = vw**2 / self.df_within if self.df_within else 0.0
        den = s1**2 / self.df + (s2**2 / self.df_noise if self.df_noise else 0.0) + vw_term
        if den <= 0:
            return self.df
        return float(max((vb + vw) ** 2 / den, MIN_DF))

    def family_df(self, weights) -> float:
        """One degrees-of-freedom value for a family of contrasts (rows of ``weights``): the smallest of theirs,
        so a max-t test or simultaneous interval over the family errs on the safe side."""
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        return float(min(self.contrast_df(row) for row in w))

    def contrast(self, weights) -> tuple[float, float]:
        """(estimate, variance) of ``sum_j w_j mean_j``."""
        w = np.asarray(weights, dtype=np.float64)
        return float(w @ self.means), float(max(w @ self.cov @ w, 0.0))

    def pair(self, i: int, j: int) -> tuple[float, float]:
        """(mean_i - mean_j, its variance)."""
        w = np.zeros(self.means.size)
        w[i], w[j] = 1.0, -1.0
        return self.contrast(w)

    def between_share(self, i: int, j: int) -> float | None:
        """The fraction of the pair difference's variance that comes from data sampling (None: conditional)."""
        if self.between is None:
            return None
        _, v = self.pair(i, j)
        w = np.zeros(self.means.size)
        w[i], w[j] = 1.0, -1.0
        return float(max(w @ self.between @ w, 0.0) / v) if v > 0 else 0.0


def _as_2d(scores, name: str) -> np.ndarray:
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] < 2:
        raise ValueError(f"{name} must have at least 2 replicates (rows), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    return arr


def _one_partition(x: np.ndarray, repeat) -> bool:
    """Whether the replicates are the folds of a single repeat of k-fold (one partition of the data set)."""
    return repeat is not None and len(set(np.asarray(repeat).tolist())) == 1 and x.shape[0] >= 2


def _within(x: np.ndarray, repeat) -> tuple[np.ndarray, float]:
    """Covariance of the column means given the data set, and its degrees of freedom."""
    if repeat is not None:
        rep = np.asarray(repeat)
        if rep.shape != (x.shape[0],):
            raise ValueError(f"repeat must have one id per replicate ({x.shape[0]}), got shape {rep.shape}")
        ids = sorted(set(rep.tolist()))
        if len(ids) >= 2:
            m = np.stack([x[rep == r].mean(axis=0) for r in ids])  # repeat means: independent given D
            return np.atleast_2d(np.cov(m, rowvar=False, ddof=1)) / len(ids), float(len(ids) - 1)
    return np.atleast_2d(np.cov(x, rowvar=False, ddof=1)) / x.shape[0], float(x.shape[0] - 1)


def mean_covariance(
    scores,
    *,
    repeat=None,
    half_scores=None,
    n_examples: int | None = None,
    subsample_size: int | None = None,
    noise_factor: float | None = None,
) -> MeanCovariance:
    """The covariance matrix of the column means of ``scores`` (J replicates x P columns).

    ``repeat`` -- one id per replicate: replicates that share an id are the folds of one repeat of k-fold CV
    (the within-data-set term then uses the repeat means); None: independent replicates.
    ``half_scores`` -- (B, R, P): column scores of inner repeat r on subsample b (see the module docstring);
    with it the covariance includes the data-sampling term (``n_examples`` and ``subsample_size`` required),
    without it it is conditional on the data set, with ``df = J - 1`` (or R - 1 with repeats).
    ``noise_factor`` -- ``k``, the multiple of the inner noise subtracted; None: ``1 + min(NOISE_FACTOR - 1,
    NOISE_SHARE * tr(within) / (f tr(noise)))`` (module docstring).
    """
    x = _as_2d(scores, "scores")
    within, df_within = _within(x, repeat)
    means = x.mean(axis=0)
    if half_scores is None:
        return MeanCovariance(means, within, within, None, df_within, 0, None, n_examples, df_within)
    h = np.asarray(half_scores, dtype=np.float64)
    if h.ndim == 2:
        h = h[:, :, None]
    if h.ndim != 3 or h.shape[2] != x.shape[1]:
        raise ValueError(f"half_scores must have shape (subsamples, repeats, {x.shape[1]}), got {h.shape}")
    b, r, _ = h.shape
    if b < 2 or r < 2:
        raise ValueError(f"half_scores needs at least 2 subsamples and 2 inner repeats, got {b} and {r}")
    if not np.all(np.isfinite(h)):
        raise ValueError("half_scores must be finite")
    if noise_factor is not None and not (np.isfinite(noise_factor) and noise_factor >= 1.0):
        raise ValueError(f"noise_factor must be None or a finite number >= 1, got {noise_factor!r}")
    if n_examples is None or subsample_size is None or not 0 < subsample_size < n_examples:
        raise ValueError(f"half-sampling needs 0 < subsample_size < n_examples, got {subsample_size} and {n_examples}")
    factor = subsample_size / (n_examples - subsample_size)  # delete-d jackknife: (n - d) / d
    t_s = h.mean(axis=1)  # (B, P): each subsample's estimate
    raw = np.atleast_2d(np.cov(t_s, rowvar=False, ddof=1))
    noise = np.mean([np.atleast_2d(np.cov(h[i], rowvar=False, ddof=1)) for i in range(b)], axis=0) / r
    within_noise = None
    if _one_partition(x, repeat):  # one repeat: the partition variance from the inner repeats (module docstring)
        within_noise = r * subsample_size / n_examples
        within, df_within = within_noise * noise, float(b * (r - 1))
    if noise_factor is None:
        scale = factor * float(np.trace(noise))
        extra = NOISE_SHARE * float(np.trace(within)) / scale if scale > 0 else 0.0
        noise_factor = 1.0 + min(NOISE_FACTOR - 1.0, extra)
    between = _psd_clip(factor * (raw - noise_factor * noise))
    return MeanCovariance(
        means,
        between + within,
        within,
        between,
        float(b - 1),
        b,
        subsample_size,
        n_examples,
        df_within,
        spread=raw,
        noise=noise,
        df_noise=float(b * (r - 1)),
        factor=factor,
        noise_factor=float(noise_factor),
        within_noise=within_noise,
    )


def _psd_clip(m: np.ndarray) -> np.ndarray:
    """The nearest positive semi-definite matrix (negative eigenvalues set to 0): a variance is never negative."""
    m = (m + m.T) / 2.0
    w, v = np.linalg.eigh(m)
    return (v * np.maximum(w, 0.0)) @ v.T


def half_sampling_ttest(
    a,
    b,
    *,
    half_a,
    half_b,
    n_examples: int,
    subsample_size: int,
    repeat=None,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    noise_factor: float | None = None,
) -> TestResult:
    """t-test of ``E[a - b] = 0`` over data sets: the mean split difference over its half-sampling standard error.

    ``a``, ``b`` -- the J split scores of the two models; ``repeat`` -- the repeat id of each split (None:
    independent replicates); ``half_a``, ``half_b`` -- (B, R) inner scores on B subsamples of ``subsample_size``
    of the ``n_examples`` (module docstring); ``noise_factor`` as in :func:`mean_covariance` (None: the
    adaptive ``k``). ``t = mean(d) / sqrt(between + within)`` on Satterthwaite's
    degrees of freedom (:meth:`MeanCovariance.contrast_df`).
    Effect size: ``d_z = mean(d) / sd(d)`` of the split differences (as the other t-tests). ``extra`` holds
    the two variance terms and the share of the data-sampling term.
    """
    _check_options(alternative, confidence)
    xa = np.asarray(a, dtype=np.float64)
    xb = np.asarray(b, dtype=np.float64)
    if xa.shape != xb.shape or xa.ndim != 1:
        raise ValueError(f"a and b must be 1-D arrays of the same length, got {xa.shape} and {xb.shape}")
    ha, hb = np.asarray(half_a, dtype=np.float64), np.asarray(half_b, dtype=np.float64)
    if ha.shape != hb.shape or ha.ndim != 2:
        raise ValueError(
            f"half_a and half_b must be (subsamples, repeats) arrays of one shape, got {ha.shape}, {hb.shape}"
        )
    mc = mean_covariance(
        (xa - xb)[:, None],
        repeat=repeat,
        half_scores=(ha - hb)[:, :, None],
        n_examples=n_examples,
        subsample_size=subsample_size,
        noise_factor=noise_factor,
    )
    mean = float(mc.means[0])
    var = float(mc.cov[0, 0])
    d = xa - xb
    between = float(mc.between[0, 0]) if mc.between is not None else 0.0
    return t_result(
        "half_sampling_ttest",
        mean,
        float(d.std(ddof=1)),
        float(np.sqrt(var)),
        mc.contrast_df([1.0]),
        alternative,
        confidence,
        {
            "difference": "a - b",
            "variance": "between (delete-d jackknife over subsamples) + within (repeat means)",
            "df": "Satterthwaite over within (repeats - 1, or replicates - 1), the subsets' spread (subsamples - 1) "
            "and their inner noise (subsamples x (inner repeats - 1))",
            "subsample_size": int(subsample_size),
            "n_examples": int(n_examples),
            "ci": f"{confidence:g} confidence interval of E[a - b] over data sets of this size",
            "source": "Shao & Wu (1989) delete-d jackknife; Nadeau & Bengio (2003) variance decomposition",
        },
        {
            "variance_between": between,
            "variance_within": float(mc.within[0, 0]),
            "between_share": between / var if var > 0 else 0.0,
            "n_pairs": int(d.size),
            "n_subsamples": int(ha.shape[0]),
            "inner_repeats": int(ha.shape[1]),
            "noise_factor": float(mc.noise_factor),
        },
    )


def max_t_critical(cov, df: float, alpha: float = 0.05, *, n_sim: int = 20000, seed: int = 0) -> float:
    """The ``1 - alpha`` quantile of ``max_k |T_k|`` (see :func:`max_t_adjusted`): ``estimate +/- c * se`` are
    simultaneous intervals of the family, which cover together -- and so each selected one -- with
    probability ``1 - alpha``."""
    m = np.atleast_2d(np.asarray(cov, dtype=np.float64)).shape[0]
    return float(max_t_adjusted(np.zeros(m), cov, df, n_sim=n_sim, seed=seed, critical=alpha)[0])


def max_t_adjusted(
    estimates, cov, df: float, *, n_sim: int = 20000, seed: int = 0, critical: float | None = None
) -> np.ndarray:
    """Single-step max-t adjusted p-values of a family of contrasts (Hothorn, Bretz & Westfall 2008).

    ``estimates`` -- the m contrast estimates, ``cov`` their m x m covariance, ``df`` its degrees of freedom.
    The adjusted p-value of contrast j is ``P(max_k |T_k| >= |t_j|)`` with ``T`` multivariate t (``df``, the
    contrasts' correlation), by ``n_sim`` seeded Monte-Carlo draws (deterministic for a seed). A contrast
    chosen **after** looking at the data (the best point of a sweep, a model at its best point) is valid at
    level alpha when the family holds every contrast that could have been chosen: the selection happens
    inside the null distribution of the maximum.
    """
    est = np.atleast_1d(np.asarray(estimates, dtype=np.float64))
    c = np.atleast_2d(np.asarray(cov, dtype=np.float64))
    m = est.size
    if c.shape != (m, m):
        raise ValueError(f"cov must be {m} x {m}, got {c.shape}")
    sd = np.sqrt(np.maximum(np.diag(c), 0.0))
    t_obs = np.where(sd > 0, np.abs(est) / np.where(sd > 0, sd, 1.0), np.where(est == 0, 0.0, np.inf))
    ok = sd > 0
    if not ok.any():
        return np.array([0.0]) if critical is not None else np.where(t_obs > 0, 0.0, 1.0)
    corr = c[np.ix_(ok, ok)] / np.outer(sd[ok], sd[ok])
    w, v = np.linalg.eigh((corr + corr.T) / 2.0)
    root = v * np.sqrt(np.maximum(w, 0.0))
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n_sim, int(ok.sum()))) @ root.T
    scale = np.sqrt(rng.chisquare(df, n_sim) / df) if np.isfinite(df) else np.ones(n_sim)
    tmax = np.max(np.abs(z), axis=1) / scale
    tmax.sort()
    if critical is not None:  # the simultaneous (1 - critical) quantile of max |T|, for intervals
        return np.array([float(np.quantile(tmax, 1.0 - critical))])
    exceed = n_sim - np.searchsorted(tmax, t_obs, side="left")  # draws with max |T| >= t_obs
    return np.minimum(1.0, (exceed + 1.0) / (n_sim + 1.0))


@dataclass(frozen=True)
class SelectedContrast:
    """A contrast chosen by the data, tested with the choice redone inside the null (:func:`selected_contrast`).

    ``interval`` is ``[estimate - upper * se, estimate + lower * se]``; ``pvalue`` is the smallest level at which
    that interval excludes 0, so the test and the interval never disagree."""

    estimate: float
    se: float
    statistic: float
    pvalue: float
    interval: tuple[float, float]
    upper: float
    lower: float
    df: float
    n_sim: int


def _null_draws(c: np.ndarray, df: float, maximize: bool, n_sim: int, seed: int) -> np.ndarray:
    """``n_sim`` draws of column means with all means equal: multivariate t (``df``) on the symmetric covariance
    ``c``; negated when the best is the smallest (the mirror image of the same draws)."""
    w, v = np.linalg.eigh(c)
    root = v * np.sqrt(np.maximum(w, 0.0))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_sim, c.shape[0])) @ root.T
    if np.isfinite(df):
        x /= np.sqrt(rng.chisquare(df, n_sim) / df)[:, None]
    return x if maximize else -x


def _selected_draws(cov, df, a_cols, b_cols, maximize: bool, n_sim: int, seed: int) -> np.ndarray:
    """Draws of the selected contrast's t statistic when every column has the same mean (the configuration
    where choosing the best column biases its estimate most): column means ~ multivariate t(``df``, ``cov``),
    the best of ``a_cols`` minus the best of ``b_cols`` over its own standard error."""
    c = np.atleast_2d(np.asarray(cov, dtype=np.float64))
    c = (c + c.T) / 2.0
    x = _null_draws(c, df, maximize, n_sim, seed)
    a, b = np.asarray(a_cols), np.asarray(b_cols)
    pick = np.argmax if maximize else np.argmin
    ia = a[pick(x[:, a], axis=1)]
    ib = b[pick(x[:, b], axis=1)]
    rows = np.arange(n_sim)
    var = c[ia, ia] + c[ib, ib] - 2.0 * c[ia, ib]
    se = np.sqrt(np.maximum(var, 0.0))
    diff = x[rows, ia] - x[rows, ib]
    return np.where(se > 0, diff / np.where(se > 0, se, 1.0), 0.0)


def _selected_bounds(draws_sorted: np.ndarray, df: float, alpha: float) -> tuple[float, float]:
    """(upper, lower) multipliers at level ``alpha``: each side at least Student's ``1 - alpha/2`` quantile (the
    coverage when the choice is clear and selection biases nothing), the side the selection pushes towards
    takes what the other leaves of ``alpha`` under equal means (exact coverage there)."""
    from scipy import stats as st

    n = draws_sorted.size
    tq = float(st.t.ppf(1.0 - alpha / 2.0, df)) if np.isfinite(df) else float(st.norm.ppf(1.0 - alpha / 2.0))
    p_hi = (n - np.searchsorted(draws_sorted, tq, side="right")) / n  # P(T > tq) under equal means
    p_lo = np.searchsorted(draws_sorted, -tq, side="left") / n  # P(T < -tq)
    a_hi, a_lo = alpha / 2.0, alpha / 2.0
    if p_lo < alpha / 2.0 <= p_hi:
        a_hi = alpha - p_lo
    elif p_hi < alpha / 2.0 <= p_lo:
        a_lo = alpha - p_hi
    upper = max(tq, float(np.quantile(draws_sorted, 1.0 - a_hi))) if a_hi > 0 else float(draws_sorted[-1])
    lower = max(tq, -float(np.quantile(draws_sorted, a_lo))) if a_lo > 0 else -float(draws_sorted[0])
    return upper, lower


def selected_contrast(
    means,
    cov,
    df: float,
    a_cols,
    b_cols,
    *,
    maximize: bool = True,
    alpha: float = 0.05,
    n_sim: int = 20000,
    seed: int = 0,
) -> SelectedContrast:
    """Test and interval of ``best(a_cols) - best(b_cols)`` when "best" was chosen on the same data.

    ``means``/``cov`` -- the column means and their covariance (:class:`MeanCovariance`), ``df`` its degrees of
    freedom; ``a_cols``/``b_cols`` -- the candidate columns of each side (a single column: nothing chosen);
    ``maximize`` -- the best is the largest mean (else the smallest). The null distribution of the chosen
    contrast's t statistic is simulated with the choice redone in every draw, all columns equal (the least
    favourable configuration for the selection bias). The interval puts at least Student's quantile on each
    side and gives the side the selection pushes towards the rest of ``alpha``: it covers ``1 - alpha`` when
    all columns are equal, and at least ``1 - alpha`` when the choice is clear (measured in between by
    ``make calibration``). The p-value inverts the interval at 0.
    """
    m = np.asarray(means, dtype=np.float64)
    c = np.atleast_2d(np.asarray(cov, dtype=np.float64))
    a, b = [int(i) for i in a_cols], [int(i) for i in b_cols]
    if not a or not b or set(a) & set(b):
        raise ValueError("a_cols and b_cols must be non-empty and disjoint")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    ia = a[int(np.argmax(m[a]) if maximize else np.argmin(m[a]))]
    ib = b[int(np.argmax(m[b]) if maximize else np.argmin(m[b]))]
    est = float(m[ia] - m[ib])
    se = float(np.sqrt(max(c[ia, ia] + c[ib, ib] - 2.0 * c[ia, ib], 0.0)))
    if len(a) == 1 and len(b) == 1:  # nothing chosen: Student's t
        from scipy import stats as st

        dist = st.t(df) if np.isfinite(df) else st.norm()
        q = float(dist.ppf(1.0 - alpha / 2.0))
        t = est / se if se > 0 else (0.0 if est == 0 else np.inf)
        p = float(2.0 * dist.sf(abs(t))) if se > 0 else (1.0 if est == 0 else 0.0)
        return SelectedContrast(est, se, t, p, (est - q * se, est + q * se), q, q, float(df), 0)
    draws = np.sort(_selected_draws(c, df, a, b, maximize, n_sim, seed))
    upper, lower = _selected_bounds(draws, df, alpha)
    if se == 0.0:
        return SelectedContrast(
            est, 0.0, 0.0 if est == 0 else np.inf, 1.0 if est == 0 else 0.0, (est, est), upper, lower, float(df), n_sim
        )
    t = est / se

    def rejects(level: float) -> bool:
        up, lo = _selected_bounds(draws, df, level)
        return bool(t > up or t < -lo)

    lo_a, hi_a = 0.0, 1.0
    if not rejects(1.0 - 1e-9):
        p = 1.0
    else:
        for _ in range(40):  # the smallest level that rejects (the bounds shrink as the level grows)
            mid = (lo_a + hi_a) / 2.0
            if rejects(mid):
                hi_a = mid
            else:
                lo_a = mid
        p = hi_a
    return SelectedContrast(est, se, t, float(p), (est - upper * se, est + lower * se), upper, lower, float(df), n_sim)


def selected_neighbours(
    means,
    cov,
    df: float,
    *,
    maximize: bool = True,
    n_sim: int = 20000,
    seed: int = 0,
) -> tuple[int, dict[int, float]]:
    """The best of an ordered axis of columns against its neighbours, with the choice redone inside the null.

    ``means``/``cov`` -- the points' mean scores in axis order and their covariance, ``df`` its degrees of
    freedom; ``maximize`` -- the best is the largest mean. Returns the best index and, for each neighbour
    (``best - 1``, ``best + 1`` where they exist), the p-value ``P(max_nb |T*| >= |t_nb|)`` where ``T*`` are the
    t statistics of the best-vs-neighbour contrasts of a draw with all points equal, the best chosen again in
    that draw (the configuration where choosing biases most). The maximum over the neighbours adjusts for
    testing two of them (single-step max-t, Hothorn, Bretz & Westfall 2008).
    """
    m = np.asarray(means, dtype=np.float64)
    c = np.atleast_2d(np.asarray(cov, dtype=np.float64))
    p = m.size
    if c.shape != (p, p):
        raise ValueError(f"cov must be {p} x {p}, got {c.shape}")
    best = int(np.argmax(m) if maximize else np.argmin(m))
    nbs = [j for j in (best - 1, best + 1) if 0 <= j < p]
    if not nbs:
        return best, {}
    c = (c + c.T) / 2.0
    x = _null_draws(c, df, maximize, n_sim, seed)
    diag = np.diag(c)
    rows = np.arange(n_sim)
    bstar = np.argmax(x, axis=1)
    tmax = np.zeros(n_sim)
    for step in (-1, 1):
        nb = bstar + step
        ok = (nb >= 0) & (nb < p)
        nbc = np.clip(nb, 0, p - 1)
        var = diag[bstar] + diag[nbc] - 2.0 * c[bstar, nbc]
        se = np.sqrt(np.maximum(var, 0.0))
        t = np.where(ok & (se > 0), np.abs(x[rows, bstar] - x[rows, nbc]) / np.where(se > 0, se, 1.0), 0.0)
        tmax = np.maximum(tmax, t)
    tmax.sort()
    out = {}
    for j in nbs:
        var = c[best, best] + c[j, j] - 2.0 * c[best, j]
        diff = abs(m[best] - m[j])
        t_obs = diff / np.sqrt(var) if var > 0 else (0.0 if diff == 0 else np.inf)
        exceed = n_sim - np.searchsorted(tmax, t_obs, side="left")
        out[j] = float(min(1.0, (exceed + 1.0) / (n_sim + 1.0)))
    return best, out
