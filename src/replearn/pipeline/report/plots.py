"""Deterministic report plots (matplotlib object API, Agg canvas, no pyplot global state).

Every function draws on a fresh :class:`matplotlib.figure.Figure` attached to a
:class:`~matplotlib.backends.backend_agg.FigureCanvasAgg`, with a figure size that depends
only on its inputs, and saves a PNG without the ``Software`` metadata chunk, so two calls
with the same arguments write identical bytes.

* :func:`score_distribution_plot` -- per-model box plot of the per-split cross-validation
  scores, the individual splits overlaid as points and the mean marked.
* :func:`critical_difference_diagram` -- Demsar (2006, JMLR 7, Fig. 1/2) critical-difference
  diagram of average ranks over datasets with the Nemenyi CD bar and the cliques of learners
  that are not significantly different.
* :func:`train_test_plot` -- train vs sealed-test value of one metric per model, on a value axis fitted
  to the data (:func:`value_axis_range`): scores near 1 are not drawn as bars that all reach the edge
  from 0; where the axis does not start at 0 its label says so, and each bar carries its value.

Fonts are sized for reading at the default 100 dpi (11 pt text, 12 pt titles).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.ticker
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..records import as_evaluation
from ..views import Curve, FinalScores, Sweep

__all__ = [
    "NotebookFigure",
    "score_distribution_plot",
    "critical_difference_diagram",
    "critical_difference_figure",
    "save_figure",
    "train_test_plot",
    "value_axis_range",
]

# Fixed style, independent of the user's matplotlibrc, so the bytes do not depend on the machine.
_STYLE: dict[Any, Any] = {  # keys are rcParams names (Any: matplotlib types them as literals)
    "font.family": "DejaVu Sans",
    "font.size": 11.0,
    "axes.titlesize": 12.0,
    "axes.labelsize": 11.0,
    "xtick.labelsize": 10.0,
    "ytick.labelsize": 10.0,
    "legend.fontsize": 10.0,
    "figure.titlesize": 13.0,
    "axes.grid": False,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.edgecolor": "white",
    "savefig.transparent": False,
    "savefig.bbox": "standard",
    "path.simplify": True,
    "image.composite_image": True,
    "text.usetex": False,
    "text.hinting": "force_autohint",
    "text.antialiased": True,
    "lines.antialiased": True,
    "patch.antialiased": True,
    "axes.unicode_minus": True,
}

#: the resolution of every plot unless the report config says otherwise (conf/report: dpi)
DEFAULT_DPI = 100

_BOX_COLOR = "#4c72b0"
_POINT_COLOR = "#333333"
_MEAN_COLOR = "#c44e52"
_TRAIN_COLOR = "#8c8c8c"
_TEST_COLOR = "#4c72b0"


def _new_figure(width: float, height: float, figure_class: type[Figure] | None = None) -> Figure:
    fig = (figure_class or Figure)(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path | str, dpi: int) -> Path:
    import io

    from ...atomic import write_bytes

    path = Path(path)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    write_bytes(path, buf.getvalue(), durable=False)  # whole or not at all; a DVC output (reports/)
    return path


#: what each vector format would otherwise stamp into the file (the date, the software version): left out, so
#: two saves of one figure are the same bytes
_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}


def save_figure(fig: Figure, path: Path | str, dpi: int = DEFAULT_DPI) -> Path:
    """Save ``fig`` as PNG, SVG or PDF (by the suffix of ``path``), deterministically: no date or software
    version in the file, and SVG element ids from a fixed salt."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in _METADATA:
        raise ValueError(f"a figure is saved as .png, .svg or .pdf, got {path.name!r}")
    import io

    from ...atomic import write_bytes

    buf = io.BytesIO()
    with matplotlib.rc_context({**_STYLE, "svg.hashsalt": "replearn", "svg.fonttype": "path"}):
        fig.savefig(buf, format=fmt, dpi=_check_dpi(dpi), metadata=_METADATA[fmt])
    write_bytes(path, buf.getvalue(), durable=False)  # whole or not at all (replearn.atomic)
    return path


class NotebookFigure(Figure):
    """A figure that shows itself in Jupyter as a PNG (``_repr_png_``) without pyplot or an inline backend."""

    def _repr_png_(self) -> bytes:
        import io

        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=100, metadata={"Software": None})
        return buf.getvalue()


def _check_dpi(dpi: int) -> int:
    if isinstance(dpi, bool) or not isinstance(dpi, (int, np.integer)) or dpi < 10:
        raise ValueError(f"dpi must be an integer >= 10, got {dpi!r}")
    return int(dpi)


def score_distribution_plot(
    dataset_name: str,
    cv_result: Mapping,
    metric: str,
    path: Path | str,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Box plot of the per-split scores of every model on one dataset, for one metric.

    One horizontal box per model (model names on the y axis, sorted by name from top to
    bottom), the individual split scores drawn as points with a small vertical jitter from a
    generator seeded with 0, and the mean over splits marked with a red diamond.

    Parameters
    ----------
    dataset_name : str
        Shown in the title.
    cv_result : EvaluationResult or mapping
        One dataset's crossval record (or its plain data): uses every model's ``scores`` of
        ``metric`` and ``greater_is_better``.
    metric : str
        Which metric to plot; must be present in every model's ``scores``.
    path : path-like
        Output PNG file (parent folders are created).
    dpi : int
        Resolution of the PNG.

    Returns
    -------
    Path
        ``path``.
    """
    dpi = _check_dpi(dpi)
    record = as_evaluation(cv_result)
    models = sorted(record.models)
    if not models:
        raise ValueError(f"dataset {dataset_name!r} has no models to plot")
    data = []
    for name in models:
        scores = record.models[name].scores
        if metric not in scores:
            raise KeyError(f"model {name!r} on dataset {dataset_name!r} has no scores for metric {metric!r}")
        data.append(np.asarray(scores[metric], dtype=float))
    greater = record.greater(metric, None)
    direction = "" if greater is None else (" (higher is better)" if greater else " (lower is better)")
    n_splits = max(len(d) for d in data)

    height = 1.2 + 0.45 * len(models)
    with matplotlib.rc_context(_STYLE):
        fig = _new_figure(6.4, height)
        ax = fig.add_subplot(1, 1, 1)
        # Top-to-bottom in name order: position len-i for model i.
        positions = np.arange(len(models), 0, -1, dtype=float)
        finite = [d[np.isfinite(d)] for d in data]
        ax.boxplot(
            finite,
            positions=positions,
            orientation="horizontal",
            widths=0.55,
            showfliers=False,
            patch_artist=True,
            boxprops={"facecolor": "#dde4f0", "edgecolor": _BOX_COLOR},
            medianprops={"color": _BOX_COLOR, "linewidth": 1.5},
            whiskerprops={"color": _BOX_COLOR},
            capprops={"color": _BOX_COLOR},
        )
        rng = np.random.default_rng(0)
        for pos, values in zip(positions, finite):
            jitter = rng.uniform(-0.12, 0.12, size=values.size)
            ax.scatter(values, pos + jitter, s=10, color=_POINT_COLOR, alpha=0.7, zorder=3, linewidths=0)
            if values.size:
                ax.scatter(
                    [float(np.mean(values))],
                    [pos],
                    marker="D",
                    s=30,
                    color=_MEAN_COLOR,
                    zorder=4,
                    label="mean" if pos == positions[0] else None,
                )
        ax.set_yticks(positions)
        ax.set_yticklabels(models)
        ax.set_ylim(0.4, len(models) + 0.6)
        ax.set_xlabel(f"{metric}{direction}")
        ax.set_title(f"{dataset_name}: {metric} over {n_splits} cross-validation splits")
        ax.grid(axis="x", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        if any(v.size for v in finite):
            ax.legend(loc="best", frameon=False)
        fig.tight_layout()
        return _save(fig, path, dpi)


def _nice_floor(x: float, width: float) -> float:
    """``x`` rounded down to a round number at the scale of ``width`` (0.87 at width 0.1 -> 0.8)."""
    step = 10.0 ** math.floor(math.log10(width))
    return math.floor(x / step + 1e-9) * step


def value_axis_range(values: Sequence[float]) -> tuple[float, float, bool]:
    """``(low, high, cut)``: a value axis for bars of ``values`` (NaN ignored), ``cut`` when it does not start at 0.

    Bars start at 0 when 0 is close to the data (within three times their spread) or among them; otherwise
    the axis starts at a round number below the smallest value -- accuracies of 0.93 to 1.0 get an axis from
    0.8, not 0, so that their differences are visible -- and the caller must say so. ``high`` leaves room
    after the largest value for its label.
    """
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return 0.0, 1.0, False
    lo, hi = float(v.min()), float(v.max())
    spread = max(hi - lo, 0.05 * max(abs(lo), abs(hi)), 1e-12)
    if lo <= 0.0 or hi <= 0.0 or lo - 3.0 * spread <= 0.0:  # 0 is near or among the values: bars from 0
        low, high = min(lo, 0.0), max(hi, 0.0)
        width = high - low if high > low else 1.0
        return low - (0.02 * width if low < 0 else 0.0), high + 0.18 * width, False
    low = _nice_floor(lo - 0.5 * spread, hi - (lo - 0.5 * spread))
    return low, hi + 0.18 * (hi - low), True


def train_test_plot(
    dataset_name: str,
    model_metrics: Mapping[str, Mapping],
    metric: str,
    path: Path | str,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Paired horizontal bars: train and sealed-test value of ``metric`` for every model.

    ``model_metrics`` is ``train_metrics[dataset]``: model -> {"train": {...}, "test": {...}}.
    Missing values are left out (no bar). The value axis comes from :func:`value_axis_range`; when it
    does not start at 0 the axis label says where it starts. Each bar is labelled with its value.
    """
    dpi = _check_dpi(dpi)
    models = sorted(model_metrics)
    if not models:
        raise ValueError(f"dataset {dataset_name!r} has no models to plot")

    def value(model: str, part: str) -> float:
        v = FinalScores.from_dict(model_metrics[model]).value(part, metric)
        return math.nan if v is None else float(v)

    train = np.array([value(m, "train") for m in models])
    test = np.array([value(m, "test") for m in models])
    low, high, cut = value_axis_range([*train, *test])
    height = 1.3 + 0.55 * len(models)
    with matplotlib.rc_context(_STYLE):
        fig = _new_figure(6.4, height)
        ax = fig.add_subplot(1, 1, 1)
        positions = np.arange(len(models), 0, -1, dtype=float)
        bar = 0.36
        base = low if cut else 0.0
        for values, offset, color, label in (
            (train, bar / 2, _TRAIN_COLOR, "train"),
            (test, -bar / 2, _TEST_COLOR, "test (sealed)"),
        ):
            ok = np.isfinite(values)
            ax.barh(positions[ok] + offset, values[ok] - base, left=base, height=bar, color=color, label=label)
            for y, v in zip(positions[ok] + offset, values[ok]):
                ax.text(v + 0.01 * (high - low), y, f"{v:.3f}", va="center", ha="left", fontsize=9, color="#333333")
        ax.set_xlim(low, high)
        ax.set_yticks(positions)
        ax.set_yticklabels(models)
        ax.set_ylim(0.4, len(models) + 0.6)
        ax.set_xlabel(f"{metric} (axis cut: starts at {low:g}, not 0)" if cut else metric)
        ax.set_title(f"{dataset_name}: {metric} on the training and sealed test sets")
        ax.grid(axis="x", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        fig.tight_layout()
        return _save(fig, path, dpi)


def critical_difference_diagram(
    average_ranks: Mapping[str, float],
    cd: float | None,
    cliques: Sequence[Sequence[str]],
    path: Path | str,
    dpi: int = DEFAULT_DPI,
    title: str | None = "Critical difference diagram",
) -> Path:
    """:func:`critical_difference_figure` saved to ``path``: a PNG (or, by the suffix, an SVG or a PDF)."""
    dpi = _check_dpi(dpi)
    fig = critical_difference_figure(average_ranks, cd, cliques, title=title)
    return save_figure(fig, path, dpi)


def critical_difference_figure(
    average_ranks: Mapping[str, float],
    cd: float | None,
    cliques: Sequence[Sequence[str]],
    *,
    title: str | None = "Critical difference diagram",
    figure_class: type[Figure] | None = None,
) -> Figure:
    """Critical-difference diagram in the style of Demsar (2006), Fig. 1 and 2.

    A horizontal rank axis runs from 1 (best, left) to k (right). Each learner is joined by
    an elbow line to its average rank; the better half of the learners are named on the left,
    the others on the right, each label followed by its average rank. Above the axis a bar of
    length ``cd`` (in rank units) is labelled "CD". Below the axis a thick bar joins the
    learners of each clique (group whose average ranks are not significantly different by the
    Nemenyi test); single-learner cliques are not drawn.

    Parameters
    ----------
    average_ranks : mapping name -> float
        Average rank of every learner over the datasets (1 = best).
    cd : float or None
        Nemenyi critical difference; None (or NaN) omits the CD bar.
    cliques : sequence of sequences of names
        Groups of learners not significantly different from one another.
    title : str or None
        Drawn above the diagram when given.
    figure_class : Figure subclass, optional
        The class of the figure (:class:`NotebookFigure` to show it in Jupyter).
    """
    if len(average_ranks) < 2:
        raise ValueError(f"a critical difference diagram needs at least 2 learners, got {len(average_ranks)}")
    unknown = sorted({n for c in cliques for n in c} - set(average_ranks))
    if unknown:
        raise ValueError(f"cliques name learners without an average rank: {unknown}")
    items = sorted(((float(r), str(n)) for n, r in average_ranks.items()), key=lambda t: (t[0], t[1]))
    k = len(items)
    show_cd = cd is not None and math.isfinite(float(cd)) and float(cd) > 0
    drawn = [sorted(set(c), key=lambda n: (float(average_ranks[n]), n)) for c in cliques if len(set(c)) >= 2]
    drawn = sorted(drawn, key=lambda c: (float(average_ranks[c[0]]), float(average_ranks[c[-1]]), c))

    labels = [f"{n} ({r:.2f})" for r, n in items]
    longest = max(len(s) for s in labels)
    text_space = max(1.2, 0.068 * longest + 0.35)  # inches on each side for the names
    axis_width = max(4.0, 0.9 * (k - 1))
    width = axis_width + 2 * text_space

    def x_of(rank: float) -> float:
        return text_space + (rank - 1.0) / (k - 1) * axis_width

    y = 0.25
    y_title = y
    if title:
        y += 0.35
    y_cd = y + 0.2
    y_axis = y_cd + (0.55 if show_cd else 0.25)
    y_clique0 = y_axis + 0.22
    clique_step = 0.13
    y_names0 = y_clique0 + clique_step * len(drawn) + 0.2
    n_left = math.ceil(k / 2)
    n_right = k - n_left
    step = 0.27
    height = y_names0 + step * max(n_left, n_right) + 0.1

    with matplotlib.rc_context(_STYLE):
        fig = _new_figure(width, height, figure_class)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(0.0, width)
        ax.set_ylim(height, 0.0)  # y grows downwards, in inches
        ax.set_axis_off()

        def line(xs, ys, **kw):
            kw.setdefault("color", "black")
            kw.setdefault("linewidth", 0.9)
            kw.setdefault("solid_capstyle", "butt")
            ax.plot(xs, ys, **kw)

        if title:
            ax.text(width / 2, y_title, title, ha="center", va="center", fontsize=10)

        # Rank axis with integer ticks (labelled) and half ticks.
        line([x_of(1), x_of(k)], [y_axis, y_axis], linewidth=1.0)
        for i in range(1, k + 1):
            line([x_of(i), x_of(i)], [y_axis, y_axis - 0.1])
            ax.text(x_of(i), y_axis - 0.14, str(i), ha="center", va="bottom", fontsize=9)
        for i in range(1, k):
            line([x_of(i + 0.5), x_of(i + 0.5)], [y_axis, y_axis - 0.05])

        if show_cd and cd is not None:
            cdv = float(cd)
            x0, x1 = x_of(1), x_of(1) + cdv / (k - 1) * axis_width
            line([x0, x1], [y_cd, y_cd], linewidth=1.2)
            line([x0, x0], [y_cd - 0.05, y_cd + 0.05], linewidth=1.2)
            line([x1, x1], [y_cd - 0.05, y_cd + 0.05], linewidth=1.2)
            ax.text((x0 + x1) / 2, y_cd - 0.08, f"CD = {cdv:.2f}", ha="center", va="bottom", fontsize=9)

        # Learners: best half on the left (best at the top), the rest on the right (worst at
        # the top), so that no two connecting lines cross.
        for i, ((rank, _), label) in enumerate(zip(items[:n_left], labels[:n_left])):
            yy = y_names0 + i * step
            xr = x_of(rank)
            line([xr, xr, text_space - 0.1], [y_axis, yy, yy])
            ax.text(text_space - 0.15, yy, label, ha="right", va="center", fontsize=9)
        for j, ((rank, _), label) in enumerate(zip(items[n_left:], labels[n_left:])):
            yy = y_names0 + (n_right - 1 - j) * step
            xr = x_of(rank)
            line([xr, xr, width - text_space + 0.1], [y_axis, yy, yy])
            ax.text(width - text_space + 0.15, yy, label, ha="left", va="center", fontsize=9)

        # Cliques: thick bars slightly wider than the rank span they join.
        for c, members in enumerate(drawn):
            yy = y_clique0 + c * clique_step
            lo = x_of(float(average_ranks[members[0]])) - 0.05
            hi = x_of(float(average_ranks[members[-1]])) + 0.05
            line([lo, hi], [yy, yy], linewidth=3.0, solid_capstyle="round")

        return fig


def sweep_plot(dataset: str, sweep: Sweep | Mapping, path: Path | str, dpi: int = DEFAULT_DPI) -> Path:
    """Each model's mean score along the sweep axis with a band of ± one standard error; the best point is
    marked with a filled circle and the one-standard-error choice with an open square."""
    sweep = Sweep.from_dict(sweep)
    models = sorted(sweep.models)
    values = list(sweep.values)
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    x = [float(v) for v in values] if numeric else list(range(len(values)))
    with matplotlib.rc_context(_STYLE):  # the fixed style: the bytes do not depend on the machine
        fig = _new_figure(6.4, 4.0)
        ax = fig.add_subplot(1, 1, 1)
        palette = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]
        for i, key in enumerate(models):
            m = sweep.models[key]
            means = [c["mean"] if c["mean"] is not None else math.nan for c in m.curve]
            se = [c["se"] if c["se"] is not None else 0.0 for c in m.curve]
            color = palette[i % len(palette)]
            ax.plot(x, means, marker=".", color=color, label=key)
            ax.fill_between(
                x,
                [a - b for a, b in zip(means, se)],
                [a + b for a, b in zip(means, se)],
                color=color,
                alpha=0.15,
                linewidth=0,
            )
            for point, marker, fill in ((m.best, "o", color), (m.one_se, "s", "none")):
                if point is not None and point in values:
                    j = values.index(point)
                    ax.plot(
                        [x[j]], [means[j]], marker=marker, markersize=8, markerfacecolor=fill, markeredgecolor=color
                    )
        if not numeric:
            ax.set_xticks(x)
            ax.set_xticklabels([str(v) for v in values])
        ax.set_xlabel(str(sweep.axis))
        ax.set_ylabel(f"mean {sweep.metric} (± 1 SE)")
        ax.set_title(f"{dataset}: sweep over {sweep.axis} (● best, □ one-SE choice)")
        ax.legend(loc="best", fontsize="small")
        fig.tight_layout()
        return _save(fig, path, dpi)


def curve_plot(title: str, curve: Curve, path: Path | str, dpi: int) -> Path | None:
    """A named curve of a reproduction: every series drawn against the axis ``curve.x``."""
    x, series = curve.x, curve.series
    fig = _new_figure(6.4, 3.8)
    ax = fig.add_subplot(1, 1, 1)
    palette = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x)
    xs = x if numeric else list(range(len(x)))
    for i, (name, values) in enumerate(sorted(series.items())):
        ys = [math.nan if v is None else float(v) for v in values]
        ax.plot(xs, ys, marker="." if len(xs) <= 40 else None, color=palette[i % len(palette)], label=name)
    if not numeric:
        ax.set_xticks(xs)
        ax.set_xticklabels([str(v) for v in x], rotation=30, fontsize="small")
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return _save(fig, path, dpi)


_PALETTE = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]


def _mean_band(curves: Sequence[Sequence[float] | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step: the mean and standard deviation over the replicates whose curve reaches that step, and how many."""
    runs = [np.asarray(c, dtype=float) for c in curves if c]
    length = max((len(c) for c in runs), default=0)
    mean, std, count = np.full(length, np.nan), np.zeros(length), np.zeros(length, dtype=int)
    for t in range(length):
        vals = np.array([c[t] for c in runs if len(c) > t and np.isfinite(c[t])])
        count[t] = vals.size
        if vals.size:
            mean[t] = vals.mean()
            std[t] = vals.std(ddof=1) if vals.size > 1 else 0.0
    return mean, std, count


def seed_curves_plot(dataset: str, curves: Mapping, path: Path | str, dpi: int = DEFAULT_DPI) -> Path | None:
    """Learning curves of an experiment family's units over seeds: per unit the mean ± one standard deviation
    at every step (over the replicates that reach it); one panel per kind of curve (``label``), log scale where
    the values are positive and span more than three decades (Bellman residuals).

    ``curves``: unit key -> its :class:`~replearn.pipeline.records.ModelEvaluation` (``curve_label``, ``curves``: a
    list or None per replicate).
    """
    by_label: dict[str, list[tuple[str, list]]] = {}
    for key in sorted(curves):
        entry = curves[key]
        if entry.curves and any(entry.curves):
            by_label.setdefault(str(entry.curve_label or "curve"), []).append((key, entry.curves))
    if not by_label:
        return None
    with matplotlib.rc_context(_STYLE):
        n = len(by_label)
        fig = _new_figure(6.4 * min(n, 2), 4.0 * math.ceil(n / 2))
        for i, (label, entries) in enumerate(sorted(by_label.items())):
            ax = fig.add_subplot(math.ceil(n / 2), min(n, 2), i + 1)
            positive = True
            lo, hi = math.inf, 0.0
            for j, (key, runs) in enumerate(entries):
                mean, std, _ = _mean_band(runs)
                x = np.arange(1, mean.size + 1)
                color = _PALETTE[j % len(_PALETTE)]
                ax.plot(x, mean, color=color, label=f"{key} ({sum(1 for r in runs if r)} seeds)", lw=1.8)
                ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.15, linewidth=0)
                finite = mean[np.isfinite(mean)]
                if finite.size:
                    positive = positive and bool(np.all(finite > 0))
                    lo, hi = min(lo, float(finite.min())), max(hi, float(finite.max()))
            if positive and lo > 0 and hi / lo > 1e3:
                ax.set_yscale("log")
            ax.set_xlabel("iteration / round")
            ax.set_ylabel(label if len(label) <= 40 else label[:37] + "...")
            ax.set_title(f"{dataset}: {label}" if len(label) <= 50 else dataset)
            ax.legend(loc="best", fontsize="small")
        fig.tight_layout()
        return _save(fig, path, dpi)


def scaling_plot(
    title: str,
    axis: str,
    rows: Mapping[str, Mapping[str, list[tuple[float, float, float]]]],
    path,
    dpi: int = DEFAULT_DPI,
) -> Path | None:
    """Metrics against a problem size across datasets: ``rows[metric][unit] = [(size, mean, std), ...]``; one panel
    per metric, a line per unit with ± one standard deviation as error bars; log-log where every value is positive."""
    metrics = [m for m in rows if any(len(v) >= 2 for v in rows[m].values())]
    if not metrics:
        return None
    with matplotlib.rc_context(_STYLE):
        n = len(metrics)
        fig = _new_figure(5.2 * min(n, 3), 4.0 * math.ceil(n / 3))
        for i, metric in enumerate(metrics):
            ax = fig.add_subplot(math.ceil(n / 3), min(n, 3), i + 1)
            positive = True
            for j, unit in enumerate(sorted(rows[metric])):
                pts = sorted(rows[metric][unit])
                if not pts:
                    continue
                xs, ms, sd = (np.array([p[k] for p in pts], dtype=float) for k in range(3))
                positive = positive and bool(np.all(ms > 0) and np.all(xs > 0))
                ax.errorbar(xs, ms, yerr=sd, marker="o", ms=4, capsize=3, color=_PALETTE[j % len(_PALETTE)], label=unit)
            if positive:
                ax.set_xscale("log")
                ax.set_yscale("log")
            sizes = sorted({p[0] for pts in rows[metric].values() for p in pts})
            ax.set_xticks(sizes)
            ax.set_xticklabels([f"{v:g}" for v in sizes])
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
            ax.set_xlabel(axis)
            ax.set_ylabel(f"mean {metric}")
            ax.set_title(metric)
            ax.legend(loc="best", fontsize="small")
        fig.suptitle(title)
        fig.tight_layout()
        return _save(fig, path, dpi)
