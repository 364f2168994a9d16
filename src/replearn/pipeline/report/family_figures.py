"""Pictures of the experiment families that the generic family section cannot draw.

The report calls :data:`FIGURES` ``[family name](evaluations, descriptions)`` for every family present in an
experiment: ``evaluations`` maps dataset -> its crossval record (``results/crossval/<d>.json``, or its plain data),
``descriptions`` maps dataset -> the problem description of its ``meta.json`` (``family.problem``). Each function
returns ``[(title, matplotlib Figure)]``, deterministic in its inputs. The family modules hold no drawing code,
so the stages before the report do not depend on it.
"""

from __future__ import annotations

import math

import numpy as np

from ..records import as_evaluation
from .plots import _STYLE, _new_figure


# -- theory: bounds against measured deviations
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
            if extra and extra.get("gamma") is not None:
                return float(extra["gamma"])
    return None


def _series(evaluations, descriptions, metric: str) -> dict[str, list[tuple[int, float, float, float]]]:
    """model key -> [(n, mean, min, max) of ``metric`` over replicates], sorted by n."""
    out: dict[str, list] = {}
    for dataset, ev in evaluations.items():
        n = int((descriptions.get(dataset) or {}).get("n", 0))
        if n <= 0:
            continue
        for key, model in _models(ev).items():
            vals = _finite(model.values(metric))
            if vals:
                out.setdefault(key, []).append((n, float(np.mean(vals)), min(vals), max(vals)))
    return {k: sorted(v) for k, v in sorted(out.items())}


def theory_figures(evaluations, descriptions) -> list[tuple[str, object]]:
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
            trials = {int(d["n"]): int(d.get("trials", 1)) for d in descriptions.values() if d and "n" in d}
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


# -- generative: generated samples
def generative_figures(evaluations, descriptions) -> list[tuple[str, object]]:
    """The generative section's pictures: the samples each unit generated, ``[(title, matplotlib Figure)]``.

    ``evaluations`` maps dataset -> its EvaluationResult (record or dict); the samples are the first replicate's
    ``extras["samples"]`` (``replearn.pipeline.families.generative.problems`` keeps 16 images or 500 points there);
    ``descriptions`` maps dataset -> the problem description (``image_shape`` for images, ``mixture`` for the
    ring). Images: one grid per unit (noise-free means, light separators); 2-D points: one scatter per unit over
    the contours of the true mixture density, titled with the share of modes hit and of points within 3 sd of a
    mode. Units without samples and datasets of no unit with samples are left out; deterministic.
    """
    import matplotlib

    out: list[tuple[str, object]] = []
    with matplotlib.rc_context(_STYLE):
        for dataset in sorted(evaluations):
            desc = descriptions.get(dataset) or {}
            units = {}
            for key, model in sorted(_models(evaluations[dataset]).items()):
                extras = model.extras or []
                if extras and extras[0] and extras[0].get("samples"):
                    units[key] = extras[0]
            if not units:
                continue
            if desc.get("image_shape"):
                height, width = (int(v) for v in desc["image_shape"])
                fig = _sample_grids(units, (height, width))
                out.append((f"{dataset}: generated images (noise-free means), one grid per model", fig))
            else:
                fig = _sample_scatters(units, desc.get("mixture"))
                out.append((f"{dataset}: generated points, one panel per model, over the true density", fig))
    return out


def _sample_grids(units: dict, shape: tuple[int, int]):
    from matplotlib import colormaps

    h, w = shape
    fig = _new_figure(2.6 * len(units), 2.9)
    axes = fig.subplots(1, len(units), squeeze=False)[0]
    cmap = colormaps["gray_r"].with_extremes(bad="0.8")
    for ax, (key, extra) in zip(axes, units.items()):
        imgs = np.asarray(extra["samples"], dtype=float)
        side = int(np.ceil(np.sqrt(len(imgs))))
        canvas = np.full((side * (h + 1) - 1, side * (w + 1) - 1), np.nan)  # NaN: the separators
        for i, img in enumerate(imgs):
            r, c = divmod(i, side)
            canvas[r * (h + 1) : r * (h + 1) + h, c * (w + 1) : c * (w + 1) + w] = img.reshape(shape)
        ax.imshow(np.clip(canvas, 0.0, 1.0), cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
        ax.set_title(key)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    return fig


def _sample_scatters(units: dict, mixture: dict | None):
    points = {k: np.asarray(e["samples"], dtype=float).reshape(-1, 2) for k, e in units.items()}
    if mixture:
        lim = float(mixture["radius"]) + 4.0 * float(mixture["std"])
    else:
        lim = max(float(np.max(np.abs(p))) for p in points.values()) if points else 1.0
    fig = _new_figure(3.4 * len(units), 3.7)
    axes = fig.subplots(1, len(units), squeeze=False)[0]
    grid = None
    if mixture:
        from ...deep import gaussian_ring_log_density

        g = np.linspace(-lim, lim, 121)
        gx, gy = np.meshgrid(g, g)
        logp = gaussian_ring_log_density(np.column_stack([gx.ravel(), gy.ravel()]), **mixture)
        grid = (gx, gy, np.exp(logp).reshape(gx.shape))
    for ax, (key, extra) in zip(axes, units.items()):
        if grid is not None:
            ax.contour(*grid, levels=4, colors="0.6", linewidths=0.7)
        ax.scatter(points[key][:, 0], points[key][:, 1], s=3, alpha=0.5, color="#4c72b0")
        hit, near = extra.get("modes_covered"), extra.get("share_near_a_mode")
        title = key if hit is None else f"{key}: {hit:.0%} of modes hit,\n{near:.0%} of points within 3 sd"
        ax.set_title(title, fontsize=10)
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_aspect("equal")
    fig.tight_layout()
    return fig


# -- sequence: what the language models write
def sequence_samples(evaluations) -> list[tuple[str, str, str, str]]:
    """``[(dataset, unit, prompt, sample)]``: the text each unit generated after a held-out prompt in its first
    replicate (``extras[0]``; only text tasks have samples), in dataset and unit order. Line breaks are shown as
    "⏎" so that a sample stays one table cell."""
    rows = []
    for dataset, ev in sorted(evaluations.items()):
        for key, model in sorted(_models(ev).items()):
            extra = (model.extras or [None])[0] or {}
            if extra.get("sample"):
                show = [str(extra.get(k, "")).replace("\n", "⏎") for k in ("prompt", "sample")]
                rows.append((dataset, key, show[0], show[1]))
    return rows


#: family name -> a function giving ``[(dataset, unit, prompt, sample)]`` of generated text
TEXT_SAMPLES = {"sequence": sequence_samples}

#: family name -> its figure function (families absent here have only the generic section)
FIGURES = {"theory": theory_figures, "generative": generative_figures}
