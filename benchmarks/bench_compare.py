"""``replearn.compare`` on a table of per-dataset scores against autorank and baycomp, side by side.

Two tables shaped like benchmark results, the datasets differing much more than the models: the issue's 20 datasets x
5 models and the KEEL benchmark's size, 43 datasets x 12 models (seeded; the same numbers every run). Timed in
process, after one warm-up call each (imports excluded):

* **the analysis**: ``replearn.compare`` without the Bayesian test (Friedman with the exact or chi-square p, the
  Nemenyi CD, the post-hoc procedure, every pair by Wilcoxon and the sign test with Holm, effect sizes) against
  ``autorank.autorank`` as it is called (its own choice of tests: normality and homoscedasticity tests, then a
  repeated-measures ANOVA with Tukey's HSD or Friedman with Nemenyi);
* **the analysis and every text output** (JSON, Markdown, HTML without figures, the LaTeX table and methods
  paragraph, BibTeX) against autorank with its ``latex_table`` and ``create_report``;
* **the same tests**: against autorank forced to Friedman + Nemenyi (``force_mode='nonparametric'``), which
  skips its test selection and computes less (no pairwise Wilcoxon, no effect sizes over datasets);
* **the Bayesian signed-rank test of every pair** (20,000 posterior draws each, as the significance stage draws):
  ``replearn.compare``'s whole analysis with it, against ``baycomp.SignedRankTest.probs`` for the same pairs and
  draws (20 x 5 only: baycomp takes seconds per pair).

The figures are not timed here (docs/performance.md, "replearn compare", gives the command line's times).
``python -m benchmarks.bench_compare``; results in ``benchmarks/results/local/compare.json``.
"""

from __future__ import annotations

import contextlib
import io
import itertools

import numpy as np
import pandas as pd

from replearn import compare

from .common import Case, run_cases


def table(n: int, k: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scores = rng.uniform(0.6, 0.95, (n, 1)) + np.linspace(0.0, 0.05, k) + rng.normal(0, 0.015, (n, k))
    return pd.DataFrame(
        np.clip(scores, 0, 1), columns=[f"model{j:02d}" for j in range(k)], index=[f"dataset{i:02d}" for i in range(n)]
    )


def _long(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename_axis("dataset").reset_index()


def ours_analysis(df: pd.DataFrame):
    return compare(_long(df), higher_is_better=True, metric="accuracy", bayesian=False)


def ours_outputs(df: pd.DataFrame):
    res = ours_analysis(df)
    return (
        res.to_json(),
        res.to_markdown(),
        res.to_html(figures=False),
        res.to_latex(),
        res.methods(latex=True),
        res.to_bibtex(),
    )


def autorank_default(df: pd.DataFrame, *, outputs: bool = False, force: str | None = None):
    import autorank

    with contextlib.redirect_stdout(io.StringIO()):
        result = autorank.autorank(df, alpha=0.05, verbose=False, force_mode=force)
        if outputs:
            autorank.latex_table(result)
            autorank.create_report(result)
    return result


def ours_bayesian(df: pd.DataFrame):
    return compare(_long(df), higher_is_better=True, metric="accuracy")


def baycomp_pairs(df: pd.DataFrame):
    import baycomp

    return [
        baycomp.SignedRankTest.probs(df[a].to_numpy(), df[b].to_numpy(), rope=0.01, nsamples=20000, random_state=1)
        for a, b in itertools.combinations(df.columns, 2)
    ]


def main() -> list[dict]:
    small, keel = table(20, 5), table(43, 12)
    cases = []
    for df, shape in ((small, "20 datasets x 5 models"), (keel, "43 datasets x 12 models")):
        cases.append(
            Case(
                "compare: Friedman, post-hoc, CD, Wilcoxon + sign test with Holm, effect sizes",
                shape,
                lambda df=df: ours_analysis(df),
                lambda df=df: autorank_default(df),
                "autorank 1.3 (its own choice of tests)",
            )
        )
    cases += [
        Case(
            "compare and every text output (JSON, Markdown, HTML, LaTeX, BibTeX)",
            "43 datasets x 12 models",
            lambda: ours_outputs(keel),
            lambda: autorank_default(keel, outputs=True),
            "autorank 1.3 + latex_table + create_report",
        ),
        Case(
            "compare: Friedman, post-hoc, CD, Wilcoxon + sign test with Holm, effect sizes",
            "43 datasets x 12 models",
            lambda: ours_analysis(keel),
            lambda: autorank_default(keel, force="nonparametric"),
            "autorank 1.3 forced to Friedman + Nemenyi",
        ),
        Case(
            "compare with the Bayesian signed-rank test of every pair (20,000 draws)",
            "20 datasets x 5 models (10 pairs)",
            lambda: ours_bayesian(small),
            lambda: baycomp_pairs(small),
            "baycomp 1.0 SignedRankTest.probs (20,000 draws) x 10",
        ),
    ]
    return run_cases("compare", cases, repeats=5)


if __name__ == "__main__":
    main()
