"""``replearn compare`` / ``replearn.compare``: a table of scores in, the significance stage's verdicts out.

One engine: the numbers are those of the stage's own functions on the same scores (records built here, as the
crossval stage writes them); the question follows from the table's shape; every output is written and
byte-identical on rerun; every sentence of the methods paragraph states the JSON fields it names; bad input is
one line naming the line or the column.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import replearn
from replearn import cli
from replearn.exceptions import TableError
from replearn.pipeline import compare as engine
from replearn.pipeline import records
from replearn.pipeline.tables import compare, read_table
from replearn.pipeline.tables.methods import field
from replearn.stats.bibliography import ENTRIES

MODELS = ("ridge", "knn", "tree", "svm")


def _means(n: int = 12, k: int = 4, seed: int = 0, shift: float = 0.03) -> np.ndarray:
    """Accuracies of k models on n datasets: the datasets differ much more than the models, model j is j*shift
    better."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.uniform(0.6, 0.95, (n, 1)) + shift * np.arange(k) + rng.normal(0, 0.02, (n, k)), 0, 1)


def _wide(scores: np.ndarray, models=MODELS) -> pd.DataFrame:
    df = pd.DataFrame(scores, columns=list(models[: scores.shape[1]]))
    df.insert(0, "dataset", [f"set{i:02d}" for i in range(len(df))])
    return df


def _long(scores: np.ndarray, models=MODELS) -> pd.DataFrame:
    return _wide(scores, models).melt(id_vars="dataset", var_name="model", value_name="score")


def _records(table: dict[str, dict[str, list[float | None]]], kind: str = "seed", **split) -> dict:
    """EvaluationResult records as the crossval stage writes them: ``table[dataset][model]`` = scores."""
    out = {}
    for d, per in table.items():
        n = len(next(iter(per.values())))
        if kind == "seed":
            splits = [records.Replicate(index=i, kind="seed", n_train=0, n_test=0, seed=i) for i in range(n)]
        else:
            splits = [
                records.Replicate(
                    index=i,
                    kind="split",
                    repeat=i // split["folds"],
                    fold=i % split["folds"],
                    n_train=split["n_train"],
                    n_test=split["n_test"],
                )
                for i in range(n)
            ]
        models = {
            m: records.ModelEvaluation(
                registry_name=m,
                params={},
                scores={"accuracy": v},
                n_iter=[None] * n,
                converged=[None] * n,
                failures=[records.FitFailure(i, "error", "x") for i, x in enumerate(v) if x is None],
            )
            for m, v in per.items()
        }
        scheme = (
            records.Scheme(name="seeds", design="seeds")
            if kind == "seed"
            else records.Scheme(name="repeated_kfold", folds=split["folds"], repeats=n // split["folds"])
        )
        out[d] = records.EvaluationResult(
            dataset=d,
            task="classification",
            n_examples=100,
            scheme=scheme,
            metrics=["accuracy"],
            primary_metric="accuracy",
            greater_is_better={"accuracy": True},
            splits=splits,
            models=models,
        )
    return out


# ------------------------------------------------------------------------------------------ one engine
def test_a_table_of_means_gives_the_stages_across_datasets_numbers():
    scores = _means()
    scores[3, 1] = np.nan  # a missing cell: the failed-fit convention
    res = compare(_wide(scores), higher_is_better=True, metric="accuracy", seed=7)
    crossval = _records(
        {
            f"set{i:02d}": {m: [None if np.isnan(v) else float(v)] for m, v in zip(MODELS, row)}
            for i, row in enumerate(scores)
        }
    )
    cfg = dict(
        res["settings"],
        pairwise_test="auto",
        test_set_test="none",
        mcnemar_method="exact",
        across_datasets="friedman_nemenyi",
    )
    assert res["across_datasets"] == engine.compare_across(crossval, cfg)
    assert res["across_pairs"] == engine.compare_across_pairs(crossval, cfg, seed=7)
    assert res["across_datasets"]["imputed_worst_rank"] == [["set03", "knn"]]
    assert res["input"]["missing"] == [["set03", "knn", 1]]


def test_long_wide_csv_parquet_stdin_and_mapping_give_the_same_comparison(tmp_path, monkeypatch):
    scores = _means(8, 3, seed=2)
    wide = _wide(scores)
    wide.to_csv(tmp_path / "w.csv", index=False)
    _long(scores).to_parquet(tmp_path / "l.parquet")
    ref = compare(wide, higher_is_better=True, bayesian=False)
    variants = [
        _long(scores),
        tmp_path / "w.csv",
        str(tmp_path / "l.parquet"),
        wide.to_dict(orient="list"),
        wide.set_index("dataset"),  # a pivot: the index is the dataset
    ]
    for data in variants:
        res = compare(data, higher_is_better=True, bayesian=False)
        assert res["across_datasets"] == ref["across_datasets"] and res["across_pairs"] == ref["across_pairs"]
    monkeypatch.setattr(sys, "stdin", io.StringIO((tmp_path / "w.csv").read_text()))
    assert compare("-", higher_is_better=True, bayesian=False)["across_datasets"] == ref["across_datasets"]


def test_the_numbers_do_not_depend_on_the_order_of_rows_or_columns():
    scores = _means(9, 4, seed=3)
    a = compare(_long(scores), higher_is_better=True, bayesian=False)
    shuffled = _long(scores).sample(frac=1.0, random_state=1)
    b = compare(shuffled[["score", "model", "dataset"]], higher_is_better=True, bayesian=False)
    assert a["across_datasets"] == b["across_datasets"] and a["across_pairs"] == b["across_pairs"]


def test_lower_is_better_mirrors_the_ranks():
    scores = _means(8, 3, seed=4)
    up = compare(_wide(scores), higher_is_better=True, bayesian=False)
    down = compare(_wide(1 - scores), higher_is_better=False, bayesian=False)
    assert up["across_datasets"]["average_ranks"] == down["across_datasets"]["average_ranks"]
    assert (
        compare(_wide(1 - scores), metric="error", bayesian=False)["input"]["higher_is_better"] is False
    )  # the metric registry


# ------------------------------------------------------------------------------------------ the question
def test_means_only_ask_the_across_datasets_question_and_say_the_per_dataset_one_is_not_asked():
    res = compare(_wide(_means()), higher_is_better=True, bayesian=False)
    assert res["per_dataset"] == {}
    per = next(q for q in res["questions"] if q["question"] == "per dataset")
    assert per["asked"] is False and "one score per dataset and model" in per["reason"]
    assert res["across_datasets"]["ran"] and res["across_datasets"]["friedman"]["pvalue_method"] == "chi2"


def test_seeds_get_the_replicate_test_of_the_stage_on_each_dataset():
    rng = np.random.default_rng(5)
    per = {
        f"d{i}": {m: list(0.8 + 0.02 * j + rng.normal(0, 0.01, 6)) for j, m in enumerate(MODELS[:3])} for i in range(5)
    }
    rows = [
        {"dataset": d, "model": m, "seed": s, "score": v}
        for d, mm in per.items()
        for m, vals in mm.items()
        for s, v in enumerate(vals)
    ]
    res = compare(pd.DataFrame(rows), higher_is_better=True)
    crossval = _records(per)
    for d in per:
        rows_ref, bayes_ref = engine.compare_replicates(
            crossval[d],
            engine.settings(
                dict(
                    res["settings"],
                    pairwise_test="auto",
                    test_set_test="none",
                    mcnemar_method="exact",
                    across_datasets="friedman_nemenyi",
                )
            ),
        )
        entry = res["per_dataset"][d]
        assert entry["test"] == "replicate_ttest" and entry["cv"] == rows_ref and entry["bayesian"] == bayes_ref
    assert "not about other datasets" in res["questions"][1]["statement"]


def test_folds_ask_the_conditional_question_over_repeats_or_the_corrected_t_over_one_repeat():
    rng = np.random.default_rng(6)
    rows = []
    for d in range(5):
        for rep in range(3):
            for fold in range(5):
                for j, m in enumerate(MODELS[:3]):
                    rows.append(
                        {
                            "dataset": f"d{d}",
                            "model": m,
                            "repeat": rep,
                            "fold": fold,
                            "n_train": 80,
                            "n_test": 20,
                            "score": 0.8 + 0.01 * j + rng.normal(0, 0.02),
                        }
                    )
    df = pd.DataFrame(rows)
    auto = compare(df, higher_is_better=True, bayesian=False)
    assert {e["replicates"] for e in auto["per_dataset"].values()} == {"repeat"}
    assert {e["test"] for e in auto["per_dataset"].values()} == {"replicate_ttest"}
    assert auto["per_dataset"]["d0"]["n_replicates"] == 3 and auto["per_dataset"]["d0"]["n_scores"] == 15
    corrected = compare(df, higher_is_better=True, fold_test="corrected")
    assert {e["test"] for e in corrected["per_dataset"].values()} == {"corrected_resampled_ttest"}
    one = compare(df[df.repeat == 0], higher_is_better=True)
    assert {e["test"] for e in one["per_dataset"].values()} == {"corrected_resampled_ttest"}
    assert "stands in for the data-sampling variance" in one["questions"][1]["statement"]
    no_sizes = compare(df[df.repeat == 0].drop(columns=["n_train", "n_test"]), higher_is_better=True)
    assert not no_sizes["per_dataset"]["d0"]["ran"] and "n_train and n_test" in no_sizes["per_dataset"]["d0"]["reason"]
    # the fold records are the stage's: the corrected t of compare_cv on the same splits
    d0 = df[(df.dataset == "d0") & (df.repeat == 0)]
    rec = _records(
        {"d0": {m: list(d0[d0.model == m].sort_values("fold").score) for m in MODELS[:3]}},
        "split",
        folds=5,
        n_train=80,
        n_test=20,
    )["d0"]
    cfg = engine.settings(
        dict(
            one["settings"],
            pairwise_test="auto",
            test_set_test="none",
            mcnemar_method="exact",
            across_datasets="friedman_nemenyi",
        )
    )
    assert one["per_dataset"]["d0"]["cv"] == engine.compare_replicates(rec, cfg)[0]


def test_five_by_two_folds_get_dietterichs_test_and_rank_tests_respect_min_n():
    rng = np.random.default_rng(7)
    rows = [
        {
            "dataset": f"d{d}",
            "model": m,
            "repeat": r,
            "fold": f,
            "n_train": 50,
            "n_test": 50,
            "score": 0.8 + 0.01 * j + rng.normal(0, 0.02),
        }
        for d in range(2)
        for r in range(5)
        for f in range(2)
        for j, m in enumerate(MODELS[:3])
    ]
    res = compare(pd.DataFrame(rows), higher_is_better=True, fold_test="corrected")
    assert res["per_dataset"]["d0"]["test"] == "cv52_ttest"
    rows = [
        {"dataset": f"d{d}", "model": m, "seed": s, "score": 0.8 + 0.01 * j + rng.normal(0, 0.02)}
        for d in range(2)
        for s in range(6)
        for j, m in enumerate(MODELS[:3])
    ]
    res = compare(pd.DataFrame(rows), higher_is_better=True, replicate_test="replicate_wilcoxon")
    e = res["per_dataset"]["d0"]
    assert not e["ran"] and "needs at least 7" in e["reason"] and e["cv"] == []  # 3 pairs under Holm: 7 seeds


def test_min_datasets_withholds_the_tests_and_a_missing_replicate_is_dropped_pairwise():
    rng = np.random.default_rng(8)
    rows = [
        {"dataset": f"d{d}", "model": m, "seed": s, "score": 0.8 + 0.01 * j + rng.normal(0, 0.01)}
        for d in range(3)
        for s in range(5)
        for j, m in enumerate(MODELS[:3])
    ]
    rows[0]["score"] = None  # d0, ridge, seed 0
    res = compare(pd.DataFrame(rows), higher_is_better=True)
    assert not res["across_datasets"]["ran"] and "min_datasets (--min-datasets) = 5" in res["across_datasets"]["reason"]
    assert res["across_pairs"]["bayesian_withheld"]
    pair = next(r for r in res["per_dataset"]["d0"]["cv"] if "ridge" in (r["model_a"], r["model_b"]))
    assert pair["dropped_replicates"] == 1
    assert res["input"]["missing"] == [["d0", "ridge", 1]]
    assert res["means"]["scores"][0][res["means"]["models"].index("ridge")] is None  # no mean: worst rank


def test_a_control_compares_every_model_with_it():
    res = compare(_wide(_means(14, 4, shift=0.05)), higher_is_better=True, control="svm", bayesian=False)
    ph = res["across_datasets"]["posthoc"]
    assert ph["method_used"] == "holm" and {c["a"] for c in ph["comparisons"]} == {"svm"}
    cells = res["matrix"]["cells"]
    i, j = res["matrix"]["models"].index("ridge"), res["matrix"]["models"].index("knn")
    assert cells[i][j]["state"] == "not compared"
    with pytest.raises(TableError, match="compares all pairs"):
        compare(_wide(_means()), higher_is_better=True, control="svm", posthoc="shaffer")
    with pytest.raises(TableError, match="not a model of the table"):
        compare(_wide(_means()), higher_is_better=True, control="lasso")


# ------------------------------------------------------------------------------------------ outputs
def _fmt_candidates(value) -> set[str]:
    if isinstance(value, bool):
        return {"rejected" if value else "did not reject", "higher" if value else "lower", str(value).lower()}
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {str(len(value))} | {str(v) for v in value.values()}
    x = float(value)
    out = {f"{x:.2f}", f"{x:.3f}", f"{x:.3g}", f"{x:g}", f"{100 * x:g}"}
    if x == int(x):
        out.add(str(int(x)))
    if x < 0.001:
        out.add("< 0.001")
    return out


@pytest.mark.parametrize("kind", ["means", "seeds"])
def test_every_sentence_of_the_methods_paragraph_states_the_fields_it_names_and_cites_what_the_bib_holds(kind):
    scores = _means(12, 4, shift=0.05)
    if kind == "means":
        res = compare(_wide(scores), higher_is_better=True)
    else:
        rng = np.random.default_rng(9)
        rows = [
            {"dataset": f"d{i}", "model": m, "seed": s, "score": v + rng.normal(0, 0.01)}
            for i, row in enumerate(scores)
            for m, v in zip(MODELS, row)
            for s in range(5)
        ]
        res = compare(pd.DataFrame(rows), higher_is_better=True)
    assert len(res["methods"]) >= 5
    for s in res["methods"]:
        assert s["fields"], s["text"]
        for path in s["fields"]:
            value = field(res, path)
            if isinstance(value, (int, float, bool)) and not isinstance(value, str):
                assert any(c in s["text"] for c in _fmt_candidates(value)), (path, value, s["text"])
        assert set(s["cite"]) <= set(res["references"])
    cited = {k for s in res["methods"] for k in s["cite"]}
    assert cited == set(res["references"])  # the BibTeX holds exactly the works the paragraph cites
    bib = res.to_bibtex()
    assert sorted(k for k in ENTRIES if f"{{{k}," in bib) == sorted(res["references"])
    assert ("student1908" in res["references"]) is (kind == "seeds")


def test_write_produces_every_output_and_reruns_are_byte_identical(tmp_path):
    res = compare(_wide(_means(10, 4, shift=0.05)), higher_is_better=True, metric="accuracy", title="Ablation")
    a = res.write(tmp_path / "a")
    res.write(tmp_path / "b", figure_formats=("pdf", "svg", "png"))
    names = {p.relative_to(tmp_path / "a").as_posix() for p in a.values()}
    assert names == {
        "comparison.json",
        "comparison.md",
        "comparison.html",
        "comparison.tex",
        "table.tex",
        "methods.tex",
        "references.bib",
        *(f"plots/{s}.{e}" for s in ("critical_difference", "pairwise_matrix") for e in ("pdf", "svg", "png")),
    }
    for rel in names:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
    assert json.loads((tmp_path / "a" / "comparison.json").read_text()) == res.to_dict()
    html = (tmp_path / "a" / "comparison.html").read_text()
    assert html.count("data:image/png;base64,") == 2 and "Ablation" in html
    tex = (tmp_path / "a" / "table.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "\\textbf{" in tex and "Average rank" in tex
    doc = (tmp_path / "a" / "comparison.tex").read_text()
    assert "\\bibliography{references}" in doc and "\\cite{friedman1937,demsar2006}" in doc
    assert "\\includegraphics[width=\\linewidth]{plots/critical_difference.pdf}" in doc
    assert (tmp_path / "a" / "plots" / "pairwise_matrix.pdf").read_bytes().startswith(b"%PDF")


def test_latex_table_escapes_names_marks_against_the_control_and_can_show_ranks():
    scores = _means(12, 3, shift=0.08)
    df = _wide(scores, models=("lin_svm", "k&nn", "rf_100%"))
    res = compare(df, higher_is_better=True, control="lin_svm", bayesian=False)
    tex = res.to_latex()
    assert "lin\\_svm" in tex and "k\\&nn" in tex and "rf\\_100\\%" in tex
    assert "the control lin\\_svm" in tex
    ranks = res.to_latex(cells="rank")
    assert "Rank of each model" in ranks
    ph = res["across_datasets"]["posthoc"]
    if any(c["significant"] for c in ph["comparisons"]):
        assert "$^{\\circ}$" in tex or "$^{\\bullet}$" in tex


def test_the_result_renders_itself_in_a_notebook():
    res = replearn.compare(_wide(_means(8, 4, shift=0.05)), higher_is_better=True)
    html = res._repr_html_()
    assert html.startswith("\n<h1>") or "<h1>" in html
    assert "<html" not in html and "data:image/png;base64," in html
    fig = res.plot_cd()
    assert fig._repr_png_().startswith(b"\x89PNG")
    assert res.plot_matrix()._repr_png_().startswith(b"\x89PNG")
    assert "## Across datasets" in res.to_markdown() and res.methods().startswith("We compared 4 models on 8")
    assert "svm" in repr(res) and list(res.average_ranks)[0] == "svm"
    few = replearn.compare(_wide(_means(3, 3)), higher_is_better=True)
    with pytest.raises(ValueError, match="no critical-difference diagram"):
        few.plot_cd()


# ------------------------------------------------------------------------------------------ bad input
def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scores.csv"
    path.write_text(text, encoding="utf-8")
    return path


BAD = [
    (
        "dataset,model,score\nd1,A,0.9\nd1,B,0.8\nd2,A,0.7\nd2,A,0.6\nd2,B,0.5\n",
        r"line 5: a second score for "
        r"dataset 'd2', model 'A' \(the first is on line 4\)",
    ),
    (
        "dataset,model,seed,score\nd1,A,1,0.9\nd1,A,1,0.8\nd1,B,1,0.8\n",
        r"line 3: a second score for dataset 'd1', "
        r"model 'A', seed '1'",
    ),
    ("dataset,model,score\nd1,A,0.9\nd1,B,abc\nd2,A,0.7\nd2,B,0.5\n", r"line 3, column 'score': 'abc' is not a number"),
    (
        "dataset,model,score\nd1,A,0.9\nd1,B,-inf\nd2,A,0.7\nd2,B,0.5\n",
        r"line 3, column 'score': the score is infinite",
    ),
    ("dataset,A,B,C\nd1,0.9,0.8,\nd2,0.7,0.6,\n", r"column 'C' has no scores"),
    ("dataset,model,score\nd1,A,0.9\nd1,B,0.8\nd2,A,0.7\nd2,B,0.5\nd1,C,\nd2,C,NA\n", r"model 'C' has no scores"),
    ("dataset,A,B\nd1,0.9,0.8\n", r"only one dataset \('d1'\)"),
    (
        "dataset,model,score,acc_sd\nd1,A,0.9,0.1\nd1,B,0.8,0.1\nd2,A,0.7,0.1\nd2,B,0.5,0.1\n",
        r"line 1: unknown column 'acc_sd'",
    ),
    (
        "dataset,model,metric,score\nd1,A,acc,0.9\nd1,B,acc,0.8\nd2,A,f1,0.7\nd2,B,f1,0.5\n",
        r"column 'metric' holds 2 metrics \(acc, f1\); choose one with --metric",
    ),
    ("dataset,model,score\nd1,A,0.9\nd1,B,0.8\n,A,0.7\n", r"line 4, column 'dataset': empty dataset name"),
    ("dataset,model\nd1,A\n", r"no column 'score'"),
    ("dataset,A,B\nd1,0.9,0.8\nd2,0.7\n", r"line 3: 2 fields, but the header \(line 1\) has 3"),
    ("dataset,A,A\nd1,0.9,0.8\nd2,0.7,0.6\n", r"two columns are named 'A'"),
    ("dataset,A\nd1,0.9\nd2,0.7\n", r"only one model \('A'\)"),
    (
        "dataset,model,fold,n_train,score\nd1,A,0,-3,0.9\nd1,B,0,-3,0.8\n",
        r"line 2, column 'n_train': '-3' is not a "
        r"positive whole number",
    ),
    ("", r"empty \(no header line\)"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_input_is_one_line_naming_the_line_or_column(tmp_path, text, message):
    path = _csv(tmp_path, text)
    with pytest.raises(TableError, match=message) as err:
        compare(path, higher_is_better=True)
    assert "\n" not in str(err.value) and str(err.value).startswith("scores.csv")


def test_bad_settings_and_direction_are_one_line_errors(tmp_path):
    path = _csv(tmp_path, "dataset,A,B,C\n" + "".join(f"d{i},0.{i}1,0.{i}2,0.{i}3\n" for i in range(1, 7)))
    for kwargs, message in [
        ({}, "say whether higher scores are better"),
        ({"higher_is_better": True, "alpha": 1.5}, "alpha"),
        ({"higher_is_better": True, "rope": -1.0}, "rope"),
        ({"higher_is_better": True, "correction": "fdr"}, "correction"),
        ({"higher_is_better": True, "fold_test": "maybe"}, "fold_test"),
        ({"higher_is_better": True, "columns": {"score": "acc"}}, "no column 'acc'"),
    ]:
        with pytest.raises(TableError, match=message) as err:
            compare(path, **kwargs)
        assert "\n" not in str(err.value)


def test_the_command_line_prints_one_line_on_bad_input_and_writes_every_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --out: inside the folder the command runs in
    bad = _csv(tmp_path, "dataset,model,score\nd1,A,0.9\nd1,B,abc\n")
    assert cli.main(["compare", str(bad), "--higher-is-better"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: scores.csv, line 3, column 'score'")
    good = tmp_path / "good.csv"
    _long(_means(10, 3, shift=0.05)).assign(metric="accuracy").to_csv(good, index=False)
    assert cli.main(["compare", str(good), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["input"]["metric"] == "accuracy" and out["input"]["higher_is_better"] is True
    assert cli.main(["compare", str(good), "--out", str(tmp_path / "out"), "--figures", "png"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Across N = 10 datasets") and "references.bib" in printed
    assert (tmp_path / "out" / "plots" / "pairwise_matrix.png").is_file()
    assert cli.main(["compare", str(good), "--format", "latex", "--control", "svm"]) == 2  # not a model
    assert "not a model of the table" in capsys.readouterr().err
    # its outputs replace only its own: an earlier run's folder again, never a folder of other files
    assert cli.main(["compare", str(good), "--out", str(tmp_path / "out"), "--figures", "png"]) == 0
    capsys.readouterr()
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "main.tex").write_text("\\documentclass{article}")
    assert cli.main(["compare", str(good), "--out", str(tmp_path / "paper")]) == 2
    assert "holds files replearn compare did not write (such as 'main.tex')" in capsys.readouterr().err
    assert (tmp_path / "paper" / "main.tex").read_text() == "\\documentclass{article}"
    assert cli.main(["compare", str(good), "--out", "/"]) == 2
    assert "outside the folder this runs in" in capsys.readouterr().err


def test_the_cli_reads_stdin_and_is_light_to_start():
    text = _wide(_means(6, 3)).to_csv(index=False)
    res = subprocess.run(
        [sys.executable, "-m", "replearn", "compare", "-", "--higher-is-better", "--format", "markdown"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("# Comparison of 3 models on 6 datasets")
    heavy = "('matplotlib', 'mlflow', 'dvc', 'sklearn', 'hydra')"
    probe = f"import sys, replearn.pipeline.tables; print(sorted(m for m in {heavy} if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert res.stdout.strip() == "[]"  # the analysis and the text outputs load no plotting or pipeline tools


def test_read_table_keeps_the_input_order_for_display():
    t = read_table(_wide(_means(4, 3))[["dataset", "tree", "ridge", "knn"]])
    assert t.models == ["tree", "ridge", "knn"] and t.layout == "wide" and t.kind == "none"


def test_the_readmes_five_lines_run(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Bring your own results") :]
    code = section[section.index("```python") + len("```python") : section.index("```", section.index("```python") + 3)]
    assert len(code.strip().splitlines()) == 5
    monkeypatch.chdir(tmp_path)
    _wide(_means(8, 3, shift=0.05)).to_csv("my_scores.csv", index=False)
    exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "comparison" / "comparison.json").is_file()
    assert (tmp_path / "comparison" / "plots" / "pairwise_matrix.pdf").is_file()
