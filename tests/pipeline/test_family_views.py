"""The report views each family declares of its payloads (``families/<f>/report.py``: ``PROBLEM`` of its problems'
descriptions, ``EXTRA`` of a replicate's ``extras``) against what its ``problems.py`` and ``units.py`` write: every
declared field is a key the family writes, so a renamed key fails here rather than leaving a figure or a table
silently empty (a view reads a missing key as its default)."""

from __future__ import annotations

from dataclasses import fields

import pytest

from replearn.pipeline import family_views, units
from replearn.pipeline.families import FAMILY_MODULES, load
from replearn.pipeline.views import View

pytestmark = pytest.mark.usefixtures("single_threaded_blas")

#: per family: dataset specs whose descriptions (together) carry every field its PROBLEM view reads, and (unit, its
#: hyperparameters, spec) runs whose ``extra`` (together) carry every field of its EXTRA view
WRITTEN = {
    "rl": ([{"source": "rl", "environment": "gridworld_4x3", "episodes": 20}], []),
    "theory": (
        [{"source": "theory", "n": 50, "trials": 20}],
        [("hoeffding_coins", {"gamma": 0.1}, {"source": "theory", "n": 50, "trials": 20})],
    ),
    "generative": (
        [
            {"source": "generative", "data": "gaussian_mixture_2d", "n_samples": 400},
            {"source": "generative", "data": "digits", "n_samples": 400},
        ],
        [("kde", {}, {"source": "generative", "data": "gaussian_mixture_2d", "n_samples": 400})],
    ),
    "sequence": (
        [],
        [("ngram_lm", {}, {"source": "sequence", "task": "characters", "n_chars": 3000, "heldout": 0.2})],
    ),
}


def _families_with_views() -> list[str]:
    return sorted(f for f in FAMILY_MODULES if family_views.load(f) is not None)


def test_every_family_with_report_views_is_checked_here():
    assert _families_with_views() == sorted(WRITTEN)
    assert family_views.load("structured") is None and family_views.load("no such family") is None
    assert family_views.with_figures() == {"theory", "generative"}


def _keys(payloads) -> set[str]:
    return {k for p in payloads for k in p}


@pytest.mark.parametrize("family", sorted(WRITTEN))
def test_the_views_a_family_declares_read_keys_it_writes(family):
    module = family_views.load(family)
    specs, runs = WRITTEN[family]
    problems = load(family)
    view = getattr(module, "PROBLEM", None)
    if view is not None:
        assert issubclass(view, View)
        described = [problems.describe(problems.build(spec, 0)) for spec in specs]
        missing = {f.name for f in fields(view)} - _keys(described)
        assert not missing, f"{family}: {view.__name__} reads keys describe() never writes: {sorted(missing)}"
        for nested_name, nested in view._NESTED.items():  # e.g. each V* cell
            rows = [row for d in described for row in d.get(nested_name) or []]
            assert rows and {f.name for f in fields(nested.view)} == _keys(rows)
    extra = getattr(module, "EXTRA", None)
    if extra is not None:
        assert issubclass(extra, View)
        table = units.load(family).UNITS
        written = [
            table[name].run({**table[name].defaults, **hp}, problems.build(spec, 0), 0).extra for name, hp, spec in runs
        ]
        missing = {f.name for f in fields(extra)} - _keys(written)
        assert not missing, f"{family}: {extra.__name__} reads keys no unit writes: {sorted(missing)}"


def test_a_renamed_key_is_caught():
    """The check itself can fail: a view declaring a key nobody writes is reported."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Renamed(View):
        v_star_celz: tuple = ()

    rl = load("rl")
    described = rl.describe(rl.build(WRITTEN["rl"][0][0], 0))
    assert {f.name for f in fields(Renamed)} - set(described) == {"v_star_celz"}
    assert Renamed.from_dict(described).v_star_celz == ()  # what the report would have drawn: nothing
