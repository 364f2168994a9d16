"""Choose and run the significance tests for an experiment's results (the significance stage).

Per dataset: every pair of models on the per-split scores of the primary metric with the configured
paired test (by default the corrected resampled t-test of Nadeau & Bengio, 2003), p-values adjusted over
the pairs (Holm by default); McNemar's test on the sealed test set. Across datasets (at least two
datasets and three models): Friedman's test on the mean CV scores with the Nemenyi critical difference
(Demsar, 2006).
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import stats


def _adjust(pvalues: list[float], correction: str) -> list[float]:
    if not pvalues:
        return []
    if correction == "holm":
        return [float(p) for p in stats.holm(pvalues)]
    if correction == "bonferroni":
        return [float(p) for p in stats.bonferroni(pvalues)]
    return [float(p) for p in pvalues]


def _winner(a: str, b: str, diff: float, significant: bool, higher_is_better: bool) -> str | None:
    if not significant or diff == 0:
        return None
    return a if (diff > 0) == higher_is_better else b


def compare_cv(cv: dict, cfg: dict) -> list[dict]:
    """Pairwise tests on one dataset's cross-validation scores."""
    metric = cv["primary_metric"]
    hib = cv["greater_is_better"][metric]
    n_train = np.array([s["n_train"] for s in cv["splits"]], dtype=float)
    n_test = np.array([s["n_test"] for s in cv["splits"]], dtype=float)
    rows = []
    for a, b in itertools.combinations(sorted(cv["models"]), 2):
        sa = np.asarray(cv["models"][a]["scores"][metric], dtype=float)
        sb = np.asarray(cv["models"][b]["scores"][metric], dtype=float)
        if cfg["pairwise_test"] == "corrected_resampled_ttest":
            res = stats.corrected_resampled_ttest(sa, sb, n_train, n_test)
        else:
            res = stats.paired_ttest(sa, sb)
        d = res.to_dict()
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "mean_a": float(sa.mean()),
                "mean_b": float(sb.mean()),
                "mean_difference": float(sa.mean() - sb.mean()),
                "test": d["test"],
                "statistic": d["statistic"],
                "df": d["df"],
                "pvalue": d["pvalue"],
                "effect_size": d["effect_size"],
                "effect_size_name": d["effect_size_name"],
                "ci": d["ci"],
                "conventions": d["conventions"],
            }
        )
    _finish_rows(rows, cfg, hib)
    return rows


def compare_test_set(train_results: dict, cfg: dict) -> list[dict]:
    """McNemar's test for every pair of models on the sealed test part (classification only)."""
    if train_results["task"] != "classification" or cfg["test_set_test"] == "none":
        return []
    models = train_results["models"]
    rows = []
    for a, b in itertools.combinations(sorted(models), 2):
        ca = np.asarray(models[a]["correct"], dtype=bool)
        cb = np.asarray(models[b]["correct"], dtype=bool)
        res = stats.mcnemar(ca, cb, method=cfg["mcnemar_method"]).to_dict()
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "test": "mcnemar",
                "method": cfg["mcnemar_method"],
                "n01": int(np.sum(~ca & cb)),
                "n10": int(np.sum(ca & ~cb)),
                "statistic": res["statistic"],
                "pvalue": res["pvalue"],
                "accuracy_a": float(ca.mean()),
                "accuracy_b": float(cb.mean()),
                "mean_difference": float(ca.mean() - cb.mean()),
            }
        )
    _finish_rows(rows, cfg, True)
    for r in rows:
        r.pop("mean_difference")
    return rows


def _finish_rows(rows: list[dict], cfg: dict, higher_is_better: bool) -> None:
    adjusted = _adjust([r["pvalue"] for r in rows], cfg["correction"])
    for r, p in zip(rows, adjusted):
        r["pvalue_adjusted"] = p
        r["significant"] = bool(p < cfg["alpha"])
        r["winner"] = _winner(r["model_a"], r["model_b"], r["mean_difference"], r["significant"], higher_is_better)


def compare_across(crossval: dict[str, dict], cfg: dict) -> dict:
    """Friedman + Nemenyi over datasets, on the mean CV score of each model (needs >= 2 datasets, >= 3 models)."""
    if cfg["across_datasets"] == "none":
        return {"ran": False, "reason": "switched off (stats.across_datasets: none)"}
    datasets = sorted(crossval)
    model_sets = [set(crossval[d]["models"]) for d in datasets]
    common = sorted(set.intersection(*model_sets)) if model_sets else []
    metrics = {crossval[d]["primary_metric"] for d in datasets}
    if len(datasets) < 2 or len(common) < 3:
        return {
            "ran": False,
            "reason": f"needs at least 2 datasets and 3 models run on all of them (got {len(datasets)} and {len(common)})",
        }
    if len(metrics) != 1:
        return {"ran": False, "reason": f"datasets use different primary metrics ({', '.join(sorted(metrics))})"}
    metric = metrics.pop()
    hib = crossval[datasets[0]]["greater_is_better"][metric]
    scores = np.array([[np.mean(crossval[d]["models"][m]["scores"][metric]) for m in common] for d in datasets])
    fr = stats.friedman(scores, higher_is_better=hib).to_dict()
    ranks = dict(zip(common, (float(r) for r in fr["extra"]["average_ranks"])))
    cd = float(stats.nemenyi_cd(len(common), len(datasets), alpha=cfg["alpha"]))
    cliques = stats.nemenyi_cliques(ranks, cd)
    return {
        "ran": True,
        "reason": None,
        "metric": metric,
        "datasets": datasets,
        "models": common,
        "scores": scores.tolist(),
        "friedman": {
            "statistic": fr["statistic"],
            "pvalue": fr["pvalue"],
            "df": fr["df"],
            "f_statistic": fr["extra"]["f_statistic"],
            "f_pvalue": fr["extra"]["f_pvalue"],
            "df_f": fr["extra"]["df_f"],
        },
        "average_ranks": ranks,
        "nemenyi": {
            "alpha": cfg["alpha"],
            "cd": cd,
            "q_alpha": float(stats.nemenyi_q(len(common), alpha=cfg["alpha"])),
            "cliques": [list(c) for c in cliques],
        },
        "significant": bool(fr["pvalue"] < cfg["alpha"]),
    }


def compare(crossval: dict[str, dict], train_results: dict[str, dict], cfg: dict) -> dict:
    """The whole significance result (the schema the report reads)."""
    first = next(iter(crossval.values()))
    metric = first["primary_metric"]
    return {
        "metric": metric,
        "alpha": cfg["alpha"],
        "higher_is_better": first["greater_is_better"][metric],
        "pairwise_test": cfg["pairwise_test"],
        "correction": cfg["correction"],
        "test_set_test": cfg["test_set_test"],
        "datasets": {
            d: {"cv": compare_cv(crossval[d], cfg), "test_set": compare_test_set(train_results[d], cfg)}
            for d in sorted(crossval)
        },
        "across_datasets": compare_across(crossval, cfg),
    }


def summary_metrics(result: dict) -> dict:
    """Small numbers for ``metrics/significance.json`` (shown by ``dvc exp show``)."""
    out = {}
    for d, r in result["datasets"].items():
        out[d] = {
            "significant_pairs_cv": sum(row["significant"] for row in r["cv"]),
            "significant_pairs_test": sum(row["significant"] for row in r["test_set"]),
        }
    across = result["across_datasets"]
    if across["ran"]:
        out["friedman_pvalue"] = across["friedman"]["pvalue"]
        out["nemenyi_cd"] = across["nemenyi"]["cd"]
    return out
