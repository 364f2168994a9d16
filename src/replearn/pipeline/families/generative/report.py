"""What the report adds for the ``generative`` family (:mod:`replearn.pipeline.family_views`): the samples each
unit generated, as image grids (digits) or as scatters over the true density (the ring mixture).

Read through the views of what the family writes: :class:`GenerativeProblem` of ``describe(problem)``
(``problems.py``) and :class:`GeneratedSamples` of a replicate's ``Outcome.extra`` (``units.py``). Deterministic in
its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...records import as_evaluation
from ...report.plots import _STYLE, _new_figure
from ...views import View


@dataclass(frozen=True)
class GenerativeProblem(View):
    """What the figures read of a problem's description: the images' shape (None: points) and the true mixture's
    parameters (the ring; None for data)."""

    image_shape: list | None = None
    mixture: dict | None = None


@dataclass(frozen=True)
class GeneratedSamples(View):
    """What a unit's replicate carries beside its scores: the samples it drew (16 images or 500 points, the first
    replicate's), and on the ring the share of modes hit and of points within 3 sd of a mode."""

    samples: list | None = None
    modes_covered: float | None = None
    share_near_a_mode: float | None = None


PROBLEM, EXTRA = GenerativeProblem, GeneratedSamples


def _models(evaluation) -> dict:
    """The units of a crossval record (or of its plain data): key -> its ``ModelEvaluation``."""
    return as_evaluation(evaluation).models


def figures(evaluations, descriptions) -> list[tuple[str, object]]:
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
            desc = PROBLEM.from_dict(descriptions.get(dataset))
            units = {}
            for key, model in sorted(_models(evaluations[dataset]).items()):
                first = EXTRA.from_dict(model.extras[0] if model.extras else None)
                if first.samples:
                    units[key] = first
            if not units:
                continue
            if desc.image_shape:
                height, width = (int(v) for v in desc.image_shape)
                fig = _sample_grids(units, (height, width))
                out.append((f"{dataset}: generated images (noise-free means), one grid per model", fig))
            else:
                fig = _sample_scatters(units, desc.mixture)
                out.append((f"{dataset}: generated points, one panel per model, over the true density", fig))
    return out


def _sample_grids(units: dict, shape: tuple[int, int]):
    from matplotlib import colormaps

    h, w = shape
    fig = _new_figure(2.6 * len(units), 2.9)
    axes = fig.subplots(1, len(units), squeeze=False)[0]
    cmap = colormaps["gray_r"].with_extremes(bad="0.8")
    for ax, (key, extra) in zip(axes, units.items()):
        imgs = np.asarray(extra.samples, dtype=float)
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
    points = {k: np.asarray(e.samples, dtype=float).reshape(-1, 2) for k, e in units.items()}
    if mixture:
        lim = float(mixture["radius"]) + 4.0 * float(mixture["std"])
    else:
        lim = max(float(np.max(np.abs(p))) for p in points.values()) if points else 1.0
    fig = _new_figure(3.4 * len(units), 3.7)
    axes = fig.subplots(1, len(units), squeeze=False)[0]
    grid = None
    if mixture:
        from ....deep import gaussian_ring_log_density

        g = np.linspace(-lim, lim, 121)
        gx, gy = np.meshgrid(g, g)
        logp = gaussian_ring_log_density(np.column_stack([gx.ravel(), gy.ravel()]), **mixture)
        grid = (gx, gy, np.exp(logp).reshape(gx.shape))
    for ax, (key, extra) in zip(axes, units.items()):
        if grid is not None:
            ax.contour(*grid, levels=4, colors="0.6", linewidths=0.7)
        ax.scatter(points[key][:, 0], points[key][:, 1], s=3, alpha=0.5, color="#4c72b0")
        hit, near = extra.modes_covered, extra.share_near_a_mode
        title = key if hit is None else f"{key}: {hit:.0%} of modes hit,\n{near:.0%} of points within 3 sd"
        ax.set_title(title, fontsize=10)
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_aspect("equal")
    fig.tight_layout()
    return fig
