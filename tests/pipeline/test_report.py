"""Tests of the report builder (replearn.pipeline.report) on the synthetic inputs of conftest.py."""

from __future__ import annotations

import copy
import html
import re
import statistics

import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline.report import ReportArtifacts, build_report, describe_scheme


def _build(tmp_path, name="out", **inputs):
    return build_report(out_dir=tmp_path / name, **inputs)


def _section(text, dataset):
    """The HTML of one dataset's section (up to the next level-2 heading)."""
    return text.split(f"<h2>Dataset: {dataset}</h2>")[1].split("<h2>")[0]


def _mean_std(values, decimals=3):
    return f"{statistics.fmean(values):.{decimals}f} ± {statistics.stdev(values):.{decimals}f}"


@pytest.fixture
def built(built_report):
    return built_report


def test_writes_html_markdown_and_sorted_plots(built):
    art, _, _ = built
    assert isinstance(art, ReportArtifacts)
    out = art.html.parent
    assert out.name == "out"
    assert art.html == out / "report.html" and art.html.is_file()
    assert art.markdown == out / "report.md" and art.markdown.is_file()
    names = [p.name for p in art.plots]
    assert art.plots == sorted(art.plots)
    assert names == sorted(
        [
            "critical_difference.png",
            "cv_diabetes.png",
            "cv_iris.png",
            "cv_wine.png",
            "train_test_diabetes.png",
            "train_test_iris.png",
            "train_test_wine.png",
        ]
    )
    for p in art.plots:
        assert p.parent == out / "plots"
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(out.joinpath("plots").glob("*.png")) == art.plots


def test_html_is_self_contained(built):
    art, text, _ = built
    assert "data:image/png;base64," in text
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, flags=re.I)
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text.lower() and "<link" not in text.lower()
    assert "<style>" in text
    # one embedded image per plot, and every src is a data URI
    srcs = re.findall(r'<img [^>]*src="([^"]*)"', text)
    assert len(srcs) == len(art.plots)
    assert all(s.startswith("data:image/png;base64,") for s in srcs)


def test_header_shows_experiment_and_nothing_machine_dependent(built):
    art, text, md = built
    for doc in (text, md):
        assert "Replearn test report" in doc
        assert "unit-test" in doc
        assert "0123456789abcdef" in doc
        assert str(art.html.parent) not in doc and "/tmp" not in doc
        assert not re.search(r"20\d\d-\d\d-\d\d", doc)  # no dates/timestamps


def test_crossval_table_numbers_scheme_and_bold_best(built, crossval):
    _, text, md = built
    iris = crossval["iris"]["models"]
    best = _mean_std(iris["logistic_regression"]["scores"]["accuracy"])
    other = _mean_std(iris["knn"]["scores"]["accuracy"])
    assert best == "0.960 ± 0.013"  # computed by hand from conftest.OFFSETS (sample std)
    assert f"<strong>{best}</strong>" in text
    assert f"**{best}**" in md
    assert f'<td class="num">{other}</td>' in text
    assert f"| {other} |" in md
    assert "5-fold stratified CV repeated 2 times, 10 splits, seed 0" in text
    assert "5-fold CV repeated 2 times, 10 splits, seed 0" in text  # the regression dataset
    # regression: mse is lower-is-better, so the smallest mean is bold
    diabetes = crossval["diabetes"]["models"]
    best_mse = _mean_std(diabetes["logistic_regression"]["scores"]["mse"])
    worst_mse = _mean_std(diabetes["gaussian_naive_bayes"]["scores"]["mse"])
    assert f"<strong>{best_mse}</strong>" in text
    assert f"<strong>{worst_mse}</strong>" not in text


def test_test_set_table(built):
    _, text, md = built
    assert "accuracy (test)" in text and "accuracy (train)" in text and "mse (test)" in text
    # iris: logistic_regression (k=2) has the best test accuracy 0.94
    assert "<strong>0.940</strong>" in text
    assert "**0.940**" in md
    # diabetes: lowest test mse is 2900 (logistic_regression)
    assert "<strong>2900.000</strong>" in text


def test_pairwise_table_values_and_verdicts(built):
    _, text, md = built
    assert "logistic_regression better" in text
    assert "gaussian_naive_bayes better" in text
    assert "no significant difference" in text
    # the significant iris row: p = 0.0002 -> "<0.001", adjusted 0.0006 -> "<0.001", CI formatted
    iris = _section(text, "iris")
    row = re.search(r"<tr><td>gaussian_naive_bayes vs logistic_regression</td>.*?</tr>", iris).group(0)
    assert "-0.030" in row and "-6.200" in row and ">9<" in row
    assert row.count("&lt;0.001") == 2
    assert "[-0.045, -0.015]" in row and "d_z = -0.250" in row
    assert "<strong>logistic_regression better</strong>" in row
    assert "| gaussian\\_naive\\_bayes vs logistic\\_regression |" not in md  # intra-word _ kept readable
    assert "| gaussian_naive_bayes vs logistic_regression | -0.030 | -6.200 | 9 | <0.001 | <0.001 |" in md
    # a non-significant row with plain p-values
    row = re.search(r"<tr><td>knn vs logistic_regression</td>.*?</tr>", iris).group(0)
    assert "0.440" in row and "no significant difference" in row


def test_mcnemar_table_and_regression_note(built):
    _, text, md = built
    wine_mcnemar = _section(text, "wine").split("<h3>McNemar")[1]
    row = re.search(r"<tr><td>gaussian_naive_bayes vs knn</td>.*?</tr>", wine_mcnemar).group(0)
    assert ">exact<" in row and ">0<" in row and ">9<" in row
    assert "0.004" in row and "0.012" in row and "0.972" in row and "0.722" in row
    assert "gaussian_naive_bayes better" in row
    assert "run for classification only, not for regression" in _section(text, "diabetes")
    assert "run for classification only" not in _section(text, "iris")
    assert "run for classification only, not for regression" in md


def test_across_datasets_section(built):
    art, text, md = built
    for doc in (text, md):
        assert "χ²_F = 4.667 (df = 2, N = 3 datasets, k = 3 models), p = 0.097 (chi-square approximation)" in doc
        assert "F_F = 7.000 (df = 2, 4), p = 0.049" in doc
        assert "CD = 1.914" in doc
        assert "q_α = 2.343" in doc
        assert "does not reject, at α = 0.05 over N = 3 datasets," in doc
    # average ranks table sorted best first, best in bold
    ranks = re.search(r"<th>Average rank</th>.*?</table>", text, flags=re.S).group(0)
    assert ranks.index("logistic_regression") < ranks.index("knn") < ranks.index("gaussian_naive_bayes")
    assert "<strong>1.333</strong>" in ranks
    # Friedman does not reject: no clique or pair verdicts, the diagram is descriptive
    assert "not significantly different by Nemenyi" not in text and "the rank diagram is descriptive" in text
    assert "critical_difference.png" in md
    assert "significantly better than" not in text  # no rank difference exceeds the CD


def test_across_pairs_beyond_cd_are_named(tmp_path, report_inputs):
    nem = report_inputs["significance"]["across_datasets"]["nemenyi"]
    nem["cd"] = 1.0
    nem["cliques"] = [["logistic_regression", "knn"], ["knn", "gaussian_naive_bayes"]]
    report_inputs["significance"]["across_datasets"]["significant"] = True
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    expected = (
        "logistic_regression is significantly better than gaussian_naive_bayes by Nemenyi's CD over N = 3 "
        "datasets (rank difference 1.333 ≥ CD"
    )
    text = __import__("html").unescape(text)
    assert expected in text
    assert "knn is significantly better" not in text
    assert "Friedman's test rejects" in text


def test_across_not_ran_reports_reason_and_no_cd_diagram(tmp_path, report_inputs, significance_not_ran):
    report_inputs["significance"] = significance_not_ran
    art = _build(tmp_path, **report_inputs)
    text = art.html.read_text(encoding="utf-8")
    md = art.markdown.read_text(encoding="utf-8")
    reason = "needs at least 2 datasets and 3 models (got 1 and 2)"
    assert f"was not run: {reason}." in text and reason in md
    assert "critical_difference.png" not in [p.name for p in art.plots]
    assert not (tmp_path / "out" / "plots" / "critical_difference.png").exists()
    assert "Friedman χ²_F" not in text and "Critical difference diagram" not in text
    assert len(art.plots) == 6  # per-dataset plots only


def test_markdown_links_point_to_written_files(built):
    art, _, md = built
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == len(art.plots)
    for link in links:
        assert link.startswith("plots/") and not link.startswith("/")
        assert (art.markdown.parent / link).is_file()
    assert sorted(art.markdown.parent / link for link in links) == art.plots


def test_html_and_markdown_carry_the_same_tables(built):
    _, text, md = built
    cells = [html.unescape(c) for c in re.findall(r"<t[dh](?: [^>]*)?>(?:<strong>)?(.*?)(?:</strong>)?</t[dh]>", text)]
    assert len(cells) > 100
    md_plain = md.replace("\\", "")
    for cell in cells:
        assert cell in md_plain, cell


def test_rebuild_is_byte_identical(tmp_path, report_inputs):
    a = _build(tmp_path, "a", **report_inputs)
    b = _build(tmp_path, "b", **copy.deepcopy(report_inputs))
    assert a.html.read_bytes() == b.html.read_bytes()
    assert a.markdown.read_bytes() == b.markdown.read_bytes()
    assert [p.name for p in a.plots] == [p.name for p in b.plots]
    for pa, pb in zip(a.plots, b.plots):
        assert pa.read_bytes() == pb.read_bytes(), pa.name


def test_dict_order_does_not_change_the_report(tmp_path, report_inputs):
    report_inputs["settings"]["plots"] = False
    a = _build(tmp_path, "a", **report_inputs)
    shuffled = copy.deepcopy(report_inputs)
    shuffled["crossval"] = dict(reversed(list(shuffled["crossval"].items())))
    for cv in shuffled["crossval"].values():
        cv["models"] = dict(reversed(list(cv["models"].items())))
    b = _build(tmp_path, "b", **shuffled)
    assert a.html.read_bytes() == b.html.read_bytes()


def test_names_are_escaped(tmp_path, report_inputs):
    evil = "<b>x</b>"
    cv = report_inputs["crossval"]["iris"]
    cv["models"][evil] = cv["models"].pop("knn")
    report_inputs["train_metrics"]["iris"][evil] = report_inputs["train_metrics"]["iris"].pop("knn")
    report_inputs["significance"]["datasets"]["iris"]["cv"][0]["model_b"] = evil
    report_inputs["experiment"]["models"] = ["gaussian_naive_bayes", evil, "logistic_regression"]
    report_inputs["experiment"]["name"] = 'a "quoted" & <odd> name'
    art = _build(tmp_path, **report_inputs)
    text = art.html.read_text(encoding="utf-8")
    md = art.markdown.read_text(encoding="utf-8")
    assert evil not in text
    assert "&lt;b&gt;x&lt;/b&gt;" in text
    assert "a &quot;quoted&quot; &amp; &lt;odd&gt; name" in text
    assert "<b>" not in text
    assert evil not in md and "\\<b>x\\</b>" in md


def test_markdown_cannot_be_injected_through_names(tmp_path, report_inputs):
    link = "[x](plots/evil.png)"
    cv = report_inputs["crossval"]["iris"]
    cv["models"][link] = cv["models"].pop("knn")
    report_inputs["settings"]["plots"] = False
    md = _build(tmp_path, **report_inputs).markdown.read_text(encoding="utf-8")
    assert link not in md and "[x\\](plots/evil.png)" in md
    assert "| [-0.045, -0.015] |" in md  # plain brackets (a CI) are left readable


def test_plots_disabled(tmp_path, report_inputs):
    out = tmp_path / "out"
    _build(tmp_path, **report_inputs)  # an earlier run with plots leaves PNGs behind
    assert list((out / "plots").glob("*.png"))
    report_inputs["settings"]["plots"] = False
    art = _build(tmp_path, **report_inputs)
    assert art.plots == []
    assert not list(out.rglob("*.png"))  # stale plots removed
    text = art.html.read_text(encoding="utf-8")
    md = art.markdown.read_text(encoding="utf-8")
    assert "<img" not in text and "data:image" not in text
    assert "![" not in md and "plots/" not in md
    assert "CD = 1.914" in text  # the numbers are still reported


def test_decimals_setting(tmp_path, report_inputs):
    report_inputs["settings"].update(decimals=2, plots=False)
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "<strong>0.96 ± 0.01</strong>" in text
    assert "&lt;0.01" in text and "&lt;0.001" not in text
    assert "CD = 1.91" in text


def test_formats_setting(tmp_path, report_inputs):
    report_inputs["settings"].update(formats=["markdown"], plots=False)
    art = _build(tmp_path, **report_inputs)
    assert art.html is None and art.markdown.is_file()
    assert not (tmp_path / "out" / "report.html").exists()


def test_defaults_for_optional_settings(tmp_path, report_inputs):
    report_inputs["settings"] = {"title": "T", "plots": False}
    art = _build(tmp_path, **report_inputs)
    assert art.html.is_file() and art.markdown.is_file()
    assert "0.960 ± 0.013" in art.html.read_text(encoding="utf-8")  # 3 decimals by default


@pytest.mark.parametrize(
    ("update", "match"),
    [
        ({"decimals": -1}, r"report.decimals: expected an integer in \[0, 12\]"),
        ({"decimals": 2.5}, r"report.decimals: expected an integer in \[0, 12\]"),
        ({"dpi": 0}, r"report.dpi: expected an integer in \[10, 1200\]"),
        ({"plots": "yes"}, "report.plots: expected true/false"),
        ({"formats": ["pdf"]}, r"report.formats\[0\]: unknown report format 'pdf'"),
        ({"formats": "html"}, "report.formats: expected a list"),
    ],
)
def test_bad_settings_raise_config_error(tmp_path, report_inputs, update, match):
    report_inputs["settings"].update(update)
    with pytest.raises(ConfigError, match=match):
        _build(tmp_path, **report_inputs)


def test_missing_sections_are_reported_not_crashed(tmp_path, report_inputs):
    del report_inputs["significance"]["datasets"]["wine"]
    del report_inputs["train_metrics"]["iris"]
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "No pairwise cross-validation comparisons were recorded for this dataset." in text
    assert "No sealed test-set metrics were recorded for this dataset." in text


def test_how_to_read_note(built):
    _, text, md = built
    for doc in (text, md):
        assert "How to read this report" in doc
        assert "training sets overlap" in doc
        assert "family-wise error" in doc
        assert "sealed test set" in doc


@pytest.mark.parametrize(
    ("scheme", "n", "expected"),
    [
        (
            {"name": "repeated_stratified_kfold", "folds": 5, "repeats": 2, "seed": 0},
            10,
            "5-fold stratified CV repeated 2 times, 10 splits, seed 0",
        ),
        ({"name": "repeated_kfold", "folds": 10, "repeats": 1, "seed": 3}, 10, "10-fold CV, 10 splits, seed 3"),
        ({"name": "stratified_kfold", "folds": 3}, 3, "3-fold stratified CV, 3 splits"),
        (
            {"name": "shuffle_split", "n_splits": 1, "test_size": 0.2, "seed": 1},
            1,
            "shuffle split (n_splits=1, test_size=0.2), 1 split, seed 1",
        ),
    ],
)
def test_describe_scheme(scheme, n, expected):
    assert describe_scheme(scheme, n) == expected


# ----------------------------------------------------------------------------- design-driven significance content
def test_bayesian_table_probabilities_and_verdicts(built):
    _, text, md = built
    iris = _section(text, "iris")
    assert "<h3>Bayesian comparison</h3>" in iris
    assert "(±0.010)" in iris
    row = re.search(
        r"<tr><td>gaussian_naive_bayes vs logistic_regression</td>.*?</tr>", iris.split("<h3>Bayesian comparison")[1]
    ).group(0)
    assert "0.001" in row and "0.989" in row and "[-0.050, -0.010]" in row
    assert "<strong>logistic_regression practically better</strong>" in row
    assert "<strong>practically equivalent</strong>" in iris  # knn vs logistic_regression, P(rope) = 0.97
    assert "no decision" in iris  # 0.68 is below 0.95
    assert "Bayesian comparison" not in _section(text, "wine")  # no rows: no section
    assert "| knn vs logistic_regression | 0.010 | 0.970 | 0.020 |" in md


def test_test_set_metric_table(built):
    _, text, _ = built
    iris = _section(text, "iris")
    assert "<h3>Paired permutation test (sealed test set)</h3>" in iris
    assert "of accuracy on the sealed test predictions (1999 resamples, seeded)" in iris
    perm = iris.split("<h3>Paired permutation test")[1]
    row = re.search(r"<tr><td>gaussian_naive_bayes vs logistic_regression</td>.*?</tr>", perm).group(0)
    assert ">0.921<" in row and ">0.974<" in row
    assert "-0.053" in row and "0.031" in row and "0.093" in row and "no significant difference" in row
    assert "Not run: switched off (stats.test_set_metric_test: none)." in _section(text, "diabetes")


def test_posthoc_table_next_to_the_cd_diagram(built):
    _, text, md = built
    across = text.split("<h2>Across datasets</h2>")[1]
    assert across.index("Critical difference diagram") < across.index("Post-hoc comparisons on the average ranks")
    assert "adjusted with Bergmann–Hommel at α = 0.05" in across
    row = re.search(r"<tr><td>gaussian_naive_bayes vs logistic_regression</td>.*?</tr>", across).group(0)
    assert "2.667" in row and "1.333" in row and "0.034" in row and "0.102" in row and "-0.556" in row
    assert "not significant" in row
    assert "Post-hoc tests (Bergmann–Hommel)" in md


def test_pairs_across_datasets_section(built):
    _, text, md = built
    pairs = text.split("<h3>Pairs of models across datasets</h3>")[1].split("<h2>")[0]
    assert "over the 3 datasets by the Wilcoxon signed-rank test" in pairs
    assert "no p-value can fall below 0.250" in pairs
    row = re.search(r"<tr><td>knn vs logistic_regression</td>.*?</tr>", pairs).group(0)
    assert "0 / 3 / 0" in row and "-0.088" in row and "0.200 / 0.100 / 0.700" in row
    assert "P(≈, ±0.010)" in pairs
    assert "Pairs of models across datasets" in md


def test_reports_without_the_new_significance_keys_still_build(tmp_path, report_inputs):
    sig = report_inputs["significance"]
    for key in ("across_pairs", "bayesian"):
        sig.pop(key)
    sig["across_datasets"].pop("posthoc")
    for entry in sig["datasets"].values():
        entry.pop("bayesian", None)
        entry.pop("test_set_metric", None)
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "Bayesian comparison" not in text and "Post-hoc comparisons" not in text
    assert "Pairs of models across datasets" not in text and "permutation test" not in text
    assert "Friedman χ²_F" in text


def test_cv52_note_in_how_to_read(tmp_path, report_inputs):
    report_inputs["significance"]["pairwise_test"] = "cv52_ttest"
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "5x2cv paired t-test (Dietterich 1998)" in text
    assert "five repeats of 2-fold cross-validation" in text


def test_relative_rope_is_described(tmp_path, report_inputs):
    report_inputs["significance"]["bayesian"] = {"enabled": True, "rope": 0.01, "rope_scale": "relative"}
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "region of practical equivalence (±1% of the pair&#x27;s mean score)" in text
    assert "P(≈, ±1% of the pair&#x27;s mean score)" in text


def _summary(text: str) -> str:
    return re.search(r"<h2>Summary</h2>.*?</ul>", text, flags=re.S).group(0)


def test_summary_comes_first_and_names_every_dataset_in_the_configured_order(tmp_path, report_inputs):
    report_inputs["experiment"]["datasets"] = ["wine", "iris", "diabetes"]
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    body = text[text.index("<body>") :]
    assert body.index("<h2>Summary</h2>") < body.index("<table>")
    summary = _summary(text)
    assert summary.index("wine:") < summary.index("iris:") < summary.index("diabetes:")
    assert "Across N = 3 datasets" in summary
    assert text.index("Dataset: wine") < text.index("Dataset: iris")


def test_summary_reconciles_frequentist_and_bayesian_verdicts(tmp_path, report_inputs):
    """A pair significant after correction but practically equivalent by the ROPE: both said, and why."""
    sig = report_inputs["significance"]
    entry = sig["datasets"]["iris"]
    cv = report_inputs["crossval"]["iris"]
    means = {m: sum(v["scores"]["accuracy"]) / len(v["scores"]["accuracy"]) for m, v in cv["models"].items()}
    best, runner = sorted(means, key=lambda m: -means[m])[:2]
    for row in entry["cv"]:
        if {row["model_a"], row["model_b"]} == {best, runner}:
            row.update(significant=True, pvalue=0.001, pvalue_adjusted=0.003, winner=best)
    for row in entry["bayesian"]:
        if {row["model_a"], row["model_b"]} == {best, runner}:
            row.update(p_a_better=0.01, p_equivalent=0.98, p_b_better=0.01, decision="equivalent")
    report_inputs["settings"]["plots"] = False
    summary = _summary(_build(tmp_path, **report_inputs).html.read_text(encoding="utf-8"))
    line = next(li for li in summary.split("<li>") if li.startswith("iris:"))
    assert f"iris: {best} has the best mean accuracy over " in line and "cross-validation splits" in line
    assert "significant by the corrected resampled t-test after Holm (adjusted p = 0.003" in line
    assert "practically equivalent" in line and "disagree in words only" in line
    assert "Holm" in line


def test_summary_never_declares_a_winner_across_few_datasets(tmp_path, report_inputs):
    across = report_inputs["significance"]["across_datasets"]
    ranks = across["average_ranks"]
    report_inputs["significance"]["across_datasets"] = {
        "ran": False,
        "n_datasets": 3,
        "average_ranks": ranks,
        "models": across["models"],
        "datasets": across["datasets"],
        "scores": across["scores"],
        "metric": across["metric"],
        "reason": "only N = 3 datasets (stats.min_datasets = 5)",
    }
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "no across-datasets test was run, so no model is declared better" in _summary(text)
    assert "significantly better than" not in text
    assert "Average rank" in text


def test_exact_friedman_hides_the_liberal_iman_davenport_pvalue(tmp_path, report_inputs):
    fr = report_inputs["significance"]["across_datasets"]["friedman"]
    fr.update(pvalue=1 / 36, pvalue_method="exact", f_statistic=None)
    report_inputs["significance"]["across_datasets"]["significant"] = True
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "p = 0.028 (exact" in text and "Iman–Davenport F_F =" not in text


def test_unadjusted_ci_excluding_zero_is_explained(tmp_path, report_inputs):
    row = report_inputs["significance"]["datasets"]["iris"]["cv"][0]
    row.update(significant=False, pvalue=0.04, pvalue_adjusted=0.145, ci=[0.001, 0.03], winner=None)
    report_inputs["settings"]["plots"] = False
    text = _build(tmp_path, **report_inputs).html.read_text(encoding="utf-8")
    assert "no significant difference after Holm (the unadjusted CI excludes 0" in text


def test_the_summary_says_when_two_units_score_identically_and_claims_no_winner(evaluation):
    """Seed replicates with identical scores (value and policy iteration on common evaluation episodes):
    the summary names the tie and the reason no test ran, never a "best" with "adjusted p = —"."""
    from replearn.pipeline.records import as_evaluation
    from replearn.pipeline.report.document import _Fmt
    from replearn.pipeline.report.summary import dataset_line

    def record(vi):
        models = {"pi": {"scores": {"return": [0.5, 0.7]}}, "vi": {"scores": {"return": vi}}}
        return as_evaluation(evaluation(models, family={"name": "rl"}))

    cv = record([0.5, 0.7])
    note = (
        "identical scores on every replicate (they reach the same result whatever the seed): there is nothing to test"
    )
    entry = {"cv": [{"model_a": "pi", "model_b": "vi", "pvalue": None, "test": "replicate_ttest", "note": note}]}
    line = dataset_line("world", cv, entry, {"alpha": 0.05, "correction": "holm"}, _Fmt(3))
    assert line == f"world: pi and vi share the best mean return over 2 seeds (0.600): {note}."
    # a constant non-zero difference is not a tie: the better one is named, with why no test ran
    cv = record([0.4, 0.6])
    entry["cv"][0]["note"] = "not testable: every replicate gives the same difference"
    line = dataset_line("world", cv, entry, {"alpha": 0.05, "correction": "holm"}, _Fmt(3))
    assert line.startswith("world: pi has the best mean") and line.endswith("gives the same difference.")


def test_generated_text_rows_come_from_the_first_replicate_with_line_breaks_marked(evaluation):
    from replearn.pipeline.families.sequence.report import text_samples as sequence_samples

    ev = evaluation(
        {
            "ngram": {
                "scores": {"loss": [1.0, 1.0]},
                "extras": [{"prompt": "To be", "sample": ", or not\nto be"}, {"prompt": "x", "sample": "y"}],
            },
            "copy_only": {"scores": {"loss": [1.0, 1.0]}, "extras": [{}, {}]},  # a copy task has no text sample
        }
    )
    assert sequence_samples({"macbeth": ev}) == [("macbeth", "ngram", "To be", ", or not⏎to be")]
