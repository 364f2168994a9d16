"""Report builder: a self-contained HTML report, a Markdown summary and PNG plots.

Inputs are the JSON results written by the earlier pipeline stages (cross-validation,
significance tests, final train/test metrics). The report is assembled once as a small
document model (headings, paragraphs, tables, images, lists) and rendered twice, to HTML and
to Markdown, so both carry exactly the same information.

Reproducibility: nothing machine-dependent goes in (no timestamps, no absolute paths, no
library versions); datasets are listed in the configured order and models in sorted order; the plots are
byte-deterministic (see :mod:`replearn.pipeline.report.plots`). Rerunning with the same inputs
writes byte-identical files.

The package: :mod:`.document` (the document model and formatting), :mod:`.sections` (one builder per
part of the report), :mod:`.fewruns` (IQM, bootstrap intervals, probability of improvement and detectable effects
for seed replicates), :mod:`.summary` (the verdicts at the top), :mod:`.html` and :mod:`.markdown` (the
renderers), :mod:`.plots` and :mod:`.figures` (the deterministic PNG plots).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ...atomic import write_text
from .. import records
from ..views import ExperimentHeader, Nemenyi, ProblemFamily, ReproductionRecord, Significance, final_scores
from . import benchmark as _benchmark
from . import fewruns as _fewruns
from . import leaderboard as _leaderboard
from . import matrix as _matrix
from .cost import LINK_TEXT as COST_LINK_TEXT
from .document import _Cell, _Document, _Fmt, _Heading, _Image, _LinkParagraph, _List, _Paragraph, _Table
from .failures import across_failure_note, failures_section
from .html import _render_html
from .markdown import _render_markdown
from .sections import (
    _across_metric,
    _across_pairs_section,
    _across_section,
    _alpha,
    _bayesian_table,
    _crossval_table,
    _family_scaling_rows,
    _family_scaling_section,
    _family_section,
    _header,
    _how_to_read,
    _join_names,
    _mcnemar_table,
    _pairwise_table,
    _reproduction_section,
    _slug,
    _sweep_section,
    _test_set_metric_table,
    _test_table,
    _validate_settings,
    describe_scheme,
)
from .summary import across_line as summary_across_line
from .summary import summary_lines

__all__ = ["ReportArtifacts", "build_report", "describe_scheme"]


@dataclass(frozen=True)
class ReportArtifacts:
    """Paths of what :func:`build_report` wrote.

    ``html`` / ``markdown`` are None when that format is not in ``settings["formats"]``;
    ``plots`` is sorted (empty when ``settings["plots"]`` is false).
    """

    html: Path | None
    markdown: Path | None
    plots: list[Path]


# --------------------------------------------------------------------------- entry point


def build_report(
    *,
    crossval: Mapping[str, records.EvaluationResult | Mapping],
    significance: dict | Significance,
    train_metrics: dict,
    settings: dict,
    experiment: dict,
    out_dir: Path,
    train_results: dict | None = None,
    reproduction: dict | None = None,
) -> ReportArtifacts:
    """Write ``out_dir/report.html``, ``out_dir/report.md`` and ``out_dir/plots/*.png``.

    Parameters
    ----------
    crossval : mapping
        dataset name -> the crossval stage's record (:class:`~replearn.pipeline.records.EvaluationResult`, or its
        plain data: built and checked here).
    significance : dict or Significance
        Output of the ``compare`` stage: per-dataset pairwise tests and the across-datasets
        Friedman/Nemenyi analysis (read through its typed view, :class:`~replearn.pipeline.views.Significance`).
    train_metrics : dict
        dataset -> model -> {"train": {metric: value}, "test": {metric: value}}.
    settings : dict
        The ``report`` config section: title, decimals (3), dpi (100), plots (true),
        formats (["html", "markdown"]).
    experiment : dict
        name, params_hash, datasets, models (shown in the header).
    out_dir : Path
        Output folder (created). Stale ``plots/*.png`` from an earlier run are removed so the
        folder matches the report.
    train_results : dict, optional
        dataset -> the train stage's ``results/train/<dataset>.json`` (predictions and the data of
        the model views: learning curves, decision regions, clusters, components), drawn by
        :func:`replearn.pipeline.figures.model_views`.

    Returns
    -------
    ReportArtifacts
        The written paths (``html``/``markdown`` None for a format not requested).

    Raises
    ------
    ConfigError
        Invalid ``settings`` values (decimals, dpi, plots, formats).
    """
    # the plotting modules load matplotlib: here, so that the document model and the sections import without it
    from .. import family_views as _family_views
    from . import figures as _figures
    from . import plots as _plots

    title, decimals, dpi, make_plots, formats = _validate_settings(settings)
    significance = Significance.from_dict(significance)
    crossval = records.as_evaluations(crossval)
    train_results = records.as_train_results(train_results) if train_results else train_results
    f = _Fmt(decimals)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_dir = out_dir / "plots"
    written: list[Path] = []
    images: dict[str, bytes] = {}

    def plot(relname: str, draw) -> str | None:
        if not make_plots:
            return None
        path = plot_dir / relname
        draw(path)
        if not path.is_file():  # nothing to draw
            return None
        written.append(path)
        rel = f"plots/{relname}"
        images[rel] = path.read_bytes()
        return rel

    doc = _Document(title)
    order = [d for d in ExperimentHeader.from_dict(experiment).datasets if d in crossval]  # the configured order
    order += [d for d in sorted(crossval) if d not in order]
    # a benchmark over many datasets: one heat-map and one table instead of a section per dataset (.benchmark)
    kinds = {d: crossval[d].problem_kind for d in order}
    compact = _benchmark.is_compact(settings, len(order)) and all(kinds[d].sealed_test for d in order)
    doc.add(_Heading(2, "Summary"))
    # a run over >= 8 datasets opens on the leaderboard (.leaderboard); the summary names its top group in a sentence
    board = compact and _leaderboard.applies(len(order))
    if compact:
        across_summary = summary_across_line(significance, f)
        if board:
            metric = _benchmark.mean_table(crossval, order)[2]
            across_summary = _leaderboard.top_group_sentence(significance, metric) or across_summary
        lines = [_benchmark.digest_line(crossval, significance, order, significance.round_before_ranking)]
        doc.add(_List(tuple(lines + ([across_summary] if across_summary else []))))
    else:
        doc.add(_List(tuple(summary_lines(crossval, significance, f, order))))
    doc.add(
        _Paragraph(
            "Each verdict names the test that made it; the sections below give every number. How often these tests "
            "reject a true null hypothesis (their calibration) is measured in docs/statistics.md, section Calibration "
            "(../docs/statistics.md#calibration)."
        )
    )
    doc.add(_LinkParagraph(COST_LINK_TEXT, (("cost.html", "cost.html"), ("cost.md", "cost.md"))))
    board_at = len(doc.blocks)  # the leaderboard goes here, once its pictures are drawn (below)
    failures_section(doc, crossval, order, train_results)  # every failed fit (cv.on_error: record); else nothing
    _header(doc, experiment, crossval)
    repro = ReproductionRecord.from_dict(reproduction)
    if repro.preset:
        repro_images = []
        for cname, curve in repro.drawable_curves().items():
            rel = plot(
                f"reproduction_{_slug(cname)}.png",
                lambda p, cname=cname, curve=curve: _plots.curve_plot(cname, curve, p, dpi),
            )
            if rel:
                repro_images.append(_Image(rel, f"{repro.preset}: {cname}"))
        _reproduction_section(doc, repro, f, repro_images)
    for ds in [] if compact else order:
        cv = crossval[ds]
        slug = _slug(ds)
        kind = kinds[ds]
        doc.add(_Heading(2, f"Dataset: {ds}"))
        if kind.problem_view:  # an experiment family's problem: what it is, and the units' learning curves over seeds
            curves = dict(cv.models)
            rel = plot(
                f"curves_{slug}.png", lambda p, ds=ds, curves=curves: _plots.seed_curves_plot(ds, curves, p, dpi)
            )
            doc.add(_Heading(3, f"Problem ({kind.name})"))
            _family_section(doc, cv, f, _Image(rel, f"Learning curves over seeds on {ds}") if rel else None)
        doc.add(_Heading(3, kind.replicates_heading))
        _crossval_table(doc, cv, f)
        primary = cv.primary
        if primary is not None and cv.models:
            rel = plot(
                f"cv_{slug}.png",
                lambda p, ds=ds, cv=cv, primary=primary: _plots.score_distribution_plot(ds, cv, primary, p, dpi),
            )
            if rel:
                doc.add(_Image(rel, f"Score distribution of {primary} on {ds}"))
        doc.add(_Heading(3, kind.final_heading))
        _test_table(doc, ds, cv, train_metrics, f)
        if primary is not None and final_scores(train_metrics, ds) and kind.sealed_test:
            rel = plot(
                f"train_test_{slug}.png",
                lambda p, ds=ds, primary=primary: _plots.train_test_plot(ds, train_metrics[ds], primary, p, dpi),
            )
            if rel:
                doc.add(_Image(rel, f"Train and test {primary} on {ds}"))
        if make_plots and train_results and ds in train_results and kind.fits_estimators:
            views = _figures.model_views(train_results[ds], list(cv.classes or []), plot_dir, slug, dpi)
            if views:
                doc.add(_Heading(3, "Model views"))
            for caption, path in views:
                written.append(path)
                rel = f"plots/{path.name}"
                images[rel] = path.read_bytes()
                doc.add(_Image(rel, caption))
        doc.add(_Heading(3, kind.pairwise_heading))
        entry = significance.dataset(ds)
        left_out = significance.left_out(ds)
        if left_out:
            doc.add(_Paragraph(f"Left out of the significance tests (no {primary} score): {_join_names(left_out)}."))
        if entry.sweep is not None:
            rel = plot(f"sweep_{slug}.png", lambda p, ds=ds, sweep=entry.sweep: _plots.sweep_plot(ds, sweep, p, dpi))
            _sweep_section(
                doc,
                entry,
                significance,
                f,
                _Image(rel, f"Sweep over {entry.sweep.axis} on {ds}") if rel else None,
            )
        _pairwise_table(doc, entry, cv, significance, f)
        _bayesian_table(doc, entry, significance, f)
        _fewruns.dataset_section(doc, ds, cv, entry, significance, f)  # seed replicates: IQM, PoI, detectable effect
        if not kind.sealed_test:
            doc.add(
                _Paragraph(
                    f"No sealed test set: McNemar's test and the test-set metric test need test-set predictions, "
                    f"which a problem of the {kind.name} family does not have; the units are compared over "
                    f"{kind.replicates} above."
                )
            )
            continue
        doc.add(_Heading(3, "McNemar's test (sealed test set)"))
        _mcnemar_table(doc, entry, cv, f)
        _test_set_metric_table(doc, entry, significance, f)

    for fam_name in sorted({kinds[d].name for d in order if kinds[d].problem_view}):
        fam_ds = [d for d in order if kinds[d].name == fam_name]
        axis, rows = _family_scaling_rows({d: crossval[d] for d in fam_ds})
        sizes = {size for per in rows.values() for pts in per.values() for size, _, _ in pts}
        if axis and len(sizes) >= 2:
            rel = plot(
                f"scaling_{_slug(fam_name)}.png",
                lambda p, fam_name=fam_name, axis=axis, rows=rows: _plots.scaling_plot(
                    f"{fam_name}: against {axis}", axis, rows, p, dpi
                ),
            )
            _family_scaling_section(
                doc, fam_name, axis, rows, f, _Image(rel, f"{fam_name} metrics against {axis}") if rel else None
            )
        few = _fewruns.family_numbers(fam_name, {d: crossval[d] for d in fam_ds}, significance)
        if few is not None:  # >= 2 problems: aggregate IQM and the performance profile
            rel = plot(
                f"profile_{_slug(fam_name)}.png",
                lambda p, few=few: _plots._save(_fewruns.profile_figure(few), p, dpi),
            )
            _fewruns.family_section(
                doc, few, f, _Image(rel, f"Performance profile of the {fam_name} family") if rel else None
            )
        draw_figures = _family_views.figures(fam_name)  # pictures particular to the family (bounds, samples)
        if draw_figures is not None and make_plots:
            figs = draw_figures(
                {d: crossval[d] for d in fam_ds},
                {d: ProblemFamily.from_dict(crossval[d].family).problem for d in fam_ds},
            )
            if figs:
                doc.add(_Heading(2, f"Figures of the {fam_name} family"))
            for i, (caption, fig) in enumerate(figs):
                rel = plot(f"family_{_slug(fam_name)}_{i}.png", lambda p, fig=fig: _plots._save(fig, p, dpi))
                if rel:
                    doc.add(_Image(rel, caption))
        text_samples = _family_views.text_samples(fam_name)
        if text_samples is not None:  # what the language models write, after the same held-out prompt
            samples = text_samples({d: crossval[d] for d in fam_ds})
            if samples:
                doc.add(_Heading(2, f"Generated text ({fam_name} family)"))
                doc.add(
                    _Paragraph(
                        "Each unit's continuation of the same held-out prompt, sampled from its predictive "
                        "distribution in the first replicate (⏎ marks a line break)."
                    )
                )
                doc.add(
                    _Table(
                        ("Dataset", "Unit", "Prompt", "Generated"),
                        tuple(tuple(_Cell(c) for c in row) for row in samples),
                    )
                )

    view = significance.across_datasets
    cd_image = None
    if view.ran and len(view.average_ranks) >= 2:
        nem = view.nemenyi if view.nemenyi is not None else Nemenyi()
        rel = plot(
            "critical_difference.png",
            lambda p: _plots.critical_difference_diagram(
                view.average_ranks,
                nem.cd,
                nem.cliques,
                p,
                dpi,
                title=f"Average ranks on {_across_metric(view, significance, crossval)[0]} "
                f"(Nemenyi, α = {_alpha(nem.alpha)})",
            ),
        )
        if rel:
            cd_image = _Image(rel, "Critical difference diagram of the average ranks")
    pairwise_view = matrix_image = None
    matrix = _matrix.pairwise_matrix(view, significance.across_pairs, significance.alpha)
    if compact and matrix is not None:  # a benchmark: one k x k matrix before the per-pair tables
        rel = plot("pairwise_matrix.png", lambda p: _matrix.pairwise_matrix_plot(matrix, p, dpi))
        matrix_image = _Image(rel, "Pairwise matrix: every pair of models across datasets") if rel else None
        pairwise_view = _matrix.matrix_blocks(matrix, f, matrix_image)
    heatmap_image = None
    if compact:
        models, means, metric, higher = _benchmark.mean_table(crossval, order)
        ranks = _benchmark.rank_rows(means, higher, significance.round_before_ranking)
        cols = sorted(range(len(models)), key=lambda j: (ranks[:, j].mean(), models[j]))
        rel = plot(
            "rank_heatmap.png",
            lambda p: _benchmark.rank_heatmap_plot(
                order,
                [models[j] for j in cols],
                ranks[:, cols],
                means[:, cols],
                p,
                dpi,
                metric=str(metric),
                decimals=decimals,
            ),
        )
        heatmap_image = _Image(rel, f"Rank of every model on each of the {len(order)} datasets") if rel else None
    if board:  # the table, then the CD diagram, the k x k matrix and the heat-map; the long tables stay below
        board_rows, metric = _leaderboard.leaderboard_rows(crossval, order, significance.round_before_ranking)
        pictures = [cd_image, matrix_image, heatmap_image]
        blocks = _leaderboard.leaderboard_blocks(
            board_rows, metric, significance, [i for i in pictures if i is not None], with_times=False
        )
        if blocks:
            page = _leaderboard.PAGE
            blocks.append(
                _LinkParagraph(_leaderboard.LINK_TEXT, ((f"{page}.html", f"{page}.html"), (f"{page}.md", f"{page}.md")))
            )
            doc.blocks[board_at:board_at] = blocks
            cd_image = heatmap_image = None  # drawn once, in the leaderboard
            if matrix is not None:
                pairwise_view = _matrix.matrix_blocks(matrix, f, None)
    _across_section(
        doc, view, significance, crossval, f, cd_image, scores_table=not compact, pairwise_view=pairwise_view
    )
    _across_pairs_section(doc, significance.across_pairs, significance, f, crossval=crossval)
    note = across_failure_note(view, significance.across_pairs)
    if note:
        doc.add(_Paragraph(note))
    if compact:
        _benchmark.per_dataset_section(
            doc, crossval, significance, order, f, heatmap_image, significance.round_before_ranking
        )
    _how_to_read(doc, significance)

    # Remove plots left over from an earlier run so the folder matches this report.
    if plot_dir.is_dir():
        keep = set(written)
        for stale in sorted(plot_dir.glob("*.png")):
            if stale not in keep:
                stale.unlink()

    html_path = md_path = None
    if "html" in formats:
        html_path = out_dir / "report.html"
        write_text(html_path, _render_html(doc, images), newline="\n", durable=False)  # whole or not at all
    if "markdown" in formats:
        md_path = out_dir / "report.md"
        write_text(md_path, _render_markdown(doc), newline="\n", durable=False)
    return ReportArtifacts(html=html_path, markdown=md_path, plots=sorted(written))
