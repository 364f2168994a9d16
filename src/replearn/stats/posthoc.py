"""Post-hoc comparisons after a Friedman test, on average ranks (Demsar 2006 §3.2.2; Garcia & Herrera 2008).

For k models on N data sets with average ranks ``R_i`` (rank 1 = best), the difference of two
models a and b is tested with ``z = (R_b - R_a) / sqrt(k (k+1) / (6 N))`` (positive when a ranks
better) against the standard normal (two-sided).  The raw p-values are then adjusted for the family of comparisons:

* **against a control** (``control`` = a model; k - 1 hypotheses): ``bonferroni_dunn``,
  ``holm``, ``hochberg``, ``hommel`` (or ``bonferroni``, ``none``);
* **all pairs** (``control=None``; k (k-1)/2 hypotheses): ``nemenyi`` (the studentized-range
  adjustment behind the critical difference: ``p = P(Q_k > sqrt(2) |z|)``, significant exactly
  when ``|R_i - R_j| >= CD``), ``holm``, ``shaffer``, ``bergmann_hommel`` (the most powerful
  of these, k <= 10), or ``bonferroni``, ``hochberg``, ``hommel``, ``none``.

Each comparison also gets two effect sizes computed from the raw scores across the data sets,
oriented so that **positive means the first model is better** (``higher_is_better`` decides):
the matched-pairs rank-biserial correlation (zeros dropped, see
:func:`replearn.stats.rank_biserial`) and Cliff's delta.  Benavoli, Corani & Mangili (2016)
warn that the outcome of a mean-ranks comparison of two models depends on the other models in
the experiment; the pairwise Wilcoxon / sign tests of :mod:`replearn.stats.wilcoxon` do not.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields

import numpy as np

from ._result import to_jsonable
from .allpairs import bergmann_hommel, shaffer
from .effect_sizes import cliffs_delta, rank_biserial
from .friedman import rank_scores
from .multiple import ADJUSTMENTS

__all__ = ["CONTROL_METHODS", "PAIRWISE_METHODS", "PosthocResult", "friedman_posthoc"]

CONTROL_METHODS = ("bonferroni_dunn", "holm", "hochberg", "hommel", "bonferroni", "none")
PAIRWISE_METHODS = ("nemenyi", "holm", "shaffer", "bergmann_hommel", "bonferroni", "hochberg", "hommel", "none")


@dataclass
class PosthocResult:
    """Rows of ``comparisons`` (one per hypothesis): ``a``, ``b``, ``rank_a``, ``rank_b``,
    ``rank_difference`` (``rank_b - rank_a``: positive when ``a`` ranks better), ``z`` (the
    rank difference over its standard error),
    ``pvalue``, ``pvalue_adjusted``, ``significant``, ``rank_biserial``, ``cliffs_delta``;
    plus the ``method``, ``control``, ``alpha``, ``average_ranks`` and ``conventions``."""

    method: str
    control: str | int | None
    alpha: float
    average_ranks: dict
    comparisons: list[dict]
    conventions: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {f.name: to_jsonable(getattr(self, f.name)) for f in fields(self)}


def friedman_posthoc(
    scores,
    *,
    names=None,
    control=None,
    method: str = "holm",
    alpha: float = 0.05,
    higher_is_better: bool = True,
    decimals: int | None = None,
) -> PosthocResult:
    """Post-hoc tests on the average ranks of an ``(N, k)`` score table (see the module docstring).

    ``names``: the k model names (default 0..k-1); ``control``: a name, or None for all pairs.
    Pairs are listed in ``itertools.combinations`` order of ``names`` (a control's comparisons
    with ``a`` = the control).  ``decimals`` rounds the scores before ranking.
    """
    from scipy import stats  # lazily: scipy.stats costs ~0.5 s to import

    s = np.asarray(scores, dtype=np.float64)
    if decimals is not None:
        s = np.round(s, int(decimals))
    ranks = rank_scores(s, higher_is_better=higher_is_better)
    n, k = ranks.shape
    names = list(range(k)) if names is None else list(names)
    if len(names) != k or len(set(names)) != k:
        raise ValueError(f"names must be {k} distinct model names, got {names!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if control is not None:
        if control not in names:
            raise ValueError(f"control {control!r} is not one of the models {names}")
        if method not in CONTROL_METHODS:
            raise ValueError(
                f"method {method!r} is not for comparisons with a control; use one of {list(CONTROL_METHODS)}"
            )
        c = names.index(control)
        pairs = [(c, j) for j in range(k) if j != c]
    else:
        if method not in PAIRWISE_METHODS:
            raise ValueError(
                f"method {method!r} is not for all pairwise comparisons; use one of {list(PAIRWISE_METHODS)}"
            )
        pairs = list(itertools.combinations(range(k), 2))
    avg = ranks.mean(axis=0)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    z = np.array([(avg[j] - avg[i]) / se for i, j in pairs])
    p = np.minimum(1.0, 2.0 * stats.norm.sf(np.abs(z)))
    if method == "nemenyi":
        adj = np.minimum(1.0, stats.studentized_range.sf(np.sqrt(2.0) * np.abs(z), k, np.inf))
    elif method == "shaffer":
        adj = shaffer(p)
    elif method == "bergmann_hommel":
        adj = bergmann_hommel(p)
    else:
        adj = ADJUSTMENTS[method](p)
    sign = 1.0 if higher_is_better else -1.0
    rows = []
    for (i, j), zi, pi, ai in zip(pairs, z, p, adj):
        rows.append(
            {
                "a": names[i],
                "b": names[j],
                "rank_a": float(avg[i]),
                "rank_b": float(avg[j]),
                "rank_difference": float(avg[j] - avg[i]),
                "z": float(zi),
                "pvalue": float(pi),
                "pvalue_adjusted": float(ai),
                "significant": bool(ai <= alpha),
                "rank_biserial": float(sign * rank_biserial(s[:, i], s[:, j])),
                "cliffs_delta": float(sign * cliffs_delta(s[:, i], s[:, j])),
            }
        )
    return PosthocResult(
        method=method,
        control=control,
        alpha=float(alpha),
        average_ranks={str(nm): float(r) for nm, r in zip(names, avg)},
        comparisons=rows,
        conventions={
            "statistic": "z = (R_b - R_a) / sqrt(k (k+1) / (6 N)) (positive: a ranks better), two-sided normal p-value",
            "ranks": "1 = best; " + ("higher score is better" if higher_is_better else "lower score is better"),
            "effect_sizes": "over the data sets, positive when a is better",
            "decimals": decimals,
            "family": "k - 1 comparisons with the control" if control is not None else "all k (k-1)/2 pairs",
            "significant": "pvalue_adjusted <= alpha",
            "source": "Demsar (2006) 3.2.2; Garcia & Herrera (2008)",
        },
    )
