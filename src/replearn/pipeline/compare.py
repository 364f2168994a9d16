"""Choose and run the significance tests for an experiment's results (the significance stage).

The tests follow the design of the comparison (docs/statistics.md, "Which test when"):

* **Two models on one dataset** -- every pair of models, on the per-split cross-validation scores
  of the primary metric: ``stats.pairwise_test`` ("auto": Dietterich's 5x2cv t-test for the 5x2
  scheme, else the corrected resampled t-test of Nadeau & Bengio 2003), p-values adjusted over
  the pairs by ``stats.correction``; with ``stats.bayesian`` also the Bayesian correlated t-test
  (probabilities of "A better", "practically equivalent" within ``stats.rope``, "B better"; the
  ROPE is in score units, or with ``stats.rope_scale: relative`` a fraction of the pair's mean
  score -- for metrics such as MSE whose scale differs between datasets).
  On the sealed test set: McNemar's test (classification) and ``stats.test_set_metric_test``
  (a paired permutation or bootstrap test of the primary metric on the predictions, any task).
* **Two models on many datasets** -- every pair, over the datasets' mean CV scores:
  ``stats.across_pairs_test`` (Wilcoxon signed-rank by default, or the sign test; Demsar 2006
  §3.1), adjusted over the pairs, plus the Bayesian signed-rank test.
* **Many models on many datasets** (>= 2 datasets, >= 3 models): Friedman's test with the
  Iman-Davenport F, the Nemenyi critical difference for the CD diagram, and the post-hoc
  procedure ``stats.posthoc`` on the average ranks (all pairs, or against ``stats.control``).

The analyses over datasets are functions of a plain score table (datasets x models, NaN for a missing score):
:func:`across_datasets` and :func:`across_pairs`; the stage calls them on the mean CV scores (:func:`score_table`,
through :func:`compare_across` and :func:`compare_across_pairs`), ``replearn compare`` (:mod:`.tables`) on a table
it is given, so both give the same numbers for the same table. One dataset's pairs over its replicates are
:func:`compare_replicates` (:func:`compare_cv` and :func:`compare_bayesian`), which ``replearn compare`` calls on
records built from a table's replicates.

The resampling tests (permutation, bootstrap, Bayesian signed-rank) draw from seeds derived from
the cross-validation seed recorded in the results, so reruns give identical numbers.

Failed fits (``cv.on_error: record``; docs/statistics.md, "Failed fits") never enter a verdict silently:

* **per dataset**, a pair is tested on the replicates where both models' fits succeeded, and the row counts the
  others (``dropped_replicates``); a model without one successful fit is left out of that dataset's tests
  (``no_successful_fit``); Dietterich's 5x2cv tests need all ten splits, so a pair with a dropped one is not tested;
* **across datasets**, a model with a failed fit on a dataset has no mean there: for Friedman, the post-hoc
  procedure and the CD diagram it takes that dataset's worst rank (several such models tie at the worst ranks,
  sharing their average), which penalises a model that cannot finish as AMLB's constant-predictor imputation
  does; the Wilcoxon / sign test and the Bayesian signed-rank test of a pair
  drop the datasets where either model has no mean, and count them (``dropped_datasets``).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from .. import stats
from ..stats import registry
from ..stats.registry import is_significant
from . import designs, records
from .seeding import derive_seed
from .sequential import compare_cv_sequential, complete, sequential_plan
from .verdicts import add_detectable, gate_sealed_tests

MAX_K_BERGMANN_HOMMEL = 10
_DECOMPOSABLE = {  # metric -> per-example score whose mean is the metric
    "accuracy": lambda y, p: (y == p).astype(float),
    "error": lambda y, p: (y != p).astype(float),
    "mse": lambda y, p: (np.asarray(y, float) - np.asarray(p, float)) ** 2,
    "mae": lambda y, p: np.abs(np.asarray(y, float) - np.asarray(p, float)),
}

DEFAULTS = {  # settings added after the first schema; absent keys take these values
    "bayesian": True,
    "rope": 0.01,
    "rope_scale": "absolute",
    "test_set_metric_test": "permutation",
    "resamples": 1999,
    "across_pairs_test": "wilcoxon",
    "posthoc": "bergmann_hommel",
    "min_datasets": 5,
    "replicate_test": "replicate_ttest",
    "control": None,
    "round_before_ranking": None,
}


def _one_problem(cv: records.EvaluationResult) -> bool:
    """Whether every replicate of ``cv`` is on one problem whatever its design (a family's seeds)."""
    return cv.problem_kind.one_problem


def settings(cfg: dict) -> dict:
    """The ``stats`` config with defaults filled in (for absent keys, and for null where null has no meaning)."""
    out = {**DEFAULTS, **cfg}
    for k, v in DEFAULTS.items():
        if out[k] is None and v is not None:
            out[k] = v
    return out


def question(cv: records.EvaluationResult) -> str:
    """What a verdict on this dataset answers: ``"population"`` (another dataset of this size from the same
    distribution: the records carry the half-sampling fits that estimate the data-sampling variance),
    ``"split"`` (seeds on one fixed held-out part: these training and held-out examples only), ``"problem"``
    (an experiment family: this problem, over seeds) or ``"resampling"`` (resampling splits without
    half-sampling: the corrected resampled t-test's heuristic stands in for the data-sampling variance)."""
    return designs.of_record(cv).question(
        one_problem=_one_problem(cv), variance=bool(cv.variance), resampled=resampled_split(cv)
    )


def resampled_split(cv: records.EvaluationResult) -> bool:
    """Whether seed replicates were scored on different held-out parts (``design.resample_split: true``): their
    training sets overlap like repeated hold-out splits, so a paired t over them would be Dietterich's resampled
    t (far too liberal); without half-sampling they get the corrected resampled t-test instead."""
    parts = {tuple(s.test_index) for s in cv.splits if s.test_index is not None}
    return len(parts) > 1


def resolve_test(cfg: dict, cv: records.EvaluationResult) -> str:
    """The per-dataset test for the design.

    * records with half-sampling fits (design=cv, seeds with ``resample_split``, sweeps over cv replicates):
      ``half_sampling_ttest`` under ``pairwise_test: auto`` -- the population question;
    * independent replicates on one held-out part (seeds): ``stats.replicate_test`` (paired by seed) -- the
      question "on this held-out part";
    * splits of resampling without half-sampling: :func:`resolve_pairwise_test`.
    """
    cfg = settings(cfg)
    facts = dict(one_problem=_one_problem(cv), variance=bool(cv.variance), resampled=resampled_split(cv))
    return designs.of_record(cv).test(cfg, scheme=cv.scheme.name, **facts)


resolve_pairwise_test = designs.resolve_pairwise_test  # the design module's rule (re-exported: the stage's API)


def half_scores(cv: records.EvaluationResult, metric: str, point=None) -> dict[str, np.ndarray | None]:
    """Per model, the (subsamples, repeats) inner scores of half-sampling at ``point`` (None: not a sweep): the
    mean over each inner repeat's folds. A model with a missing score gets None."""
    var = cv.variance or {}
    reps = var.get("replicates") or []
    b, r = int(var.get("subsamples") or 0), int(var.get("repeats") or 0)
    idx = [i for i, rep in enumerate(reps) if rep.get("point") == point]
    out: dict[str, np.ndarray | None] = {}
    for key, scores in (var.get("models") or {}).items():
        vals = scores.get(metric)
        if vals is None or not idx or any(vals[i] is None for i in idx):
            out[key] = None
            continue
        total, count = np.zeros((b, r)), np.zeros((b, r))
        for i in idx:
            total[reps[i]["subsample"], reps[i]["repeat"]] += float(vals[i])
            count[reps[i]["subsample"], reps[i]["repeat"]] += 1
        out[key] = total / np.maximum(count, 1)
    return out


def _repeat_ids(cv: records.EvaluationResult) -> np.ndarray | None:
    """The repeat of each split (folds of one repeat share it); None for independent replicates (seeds, or
    one hold-out per replicate)."""
    return designs.repeat_groups(cv.splits, _replicates_of(cv))


def pair_test(cv: records.EvaluationResult, cfg: dict, test: str, sa, sb, a: str, b: str, half=None):
    """The configured test of models ``a`` and ``b`` (scores ``sa``, ``sb``) on the records ``cv``."""
    func = registry.get(test).func  # the registry names the function of every configured test
    if test == "half_sampling_ttest":
        half = half if half is not None else half_scores(cv, cv.primary_metric)
        if half.get(a) is None or half.get(b) is None:
            raise ValueError(f"no half-sampling scores of {a!r} and {b!r} on {cv.dataset!r}")
        var = cv.variance or {}
        return func(
            sa,
            sb,
            half_a=half[a],
            half_b=half[b],
            n_examples=int(var["n_examples"]),
            subsample_size=int(var["subsample_size"]),
            repeat=_repeat_ids(cv),
        )
    if test == "corrected_resampled_ttest":
        n_train = np.array([s.n_train for s in cv.splits], dtype=np.float64)
        n_test = np.array([s.n_test for s in cv.splits], dtype=np.float64)
        return func(sa, sb, n_train, n_test)
    if test.startswith("cv52"):
        order = _split_order(cv)  # Dietterich's statistic reads the splits repeat by repeat
        return func(sa[order], sb[order])
    return func(sa, sb)


def _adjust(pvalues: list[float], correction: str) -> tuple[list[float], str]:
    """Adjusted p-values and the procedure used (Bergmann-Hommel falls back to Shaffer above k = 10)."""
    if not pvalues:
        return [], correction
    if correction in ("shaffer", "bergmann_hommel"):
        m = len(pvalues)
        k = int(round((1 + np.sqrt(1 + 8 * m)) / 2))
        if correction == "bergmann_hommel" and k > MAX_K_BERGMANN_HOMMEL:
            correction = "shaffer"
    return [float(p) for p in stats.adjust(pvalues, correction)], correction


def _winner(a: str, b: str, diff: float, significant: bool, higher_is_better: bool) -> str | None:
    if not significant or diff == 0:
        return None
    return a if (diff > 0) == higher_is_better else b


def _split_order(cv: records.EvaluationResult) -> np.ndarray:
    """Split positions sorted by (repeat, fold): the 5 x 2 layout the cv52 tests need."""
    return np.array(sorted(range(len(cv.splits)), key=lambda i: (cv.splits[i].repeat, cv.splits[i].fold)))


def testable_models(cv: records.EvaluationResult) -> list[str]:
    """The models with at least one successful fit on the primary metric (sorted): the others are left out of
    the dataset's pairwise tests (a failed fit's scores are None)."""
    metric = cv.primary_metric
    return sorted(k for k, m in cv.models.items() if any(v is not None for v in m.scores[metric]))


def pair_view(cv: records.EvaluationResult, a: str, b: str) -> tuple[records.EvaluationResult, int]:
    """The records of models ``a`` and ``b`` on the replicates where both fits succeeded, and how many replicates
    were dropped (0: ``cv`` itself). The half-sampling fits are kept as they are (a failure there leaves no
    ``variance`` at all)."""
    metric = cv.primary_metric
    sa, sb = cv.models[a].scores[metric], cv.models[b].scores[metric]
    keep = [i for i in range(len(cv.splits)) if sa[i] is not None and sb[i] is not None]
    if len(keep) == len(cv.splits):
        return cv, 0
    splits = [dataclasses.replace(cv.splits[i], index=j) for j, i in enumerate(keep)]
    models = {}
    for k in (a, b):
        m = cv.models[k]
        models[k] = dataclasses.replace(
            m,
            scores={met: [v[i] for i in keep] for met, v in m.scores.items()},
            n_iter=[m.n_iter[i] for i in keep],
            converged=[m.converged[i] for i in keep],
            correct=None if m.correct is None else [m.correct[i] for i in keep],
            curves=None if m.curves is None else [m.curves[i] for i in keep],
            extras=None if m.extras is None else [m.extras[i] for i in keep],
            failures=[],
        )
    return dataclasses.replace(cv, splits=splits, models=models), len(cv.splits) - len(keep)


def _sizes(cv: records.EvaluationResult, what: str) -> np.ndarray:
    return np.array([getattr(s, what) for s in cv.splits], dtype=np.float64)


def compare_cv(cv: records.EvaluationResult, cfg: dict) -> list[dict]:
    """Pairwise tests on one dataset's cross-validation scores. On a sweep's best-point view
    (:func:`best_point_view`) the rows are those of :func:`compare_sweep_models`: the choice of the best points
    is redone inside the null."""
    cfg = settings(cfg)
    metric = cv.primary_metric
    hib = cv.greater_is_better[metric]
    test = resolve_test(cfg, cv)
    if (
        test == "half_sampling_ttest"
        and sequential_plan(cv)
        and complete(cv)
        and getattr(cv, "_sweep_origin", None) is None
    ):
        return compare_cv_sequential(cv, cfg)  # the subsets were run in planned looks (pipeline/sequential.py)
    half = half_scores(cv, metric) if test == "half_sampling_ttest" else None
    rows: list[dict] = []
    for a, b in itertools.combinations(testable_models(cv), 2):
        pv, dropped = pair_view(cv, a, b)
        sa = np.asarray(pv.models[a].scores[metric], dtype=np.float64)
        sb = np.asarray(pv.models[b].scores[metric], dtype=np.float64)
        note = None
        if dropped and sa.size < 2:
            note = f"not testable: {dropped} replicate(s) dropped for failed fits leave {sa.size}"
        elif dropped and test.startswith("cv52"):
            note = f"not testable: Dietterich's 5x2cv test needs all ten splits, {dropped} dropped for failed fits"
        elif (
            test != "half_sampling_ttest" and designs.independent_replicates(cv.replicate_kind) and np.ptp(sa - sb) == 0
        ):
            note = (
                "identical scores on every replicate (they reach the same result whatever the seed): "
                "there is nothing to test"
                if np.array_equal(sa, sb)
                else "not testable: every replicate gives the same difference on this held-out "
                "part (the models do not depend on their seed); use design=cv for a comparison over "
                "datasets"
            )
        if note is not None:
            rows.append(
                {
                    "model_a": a,
                    "model_b": b,
                    "mean_a": float(sa.mean()) if sa.size else None,
                    "mean_b": float(sb.mean()) if sb.size else None,
                    "mean_difference": float(sa.mean() - sb.mean()) if sa.size else None,
                    "test": test,
                    "statistic": None,
                    "df": None,
                    "pvalue": None,
                    "effect_size": None,
                    "effect_size_name": None,
                    "ci": None,
                    "conventions": {},
                    "note": note,
                    "dropped_replicates": dropped,
                }
            )
            continue
        res = pair_test(pv, cfg, test, sa, sb, a, b, half)
        d = res.to_dict()
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "mean_a": float(sa.mean()),
                "mean_b": float(sb.mean()),
                "mean_difference": float(sa.mean() - sb.mean()),
                "dropped_replicates": dropped,
                "test": test,
                "statistic": _finite(d["statistic"]),
                "df": d["df"],
                "pvalue": d["pvalue"],
                "effect_size": d["effect_size"],
                "effect_size_name": d["effect_size_name"],
                "ci": d["ci"],
                "conventions": d["conventions"],
                "standard_error": d["extra"].get("standard_error"),
                "between_share": d["extra"].get("between_share"),
            }
        )
    _finish_rows(rows, cfg, hib)
    add_detectable(rows, cfg)  # what a "not significant" could have found (verdicts.py)
    origin = getattr(cv, "_sweep_origin", None)
    if origin is not None:
        rows = compare_sweep_models(origin[0], origin[1], rows, cfg)
    return rows


def compare_bayesian(cv: records.EvaluationResult, cfg: dict) -> list[dict]:
    """Bayesian correlated t-test for every pair (Benavoli et al. 2017), when ``stats.bayesian``. On a sweep's
    best-point view a "better" verdict stands only where the selection-aware test names the same winner."""
    cfg = settings(cfg)
    if not cfg["bayesian"]:
        return []
    metric = cv.primary_metric
    hib = cv.greater_is_better[metric]
    independent = designs.independent_replicates(_replicates_of(cv)) and (
        _one_problem(cv) or not resampled_split(cv)  # one held-out part
    )
    test = resolve_test(cfg, cv)
    half = half_scores(cv, metric) if test == "half_sampling_ttest" else None
    rows = []
    for a, b in itertools.combinations(testable_models(cv), 2):
        pv, dropped = pair_view(cv, a, b)
        sa = np.asarray(pv.models[a].scores[metric], dtype=np.float64)
        sb = np.asarray(pv.models[b].scores[metric], dtype=np.float64)
        if dropped and sa.size < 2:
            continue  # not testable (the frequentist row says why)
        rope = _rope(cfg, np.r_[sa, sb])
        if half is not None:  # the frequentist test's standard error and df: one variance for both analyses
            t = pair_test(pv, cfg, test, sa, sb, a, b, half)
            r = stats.bayesian_t_posterior(
                float(np.mean(sa - sb)), t.extra["standard_error"], t.df, rope=rope, source="half-sampling"
            ).to_dict()
            r["extra"]["rho"] = None
        else:
            kw = {"rho": 0.0} if independent else {"n_train": _sizes(pv, "n_train"), "n_test": _sizes(pv, "n_test")}
            r = stats.bayesian_correlated_ttest(sa, sb, rope=rope, **kw).to_dict()
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "dropped_replicates": dropped,
                "test": r["test"],
                "rope": r["rope"],
                "p_a_better": r["p_right"] if hib else r["p_left"],
                "p_equivalent": r["p_rope"],
                "p_b_better": r["p_left"] if hib else r["p_right"],
                "posterior_mean": r["posterior_mean"],
                "credible_interval": r["credible_interval"],
                "rho": r["extra"]["rho"],
            }
        )
    bayesian_decisions(rows, cfg)
    if getattr(cv, "_sweep_origin", None) is not None:  # best points chosen on these replicates
        _nest_bayesian(rows, compare_cv(cv, cfg))
    return rows


def compare_replicates(cv: records.EvaluationResult, cfg: dict, *, gate=None) -> tuple[list[dict], list[dict]]:
    """One dataset's pairs over its replicates: the frequentist rows (:func:`compare_cv`) and the Bayesian ones
    (:func:`compare_bayesian`), a Bayesian "better" standing only where the frequentist row names the same winner.
    ``gate(rows)`` runs on the frequentist rows before the Bayesian rows are checked against them (the stage's
    sealed tests gated by the cross-validation verdict, :func:`~.verdicts.gate_sealed_tests`). The significance
    stage and ``replearn compare`` (on a table's replicates, which has no sealed test set) both call it."""
    rows = compare_cv(cv, cfg)
    if gate is not None:
        gate(rows)
    bayes = compare_bayesian(cv, cfg)
    _nest_bayesian(bayes, rows)
    return rows, bayes


def bayesian_decisions(rows: list[dict], cfg: dict) -> None:
    """The Bayesian verdict of every pair, with the same multiplicity control as the p-values.

    A pair is "practically better" for one model when the posterior probability of the other side, doubled
    (two directions) and adjusted over the pairs by ``stats.correction``, is at most alpha; with one pair this
    is ``P(better) >= 1 - alpha/2`` (0.975). Since the ROPE only moves mass away from "better", a practically
    better verdict implies the frequentist test's (same standard error, same correction), so the report never
    prints a Bayesian winner under a null more often than the test it stands beside. "Practically equivalent"
    needs ``P(ROPE) >= 1 - alpha`` (0.95). Adds ``p_decision`` (adjusted), ``decision`` ("a_better",
    "b_better", "equivalent", "undecided") and ``decision_rule`` to each row.
    """
    alpha = float(cfg["alpha"])
    raw = [min(1.0, 2.0 * (1.0 - max(r["p_a_better"], r["p_b_better"]))) for r in rows]
    adjusted, used = _adjust(raw, cfg["correction"])
    for r, p in zip(rows, adjusted):
        r["p_decision"] = p
        if is_significant(p, alpha):
            r["decision"] = "a_better" if r["p_a_better"] >= r["p_b_better"] else "b_better"
        elif r["p_equivalent"] >= 1.0 - alpha:
            r["decision"] = "equivalent"
        else:
            r["decision"] = "undecided"
        r["decision_rule"] = (
            f"better: 2(1 - P(better)) <= {alpha:g} after {used} over {len(rows)} pair(s); "
            f"equivalent: P(ROPE) >= {1 - alpha:g}"
        )


def _finite(value):
    """A statistic for strict JSON: an infinite one (zero variance of the differences) becomes None."""
    return value if isinstance(value, (int, float)) and np.isfinite(value) else None


def _rope(cfg: dict, scores: np.ndarray) -> float:
    """The ROPE half-width in score units: ``rope``, or ``rope`` times the pair's mean |score| (relative)."""
    if cfg["rope_scale"] == "relative":
        return float(cfg["rope"]) * float(np.mean(np.abs(scores)))
    return float(cfg["rope"])


def role_function(role: str, name: str):
    """The function of the registered test ``name`` of ``role`` (:mod:`replearn.stats.registry`): every test a
    command runs is dispatched here, so a registered test either runs or is refused by the configuration (whose
    choices are the registry's names of the role), never replaced by another one."""
    proc = registry.get(name)
    if proc.role != role:
        raise ValueError(f"{name!r} is a {proc.role} procedure, not a {role} one")
    return proc.func


def _final_fits(train_results: records.TrainResult) -> dict[str, records.TrainedModel]:
    """The models whose final fit succeeded (a failed one has no test-set predictions to compare)."""
    return {k: m for k, m in train_results.models.items() if m.failure is None}


def compare_test_set(train_results: records.TrainResult, cfg: dict) -> list[dict]:
    """McNemar's test for every pair of models on the sealed test part (classification only)."""
    cfg = settings(cfg)
    if train_results.task != "classification" or cfg["test_set_test"] == "none":
        return []
    models = _final_fits(train_results)
    test = role_function("test_set", cfg["test_set_test"])
    rows = []
    for a, b in itertools.combinations(sorted(models), 2):
        ca = np.asarray(models[a].correct, dtype=bool)
        cb = np.asarray(models[b].correct, dtype=bool)
        res = test(ca, cb, method=cfg["mcnemar_method"]).to_dict()
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "test": cfg["test_set_test"],
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


def compare_test_set_metric(train_results: records.TrainResult, metric: str, cfg: dict, *, seed: int = 0) -> dict:
    """A paired permutation or bootstrap test of the primary ``metric`` on the sealed test predictions.

    Decomposable metrics (accuracy, error, mse, mae) are tested as the mean of per-example scores;
    any other label metric (e.g. f1_macro) is recomputed on every resample.  Returns
    ``{"ran", "reason", "test", "metric", "n_resamples", "rows"}``.
    """
    from ..evaluation.metrics import METRICS  # here: the registry imports every metric and curve

    cfg = settings(cfg)
    kind = cfg["test_set_metric_test"]
    problem = train_results.problem_kind
    if not problem.sealed_test:
        return {
            "ran": False,
            "reason": f"a {problem.name} problem has no sealed test set: its units are compared over "
            f"{problem.replicates}",
            "rows": [],
        }
    if kind == "none":
        return {"ran": False, "reason": "switched off (stats.test_set_metric_test: none)", "rows": []}
    if metric not in METRICS:
        return {"ran": False, "reason": f"{metric} scores a fitted model, not its test-set predictions", "rows": []}
    if METRICS[metric].needs != "label":
        return {
            "ran": False,
            "reason": f"{metric} needs probabilities or scores, which the train stage does not keep",
            "rows": [],
        }
    models = _final_fits(train_results)
    if any(m.pred is None for m in models.values()):
        return {"ran": False, "reason": "the train results hold no test-set predictions", "rows": []}
    y = np.asarray(train_results.y_true)
    hib = METRICS[metric].greater_is_better
    n_resamples = int(cfg["resamples"])
    test = role_function("test_set_metric", kind)
    rows = []
    for a, b in itertools.combinations(sorted(models), 2):
        pa, pb = np.asarray(models[a].pred), np.asarray(models[b].pred)
        s = derive_seed(seed, "test_set_metric", train_results.dataset, a, b)  # by names, never order
        if metric in _DECOMPOSABLE:
            per = _DECOMPOSABLE[metric]
            res = test(per(y, pa), per(y, pb), n_resamples=n_resamples, seed=s)
        else:
            res = test(pa, pb, y_true=y, metric=metric, n_resamples=n_resamples, seed=s)
        score_a = float(METRICS[metric].func(y, pa, None))
        score_b = float(METRICS[metric].func(y, pb, None))
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "test": res.test,
                "score_a": score_a,
                "score_b": score_b,
                "mean_difference": score_a - score_b,
                "statistic": float(res.statistic),
                "pvalue": float(res.pvalue),
                "method": res.conventions.get("method", "bootstrap"),
                "seed": int(s),
            }
        )
    _finish_rows(rows, cfg, hib)
    return {"ran": True, "reason": None, "test": kind, "metric": metric, "n_resamples": n_resamples, "rows": rows}


def _finish_rows(rows: list[dict], cfg: dict, higher_is_better: bool) -> None:
    """Adjust the p-values over the testable rows and decide; an untestable row (p None) is never significant."""
    testable = [r for r in rows if r["pvalue"] is not None]
    for r in rows:
        if r["pvalue"] is None:
            r.update(pvalue_adjusted=None, significant=False, winner=None)
    rows = testable
    adjusted, used = _adjust([r["pvalue"] for r in rows], cfg["correction"])
    for r, p in zip(rows, adjusted):
        r["pvalue_adjusted"] = p
        r["significant"] = is_significant(p, cfg["alpha"])
        r["winner"] = _winner(r["model_a"], r["model_b"], r["mean_difference"], r["significant"], higher_is_better)
        if used != cfg["correction"]:
            r["correction_used"] = used


def _common(crossval: dict[str, records.EvaluationResult]):
    datasets = sorted(crossval)
    model_sets = [set(crossval[d].models) for d in datasets]
    common = sorted(set.intersection(*model_sets)) if model_sets else []
    metrics = {crossval[d].primary_metric for d in datasets}
    return datasets, common, metrics


def score_table(
    crossval: dict[str, records.EvaluationResult], datasets: list[str], models: list[str], metric: str
) -> np.ndarray:
    """The mean score of each model (column) on each dataset (row); NaN where a fit failed (no mean)."""
    return np.array([[_dataset_mean(crossval[d].models[m].scores[metric]) for m in models] for d in datasets])


def _dataset_mean(values) -> float:
    """A model's mean over a dataset's replicates; NaN when a fit failed: a mean over fewer replicates than the
    other models' is not comparable with theirs (timeouts strike the largest folds, errors the hardest ones)."""
    vals = list(values)
    if not vals or any(v is None for v in vals):
        return float("nan")
    return float(np.mean(np.asarray(vals, dtype=np.float64)))


def impute_worst(scores: np.ndarray, higher_is_better: bool) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """``scores`` with every missing (NaN) mean replaced by a value worse than every mean observed on its dataset
    by at least 1 and the observed range -- so that it ranks last whatever the rounding, and several missing
    means on a dataset tie at the worst ranks (their average rank). Returns the table and the (row, column)
    positions imputed. Only the ranks of the result mean anything."""
    filled = np.array(scores, dtype=np.float64)
    imputed: list[tuple[int, int]] = []
    for i, row in enumerate(filled):
        miss = ~np.isfinite(row)
        if not miss.any():
            continue
        seen = row[~miss]
        span = max(1.0, float(np.ptp(seen))) if seen.size else 1.0
        worst = 0.0 if not seen.size else (float(seen.min()) - span if higher_is_better else float(seen.max()) + span)
        filled[i, miss] = worst
        imputed.extend((i, int(j)) for j in np.flatnonzero(miss))
    return filled, imputed


def _nan_to_none(table: np.ndarray) -> list[list[float | None]]:
    return [[float(v) if np.isfinite(v) else None for v in row] for row in table]


def compare_across(crossval: dict[str, records.EvaluationResult], cfg: dict) -> dict:
    """Friedman + Nemenyi + post-hoc over datasets, on the mean CV score of each model: :func:`across_datasets`
    on the table of the models run on every dataset (:func:`score_table`; a failed fit has no mean there)."""
    cfg = settings(cfg)
    datasets, common, metrics = _common(crossval)
    n = len(datasets)
    if cfg["across_datasets"] != "none" and n >= 2 and len(common) >= 3 and len(metrics) != 1:
        return {
            "ran": False,
            "reason": f"datasets use different primary metrics ({', '.join(sorted(metrics))})",
            "n_datasets": n,
        }
    metric = next(iter(metrics)) if len(metrics) == 1 else None
    if metric is None or n < 2 or len(common) < 3:  # switched off or too small: nothing read from the records
        return across_datasets(np.empty((n, len(common))), datasets, common, metric=metric, cfg=cfg)
    hib = crossval[datasets[0]].greater_is_better[metric]
    return across_datasets(
        score_table(crossval, datasets, common, metric), datasets, common, metric=metric, higher_is_better=hib, cfg=cfg
    )


def _stats_option(name: str) -> str:
    """How the significance stage's messages name a setting: its key in ``params.yaml``."""
    return f"stats.{name}"


def across_datasets(
    scores,
    datasets: list[str],
    models: list[str],
    *,
    metric: str | None,
    higher_is_better: bool = True,
    cfg: dict,
    option=_stats_option,
) -> dict:
    """k models over N datasets on a score table (rows ``datasets``, columns ``models``, NaN where a model has no
    score): average ranks, and on enough datasets Friedman's test, the Nemenyi critical difference and the post-hoc
    procedure. The one implementation of the across-datasets analysis: the significance stage calls it on the mean
    CV scores (:func:`compare_across`), ``replearn compare`` on a table it is given.

    Needs >= 3 models and ``stats.min_datasets`` datasets (default 5): with fewer, the average ranks are reported
    and no test is run (with N = 2-3 a verdict would rest on the ranks alone; the Iman-Davenport approximation
    rejects 17-19 % of true nulls there). A missing score takes its dataset's worst rank (:func:`impute_worst`).
    For N <= 10 the Friedman p-value is exact (the permutation distribution of the ranks); the post-hoc
    comparisons run only when Friedman's test rejects. Every result records N. ``option(name)`` is how a
    message names the setting ``name`` (``stats.min_datasets`` in the pipeline).
    """
    cfg = settings(cfg)
    if cfg["across_datasets"] == "none":
        return {"ran": False, "reason": f"switched off ({option('across_datasets')}: none)"}
    n, common = len(datasets), list(models)
    if n < 2 or len(common) < 3:
        reason = f"needs at least 2 datasets and 3 models run on all of them (got {n} and {len(common)})"
        if n >= 2 and len(common) == 2:
            reason += "; the two models are compared over the datasets in the pairwise section instead"
        return {"ran": False, "reason": reason, "n_datasets": n}
    hib = bool(higher_is_better)
    decimals = cfg["round_before_ranking"]
    observed = np.asarray(scores, dtype=np.float64)
    scores, imputed = impute_worst(observed, hib)  # a failed fit: that dataset's worst rank (docs/statistics.md)
    avg = stats.rank_scores(scores, higher_is_better=hib, decimals=decimals).mean(axis=0)
    ranks = dict(zip(common, (float(r) for r in avg)))
    base = {
        "metric": metric,
        "datasets": list(datasets),
        "models": common,
        "n_datasets": n,
        "scores": _nan_to_none(observed),
        "average_ranks": ranks,
        # (dataset, model) without a mean (a failed fit), ranked worst on that dataset
        "imputed_worst_rank": [[datasets[i], common[j]] for i, j in imputed],
    }
    if n < cfg["min_datasets"]:
        return {
            "ran": False,
            **base,
            "reason": f"only N = {n} datasets ({option('min_datasets')} = {cfg['min_datasets']}): the average ranks "
            "are shown, but no across-datasets test is run, because with so few datasets a verdict "
            "would rest on the ranks alone (Demšar 2006 recommends N > 10 for the chi-square "
            f"approximation); lower {option('min_datasets')} to run the exact Friedman test anyway",
        }
    fr = role_function("across_datasets", cfg["across_datasets"])(scores, higher_is_better=hib, decimals=decimals)
    cd = float(stats.nemenyi_cd(len(common), n, alpha=cfg["alpha"]))
    significant = is_significant(fr.pvalue, cfg["alpha"])
    posthoc = (
        _posthoc(scores, common, cfg, hib)
        if significant
        else {
            "ran": False,
            "reason": f"Friedman's test did not reject at alpha = {cfg['alpha']:g} "
            f"(p = {fr.pvalue:.3g}), so no pair is compared",
        }
    )
    return {
        "ran": True,
        "reason": None,
        **base,
        "friedman": {
            "statistic": fr.statistic,
            "pvalue": fr.pvalue,
            "pvalue_method": fr.pvalue_method,
            "chi2_pvalue": fr.chi2_pvalue,
            "df": fr.df,
            # infinite when every dataset ranks the models alike: null in JSON, never the string "inf"
            "f_statistic": fr.f_statistic if np.isfinite(fr.f_statistic) else None,
            "f_pvalue": fr.f_pvalue,
            "df_f": list(fr.df_f),
            "kendall_w": fr.effect_size,
        },
        "nemenyi": {
            "alpha": cfg["alpha"],
            "cd": cd,
            "q_alpha": float(stats.nemenyi_q(len(common), alpha=cfg["alpha"])),
            "cliques": [list(c) for c in stats.nemenyi_cliques(ranks, cd)],
        },
        "posthoc": posthoc,
        "significant": significant,
    }


def _posthoc(scores: np.ndarray, models: list[str], cfg: dict, hib: bool) -> dict:
    method = cfg["posthoc"]
    control = cfg["control"]
    if control is not None and control not in models:
        return {"ran": False, "reason": f"control {control!r} is not among the models run on every dataset"}
    used = method
    if method == "bergmann_hommel" and len(models) > MAX_K_BERGMANN_HOMMEL:
        used = "shaffer"
    res = stats.friedman_posthoc(
        scores,
        names=models,
        control=control,
        method=used,
        alpha=cfg["alpha"],
        higher_is_better=hib,
        decimals=cfg["round_before_ranking"],
    ).to_dict()
    return {"ran": True, "reason": None, "method_used": used, **res}


def compare_across_pairs(crossval: dict[str, records.EvaluationResult], cfg: dict, *, seed: int = 0) -> dict:
    """Two models on many datasets: :func:`across_pairs` on the mean CV scores of the models run on every dataset."""
    cfg = settings(cfg)
    datasets, common, metrics = _common(crossval)
    if cfg["across_pairs_test"] != "none" and len(datasets) >= 2 and len(common) >= 2 and len(metrics) != 1:
        return {
            "ran": False,
            "reason": f"datasets use different primary metrics ({', '.join(sorted(metrics))})",
            "rows": [],
        }
    metric = next(iter(metrics)) if len(metrics) == 1 else None
    if metric is None or len(datasets) < 2 or len(common) < 2:
        return across_pairs(np.empty((len(datasets), len(common))), datasets, common, metric=metric, cfg=cfg)
    hib = crossval[datasets[0]].greater_is_better[metric]
    table = score_table(crossval, datasets, common, metric)
    return across_pairs(table, datasets, common, metric=metric, higher_is_better=hib, cfg=cfg, seed=seed)


def across_pairs(
    scores,
    datasets: list[str],
    models: list[str],
    *,
    metric: str | None,
    higher_is_better: bool = True,
    cfg: dict,
    seed: int = 0,
    option=_stats_option,
) -> dict:
    """Two models on many datasets, for every pair of ``models`` on a score table (rows ``datasets``, NaN where a
    model has no score): the Wilcoxon signed-rank (or sign) test over the datasets where both have a score,
    adjusted over the pairs, with wins, effect sizes and the Bayesian signed-rank test (from ``min_datasets``
    datasets; seeded by ``seed`` and the pair's names). The one implementation: the significance stage calls it
    through :func:`compare_across_pairs`, ``replearn compare`` on its table."""
    cfg = settings(cfg)
    test = cfg["across_pairs_test"]
    if test == "none":
        return {"ran": False, "reason": f"switched off ({option('across_pairs_test')}: none)", "rows": []}
    common = list(models)
    if len(datasets) < 2 or len(common) < 2:
        return {
            "ran": False,
            "reason": f"needs at least 2 datasets and 2 models run on all of them (got "
            f"{len(datasets)} and {len(common)})",
            "rows": [],
        }
    hib = bool(higher_is_better)
    decimals = cfg["round_before_ranking"]
    scores = np.asarray(scores, dtype=np.float64)
    sign = 1.0 if hib else -1.0
    rows = []
    for ia, ib in itertools.combinations(range(len(common)), 2):
        both = np.isfinite(scores[:, ia]) & np.isfinite(scores[:, ib])  # datasets where neither fit failed
        a, b = scores[both, ia], scores[both, ib]
        dropped = int(np.sum(~both))
        if a.size < 2:
            rows.append(
                {
                    "model_a": common[ia],
                    "model_b": common[ib],
                    "mean_a": float(a.mean()) if a.size else None,
                    "mean_b": float(b.mean()) if b.size else None,
                    "mean_difference": float(a.mean() - b.mean()) if a.size else None,
                    "test": test,
                    "statistic": None,
                    "pvalue": None,
                    "dropped_datasets": dropped,
                    "note": f"not testable: {dropped} dataset(s) dropped for failed fits leave {a.size}",
                }
            )
            continue
        st = stats.sign_test(a, b, decimals=decimals, interval=False)  # the counts and p (no interval is recorded)
        func = role_function("across_pairs", test)
        main = st if func is stats.sign_test else func(a, b, decimals=decimals)
        row = {
            "model_a": common[ia],
            "model_b": common[ib],
            "mean_a": float(a.mean()),
            "mean_b": float(b.mean()),
            "mean_difference": float(a.mean() - b.mean()),
            "test": main.test,
            "statistic": float(main.statistic),
            "pvalue": float(main.pvalue),
            "exact": main.extra.get("method_used", "exact") == "exact",
            # a win is a dataset on which the model is better (higher or lower score, as the metric says)
            "wins_a": st.extra["wins"] if hib else st.extra["losses"],
            "wins_b": st.extra["losses"] if hib else st.extra["wins"],
            "ties": st.extra["ties"],
            "sign_test_pvalue": float(st.pvalue),
            "rank_biserial": float(sign * stats.rank_biserial(a, b)),
            "cliffs_delta": float(sign * stats.cliffs_delta(a, b)),
            "dropped_datasets": dropped,
        }
        if cfg["bayesian"] and a.size >= int(cfg["min_datasets"]):  # no posterior verdicts below min N
            if cfg["rope_scale"] == "relative":  # differences as fractions of each dataset's mean score of the pair
                scale = np.maximum(np.abs(a + b) / 2.0, np.finfo(float).tiny)
                za, zb = a / scale, b / scale
            else:
                za, zb = a, b
            br = stats.bayesian_signed_rank(
                za,
                zb,
                rope=float(cfg["rope"]),
                n_samples=20000,
                seed=derive_seed(seed, "bayesian_signed_rank", common[ia], common[ib]),
            )
            row["bayesian_signed_rank"] = {
                "rope": br.rope,
                "rope_scale": cfg["rope_scale"],
                "p_a_better": br.p_right if hib else br.p_left,
                "p_equivalent": br.p_rope,
                "p_b_better": br.p_left if hib else br.p_right,
                "n_samples": br.extra["n_samples"],
                "seed": br.extra["seed"],
            }
        rows.append(row)
    _finish_rows(rows, cfg, hib)
    bayes = [r["bayesian_signed_rank"] for r in rows if "bayesian_signed_rank" in r]
    if bayes:
        for r in rows:
            if "bayesian_signed_rank" in r:
                r["bayesian_signed_rank"].update(model_a=r["model_a"], model_b=r["model_b"])
        bayesian_decisions(bayes, cfg)
        _nest_bayesian(bayes, rows)
    return {
        "ran": True,
        "reason": None,
        "bayesian_withheld": (
            None
            if not cfg["bayesian"] or len(datasets) >= int(cfg["min_datasets"])
            else f"only N = {len(datasets)} datasets ({option('min_datasets')} = {cfg['min_datasets']}): no "
            "Bayesian signed-rank probabilities, as no frequentist test runs there"
        ),
        "test": test,
        "metric": metric,
        "datasets": list(datasets),
        "models": common,
        # exact two-sided Wilcoxon and sign tests cannot go below 2 / 2^N on N datasets
        "smallest_possible_pvalue": min(1.0, 2.0 / 2 ** len(datasets)),
        "effect_sizes": "rank-biserial and Cliff's delta over the datasets, positive when model A is better",
        "rows": rows,
    }


def compare(
    crossval: dict[str, records.EvaluationResult],
    train_results: dict[str, records.TrainResult],
    cfg: dict,
    *,
    seed: int | None = None,
    jobs: int = 1,
) -> dict:
    """The whole significance result (:class:`~.records.SignificanceResult` as plain data: the report reads it).

    ``seed`` seeds the resampling tests; by default the seed of the first dataset's cross-validation. ``jobs``:
    processes that share the per-dataset tests and the across-pairs tests (joblib; :func:`significance_jobs` is
    the stage's choice); the result is the same for any number.
    """
    cfg = settings(cfg)
    crossval, excluded = comparable(crossval)
    first = next(iter(crossval.values()))
    metric = first.primary_metric
    if seed is None:
        seed = int(first.scheme.seed or 0)
    resolved = {resolve_test(cfg, _inner_view(cv) if _swept(cv) else cv) for cv in crossval.values()}
    sweeps = {d: compare_sweep(crossval[d], cfg) for d in crossval if _swept(crossval[d])}
    swept = {d: crossval[d] for d in sweeps}
    crossval = {d: best_point_view(crossval[d], sweeps[d]) if d in sweeps else cv for d, cv in crossval.items()}
    names = sorted(crossval)
    tasks = [(crossval[d], swept.get(d), sweeps.get(d), train_results[d], cfg, seed) for d in names]
    # the across-pairs tests and one task per dataset, shared by this process and jobs - 1 others (jobs = 1: all
    # here), the across-pairs tests and the largest test sets first; each task's numbers are the same in any process
    # (its seeds derive from names), and the results come in the order of the tasks
    from .workers import map_shared

    calls = [(_across_pairs, (crossval, cfg, seed))] + [(_dataset_entry, t) for t in tasks]
    size = [0.0] + [float(len(t[3].y_true or ())) * len(t[0].models) ** 2 for t in tasks]
    out = map_shared(_call, calls, jobs, order=[0] + sorted(range(1, len(calls)), key=lambda i: -size[i]))
    across_pairs, datasets = out[0], dict(zip(names, out[1:]))
    return {
        "schema_version": records.SCHEMA_VERSION,
        "metric": metric,
        "alpha": cfg["alpha"],
        "higher_is_better": first.greater_is_better[metric],
        "pairwise_test": resolved.pop() if len(resolved) == 1 else "per dataset",
        "pairwise_test_config": cfg["pairwise_test"],
        "correction": cfg["correction"],
        "test_set_test": cfg["test_set_test"],
        "test_set_metric_test": cfg["test_set_metric_test"],
        "bayesian": {"enabled": bool(cfg["bayesian"]), "rope": float(cfg["rope"]), "rope_scale": cfg["rope_scale"]},
        "posthoc": {"method": cfg["posthoc"], "control": cfg["control"]},
        "round_before_ranking": cfg["round_before_ranking"],
        "seed": int(seed),
        "datasets": datasets,
        "across_datasets": compare_across(crossval, cfg),
        "across_pairs": across_pairs,
        "excluded": excluded,
    }


def _call(fn, args: tuple):
    """``fn(*args)``: one task of :func:`compare` for :func:`~.workers.map_shared`."""
    return fn(*args)


def _across_pairs(crossval: dict[str, records.EvaluationResult], cfg: dict, seed: int) -> dict:
    return compare_across_pairs(crossval, cfg, seed=seed)


def _dataset_entry(
    cv: records.EvaluationResult,
    swept: records.EvaluationResult | None,
    sweep: dict | None,
    train: records.TrainResult,
    cfg: dict,
    seed: int,
) -> dict:
    """One dataset's part of :func:`compare`: its pairs over the replicates (on a sweep's best-point view ``cv``:
    selection-aware), on the sealed test set and in the Bayesian analysis, with the design, the question and the
    failed fits. ``swept``: the sweep's full result when ``cv`` is its best-point view (``sweep``: its summary)."""
    entry: dict = {"test_set": compare_test_set(train, cfg)}
    entry["test_set_metric"] = compare_test_set_metric(train, cv.primary_metric, cfg, seed=seed)

    def gate(rows: list[dict]) -> None:  # the sealed tests confirm the pair's CV verdict: one gated family
        entry["cv"] = rows
        gate_sealed_tests(entry, cfg, cv.greater_is_better[cv.primary_metric])

    _, entry["bayesian"] = compare_replicates(cv, cfg, gate=gate)
    entry["design"] = cv.scheme.design
    entry["replicates"] = cv.replicate_kind
    entry["question"] = question(swept if swept is not None else cv)
    entry["n_replicates"] = len(cv.splits)
    entry["means"] = {k: _mean_or_none(m.scores.get(cv.primary_metric) or []) for k, m in cv.models.items()}
    # failed fits (cv.on_error: record): how many per model, and the models left out of this dataset's tests
    records_d = swept if swept is not None else cv
    entry["failed_fits"] = {k: len(m.failures) for k, m in sorted(records_d.models.items()) if m.failures}
    entry["no_successful_fit"] = sorted(set(cv.models) - set(testable_models(cv)))
    entry["failed_final_fit"] = sorted(k for k, m in train.models.items() if m.failure is not None)
    if sweep is not None:
        entry["sweep"] = sweep
    return entry


#: pair tests (datasets x model pairs) from which the significance stage shares them over the cores
PARALLEL_MIN_PAIR_TESTS = 400
JOBS_ENV = "REPLEARN_SIGNIFICANCE_JOBS"  # processes for the significance stage: a number, or unset for the default


def significance_jobs(crossval: dict[str, records.EvaluationResult]) -> int:
    """Processes for :func:`compare` in the significance stage: ``$REPLEARN_SIGNIFICANCE_JOBS`` when set (1: in
    the stage's process), else one per core from :data:`PARALLEL_MIN_PAIR_TESTS` pair tests on (a benchmark's
    43 datasets x 66 pairs: 2,838, ~4 s in one process), and 1 below (starting a process costs ~0.7 s)."""
    from .workers import cores, processes

    tests = sum(len(cv.models) * (len(cv.models) - 1) // 2 for cv in crossval.values())
    return processes(JOBS_ENV, len(crossval) + 1, cores() if tests >= PARALLEL_MIN_PAIR_TESTS else 1)


def _mean_or_none(values) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals and len(vals) == len(values) else None


def _nest_bayesian(bayes_rows: list[dict], cv_rows: list[dict]) -> None:
    """A Bayesian "better" verdict stands only where the frequentist row names the same winner: with one
    standard error for both (half-sampling) this holds by construction, and it keeps a Bayesian table on a
    sweep's selected points or on the corrected t's heuristic from claiming more than the selection-aware test.
    """
    for br in bayes_rows:
        if br.get("decision") not in ("a_better", "b_better"):
            continue
        row = next((r for r in cv_rows if (r["model_a"], r["model_b"]) == (br["model_a"], br["model_b"])), None)
        want = br["model_a"] if br["decision"] == "a_better" else br["model_b"]
        if row is None or row.get("winner") != want:
            br["decision"] = "undecided"
            br["decision_note"] = "the frequentist test of this pair (same question) does not name this winner"


def comparable(
    crossval: dict[str, records.EvaluationResult],
) -> tuple[dict[str, records.EvaluationResult], dict[str, list[str]]]:
    """Drop, per dataset, the models that have no score on the primary metric (e.g. kernel PCA without a
    pre-image has no reconstruction error): they cannot enter a test. A score missing because the fit failed
    (``ModelEvaluation.failures``) does not drop the model: the tests follow the failed-fit conventions instead.
    Returns the kept results and ``{dataset: [excluded model keys]}`` (recorded in significance.json and shown in
    the report)."""
    kept, excluded = {}, {}
    for d, cv in crossval.items():
        metric = cv.primary_metric
        bad = sorted(
            k
            for k, m in cv.models.items()
            if any(v is None and i not in m.failed() for i, v in enumerate(m.scores[metric]))
        )
        if bad:
            excluded[d] = bad
            cv = dataclasses.replace(cv, models={k: m for k, m in cv.models.items() if k not in bad})
        kept[d] = cv
    return kept, excluded


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
        ph = across.get("posthoc") or {}
        if ph.get("ran"):
            out["posthoc_significant_pairs"] = sum(c["significant"] for c in ph["comparisons"])
    pairs = result.get("across_pairs") or {}
    if pairs.get("ran"):
        out["across_pairs_significant"] = sum(r["significant"] for r in pairs["rows"])
    return out


def compare_records(
    crossval: dict[str, records.EvaluationResult],
    train_results: dict[str, records.TrainResult],
    cfg: dict,
    *,
    seed: int | None = None,
    jobs: int = 1,
) -> records.SignificanceResult:
    """:func:`compare` as the typed, versioned record the significance stage writes."""
    return records.from_dict(
        records.SignificanceResult,
        compare(crossval, train_results, cfg, seed=seed, jobs=jobs),
        source="significance result",
    )


# -- sweeps -----------------------------------------------------------------------------------------
def _replicates_of(cv: records.EvaluationResult) -> str:
    """The kind of replicate the tests see: "split" or "seed" (for a sweep, those at every point)."""
    return designs.of_record(cv).tested_kind(cv.replicate_kind)


def _inner_kind(cv: records.EvaluationResult) -> str:
    """The kind of the replicates at one point of the design (a family's unit seeds: "seed")."""
    return designs.of_record(cv).inner.replicate_kind


def _swept(cv: records.EvaluationResult) -> bool:
    """Whether the record is a raw sweep (replicates at every point), not a view of one point."""
    return designs.of_record(cv).has_points and cv.replicate_kind == designs.SWEEP_KIND


def _inner_view(cv: records.EvaluationResult) -> records.EvaluationResult:
    """The replicates of a sweep's first point, as the cv/seeds replicates they are."""
    first = list(cv.scheme.values or [])[0]
    idx = [i for i, s in enumerate(cv.splits) if s.point == first]
    return _select(cv, {k: idx for k in cv.models})


def _select(
    cv: records.EvaluationResult, idx: dict[str, list[int]], points: dict[str, object] | None = None
) -> records.EvaluationResult:
    """A view with, per model, the replicates ``idx[model]`` (same count for every model), as inner replicates;
    ``points`` (model -> its sweep point) carries each model's half-sampling scores at that point along."""
    any_idx = next(iter(idx.values()))
    kind = _inner_kind(cv)
    splits = [dataclasses.replace(cv.splits[i], kind=kind, point=None, index=j) for j, i in enumerate(any_idx)]
    models = {}
    for k, m in cv.models.items():
        pick = idx[k]
        models[k] = dataclasses.replace(
            m,
            scores={met: [v[i] for i in pick] for met, v in m.scores.items()},
            n_iter=[m.n_iter[i] for i in pick],
            converged=[m.converged[i] for i in pick],
            correct=None if m.correct is None else [m.correct[i] for i in pick],
            failures=[
                dataclasses.replace(f, replicate=pick.index(f.replicate)) for f in m.failures if f.replicate in pick
            ],
        )
    variance = None
    if cv.variance and points is not None:
        reps = cv.variance["replicates"]
        first = points[next(iter(points))]
        base = [i for i, r in enumerate(reps) if r.get("point") == first]
        key_of = {(r["subsample"], r["repeat"], r["fold"], repr(r.get("point"))): i for i, r in enumerate(reps)}
        vmodels = {}
        for k, scores in cv.variance["models"].items():
            pos = [
                key_of.get((reps[i]["subsample"], reps[i]["repeat"], reps[i]["fold"], repr(points[k]))) for i in base
            ]
            vmodels[k] = {met: [None if j is None else v[j] for j in pos] for met, v in scores.items()}
        variance = {
            **cv.variance,
            "replicates": [dict(reps[i], point=None) for i in base],
            "models": vmodels,
        }
    return dataclasses.replace(cv, splits=splits, models=models, variance=variance)


def swept_models(cv: records.EvaluationResult) -> list[str]:
    """The models the sweep's axis changes: all of them for a data axis (n_train, n_features), else the one
    named by ``<model>.<hyperparameter>`` (the others are refitted with the same settings at every point)."""
    axis = cv.scheme.axis or ""
    if axis in ("n_train", "n_features") or "." not in axis:
        return sorted(cv.models)
    key = axis.partition(".")[0]
    return [key] if key in cv.models else sorted(cv.models)


def sweep_covariance(cv: records.EvaluationResult, metric: str):
    """The covariance of every (model, point) mean of a sweep: columns, :class:`stats.MeanCovariance`.

    Replicate r is the same split (or seed) at every point, so the points pair by replicate; with half-sampling
    fits the covariance holds the data-sampling term (population question), else it is conditional."""
    values = list(cv.scheme.values or [])
    at = {repr(p): [i for i, s in enumerate(cv.splits) if s.point == p] for p in values}
    n_rep = min(len(v) for v in at.values())
    columns, cols = [], []
    halves = {repr(p): half_scores(cv, metric, point=p) for p in values} if cv.variance else None
    hcols = []
    for key in sorted(cv.models):
        sc = cv.models[key].scores[metric]
        for p in values:
            v = [sc[i] for i in at[repr(p)][:n_rep]]
            h = halves[repr(p)].get(key) if halves is not None else None
            if any(x is None for x in v) or (halves is not None and h is None):
                continue
            columns.append((key, p))
            cols.append(np.asarray(v, dtype=np.float64))
            if h is not None:
                hcols.append(h)
    if not columns:
        return [], None
    first = [cv.splits[i] for i in at[repr(values[0])][:n_rep]]
    repeat = designs.repeat_groups(first, _inner_kind(cv))
    if cv.variance and hcols:
        return columns, stats.mean_covariance(
            np.stack(cols, axis=1),
            repeat=repeat,
            half_scores=np.stack(hcols, axis=2),
            n_examples=int(cv.variance["n_examples"]),
            subsample_size=int(cv.variance["subsample_size"]),
        )
    return columns, stats.mean_covariance(np.stack(cols, axis=1), repeat=repeat)


def _family_weights(mc, col: dict, pairs: list[tuple]) -> np.ndarray:
    weights = np.zeros((len(pairs), len(mc.means)))
    for j, (a, b) in enumerate(pairs):
        weights[j, col[a]] += 1.0
        weights[j, col[b]] -= 1.0
    return weights


def _family_pvalues(mc, col: dict, pairs: list[tuple], seed: int) -> np.ndarray:
    """Single-step max-t adjusted p-values of the contrasts ``col[a] - col[b]`` for (a, b) in ``pairs``."""
    weights = _family_weights(mc, col, pairs)
    return stats.max_t_adjusted(weights @ mc.means, weights @ mc.cov @ weights.T, mc.family_df(weights), seed=seed)


def compare_sweep(cv: records.EvaluationResult, cfg: dict) -> dict:
    """Per model: the mean and standard error of the primary metric at every point, the best point, the one-SE
    choice and the best point against its neighbours, each test aware of the selection.

    * **Standard errors** come from the covariance of the point means (:func:`sweep_covariance`): with
      half-sampling fits they include the data-sampling term (the population question), else they are the
      replicates' (conditional on the held-out part).
    * **Best vs neighbours**: :func:`replearn.stats.selected_neighbours` -- the max-t over the best point's
      (one or two) neighbour contrasts, against its null distribution with the best point chosen again in every
      draw (all points equal), so choosing the best point on the same replicates cannot inflate the error rate.
      With gaps on the axis (a point without scores) every adjacent pair goes into one max-t family instead.
    * **One-SE rule**: the simplest point -- the first in ``design.simplest`` order ("first": the configured
      order, "last": reversed) -- whose mean is within one standard error of the best point's mean.
    """
    cfg = settings(cfg)
    metric = cv.primary_metric
    hib = cv.greater_is_better[metric]
    values = list(cv.scheme.values or [])
    simplest = cv.scheme.simplest or "first"
    columns, mc = sweep_covariance(cv, metric)
    col = {c: j for j, c in enumerate(columns)}
    swept = swept_models(cv)
    models_out: dict[str, dict] = {}
    out = {
        "axis": cv.scheme.axis,
        "values": values,
        "metric": metric,
        "models": models_out,
        "swept": swept,
        "simplest": simplest,
        "question": question(cv),
        "neighbour_test": "single-step max-t over the adjacent points (selection-aware)",
        "se": "population (half-sampling)" if cv.variance else "replicates (conditional)",
    }
    for key in sorted(cv.models):
        curve = []
        for p in values:
            j = col.get((key, p))
            curve.append(
                {
                    "point": p,
                    "mean": float(mc.means[j]) if j is not None else None,
                    "se": float(np.sqrt(max(mc.cov[j, j], 0.0))) if j is not None else None,
                }
            )
        valid = [i for i, c in enumerate(curve) if c["mean"] is not None]
        if not valid:
            models_out[key] = {"curve": curve, "best": None, "one_se": None, "neighbours": []}
            continue
        if key not in swept:  # the axis does not change this model: its replicates at the first point
            models_out[key] = {
                "curve": curve,
                "best": values[valid[0]],
                "one_se": None,
                "neighbours": [],
                "swept": False,
            }
            continue
        best = (max if hib else min)(valid, key=lambda i: curve[i]["mean"])
        se_best = curve[best]["se"] or 0.0
        bound = curve[best]["mean"] - se_best if hib else curve[best]["mean"] + se_best
        order = valid if simplest == "first" else valid[::-1]
        one_se = next(i for i in order if (curve[i]["mean"] >= bound if hib else curve[i]["mean"] <= bound))
        adjacent = [((key, values[i]), (key, values[i + 1])) for i in valid[:-1] if i + 1 in valid]
        rows = []
        if adjacent:
            nb_seed = derive_seed(int(cv.scheme.seed or 0), "sweep", cv.dataset, key)
            if len(valid) == len(values):  # the whole axis: the best re-chosen in every draw of the null
                cols = [col[(key, p)] for p in values]
                weights = _family_weights(mc, col, adjacent)
                _, by_index = stats.selected_neighbours(
                    mc.means[cols],
                    mc.cov[np.ix_(cols, cols)],
                    mc.family_df(weights),
                    maximize=hib,
                    seed=nb_seed,
                )
                by_pair = {(values[min(j, best)], values[max(j, best)]): p for j, p in by_index.items()}
            else:  # gaps on the axis: every adjacent pair in one max-t family
                padj = _family_pvalues(mc, col, adjacent, nb_seed)
                by_pair = {(a[1], b[1]): float(p) for (a, b), p in zip(adjacent, padj)}
            for nb in (best - 1, best + 1):
                if nb not in valid:
                    continue
                lo, hi = (nb, best) if nb < best else (best, nb)
                p_adj = by_pair.get((values[lo], values[hi]))
                if p_adj is None:
                    continue
                jb, jn = col[(key, values[best])], col[(key, values[nb])]
                diff, var = mc.pair(jb, jn)
                rows.append(
                    {
                        "best": values[best],
                        "neighbour": values[nb],
                        "test": "max_t_adjacent",
                        "mean_difference": diff,
                        "statistic": _finite(diff / np.sqrt(var)) if var > 0 else None,
                        "pvalue": p_adj,
                        "pvalue_adjusted": p_adj,
                        "significant": is_significant(p_adj, cfg["alpha"]),
                        "family": len(adjacent),
                    }
                )
        models_out[key] = {
            "curve": curve,
            "best": values[best],
            "one_se": values[one_se],
            "neighbours": rows,
            "swept": True,
        }
    return out


def best_point_view(cv: records.EvaluationResult, sweep: dict) -> records.EvaluationResult:
    """Each model at its best point of the sweep (a model the axis does not change: its first point), paired by
    replicate: the view the between-model rows, the Bayesian table and the summary read."""
    values = list(cv.scheme.values or [])
    idx, points = {}, {}
    for key in cv.models:
        best = sweep["models"][key]["best"]
        point = values[0] if best is None else best
        points[key] = point
        idx[key] = [i for i, s in enumerate(cv.splits) if s.point == point]
    n = min(len(v) for v in idx.values())
    idx = {k: v[:n] for k, v in idx.items()}
    view = _select(cv, idx, points)
    view = dataclasses.replace(view, scheme=dataclasses.replace(cv.scheme, design=designs.Sweep.name))
    # the view remembers the sweep it was chosen from (not a record field: never serialised), so that
    # compare_cv and compare_bayesian on it redo the choice of the best points inside their null
    object.__setattr__(view, "_sweep_origin", (cv, sweep))
    return view


def compare_sweep_models(cv: records.EvaluationResult, sweep: dict, view_rows: list[dict], cfg: dict) -> list[dict]:
    """The between-model rows of a sweep, with the selection inside the null: models A and B at their best
    points are tested by :func:`replearn.stats.selected_contrast`, whose null distribution redoes the choice of
    both best points (all points of a swept model, the first point of one the axis does not change) in every
    draw; its interval is selection-aware and agrees with the test. The p-values are then adjusted over the
    model pairs by ``stats.correction``. Means and differences stay those of the best points."""
    cfg = settings(cfg)
    metric = cv.primary_metric
    hib = cv.greater_is_better[metric]
    values = list(cv.scheme.values or [])
    columns, mc = sweep_covariance(cv, metric)
    if mc is None:
        return view_rows
    col = {c: j for j, c in enumerate(columns)}
    swept = set(sweep.get("swept") or [])
    rows = []
    for r in view_rows:
        r = dict(r)
        if r.get("pvalue") is None:
            rows.append(r)
            continue
        a, b = r["model_a"], r["model_b"]
        pa = [p for p in values if (a, p) in col] if a in swept else [sweep["models"][a]["best"]]
        pb = [p for p in values if (b, p) in col] if b in swept else [sweep["models"][b]["best"]]
        contrasts = [((a, p), (b, q)) for p in pa for q in pb]  # the family of contrasts the selection ranges over
        chosen = ((a, sweep["models"][a]["best"]), (b, sweep["models"][b]["best"]))
        if chosen not in contrasts or any(x not in col for pair in contrasts for x in pair):
            rows.append(r)
            continue
        fam_seed = derive_seed(int(cv.scheme.seed or 0), "sweep_models", cv.dataset, a, b)
        sel = stats.selected_contrast(
            mc.means,
            mc.cov,
            mc.family_df(_family_weights(mc, col, contrasts)),
            [col[(a, p)] for p in pa],
            [col[(b, q)] for q in pb],
            maximize=hib,
            alpha=float(cfg["alpha"]),
            seed=fam_seed,
        )
        r["test"] = "selected_contrast"
        r["pvalue"] = sel.pvalue
        r["statistic"] = _finite(sel.statistic)
        r["df"] = sel.df
        r["standard_error"] = sel.se
        r["_widen"] = max(sel.upper, sel.lower) - stats.t_quantile(1 - float(cfg["alpha"]) / 2, sel.df)
        r["ci"] = [float(x) for x in sel.interval]
        r["selection"] = (
            f"best points chosen again in every draw of the null ({len(pa)} x {len(pb)} point combination(s)); "
            f"interval estimate - {sel.upper:.3g} se to estimate + {sel.lower:.3g} se"
        )
        rows.append(r)
    _finish_rows(rows, cfg, hib)
    add_detectable(rows, cfg)
    for r in rows:  # the selection's bounds are wider than Student's: the detectable difference grows with them
        widen = r.pop("_widen", 0.0)
        if r.get("detectable_difference") is not None and widen > 0:
            r["detectable_difference"] += widen * float(r["standard_error"])
    return rows
