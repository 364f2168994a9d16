"""The significance stage (replearn.pipeline.compare): tests chosen by design, schema, determinism."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from replearn import stats
from replearn.pipeline import records
from replearn.pipeline.compare import compare, compare_cv, resolve_pairwise_test, summary_metrics

OLD_CFG = {
    "alpha": 0.05,
    "pairwise_test": "corrected_resampled_ttest",
    "correction": "holm",
    "test_set_test": "mcnemar",
    "mcnemar_method": "exact",
    "across_datasets": "friedman_nemenyi",
}
CFG = {
    **OLD_CFG,
    "pairwise_test": "auto",
    "bayesian": True,
    "rope": 0.01,
    "test_set_metric_test": "permutation",
    "resamples": 499,
    "across_pairs_test": "wilcoxon",
    "posthoc": "bergmann_hommel",
    "control": None,
    "round_before_ranking": None,
}


def _cv(name, means, **kw):
    return records.from_dict(records.EvaluationResult, _cv_dict(name, means, **kw))


def _cv_dict(
    name, means, *, scheme="repeated_stratified_kfold", folds=5, repeats=2, task="classification", seed=0, n=100
):
    rng = np.random.default_rng(seed)
    splits = [
        {
            "index": r * folds + f,
            "kind": "split",
            "repeat": r,
            "fold": f,
            "n_train": n - n // folds,
            "n_test": n // folds,
            "seed": r,
        }
        for r in range(repeats)
        for f in range(folds)
    ]
    metric = "accuracy" if task == "classification" else "mse"
    return {
        "schema_version": records.SCHEMA_VERSION,
        "dataset": name,
        "task": task,
        "n_examples": n,
        "scheme": {"name": scheme, "folds": folds, "repeats": repeats, "seed": 1234 + seed},
        "metrics": [metric],
        "primary_metric": metric,
        "greater_is_better": {metric: task == "classification"},
        "splits": splits,
        "models": {
            m: {
                "registry_name": m,
                "params": {},
                "n_iter": [None] * len(splits),
                "converged": [True] * len(splits),
                "scores": {
                    metric: (mu + rng.normal(0, 0.02 if task == "classification" else 50, len(splits))).tolist()
                },
            }
            for m, mu in means.items()
        },
    }


def _train(models, task="classification", n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n) if task == "classification" else rng.normal(100, 20, n)
    out = {
        "schema_version": records.SCHEMA_VERSION,
        "dataset": f"d{seed}",
        "task": task,
        "y_true": y.tolist(),
        "models": {},
    }
    for i, m in enumerate(sorted(models)):
        if task == "classification":
            pred = np.where(rng.random(n) < 0.7 + 0.1 * i, y, (y + 1) % 3)
            out["models"][m] = {
                "pred": pred.tolist(),
                "correct": (pred == y).astype(int).tolist(),
                "converged": True,
                "n_iter": None,
            }
        else:
            out["models"][m] = {"pred": (y + rng.normal(0, 10 + 5 * i, n)).tolist(), "converged": True, "n_iter": None}
    return records.from_dict(records.TrainResult, out)


MODELS = {"gnb": 0.90, "knn": 0.93, "logreg": 0.95}


def _experiment(models=MODELS, n_datasets=3, **kw):
    cv = {
        f"d{j}": _cv(f"d{j}", {m: mu - 0.01 * j for m, mu in models.items()}, seed=j, **kw) for j in range(n_datasets)
    }
    train = {d: _train(models, seed=j) for j, d in enumerate(cv)}  # dataset names d0, d1, ... match
    return cv, train


def test_auto_chooses_the_test_from_the_scheme():
    assert resolve_pairwise_test(CFG, "repeated_stratified_kfold") == "corrected_resampled_ttest"
    assert resolve_pairwise_test(CFG, "5x2") == "cv52_ttest"
    assert resolve_pairwise_test({**CFG, "pairwise_test": "paired_ttest"}, "5x2") == "paired_ttest"
    with pytest.raises(ValueError, match="needs cv.scheme 5x2"):
        resolve_pairwise_test({**CFG, "pairwise_test": "cv52_ftest"}, "kfold")


def test_cv52_rows_use_the_repeat_fold_layout():
    raw = _cv_dict("d", MODELS, scheme="5x2", folds=2, repeats=5)
    shuffled = copy.deepcopy(raw)
    order = np.random.default_rng(0).permutation(10)
    shuffled["splits"] = [raw["splits"][i] for i in order]
    for m in shuffled["models"].values():
        m["scores"]["accuracy"] = [m["scores"]["accuracy"][i] for i in order]
    cv, shuffled = (records.from_dict(records.EvaluationResult, d) for d in (raw, shuffled))
    rows, rows_shuffled = compare_cv(cv, CFG), compare_cv(shuffled, CFG)
    assert rows[0]["test"] == "cv52_ttest" and rows[0]["df"] == 5.0
    assert [r["statistic"] for r in rows] == pytest.approx([r["statistic"] for r in rows_shuffled])
    a = np.asarray(cv.models["gnb"].scores["accuracy"])
    b = np.asarray(cv.models["knn"].scores["accuracy"])
    assert rows[0]["statistic"] == pytest.approx(stats.cv52_ttest(a, b).statistic)


def test_full_result_schema_and_json():
    cv, train = _experiment(n_datasets=5)
    res = compare(cv, train, CFG)
    json.dumps(res, allow_nan=False)  # strict JSON
    assert res["pairwise_test"] == "corrected_resampled_ttest" and res["pairwise_test_config"] == "auto"
    d0 = res["datasets"]["d0"]
    assert {"cv", "test_set", "bayesian", "test_set_metric"} <= set(d0)
    assert len(d0["cv"]) == 3 and len(d0["bayesian"]) == 3 and len(d0["test_set"]) == 3
    for row in d0["bayesian"]:
        assert row["p_a_better"] + row["p_equivalent"] + row["p_b_better"] == pytest.approx(1.0)
    assert d0["test_set_metric"]["ran"] and len(d0["test_set_metric"]["rows"]) == 3
    across = res["across_datasets"]
    assert across["ran"] and across["posthoc"]["ran"] and across["posthoc"]["method_used"] == "bergmann_hommel"
    assert len(across["posthoc"]["comparisons"]) == 3 and "kendall_w" in across["friedman"]
    assert {"cd", "cliques"} <= set(across["nemenyi"])
    pairs = res["across_pairs"]
    assert pairs["ran"] and len(pairs["rows"]) == 3 and pairs["smallest_possible_pvalue"] == 2 / 2**5
    assert all("bayesian_signed_rank" in r for r in pairs["rows"])
    summary = summary_metrics(res)
    assert "posthoc_significant_pairs" in summary and "across_pairs_significant" in summary


def test_rerun_is_identical_and_seed_changes_resampling():
    cv, train = _experiment()
    a, b = compare(cv, train, CFG), compare(cv, train, CFG)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    c = compare(cv, train, CFG, seed=99)
    assert c["seed"] == 99
    assert c["datasets"]["d0"]["cv"] == a["datasets"]["d0"]["cv"]  # deterministic tests do not move


def test_two_models_on_many_datasets():
    cv, train = _experiment({"gnb": 0.90, "knn": 0.93}, n_datasets=6)
    res = compare(cv, train, CFG)
    assert not res["across_datasets"]["ran"]
    assert "compared over the datasets in the pairwise section" in res["across_datasets"]["reason"]
    row = res["across_pairs"]["rows"][0]
    scores = np.array([[np.mean(cv[d].models[m].scores["accuracy"]) for m in ("gnb", "knn")] for d in sorted(cv)])
    assert row["pvalue"] == pytest.approx(stats.wilcoxon(scores[:, 0], scores[:, 1]).pvalue)
    assert row["winner"] is None or row["winner"] == "knn"
    sign = compare(cv, train, {**CFG, "across_pairs_test": "sign_test"})["across_pairs"]["rows"][0]
    assert sign["test"] == "sign_test" and sign["pvalue"] == pytest.approx(row["sign_test_pvalue"])


def test_posthoc_against_a_control_and_lower_is_better():
    cv = {f"d{j}": _cv(f"d{j}", {"a": 3000.0, "b": 3100.0, "c": 2500.0}, task="regression", seed=j) for j in range(4)}
    train = {d: _train(["a", "b", "c"], task="regression", seed=j) for j, d in enumerate(cv)}
    res = compare(cv, train, {**CFG, "posthoc": "holm", "control": "c", "min_datasets": 4})
    ph = res["across_datasets"]["posthoc"]
    assert ph["control"] == "c" and [(r["a"], r["b"]) for r in ph["comparisons"]] == [("c", "a"), ("c", "b")]
    assert all(r["rank_difference"] > 0 and r["cliffs_delta"] > 0 for r in ph["comparisons"])  # c has lower mse
    for row in res["datasets"]["d0"]["bayesian"]:  # mse: lower is better, so "a better" is the left tail
        if row["model_a"] == "a" and row["model_b"] == "c":
            assert row["p_b_better"] > 0.95
    tm = res["datasets"]["d0"]["test_set_metric"]
    assert tm["ran"] and tm["metric"] == "mse" and res["datasets"]["d0"]["test_set"] == []
    missing = compare(cv, train, {**CFG, "posthoc": "holm", "control": "zzz", "min_datasets": 4})["across_datasets"][
        "posthoc"
    ]
    assert not missing["ran"] and "zzz" in missing["reason"]


def test_old_configs_still_work_and_switches():
    cv, train = _experiment()
    res = compare(cv, train, OLD_CFG)
    assert res["pairwise_test"] == "corrected_resampled_ttest" and res["datasets"]["d0"]["bayesian"]
    off = compare(cv, train, {**CFG, "bayesian": False, "test_set_metric_test": "none", "across_pairs_test": "none"})
    assert off["datasets"]["d0"]["bayesian"] == [] and not off["datasets"]["d0"]["test_set_metric"]["ran"]
    assert not off["across_pairs"]["ran"] and "bayesian_signed_rank" not in str(off["across_pairs"])
    sh = compare(cv, train, {**CFG, "correction": "bergmann_hommel"})
    holm = compare(cv, train, CFG)
    for r_bh, r_h in zip(sh["datasets"]["d1"]["cv"], holm["datasets"]["d1"]["cv"]):
        assert r_bh["pvalue_adjusted"] <= r_h["pvalue_adjusted"] + 1e-15


def test_relative_rope_scales_with_the_scores():
    cv = {f"d{j}": _cv(f"d{j}", {"a": 3000.0, "b": 3010.0}, task="regression", seed=j) for j in range(5)}
    train = {d: _train(["a", "b"], task="regression", seed=j) for j, d in enumerate(cv)}
    absolute = compare(cv, train, CFG)
    relative = compare(cv, train, {**CFG, "rope_scale": "relative"})
    row_abs, row_rel = absolute["datasets"]["d0"]["bayesian"][0], relative["datasets"]["d0"]["bayesian"][0]
    assert row_abs["rope"] == 0.01 and row_rel["rope"] == pytest.approx(0.01 * 3005, rel=0.01)
    assert row_abs["p_equivalent"] < 0.01 < row_rel["p_equivalent"]
    assert relative["bayesian"]["rope_scale"] == "relative"
    assert relative["across_pairs"]["rows"][0]["bayesian_signed_rank"]["rope_scale"] == "relative"


def test_wins_follow_the_direction_of_the_metric():
    cv = {f"d{j}": _cv(f"d{j}", {"a": 3000.0, "b": 2000.0}, task="regression", seed=j) for j in range(5)}
    train = {d: _train(["a", "b"], task="regression", seed=j) for j, d in enumerate(cv)}
    row = compare(cv, train, CFG)["across_pairs"]["rows"][0]
    assert (row["wins_a"], row["wins_b"]) == (0, 5)  # b has the lower mse everywhere
    assert row["rank_biserial"] == -1.0 and row["bayesian_signed_rank"]["p_b_better"] > 0.9


def test_no_bayesian_signed_rank_below_min_datasets():
    """Below stats.min_datasets no frequentist test runs across datasets, so no posterior verdict is printed."""
    cv = {f"d{j}": _cv(f"d{j}", {"a": 3000.0, "b": 2000.0}, task="regression", seed=j) for j in range(4)}
    train = {d: _train(["a", "b"], task="regression", seed=j) for j, d in enumerate(cv)}
    pairs = compare(cv, train, CFG)["across_pairs"]
    assert "bayesian_signed_rank" not in pairs["rows"][0] and "N = 4" in pairs["bayesian_withheld"]
    pairs = compare(cv, train, {**CFG, "min_datasets": 4})["across_pairs"]
    assert pairs["bayesian_withheld"] is None and pairs["rows"][0]["bayesian_signed_rank"]["decision"] in (
        "b_better",
        "undecided",
    )


def test_few_datasets_give_average_ranks_and_no_test():
    """With N = 3 the old stage declared a winner by ranks alone (rank difference 2 > CD)."""
    cv, train = _experiment(n_datasets=3)
    across = compare(cv, train, CFG)["across_datasets"]
    assert not across["ran"] and across["n_datasets"] == 3
    assert "N = 3" in across["reason"] and "no across-datasets test" in across["reason"]
    assert across["average_ranks"] == {"gnb": 3.0, "knn": 2.0, "logreg": 1.0}
    assert "friedman" not in across and "posthoc" not in across


def test_friedman_on_few_datasets_is_exact_when_asked_for():
    cv, train = _experiment(n_datasets=3)
    across = compare(cv, train, {**CFG, "min_datasets": 3})["across_datasets"]
    assert across["ran"] and across["friedman"]["pvalue_method"] == "exact"
    assert across["friedman"]["pvalue"] == pytest.approx(1 / 36)
    assert across["friedman"]["f_statistic"] is None  # unbounded: null, never the string "inf"
    assert across["significant"] and across["posthoc"]["ran"]


def test_no_posthoc_when_friedman_does_not_reject():
    rng = np.random.default_rng(0)
    cv = {f"d{j}": _cv(f"d{j}", {m: 0.9 + 0.01 * rng.normal() for m in "abc"}, seed=j) for j in range(6)}
    train = {d: _train("abc", seed=j) for j, d in enumerate(cv)}
    across = compare(cv, train, CFG)["across_datasets"]
    if not across["significant"]:
        assert not across["posthoc"]["ran"] and "did not reject" in across["posthoc"]["reason"]
    assert across["n_datasets"] == 6


def test_resampling_seeds_follow_names_not_positions():
    cv, train = _experiment(n_datasets=2)
    a = compare(cv, train, CFG)
    import dataclasses

    # adding a dataset that sorts first must not change the other datasets' resampling tests
    extra = {"a_first": dataclasses.replace(cv["d0"], dataset="a_first"), **cv}
    b = compare(extra, {"a_first": dataclasses.replace(train["d0"], dataset="a_first"), **train}, CFG)
    assert a["datasets"]["d1"]["test_set_metric"] == b["datasets"]["d1"]["test_set_metric"]


def test_decision_rule_is_p_at_most_alpha():
    from replearn.stats.registry import is_significant

    assert is_significant(0.05, 0.05) and not is_significant(0.0500001, 0.05) and not is_significant(None, 0.05)
