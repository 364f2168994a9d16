"""Bayesian comparisons with a region of practical equivalence (Benavoli et al. 2017).

Benavoli, Corani, Demsar & Zaffalon (2017), "Time for a change: a tutorial for comparing
multiple classifiers through Bayesian analysis", JMLR 18(77).  Instead of a p-value these
return the posterior probabilities that the difference ``a - b`` lies left of, inside, or right
of the **ROPE** ``[-rope, rope]`` (a difference too small to matter, in the units of the
scores; Benavoli et al. use 0.01 for accuracies).  Read ``p_right > 0.95`` as "a is practically
better", ``p_rope > 0.95`` as "practically equivalent" -- a conclusion no p-value can give.

* :func:`bayesian_correlated_ttest` -- two models on one data set, scores from (repeated)
  cross-validation.  The posterior of the mean difference is Student t with ``n - 1`` df,
  location ``mean(d)`` and scale ``sqrt((1/n + rho/(1 - rho)) var(d))`` (``var`` with ddof=1;
  Corani & Benavoli 2015), where ``rho`` is the correlation between the split scores,
  set to ``n_test / (n_train + n_test)`` (Nadeau & Bengio's heuristic; ``rho/(1-rho) =
  n_test/n_train``, so the posterior's scale is the corrected resampled t-test's standard
  error and ``p_right`` with ``rope = 0`` is that test's one-sided p-value for "less").
  Zero variance: the posterior is a point mass at ``mean(d)`` (probabilities 0/1; a mean on
  the ROPE's edge counts as inside).
* :func:`bayesian_signed_rank` -- two models on N data sets (one score each).  Posterior of a
  Dirichlet process with prior strength ``s`` (``prior_strength``, 0.5 by default as in
  Benavoli et al.) concentrated on a pseudo-observation ``z_0 = 0``: the weights of
  ``(z_0, z_1, ..., z_N)`` are ``Dirichlet(s, 1, ..., 1)``, and a draw gives
  ``theta_left = sum_ij w_i w_j 1[z_i + z_j < -2 rope]``, ``theta_rope`` (``|z_i + z_j| <= 2
  rope``) and ``theta_right`` (``> 2 rope``), the sums over all ordered pairs i, j including
  i = j.  Reported probabilities are the fractions of ``n_samples`` Monte-Carlo draws in which
  each theta is the largest (the quantity baycomp reports; ties go to the left-most region),
  with the draws from ``numpy.random.default_rng(seed).dirichlet``; ``extra`` holds the
  posterior means of the thetas.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, fields

import numpy as np

from ._resample import check_resamples, check_seed
from ._result import to_jsonable
from ._tdist import t_cdf, t_ppf, t_sf
from .effect_sizes import paired_differences

__all__ = ["BayesianResult", "bayesian_correlated_ttest", "bayesian_signed_rank", "bayesian_t_posterior"]


@dataclass
class BayesianResult:
    """Posterior probabilities ``p_left`` (``a - b < -rope``), ``p_rope`` and ``p_right``
    (``a - b > rope``), summing to 1, with the ``rope``; ``posterior_mean`` of the difference (or
    of the thetas' argument for the signed-rank test), a ``credible_interval`` where defined,
    ``conventions`` and ``extra``.  Not a frequentist test: there is no p-value."""

    test: str
    p_left: float
    p_rope: float
    p_right: float
    rope: float
    posterior_mean: float | None = None
    credible_interval: tuple[float, float] | None = None
    conventions: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def probabilities(self) -> tuple[float, float, float]:
        return (self.p_left, self.p_rope, self.p_right)

    def to_dict(self) -> dict:
        return {f.name: to_jsonable(getattr(self, f.name)) for f in fields(self)}


def _check_rope(rope) -> float:
    if isinstance(rope, bool) or not isinstance(rope, numbers.Real) or not np.isfinite(float(rope)) or float(rope) < 0:
        raise ValueError(f"rope must be a finite number >= 0 (half-width, in score units), got {rope!r}")
    return float(rope)


def _check_credibility(credibility: float) -> None:
    if isinstance(credibility, bool) or not isinstance(credibility, numbers.Real) or not 0 < credibility < 1:
        raise ValueError(f"credibility must lie in (0, 1), got {credibility!r}")


def _split_t_posterior(mean: float, scale: float, df: float, rope: float, credibility: float):
    """(P(< -rope), P(> rope), central credible interval) of the Student-t posterior ``t(df, mean, scale)``;
    a zero scale is a point mass at ``mean`` (a mean on the ROPE's edge counts as inside)."""
    if scale <= 0:
        return float(mean < -rope), float(mean > rope), (mean, mean)
    lo, hi = (1.0 - credibility) / 2.0, (1.0 + credibility) / 2.0  # the central interval, as t.interval
    return (
        t_cdf(-rope, df, mean, scale),
        t_sf(rope, df, mean, scale),
        (t_ppf(lo, df, mean, scale), t_ppf(hi, df, mean, scale)),
    )


def _rho(rho, n_train, n_test, j: int) -> float:
    if rho is not None:
        if n_train is not None or n_test is not None:
            raise ValueError("give either rho or n_train and n_test, not both")
        if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not 0 <= float(rho) < 1:
            raise ValueError(f"rho must lie in [0, 1), got {rho!r}")
        return float(rho)
    if n_train is None or n_test is None:
        raise ValueError(
            "the correlation rho is needed: pass rho=, or n_train= and n_test= (rho = n_test / (n_train + n_test))"
        )
    tr = np.broadcast_to(np.asarray(n_train, dtype=np.float64), (j,))
    te = np.broadcast_to(np.asarray(n_test, dtype=np.float64), (j,))
    if np.any(tr <= 0) or np.any(te <= 0) or not (np.all(np.isfinite(tr)) and np.all(np.isfinite(te))):
        raise ValueError("n_train and n_test must be positive and finite")
    return float(np.mean(te / (tr + te)))


def bayesian_correlated_ttest(
    a, b=None, *, rho=None, n_train=None, n_test=None, rope: float = 0.01, credibility: float = 0.95
) -> BayesianResult:
    """Bayesian correlated t-test on J paired split scores (see the module docstring).

    ``a``: scores of model A (``b`` those of B) or the differences (``b`` None).  ``rho`` or
    ``n_train``/``n_test`` (numbers or per-split arrays; the mean of per-split
    ``n_test/(n_train + n_test)`` is used).  ``credible_interval``: the central ``credibility``
    interval of the posterior of the mean difference.
    """
    rope = _check_rope(rope)
    _check_credibility(credibility)
    if b is None:
        d = paired_differences(a, np.zeros(np.asarray(a).shape))
    else:
        d = paired_differences(a, b)
    j = d.size
    r = _rho(rho, n_train, n_test, j)
    mean = float(d.mean())
    var = float(d.var(ddof=1)) if np.ptp(d) > 0 else 0.0  # constant d: exactly 0, not rounding noise
    scale = float(np.sqrt((1.0 / j + r / (1.0 - r)) * var))
    df = float(j - 1)
    p_left, p_right, ci = _split_t_posterior(mean, scale, df, rope, credibility)
    p_rope = max(0.0, 1.0 - p_left - p_right)
    return BayesianResult(
        test="bayesian_correlated_ttest",
        p_left=p_left,
        p_rope=p_rope,
        p_right=p_right,
        rope=rope,
        posterior_mean=mean,
        credible_interval=ci,
        conventions={
            "difference": "a - b",
            "posterior": "Student t(n-1, mean(d), sqrt((1/n + rho/(1-rho)) var(d)))",
            "rho": "given" if rho is not None else "n_test / (n_train + n_test)",
            "zero_variance": "point mass at mean(d); a mean on the ROPE edge counts as inside",
            "source": "Benavoli et al. (2017); Corani & Benavoli (2015)",
        },
        extra={"rho": r, "df": df, "scale": scale, "n_splits": int(j)},
    )


def bayesian_signed_rank(
    a,
    b=None,
    *,
    rope: float = 0.01,
    prior_strength: float = 0.5,
    n_samples: int = 50000,
    seed: int = 0,
) -> BayesianResult:
    """Bayesian signed-rank test on N paired scores (one per data set; see the module docstring)."""
    rope = _check_rope(rope)
    if isinstance(prior_strength, bool) or not isinstance(prior_strength, numbers.Real) or not prior_strength > 0:
        raise ValueError(f"prior_strength must be a number > 0, got {prior_strength!r}")
    seed = check_seed(seed)
    n_samples = check_resamples(n_samples)
    if b is None:
        d = paired_differences(a, np.zeros(np.asarray(a).shape), min_size=1)
    else:
        d = paired_differences(a, b, min_size=1)
    z = np.concatenate([[0.0], d])
    alpha = np.concatenate([[float(prior_strength)], np.ones(d.size)])
    w = np.random.default_rng(seed).dirichlet(alpha, n_samples)  # (S, N+1)
    pair_sum = z[:, None] + z[None, :]
    masks = (pair_sum < -2 * rope, np.abs(pair_sum) <= 2 * rope, pair_sum > 2 * rope)
    thetas = _signed_rank_thetas(w, z, masks)
    winner = np.argmax(thetas, axis=1)
    p = np.bincount(winner, minlength=3) / n_samples
    return BayesianResult(
        test="bayesian_signed_rank",
        p_left=float(p[0]),
        p_rope=float(p[1]),
        p_right=float(p[2]),
        rope=rope,
        posterior_mean=None,
        credible_interval=None,
        conventions={
            "difference": "a - b",
            "prior": f"Dirichlet process, strength {prior_strength:g}, pseudo-observation at 0",
            "probabilities": "fraction of posterior draws in which the region's theta is the largest",
            "sampling": "numpy.random.default_rng(seed).dirichlet([s, 1, ..., 1], n_samples)",
            "source": "Benavoli et al. (2014, 2017)",
        },
        extra={
            "theta_mean": [float(v) for v in thetas.mean(axis=0)],
            "n_samples": n_samples,
            "seed": seed,
            "n": int(d.size),
            "prior_strength": float(prior_strength),
        },
    )


#: a draw whose two largest thetas are closer than this is decided by the explicit double sum (see below)
_NEAR_TIE = 1e-9


def _signed_rank_thetas(w: np.ndarray, z: np.ndarray, masks: tuple) -> np.ndarray:
    """``theta_k = w' M_k w`` for every draw (rows of ``w``), in O(S N) instead of O(S N^2).

    ``z_i + z_j`` is non-decreasing in ``z_j`` (floating-point addition is monotone), so in the order of ``z`` row
    i of the left mask is a prefix (``lo[i]`` long), of the right mask a suffix (``hi[i]`` long) and the ROPE's the
    rest: each ``(M_k w)_i`` is a difference of two cumulative sums of the sorted weights. The result equals the
    explicit double sum up to rounding (~1e-16); a draw whose two largest thetas lie within ``_NEAR_TIE`` of each
    other could be decided differently by that rounding, so then the explicit double sum (``w @ M_k``, as before
    this shortcut) decides every draw, and the reported fractions are those of the double sum in every case.
    """
    left_m, _, right_m = masks
    n1 = z.size
    order = np.argsort(z, kind="stable")
    lo = left_m.sum(axis=1)
    hi = right_m.sum(axis=1)
    wt = np.ascontiguousarray(w.T)  # (N+1, S): the gathers below take whole rows
    cum = np.zeros((n1 + 1, w.shape[0]))
    np.cumsum(wt[order], axis=0, out=cum[1:])
    below = cum[lo]  # row i: the weight of the j with z_i + z_j < -2 rope, in every draw
    upto = cum[n1 - hi]  # ... with z_i + z_j <= 2 rope
    thetas = np.stack(
        [(wt * below).sum(axis=0), (wt * (upto - below)).sum(axis=0), (wt * (cum[n1] - upto)).sum(axis=0)], axis=1
    )
    top2 = np.sort(thetas, axis=1)[:, 1:]
    if np.any(top2[:, 1] - top2[:, 0] < _NEAR_TIE):  # a near-tie for the largest: the explicit double sum
        thetas = np.stack([((w @ m.astype(np.float64)) * w).sum(axis=1) for m in masks], axis=1)
    return thetas


def bayesian_t_posterior(
    mean: float, standard_error: float, df: float, *, rope: float = 0.01, credibility: float = 0.95, source: str = ""
) -> BayesianResult:
    """The Student-t posterior ``t(df, mean, standard_error)`` of a mean difference, split at the ROPE.

    The Bayesian correlated t-test is this posterior with the corrected resampled standard error (Corani &
    Benavoli 2015); given the half-sampling standard error and its df (:mod:`.halfsampling`) it is the same
    analysis with the data-sampling variance estimated instead of assumed, so the Bayesian and frequentist
    verdicts on a pair rest on one standard error. ``source`` names where the standard error came from.
    """
    rope = _check_rope(rope)
    _check_credibility(credibility)
    mean, se, df = float(mean), float(standard_error), float(df)
    if not (np.isfinite(mean) and np.isfinite(se) and se >= 0 and df > 0):
        raise ValueError(f"need a finite mean, a standard error >= 0 and df > 0, got {mean}, {se}, {df}")
    p_left, p_right, ci = _split_t_posterior(mean, se, df, rope, credibility)
    return BayesianResult(
        test="bayesian_t_posterior",
        p_left=p_left,
        p_rope=max(0.0, 1.0 - p_left - p_right),
        p_right=p_right,
        rope=rope,
        posterior_mean=mean,
        credible_interval=ci,
        conventions={"difference": "a - b", "posterior": f"Student t(df, mean, se); se from {source or 'the caller'}"},
        extra={"df": df, "standard_error": se},
    )
