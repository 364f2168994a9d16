"""The typed views of the across-datasets records (replearn.pipeline.views) that the report reads: every key the
writer (replearn.pipeline.compare) puts in a record is a field of its view, so a new key cannot be written without
a reader that knows it, and a section that did not run reads with the declared defaults."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
import yaml

from replearn.pipeline import compare
from replearn.pipeline.views import (
    AcrossDatasets,
    AcrossPairs,
    BayesianSignedRank,
    Friedman,
    Nemenyi,
    PairRow,
    Posthoc,
    PosthocComparison,
)

ROOT = Path(__file__).resolve().parents[2]


def _names(cls) -> set[str]:
    return {f.name for f in fields(cls)}


def _table(seed: int = 0, n: int = 12, k: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 0.7 + 0.05 * np.arange(k) + 0.02 * rng.standard_normal((n, k))  # model 3 best on almost every dataset


@pytest.fixture(scope="module")
def written():
    scores = _table()
    datasets, models = [f"d{i}" for i in range(len(scores))], ["m0", "m1", "m2", "m3"]
    cfg = dict(yaml.safe_load((ROOT / "params.yaml").read_text())["stats"], bayesian=True)
    across = compare.across_datasets(scores, datasets, models, metric="accuracy", cfg=cfg)
    pairs = compare.across_pairs(scores, datasets, models, metric="accuracy", cfg=cfg, seed=3)
    return across, pairs


def test_every_key_the_writer_puts_is_a_field_of_the_view(written):
    across, pairs = written
    assert across["ran"] and across["posthoc"]["ran"] and pairs["ran"]  # the full shape: every nested section
    assert set(across) <= _names(AcrossDatasets)
    assert set(across["friedman"]) <= _names(Friedman)
    assert set(across["nemenyi"]) <= _names(Nemenyi)
    assert set(across["posthoc"]) <= _names(Posthoc)
    assert all(set(c) <= _names(PosthocComparison) for c in across["posthoc"]["comparisons"])
    assert set(pairs) <= _names(AcrossPairs)
    assert all(set(r) <= _names(PairRow) for r in pairs["rows"])
    bayes = [r["bayesian_signed_rank"] for r in pairs["rows"] if "bayesian_signed_rank" in r]
    assert bayes and all(set(b) <= _names(BayesianSignedRank) for b in bayes)


def test_the_view_carries_the_written_values(written):
    across, pairs = written
    view = AcrossDatasets.from_dict(across)
    assert view.average_ranks == across["average_ranks"] and view.n == 12
    assert view.friedman.pvalue == across["friedman"]["pvalue"] and view.significant is True
    assert view.posthoc.procedure == across["posthoc"]["method_used"]
    first = across["posthoc"]["comparisons"][0]
    assert (view.posthoc.comparisons[0].a, view.posthoc.comparisons[0].pvalue_adjusted) == (
        first["a"],
        first["pvalue_adjusted"],
    )
    pv = AcrossPairs.from_dict(pairs)
    assert [(r.model_a, r.model_b, r.winner) for r in pv.rows] == [
        (r["model_a"], r["model_b"], r["winner"]) for r in pairs["rows"]
    ]
    assert pv.rows[0].bayesian_signed_rank.p_equivalent == pairs["rows"][0]["bayesian_signed_rank"]["p_equivalent"]


def test_a_section_that_did_not_run_reads_with_the_declared_defaults():
    off = AcrossDatasets.from_dict({"ran": False, "reason": "switched off"})
    assert (off.ran, off.reason, off.average_ranks, off.posthoc.ran, off.nemenyi) == (
        False,
        "switched off",
        {},
        False,
        None,
    )
    assert off.n == 0 and off.friedman.pvalue is None and off.posthoc.comparisons == ()
    assert AcrossDatasets.from_dict(None) == AcrossDatasets()
    nulls = AcrossDatasets.from_dict({"ran": True, "average_ranks": None, "datasets": None, "n_datasets": 3})
    assert nulls.average_ranks == {} and nulls.datasets == [] and nulls.n == 3  # a null collection reads empty
    assert AcrossPairs.from_dict({"ran": False, "reason": "x", "rows": []}).rows == ()


def test_a_comparison_without_its_pair_is_refused():
    with pytest.raises(TypeError):
        PosthocComparison.from_dict({"rank_a": 1.0})
    with pytest.raises(TypeError):
        PairRow.from_dict({"pvalue": 0.5})


def test_a_record_without_the_post_hoc_section_says_so():
    assert AcrossDatasets.from_dict({"ran": True}).posthoc.recorded is False  # written before the procedure existed
    assert AcrossDatasets.from_dict({"ran": True, "posthoc": {"ran": False, "reason": "r"}}).posthoc.recorded
