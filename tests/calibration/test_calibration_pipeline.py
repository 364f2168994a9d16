"""The calibration harness of the pipeline's verdicts (benchmarks/calibration_pipeline.py, issue 22): it runs
end to end with a handful of replications, its band check flags a broken procedure, and its counting of what the
report prints sees a "significant" summary line (and nothing in a line that claims nothing)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the benchmarks package lives next to src/, not in the installed package
    sys.path.insert(0, str(ROOT))

from benchmarks import calibration_pipeline as cp  # noqa: E402
from replearn.pipeline import compare as pc  # noqa: E402
from replearn.pipeline import records  # noqa: E402


@pytest.fixture
def cheap_gaps(monkeypatch):
    monkeypatch.setattr(cp, "GAP_REPS", 50)  # the true gaps only matter for coverage under the alternative


def test_harness_runs_every_kind_of_simulation(cheap_gaps):
    only = ["cv/nn_disjoint", "seeds_fixed/bagged_seeds", "family/normal/5", "across/3"]
    res = cp.run(4, seed=7, jobs=1, only=only)
    rows = {r["key"]: r for r in res["results"]}
    # the sealed-test part of the report-level cell, and the fixed and sequential designs of the grid
    parts = {"sealed", "fixed5", "fixed10", "fixed15", "sequential"}
    assert set(rows) == set(only) | {f"cv/nn_disjoint/{p}" for p in parts}
    assert rows["cv/nn_disjoint/sequential"]["mean_fits"] <= rows["cv/nn_disjoint"]["mean_fits"]
    assert rows["cv/nn_disjoint/sealed"]["size_band"] is None  # documentation: the report-level cell is banded
    for r in (rows[k] for k in only):
        assert r["replications"] == 4
        assert 0.0 <= r["size"] <= 1.0
        assert r["size_band_widened"][0] <= r["size_band"][0] <= r["size_band"][1] <= r["size_band_widened"][1]
    assert rows["cv/nn_disjoint"]["coverage_null"] is not None and rows["cv/nn_disjoint"]["power"] is not None
    assert rows["seeds_fixed/bagged_seeds"]["power"] is None  # one learner: no alternative exists
    assert rows["across/3"]["size"] == 0.0 and rows["across/3"]["size_band_widened"] == [0.0, 0.0]
    assert "cv/nn_disjoint" in res["setup"]["true_gaps"]
    table = cp.markdown(res)
    assert table.count("\n| ") == len(rows) + 1  # header + one row per cell
    assert cp.run(4, seed=7, jobs=1, only=only)["results"] == res["results"]  # seeded: identical reruns


def test_check_flags_a_broken_procedure(monkeypatch, cheap_gaps, capsys):
    """The plain paired t over the 100 overlapping CV splits (the mistake half-sampling replaces) rejects far
    more than 5 % of true nulls for 1-NN: ``--check`` must name the cell and exit non-zero."""
    monkeypatch.setattr(pc, "resolve_test", lambda cfg, cv: "paired_ttest")
    argv = ["--reps", "20", "--cells", "cv/nn_disjoint", "--jobs", "1", "--check", "--no-write"]
    assert cp.main(argv) == 1
    err = capsys.readouterr().err
    assert "Out of band" in err and "cv/nn_disjoint: size" in err


def test_band_check_reads_size_and_coverage():
    cell = next(c for c in cp.cells() if c.key == "cv/nn_disjoint")
    ok = {"all": cp.outcome(False, None, True)}
    bad_size = [{"all": cp.outcome(True, None, True)}] * 30 + [ok] * 70
    assert any(b.startswith("size") for b in cp.summarise(cell, bad_size, None)["out_of_band"])
    bad_cover = [{"all": cp.outcome(True, None, False)}] * 50 + [{"all": cp.outcome(False, None, False)}] * 50
    bad_cover += [ok] * 900  # size 5 %, coverage 90 % (the widened band starts at 90.9 %)
    flagged = cp.summarise(cell, bad_cover, None)["out_of_band"]
    assert flagged and all(b.startswith("coverage (null)") for b in flagged)
    fine = [{"all": cp.outcome(True, None, True)}] * 5 + [ok] * 95
    assert cp.summarise(cell, fine, None)["out_of_band"] == []
    # the widened band: nominal +/- 3 Monte-Carlo standard errors of a 5 % rate
    lo, hi = cp.widened(cp.SIZE_BAND, 0.05, 1000)
    assert hi == pytest.approx(0.065 + 3 * np.sqrt(0.05 * 0.95 / 1000))
    assert lo == pytest.approx(0.035 - 3 * np.sqrt(0.05 * 0.95 / 1000))


def _family_record(diff: float) -> dict[str, records.EvaluationResult]:
    rng = np.random.default_rng(0)
    a = rng.normal(size=10)
    scheme = records.Scheme("unit_seeds", None, 10, 0, "seeds")
    meta = [
        {"index": i, "kind": "seed", "n_train": 0, "n_test": 0, "seed": i, "repeat": i, "fold": 0} for i in range(10)
    ]
    family = {"name": "rl", "task": "control", "problem": {}, "scale_by": None, "scale_metrics": []}
    b = a + diff + 0.1 * rng.normal(size=10)
    cv = cp.evaluation("p", scheme, meta, {"a": a, "b": b}, n_examples=0, family=family, metric="return")
    return {"p": cv}


def test_the_summary_counting_sees_a_significant_line():
    sig, lines = cp.run_compare(_family_record(3.0), cp.stats_config(), 0, family="rl")
    assert any("; significant by the" in line for line in lines), lines
    seen = cp.printed_verdicts(sig, lines)
    assert seen["lines"] and seen["rows"] and seen["any"]
    sig, lines = cp.run_compare(_family_record(0.0), cp.stats_config(), 0, family="rl")
    seen = cp.printed_verdicts(sig, lines)
    assert any("not significant by the" in line for line in lines), lines
    assert not seen["lines"] and not seen["any"]


@pytest.mark.parametrize(
    "line, verdict",
    [
        ("d: b has the best mean accuracy ...; significant by the paired t-test after Holm (...)", True),
        ("d: b has the best mean accuracy ...; not significant by the paired t-test after Holm (...)", False),
        ("...; Bayesian: practically better with probability 0.990 — both analyses agree.", True),
        ("...; Bayesian: practically worse with probability 0.990 — the analyses disagree", True),
        ("...; Bayesian: practically equivalent (within the ROPE ±0.010) with probability 0.970", False),
        (
            "Across N = 14 datasets: average ranks ...; Friedman p = 0.010 (chi-square approximation): significant "
            "overall, but no pair differs after Bergmann-Hommel.",
            True,
        ),
        ("Across N = 14 datasets: ...; post-hoc (Bergmann-Hommel): m4 better than m1.", True),
        (
            "Across N = 3 datasets: average ranks m1 (1.0); no across-datasets test was run, so no model is declared "
            "better (only N = 3 datasets ...).",
            False,
        ),
        ("Across N = 14 datasets: ...: no significant difference among the models.", False),
        (
            "Across N = 4 datasets (Wilcoxon signed-rank test, smallest attainable p = 0.125): no pair differs "
            "significantly.",
            False,
        ),
    ],
)
def test_line_says_verdict(line, verdict):
    assert cp.line_says_verdict(line) is verdict
