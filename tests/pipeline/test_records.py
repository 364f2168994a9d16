"""The records passed between stages: typed, versioned, validated on read (issue: untyped result dicts)."""

from __future__ import annotations

import json

import pytest

from replearn.pipeline import records


def _evaluation(**over) -> dict:
    base = {
        "schema_version": records.SCHEMA_VERSION,
        "dataset": "iris",
        "task": "classification",
        "n_examples": 10,
        "scheme": {"name": "seeds", "design": "seeds", "seed": 7},
        "metrics": ["accuracy"],
        "primary_metric": "accuracy",
        "greater_is_better": {"accuracy": True},
        "splits": [{"index": i, "kind": "seed", "n_train": 8, "n_test": 2, "seed": 100 + i} for i in range(3)],
        "models": {
            "knn": {
                "registry_name": "knn",
                "params": {},
                "scores": {"accuracy": [0.9, 1.0, None]},
                "n_iter": [None] * 3,
                "converged": [True] * 3,
            }
        },
        "classes": ["a", "b"],
    }
    base.update(over)
    return base


def test_round_trip_through_a_file(tmp_path):
    rec = records.from_dict(records.EvaluationResult, _evaluation())
    assert isinstance(rec.splits[0], records.Replicate) and rec.replicate_kind == "seed"
    assert isinstance(rec.models["knn"], records.ModelEvaluation) and rec.scheme.design == "seeds"
    path = tmp_path / "r.json"
    records.write(path, rec)
    assert records.read_evaluation(path) == rec
    assert json.loads(path.read_text())["schema_version"] == records.SCHEMA_VERSION


def test_replicates_are_not_tied_to_folds():
    sweep = _evaluation(
        splits=[
            {"index": i, "kind": "sweep", "point": p, "repeat": 0, "n_train": 8, "n_test": 2}
            for i, p in enumerate([1, 2, 4])
        ],
        scheme={"name": "sweep", "design": "sweep", "axis": "knn.n_neighbors", "values": [1, 2, 4]},
    )
    rec = records.from_dict(records.EvaluationResult, sweep)
    assert [s.point for s in rec.splits] == [1, 2, 4] and rec.splits[0].fold is None


@pytest.mark.parametrize(
    "change, message",
    [
        ({"schema_version": 1}, rf"schema version 1, this replearn reads version {records.SCHEMA_VERSION}; rerun"),
        ({"schema_version": None}, r"schema version None"),
        ({"splits": [{"index": 0, "kind": "fold", "n_train": 8, "n_test": 2}]}, r"unknown kind 'fold'"),
        ({"primary_metric": "f1_macro"}, r"primary metric 'f1_macro' is not among"),
        (
            {
                "models": {
                    "knn": {
                        "registry_name": "knn",
                        "params": {},
                        "scores": {"accuracy": [0.9]},
                        "n_iter": [None],
                        "converged": [True],
                    }
                }
            },
            r"1 accuracy scores for 3 replicates",
        ),
        ({"surprise": 1}, r"unknown field\(s\) \['surprise'\]"),
    ],
)
def test_bad_files_are_refused_with_the_field_named(change, message):
    with pytest.raises(records.ResultSchemaError, match=message):
        records.from_dict(records.EvaluationResult, _evaluation(**change), source="results/crossval/iris.json")


def test_missing_field_and_missing_file(tmp_path):
    data = _evaluation()
    del data["metrics"]
    with pytest.raises(records.ResultSchemaError, match=r"missing field 'metrics' of EvaluationResult"):
        records.from_dict(records.EvaluationResult, data)
    with pytest.raises(records.ResultSchemaError, match=r"not found; run the stage"):
        records.read_train(tmp_path / "nope.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(records.ResultSchemaError, match=r"not valid JSON"):
        records.read_significance(tmp_path / "bad.json")


def test_timing_is_a_versioned_record(tmp_path):
    seconds = {"knn": {"fit_seconds": [0.5, None, 0.25], "predict_seconds": [0.1, None, 0.2]}, "vi": {}}
    path = tmp_path / "timing" / "d.json"
    records.write(path, records.Timing(seconds=seconds))
    data = json.loads(path.read_text())
    assert data == {"schema_version": records.SCHEMA_VERSION, "seconds": seconds}
    timing = records.read_timing(path)
    assert timing.of("knn", "fit_seconds") == [0.5, 0.25]  # a failed fit has no time
    assert timing.of("knn", "plan_seconds") == [] and timing.of("absent", "fit_seconds") == []
    assert timing.labels("knn") == seconds["knn"] and timing.labels("absent") == {}
    # the layout timing/ held before it was a record, and the crossval stage's own dict, read the same
    assert records.as_timing(seconds) == timing
    assert records.as_timings({"d": seconds, "e": timing}) == {"d": timing, "e": timing}
    # missing: no times; a file that is no timing record: refused, naming it
    assert records.read_timing(tmp_path / "none.json") == records.Timing.empty()
    path.write_text(json.dumps({"schema_version": records.SCHEMA_VERSION, "seconds": {"knn": [1.0]}}))
    with pytest.raises(records.ResultSchemaError, match=r"d\.json\.seconds\.knn: expected a mapping"):
        records.read_timing(path)
    path.write_text(json.dumps({"schema_version": 1, "seconds": {}}))
    with pytest.raises(records.ResultSchemaError, match="schema version 1"):
        records.read_timing(path)
    path.write_text("{not json")
    with pytest.raises(records.ResultSchemaError, match="not valid JSON"):
        records.read_timing(path)


def test_a_models_hyperparameters_are_read_through_the_record():
    m = records.ModelEvaluation("one_vs_all", {"estimator": "svm", "C": 0}, {}, [], [])
    assert m.hyperparameter("estimator") == "svm" and m.hyperparameter("C", 1.0) == 0  # a falsy value is kept
    assert m.hyperparameter("task") is None and m.hyperparameter("task", "classification") == "classification"
    assert records.hyperparameter(None, "estimator", "x") == "x" and records.hyperparameter({}, "estimator") is None
