"""The report's few-run section for seed replicates (replearn.pipeline.report.fewruns, issue 22): IQM with a
stratified bootstrap interval, probability of improvement, the minimum detectable effect of the pairs not told
apart, and the aggregate IQM / performance profile across a family's problems."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps

from replearn.pipeline import compare, records
from replearn.pipeline.report import build_report
from replearn.pipeline.report import fewruns as report_fewruns
from replearn.pipeline.seeding import derive_seed
from replearn.stats import fewruns

SEED = 20240601
N_SEEDS = 6
# per dataset, per unit: the return of each seed (hand-picked; "slow" is far behind, "fast" and "mid" close)
SCORES = {
    "grid_a": {
        "fast": [0.81, 0.86, 0.79, 0.90, 0.84, 0.83],
        "mid": [0.80, 0.84, 0.82, 0.85, 0.78, 0.86],
        "slow": [0.41, 0.45, 0.39, 0.52, 0.44, 0.40],
    },
    "grid_b": {
        "fast": [12.0, 13.5, 11.0, 14.0, 12.5, 13.0],
        "mid": [11.5, 13.0, 12.0, 12.5, 14.5, 11.0],
        "slow": [5.2, 6.5, 4.0, 7.3, 5.5, 6.1],
    },
}
CFG = {"alpha": 0.05, "correction": "holm", "pairwise_test": "auto", "replicate_test": "replicate_ttest"}


def _record(dataset: str) -> records.EvaluationResult:
    units = SCORES[dataset]
    return records.EvaluationResult(
        dataset=dataset,
        task="control",
        n_examples=0,
        scheme=records.Scheme(name="unit_seeds", design="seeds", seed=7, repeats=N_SEEDS),
        metrics=["return"],
        primary_metric="return",
        greater_is_better={"return": True},
        splits=[
            records.Replicate(index=r, kind="seed", n_train=0, n_test=0, seed=7, repeat=r, fold=0)
            for r in range(N_SEEDS)
        ],
        models={
            k: records.ModelEvaluation(
                registry_name="value_iteration",
                params={},
                scores={"return": v},
                n_iter=[1] * N_SEEDS,
                converged=[True] * N_SEEDS,
            )
            for k, v in units.items()
        },
        family={"name": "rl", "task": "control", "problem": {"size": 4}, "scale_by": None, "scale_metrics": []},
    )


def _inputs() -> dict:
    evs = {d: _record(d) for d in SCORES}
    datasets = {d: {"cv": compare.compare_cv(evs[d], CFG), "metric": "return"} for d in SCORES}
    significance = {
        "metric": "return",
        "alpha": 0.05,
        "higher_is_better": True,
        "pairwise_test": "replicate_ttest",
        "pairwise_test_config": "auto",
        "correction": "holm",
        "seed": SEED,
        "datasets": datasets,
        "across_datasets": {"ran": False},
        "across_pairs": {},
        "excluded": {},
        "bayesian": {},
        "posthoc": {},
    }
    return {
        "crossval": {d: records.to_dict(ev) for d, ev in evs.items()},
        "significance": significance,
        "train_metrics": {},
        "settings": {"title": "Few runs", "decimals": 3, "dpi": 40, "plots": True, "formats": ["html", "markdown"]},
        "experiment": {"name": "few", "params_hash": "0" * 16, "datasets": list(SCORES), "models": ["fast", "mid"]},
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("fewruns") / "out"
    art = build_report(out_dir=out, **_inputs())
    return art, art.markdown.read_text(encoding="utf-8"), art.html.read_text(encoding="utf-8")


def _section(md: str, dataset: str) -> str:
    return md.split(f"## Dataset: {dataset}")[1].split("\n## ")[0]


def test_the_fixture_has_one_pair_not_told_apart_per_dataset():
    for d in SCORES:
        rows = {(r["model_a"], r["model_b"]): r for r in _inputs()["significance"]["datasets"][d]["cv"]}
        assert not rows[("fast", "mid")]["significant"]
        assert rows[("fast", "slow")]["significant"] and rows[("mid", "slow")]["significant"]


@pytest.mark.parametrize("dataset", list(SCORES))
def test_iqm_table_per_unit(built, dataset):
    _, md, _ = built
    sec = _section(md, dataset)
    assert "Few runs: IQM, bootstrap intervals, probability of improvement" in sec
    for unit, v in SCORES[dataset].items():
        iqm = sps.trim_mean(v, 0.25)
        boot = fewruns.stratified_bootstrap_ci(
            np.array(v), "iqm", 2000, 0.95, derive_seed(SEED, "fewruns", dataset, "iqm", unit)
        )
        assert boot.ci[0] <= iqm <= boot.ci[1]
        row = f"| {unit} | 6 | {np.mean(v):.3f} | {iqm:.3f} | [{boot.ci[0]:.3f}, {boot.ci[1]:.3f}] |"
        assert row in sec


@pytest.mark.parametrize("dataset", list(SCORES))
def test_probability_of_improvement_per_pair(built, dataset):
    _, md, _ = built
    sec = _section(md, dataset)
    u = SCORES[dataset]
    for a, b in (("fast", "mid"), ("fast", "slow"), ("mid", "slow")):
        poi = sps.mannwhitneyu(u[a], u[b]).statistic / 36
        assert f"| {a} vs {b} | {'**' if poi in (1.0,) else ''}{poi:.3f}" in sec
    assert "| fast vs slow | **1.000** |" in sec  # every seed of fast beats every seed of slow: bold, CI above 0.5


def _independent_mde(n: int, level: float, power: float = 0.8) -> float:
    """The d_z solving the two-sided paired-t power equation, by scipy.stats.nct (independent of fewruns)."""

    def pw(d):
        c = sps.t.ppf(1 - level / 2, n - 1)
        return sps.nct.sf(c, n - 1, d * math.sqrt(n)) + sps.nct.cdf(-c, n - 1, d * math.sqrt(n))

    return optimize.brentq(lambda d: pw(d) - power, 1e-6, 5.0)


@pytest.mark.parametrize("dataset", list(SCORES))
def test_minimum_detectable_effect_line_for_the_pair_not_told_apart(built, dataset):
    _, md, _ = built
    sec = _section(md, dataset)
    d = np.array(SCORES[dataset]["fast"]) - np.array(SCORES[dataset]["mid"])
    mde_sd = _independent_mde(6, 0.05 / 3)
    mde = mde_sd * np.std(d, ddof=1)
    line = [ln for ln in sec.splitlines() if ln.startswith("fast vs mid: not told apart")]
    assert len(line) == 1, sec
    text = line[0]
    assert (
        f"With 6 seeds, 3 pairs under Holm this run could only detect differences of at least {mde:.3f} in return"
        in (text)
    )
    assert "level 0.01667 (α / number of pairs, the worst case) has 80 % power" in text
    assert (
        f"{mde_sd:.2f} standard deviations of the paired differences (sd over the seeds = {np.std(d, ddof=1):.3f})"
        in (text)
    )
    assert "no evidence that the two are equivalent" in text
    assert "fast vs slow: not told apart" not in sec  # only pairs the test did not tell apart


def test_family_aggregate_iqm_and_performance_profile(built):
    art, md, html = built
    assert "## Few runs across the rl problems" in md
    agg = md.split("## Few runs across the rl problems")[1].split("\n## ")[0]
    for unit in ("fast", "mid", "slow"):
        cols = []
        for dset in SCORES:
            pooled = np.concatenate([np.array(v) for v in SCORES[dset].values()])
            cols.append((np.array(SCORES[dset][unit]) - pooled.min()) / (pooled.max() - pooled.min()))
        table = np.column_stack(cols)
        iqm = sps.trim_mean(table.ravel(), 0.25)
        assert f"| {unit} | grid_a, grid_b | 6 | {iqm:.3f} | [" in agg
    assert "Performance profile" in agg
    assert any(p.name == "profile_rl.png" for p in art.plots)


def test_rebuild_is_byte_identical(built, tmp_path):
    art, md, html = built
    again = build_report(out_dir=tmp_path / "again", **_inputs())
    assert again.markdown.read_text(encoding="utf-8") == md
    assert again.html.read_text(encoding="utf-8") == html
    assert (tmp_path / "again" / "plots" / "profile_rl.png").read_bytes() == (
        art.html.parent / "plots" / "profile_rl.png"
    ).read_bytes()


def test_no_few_run_section_for_cross_validation_splits(built_report):
    _, text, md = built_report
    assert "Few runs" not in md and "Few runs" not in text


def test_a_rank_test_that_cannot_reject_says_so():
    """Results of a configuration the check now refuses (Wilcoxon, 5 seeds, 3 pairs): the verdict carries nothing."""
    inputs = _inputs()
    cv = inputs["crossval"]["grid_a"]
    for m in cv["models"].values():
        m["scores"]["return"] = m["scores"]["return"][:5]
    cv["splits"] = cv["splits"][:5]
    for r in inputs["significance"]["datasets"]["grid_a"]["cv"]:
        r.update(test="replicate_wilcoxon", pvalue=0.0625, pvalue_adjusted=0.1875, significant=False)
    nums = report_fewruns.dataset_numbers(
        "grid_a", cv, inputs["significance"]["datasets"]["grid_a"], inputs["significance"]
    )
    assert [(u["model_a"], u["model_b"], u["reachable"]) for u in nums["undetected"]] == [
        ("fast", "mid", False),
        ("fast", "slow", False),
        ("mid", "slow", False),
    ]
    assert nums["undetected"][0]["p_min"] == pytest.approx(0.1875)
    from replearn.pipeline.report.document import _Fmt

    line = report_fewruns._undetected_line(nums["undetected"][0], "return", _Fmt(3))
    assert "cannot reject with 5 seeds, 3 pairs under Holm whatever the scores" in line
    assert "smallest attainable adjusted p = 0.1875" in line


def test_lower_is_better_metrics_orient_the_probability_of_improvement():
    cv = records.to_dict(_record("grid_a"))
    cv["greater_is_better"] = {"return": False}
    nums = report_fewruns.dataset_numbers("grid_a", cv, {"cv": []}, {"alpha": 0.05, "seed": 1})
    pair = {(p["model_a"], p["model_b"]): p["poi"] for p in nums["pairs"]}
    assert pair[("fast", "slow")] == 0.0  # fast has the higher (worse) values on every seed
    assert nums["undetected"] == []
