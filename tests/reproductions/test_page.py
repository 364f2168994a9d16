"""The reproduction page and the `reproduce: all` service: what `make reproductions` and the default
experiment's reproduce stage write."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import escape as html_escape

import numpy as np
import pytest

from replearn import reproductions
from replearn.cli import main
from replearn.pipeline import reproduce as service
from replearn.pipeline.report.reproductions import reproduction_page, write_page
from replearn.reproductions import EXPERIMENTS
from replearn.reproductions.catalogue import CATALOGUE, EXTRAS
from replearn.reproductions.page import counts_sentence, summary


@pytest.fixture(scope="module")
def page(preset_run, tmp_path_factory):
    runs = {name: preset_run(name).to_dict() for name in sorted(EXPERIMENTS)}
    out = tmp_path_factory.mktemp("page")
    return runs, write_page(runs, out, meta={"how": "seed 0", "source": "test"})


def test_the_page_shows_every_entry_with_its_verdict_and_the_counts(page):
    runs, paths = page
    text = paths["html"].read_text(encoding="utf-8")
    s = summary(runs)
    assert s["catalogue"] == len(CATALOGUE) and s["reproduced"] >= 60 and not s["failing"] and not s["missing"]
    assert s["records"] == s["records_reproduced"] == sum(len(r["records"]) for r in runs.values())
    assert s["measured"] + s["arithmetic"] == s["records"] and s["arithmetic"] >= 1
    assert html_escape(counts_sentence(s)) in text
    assert text.count("arithmetic check of the text") >= s["arithmetic"]
    for e in CATALOGUE:
        assert f'id="{e.id}"' in text, e.id
    assert text.count("NOT reproduced") == 0
    assert text.count("Why not:") == len(s["not_reproduced"])
    for r in runs["cs229_control"]["records"]:
        assert r["id"] in text


def test_the_page_is_self_contained(page):
    runs, paths = page
    text = paths["html"].read_text(encoding="utf-8")
    figures = [e for e in CATALOGUE + EXTRAS if e.figure]
    assert text.count('src="data:image/png;base64,') == len(figures)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.IGNORECASE)
    assert "<script" not in text


def test_the_markdown_page_has_the_tables_and_figure_files(page):
    runs, paths = page
    md = paths["markdown"].read_text(encoding="utf-8")
    for e in CATALOGUE:
        assert f'<a id="{e.id}"></a>' in md and f"{e.id} · {e.kind} · " in md, e.id
    assert md.count("> Why not:") == len(summary(runs)["not_reproduced"])
    linked = re.findall(r"!\[[^\]]*\]\((reproductions_files/[^)]+\.png)\)", md)
    assert linked and all((paths["markdown"].parent / p).is_file() for p in linked)


def _two_presets(monkeypatch):
    import replearn.reproductions as package

    subset = {k: EXPERIMENTS[k] for k in ("cs480_examples", "epfl_examples")}
    monkeypatch.setattr(package, "EXPERIMENTS", subset)
    monkeypatch.setattr(package, "PRESETS", tuple(subset))  # "all" names the presets without importing them
    return subset


def test_reproduce_all_runs_every_preset_with_its_own_seed(monkeypatch, tmp_path):
    subset = _two_presets(monkeypatch)
    combined = service.reproduce({"reproduce": "all", "seed": 7})
    assert combined["preset"] == "all" and combined["presets"] == sorted(subset)
    for name in subset:
        alone = service.reproduce({"reproduce": name, "seed": 7})
        assert combined["runs"][name] == alone and combined["seed"][name] == alone["seed"]
    assert combined["records"] == [r for name in sorted(subset) for r in combined["runs"][name]["records"]]
    assert combined["curves"] == {}  # the report shows the records; the page draws the figures
    assert service.reproduce({"reproduce": None, "seed": 7})["records"] == []
    assert "all" in service.experiments()


def test_the_command_reads_the_stage_output_and_refuses_a_single_preset(monkeypatch, tmp_path, capsys):
    _two_presets(monkeypatch)
    results = tmp_path / "reproduction.json"
    results.write_text(json.dumps(service.reproduce({"reproduce": "all", "seed": 3})))
    code = main(["reproductions", "--from", str(results), "--out", str(tmp_path / "reports")])
    out = capsys.readouterr()
    # two presets hold only some of the catalogue: the others are reported missing, exit 1
    assert code == 1 and "missing:" in out.err and "catalogue examples reproduced" in out.out
    assert (tmp_path / "reports" / "reproductions.html").is_file()
    results.write_text(json.dumps(service.reproduce({"reproduce": "epfl_examples", "seed": 3})))
    with pytest.raises(ValueError, match="reproduce: all"):
        reproduction_page(tmp_path / "r2", source=results)


def test_a_preset_run_imports_only_its_own_module():
    code = (
        "import sys\n"
        "from replearn.reproductions import preset\n"
        "run = preset('cs480_examples')\n"
        "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('replearn.reproductions.')\n"
        "             and m.rsplit('.', 1)[1] in __import__('replearn.reproductions').reproductions.PRESETS))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['cs480_examples']"
    with pytest.raises(KeyError, match="unknown reproduction 'nope'"):
        reproductions.preset("nope")


def test_figures_give_every_entry_its_own_colour_and_frame_the_data_not_the_lines():
    """Issue 40's figures: a contour never shares its colour with the other class's points, a curve leaving the
    frame (None) is a gap and not a flat stretch, a straight 2-point separator does not widen the frame, and a
    sampled decision boundary is drawn as small dark dots."""
    from matplotlib.colors import to_hex

    from replearn.reproductions.page import _figure

    fig = _figure(
        "t",
        {
            "paths": {"class 0 contour": [[0, 0], [1, 0], [1, 1], [0, 0]], "separator": [[-50, -50], [50, 50]]},
            "points": {"y = 0": [[0.2, 0.2], [0.8, 0.4]], "y = 1": [[0.4, 0.9]], "a boundary": [[0.5, 0.5]]},
            "equal_axes": True,
        },
    )
    ax = fig.axes[0]
    colours = [to_hex(line.get_color()) for line in ax.get_lines()]
    colours += [to_hex(c.get_facecolor()[0]) for c in ax.collections if c.get_label() != "a boundary"]
    assert len(colours) == 4 and len(set(colours)) == 4, colours
    (boundary,) = [c for c in ax.collections if c.get_label() == "a boundary"]
    assert boundary.get_sizes()[0] <= 4
    assert -1 < ax.get_xlim()[0] < 0 < 1 < ax.get_xlim()[1] < 5 and ax.get_ylim()[1] < 5  # not the separator's +-50
    curve = _figure("t", {"x": [0.0, 1.0, 2.0, 3.0], "fit": [0.0, 1.0, None, None]})
    (line,) = curve.axes[0].get_lines()
    assert np.isnan(np.asarray(line.get_ydata(), dtype=float)[2:]).all()
    assert _figure("t", {"x": [1, 2]}) is None


def test_the_page_is_one_document_rendered_twice(page):
    """Issue 38: the page is built by the report's document model, so the HTML and the Markdown carry the same
    blocks (each entry's heading, its records and its figure) and escape text as the report does."""
    from replearn.pipeline.report import reproductions as page_module
    from replearn.pipeline.report.document import _Heading, _Image, _Note, _Table
    from replearn.reproductions.page import figures

    runs, paths = page
    doc = page_module.document(runs, {"how": "seed 0", "source": "test"}, figures(runs))
    entries = [b for b in doc.blocks if isinstance(b, _Heading) and b.level == 4]
    assert [b.anchor for b in entries] == [e.id for e in CATALOGUE] + [
        e.id for e in EXTRAS if any(e.id == r.get("example") for v in runs.values() for r in v["records"])
    ]
    n_records = sum(len(b.rows) for b in doc.blocks if isinstance(b, _Table))
    assert n_records == summary(runs)["records"]
    images = [b for b in doc.blocks if isinstance(b, _Image)]
    html_text, md = paths["html"].read_text(encoding="utf-8"), paths["markdown"].read_text(encoding="utf-8")
    assert html_text.count("<tr><td>") == n_records and md.count("\n| ") - md.count("\n| Quantity |") >= n_records
    assert len(images) == html_text.count("data:image/png;base64,") == md.count("](reproductions_files/")
    assert sum(isinstance(b, _Note) for b in doc.blocks) == html_text.count("<blockquote>")
    # what a text may hold (an asterisk, a pipe, a tag) is escaped in both renderings
    from replearn.pipeline.report.html import _render_html
    from replearn.pipeline.report.markdown import _render_markdown

    doc.add(_Note("a <b>tag</b> | a pipe * an asterisk"))
    assert "&lt;b&gt;tag&lt;/b&gt;" in _render_html(doc, {b.relpath: b"png" for b in images})
    assert "> a \\<b>tag\\</b> \\| a pipe \\* an asterisk" in _render_markdown(doc)
