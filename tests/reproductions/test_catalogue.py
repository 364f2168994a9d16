"""The catalogue of the texts' worked examples: 73 entries, each reproduced by records of the presets or
saying why not; every record names an entry; the families the issue names are all there."""

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


def test_the_catalogue_has_73_entries_with_unique_ids_and_known_texts():
    assert len(CATALOGUE) == 73
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
        "cs229.gridworld-4x3",
        "ciml.viterbi-step",
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
