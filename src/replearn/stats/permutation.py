"""Paired permutation test (approximate randomization) for two models on one shared test set.

Under H0 the two models are exchangeable on every example, so swapping the pair
``(a_i, b_i)`` -- the scores, or the predictions -- of any subset of examples gives an equally
likely data set (Noreen 1989; Yeh 2000 for non-decomposable metrics such as F).  With
``T = T(a) - T(b)``:

* **exact** enumeration of all ``2^n`` swap patterns (the observed one included):
  ``p = #{|T*| >= |T|} / 2^n`` -- used when ``exact=True`` (n <= 20), or with ``exact="auto"``
  when ``2^n <= n_resamples``;
* **closed form** (``exact="auto"`` when enumeration is not chosen): when every per-example difference
  is -1, 0 or +1 (a 0/1 score such as accuracy or error, in scores or predictions mode), the ``m``
  non-zero differences get independent fair signs over all ``2^n`` patterns, so the exact p-value is a
  binomial tail (:func:`_closed_form_pvalue`; two-sided it equals McNemar's exact test on the same examples) --
  no Monte Carlo error, and no resampling;
* **approximate randomization**: ``n_resamples`` random patterns, each example swapped with
  probability 1/2, and the add-one p-value ``p = (1 + #{|T*| >= |T|}) / (n_resamples + 1)``
  (Phipson & Smyth 2010), which is a valid p-value for any number of resamples and never 0. The
  patterns are random bits: row r is ``default_rng(seed).bytes(n_resamples * ceil(n / 8))`` cut
  into rows of ``ceil(n / 8)`` bytes, and example ``8 j + k`` is swapped when bit ``k`` (least
  significant first) of byte ``j`` is set (:func:`_swap_masks`).

For a mean of per-example differences ``d`` (scores, or a metric that is a mean over examples such
as accuracy), ``T* = (sum d - 2 s) / n`` with ``s`` the sum of the swapped ``d_i``; ``s`` is read
from the random bytes without forming the patterns: a table holds, for each byte position ``j`` and
each of the 256 byte values, the sum of the ``d_i`` its set bits select, and ``s`` is one table
look-up per byte (:func:`_swapped_sums`; 8 times fewer operations than the pattern matrix times
``d``, and no matrix of patterns: the benchmark's 2,838 pair tests took 20 s that way). Bytes whose examples
all have ``d_i = 0`` are skipped, and integral ``d`` (0/1 scores) are summed in exact integer arithmetic,
compiled for large tests; a non-integral ``d`` is summed in floating point, so its last bits follow numpy's
summation order.

One-sided: ``T* >= T`` ("greater": ``a`` larger) or ``T* <= T`` ("less").  Values within 100
machine epsilons of ``|T|`` (relative) count as ties with it, as in ``scipy.stats.permutation_test``.
Swapping every example negates T, so the permutation distribution is symmetric and the
two-sided exact p-value equals SciPy's ``2 min(p_less, p_greater)``.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, jit_available
from ._resample import check_seed, per_example
from ._result import TestResult
from .bootstrap import ALTERNATIVES, _as_extreme, _paired_statistic, _resamples
from .effect_sizes import cohens_dz

__all__ = ["EXACT_MAX_N", "permutation_test"]

EXACT_MAX_N = 20


def _swap_bytes(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """The random swap patterns as bytes, ``(n_resamples, ceil(n / 8))`` (module docstring)."""
    width = -(-n // 8)
    return np.frombuffer(np.random.default_rng(seed).bytes(n_resamples * width), dtype=np.uint8).reshape(
        n_resamples, width
    )


def _swap_masks(n: int, exact: bool, n_resamples: int, seed: int) -> np.ndarray:
    """The swap patterns as a boolean ``(patterns, n)`` matrix: all ``2^n`` when ``exact``, else the random ones."""
    if exact:
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        return ((codes >> np.arange(n)) & 1).astype(bool)
    bits = np.unpackbits(_swap_bytes(n, n_resamples, seed), axis=1, count=n, bitorder="little")
    return bits.astype(bool)


_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float64)  # value -> its 8 bits, low first

#: table look-ups (resamples x byte columns) from which the compiled loop pays for importing numba (~0.4 s)
COMPILED_MIN_LOOKUPS = 300_000


@jit
def _integer_table_sums(table: np.ndarray, codes: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``sum_j table[j, codes[r, cols[j]]]`` for every row ``r`` of ``codes``, in 64-bit integers (exact)."""
    out = np.empty(codes.shape[0], dtype=np.int64)
    for r in range(codes.shape[0]):
        s = 0
        for j in range(cols.shape[0]):
            s += table[j, codes[r, cols[j]]]
        out[r] = s
    return out


def _swapped_sums(d: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """``_swap_masks(n, False, n_resamples, seed) @ d`` by one table look-up per byte (module docstring).

    A byte whose eight examples all have ``d = 0`` (both models right, or both wrong) adds nothing and is
    skipped. Integral differences (a 0/1 score such as accuracy, the common case) are summed in integers,
    exactly, so the order of the additions cannot matter; for large tests that loop is compiled
    (:func:`replearn._jit.jit`), with the same result as numpy's."""
    n = d.shape[0]
    codes = _swap_bytes(n, n_resamples, seed)
    padded = np.zeros(8 * codes.shape[1])
    padded[:n] = d
    table = padded.reshape(-1, 8) @ _BYTE_BITS.T  # (bytes, 256): the sum of d over the bits of each value
    cols = np.flatnonzero(np.any(table != 0.0, axis=1))
    table = table[cols]
    largest = np.abs(table).max() if table.size else 0.0
    if table.size and largest < 2**31 and np.all(table == np.trunc(table)):
        # the smallest integers that hold the table: a 0/1 score's entries are within +/-8, and an int16 table
        # of a 20,000-example test set (600 kB) stays in cache where an int64 one does not (15 ms vs 57 ms)
        itable = np.ascontiguousarray(table, dtype=np.int16 if largest < 2**15 else np.int64)
        if n_resamples * cols.size >= COMPILED_MIN_LOOKUPS and jit_available():
            return _integer_table_sums(itable, codes, cols).astype(np.float64)
        return itable[np.arange(cols.size), codes[:, cols]].sum(axis=1, dtype=np.int64).astype(np.float64)
    return table[np.arange(cols.size), codes[:, cols]].sum(axis=1)


def permutation_test(
    a,
    b,
    *,
    statistic="mean",
    y_true=None,
    metric=None,
    n_resamples: int = 9999,
    seed: int = 0,
    exact="auto",
    alternative: str = "two-sided",
    classes=None,
) -> TestResult:
    """Paired permutation test of ``T(a) = T(b)`` (see the module docstring).

    Modes as in :func:`replearn.stats.paired_bootstrap_test`: per-example scores with
    ``statistic`` ("mean", "median", or a vectorized callable), or predictions with ``y_true``
    and a ``metric`` (callable or name).  ``exact``: "auto", True or False.  ``effect_size``:
    Cohen's ``d_z`` for the mean of scores, else the observed difference ``T``.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {list(ALTERNATIVES)}, got {alternative!r}")
    if exact not in ("auto", True, False):
        raise ValueError(f"exact must be 'auto', True or False, got {exact!r}")
    seed = check_seed(seed)
    n = np.asarray(a).shape[0] if np.ndim(a) else 0
    n_resamples = _resamples(n_resamples, n=max(n, 1))
    if exact is True and n > EXACT_MAX_N:
        raise ValueError(f"exact enumeration of 2^n swaps is limited to n <= {EXACT_MAX_N}, got n = {n}")
    use_exact = exact is True or (exact == "auto" and n <= EXACT_MAX_N and 2**n <= n_resamples)

    pa, pb = np.asarray(a), np.asarray(b)
    delta_of = _paired_statistic(pa, pb, statistic, y_true, metric, classes)
    t_obs = float(delta_of(np.arange(n)[None, :])[0])
    d = _mean_differences(pa, pb, statistic, y_true, metric)
    closed = exact == "auto" and not use_exact and d is not None and _signs_only(d)
    counted: dict[str, int | bool | None]
    if closed:
        assert d is not None
        p, m = _closed_form_pvalue(d, alternative)
        how = {
            "method": "exact (closed form: differences in {-1, 0, +1})",
            "pvalue": "binomial tail of the m non-zero differences' fair signs over all 2^n swaps",
            "resamples": None,
        }
        # 2^n patterns, counted in closed form
        counted = {"n_permutations": None, "count": None, "exact": True}
    else:
        if d is not None and not use_exact:  # T is a mean of per-example differences d: T* = (sum d - 2 s) / n
            t_star, total = (d.sum() - 2.0 * _swapped_sums(d, n_resamples, seed)) / n, n_resamples
        else:
            masks = _swap_masks(n, use_exact, n_resamples, seed)
            total = masks.shape[0]
            if d is not None:
                t_star = (d.sum() - 2.0 * (masks @ d)) / n
            else:
                t_star = _swapped_statistic(pa, pb, statistic, y_true, metric, classes, masks)
        count = _as_extreme(t_star, t_obs, alternative)
        p = count / total if use_exact else (count + 1.0) / (total + 1.0)
        how = {
            "method": "exact enumeration of 2^n swaps" if use_exact else "approximate randomization",
            "pvalue": "count / 2^n" if use_exact else "(1 + count) / (n_resamples + 1)",
            "resamples": None
            if use_exact
            else "bit k of byte j of row r of numpy.random.default_rng(seed).bytes(n_resamples * ceil(n / 8)) "
            "swaps example 8 j + k",
        }
        counted = {"n_permutations": int(total), "count": int(count), "exact": bool(use_exact)}
    if y_true is None and statistic == "mean":
        es, es_name = cohens_dz(pa, pb) if n >= 2 else 0.0, "cohens_dz"
    else:
        es, es_name = t_obs, "difference"
    return TestResult(
        test="permutation_test",
        statistic=t_obs,
        pvalue=float(min(1.0, p)),
        effect_size=float(es),
        effect_size_name=es_name,
        alternative=alternative,
        conventions={
            "difference": "T(a) - T(b)",
            "mode": f"metric {delta_of.name} on predictions"
            if y_true is not None
            else f"statistic {delta_of.name} of scores",
            "permutations": "swap a_i and b_i for a subset of examples",
            "method": how["method"],
            "pvalue": how["pvalue"],
            "two_sided": "|T*| >= |T|",
            "resamples": how["resamples"],
        },
        extra={
            "n": int(n),
            **counted,
            "seed": seed,
            "n_resamples": n_resamples,
            **({"n_nonzero": m} if closed else {}),
        },
    )


def _signs_only(d: np.ndarray) -> bool:
    """Every per-example difference is -1, 0 or +1 (a 0/1 score such as accuracy or error)."""
    return bool(d.size) and bool(np.all((d == 0.0) | (d == 1.0) | (d == -1.0)))


def _closed_form_pvalue(d: np.ndarray, alternative: str) -> tuple[float, int]:
    """The exact permutation p-value when every difference is -1, 0 or +1 (module docstring), and the number ``m``
    of non-zero differences.

    Swapping an example negates its ``d_i``; over all ``2^n`` swap patterns the ``m`` non-zero ``d_i`` get
    independent fair signs, so the swapped sum is ``S* = 2 B - m`` with ``B ~ Binomial(m, 1/2)``, and the p-value is
    a binomial tail: the count over all ``2^n`` patterns divided by ``2^n``, computed without enumerating them.
    Two-sided it is ``min(1, 2 P(B <= (m - |S|) / 2))``, McNemar's exact p-value on the same examples.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    m = int(np.count_nonzero(d))
    s = int(round(float(d.sum())))  # an integer: a sum of -1, 0, +1
    if m == 0:
        return 1.0, m
    if alternative == "two-sided":
        return (1.0 if s == 0 else min(1.0, 2.0 * float(stats.binom.cdf((m - abs(s)) // 2, m, 0.5)))), m
    if alternative == "greater":  # P(S* >= S) = P(B >= (m + S) / 2)
        return float(stats.binom.sf((m + s) // 2 - 1, m, 0.5)), m
    return float(stats.binom.cdf((m + s) // 2, m, 0.5)), m  # P(S* <= S) = P(B <= (m + S) / 2)


def _classes_for(y_true, pa, pb, metric):
    if y_true is None or not isinstance(metric, str):
        return None
    yt = np.asarray(y_true)
    return np.unique(np.concatenate([yt, pa.ravel(), pb.ravel()])) if pa.ndim == 1 else np.unique(yt)


def _mean_differences(pa, pb, statistic, y_true, metric) -> np.ndarray | None:
    """The per-example differences ``d`` when ``T`` is their mean (scores with the mean, or a metric that is a
    mean of per-example values); None for any other statistic (median, F1, a callable)."""
    if y_true is None:
        if isinstance(statistic, str) and statistic == "mean":
            return pa.astype(np.float64) - pb.astype(np.float64)
        return None
    g = per_example(metric)
    if g is None or pa.ndim != 1 or pb.ndim != 1:
        return None
    yt = np.asarray(y_true)
    return g(yt, pa) - g(yt, pb)


def _swapped_statistic(pa, pb, statistic, y_true, metric, classes, masks) -> np.ndarray:
    """``T`` on every swap pattern of ``masks``, for any statistic."""
    n = pa.shape[0]
    # the statistic on swapped data: index into the stacked [a; b] so that delta_of can be reused
    both_a = np.concatenate([pa, pb])
    both_b = np.concatenate([pb, pa])
    swapped = _paired_statistic(
        both_a,
        both_b,
        statistic,
        None if y_true is None else np.concatenate([y_true, y_true]),
        metric,
        classes if classes is not None else _classes_for(y_true, pa, pb, metric),
    )
    idx = np.arange(n)[None, :] + n * masks  # row: take example i from a (i) or from b (n + i)
    return swapped(idx)
