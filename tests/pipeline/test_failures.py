"""Failed fits through the pipeline (issue 23 §3): the config keys, records v5, the statistics' conventions
(checked by hand on small cases), the report's Failures section and the cost report kept out of report.html,
and the crossval / train stages under cv.on_error and cv.max_fit_seconds (fake models registered as a plugin)."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from replearn import models as registry
from replearn.evaluation.budget import FitFailedError
from replearn.exceptions import ConfigError
from replearn.pipeline import compare, config, experiment, featurizing, paths, records, summary_metrics
from replearn.pipeline.data import prepare
from replearn.pipeline.report import build_report
from replearn.pipeline.report.cost import LINK_TEXT, build_cost_report, pareto_front
from replearn.pipeline.report.failures import _ranges, failure_rows

ROOT = Path(__file__).resolve().parents[2]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text())
STATS = PARAMS["stats"]


# -- configuration -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key, value, message",
    [
        ("on_error", "ignore", r"cv\.on_error: unknown cv\.on_error \(what a failed fit does\) 'ignore'; valid "),
        ("max_fit_seconds", 0, r"cv\.max_fit_seconds: expected a finite number in \(0\.0, inf\)"),
        ("max_fit_seconds", -5.0, r"cv\.max_fit_seconds: expected a finite number in \(0\.0, inf\)"),
        ("max_fit_seconds", "60", r"cv\.max_fit_seconds: expected a finite number .*got str '60'"),
    ],
)
def test_cv_failure_settings_are_validated(key, value, message):
    params = copy.deepcopy(PARAMS)
    params["cv"][key] = value
    with pytest.raises(ConfigError, match=message):
        config.validate(params, root=ROOT)


def test_a_budget_needs_fork(monkeypatch):
    params = copy.deepcopy(PARAMS)
    params["cv"]["max_fit_seconds"] = 60
    config.validate(params, root=ROOT)
    monkeypatch.delattr("os.fork")
    with pytest.raises(ConfigError, match=r"cv\.max_fit_seconds: a budget needs os\.fork"):
        config.validate(params, root=ROOT)


def test_the_defaults_stop_on_a_failed_fit_without_a_budget():
    assert (PARAMS["cv"]["on_error"], PARAMS["cv"]["max_fit_seconds"]) == ("raise", None)
    params = copy.deepcopy(PARAMS)
    params["cv"].update(on_error="record", max_fit_seconds=12.5)
    config.validate(params, root=ROOT)
    assert experiment.failure_policy(params) == {"on_error": "record", "max_fit_seconds": 12.5}
    assert experiment.failure_policy({"cv": {}}) == {"on_error": "raise", "max_fit_seconds": None}


# -- records v5 ----------------------------------------------------------------------------------------------------
N_SPLITS = 6


def _evaluation(name: str, scores: dict[str, list], failed: dict[str, list[int]] | None = None, **kw):
    """A cv record: 6 splits (2 repeats x 3 folds) of 90 training / 30 test examples; ``failed[m]``: the replicates
    whose fit failed (their scores become None)."""
    failed = failed or {}
    models = {}
    for m, values in scores.items():
        bad = set(failed.get(m, []))
        vals = [None if i in bad else float(v) for i, v in enumerate(values)]
        models[m] = records.ModelEvaluation(
            registry_name=m,
            params={},
            scores={"accuracy": vals},
            n_iter=[None] * len(vals),
            converged=[None if i in bad else True for i in range(len(vals))],
            failures=[records.FitFailure(i, "error", "ValueError: boom") for i in sorted(bad)],
        )
    splits = [
        records.Replicate(index=i, kind="split", n_train=90, n_test=30, seed=1, repeat=i // 3, fold=i % 3)
        for i in range(N_SPLITS)
    ]
    return records.EvaluationResult(
        dataset=name,
        task="classification",
        n_examples=120,
        scheme=records.Scheme(name="repeated_stratified_kfold", folds=3, repeats=2, seed=7),
        metrics=["accuracy"],
        primary_metric="accuracy",
        greater_is_better={"accuracy": True},
        splits=splits,
        models=models,
        **kw,
    )


def _train(name: str, keys, failed=()):
    y = [0, 1] * 10
    models = {}
    for j, k in enumerate(keys):
        if k in failed:
            models[k] = records.TrainedModel(False, None, failure=records.FitFailure(0, "timeout", "stopped"))
        else:
            pred = [(v + (i % (j + 2) == 0)) % 2 for i, v in enumerate(y)]
            models[k] = records.TrainedModel(True, 1, pred=pred, correct=[int(p == t) for p, t in zip(pred, y)])
    return records.TrainResult(dataset=name, task="classification", y_true=y, models=models)


def test_records_round_trip_and_refuse_v4(tmp_path):
    ev = _evaluation(
        "d",
        {"a": [0.8] * 6, "b": [0.7] * 6},
        {"b": [1, 4]},
        variance_failures={"a": [records.FitFailure(3, "timeout", "stopped after cv.max_fit_seconds = 1 s")]},
    )
    records.write(tmp_path / "cv.json", ev)
    back = records.read_evaluation(tmp_path / "cv.json")
    assert back == ev and back.models["b"].failed() == {1, 4}
    tr = _train("d", ["a", "b"], failed=("b",))
    records.write(tmp_path / "train.json", tr)
    assert records.read_train(tmp_path / "train.json") == tr
    data = json.loads((tmp_path / "cv.json").read_text())
    data["schema_version"] = 4
    with pytest.raises(
        records.ResultSchemaError, match=rf"schema version 4, this replearn reads version {records.SCHEMA_VERSION}"
    ):
        records.from_dict(records.EvaluationResult, data, source="old.json")


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: d["models"]["b"]["failures"][0].update(reason="crashed"), r"reason 'crashed'; expected .*timeout"),
        (lambda d: d["models"]["b"]["failures"][0].update(replicate=9), r"failure on replicate 9"),
        (lambda d: d["models"]["b"]["scores"]["accuracy"].__setitem__(1, 0.5), r"scores on replicate 1, whose fit"),
    ],
)
def test_inconsistent_failures_are_refused(damage, message):
    data = records.to_dict(_evaluation("d", {"a": [0.8] * 6, "b": [0.7] * 6}, {"b": [1]}))
    damage(data)
    with pytest.raises(records.ResultSchemaError, match=message):
        records.from_dict(records.EvaluationResult, data, source="x.json")


# -- statistics --------------------------------------------------------------------------------------------------
A = [0.80, 0.82, 0.78, 0.81, 0.79, 0.83]
B = [0.75, 0.74, 0.79, 0.73, 0.76, 0.72]
C = [0.70, 0.71, 0.69, 0.74, 0.72, 0.70]


def _corrected_t(x, y, n_train=90, n_test=30):
    d = np.asarray(x) - np.asarray(y)
    return d.mean() / np.sqrt((1 / d.size + n_test / n_train) * d.var(ddof=1))


def test_a_pair_is_tested_on_the_replicates_where_both_fits_succeeded():
    cv = _evaluation("d", {"a": A, "b": B, "c": C, "dead": C}, {"b": [2, 5], "dead": list(range(6))})
    rows = {(r["model_a"], r["model_b"]): r for r in compare.compare_cv(cv, STATS)}
    assert set(rows) == {("a", "b"), ("a", "c"), ("b", "c")}  # "dead" has no successful fit: left out
    keep = [0, 1, 3, 4]
    ab = rows[("a", "b")]
    assert ab["dropped_replicates"] == 2 and rows[("a", "c")]["dropped_replicates"] == 0
    assert ab["mean_difference"] == pytest.approx(np.mean([A[i] - B[i] for i in keep]))
    assert ab["statistic"] == pytest.approx(_corrected_t([A[i] for i in keep], [B[i] for i in keep]))
    assert ab["df"] == 3
    assert rows[("a", "c")]["statistic"] == pytest.approx(_corrected_t(A, C))
    bayes = {(r["model_a"], r["model_b"]): r for r in compare.compare_bayesian(cv, STATS)}
    assert bayes[("a", "b")]["dropped_replicates"] == 2 and ("a", "dead") not in bayes


def test_5x2cv_pairs_with_a_dropped_split_are_not_tested():
    cv = _evaluation("d", {"a": A + A[:4], "b": B + B[:4]}, {"b": [7]})
    cv = dataclasses.replace(
        cv,
        scheme=records.Scheme(name="5x2", folds=2, repeats=5, seed=7),
        splits=[
            records.Replicate(index=i, kind="split", n_train=60, n_test=60, seed=1, repeat=i // 2, fold=i % 2)
            for i in range(10)
        ],
    )
    (row,) = compare.compare_cv(cv, STATS)
    assert row["pvalue"] is None and not row["significant"] and "needs all ten splits, 1 dropped" in row["note"]


def _across_case():
    """Five datasets, three models; c failed once on d0 (no mean there), b and c both on d1."""
    rng = np.random.default_rng(0)
    crossval, train = {}, {}
    for k in range(5):
        shift = rng.normal(scale=0.01, size=6)
        scores = {"a": np.add(A, shift), "b": np.add(B, shift), "c": np.add(C, shift)}
        failed = {"c": [3]} if k == 0 else {"b": [0], "c": [5]} if k == 1 else {}
        crossval[f"d{k}"] = _evaluation(f"d{k}", scores, failed)
        train[f"d{k}"] = _train(f"d{k}", ["a", "b", "c"], failed=("c",) if k == 4 else ())
    return crossval, train


def test_across_datasets_a_missing_mean_takes_the_worst_rank():
    crossval, train = _across_case()
    sig = compare.compare(crossval, train, STATS)
    across = sig["across_datasets"]
    assert across["imputed_worst_rank"] == [["d0", "c"], ["d1", "b"], ["d1", "c"]]
    assert across["scores"][0][2] is None and across["scores"][1][1:] == [None, None]
    # by hand: a first everywhere; b second and c third where they have means; on d1 b and c tie at the worst
    # ranks 2 and 3 (2.5 each); on d0 c is worst (3) anyway
    assert across["average_ranks"] == pytest.approx({"a": 1.0, "b": (2 * 4 + 2.5) / 5, "c": (3 * 4 + 2.5) / 5})
    pairs = {(r["model_a"], r["model_b"]): r for r in sig["across_pairs"]["rows"]}
    assert pairs[("a", "b")]["dropped_datasets"] == 1 and pairs[("a", "c")]["dropped_datasets"] == 2
    assert pairs[("b", "c")]["dropped_datasets"] == 2
    assert pairs[("a", "c")]["wins_a"] == 3 and pairs[("a", "c")]["ties"] == 0  # 5 datasets - 2 dropped
    # the per-dataset rows count the dropped replicates; the final fit of c on d4 is out of McNemar
    d1 = sig["datasets"]["d1"]
    row = next(r for r in d1["cv"] if (r["model_a"], r["model_b"]) == ("b", "c"))
    assert row["dropped_replicates"] == 2 and d1["failed_fits"] == {"b": 1, "c": 1}
    assert sig["datasets"]["d4"]["failed_final_fit"] == ["c"]
    assert {(r["model_a"], r["model_b"]) for r in sig["datasets"]["d4"]["test_set"]} == {("a", "b")}
    records.from_dict(records.SignificanceResult, sig, source="significance")  # a valid record


# -- report ---------------------------------------------------------------------------------------------------------
def test_the_report_lists_every_failure_and_links_the_cost_report(tmp_path):
    crossval, train = _across_case()
    crossval["d0"] = dataclasses.replace(
        crossval["d0"], variance_failures={"a": [records.FitFailure(7, "diverged", "DivergenceError: nan")]}
    )
    sig = compare.compare(crossval, train, STATS)
    cv_dicts = {d: records.to_dict(r) for d, r in crossval.items()}
    train_dicts = {d: records.to_dict(r) for d, r in train.items()}
    settings = {"title": "t", "decimals": 3, "dpi": 40, "plots": False}
    experiment_info = {"name": "x", "params_hash": "0", "datasets": list(crossval), "models": ["a", "b", "c"]}

    def report(out):
        build_report(
            crossval=cv_dicts,
            significance=sig,
            train_metrics={},
            settings=settings,
            experiment=experiment_info,
            out_dir=out,
            train_results=train_dicts,
        )
        return (out / "report.html").read_bytes(), (out / "report.md").read_text()

    html, md = report(tmp_path / "r")
    rows = failure_rows(cv_dicts, list(crossval), train_dicts)
    assert [(r["dataset"], r["model"], r["fits"], r["replicates"], r["reason"]) for r in rows] == [
        ("d0", "a", "half-sampling", [7], "diverged"),
        ("d0", "c", "cross-validation", [3], "error"),
        ("d1", "b", "cross-validation", [0], "error"),
        ("d1", "c", "cross-validation", [5], "error"),
        ("d4", "c", "final fit", [0], "timeout"),
    ]
    assert "## Failures" in md and "| d4 | c | final fit | 0 | 1 | **timeout** | stopped |" in md
    assert "c on d0, b on d1, c on d1" in md  # the worst-rank imputations, named
    assert "b vs c: 2" in md  # replicates dropped on d1
    assert b'<a href="cost.html">cost.html</a>' in html and LINK_TEXT.split(";")[0] in md
    # the cost report changes with the timings; report.html does not
    for i, seconds in enumerate((0.01, 0.5)):
        timing = {
            d: {k: {"fit_seconds": [seconds] * 6, "predict_seconds": [seconds / 10] * 6} for k in "abc"}
            for d in crossval
        }
        build_cost_report(crossval=cv_dicts, timing=timing, order=list(crossval), out_dir=tmp_path / "r", title="t")
        (tmp_path / f"cost{i}.md").write_text((tmp_path / "r" / "cost.md").read_text())
    assert (tmp_path / "cost0.md").read_text() != (tmp_path / "cost1.md").read_text()
    assert "| d0 | a | 6 | 0 | 10.0 ms | 10.0 ms – 10.0 ms | 1.0 ms |" in (tmp_path / "cost0.md").read_text()
    assert report(tmp_path / "r")[0] == html


def test_cost_helpers():
    assert _ranges([0, 1, 2, 5, 7, 8]) == "0–2, 5, 7–8"
    points = {"fast_bad": (0.01, 0.7), "slow_good": (1.0, 0.9), "slow_bad": (2.0, 0.6), "mid": (0.5, 0.95)}
    assert pareto_front(points, higher_is_better=True) == ["fast_bad", "mid"]
    assert pareto_front(points, higher_is_better=False) == ["fast_bad", "slow_bad"]  # the lowest score is best


def test_wall_clock_time_lives_outside_the_byte_identical_outputs():
    assert paths.TIMING.parts[0] not in {paths.RESULTS.parts[0], paths.METRICS.parts[0], paths.REPORTS.parts[0]}
    ignored = (ROOT / ".dvcignore").read_text().split()
    assert {"reports/cost.html", "reports/cost.md", "reports/cost_pareto.png"} <= set(ignored)


# -- the stages, with fake models that fail -----------------------------------------------------------------------
FIXTURE = ROOT / "tests" / "fixtures" / "fitfail_models.py"


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("_fitfail_fixture", FIXTURE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = module.install(tmp_path_factory.mktemp("fitfail"))
    sys.path.insert(0, str(folder))
    registry.reset_plugins()
    yield folder
    sys.path.remove(str(folder))
    sys.modules.pop("fitfail_models", None)
    registry.reset_plugins()


def _params(**cv):
    params = copy.deepcopy(PARAMS)
    params["dataset"] = {
        "blobs": {"source": "synthetic", "generator": "blobs", "n_samples": 120, "n_features": 3, "n_classes": 2}
    }
    params["models"] = {
        "knn": {"name": "knn", "params": {"n_neighbors": 3}},
        "flaky": {"name": "fail_flaky", "params": {"every": 2}},
        "raises": {"name": "fail_raise", "params": {}},
    }
    cv = {"scheme": "repeated_stratified_kfold", "folds": 3, "repeats": 2, "n_jobs": 1, "on_error": "record", **cv}
    params["cv"].update(progress=False, **cv)
    params["cv"]["half_sampling"] = {"subsamples": 2, "repeats": 2, "folds": 3, "fraction": 0.5}
    params["design"] = {"name": "cv"}
    params["tracking"]["enabled"] = False
    return params


@pytest.fixture()
def project(plugin, tmp_path):
    params = _params()
    for name, spec in params["dataset"].items():
        prepare(name, spec, seed=params["seed"], split=params["split"], root=tmp_path)
        featurizing.featurize(params, name, root=tmp_path)
    return params, tmp_path


def test_crossval_records_failures_and_counts_its_fits(project):
    params, root = project
    calls: list[int] = []
    timing: dict = {}
    res = experiment.crossval(params, "blobs", root=root, progress=False, timing=timing, on_fits=calls.append)
    assert sum(calls) == experiment.planned_fits(params, "blobs", root) == 3 * (6 + 2 * 2 * 3)
    assert [f.reason for f in res.models["raises"].failures] == ["error"] * 6
    flaky = res.models["flaky"]
    assert 0 < len(flaky.failures) < 6 and all(flaky.scores["accuracy"][f.replicate] is None for f in flaky.failures)
    assert res.variance is None and res.variance_failures["raises"] and "knn" not in res.variance_failures
    assert summary_metrics.crossval_summary(res)["raises"] == {"not_converged": 0, "failed": 6}
    assert timing["knn"]["fit_seconds"] and timing["raises"]["fit_seconds"] == [None] * 6
    records.from_dict(records.EvaluationResult, records.to_dict(res), source="blobs")  # consistent
    with pytest.raises(FitFailedError, match=r"^dataset 'blobs', model 'flaky' \(fail_flaky\), split \d"):
        experiment.crossval(_params(on_error="raise"), "blobs", root=root, progress=False)


def test_a_sweep_indexes_failures_over_all_its_points(project):
    params, root = project
    params["design"] = {"name": "sweep", "axis": "knn.n_neighbors", "values": [1, 3], "replicates": "cv"}
    params["cv"]["half_sampling"]["subsamples"] = 0
    res = experiment.crossval(params, "blobs", root=root, progress=False)
    assert [f.replicate for f in res.models["raises"].failures] == list(range(12))
    second = [f.replicate for f in res.models["flaky"].failures if f.replicate >= 6]
    assert second and all(res.models["flaky"].scores["accuracy"][i] is None for i in second)
    records.from_dict(records.EvaluationResult, records.to_dict(res), source="sweep")


def test_train_records_a_failed_final_fit_or_stops(project):
    params, root = project
    (root / "models" / "blobs").mkdir(parents=True)
    stale = root / "models" / "blobs" / "raises.npz"
    stale.write_bytes(b"an earlier run's model")
    metrics, result = experiment.train(_params(max_fit_seconds=30.0), "blobs", root=root)
    assert result.models["raises"].failure == records.FitFailure(0, "error", "ValueError: boom")
    assert "raises" not in metrics and not stale.exists()
    assert result.models["knn"].failure is None and (root / "models" / "blobs" / "knn.npz").is_file()
    with pytest.raises(FitFailedError, match=r"^dataset 'blobs', model '\w+' \(fail_\w+\), final fit on the whole "):
        experiment.train(_params(on_error="raise"), "blobs", root=root)


def test_the_crossval_stage_writes_timing_outside_results(project, monkeypatch):
    params, root = project
    from replearn.pipeline.stages import crossval as stage  # what stages/crossval.py runs

    monkeypatch.chdir(root)
    stage.crossval_all(params, None)
    raw = json.loads((root / paths.TIMING / "blobs.json").read_text())
    assert raw["schema_version"] == records.SCHEMA_VERSION  # a versioned record, written by records.write
    timing = records.read_timing(root / paths.TIMING / "blobs.json")
    assert set(timing.seconds) == {"knn", "flaky", "raises"} and len(timing.of("knn", "fit_seconds")) == 6
    written = {p.relative_to(root).as_posix() for p in (root / "results").rglob("*") if p.is_file()}
    assert written == {"results/crossval/blobs.json"}
    assert "seconds" not in (root / "metrics" / "crossval.json").read_text()


def test_one_progress_bar_over_all_datasets_on_a_terminal_and_none_in_ci(project, monkeypatch, capsys):
    params, root = project
    monkeypatch.chdir(root)
    params["dataset"]["blobs2"] = params["dataset"]["blobs"]
    (root / "data" / "prepared" / "blobs2").symlink_to(root / "data" / "prepared" / "blobs")
    total = 2 * experiment.planned_fits(params, "blobs", root)
    params["cv"]["progress"] = True
    with experiment.overall_progress(params) as advance:
        advance(5)
    err = capsys.readouterr().err
    assert "crossval (all datasets)" in err and f"5/{total}" in err
    params["cv"]["progress"] = "auto"
    monkeypatch.setenv("CI", "1")
    with experiment.overall_progress(params) as advance:
        assert advance is None
    assert capsys.readouterr().err == ""
