"""The analysis of a table of scores: the question its shape allows, asked through the significance stage's own
functions (:mod:`replearn.pipeline.compare`), never a second implementation.

Which question follows from which input (docs/statistics.md, "Bring your own results"):

* **one score per dataset and model** (a table of means): the across-datasets analysis only --
  :func:`~replearn.pipeline.compare.across_datasets` (average ranks; from ``min_datasets`` datasets Friedman's
  test, the Nemenyi critical difference and the post-hoc procedure once Friedman rejects) and
  :func:`~replearn.pipeline.compare.across_pairs` (every pair by the Wilcoxon signed-rank or sign test with the
  correction, and the Bayesian signed-rank test from ``min_datasets`` datasets). A claim about datasets like these.
* **independent replicates** (a ``seed`` or ``replicate`` column, or ``repeat`` without ``fold``): also, on each
  dataset, every pair over the replicates paired by replicate, by ``replicate_test`` (paired t by default) with
  the correction and the Bayesian t-test (rho = 0) -- :func:`~replearn.pipeline.compare.compare_replicates` on
  records built from the table. A claim about that dataset's data (the runs' training and test data), never about
  other datasets; withheld on a dataset with fewer replicates than the test needs to reach alpha after the
  correction (``min_n``).
* **cross-validation splits** (a ``fold`` column; ``repeat``, ``seed`` or ``replicate`` name the repeat):
  ``fold_test="auto"`` asks the *conditional* question when there are at least two repeats -- each repeat's mean
  over its folds is one independent replicate (another random partition of the same data), tested as above: a
  claim about this dataset --, and with one repeat the corrected resampled t-test over the folds (Nadeau & Bengio
  2003; the 5x2cv t-test for five repeats of two folds), which needs ``n_train`` and ``n_test`` and whose
  ``n_test/n_train`` term only stands in for the data-sampling variance (liberal for unstable learners).
  ``fold_test="conditional"`` or ``"corrected"`` forces either.

Every dataset's means enter the across-datasets analysis as well (a mean over all of a model's replicates; a
missing replicate leaves no mean, as a failed fit does). A missing cell takes its dataset's worst rank there and is
dropped pairwise in the Wilcoxon and Bayesian signed-rank tests; over replicates a pair is tested on the replicates
both models have. Datasets and models are analysed in sorted order, so the numbers do not depend on the order of
the rows or columns; the displays keep the table's order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...exceptions import TableError
from .. import compare as engine
from .. import designs, records
from .read import ScoreTable, read_table, resolve_direction

__all__ = ["FOLD_TESTS", "SCHEMA_VERSION", "analyse", "settings_of"]

#: version of the JSON ``replearn compare`` writes
SCHEMA_VERSION = 1
FOLD_TESTS = ("auto", "conditional", "corrected")
_ALL_PAIRS_ONLY = ("nemenyi", "shaffer", "bergmann_hommel")
_CONTROL_ONLY = ("bonferroni_dunn",)


def settings_of(
    *,
    alpha: float = 0.05,
    rope: float = 0.01,
    rope_scale: str = "absolute",
    correction: str = "holm",
    posthoc: str | None = None,
    control: str | None = None,
    min_datasets: int = 5,
    across_pairs_test: str = "wilcoxon",
    bayesian: bool = True,
    replicate_test: str = "replicate_ttest",
    round_before_ranking: int | None = None,
) -> dict:
    """The ``stats`` settings of a comparison, checked by the configuration schema of the pipeline (the one owner
    of every key's rules) and returned as the significance stage reads them. ``posthoc`` None: Bergmann-Hommel for
    all pairs (Shaffer above 10 models), Holm against a ``control``."""
    from ...exceptions import ConfigError
    from ..config import check_section

    if posthoc is None:
        posthoc = "holm" if control is not None else "bergmann_hommel"
    cfg = {
        "alpha": alpha,
        "pairwise_test": "auto",
        "replicate_test": replicate_test,
        "correction": correction,
        "bayesian": bayesian,
        "rope": rope,
        "rope_scale": rope_scale,
        "test_set_test": "none",
        "mcnemar_method": "exact",
        "test_set_metric_test": "none",
        "resamples": 1999,
        "across_pairs_test": across_pairs_test,
        "across_datasets": "friedman_nemenyi",
        "min_datasets": min_datasets,
        "posthoc": posthoc,
        "control": control,
        "round_before_ranking": round_before_ranking,
    }
    if isinstance(alpha, int) and not isinstance(alpha, bool):
        cfg["alpha"] = float(alpha)
    if isinstance(rope, int) and not isinstance(rope, bool):
        cfg["rope"] = float(rope)
    try:
        check_section("stats", cfg)
    except ConfigError as exc:
        problems = str(exc).split("\n  - ")[1:] or [str(exc)]
        raise TableError("; ".join(p.replace("stats.", "", 1) for p in problems)) from None
    if control is not None and posthoc in _ALL_PAIRS_ONLY:
        raise TableError(
            f"posthoc {posthoc} compares all pairs; against a control use holm (the default), hochberg, hommel or "
            "bonferroni_dunn"
        )
    if control is None and posthoc in _CONTROL_ONLY:
        raise TableError(f"posthoc {posthoc} compares every model with a control: name one with --control")
    return engine.settings(cfg)


def _option(name: str) -> str:
    """How a message names a setting of ``replearn compare``: the Python keyword and the command-line flag."""
    return f"{name} (--{name.replace('_', '-')})"


# ------------------------------------------------------------------------------------------- records
def _scheme(table: ScoreTable, d: str, kind: str) -> records.Scheme:
    if designs.independent_replicates(kind):
        return records.Scheme(name="seeds", design="seeds")
    repeats = table.repeat_of(d)
    counts: dict[tuple, int] = {}
    for r in repeats:
        counts[r] = counts.get(r, 0) + 1
    folds = sorted(set(counts.values()))
    name = "5x2" if len(counts) == 5 and folds == [2] else "repeated_kfold"
    return records.Scheme(name=name, folds=folds[0] if len(folds) == 1 else None, repeats=len(counts))


def _evaluation(
    table: ScoreTable, d: str, metric: str, hib: bool, scores: Mapping[str, list], splits: list[records.Replicate]
) -> records.EvaluationResult:
    """An evaluation record of dataset ``d`` with ``scores[model]`` on ``splits`` (None: a missing score, recorded as
    a failed fit so that the tests drop it as the stage drops a failed fit)."""
    kind = splits[0].kind
    models = {}
    for m in sorted(scores):
        vals = scores[m]
        failures = [records.FitFailure(i, "error", "no score in the table") for i, v in enumerate(vals) if v is None]
        models[m] = records.ModelEvaluation(
            registry_name=m,
            params={},
            scores={metric: list(vals)},
            n_iter=[None] * len(vals),
            converged=[None] * len(vals),
            failures=failures,
        )
    n_examples = max((s.n_train + s.n_test for s in splits), default=0)
    return records.EvaluationResult(
        dataset=d,
        task="table",
        n_examples=n_examples,
        scheme=_scheme(table, d, kind),
        metrics=[metric],
        primary_metric=metric,
        greater_is_better={metric: hib},
        splits=splits,
        models=models,
    )


def replicate_records(table: ScoreTable, d: str, metric: str, hib: bool) -> records.EvaluationResult:
    """Every replicate of dataset ``d`` as the table gives it: seeds, or cross-validation splits."""
    sizes = table.sizes.get(d) or [(None, None)] * len(table.replicates[d])
    if table.kind == "fold":
        repeats = table.repeat_of(d)
        index = {r: i for i, r in enumerate(dict.fromkeys(repeats))}
        fold_at = table.replicate_columns.index("fold")
        splits = [
            records.Replicate(
                index=i,
                kind="split",
                n_train=int(n_tr or 0),
                n_test=int(n_te or 0),
                repeat=index[repeats[i]],
                fold=_fold_number(rep[fold_at], i),
            )
            for i, (rep, (n_tr, n_te)) in enumerate(zip(table.replicates[d], sizes))
        ]
    else:
        splits = [
            records.Replicate(index=i, kind="seed", n_train=int(n_tr or 0), n_test=int(n_te or 0), seed=i)
            for i, (n_tr, n_te) in enumerate(sizes)
        ]
    return _evaluation(table, d, metric, hib, table.cells[d], splits)


def _fold_number(label: str, default: int) -> int:
    try:
        return int(float(label))
    except ValueError:
        return default


def repeat_records(table: ScoreTable, d: str, metric: str, hib: bool) -> records.EvaluationResult:
    """Dataset ``d``'s repeats of cross-validation as independent replicates: each repeat's mean over its folds
    (None where a fold is missing), paired by repeat -- the records of the conditional question."""
    repeats = table.repeat_of(d)
    order = list(dict.fromkeys(repeats))
    scores = {}
    for m, vals in table.cells[d].items():
        per = []
        for r in order:
            v = [x for x, rr in zip(vals, repeats) if rr == r]
            per.append(None if any(x is None for x in v) else float(np.mean(np.asarray(v, dtype=np.float64))))
        scores[m] = per
    splits = [records.Replicate(index=i, kind="seed", n_train=0, n_test=0, seed=i) for i in range(len(order))]
    return _evaluation(table, d, metric, hib, scores, splits)


# ------------------------------------------------------------------------------------------- questions
def _per_dataset_plan(table: ScoreTable, fold_test: str) -> dict:
    """What the replicates allow: ``{"replicates": "seed" | "repeat" | "fold", "question", "statement"}``."""
    if designs.independent_replicates(table.kind):
        return {
            "replicates": "seed",
            "question": "these data",
            "statement": "on each dataset, is one model better than another on this dataset's data, over the "
            "independent runs paired by run? A claim about this dataset as these runs used it, not about other "
            "datasets of its size.",
        }
    repeats = {d: len(set(table.repeat_of(d))) for d in table.datasets}
    if fold_test == "conditional" or (fold_test == "auto" and min(repeats.values()) >= 2):
        return {
            "replicates": "repeat",
            "question": "this dataset",
            "statement": "on each dataset, is one model better than another on this dataset, over random partitions "
            "into folds? Each repeat's mean over its folds is one independent replicate, paired by repeat: a claim "
            "about this dataset (the conditional question), not about other datasets of its size.",
        }
    return {
        "replicates": "fold",
        "question": "resampling",
        "statement": "on each dataset, is one model better than another over the cross-validation splits? The "
        "corrected resampled t-test's n_test/n_train term stands in for the data-sampling variance, a heuristic "
        "that is liberal for unstable learners (1-NN, deep trees): a pointer, not a finding about other datasets.",
    }


def _withheld_reason(cv: records.EvaluationResult, plan: dict, cfg: dict, table: ScoreTable, d: str) -> str | None:
    """Why no test can run on this dataset's replicates, or None."""
    from ...stats import registry

    n = len(cv.splits)
    k = len(engine.testable_models(cv))
    m = k * (k - 1) // 2
    if k < 2:
        return "fewer than two models have a score on every replicate"
    if plan["replicates"] == "fold":
        sizes = table.sizes.get(d) or []
        if not sizes or any(a is None or b is None for a, b in sizes):
            return (
                "the corrected resampled t-test needs the sizes of every split (columns n_train and n_test); "
                "give them, or two or more repeats for the conditional question"
            )
        if n < 2:
            return f"only {n} split"
        return None
    test = cfg["replicate_test"]
    what = "repeats" if plan["replicates"] == "repeat" else "replicates"
    need = registry.replicates_needed(test, float(cfg["alpha"]), max(m, 1), cfg["correction"])
    if n < need:
        after = "" if cfg["correction"] == "none" or m <= 1 else f" after {cfg['correction']} over {m} pairs"
        return (
            f"only {n} {what}: the {registry.label(test)} needs at least {need} to reach alpha = "
            f"{float(cfg['alpha']):g}{after}"
        )
    return None


def _dataset_result(table: ScoreTable, d: str, metric: str, hib: bool, cfg: dict, plan: dict) -> dict:
    full = replicate_records(table, d, metric, hib)
    cv = repeat_records(table, d, metric, hib) if plan["replicates"] == "repeat" else full
    entry: dict = {
        "replicates": plan["replicates"],
        "question": plan["question"],
        "n_replicates": len(cv.splits),
        "n_scores": len(full.splits),
    }
    reason = _withheld_reason(cv, plan, cfg, table, d)
    if reason is None:
        rows, bayes = engine.compare_replicates(cv, cfg)
        tests = sorted({r["test"] for r in rows})
        entry.update(ran=True, reason=None, test=tests[0] if len(tests) == 1 else "per pair", cv=rows, bayesian=bayes)
    else:
        entry.update(ran=False, reason=reason, test=None, cv=[], bayesian=[])
    entry["no_score"] = sorted(set(cv.models) - set(engine.testable_models(cv)))
    return entry


# ------------------------------------------------------------------------------------------- the analysis
def analyse(
    data,
    *,
    higher_is_better: bool | None = None,
    metric: str | None = None,
    columns: Mapping[str, str] | None = None,
    fold_test: str = "auto",
    seed: int = 0,
    **stats_settings,
) -> dict:
    """The whole comparison of a score table as plain data (the JSON ``replearn compare`` writes); see the module
    docstring for the questions and :func:`settings_of` for ``stats_settings``."""
    if fold_test not in FOLD_TESTS:
        raise TableError(f"fold_test must be one of {', '.join(FOLD_TESTS)}, got {fold_test!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise TableError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    table = data if isinstance(data, ScoreTable) else read_table(data, metric=metric, columns=columns)
    hib = resolve_direction(table, higher_is_better)
    cfg = settings_of(**stats_settings)
    control = cfg["control"]
    if control is not None and control not in table.models:
        raise TableError(f"--control {control!r} is not a model of the table ({', '.join(table.models)})")
    name = table.metric or "score"
    datasets, models = sorted(table.datasets), sorted(table.models)
    if table.kind == "none":  # one score per cell: the table is its means (np.mean of one value is that value)
        full = {}
        means = np.array([[_one(table.cells[d][m]) for m in models] for d in datasets], dtype=np.float64)
    else:  # the replicates as the crossval stage records them, and their means as the stage takes them
        full = {d: replicate_records(table, d, name, hib) for d in datasets}
        means = engine.score_table(full, datasets, models, name)
    across = engine.across_datasets(means, datasets, models, metric=name, higher_is_better=hib, cfg=cfg, option=_option)
    pairs = engine.across_pairs(
        means, datasets, models, metric=name, higher_is_better=hib, cfg=cfg, seed=int(seed), option=_option
    )
    per_dataset: dict[str, dict] = {}
    plan = None
    if table.kind != "none":
        plan = _per_dataset_plan(table, fold_test)
        per_dataset = {d: _dataset_result(table, d, name, hib, cfg, plan) for d in datasets}
    sd = (
        {d: {m: _sd(full[d].models[m].scores[name]) for m in models} for d in datasets}
        if table.kind != "none"
        else None
    )
    result = {
        "producer": "replearn compare",
        "schema_version": SCHEMA_VERSION,
        "input": {
            "source": table.source,
            "layout": table.layout,
            "rows": table.n_rows,
            "metric": name,
            "higher_is_better": hib,
            "datasets": list(table.datasets),
            "models": list(table.models),
            "n_datasets": len(table.datasets),
            "n_models": len(table.models),
            "replicates": table.kind,
            "replicate_columns": list(table.replicate_columns),
            "n_replicates": {d: len(table.replicates[d]) for d in datasets},
            "missing": [[d, m, n] for d, m, n in table.missing()],
            "n_missing": len(table.missing()),
        },
        "settings": {
            **{k: cfg[k] for k in ("alpha", "correction", "posthoc", "control", "min_datasets", "across_pairs_test")},
            **{k: cfg[k] for k in ("bayesian", "rope", "rope_scale", "replicate_test", "round_before_ranking")},
            "fold_test": fold_test,
            "seed": int(seed),
        },
        "means": {
            "datasets": datasets,
            "models": models,
            "scores": engine._nan_to_none(means),
            "sd": None if sd is None else [[sd[d][m] for m in models] for d in datasets],
        },
        "across_datasets": across,
        "across_pairs": pairs,
        "per_dataset": per_dataset,
        "questions": _questions(table, across, pairs, plan, per_dataset),
    }
    from ..report.matrix import pairwise_matrix

    result["matrix"] = pairwise_matrix(across, pairs, cfg["alpha"])
    result["summary"] = _summary(result)
    from ...stats.bibliography import references_of
    from .methods import methods, procedures_used

    result["methods"] = methods(result)
    used = procedures_used(result)
    result["procedures"] = used
    result["references"] = references_of(used)
    return result


def _summary(result: dict) -> dict:
    """The counts the methods paragraph states, each derived here from the rows above it."""
    across, pairs = result["across_datasets"], result["across_pairs"]
    ph = across.get("posthoc") or {}
    comparisons = ph.get("comparisons") or [] if ph.get("ran") else []
    rows = [r for r in pairs.get("rows") or [] if r.get("pvalue") is not None]
    bayes = [r["bayesian_signed_rank"] for r in rows if r.get("bayesian_signed_rank")]
    ranks = across.get("average_ranks") or {}
    best = min(ranks, key=lambda m: (ranks[m], m)) if ranks else None
    tests = [r for e in result["per_dataset"].values() for r in e.get("cv") or [] if r.get("pvalue") is not None]
    per_bayes = [r for e in result["per_dataset"].values() for r in e.get("bayesian") or []]
    return {
        "n_imputed": len(across.get("imputed_worst_rank") or []),
        "best_average_rank": None if best is None else {"model": best, "rank": ranks[best]},
        "friedman_significant": across.get("significant") if across.get("ran") else None,
        "posthoc_pairs": len(comparisons),
        "posthoc_significant": sum(bool(c.get("significant")) for c in comparisons),
        "across_pairs_tested": len(rows),
        "across_pairs_significant": sum(bool(r.get("significant")) for r in rows),
        "bayesian_pairs": len(bayes),
        "bayesian_better": sum(b.get("decision") in ("a_better", "b_better") for b in bayes),
        "bayesian_equivalent": sum(b.get("decision") == "equivalent" for b in bayes),
        "per_dataset_tests": len(tests),
        "per_dataset_significant": sum(bool(r.get("significant")) for r in tests),
        "per_dataset_bayesian_pairs": len(per_bayes),
        "per_dataset_bayesian_better": sum(r.get("decision") in ("a_better", "b_better") for r in per_bayes),
        "per_dataset_bayesian_equivalent": sum(r.get("decision") == "equivalent" for r in per_bayes),
    }


def _one(values: list) -> float:
    (value,) = values
    return float("nan") if value is None else float(value)


def _sd(values) -> float | None:
    vals = [v for v in values if v is not None]
    if len(vals) != len(values) or len(vals) < 2:
        return None
    return float(np.std(np.asarray(vals, dtype=np.float64), ddof=1))


def _questions(table: ScoreTable, across: dict, pairs: dict, plan: dict | None, per_dataset: dict) -> list[dict]:
    """The questions the input allows, each with what is claimed and whether it was answered."""
    n, k = len(table.datasets), len(table.models)
    out = [
        {
            "question": "across datasets",
            "statement": f"over the N = {n} datasets, do the {k} models perform differently, and which pairs differ? "
            "Each dataset is one observation (its mean score per model): a claim about datasets like these, "
            "not about any one of them.",
            "asked": True,
            "answered": bool(across.get("ran")) or bool(pairs.get("ran")),
            "reason": None if across.get("ran") else across.get("reason"),
        }
    ]
    if plan is not None:
        ran = [d for d, e in per_dataset.items() if e["ran"]]
        reasons = sorted({e["reason"] for e in per_dataset.values() if not e["ran"]})
        out.append(
            {
                "question": "per dataset",
                "statement": plan["statement"][0].upper() + plan["statement"][1:],
                "asked": True,
                "answered": bool(ran),
                "datasets_tested": len(ran),
                "reason": "; ".join(reasons) or None,
            }
        )
    else:
        out.append(
            {
                "question": "per dataset",
                "statement": "Not asked: the table holds one score per dataset and model, and one score cannot tell "
                "a difference from noise on its dataset (give the replicates: seed, or repeat and fold columns).",
                "asked": False,
                "answered": False,
                "datasets_tested": 0,
                "reason": "one score per dataset and model",
            }
        )
    return out
