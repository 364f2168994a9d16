"""Sequential half-sampling: stop adding subsets once every pair is decided (planned looks, alpha spent by rule).

The half-sampling t-test (:mod:`.halfsampling`) spends most of a comparison's fits on the subsets that estimate
the data-sampling variance: 20 subsets x 6 repeats x 5 folds = 600 fits per model, against 100 for the 10 x 10
cross-validation itself. The cross-validation difference ``d_bar`` is computed once; the subsets only sharpen
its standard error. So the design can look at the evidence after a few subsets and stop when more cannot
change the verdict:

* **looks** -- after ``B_1 < B_2 < ... < B_L`` subsets (default 5, 10, 20); look l runs the half-sampling
  t-test on the first ``B_l`` subsets (``t_l``, Satterthwaite's ``df_l``, ``p_l``);
* **difference** -- alpha is spent by the Haybittle-Peto rule with a Bonferroni bound (Haybittle 1971; Peto et
  al. 1976): ``alpha_l = EARLY_ALPHA`` (0.001) at every look before the last, the rest
  ``alpha - (L - 1) EARLY_ALPHA`` at the last. At each look Holm's procedure over the pairs at ``alpha_l``; a
  pair rejected at any look is significant. The union bound over the looks keeps the family-wise error at
  alpha whatever the dependence between looks (and the looks share ``d_bar``, so the bound is conservative);
* **practical equivalence** -- the two one-sided tests at ``alpha_l`` (Schuirmann 1987) with Holm over the
  pairs: the ``1 - 2 alpha_l`` interval inside ``(-rope, rope)``; stops the pair as "equivalent";
* **futility** -- at a look before the last, ``|t_l| < FUTILITY[l]`` stops the pair as "not significant". The
  rule is non-binding: stopping for futility only removes rejections, so it cannot raise the type-I error.
  The bounds (1.3 after the first look, 1.6 after the second) were chosen by measurement (docs/statistics.md,
  "The sequential design"): on 1-NN and nearest centroid they lose no power against (1.0, 1.4) and save a
  further 25-35 fits per model; (1.5, 1.8) already lost 0.2-0.7 points and (1.7, 2.0) 2-4 points. A ``d_bar``
  below 1.3 standard errors after 5 subsets becomes significant after 20 only when the variance estimate
  shrinks about 2.6-fold.

The dataset stops at the first look where every pair is decided (difference, equivalence or futility); its
record keeps the subsets it ran, and the significance stage replays the same looks on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .halfsampling import half_sampling_ttest
from .multiple import holm

__all__ = ["EARLY_ALPHA", "FUTILITY", "LOOKS", "PairLook", "SequentialDecision", "look_levels", "sequential_pairs"]

#: the planned looks (subsets run before each), the level spent at every look before the last, and the
#: futility bounds on |t| at the looks before the last (module docstring)
LOOKS = (5, 10, 20)
EARLY_ALPHA = 0.001
FUTILITY = (1.3, 1.6)


@dataclass(frozen=True)
class PairLook:
    """One pair's half-sampling t-test at one look."""

    subsets: int
    statistic: float
    pvalue: float
    df: float
    se: float
    ci: tuple[float, float]
    mean: float


@dataclass
class SequentialDecision:
    """The outcome of one pair: ``decision`` in ("different", "equivalent", "futile", "not_significant"), the
    look (index) it was decided at, the level spent there, and its tests at every look run."""

    decision: str = "open"
    look: int | None = None
    level: float | None = None
    pvalue_adjusted: float | None = None
    looks: list[PairLook] = field(default_factory=list)


def look_levels(n_looks: int, alpha: float, early_alpha: float = EARLY_ALPHA) -> list[float]:
    """Haybittle-Peto levels with the Bonferroni bound: ``early_alpha`` at each look but the last, which gets the
    rest of ``alpha``."""
    if n_looks < 1:
        raise ValueError(f"need at least one look, got {n_looks}")
    last = alpha - (n_looks - 1) * early_alpha
    if not last > 0:
        raise ValueError(f"alpha {alpha} cannot pay {n_looks - 1} early looks of {early_alpha}")
    return [early_alpha] * (n_looks - 1) + [last]


def _look(a, b, half_a, half_b, subsets: int, n_examples, subsample_size, repeat, confidence) -> PairLook:
    res = half_sampling_ttest(
        a,
        b,
        half_a=half_a[:subsets],
        half_b=half_b[:subsets],
        n_examples=n_examples,
        subsample_size=subsample_size,
        repeat=repeat,
        confidence=confidence,
    )
    se = float(res.extra["standard_error"])
    ci = res.ci if res.ci is not None else (float("nan"), float("nan"))
    return PairLook(
        subsets,
        float(res.statistic),
        float(res.pvalue),
        float(res.df),  # type: ignore[arg-type]  # a t-test's df is a number
        se,
        (float(ci[0]), float(ci[1])),
        float(res.extra["mean_difference"]),
    )


def _repeat(pair: tuple, default):
    """A pair's own repeat ids (its fifth element), else the shared ones."""
    return pair[4] if len(pair) > 4 else default


def sequential_pairs(
    pairs: dict,
    *,
    n_examples: int,
    subsample_size: int,
    repeat=None,
    looks=LOOKS,
    alpha: float = 0.05,
    rope: float | None = None,
    futility=FUTILITY,
    early_alpha: float = EARLY_ALPHA,
    available: int | None = None,
) -> tuple[dict, int]:
    """Decide every pair by the planned looks (module docstring).

    ``pairs`` -- ``{key: (a, b, half_a, half_b[, repeat])}``: the main split scores of the two models and
    their (B, R) inner scores on the subsets in the order they were drawn (and the pair's repeat ids, else
    ``repeat``); ``looks`` -- subsets before each look;
    ``available`` -- subsets run (default: all of ``half_a``): looks beyond it are not taken (a dataset that
    stopped). Returns ``({key: SequentialDecision}, subsets the design needed)``: the subsets of the first look
    at which every pair was decided (the last look otherwise).
    """
    looks = [int(v) for v in looks]
    if not looks or any(b < 2 for b in looks) or looks != sorted(set(looks)):
        raise ValueError(f"looks must be increasing subset counts of at least 2, got {looks}")
    if len(futility) < len(looks) - 1:
        raise ValueError(f"need a futility bound for each of the {len(looks) - 1} looks before the last")
    levels = look_levels(len(looks), alpha, early_alpha)
    n_avail = min(np.asarray(v[2]).shape[0] for v in pairs.values()) if pairs else 0
    n_avail = n_avail if available is None else min(n_avail, int(available))
    out = {k: SequentialDecision() for k in pairs}
    needed = looks[-1]
    for li, (subsets, level) in enumerate(zip(looks, levels)):
        last = li == len(looks) - 1 or looks[li + 1] > n_avail
        if subsets > n_avail:
            break
        open_keys = [k for k in pairs if out[k].decision == "open"]
        res = {
            k: _look(
                pairs[k][0],
                pairs[k][1],
                pairs[k][2],
                pairs[k][3],
                subsets,
                n_examples,
                subsample_size,
                _repeat(pairs[k], repeat),
                0.95,
            )
            for k in open_keys
        }
        for k in open_keys:
            out[k].looks.append(res[k])
        if open_keys:
            adj = holm([res[k].pvalue for k in open_keys])
            for k, p in zip(open_keys, adj):
                if p <= level:
                    out[k].decision, out[k].look, out[k].level = "different", li, level
                    out[k].pvalue_adjusted = float(min(1.0, p * alpha / level))
            if rope:
                still = [k for k in open_keys if out[k].decision == "open"]
                # TOST: the larger of the two one-sided p-values, from the 1 - 2 level interval's t statistic
                from scipy import stats as st

                p_eq = []
                for k in still:
                    r = res[k]
                    if r.se > 0:
                        t_lo, t_hi = (r.mean + rope) / r.se, (r.mean - rope) / r.se
                        p_eq.append(float(max(st.t.sf(t_lo, r.df), st.t.cdf(t_hi, r.df))))
                    else:
                        p_eq.append(0.0 if abs(r.mean) < rope else 1.0)
                for k, p in zip(still, holm(p_eq) if still else []):
                    if p <= level:
                        out[k].decision, out[k].look, out[k].level = "equivalent", li, level
            for k in open_keys:
                if out[k].decision != "open":
                    continue
                planned_last = li == len(looks) - 1
                if not planned_last and abs(res[k].statistic) < futility[li]:
                    out[k].decision, out[k].look, out[k].level = "futile", li, level
                elif last:  # the last look (or the last one run: a replay of a dataset that stopped here)
                    out[k].decision, out[k].look, out[k].level = "not_significant", li, level
        if all(d.decision != "open" for d in out.values()):
            needed = subsets
            break
    for d in out.values():
        if d.pvalue_adjusted is None and d.looks:
            p = d.looks[-1].pvalue * len(pairs)  # Bonferroni-bounded report value at the deciding look's level
            d.pvalue_adjusted = float(min(1.0, max(p * alpha / (d.level or alpha), alpha * (1 + 1e-12))))
    return out, needed
