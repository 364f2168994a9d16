"""The catalogue of the texts' worked examples: each reproduced by records of the presets or saying why not;
every record names an entry; the families the issues name are all there; docs/reproductions.md's tables and
counts are the page's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replearn.reproductions import EXPERIMENTS
from replearn.reproductions.catalogue import CATALOGUE, EXTRAS, TEXTS, lookup, reproduced_entries

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def by_example(preset_run) -> dict[str, list]:
    out: dict[str, list] = {}
    for name in sorted(EXPERIMENTS):
        for r in preset_run(name).records:
            out.setdefault(r.example, []).append(r)
    return out


def test_the_catalogue_entries_have_unique_ids_and_known_texts():
    assert len(CATALOGUE) >= 72
    ids = [e.id for e in CATALOGUE + EXTRAS]
    assert len(set(ids)) == len(ids)
    for e in CATALOGUE + EXTRAS:
        assert e.text in TEXTS and e.id.startswith(f"{e.text}.")
        assert e.kind in {"example", "table", "figure"} and e.section and e.lines and e.title and e.description
        assert lookup(e.id) is e
    assert {e.text for e in CATALOGUE} == {"cs229", "cs229s", "ciml", "cs480", "epfl"}


def test_at_least_60_of_the_73_are_reproduced():
    assert len(reproduced_entries()) >= 60
    assert all(e.reason and len(e.reason) > 40 for e in CATALOGUE if e not in reproduced_entries())


def test_every_entry_without_a_reason_has_records_and_they_all_reproduce(by_example):
    for e in CATALOGUE:
        records = by_example.get(e.id, [])
        if e.reason is None:
            assert records, f"{e.id}: no preset reproduces it"
            assert all(r.reproduced for r in records), [r.to_dict() for r in records if not r.reproduced]
        else:
            assert not records, f"{e.id} has records but says it is not reproduced"


def test_every_record_names_a_catalogue_entry(by_example):
    known = {e.id for e in CATALOGUE + EXTRAS}
    assert set(by_example) <= known, set(by_example) - known


def test_every_figure_names_an_existing_curve(preset_run):
    for e in CATALOGUE + EXTRAS:
        if e.figure is not None:
            preset, curve = e.figure
            assert curve in preset_run(preset).curves, f"{e.id}: {preset} has no curve {curve!r}"


@pytest.mark.parametrize(
    "example",
    [
        "ciml.viterbi-step",
        "ciml.xor-network",
        "cs229.hoeffding-sample-size",
        "cs229.vc-halfplanes",
        "ciml.vc-fig-12.2",
        "cs229.lqr-riccati",
        "cs229.kalman",
        "cs229.model-wise-double-descent",
        "cs229.norm-complexity",
        "cs229.implicit-regularization",
        "ciml.fig-3.18",
        "ciml.fig-4.4",
        "ciml.fig-10.3",
        "ciml.fig-13.3",
        "epfl.step-size",
        "epfl.svm-dual-step",
    ],
)
def test_the_families_of_the_issue_are_reproduced(example, by_example):
    assert lookup(example).reason is None and by_example.get(example)


def test_the_docs_table_lists_every_entry():
    text = (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`((?:cs229|cs229s|ciml|cs480|epfl|extra)\.[a-z0-9.\-]+)`", text))
    assert {e.id for e in CATALOGUE} <= listed, {e.id for e in CATALOGUE} - listed


def test_the_grid_world_is_aimas_not_a_cs229_example():
    """Issue 40: the 4x3 world and its values are in AIMA (Fig. 17.3), in none of the five texts."""
    assert lookup("extra.aima-4x3") in EXTRAS and not any("gridworld" in e.id for e in CATALOGUE)


def test_the_docs_tables_and_counts_are_the_pages(preset_run):
    from replearn.reproductions.page import DOCS_MARKERS, docs_sections

    runs = {name: preset_run(name).to_dict() for name in sorted(EXPERIMENTS)}
    text = (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8")
    for key, body in docs_sections(runs).items():
        start, end = DOCS_MARKERS[key]
        got = text[text.index(start) + len(start) : text.index(end)].strip("\n")
        assert got == body, (
            f"docs/reproductions.md's {key} differ from the page's: run "
            "`python -m replearn.reproductions.page docs/reproductions.md`"
        )


def test_the_redrawable_figures_of_issue_40_are_on_the_page_as_figure_records(by_example):
    """CS229 Figs. 8.1-8.7, the Gaussian and GDA contours, the GD and coordinate-ascent paths, Fig. 10.1; CIML Figs.
    3.9-3.14, 5.14, 7.1-7.12, 13.2, 15.1, 16.1: each a figure entry with a drawn curve and records that reproduce."""
    wanted = [f"cs229.fig-8.{k}" for k in range(1, 8)] + [
        "cs229.fig-gaussian-scale",
        "cs229.fig-gaussian-correlation",
        "cs229.fig-gaussian-mean",
        "cs229.fig-gda",
        "cs229.fig-gd-path",
        "cs229.fig-coordinate-ascent",
        "cs229.fig-10.1",
    ]
    wanted += [f"ciml.fig-{n}" for n in ("3.9", "3.10", "3.12", "3.13", "3.14", "5.14", "13.2", "15.1", "16.1")]
    wanted += [f"ciml.fig-7.{k}" for k in (1, 2, 3, 4, 5, 7, 8, 10, 11, 12)]
    for example in wanted:
        e = lookup(example)
        assert e is not None and e.kind == "figure" and e.figure and e.reason is None, example
        assert by_example.get(example) and all(r.reproduced for r in by_example[example]), example
