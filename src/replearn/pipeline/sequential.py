"""The sequential half-sampling design in the pipeline (``cv.half_sampling.sequential``; :mod:`..stats.sequential`).

One rule, used in two places so they cannot drift:

* the **crossval stage** runs the half-sampling subsets look by look and, after each look, asks
  :func:`subsets_needed` whether every pair of models is decided; it stops there and records the subsets it ran
  with the plan (``variance["sequential"]``);
* the **significance stage** replays the same looks on the recorded subsets (:func:`compare_cv_sequential`,
  called by :func:`.compare.compare_cv`) and prints each pair's decision at the look that made it.

A dataset whose variance record has no ``sequential`` entry is the fixed design (every planned subset run).
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import stats
from . import designs, records

__all__ = [
    "DECISION_TEXT",
    "compare_cv_sequential",
    "complete",
    "plan",
    "sequential_plan",
    "subsets_needed",
    "truncate",
]

DECISION_TEXT = {
    "different": "a difference",
    "equivalent": "practical equivalence within the ROPE",
    "futile": "futility (no difference in reach)",
    "not_significant": "the last look",
}


def plan(hs: dict) -> dict | None:
    """The sequential plan of the ``cv.half_sampling`` settings (None: the fixed design): the looks, clipped to
    the configured subsamples (which is always the last look)."""
    seq = hs.get("sequential")
    if not seq:
        return None
    total = int(hs["subsamples"])
    looks = [int(v) for v in (hs.get("looks") or stats.sequential.LOOKS) if int(v) < total] + [total]
    return {"looks": looks, "early_alpha": stats.sequential.EARLY_ALPHA, "futility": list(stats.sequential.FUTILITY)}


def sequential_plan(cv: records.EvaluationResult) -> dict | None:
    """The plan a record was run with (None: the fixed design)."""
    return (cv.variance or {}).get("sequential") or None


def _rope(cfg: dict, scores: np.ndarray) -> float:
    """The ROPE half-width in score units (``stats.rope``; relative: times the mean |score|), as the
    significance stage's Bayesian rows use it."""
    rope = float(cfg.get("rope", 0.01) or 0.0)
    return rope * float(np.mean(np.abs(scores))) if cfg.get("rope_scale") == "relative" else rope


def complete(cv: records.EvaluationResult) -> bool:
    """Whether every model has a score on every replicate (the sequential design's condition: with a failed
    fit the dataset runs every subset and is tested as the fixed design)."""
    metric = cv.primary_metric
    return all(v is not None for m in cv.models.values() for v in m.scores[metric])


def _half_matrix(var: dict, key: str, metric: str) -> np.ndarray | None:
    """A model's (subsamples, repeats) inner scores: the mean over each inner repeat's folds (None: a failed
    fit); the same aggregation as :func:`.compare.half_scores`."""
    vals = ((var.get("models") or {}).get(key) or {}).get(metric)
    reps = var.get("replicates") or []
    if vals is None or not reps or any(v is None for v in vals):
        return None
    b, r = int(var["subsamples"]), int(var["repeats"])
    total, count = np.zeros((b, r)), np.zeros((b, r))
    for rep, v in zip(reps, vals):
        if rep.get("point") is None:
            total[rep["subsample"], rep["repeat"]] += float(v)
            count[rep["subsample"], rep["repeat"]] += 1
    return total / np.maximum(count, 1)


def _pairs(cv: records.EvaluationResult, cfg: dict):
    """``{(a, b): (sa, sb, half_a, half_b, repeat)}`` for every pair of models (all scores complete)."""
    metric = cv.primary_metric
    var = cv.variance or {}
    repeat = designs.repeat_groups(cv.splits, cv.replicate_kind)
    half = {k: _half_matrix(var, k, metric) for k in sorted(cv.models)}
    pairs = {}
    for a, b in itertools.combinations(sorted(k for k in half if half[k] is not None), 2):
        sa = np.asarray(cv.models[a].scores[metric], dtype=np.float64)
        sb = np.asarray(cv.models[b].scores[metric], dtype=np.float64)
        pairs[(a, b)] = (sa, sb, half[a], half[b], repeat)
    return pairs, {k: 0 for k in pairs}


def _decide(cv: records.EvaluationResult, cfg: dict, looks, available=None):
    pairs, dropped = _pairs(cv, cfg)
    var = cv.variance or {}
    seq = sequential_plan(cv) or {}
    rope = None
    if cfg.get("rope", 0.01) and pairs:
        rope = min(_rope(cfg, np.r_[p[0], p[1]]) for p in pairs.values())
    out, needed = stats.sequential_pairs(
        pairs,
        n_examples=int(var["n_examples"]),
        subsample_size=int(var["subsample_size"]),
        looks=looks,
        alpha=float(cfg.get("alpha", 0.05)),
        rope=rope,
        futility=seq.get("futility") or stats.sequential.FUTILITY,
        early_alpha=float(seq.get("early_alpha") or stats.sequential.EARLY_ALPHA),
        available=available,
    )
    return pairs, dropped, out, needed, rope


def subsets_needed(cv: records.EvaluationResult, cfg: dict, looks, available: int) -> int:
    """The subsets after which every pair of ``cv`` (a record holding the first ``available`` subsets) is
    decided, or ``available`` + 1 when a pair is still open (run the next look)."""
    if not complete(cv):
        return available + 1  # a failed fit: every subset, and the fixed design's test
    _, _, out, needed, _ = _decide(cv, cfg, looks, available)
    if any(d.decision == "open" for d in out.values()):
        return available + 1
    return min(needed, available)


def truncate(variance: dict, subsets: int) -> dict:
    """The variance record with only its first ``subsets`` subsets (the harness replays a stop this way)."""
    keep = [i for i, r in enumerate(variance["replicates"]) if r["subsample"] < subsets]
    return {
        **variance,
        "subsamples": int(subsets),
        "replicates": [variance["replicates"][i] for i in keep],
        "models": {k: {m: [v[i] for i in keep] for m, v in s.items()} for k, s in variance["models"].items()},
    }


def compare_cv_sequential(cv: records.EvaluationResult, cfg: dict) -> list[dict]:
    """The pairwise rows of a record run by the sequential design: each pair's decision at the look that made
    it (the p-value and interval of that look's half-sampling t-test; the adjusted p-value scaled so that it is
    at most alpha exactly when the pair was found different)."""
    seq = sequential_plan(cv) or {}
    looks = [v for v in seq.get("looks") or stats.sequential.LOOKS]
    var = cv.variance or {}
    pairs, dropped, out, _, rope = _decide(cv, cfg, looks, int(var.get("subsamples") or 0))
    hib = cv.greater_is_better[cv.primary_metric]
    rows = []
    for (a, b), (sa, sb, *_) in pairs.items():
        d = out[(a, b)]
        last = d.looks[-1]
        sig = d.decision == "different"
        diff = float(sa.mean() - sb.mean())
        sd = float(np.std(sa - sb, ddof=1))
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "mean_a": float(sa.mean()),
                "mean_b": float(sb.mean()),
                "mean_difference": diff,
                "dropped_replicates": dropped[(a, b)],
                "test": "sequential_half_sampling",
                "statistic": float(last.statistic) if np.isfinite(last.statistic) else None,
                "df": float(last.df),
                "pvalue": float(last.pvalue),
                "pvalue_adjusted": float(d.pvalue_adjusted),
                "significant": sig,
                "winner": (a if (diff > 0) == hib else b) if sig and diff != 0 else None,
                "effect_size": diff / sd if sd > 0 else None,
                "effect_size_name": "d_z",
                "ci": [float(last.ci[0]), float(last.ci[1])],
                "conventions": {
                    "difference": "a - b",
                    "looks": f"after {', '.join(str(v) for v in looks)} subsets; alpha {seq.get('early_alpha')} "
                    f"at each early look, the rest at the last (Haybittle-Peto, Bonferroni-bounded); Holm over "
                    f"the pairs at each look; futility |t| < {', '.join(str(v) for v in seq.get('futility') or [])}",
                    "ci": "95 % interval of E[a - b] at the deciding look",
                },
                "standard_error": float(last.se),
                "between_share": None,
                "sequential": {
                    "decision": d.decision,
                    "look": int(d.look) + 1 if d.look is not None else None,
                    "subsets": int(last.subsets),
                    "level": float(d.level) if d.level is not None else None,
                    "rope": rope,
                    "stopped_by": DECISION_TEXT.get(d.decision, d.decision),
                },
            }
        )
    rows.sort(key=lambda r: (r["model_a"], r["model_b"]))
    # the detectable difference at the level of the last look (what "not significant" could have found)
    level = float(cfg["alpha"]) - (len(looks) - 1) * float(seq.get("early_alpha") or stats.sequential.EARLY_ALPHA)
    m = max(len(rows), 1)
    for r in rows:
        r["detectable_difference"] = stats.detectable_difference(r["standard_error"], r["df"], level / m)
        r["detectable_level"] = level / m
    return rows
