"""The reproduction page, rendered by the report's document model (:mod:`.document`, :mod:`.html`, :mod:`.markdown`).

:func:`write_page` takes the presets' results (``{preset: ExperimentResult.to_dict()}``, as the reproduce stage
stores them under ``runs`` for ``reproduce: all``) and writes

* ``reproductions.html``: one self-contained page (the report's CSS, figures as inline base64 PNG, no script,
  no external URL) grouped by text and section, in the order of the catalogue: for each example the text's
  description, the lines, every record (published, measured, tolerance, verdict, provenance, the function that
  measured it, source, record id) and the figure the catalogue names; an example that is not reproduced says why;
* ``reproductions.md``: the same document in Markdown, the figures as PNG files in ``reproductions_files/``.

One document, two renderers: the HTML and the Markdown carry exactly the same information, and the page looks
and escapes like the report. What is counted and drawn comes from :mod:`replearn.reproductions.page`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...atomic import write_bytes, write_text
from ...reproductions import page as catalogue_page
from ...reproductions.catalogue import CATALOGUE, EXTRAS, TEXTS, Example
from .document import _Cell, _Document, _Heading, _Image, _LinkParagraph, _Note, _Paragraph, _Table
from .html import _render_html
from .markdown import _render_markdown

TITLE = "The worked examples of the five course texts, reproduced"
FIGURES_DIR = "reproductions_files"
RECORD_HEADERS = (
    "Quantity",
    "Published",
    "Measured",
    "Tolerance",
    "Verdict",
    "Provenance",
    "Measured by",
    "Source",
    "Record",
)

_INTRO = (
    "Every worked numeric example, table and figure of the course texts (the project's catalogue of the texts, {n} "
    "entries) rerun with replearn's own algorithms: the value the text prints, the value measured now, the "
    "tolerance (absolute, in the quantity's units: half a unit of the last printed digit unless the record's source "
    "says otherwise) and the verdict |measured − published| ≤ tolerance. Each record says where its published "
    "value comes from (printed, derived from the text's formula, the corrected value of an erratum -- the printed "
    "one is shown and excluded by the tolerance --, an invariant the text states) and which public replearn "
    "function measured it; an arithmetic check of the text is computed in the preset, not by replearn's "
    "algorithms, and counted apart."
)


def figure_path(entry: Example) -> str:
    """The figure of ``entry`` relative to the page's folder (``reproductions_files/<id>.png``)."""
    return f"{FIGURES_DIR}/{entry.id.replace('.', '_')}.png"


def _records_table(recs: list[dict]) -> _Table:
    num = catalogue_page.format_number
    rows = []
    for r in recs:
        ok = bool(r["reproduced"])
        rows.append(
            (
                _Cell(str(r["quantity"])),
                _Cell(num(r["published"])),
                _Cell(num(r["measured"])),
                _Cell(num(r["tolerance"])),
                _Cell("reproduced" if ok else "NOT reproduced", bold=not ok),
                _Cell(catalogue_page.provenance(r)),
                _Cell(catalogue_page.measured_by(r)),
                _Cell(str(r["source"])),
                _Cell(str(r["id"])),
            )
        )
    return _Table(RECORD_HEADERS, tuple(rows))


def _entry(doc: _Document, e: Example, recs: list[dict], has_figure: bool) -> None:
    verdict = catalogue_page.entry_verdict(recs, e)
    doc.add(_Heading(4, f"{e.title} — {verdict}", anchor=e.id))
    doc.add(_Paragraph(f"{e.id} · {e.kind} · {e.section}, {e.lines}"))
    doc.add(_Paragraph(e.description))
    if e.reason is not None:
        doc.add(_Note(f"Why not: {e.reason}"))
    if recs:
        doc.add(_records_table(recs))
    if has_figure:
        doc.add(_Image(figure_path(e), e.title))


def document(runs: Mapping[str, Mapping], meta: Mapping[str, str], figures: Mapping[str, bytes]) -> _Document:
    """The page as one document; ``figures``: ``{entry id: PNG}`` (:func:`replearn.reproductions.page.figures`);
    ``meta``: the ``how`` and ``source`` sentences (both optional)."""
    how, source = (str(meta[k]) if k in meta else "" for k in ("how", "source"))
    by_example = catalogue_page.records_by_example(runs)
    s = catalogue_page.summary(runs)
    groups = list(catalogue_page.grouped(runs))
    doc = _Document(TITLE)
    doc.add(_Paragraph(_INTRO.format(n=s["catalogue"])))
    doc.add(_Paragraph(f"{catalogue_page.counts_sentence(s)}. {how}".rstrip()))
    doc.add(_LinkParagraph("The texts:", tuple((TEXTS[key][0], f"#{key}") for key, _ in groups)))
    for key, sections in groups:
        name, seed_file = TEXTS[key]
        doc.add(_Heading(2, f"{name} ({seed_file})", anchor=key))
        for section, entries in sections:
            doc.add(_Heading(3, section))
            for e in entries:
                _entry(doc, e, by_example[e.id] if e.id in by_example else [], e.id in figures)
    doc.add(_Paragraph(f"Generated by python -m replearn reproductions ({source})."))
    return doc


def write_page(runs: Mapping[str, Mapping], out_dir, *, meta: Mapping | None = None) -> dict[str, Path]:
    """Write ``reproductions.html``, ``reproductions.md`` and ``reproductions_files/`` into ``out_dir``.

    ``runs``: ``{preset: result dict}`` (:meth:`ExperimentResult.to_dict`, records with their ``example``);
    ``meta``: ``{"how": one sentence on the run (seed), "source": where the numbers came from}``.
    Returns the paths written.
    """
    meta = dict(meta or {})
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = catalogue_page.figures(runs)
    doc = document(runs, meta, figures)
    by_id = {e.id: e for e in CATALOGUE + EXTRAS}
    images = {figure_path(by_id[i]): png for i, png in figures.items()}
    (out / FIGURES_DIR).mkdir(parents=True, exist_ok=True)
    for rel, png in images.items():
        write_bytes(out / rel, png, durable=False)  # whole or not at all
    page = out / "reproductions.html"
    write_text(page, _render_html(doc, images), durable=False)
    md = out / "reproductions.md"
    write_text(md, _render_markdown(doc), durable=False)
    return {"html": page, "markdown": md, "figures": out / FIGURES_DIR}


def reproduction_page(
    out_dir, *, seed: int | None = None, root: Path = Path("."), source=None
) -> tuple[dict[str, Path], dict]:
    """Write the reproduction page (:func:`write_page`) into ``out_dir``.

    The numbers come from ``source`` -- a results/reproduction.json written by the reproduce stage with
    ``reproduce: all`` -- when given, else from running every preset now with ``seed`` (default: params.yaml's,
    so the page shows what the pipeline's stage computes). Returns ``(paths written, summary)``.
    """
    import json

    from ..reproduce import default_seed, run_all

    if source is not None:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
        if "runs" not in data:
            preset = data["preset"] if "preset" in data else None
            raise ValueError(
                f"{source} holds the preset {preset!r}, not every reproduction: run the reproduce stage "
                "with reproduce: all (the default experiment), or leave out --from to run them all now"
            )
        runs, where = data["runs"], str(source)
        how = "Numbers as the reproduce stage computed them (each preset's seed derived from the experiment's)."
    else:
        seed = default_seed(root) if seed is None else int(seed)
        runs = run_all(seed, root)["runs"]
        how, where = f"Experiment seed {seed} (each preset's seed is derived from it and its name).", "run now"
    paths = write_page(runs, out_dir, meta={"how": how, "source": where})
    return paths, catalogue_page.summary(runs)
