"""The sealed-test verdicts as one gated family with the cross-validation verdicts (pipeline/verdicts.py, issue
39): a sealed test speaks only after its pair's cross-validation verdict, the report-level error stays at alpha,
and the report says which question the sealed tests answer."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.pipeline import compare as pc
from replearn.pipeline.report import sections
from replearn.pipeline.verdicts import GATE_NOTE, gate_sealed_tests

CFG = pc.settings({"alpha": 0.05, "correction": "holm"})


def _entry(cv_p: dict, mc_p: dict, perm_p: dict | None = None) -> dict:
    def row(pair, p, **kw):
        return {"model_a": pair[0], "model_b": pair[1], "pvalue": p, "mean_difference": 0.1, **kw}

    entry = {
        "cv": [row(k, p) for k, p in cv_p.items()],
        "test_set": [row(k, p, accuracy_a=0.9, accuracy_b=0.8) for k, p in mc_p.items()],
        "test_set_metric": {"ran": perm_p is not None, "rows": [row(k, p) for k, p in (perm_p or {}).items()]},
    }
    for r in entry["cv"] + entry["test_set"] + entry["test_set_metric"]["rows"]:
        r.pop("mean_difference") if "accuracy_a" in r else None
    return entry


def test_a_sealed_test_without_a_cv_verdict_is_not_tested():
    e = _entry({("a", "b"): 0.2}, {("a", "b"): 1e-6}, {("a", "b"): 1e-6})
    gate_sealed_tests(e, CFG, True)
    assert not e["cv"][0]["significant"]
    for r in e["test_set"] + e["test_set_metric"]["rows"]:
        assert r["significant"] is False and r["gate"] == GATE_NOTE and r["question"] == "fitted_models"
    assert sections._verdict(e["test_set"][0]).startswith("not tested")


def test_one_pair_is_the_fixed_sequence_test():
    """cv at alpha, then the two sealed tests by Holm at alpha."""
    e = _entry({("a", "b"): 0.04}, {("a", "b"): 0.02}, {("a", "b"): 0.045})
    gate_sealed_tests(e, CFG, True)
    assert e["cv"][0]["significant"] and e["cv"][0]["pvalue_adjusted"] == 0.04
    assert e["test_set"][0]["significant"] and e["test_set"][0]["winner"] == "a"
    assert e["test_set_metric"]["rows"][0]["significant"]  # Holm: 0.02 * 2 = 0.04 first, then 0.045
    e = _entry({("a", "b"): 0.04}, {("a", "b"): 0.03}, {("a", "b"): 0.045})
    gate_sealed_tests(e, CFG, True)
    assert not e["test_set"][0]["significant"] and not e["test_set_metric"]["rows"][0]["significant"]


def test_without_sealed_tests_the_cv_rows_are_holms():
    cv = {("a", "b"): 0.01, ("a", "c"): 0.02, ("b", "c"): 0.5}
    e = _entry(cv, {})
    pc._finish_rows(e["cv"], CFG, True)
    before = [r["pvalue_adjusted"] for r in e["cv"]]
    gate_sealed_tests(e, CFG, True)
    assert [r["pvalue_adjusted"] for r in e["cv"]] == before


def test_report_level_error_under_the_global_null_is_at_most_alpha():
    """Three pairs, McNemar and the metric test each, every p-value uniform (all nulls true): the probability of
    any verdict stays at alpha (ungated, the sealed tests alone add up to 2 alpha)."""
    rng = np.random.default_rng(1)
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    hits = 0
    reps = 1500
    for _ in range(reps):
        u = rng.uniform(size=9)
        e = _entry(dict(zip(pairs, u[:3])), dict(zip(pairs, u[3:6])), dict(zip(pairs, u[6:])))
        gate_sealed_tests(e, CFG, True)
        rows = e["cv"] + e["test_set"] + e["test_set_metric"]["rows"]
        hits += any(r["significant"] for r in rows)
    assert hits / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


def test_other_corrections_gate_serially():
    cfg = pc.settings({"alpha": 0.05, "correction": "bonferroni"})
    e = _entry({("a", "b"): 0.001, ("a", "c"): 0.4}, {("a", "b"): 0.001, ("a", "c"): 0.001})
    pc._finish_rows(e["cv"], cfg, True)
    gate_sealed_tests(e, cfg, True)
    assert not any(r["significant"] for r in e["test_set"])  # not every cv pair is significant
    cfg = pc.settings({"alpha": 0.05, "correction": "none"})
    e = _entry({("a", "b"): 0.001, ("a", "c"): 0.4}, {("a", "b"): 0.01, ("a", "c"): 0.001})
    pc._finish_rows(e["cv"], cfg, True)
    gate_sealed_tests(e, cfg, True)
    assert [r["significant"] for r in e["test_set"]] == [True, False]  # per pair, at alpha


def test_the_sealed_sections_state_their_question():
    assert "these two fitted models" in sections.SEALED_QUESTION
    assert "not about the learners" in sections.SEALED_QUESTION


def test_the_across_ranks_name_the_replicates_of_the_design(evaluation):
    from replearn.pipeline.records import as_evaluation

    seeds = as_evaluation(
        evaluation({"a": {"scores": {"accuracy": [0.5, 0.6]}}}, scheme={"name": "seeds", "design": "seeds"})
    )
    sig = {"datasets": {"d": {"replicates": "seed", "question": "population"}}}
    phrase = sections._replicates_phrase(sig, {"d": seeds})
    assert "seeds" in phrase and "cross-validation" not in phrase
    splits = as_evaluation(evaluation({"a": {"scores": {"accuracy": [0.5, 0.6]}}}))
    sig = {"datasets": {"d": {"replicates": "split", "question": "population"}}}
    assert "cross-validation splits" in sections._replicates_phrase(sig, {"d": splits})


def test_every_t_row_carries_its_detectable_difference_and_the_report_prints_it():
    from replearn.pipeline.report.document import _Fmt
    from replearn.pipeline.report.summary import detectable_phrase
    from replearn.pipeline.verdicts import add_detectable

    rows = [
        {"model_a": "a", "model_b": "b", "pvalue": 0.3, "standard_error": 0.01, "df": 20.0},
        {"model_a": "a", "model_b": "c", "pvalue": 0.4, "standard_error": None, "df": None},  # a rank test
    ]
    add_detectable(rows, CFG)
    from replearn import stats

    assert rows[0]["detectable_difference"] == pytest.approx(stats.detectable_difference(0.01, 20.0, 0.025))
    assert rows[0]["detectable_level"] == 0.025 and rows[1]["detectable_difference"] is None
    text = detectable_phrase(rows[0], _Fmt(3))
    assert "80 % power" in text and f"±{rows[0]['detectable_difference']:.3f}" in text
    assert detectable_phrase(rows[1], _Fmt(3)) == ""
    assert "80 % power from" in sections._verdict_with_ci(rows[0], "Holm")
