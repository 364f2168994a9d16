"""The typed views of the across-datasets records (replearn.pipeline.views) that the report reads: every key the
writer (replearn.pipeline.compare) puts in a record is a field of its view, so a new key cannot be written without
a reader that knows it, and a section that did not run reads with the declared defaults."""

from __future__ import annotations

import importlib.util
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
    DatasetComparison,
    Friedman,
    Nemenyi,
    PairComparison,
    PairRow,
    Posthoc,
    PosthocComparison,
    Significance,
    undeclared_keys,
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


# -- one dataset's comparisons ------------------------------------------------------------------------------------
def _failures_case():
    spec = importlib.util.spec_from_file_location(
        "replearn_test_failures", ROOT / "tests" / "pipeline" / "test_failures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._across_case()


@pytest.fixture(scope="module")
def significance():
    crossval, train = _failures_case()
    cfg = dict(yaml.safe_load((ROOT / "params.yaml").read_text())["stats"], bayesian=True)
    return compare.compare(crossval, train, cfg)


def test_every_key_of_a_dataset_entry_is_read_through_a_view(significance):
    entry = significance["datasets"]["d1"]
    assert entry["cv"] and entry["bayesian"] and entry["test_set"] and entry["test_set_metric"]["rows"]
    assert undeclared_keys(significance) == []
    view = Significance.from_dict(significance)
    d1 = view.dataset("d1")
    assert isinstance(d1, DatasetComparison) and isinstance(d1.cv[0], PairComparison)
    assert [(r.model_a, r.model_b, r.pvalue_adjusted) for r in d1.cv] == [
        (r["model_a"], r["model_b"], r["pvalue_adjusted"]) for r in entry["cv"]
    ]
    assert d1.bayesian[0].decision == entry["bayesian"][0]["decision"]
    assert d1.test_set_metric.rows[0].score_a == entry["test_set_metric"]["rows"][0]["score_a"]
    assert view.across_datasets.imputed_worst_rank == significance["across_datasets"]["imputed_worst_rank"]
    assert view.left_out("d1") == significance["excluded"].get("d1", [])


def test_a_planted_key_is_found_wherever_it_is_written(significance):
    import copy

    for plant, where in (
        (lambda s: s["datasets"]["d0"]["cv"][1].update(new=1), "significance.datasets.d0.cv[1].new"),
        (
            lambda s: s["datasets"]["d2"]["test_set_metric"].update(new=1),
            "significance.datasets.d2.test_set_metric.new",
        ),
        (lambda s: s["across_pairs"]["rows"][0].update(new=1), "significance.across_pairs.rows[0].new"),
        (lambda s: s["across_datasets"]["friedman"].update(new=1), "significance.across_datasets.friedman.new"),
        (lambda s: s.update(new=1), "significance.new"),
    ):
        planted = copy.deepcopy(significance)
        plant(planted)
        assert undeclared_keys(planted) == [where]


def test_the_walked_sections_are_the_converted_ones():
    """undeclared_keys walks the very declarations from_dict converts through (one structure, not two): every
    nested field of every view is a views._Nested naming a view, and a field that is a view is declared nested."""
    from replearn.pipeline import views

    classes = [c for c in vars(views).values() if isinstance(c, type) and issubclass(c, views._View)]
    for view in classes:
        for name, nested in view._NESTED.items():
            assert isinstance(nested, views._Nested) and issubclass(nested.view, views._View), (view, name)
            assert name in {f.name for f in fields(view)}, (view, name)


def test_a_row_without_an_adjusted_p_reports_its_raw_one():
    raw = PairComparison.from_dict({"model_a": "a", "model_b": "b", "pvalue": 0.03})
    adjusted = PairComparison.from_dict({"model_a": "a", "model_b": "b", "pvalue": 0.03, "pvalue_adjusted": None})
    assert raw.reported_pvalue == 0.03 and raw.pvalue_adjusted is None
    assert adjusted.reported_pvalue is None  # recorded as null: untestable after the correction, not "raw"
    assert raw == adjusted  # what was recorded does not take part in equality


def test_missing_sections_read_as_absent_not_as_empty_sections():
    entry = DatasetComparison.from_dict({"cv": None, "test_set_metric": {}, "sweep": {}})
    assert entry.cv == () and entry.test_set_metric is None and entry.sweep is None
    sig = Significance.from_dict({"across_pairs": {}, "datasets": {"x": {}}})
    assert sig.across_pairs is None and sig.dataset("nowhere") == DatasetComparison() and sig.left_out("x") == []
    assert Significance.from_dict(sig) is sig


def test_every_key_of_the_reproduction_record_is_read_through_its_view():
    """results/reproduction.json as the reproduce stage writes it (a preset's rows, from Reproduction.to_dict):
    every key is declared by ReproductionRecord, and a planted one is found."""
    from replearn.pipeline.views import ReproducedQuantity, ReproductionRecord
    from replearn.reproductions.record import ExperimentResult, Reproduction

    row = Reproduction("p", "CS229 notes 1", "theta_0", 1.0, 1.0004, 1e-3, measured_by=("replearn.models",))
    record = {**ExperimentResult("p", [row], {"c": {"x": [1, 2]}}, {}, "notes").to_dict(), "seed": 0}
    assert undeclared_keys(record, ReproductionRecord) == []
    view = ReproductionRecord.from_dict(record)
    assert view.preset == "p" and isinstance(view.records[0], ReproducedQuantity) and view.records[0].reproduced
    record["records"][0]["planted"] = 1
    assert undeclared_keys(record, ReproductionRecord) == ["ReproductionRecord.records[0].planted"]
    assert ReproductionRecord.from_dict(None).preset is None  # reproduce: null writes nothing to reproduce


def test_the_decomposition_view_declares_what_the_train_stage_writes():
    """``figures_data.figure_data`` of a fitted PCA against :class:`views.Decomposition`: every key it writes is a
    declared field and every field is written (a renamed key would leave a figure silently empty)."""
    from dataclasses import fields

    import numpy as np

    from replearn import models
    from replearn.pipeline.figures_data import figure_data
    from replearn.pipeline.views import Decomposition

    X = np.random.default_rng(0).normal(size=(40, 64))
    y = np.arange(40) % 3
    pca = models.create("pca", n_components=3).fit(X)
    written = figure_data(pca, "decomposition", X, y, {"feature_names": [f"x{i}" for i in range(64)]})["decomposition"]
    assert set(written) == {f.name for f in fields(Decomposition)}
    view = Decomposition.from_dict(written)
    assert view.image_shape == [8, 8] and len(view.projection) == 40 and view.label == [int(v) for v in y]
    assert len(view.components) == 3 and len(view.explained_variance_ratio) == 3


def test_a_reproduction_curve_keeps_what_can_be_drawn():
    from replearn.pipeline.views import Curve, ReproductionRecord

    assert Curve.of({"x": [1, 2, 3], "train": [0.1, None, 0.3], "short": [1.0], "note": "n"}) == Curve(
        x=[1, 2, 3], series={"train": [0.1, None, 0.3]}
    )
    assert Curve.of({"x": [1], "y": [2]}) is None  # one point: no curve
    assert Curve.of({"x": [1, 2], "y": [2]}) is None  # no series as long as the axis
    assert Curve.of({"y": [1, 2]}) is None and Curve.of([1, 2]) is None
    record = ReproductionRecord.from_dict(
        {
            "preset": "p",
            "curves": {"b": {"x": [0, 1], "y": [1, 2]}, "a": {"x": [0]}, "c": {"x": ["u", "v"], "z": [3, 4]}},
        }
    )
    assert list(record.drawable_curves()) == ["b", "c"]  # sorted by name, the undrawable one left out
