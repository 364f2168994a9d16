"""replearn diff on records written as the crossval stage writes them: pairing, refusals, verdicts, multiplicity,
margins, failures, seeds, older schemas, the three outputs and the exit codes (the end-to-end run with DVC
experiments is tests/test_diff_end_to_end.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from replearn import cli
from replearn.pipeline import diff, records
from replearn.pipeline.diff import engine, render
from replearn.pipeline.diff.sources import DiffInputError

N_REP, N_TEST = 20, 40  # 4 repeats x 5 folds of 200 examples


def make_record(dataset="iris", models=None, *, seed=1, sha="a" * 64, params=None, metrics=("accuracy",)):
    """A crossval record with replicates of 4 x 5-fold CV on 200 examples; ``models``: key -> accuracy per
    replicate (None: a failed fit)."""
    rng = np.random.default_rng(seed)
    splits = []
    for r in range(4):
        perm = rng.permutation(200)
        for f in range(5):
            idx = sorted(int(i) for i in perm[f * N_TEST : (f + 1) * N_TEST])
            splits.append(
                records.Replicate(
                    index=len(splits),
                    kind="split",
                    n_train=160,
                    n_test=N_TEST,
                    seed=seed,
                    repeat=r,
                    fold=f,
                    test_index=idx,
                )
            )
    out = {}
    for key, scores in (models or {}).items():
        fails = [records.FitFailure(i, "error", "boom") for i, v in enumerate(scores) if v is None]
        out[key] = records.ModelEvaluation(
            registry_name=key,
            params=dict((params or {}).get(key, {})),
            scores={m: list(scores) for m in metrics},
            n_iter=[None] * N_REP,
            converged=[None if v is None else True for v in scores],
            failures=fails,
        )
    return records.EvaluationResult(
        dataset=dataset,
        task="classification",
        n_examples=200,
        scheme=records.Scheme("repeated_stratified_kfold", folds=5, repeats=4, seed=seed),
        metrics=list(metrics),
        primary_metric=metrics[0],
        greater_is_better={m: True for m in metrics},
        splits=splits,
        models=out,
        data_sha256=sha,
    )


def counts(rng, mean, sd=2.0):
    """Accuracies on 40-example folds: round(40 * mean + noise) / 40."""
    return [float(np.clip(np.round(N_TEST * mean + rng.normal(0, sd)), 0, N_TEST) / N_TEST) for _ in range(N_REP)]


def write(folder: Path, *recs, params=None):
    (folder / "results" / "crossval").mkdir(parents=True, exist_ok=True)
    for r in recs:
        records.write(folder / "results" / "crossval" / f"{r.dataset}.json", r)
    if params is not None:
        import yaml

        (folder / "params.yaml").write_text(yaml.safe_dump(params))
    return folder


def run(tmp_path, a_recs, b_recs, a_params=None, b_params=None, **kw):
    a = write(tmp_path / "A", *a_recs, params=a_params)
    b = write(tmp_path / "B", *b_recs, params=b_params)
    return diff.run(str(a), str(b), tmp_path, track=False, **kw)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_identical_records_are_identical_without_a_test(tmp_path, rng):
    sc = {"knn": counts(rng, 0.9), "lr": counts(rng, 0.85)}
    res = run(tmp_path, [make_record(models=sc)], [make_record(models=sc)])
    assert {c.verdict for c in res.cells} == {"identical"} and res.n_tested == 0
    assert res.outcome() == "identical" and res.exit_code("regression") == 0 and res.exit_code("change") == 0
    assert all(c.pvalue is None for c in res.cells)


def test_a_planted_drop_is_a_regression_and_exits_1(tmp_path, rng):
    a = {"knn": counts(rng, 0.9), "lr": counts(rng, 0.85)}
    b = {"knn": [max(0.0, v - 3 / N_TEST) for v in a["knn"]], "lr": list(a["lr"])}
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)], b_params={"stats": {"rope": 0.01}})
    knn = next(c for c in res.cells if c.model == "knn")
    assert knn.verdict == "worse" and knn.beyond_margin  # 7.5 points, far beyond the 1-point margin
    assert knn.change == pytest.approx(-3 / N_TEST, abs=0.01) and knn.ci[1] < 0
    assert knn.pvalue == pytest.approx(2 / 2**N_REP)  # every replicate worse: the two extreme sign patterns
    assert knn.pvalue_adjusted == pytest.approx(max(knn.pvalue, 1 / 20_000))  # one tested cell; maxT's floor
    assert "exact" in knn.method
    assert res.outcome() == "regression"
    assert (res.exit_code("regression"), res.exit_code("change"), res.exit_code("never")) == (1, 1, 0)
    assert "worse on these splits, by more than 0.01" in render.text(res)


def test_an_improvement_fails_only_the_change_gate(tmp_path, rng):
    a = {"knn": counts(rng, 0.8)}
    b = {"knn": [min(1.0, v + 4 / N_TEST) for v in a["knn"]]}
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)])
    assert res.cells[0].verdict == "better" and res.outcome() == "change"
    assert (res.exit_code("regression"), res.exit_code("change")) == (0, 1)


def test_a_seed_only_change_is_not_called_a_regression(tmp_path):
    """Two draws of the same learner (independent noise per replicate): no verdict in 95 % of diffs."""
    alarms = 0
    for s in range(40):
        g = np.random.default_rng(100 + s)
        base = {"rf": counts(g, 0.9, sd=0.0)}
        a = {"rf": counts(g, 0.9)}
        b = {"rf": counts(g, 0.9)}
        del base
        res = run(tmp_path / str(s), [make_record(models=a)], [make_record(models=b)])
        alarms += res.outcome() in ("regression", "change")
    assert alarms <= 6  # 5 % of 40 is 2; 6 is beyond 3 Monte-Carlo standard errors


def test_holm_over_every_cell_and_bh_on_request(tmp_path, rng):
    a = {k: counts(rng, 0.85) for k in ("m1", "m2", "m3")}
    b = {
        k: [v - (2 / N_TEST if k == "m1" else 0) + (1 / N_TEST if i % 2 else 0) for i, v in enumerate(a[k])] for k in a
    }
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)], correction="holm")
    raw = sorted(c.pvalue for c in res.cells)
    adj = sorted(c.pvalue_adjusted for c in res.cells)
    assert adj[0] == pytest.approx(min(1.0, 3 * raw[0]))
    res_bh = run(tmp_path / "bh", [make_record(models=a)], [make_record(models=b)], correction="bh")
    assert "Benjamini" in res_bh.correction_label
    assert all(c.pvalue_adjusted <= d.pvalue_adjusted + 1e-12 for c, d in zip(res_bh.cells, res.cells))


def test_maxt_uses_the_correlation_of_a_models_metrics(tmp_path):
    """Two metrics of one model that move together are one test for maxT (adjusted p about the raw one), two for
    Holm (twice it); a model whose metrics move independently is corrected like Holm."""
    g = np.random.default_rng(11)
    a = {"m": counts(g, 0.8, sd=3.0)}
    b = {"m": [v - (1 / N_TEST if i % 3 == 0 else 0) + (g.normal(0, 2) // 1) / N_TEST for i, v in enumerate(a["m"])]}
    rec_a, rec_b = (
        make_record(models=a, metrics=("accuracy", "error")),
        make_record(models=b, metrics=("accuracy", "error")),
    )
    maxt = run(tmp_path / "maxt", [rec_a], [rec_b])
    holm = run(tmp_path / "holm", [rec_a], [rec_b], correction="holm")
    raw = maxt.cells[0].pvalue
    assert 1e-3 < raw < 0.2
    assert all(c.pvalue_adjusted <= 1.25 * raw + 3e-3 for c in maxt.cells)  # MC error of 20,000 flips
    assert all(c.pvalue_adjusted == pytest.approx(min(1, 2 * raw)) for c in holm.cells)
    assert "maxT" in maxt.correction_label and "Holm" in holm.correction_label


def test_a_change_within_the_margin_is_equivalent_or_non_inferior(tmp_path):
    g = np.random.default_rng(3)
    a = {"m": counts(g, 0.9, sd=1.0)}
    b = {"m": [v + (1 / N_TEST if i % 4 == 0 else 0) - (1 / N_TEST if i % 4 == 2 else 0) for i, v in enumerate(a["m"])]}
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)], margin=0.02)
    (cell,) = res.cells
    assert cell.verdict == "equivalent" and cell.p_equivalent <= 0.05
    assert "equivalent within ±0.02" in render.verdict_text(cell) and "on these splits" in render.verdict_text(cell)
    assert cell.mde is not None and cell.mde > 0
    res0 = run(tmp_path / "none", [make_record(models=a)], [make_record(models=b)], margin=0.0)
    assert res0.cells[0].verdict == "no change detected" and res0.cells[0].p_equivalent is None


def test_other_splits_or_data_are_refused_with_the_reason(tmp_path, rng):
    sc = {"knn": counts(rng, 0.9)}
    res = run(
        tmp_path,
        [make_record(models=sc, seed=1)],
        [make_record(models=sc, seed=2)],
        a_params={"seed": 1},
        b_params={"seed": 2},
    )
    assert res.cells == [] and res.refused[0].reason == "the splits differ (seed 1 -> 2)"
    assert res.outcome() == "nothing compared" and res.exit_code("regression") == 1 and res.exit_code("never") == 0
    res = run(tmp_path / "data", [make_record(models=sc)], [make_record(models=sc, sha="b" * 64)])
    assert res.refused[0].reason.startswith("the data differ") and "sha256 aaaaaaaaaaaa -> bbbbbbbbbbbb" in (
        res.refused[0].reason
    )
    other = make_record(models=sc)
    other = records.EvaluationResult(**{**other.__dict__, "scheme": records.Scheme("repeated_stratified_kfold", 10, 2)})
    res = run(tmp_path / "folds", [make_record(models=sc)], [other])
    assert res.refused[0].reason == "the replicates differ (cv.folds 5 -> 10)"
    assert "Not paired: iris" in render.text(res)


def test_datasets_models_and_metrics_on_one_side_are_listed(tmp_path, rng):
    a = [
        make_record(models={"knn": counts(rng, 0.9), "lr": counts(rng, 0.8)}),
        make_record("wine", {"knn": counts(rng, 0.9)}),
    ]
    b = [make_record(models={"knn": counts(rng, 0.9), "svm": counts(rng, 0.8)}, metrics=("accuracy", "f1_macro"))]
    res = run(tmp_path, a, b)
    assert res.only_in_a == {"datasets": ["wine"], "models": ["iris/lr"], "metrics": []}
    assert res.only_in_b == {"datasets": [], "models": ["iris/svm"], "metrics": ["f1_macro"]}
    assert [(c.model, c.metric) for c in res.cells] == [("knn", "accuracy")]
    text = render.text(res)
    assert (
        "Only in A (datasets, not compared): wine." in text and "Only in B (metrics, not compared): f1_macro." in text
    )


def test_new_failed_fits_are_a_regression(tmp_path, rng):
    a = {"knn": counts(rng, 0.9)}
    b = {"knn": [None if i in (3, 7) else v for i, v in enumerate(a["knn"])]}
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)])
    (cell,) = res.cells
    assert cell.verdict == "fails more" and cell.dropped == 2 and cell.failed_b == 2
    assert res.exit_code("regression") == 1 and "fails on 2 replicate(s) where A did not" in render.verdict_text(cell)


def test_a_model_that_fails_everywhere_is_a_regression_untested(tmp_path, rng):
    a = {"knn": counts(rng, 0.9)}
    res = run(tmp_path, [make_record(models=a)], [make_record(models={"knn": [None] * N_REP})])
    (cell,) = res.cells
    assert cell.verdict == "fails more" and cell.pvalue is None and res.exit_code("regression") == 1


def test_a_random_state_only_change_is_a_seed_change_not_a_test(tmp_path, rng):
    a = {"rf": counts(rng, 0.9)}
    b = {"rf": counts(rng, 0.9)}
    res = run(
        tmp_path,
        [make_record(models=a, params={"rf": {"random_state": 7}})],
        [make_record(models=b, params={"rf": {"random_state": 8}})],
    )
    (cell,) = res.cells
    assert cell.verdict == "seed changed" and cell.pvalue is None and res.exit_code("regression") == 0
    assert cell.changed_params == {"random_state": [7, 8]}


def test_older_schema_is_read_with_a_note_and_unknown_versions_are_one_line_errors(tmp_path, rng):
    sc = {"knn": counts(rng, 0.9)}
    a = write(tmp_path / "A", make_record(models=sc))
    b = write(tmp_path / "B", make_record(models=sc))
    path = a / "results" / "crossval" / "iris.json"
    data = json.loads(path.read_text())
    data["schema_version"] = 5
    del data["data_sha256"]
    path.write_text(json.dumps(data))
    res = diff.run(str(a), str(b), tmp_path, track=False)
    assert res.cells[0].verdict == "identical"
    assert any("older schema version 5" in n for n in res.notes)
    data["schema_version"] = 2
    path.write_text(json.dumps(data))
    with pytest.raises(
        DiffInputError, match=r"schema version 2; this replearn reads version \d+ and the older 3, 4, 5"
    ):
        diff.run(str(a), str(b), tmp_path, track=False)


def test_json_and_markdown_outputs(tmp_path, rng):
    a = {"knn": counts(rng, 0.9), "lr": counts(rng, 0.85)}
    b = {"knn": [v - 2 / N_TEST for v in a["knn"]], "lr": list(a["lr"])}
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)])
    doc = json.loads(render.json_text(res, "regression"))
    assert doc["schema"] == "replearn.diff/1" and doc["outcome"] == "regression" and doc["exit_code"] == 1
    assert "on this dataset with these splits" in doc["question"]
    knn = next(c for c in doc["cells"] if c["model"] == "knn")
    assert knn["verdict"] == "worse" and knn["ci"][1] < 0 and knn["pvalue_adjusted"] <= 0.05
    assert doc["counts"] == {"worse": 1, "identical": 1}
    md = render.markdown(res)
    assert md.startswith("### replearn diff: ❌ regression")
    assert "| iris | knn | accuracy |" in md and "on these splits" in md
    assert "lr" not in md.split("identical cell(s)")[0].split("| dataset")[1]  # identical cells only counted
    assert "| iris | lr |" in render.markdown(res, show_all=True)


def test_every_verdict_line_states_its_question(tmp_path, rng):
    a = {"m1": counts(rng, 0.9), "m2": counts(rng, 0.8), "m3": counts(rng, 0.7)}
    b = {"m1": [v - 3 / N_TEST for v in a["m1"]], "m2": [v + 3 / N_TEST for v in a["m2"]], "m3": counts(rng, 0.7)}
    res = run(tmp_path, [make_record(models=a)], [make_record(models=b)])
    for c in res.cells:
        text = render.verdict_text(c)
        if any(w in text for w in ("worse", "better", "change", "equivalent", "inferior")):
            assert "on these splits" in text, text


def test_cli_bad_inputs_are_one_line_errors(tmp_path, monkeypatch, capsys):
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["diff", "no-such-rev", "workspace"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "no-such-rev" in err
    (tmp_path / "empty").mkdir()
    assert cli.main(["diff", "empty", "workspace"]) == 2
    assert "no crossval records in empty" in capsys.readouterr().err
    write(tmp_path / "A", make_record(models={"knn": [0.9] * N_REP}))
    assert cli.main(["diff", "A", "workspace"]) == 2
    assert "run `dvc repro` first" in capsys.readouterr().err
    assert cli.main(["diff", "A", "A", "--alpha", "2"]) == 2
    assert "--alpha must lie in (0, 1)" in capsys.readouterr().err


def test_cli_writes_every_format_and_sets_the_exit_code(tmp_path, monkeypatch, capsys, rng):
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    monkeypatch.chdir(tmp_path)
    a = {"knn": counts(rng, 0.9)}
    write(tmp_path / "A", make_record(models=a))
    write(tmp_path / "B", make_record(models={"knn": [v - 2 / N_TEST for v in a["knn"]]}))
    assert (
        cli.main(["diff", "A", "B", "--no-tracking", "--fail-on", "regression", "--format", "json", "--out", "d.json"])
        == 1
    )
    assert json.loads((tmp_path / "d.json").read_text())["outcome"] == "regression"
    capsys.readouterr()
    assert cli.main(["diff", "A", "B", "--no-tracking", "--format", "markdown"]) == 0
    assert "### replearn diff" in capsys.readouterr().out
    assert cli.main(["diff", "A", "B", "--no-tracking", "--out", "/tmp/elsewhere.txt"]) == 2
    assert "outside the repository" in capsys.readouterr().err


def test_the_engine_states_the_question_in_one_place():
    assert engine.QUESTION.startswith("on this dataset with these splits")
    assert engine.SHORT_QUESTION == "on these splits"


def test_a_sweeps_points_are_cells_of_their_own(tmp_path, rng):
    import dataclasses

    base = make_record(models={"knn": counts(rng, 0.9)})
    splits = [dataclasses.replace(s, kind="sweep", point=1 if s.index < 10 else 5) for s in base.splits]
    scheme = records.Scheme("repeated_stratified_kfold", 5, 4, 1, design="sweep", axis="knn.n_neighbors", values=[1, 5])
    a = dataclasses.replace(base, splits=splits, scheme=scheme)
    m = a.models["knn"]
    worse = [v - (4 / N_TEST if i >= 10 else 0) for i, v in enumerate(m.scores["accuracy"])]
    b = dataclasses.replace(a, models={"knn": dataclasses.replace(m, scores={"accuracy": worse})})
    res = run(tmp_path, [a], [b])
    assert sorted((c.label, c.verdict, c.n) for c in res.cells) == [
        ("knn @ 1", "identical", 10),
        ("knn @ 5", "worse", 10),
    ]
    assert "| iris | knn @ 5 | accuracy |" in render.markdown(res)
