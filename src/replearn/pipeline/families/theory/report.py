"""What the report adds for the ``theory`` family (:mod:`replearn.pipeline.family_views`): its bounds against the
measured deviations, and Hoeffding's probability form against the coin-flip simulation.

Read through the views of what the family writes: :class:`TheoryProblem` of ``describe(problem)`` (``problems.py``)
and :class:`TheoryExtra` of a replicate's ``Outcome.extra`` (``units.py``). Deterministic in its inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...records import as_evaluation
from ...report.plots import _STYLE, _new_figure
from ...views import View


@dataclass(frozen=True)
class TheoryProblem(View):
    """What the figures read of a simulation's description: its sample size ``n`` and Monte-Carlo ``trials``."""

    n: int | None = None
    trials: int = 1


@dataclass(frozen=True)
class TheoryExtra(View):
    """What a unit's replicate carries beside its scores: the deviation ``gamma`` of the probability form and the
    mean deviation over the trials."""

    gamma: float | None = None
    mean_deviation: float | None = None


PROBLEM, EXTRA = TheoryProblem, TheoryExtra


def _models(evaluation) -> dict:
    """The units of a crossval record (or of its plain data): key -> its ``ModelEvaluation``."""
    return as_evaluation(evaluation).models


def _finite(values) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def violations(evaluations) -> list[dict]:
    """Every replicate whose slack is negative (a bound below its measured value): ``dataset``, ``model``,
    ``replicate``, ``bound``, ``measured``, ``slack``. ``evaluations`` maps dataset -> EvaluationResult (record or
    its dict). Empty when every bound held, as the theorems say it must."""
    out = []
    for dataset, ev in sorted(evaluations.items()):
        for key, model in sorted(_models(ev).items()):
            scores = model.scores
            for r, s in enumerate(model.values("slack")):
                if s is not None and s < 0:
                    out.append(
                        {
                            "dataset": dataset,
                            "model": key,
                            "replicate": r,
                            "bound": scores["bound"][r],
                            "measured": scores["measured"][r],
                            "slack": s,
                        }
                    )
    return out


def _gamma(evaluations, key: str) -> float | None:
    """The gamma of unit ``key`` from the replicates' ``extras`` (None when the record has none)."""
    for ev in evaluations.values():
        units = _models(ev)
        for extra in (units[key].extras if key in units else None) or []:
            gamma = EXTRA.from_dict(extra).gamma
            if gamma is not None:
                return float(gamma)
    return None


def _series(evaluations, descriptions, metric: str) -> dict[str, list[tuple[int, float, float, float]]]:
    """model key -> [(n, mean, min, max) of ``metric`` over replicates], sorted by n."""
    out: dict[str, list] = {}
    for dataset, ev in evaluations.items():
        n = int(PROBLEM.from_dict(descriptions.get(dataset)).n or 0)
        if n <= 0:
            continue
        for key, model in _models(ev).items():
            vals = _finite(model.values(metric))
            if vals:
                out.setdefault(key, []).append((n, float(np.mean(vals)), min(vals), max(vals)))
    return {k: sorted(v) for k, v in sorted(out.items())}


def figures(evaluations, descriptions) -> list[tuple[str, object]]:
    """The theory section's pictures: ``[(title, matplotlib Figure)]``.

    ``evaluations`` maps dataset name -> its EvaluationResult (record or dict, ``results/crossval/<d>.json``);
    ``descriptions`` maps dataset name -> :func:`describe` of its problem (``meta.json``), which gives ``n``.
    1. bound and measured deviation against n (log-log), one panel per unit, the measured mean over replicates
       with its min-max range; a violated bound (measured above bound) is marked with a red cross.
    2. Hoeffding's probability form: P(|phi_hat - phi| > gamma) measured against 2 exp(-2 gamma^2 n) (log-log,
       the closed form drawn between the datasets' n when the replicates' ``extras`` give gamma); a rate of 0 in
       T trials cannot be drawn on a log axis and is marked by a hollow triangle at the resolution 1/T.
    Deterministic in its inputs; empty when no dataset has an ``n``.
    """
    import matplotlib

    bound, measured = _series(evaluations, descriptions, "bound"), _series(evaluations, descriptions, "measured")
    keys = [k for k in bound if k in measured]
    out: list[tuple[str, object]] = []
    with matplotlib.rc_context(_STYLE):
        if keys:
            fig = _new_figure(4.2 * len(keys), 3.8)
            axes = fig.subplots(1, len(keys), squeeze=False)[0]
            for ax, key in zip(axes, keys):
                nb, b = [p[0] for p in bound[key]], [p[1] for p in bound[key]]
                nm, m = [p[0] for p in measured[key]], [p[1] for p in measured[key]]
                lo = [p[1] - p[2] for p in measured[key]]
                hi = [p[3] - p[1] for p in measured[key]]
                ax.plot(nb, b, "-o", color="#c44e52", label="bound")
                ax.errorbar(nm, m, yerr=[lo, hi], fmt="-s", color="#4c72b0", capsize=3, label="measured (1-δ quantile)")
                bad = [(n_, v) for (n_, _, _, v), (_, bv, _, _) in zip(measured[key], bound[key]) if v > bv]
                if bad:
                    ax.plot([p[0] for p in bad], [p[1] for p in bad], "x", color="red", ms=10, label="bound violated")
                ax.set_xscale("log")
                if min(m) > 0:
                    ax.set_yscale("log")
                ax.set_xlabel("n")
                ax.set_title(key)
            axes[0].set_ylabel("deviation at confidence 1 - δ")
            axes[0].legend(loc="best")
            fig.tight_layout()
            out.append(("Bounds against measured deviations", fig))
        pb, pm = _series(evaluations, descriptions, "prob_bound"), _series(evaluations, descriptions, "prob_measured")
        pkeys = [k for k in pb if k in pm]
        if pkeys:
            fig = _new_figure(5.8, 3.8)
            ax = fig.subplots()
            problems = [PROBLEM.from_dict(d) for d in descriptions.values()]
            trials = {int(p.n): int(p.trials) for p in problems if p.n is not None}
            colors = ["#4c72b0", "#55a868", "#8172b2", "#ccb974"]
            for i, key in enumerate(pkeys):
                c = colors[i % len(colors)]
                gamma = _gamma(evaluations, key)
                ns = [p[0] for p in pb[key]]
                if gamma is not None:  # the closed form between the datasets' n
                    grid = np.geomspace(min(ns), max(ns), 200)
                    ax.plot(grid, np.minimum(1.0, 2.0 * np.exp(-2.0 * gamma**2 * grid)), "--", color="#c44e52")
                ax.plot(ns, [p[1] for p in pb[key]], "o", color="#c44e52", label=f"{key}: 2 exp(-2γ²n)")
                seen = [(p[0], p[1]) for p in pm[key] if p[1] > 0]
                unseen = [p[0] for p in pm[key] if p[1] <= 0]
                if seen:
                    ax.plot(*zip(*seen), "-s", color=c, label=f"{key}: measured")
                if unseen:
                    ax.plot(
                        unseen,
                        [1.0 / trials.get(n_, 1) for n_ in unseen],
                        "v",
                        color=c,
                        mfc="white",
                        ms=8,
                        label=f"{key}: none in T trials (below 1/T)",
                    )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("n")
            ax.set_ylabel("P(|φ̂ - φ| > γ)")
            ax.legend(loc="lower left")
            fig.tight_layout()
            out.append(("Hoeffding's inequality: coin flips against the bound", fig))
    return out
