"""The sign-flip (randomization) test of paired replicate differences: exact, or exact up to Monte-Carlo error.

Two runs of one experiment, A and B, score a model on the **same** replicates (the same data, the same splits,
paired by replicate). If the change from A to B touched only the learners' randomness -- a new random stream, a
new seed per replicate, a refactor -- the two fits on replicate ``r`` are exchangeable, and fits on different
replicates are independent given the splits (every replicate draws its own seed). Under that null each
difference ``d_r = b_r - a_r`` is as likely to carry either sign, independently of the others, and the
randomization distribution of ``S = sum_r d_r`` over the ``2^n`` sign patterns is the exact null distribution of
``S`` given the data and the splits (Fisher 1935 §21; Good 2005 §3.1). That overlapping training sets share
examples does not matter: A and B train on the same sets, and nothing is assumed about how the splits relate to
each other or to a population of datasets. The question is conditional -- *on this dataset, with these splits* --
which is the one a regression gate between two runs asks.

The p-value of ``S`` (``p = P(|S*| >= |S|)`` two-sided; ``S* >= S`` for "greater", ``S* <= S`` for "less") is
computed, in this order:

* **closed form** when every non-zero ``d_r`` has the same size (e.g. one example more or fewer right on folds of
  equal size): ``S* = u (2B - k)`` with ``B ~ Binomial(k, 1/2)`` over the ``k`` non-zero differences -- a binomial
  tail (:func:`replearn.stats.permutation._closed_form_pvalue`);
* **exact enumeration** of the ``2^k`` sign patterns when ``k <= 12`` (cheaper than the lattice below);
* **exact on a lattice** when every ``d_r`` is an integer multiple of a known ``unit`` (a count metric: accuracy
  or error on test folds of sizes ``n_r`` is a multiple of ``1 / lcm(n_r)``): the distribution of ``S*`` is the
  convolution, over the distinct sizes ``w`` of ``|d_r| / unit`` with multiplicity ``c``, of ``w (2B - c)`` with
  ``B ~ Binomial(c, 1/2)`` -- computed on the integer lattice, no enumeration and no Monte-Carlo error
  (:func:`lattice_pvalue`);
* **exact enumeration** of the ``2^k`` sign patterns of the ``k`` non-zero differences, when ``k <= 20``
  (zeros carry no sign);
* otherwise **approximate randomization**: ``n_resamples`` random sign patterns from ``seed`` (the bytes of
  :func:`replearn.stats.permutation._swapped_sums`), and the add-one p-value ``(1 + count) / (n_resamples + 1)``,
  which is a valid p-value for any number of draws (Phipson & Smyth 2010).

Ties within 100 machine epsilons of ``|S|`` (relative) count as at least as extreme, as in
:func:`replearn.stats.permutation_test`. The interval reported beside the test is Student's t interval of the
mean difference over the replicates (independent given the splits, so it is valid for the mean over these
splits; with a non-zero mean per replicate it is conservative), and :func:`shifted_ttest` gives the one-sided
t-tests of a margin ``delta`` (non-inferiority, and "worse by more than delta"; Schuirmann 1987's two one-sided
tests for equivalence).
"""

from __future__ import annotations

import math

import numpy as np

from ._resample import check_seed
from ._result import TestResult
from .bootstrap import ALTERNATIVES, _as_extreme
from .permutation import _closed_form_pvalue, _swap_masks, _swapped_sums

__all__ = [
    "ENUMERATE_MAX_K",
    "LATTICE_MAX_RANGE",
    "lattice_pvalue",
    "lattice_unit",
    "shifted_ttest",
    "sign_flip_maxt",
    "sign_flip_test",
]

#: the largest number of non-zero differences whose 2^k sign patterns are enumerated
ENUMERATE_MAX_K = 20
#: up to this many non-zero differences enumeration is cheaper than the lattice (2^12 patterns)
ENUMERATE_FIRST_K = 12
#: the largest lattice range (sum of |d_r| / unit) whose distribution is computed exactly
LATTICE_MAX_RANGE = 4_000_000
#: the largest common denominator :func:`lattice_unit` proposes
LATTICE_MAX_DENOMINATOR = 10_000_000


def lattice_unit(sizes) -> float | None:
    """``1 / lcm(sizes)``: the unit of which a difference of two count metrics (accuracy, error) on test sets of
    these sizes is an integer multiple; None when there are no sizes or the least common multiple exceeds
    :data:`LATTICE_MAX_DENOMINATOR`."""
    sizes = [int(s) for s in (sizes if sizes is not None else ())]
    if not sizes or min(sizes) <= 0:
        return None
    m = 1
    for s in sizes:
        m = m * s // math.gcd(m, s)
        if m > LATTICE_MAX_DENOMINATOR:
            return None
    return 1.0 / m


def _on_lattice(d: np.ndarray, unit: float | None) -> np.ndarray | None:
    """``d / unit`` as int64 when every value is within 1e-6 of an integer multiple of ``unit``; else None."""
    if unit is None or not unit > 0:
        return None
    scaled = d / unit
    ints = np.rint(scaled)
    if not np.all(np.abs(scaled - ints) <= 1e-6 * np.maximum(1.0, np.abs(scaled))):
        return None
    if np.abs(ints).sum() > LATTICE_MAX_RANGE:
        return None
    return ints.astype(np.int64)


def lattice_pvalue(m: np.ndarray, alternative: str = "two-sided") -> float:
    """The exact sign-flip p-value of ``S = sum(m)`` for integer differences ``m`` (module docstring).

    The distribution of ``S*`` over all ``2^n`` sign patterns is built on the integer lattice ``[-R, R]``,
    ``R = sum |m|``: for every distinct size ``w`` with multiplicity ``c`` the running distribution is convolved
    with the ``c + 1`` points ``w (2j - c)`` of weight ``C(c, j) / 2^c``."""
    from scipy import special  # lazily, as the rest of stats

    m = np.asarray(m, dtype=np.int64)
    s = int(m.sum())
    sizes, counts = np.unique(np.abs(m[m != 0]), return_counts=True)
    r = int(np.abs(m).sum())
    if r == 0:
        return 1.0
    pmf = np.zeros(2 * r + 1)
    pmf[r] = 1.0
    lo = hi = r  # the support of the running distribution: pmf[lo:hi + 1]
    for w, c in zip(sizes.tolist(), counts.tolist()):
        j = np.arange(c + 1)
        weights = np.exp(special.gammaln(c + 1) - special.gammaln(j + 1) - special.gammaln(c - j + 1) - c * np.log(2))
        new = np.zeros_like(pmf)
        width = hi - lo + 1
        for jj, wt in zip(j.tolist(), weights.tolist()):
            shift = w * (2 * jj - c)
            new[lo + shift : lo + shift + width] += wt * pmf[lo : hi + 1]
        lo, hi = lo - w * c, hi + w * c
        pmf = new
    values = np.arange(-r, r + 1)
    if alternative == "two-sided":
        p = pmf[np.abs(values) >= abs(s)].sum()
    elif alternative == "greater":
        p = pmf[values >= s].sum()
    else:
        p = pmf[values <= s].sum()
    return float(min(1.0, max(0.0, p)))


def sign_flip_test(
    d,
    *,
    alternative: str = "two-sided",
    unit: float | None = None,
    n_resamples: int = 199_999,
    seed: int = 0,
    confidence: float = 0.95,
) -> TestResult:
    """Sign-flip test of ``mean(d) = 0`` for paired replicate differences ``d`` (module docstring).

    ``unit``: the lattice unit of ``d`` when known (:func:`lattice_unit` of the test-set sizes for accuracy or
    error), for the exact lattice p-value. ``n_resamples`` and ``seed``: the random sign patterns when no exact
    method applies. Returns a :class:`TestResult` with ``statistic`` = the mean difference, ``effect_size`` =
    Cohen's ``d_z``, ``ci`` = Student's t interval of the mean at ``confidence``, and in ``extra`` the method, the
    number of non-zero differences, the standard error and the degrees of freedom."""
    from .ttests import paired_ttest

    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"d must be a 1-D array of at least 2 differences, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("d contains NaN or infinite values")
    seed = check_seed(seed)
    n = d.size
    nonzero = d[d != 0.0]
    k = int(nonzero.size)
    total = float(d.sum())
    lattice = _on_lattice(nonzero, unit) if k else None
    if k == 0:
        p, method = 1.0, "no non-zero difference: p = 1"
    elif np.all(np.abs(nonzero) == np.abs(nonzero[0])):
        signs = np.sign(nonzero)
        p, _ = _closed_form_pvalue(signs, alternative)
        method = "exact (closed form: every non-zero difference of one size; a binomial tail)"
    elif lattice is not None and k > ENUMERATE_FIRST_K:
        p = lattice_pvalue(lattice, alternative)
        method = "exact on the lattice of the test-set sizes (convolution of binomial sign counts)"
    elif k <= ENUMERATE_MAX_K:
        masks = _swap_masks(k, True, 0, 0)
        t_star = nonzero.sum() - 2.0 * (masks @ nonzero)
        p = _as_extreme(t_star, float(nonzero.sum()), alternative) / masks.shape[0]
        method = f"exact enumeration of the 2^{k} sign patterns of the non-zero differences"
    else:
        t_star = nonzero.sum() - 2.0 * _swapped_sums(nonzero, n_resamples, seed)
        p = (_as_extreme(t_star, float(nonzero.sum()), alternative) + 1.0) / (n_resamples + 1.0)
        method = f"approximate randomization ({n_resamples} random sign patterns, add-one p-value)"
    t = paired_ttest(d, np.zeros(n), alternative="two-sided", confidence=confidence)
    return TestResult(
        test="sign_flip",
        statistic=total / n,
        pvalue=float(min(1.0, p)),
        df=float(n - 1),
        effect_size=t.effect_size,
        effect_size_name="cohens_dz",
        ci=t.ci,
        alternative=alternative,
        conventions={
            "difference": "d = b - a per replicate",
            "statistic": "mean(d); its sign-flip distribution over the 2^n patterns",
            "method": method,
            "two_sided": "|S*| >= |S|",
            "ci": f"{confidence:g} Student t interval of mean(d) over the replicates",
        },
        extra={
            "n": int(n),
            "n_nonzero": k,
            "exact": not method.startswith("approximate"),
            "seed": seed if method.startswith("approximate") else None,
            "n_resamples": n_resamples if method.startswith("approximate") else None,
            "standard_error": t.extra["standard_error"],
            "sd_difference": t.extra["sd_difference"],
        },
    )


def shifted_ttest(d, shift: float, alternative: str) -> float:
    """The one-sided Student t p-value of ``mean(d) > shift`` ("greater") or ``mean(d) < shift`` ("less") over the
    replicates: a margin's non-inferiority or "beyond the margin" test (two of them make Schuirmann's 1987 test of
    equivalence). Zero variance follows :mod:`replearn.stats.ttests`' convention (p 0 or 1 by the sign)."""
    from .ttests import _t_pvalue

    if alternative not in ("greater", "less"):
        raise ValueError(f"alternative must be 'greater' or 'less', got {alternative!r}")
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"d must be a 1-D array of at least 2 differences, got shape {d.shape}")
    mean = float(d.mean()) - float(shift)
    se = float(d.std(ddof=1)) / math.sqrt(d.size)
    if se > 0:
        return _t_pvalue(mean / se, float(d.size - 1), alternative)
    if mean == 0:
        return 1.0
    return 0.0 if (mean > 0) == (alternative == "greater") else 1.0


def sign_flip_maxt(groups, *, n_resamples: int = 9999, seed: int = 0) -> list[np.ndarray]:
    """Family-wise adjusted p-values of many sign-flip tests at once, by the step-down maxT procedure over their
    joint randomization distribution (Westfall & Young 1993, Algorithm 4.1): Holm's step-down with the dependence
    between the tests used instead of bounded.

    ``groups``: one ``(k, n)`` array per group of tests that share their replicates -- one model's metrics, whose
    ``k`` difference vectors come from the same fits on the same ``n`` replicates, so that swapping A and B on a
    replicate flips all ``k`` together; groups flip independently (other fits). Each test's statistic is
    ``|sum d| / ||d||`` (the standardized sum, the same ordering as :func:`sign_flip_test`'s). ``n_resamples``
    random sign patterns per group (from ``seed`` and the group's position), the add-one rule for every step, and
    monotone in the order of the observed statistics. A row of zeros (nothing changed) gets p = 1 and takes no
    part. Returns the adjusted p-values, one array per group in its rows' order.

    Valid whenever the null of each group holds (its fits exchangeable on every replicate), whatever the other
    groups do (subset pivotality: a group's flips touch only its own tests)."""
    seed = check_seed(seed)
    mats = [np.atleast_2d(np.asarray(g, dtype=np.float64)) for g in groups]
    sizes = [m.shape[0] for m in mats]
    total = sum(sizes)
    out = [np.ones(k) for k in sizes]
    if total == 0:
        return out
    norms = [np.sqrt((m * m).sum(axis=1)) for m in mats]
    obs = np.concatenate(
        [np.where(nr > 0, np.abs(m.sum(axis=1)) / np.where(nr > 0, nr, 1.0), 0.0) for m, nr in zip(mats, norms)]
    )
    live = np.concatenate([nr > 0 for nr in norms])
    star = np.zeros((n_resamples, total), dtype=np.float32)
    col = 0
    for g, (m, nr) in enumerate(zip(mats, norms)):
        signs = np.random.default_rng([seed, g]).integers(0, 2, size=(n_resamples, m.shape[1]), dtype=np.int8)
        flips = (2 * signs - 1).astype(np.float32)
        safe = np.where(nr > 0, nr, 1.0)
        star[:, col : col + m.shape[0]] = np.abs(flips @ (m.T / safe).astype(np.float32))
        col += m.shape[0]
    idx = np.flatnonzero(live)
    order = idx[np.argsort(-obs[idx], kind="stable")]
    tol = 1e-5  # the float32 sums: ties with the observed statistic count as at least as extreme
    running = np.zeros(n_resamples, dtype=np.float32)
    adjusted = np.ones(total)
    for j in order[::-1]:  # from the least significant up: the maximum over every test ranked at or below j
        np.maximum(running, star[:, j], out=running)
        adjusted[j] = (1.0 + np.count_nonzero(running >= obs[j] * (1 - tol) - tol)) / (n_resamples + 1.0)
    prev = 0.0
    for j in order:  # monotone: a test ranked lower never gets a smaller adjusted p
        prev = adjusted[j] = max(adjusted[j], prev)
    col = 0
    for g, k in enumerate(sizes):
        out[g] = adjusted[col : col + k].copy()
        col += k
    return out
