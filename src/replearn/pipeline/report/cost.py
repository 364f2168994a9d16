"""The cost report: fit and predict seconds per model and dataset, and what the time buys (a Pareto view).

Wall-clock time is an outcome of a benchmark, but not a reproducible one: it changes with the machine, its load and
the executor. So it is kept out of everything that must be byte-identical on a rerun -- the records, metrics/ and
report.html -- and lives in ``timing/<dataset>.json`` (written by the crossval stage), in MLflow (``time.*``
metrics of each dataset x model run) and in this separate report, ``reports/cost.html`` and ``reports/cost.md``
(with ``reports/cost_pareto.png``), which report.html links to by a fixed sentence (:data:`LINK_TEXT`). DVC does
not hash them (.dvcignore).

* **Per model and dataset**: the median and the interquartile range of the fit and of the predict seconds over the
  replicates whose fit succeeded (a failed fit has no time), the number of fits, and the mean primary metric.
* **Per model**: the median fit seconds over all its fits, and its mean primary metric over the datasets (when they
  share one primary metric), drawn against each other: the models no other model beats on both -- faster and
  better -- form the Pareto front.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...atomic import write_bytes, write_text
from ..records import Timing, as_evaluations, as_timings
from .document import _DASH, _Cell, _Document, _Heading, _Image, _Paragraph, _Table
from .html import _render_html
from .markdown import _render_markdown

#: the sentence of report.html that points here (fixed: report.html stays byte-identical on rerun)
LINK_TEXT = (
    "Cost: fit and predict seconds per model and dataset (median and interquartile range) and the primary metric "
    "against fit time (a Pareto view) are in cost.html and cost.md beside this report; wall-clock time changes "
    "from run to run, so it is kept out of this report."
)
PARETO_PNG = "cost_pareto.png"


@dataclass(frozen=True)
class CostArtifacts:
    html: Path
    markdown: Path
    plot: Path | None


def _quartiles(values: Sequence[float]) -> tuple[float, float, float] | None:
    if not values:
        return None
    q1, med, q3 = np.percentile(np.asarray(values, dtype=np.float64), [25, 50, 75])
    return float(q1), float(med), float(q3)


def _seconds(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return _DASH
    if x >= 100:
        return f"{x:.0f} s"
    if x >= 1:
        return f"{x:.2f} s"
    return f"{x * 1000:.1f} ms"


def cost_rows(crossval: Mapping, timing: Mapping, order: Sequence[str]) -> list[dict]:
    """One row per dataset x model: ``fits`` (with a time), ``fit``/``predict`` quartiles (None without times),
    ``failed`` and ``mean`` (the primary metric over the successful replicates)."""
    rows = []
    crossval = as_evaluations({d: crossval[d] for d in order if d in crossval})
    timing = as_timings(timing)
    for d in order:
        if d not in crossval:
            continue
        cv = crossval[d]
        metric = cv.primary_metric
        for key in sorted(cv.models):
            m = cv.models[key]
            times = timing[d] if d in timing else Timing.empty()
            fit, pred = times.of(key, "fit_seconds"), times.of(key, "predict_seconds")
            scores = [float(v) for v in m.values(metric) if v is not None]
            rows.append(
                {
                    "dataset": d,
                    "model": key,
                    "metric": metric,
                    "fits": len(fit),
                    "failed": len(m.failures),
                    "fit": _quartiles(fit),
                    "predict": _quartiles(pred),
                    "fit_values": fit,
                    "mean": float(np.mean(scores)) if scores else None,
                }
            )
    return rows


def model_points(rows: Sequence[dict]) -> tuple[str | None, dict[str, tuple[float, float]]]:
    """Per model, (median fit seconds over all its fits, mean primary metric over the datasets), when every
    dataset has the same primary metric; ``(metric, {model: (seconds, score)})``."""
    metrics = {r["metric"] for r in rows}
    if len(metrics) != 1:
        return None, {}
    metric = metrics.pop()
    points = {}
    for key in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == key]
        fits = [v for r in mine for v in r["fit_values"]]
        means = [r["mean"] for r in mine if r["mean"] is not None]
        if fits and means:
            points[key] = (float(np.median(fits)), float(np.mean(means)))
    return metric, points


def pareto_front(points: Mapping[str, tuple[float, float]], higher_is_better: bool) -> list[str]:
    """The models no other model dominates (at most as slow and at least as good, one of them strictly)."""
    sign = 1.0 if higher_is_better else -1.0
    front = []
    for a, (ta, sa) in points.items():
        dominated = any(
            tb <= ta and sign * sb >= sign * sa and (tb < ta or sign * sb > sign * sa)
            for b, (tb, sb) in points.items()
            if b != a
        )
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda k: points[k][0])


def pareto_plot(
    points: Mapping[str, tuple[float, float]], metric: str, higher_is_better: bool, path: Path, dpi: int
) -> Path | None:
    """Mean primary metric against median fit seconds (log axis), one point per model, the front joined."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .plots import _STYLE

    if not points:
        return None
    front = pareto_front(points, higher_is_better)
    with matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=(7.0, 4.8))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        for key, (t, s) in sorted(points.items()):
            on = key in front
            ax.scatter([max(t, 1e-6)], [s], color="#c44e52" if on else "#4c72b0", zorder=3)
            ax.annotate(key, (max(t, 1e-6), s), textcoords="offset points", xytext=(5, 4), fontsize=9)
        if len(front) > 1:
            ax.plot(
                [max(points[k][0], 1e-6) for k in front], [points[k][1] for k in front], color="#c44e52", lw=1, ls="--"
            )
        ax.set_xscale("log")
        ax.set_xlabel("median fit time per replicate (s, log scale)")
        ax.set_ylabel(f"mean {metric} over the datasets ({'higher' if higher_is_better else 'lower'} is better)")
        ax.set_title("What the fit time buys (red: the Pareto front)")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, dpi=dpi, format="png", metadata={"Software": None})
        write_bytes(path, buf.getvalue(), durable=False)  # whole or not at all
    return path


def build_cost_report(
    *, crossval: Mapping, timing: Mapping, order: Sequence[str], out_dir: Path, title: str, dpi: int = 100
) -> CostArtifacts:
    """Write ``out_dir/cost.html``, ``out_dir/cost.md`` and ``out_dir/cost_pareto.png`` (see the module)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    crossval = as_evaluations({d: crossval[d] for d in order if d in crossval})
    rows = cost_rows(crossval, timing, order)
    doc = _Document(f"{title}: cost")
    doc.add(
        _Paragraph(
            "Wall-clock seconds of the last crossval run (timing/<dataset>.json): they depend on the machine, its "
            "load and the executor, so they are kept out of the byte-identical outputs and of report.html. Fit: "
            "fitting one model on one replicate's training part; predict: predicting and scoring its held-out part. "
            "Failed fits have no time."
        )
    )
    images: dict[str, bytes] = {}
    timed = [r for r in rows if r["fits"]]
    if not timed:
        doc.add(_Paragraph("No fit times were recorded (the crossval stage has not run with this version here)."))
    else:
        metric, points = model_points(timed)
        hib = True
        for d in order:
            if d in crossval and crossval[d].greater(metric, None) is not None:
                hib = bool(crossval[d].greater(metric))
                break
        plot_path = None
        if metric is not None and points:
            plot_path = pareto_plot(points, metric, hib, out_dir / PARETO_PNG, dpi)
        doc.add(_Heading(2, "Per model"))
        front = set(pareto_front(points, hib)) if points else set()
        by_model = sorted({r["model"] for r in timed})
        model_rows = []
        for key in by_model:
            fits = [v for r in timed if r["model"] == key for v in r["fit_values"]]
            q = _quartiles(fits)
            point = points.get(key)
            model_rows.append(
                (
                    _Cell(key, key in front),
                    _Cell(str(len(fits))),
                    _Cell(_seconds(q[1] if q else None)),
                    _Cell(_seconds(float(np.sum(fits)) if fits else None)),
                    _Cell(_DASH if point is None else f"{point[1]:.4f}"),
                )
            )
        doc.add(
            _Table(
                ("Model", "Fits", "Median fit", "Total fit", f"Mean {metric}" if metric else "Mean primary metric"),
                tuple(model_rows),
                caption="Over every dataset; bold: on the Pareto front (no model both faster and better)",
            )
        )
        if plot_path is not None:
            images[PARETO_PNG] = plot_path.read_bytes()
            doc.add(_Image(PARETO_PNG, "Mean primary metric against median fit time, one point per model"))
        doc.add(_Heading(2, "Per dataset and model"))
        doc.add(
            _Table(
                (
                    "Dataset",
                    "Model",
                    "Fits",
                    "Failed",
                    "Fit median",
                    "Fit IQR",
                    "Predict median",
                    "Predict IQR",
                    "Mean",
                ),
                tuple(
                    (
                        _Cell(r["dataset"]),
                        _Cell(r["model"]),
                        _Cell(str(r["fits"])),
                        _Cell(str(r["failed"])),
                        _Cell(_seconds(r["fit"][1] if r["fit"] else None)),
                        _Cell(_iqr(r["fit"])),
                        _Cell(_seconds(r["predict"][1] if r["predict"] else None)),
                        _Cell(_iqr(r["predict"])),
                        _Cell(_DASH if r["mean"] is None else f"{r['mean']:.4f}"),
                    )
                    for r in rows
                ),
                caption="Seconds per replicate; IQR: the 25th to the 75th percentile; Mean: the primary metric over "
                "the replicates whose fit succeeded",
            )
        )
    html_path = out_dir / "cost.html"
    md_path = out_dir / "cost.md"
    write_text(html_path, _render_html(doc, images), newline="\n", durable=False)
    write_text(md_path, _render_markdown(doc), newline="\n", durable=False)
    plot = out_dir / PARETO_PNG
    if not images and plot.is_file():
        plot.unlink()  # a stale plot of an earlier run
    return CostArtifacts(html_path, md_path, plot if images else None)


def _iqr(q: tuple[float, float, float] | None) -> str:
    return _DASH if q is None else f"{_seconds(q[0])} – {_seconds(q[2])}"
