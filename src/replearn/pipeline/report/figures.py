"""Model views for the report, drawn from the data the train stage stores (``figures_data``).

* :func:`curves_plot` -- per-epoch/iteration curves: training and validation loss of neural networks
  (learning curves), distortion of k-means, log-likelihood of EM.
* :func:`decision_regions_plot` -- predicted class over the plane of a 2-D dataset, one panel per model.
* :func:`clusters_plot` -- training points coloured by predicted cluster, one panel per model.
* :func:`decomposition_plots` -- explained-variance spectrum, the leading components (as 8x8 images for
  digits) and the 2-D projection coloured by label.

Same rules as :mod:`replearn.pipeline.report.plots`: the object API on an Agg canvas, a fixed style, no
randomness, PNGs without a software tag, so reruns write identical bytes. Panels are sized (5 x 3.6 in for
curves, 4.2 x 3.8 in for planes) and lettered (11 pt) for reading at the default 100 dpi.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.ticker import MaxNLocator

from ..records import TrainResult, as_train_result
from ..views import Decomposition
from .plots import _STYLE, DEFAULT_DPI, _new_figure, _save

_PALETTE = [
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
]


def _grid(n: int, max_cols: int = 3) -> tuple[int, int]:
    cols = min(n, max_cols)
    return math.ceil(n / cols), cols


def curves_plot(
    curves: Mapping[str, Mapping[str, list]], path: Path, dpi: int = DEFAULT_DPI, title: str = "training curves"
) -> Path:
    """One panel per model; every curve of that model against epoch/iteration (1-based)."""
    with matplotlib.rc_context(_STYLE):
        rows, cols = _grid(len(curves))
        fig = _new_figure(5.0 * cols, 3.6 * rows)
        for i, (model, named) in enumerate(sorted(curves.items())):
            ax = fig.add_subplot(rows, cols, i + 1)
            for j, (label, values) in enumerate(sorted(named.items())):
                ax.plot(np.arange(1, len(values) + 1), values, color=_PALETTE[j % len(_PALETTE)], label=label, lw=1.8)
            ax.set_title(model)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("epoch / iteration")
            ax.legend(loc="best", frameon=False)
        fig.suptitle(title)
        fig.tight_layout()
        return _save(fig, path, dpi)


def decision_regions_plot(
    regions: Mapping, classes: list[str], path: Path, dpi: int = DEFAULT_DPI, title: str = "decision regions"
) -> Path:
    """Predicted class over the plane of the two raw features; training points on top."""
    models = sorted(regions["models"])
    r = int(regions["resolution"])
    k = max(len(classes), 2)
    cmap = ListedColormap([_PALETTE[i % len(_PALETTE)] for i in range(k)])
    pts = np.asarray(regions["points"], dtype=float)
    lab = np.asarray(regions["label"], dtype=int)
    extent = (*regions["x_range"], *regions["y_range"])
    with matplotlib.rc_context(_STYLE):
        rows, cols = _grid(len(models))
        fig = _new_figure(4.2 * cols, 3.8 * rows)
        for i, m in enumerate(models):
            ax = fig.add_subplot(rows, cols, i + 1)
            Z = np.asarray(regions["models"][m], dtype=float).reshape(r, r)
            ax.imshow(
                Z,
                origin="lower",
                extent=extent,
                aspect="auto",
                cmap=cmap,
                vmin=-0.5,
                vmax=k - 0.5,
                alpha=0.35,
                interpolation="nearest",
            )
            ax.scatter(
                pts[:, 0],
                pts[:, 1],
                c=lab,
                cmap=cmap,
                vmin=-0.5,
                vmax=k - 0.5,
                s=12,
                edgecolors="black",
                linewidths=0.3,
            )
            ax.set_title(m)
            ax.set_xlabel(regions["axes"][0])
            ax.set_ylabel(regions["axes"][1])
        fig.suptitle(title)
        fig.tight_layout()
        return _save(fig, path, dpi)


def clusters_plot(clusters: Mapping[str, Mapping], path: Path, dpi: int = DEFAULT_DPI, title: str = "clusters") -> Path:
    """Training points coloured by the cluster each model assigns (markers by true label when known)."""
    models = sorted(clusters)
    with matplotlib.rc_context(_STYLE):
        rows, cols = _grid(len(models))
        fig = _new_figure(4.2 * cols, 3.8 * rows)
        for i, m in enumerate(models):
            c = clusters[m]
            pts = np.asarray(c["points"], dtype=float)
            cl = np.asarray(c["cluster"], dtype=int)
            ax = fig.add_subplot(rows, cols, i + 1)
            colors = [_PALETTE[v % len(_PALETTE)] for v in cl]
            ax.scatter(pts[:, 0], pts[:, 1], c=colors, s=10, edgecolors="none")
            ax.set_title(f"{m} ({len(np.unique(cl))} clusters)")
            ax.set_xlabel(c["axes"][0])
            ax.set_ylabel(c["axes"][1])
        fig.suptitle(title)
        fig.tight_layout()
        return _save(fig, path, dpi)


def decomposition_plots(
    decomp: Mapping[str, Mapping | Decomposition],
    out_dir: Path,
    stem: str,
    dpi: int = DEFAULT_DPI,
    title: str = "decomposition",
) -> list[Path]:
    """Spectrum (explained variance ratio, cumulative), leading components and 2-D projections."""
    paths = []
    models = sorted(decomp)
    with matplotlib.rc_context(_STYLE):
        views = {m: Decomposition.from_dict(d) for m, d in decomp.items()}
        spectra = {m: d.explained_variance_ratio for m, d in views.items() if d.explained_variance_ratio}
        if spectra:
            fig = _new_figure(6.4, 3.8)
            ax = fig.add_subplot(1, 1, 1)
            for j, (m, ratio) in enumerate(sorted(spectra.items())):
                ax.plot(np.arange(1, len(ratio) + 1), np.cumsum(ratio), marker="o", ms=3, color=_PALETTE[j], label=m)
            ax.set_xlabel("number of components")
            ax.set_ylabel("cumulative explained variance ratio")
            ax.set_ylim(0, 1.02)
            ax.legend(loc="lower right", frameon=False)
            ax.set_title(f"{title}: explained variance")
            fig.tight_layout()
            paths.append(_save(fig, out_dir / f"{stem}_variance.png", dpi))
        for m in models:
            shape = views[m].image_shape
            if views[m].components and shape:
                comps = np.asarray(views[m].components, dtype=float)
                fig = _new_figure(1.6 * len(comps), 2.1)
                for i, comp in enumerate(comps):
                    ax = fig.add_subplot(1, len(comps), i + 1)
                    lim = np.max(np.abs(comp)) or 1.0
                    ax.imshow(comp.reshape(shape), cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
                    ax.set_title(f"{i + 1}", fontsize=10)
                    ax.set_axis_off()
                fig.suptitle(f"{m}: leading components")
                fig.tight_layout()
                paths.append(_save(fig, out_dir / f"{stem}_{m}_components.png", dpi))
        rows, cols = _grid(len(models))
        fig = _new_figure(4.2 * cols, 3.8 * rows)
        for i, m in enumerate(models):
            P = np.asarray(views[m].projection, dtype=float)
            lab = views[m].label
            ax = fig.add_subplot(rows, cols, i + 1)
            colors = "#4c72b0" if lab is None else [_PALETTE[v % len(_PALETTE)] for v in lab]
            ax.scatter(P[:, 0], P[:, 1] if P.shape[1] > 1 else np.zeros(len(P)), c=colors, s=8, edgecolors="none")
            ax.set_title(m)
            ax.set_xlabel("component 1")
            ax.set_ylabel("component 2")
        fig.suptitle(f"{title}: projection on two components")
        fig.tight_layout()
        paths.append(_save(fig, out_dir / f"{stem}_projection.png", dpi))
    return paths


def model_views(
    train_results: TrainResult | Mapping, classes: list[str], out_dir: Path, dataset: str, dpi: int = DEFAULT_DPI
) -> list[tuple[str, Path]]:
    """All model views of one dataset (``train_results``: the train stage's record, or its plain data):
    ``[(caption, path)]`` in a fixed order."""
    out: list[tuple[str, Path]] = []
    train_results = as_train_result(train_results)
    models = train_results.models
    curves = {m: e.figure("curves") for m, e in models.items() if e.figure("curves")}
    if curves:
        out.append(
            (
                f"Training curves on {dataset} (per epoch or iteration of the final fit)",
                curves_plot(curves, out_dir / f"curves_{dataset}.png", dpi, f"{dataset}: training curves"),
            )
        )
    if train_results.decision_regions:
        out.append(
            (
                f"Decision regions on {dataset} (training points on top)",
                decision_regions_plot(
                    train_results.decision_regions,
                    classes,
                    out_dir / f"regions_{dataset}.png",
                    dpi,
                    f"{dataset}: decision regions",
                ),
            )
        )
    clusters = {m: e.figure("clusters") for m, e in models.items() if e.figure("clusters")}
    if clusters:
        out.append(
            (
                f"Clusters found on {dataset} (training part)",
                clusters_plot(clusters, out_dir / f"clusters_{dataset}.png", dpi, f"{dataset}: clusters"),
            )
        )
    decomp = {m: e.figure("decomposition") for m, e in models.items() if e.figure("decomposition")}
    if decomp:
        for p in decomposition_plots(decomp, out_dir, f"decomposition_{dataset}", dpi, dataset):
            out.append((f"{dataset}: {p.stem.replace('decomposition_' + dataset + '_', '').replace('_', ' ')}", p))
    return out
