"""The issue's "done when": ``replearn compare`` on a CSV of the KEEL benchmark's per-dataset means gives the
verdicts of the benchmark_keel report's across-datasets section.

The fixture (tests/fixtures/benchmark_keel/, see its README row) is the output of a real ``dvc exp run -S
+experiment=benchmark_keel``: the mean CV accuracy of each of the 12 models on each of the 43 datasets as the
significance stage ranked them (``across_datasets.scores``, written with every digit), the across-datasets and
across-pairs results of its ``results/significance.json`` and the "Across datasets" section of its
``reports/report.md``. The CSV goes through the command line exactly as a user would give it.
"""

from __future__ import annotations

import json
from pathlib import Path

from replearn import cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "benchmark_keel"


def _section(markdown: str, heading: str = "## Across datasets") -> str:
    lines = markdown.splitlines()
    i = lines.index(heading)
    j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    return "\n".join(lines[i:j]).rstrip("\n") + "\n"


def test_replearn_compare_on_the_keel_means_gives_the_benchmark_reports_verdicts(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --out: inside the folder the command runs in
    expected = json.loads((FIXTURE / "significance_across.json").read_text(encoding="utf-8"))
    out = tmp_path / "out"
    argv = ["compare", str(FIXTURE / "keel_means.csv"), "--metric", "accuracy", "--out", str(out)]
    argv += ["--seed", str(expected["seed"])]  # the benchmark's resampling seed (its CV seed)
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert written == {
        "comparison.json",
        "comparison.md",
        "comparison.html",
        "comparison.tex",
        "table.tex",
        "methods.tex",
        "references.bib",
        *(f"plots/{s}.{e}" for s in ("critical_difference", "pairwise_matrix") for e in ("pdf", "svg", "png")),
    }
    result = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    # the same numbers and verdicts, field for field: Friedman, Nemenyi, Shaffer's post-hoc (k = 12: the
    # default Bergmann-Hommel falls back to it, as in the benchmark's config), every Wilcoxon / sign / Bayesian
    # signed-rank row of the 66 pairs
    assert result["across_datasets"] == expected["across_datasets"]
    assert result["across_pairs"] == expected["across_pairs"]
    # the same section of the report, word for word, but for what the ranked means are means over
    report = (FIXTURE / "report_across_datasets.md").read_text(encoding="utf-8")
    mine = _section((out / "comparison.md").read_text(encoding="utf-8"))
    expected_text = report.replace(
        "mean accuracy over the cross-validation splits (",
        "mean accuracy as the table gives them (one score per dataset and model) (",
    )
    assert mine == expected_text
    assert printed.startswith("Across N = 43 datasets: average ranks svm_rbf (3.744), random_forest (3.814)")
    # the BibTeX file holds exactly the works of the procedures the methods paragraph cites
    bib = (out / "references.bib").read_text(encoding="utf-8")
    keys = sorted(line.split("{", 1)[1].rstrip(",") for line in bib.splitlines() if line.startswith("@"))
    assert keys == sorted(result["references"]) == sorted({k for s in result["methods"] for k in s["cite"]})
    assert {"friedman1937", "demsar2006", "shaffer1986", "garcia2008", "wilcoxon1945", "holm1979"} <= set(keys)
    assert "student1908" not in keys and "nadeau2003" not in keys  # no test over replicates was run
    tex = (out / "comparison.tex").read_text(encoding="utf-8")
    assert "\\cite{shaffer1986,garcia2008}" in tex and "keel\\_australian" in tex
