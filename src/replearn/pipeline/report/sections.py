"""Section builders: each adds the blocks of one part of the report to a :class:`~.document._Document`."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from ...stats.registry import label as _label
from .. import designs, family_views
from ..records import EvaluationResult, hyperparameter, scheme_dict
from ..views import (
    AcrossDatasets,
    AcrossPairs,
    BayesianSignedRank,
    DatasetComparison,
    ExperimentHeader,
    Nemenyi,
    PairComparison,
    Posthoc,
    ProblemFamily,
    ReproductionRecord,
    Significance,
    final_scores,
)
from .document import (
    _DASH,
    _Cell,
    _Document,
    _Fmt,
    _Heading,
    _List,
    _Paragraph,
    _Table,
)
from .failures import dataset_failure_note
from .summary import scope


def _validate_settings(settings: Mapping) -> tuple[str, int, int, bool, tuple[str, ...]]:
    """The report settings, checked by the configuration schema (the one owner of every key's rules)."""
    from replearn.pipeline.report_schema import REPORT_FORMATS, check_report_settings

    settings = {"title": "replearn report", "decimals": 3, "dpi": 100, "plots": True, **dict(settings)}
    check_report_settings(settings)
    formats = settings.get("formats") or list(REPORT_FORMATS)
    return (
        settings["title"],
        int(settings["decimals"]),
        int(settings["dpi"]),
        settings["plots"],
        tuple(f for f in REPORT_FORMATS if f in formats),
    )


def _slug(name: str) -> str:
    """File-name-safe, collision-free stem for a dataset name."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "dataset"
    if safe != name:
        safe += "-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return safe


def describe_scheme(scheme: Mapping | None, n_splits: int) -> str:
    """E.g. ``"5-fold stratified CV repeated 2 times, 10 splits, seed 0"``: the design's own sentence."""
    return designs.describe_scheme(scheme, n_splits)


def _mean_std(values) -> tuple[float, float]:
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        return math.nan, math.nan
    mean = float(np.mean(a))
    std = float(np.std(a, ddof=1)) if a.size > 1 else 0.0
    return mean, std


def _best_mask(values: list[float], greater: bool | None) -> list[bool]:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite or greater is None:
        return [False] * len(values)
    best = max(finite) if greater else min(finite)
    return [v is not None and math.isfinite(v) and v == best for v in values]


def _alpha(alpha) -> str:
    """A significance level as configured (0.05, not 0.050)."""
    return _DASH if alpha is None else f"{float(alpha):g}"


#: The question every sealed-test verdict answers, and how it is gated (pipeline/verdicts.py): one wording.
SEALED_QUESTION = (
    "a claim about these two fitted models (each trained once on the whole development set) on examples like "
    "the sealed test part, not about the learners on other datasets; tested only after the pair's "
    "cross-validation verdict (one gated family with it, Bretz et al. 2009, so that the report's error rate "
    "stays at α)"
)


def _verdict_words(significant: bool, winner: str | None, gated: bool = False) -> str:
    """A row's verdict words; ``gated``: a sealed test behind the pair's cross-validation verdict."""
    if gated and not significant:
        return "not tested (no cross-validation verdict to confirm)"
    if significant and winner is not None:
        return f"{winner} better"
    if significant:
        return "significant difference"
    return "no significant difference"


def _verdict(row: PairComparison | Mapping) -> str:
    """The verdict of a pair's row on one dataset (a sealed test behind its gate: "not tested")."""
    row = PairComparison.from_dict(row)
    return _verdict_words(row.significant, row.winner, bool(row.gate))


def _ci_excludes_zero(ci) -> bool:
    return bool(ci) and len(ci) == 2 and ci[0] is not None and ci[1] is not None and (ci[0] > 0 or ci[1] < 0)


def _verdict_with_ci(row: PairComparison | Mapping, correction: str) -> str:
    """The verdict, with a word on why it can differ from the row's own (unadjusted) confidence interval, and
    on a "no significant difference" the difference the design detects with 80 % power."""
    row = PairComparison.from_dict(row)
    text = _verdict(row)
    if not row.significant and row.detectable_difference is not None:
        text += f" (80 % power from ±{float(row.detectable_difference):.3g})"
    if not row.significant and _ci_excludes_zero(row.ci):
        adjusted = row.reported_pvalue
        if row.pvalue is not None and adjusted is not None and adjusted > row.pvalue:
            return (
                f"{text} after {correction} (the unadjusted CI excludes 0; the adjustment for the number of "
                "pairs decides)"
            )
        return f"{text} (the CI is unadjusted and excludes 0; the test's p-value decides)"
    return text


def _join_names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _test_name(name) -> str:
    """A test's label and citation, from the registry of statistical procedures."""
    return _label(name, cite=True) if name else "pairwise test"


def _correction_name(name) -> str:
    return _label(name if name not in (None, "none") else None)


# --------------------------------------------------------------------------- sections


def _header(doc: _Document, experiment: ExperimentHeader | Mapping, crossval: Mapping) -> None:
    header = ExperimentHeader.from_dict(experiment)
    name = header.name
    datasets = list(header.datasets or sorted(crossval))
    models = list(header.models)
    sources = dict(header.model_sources)  # key -> "plugin <distribution> <version>"
    if not models:
        models = sorted({m for cv in crossval.values() for m in cv.models})
    doc.add(
        _Table(
            headers=("Experiment", "Value"),
            rows=(
                (_Cell("Name"), _Cell(str(name) if name else "(unnamed)")),
                (_Cell("Parameters hash"), _Cell(_DASH if header.params_hash is None else str(header.params_hash))),
                (_Cell("Datasets"), _Cell(", ".join(str(d) for d in datasets) or _DASH)),
                (_Cell("Models"), _Cell(", ".join(str(m) for m in models) or _DASH)),
                *(
                    [(_Cell("Plugin models"), _Cell(", ".join(f"{k}: {v}" for k, v in sorted(sources.items()))))]
                    if sources
                    else []
                ),
            ),
        )
    )


#: how a registry model handles more than two classes, where it reduces to binary problems or has its own scheme
_ONE_VS_REST = {"logistic_regression", "linear_svm", "linear_classifier", "kernel_perceptron"}
_ONE_VS_REST_WHEN_CLASSIFYING = {"kernel_ridge", "kernel_lms", "rbf_network"}  # their `task` param decides
_REDUCTIONS = {"one_vs_all": "one-vs-rest", "all_vs_all": "one-vs-one (all-vs-all)", "tree_reduction": "tree reduction"}
_OWN_SCHEME = {
    "softmax_regression": "multinomial (softmax), one model",
    "perceptron": "the multiclass perceptron (one weight vector per class)",
    "averaged_perceptron": "the multiclass perceptron (one weight vector per class)",
    "voted_perceptron": "the multiclass perceptron (one weight vector per class)",
    "multiclass_perceptron": "the multiclass perceptron (one weight vector per class)",
    "adaboost": "SAMME (multiclass boosting)",
}


def multiclass_reduction(registry_name: str, params: Mapping | None, n_classes: int) -> str | None:
    """How model ``registry_name`` with ``params`` (as recorded in the crossval results) fits ``n_classes``
    classes, e.g. "one-vs-rest (3 binary logistic_regression models)"; None for two classes and for models
    that are multiclass by construction (k-NN, naive Bayes, trees, networks with a softmax output, ...)."""
    if n_classes <= 2:
        return None
    params = params or {}
    k, pairs = n_classes, n_classes * (n_classes - 1) // 2
    if registry_name in _REDUCTIONS:
        base = hyperparameter(params, "estimator") or "logistic_regression"
        count = {"one_vs_all": k, "all_vs_all": pairs, "tree_reduction": k - 1}[registry_name]
        return f"{_REDUCTIONS[registry_name]} reduction ({count} binary {base} models)"
    if registry_name in _ONE_VS_REST or (
        registry_name in _ONE_VS_REST_WHEN_CLASSIFYING and hyperparameter(params, "task") == "classification"
    ):
        return f"one-vs-rest ({k} binary {registry_name} models)"
    if registry_name == "svm":
        return f"one-vs-one ({pairs} binary SVMs, majority vote)"
    return _OWN_SCHEME.get(registry_name)


def _multiclass_note(cv: EvaluationResult) -> str | None:
    classes = cv.classes or []
    if cv.task != "classification" or len(classes) <= 2:
        return None
    named = []
    for key in sorted(cv.models):
        m = cv.models[key]
        how = multiclass_reduction(m.registry_name or key, m.params, len(classes))
        if how:
            named.append(f"{key}: {how}")
    if not named:
        return None
    rest = len(cv.models) - len(named)
    return "Multiclass: " + "; ".join(named) + (" (the others are multiclass by construction)" if rest else "") + "."


def _crossval_table(doc: _Document, cv: EvaluationResult, f: _Fmt) -> None:
    metrics = list(cv.metrics)
    models = sorted(cv.models)
    if cv.problem_kind.sparse_metrics:  # a metric none of these units gives (value_error of a policy gradient)
        metrics = [m for m in metrics if any(v is not None for k in models for v in cv.scores_of(k, m))]
    n_splits = len(cv.splits)
    if not n_splits and models:
        n_splits = max((len(v) for v in cv.models[models[0]].scores.values()), default=0)
    failed = {m: len(cv.models[m].failures) for m in models}  # cv.on_error: record
    stats = {
        m: [_mean_std([v for v in cv.scores_of(m, metric) if v is not None or not failed[m]]) for metric in metrics]
        for m in models
    }
    bold = {}
    for j, metric in enumerate(metrics):
        mask = _best_mask([stats[m][j][0] for m in models], cv.greater(metric, None))
        for m, b in zip(models, mask):
            bold[(m, j)] = b
    primary = cv.primary_metric
    headers = ["Model"] + [
        metric
        + (" (primary)" if metric == primary else "")
        + ("" if cv.greater(metric, None) is None else (" ↑" if cv.greater(metric) else " ↓"))
        for metric in metrics
    ]
    rows = tuple(
        (_Cell(m),)
        + tuple(
            _Cell(
                (_DASH if math.isnan(stats[m][j][0]) else f"{f.num(stats[m][j][0])} ± {f.num(stats[m][j][1])}")
                + (f" ({failed[m]} failed)" if failed[m] else ""),
                bold[(m, j)],
            )
            for j in range(len(metrics))
        )
        for m in models
    )
    task = cv.task
    n_examples = cv.n_examples
    classes = cv.classes
    kind = cv.problem_kind
    facts = f"Task: {task}"
    if classes:
        facts += f" ({len(classes)} classes: {', '.join(str(c) for c in classes)})"
    if n_examples is not None and kind.sealed_test:
        facts += f"; {n_examples} development examples"
    doc.add(_Paragraph(facts + "."))
    note = _multiclass_note(cv)
    if note:
        doc.add(_Paragraph(note))
    doc.add(
        _Paragraph(
            f"{kind.replicates_title}: "
            f"{describe_scheme(scheme_dict(cv), n_splits)}. "
            f"Cells show mean ± sample standard deviation over the {kind.replicates}; "
            "↑ higher is better, ↓ lower is better; the best mean per metric is in bold."
            + (
                " With failed fits (listed under Failures), over the replicates whose fit succeeded."
                if any(failed.values())
                else ""
            )
        )
    )
    doc.add(_Table(tuple(headers), rows))


def _test_table(doc: _Document, ds: str, cv: EvaluationResult, train_metrics: Mapping, f: _Fmt) -> None:
    per_model = final_scores(train_metrics, ds)
    if not per_model:
        doc.add(_Paragraph("No sealed test-set metrics were recorded for this dataset."))
        return
    models = sorted(per_model)
    metrics = list(cv.metrics)
    extra = sorted({k for m in models for k in per_model[m].test} - set(metrics))
    metrics += extra
    primary = cv.primary_metric or (metrics[0] if metrics else None)

    def get(m, part, metric):
        return per_model[m].value(part, metric)

    kind = cv.problem_kind
    columns = [(metric, "test") for metric in metrics]
    if primary is not None and kind.sealed_test:
        columns.append((primary, "train"))
    masks = {}
    for j, (metric, part) in enumerate(columns):
        vals = [get(m, part, metric) for m in models]
        vals = [None if v is None else float(v) for v in vals]
        masks[j] = _best_mask(vals, cv.greater(metric, None) if part == "test" else None)
    headers = ("Model",) + tuple(
        f"{metric} ({part})" if kind.sealed_test else f"{metric} ({kind.final_heading.lower()})"
        for metric, part in columns
    )
    rows = tuple(
        (_Cell(m),) + tuple(_Cell(f.num(get(m, part, metric)), masks[j][i]) for j, (metric, part) in enumerate(columns))
        for i, m in enumerate(models)
    )
    if not kind.sealed_test:
        doc.add(
            _Paragraph(
                f"Final run: a problem of the {kind.name} family has no sealed test set; "
                "each unit was run once more "
                "with its own final seed (derived from the dataset and the unit's key), as in the train stage "
                "(best value per metric in bold)."
            )
        )
        doc.add(_Table(headers, rows))
        return
    doc.add(
        _Paragraph(
            "Sealed test set: each model refitted on the whole development set and scored once on the held-out "
            "test set (best test value per metric in bold; the last column is the training-set value, for the "
            "generalization gap)."
        )
    )
    doc.add(_Table(headers, rows))


def _pairwise_table(
    doc: _Document,
    entry: DatasetComparison | Mapping,
    cv: EvaluationResult,
    significance: Significance | Mapping,
    f: _Fmt,
) -> None:
    entry, significance = DatasetComparison.from_dict(entry), Significance.from_dict(significance)
    # The pairwise tests run on each dataset's own primary metric.
    metric = entry.metric or cv.primary_metric or significance.metric
    test = significance.pairwise_test
    test_name = _test_name(test)
    correction = _correction_name(significance.correction)
    if not entry.cv:
        doc.add(_Paragraph("No pairwise cross-validation comparisons were recorded for this dataset."))
        return
    where, claim = scope(entry, cv)
    tests = sorted({str(r.test) for r in entry.cv if r.test})
    if tests and (test in (None, "per dataset") or len(tests) > 1):
        test_name = ", ".join(_test_name(t) for t in tests)
    doc.add(
        _Paragraph(
            f"Pairwise comparisons on {metric}{where}: {test_name}, "
            f"p-values adjusted with {correction}, α = {_alpha(significance.alpha)}; {claim}. "
            "The mean difference is model A minus model B; the CI is for that difference (unadjusted)."
        )
    )
    rows = []
    for r in sorted(entry.cv, key=lambda r: r.pair):
        es = f.num(r.effect_size)
        if r.effect_size_name and r.effect_size is not None:
            es = f"{r.effect_size_name} = {es}"
        rows.append(
            (
                _Cell(f"{r.model_a} vs {r.model_b}"),
                _Cell(f.num(r.mean_difference)),
                _Cell(f.num(r.statistic)),
                _Cell(f.df(r.df)),
                _Cell(f.pvalue(r.pvalue)),
                _Cell(f.pvalue(r.pvalue_adjusted)),
                _Cell(es),
                _Cell(f.ci(r.ci)),
                _Cell(_verdict_with_ci(r, correction), r.significant),
            )
        )
    doc.add(
        _Table(
            ("Pair (A vs B)", "Mean difference", "Statistic", "df", "p", "Adjusted p", "Effect size", "CI", "Verdict"),
            tuple(rows),
        )
    )
    note = dataset_failure_note(entry)
    if note:
        doc.add(_Paragraph(note))


def _mcnemar_table(doc: _Document, entry: DatasetComparison | Mapping, cv: EvaluationResult, f: _Fmt) -> None:
    entry = DatasetComparison.from_dict(entry)
    if not entry.test_set:
        if cv.task not in (None, "classification"):
            doc.add(
                _Paragraph(
                    f"McNemar's test needs per-example correctness; it is run for classification only, "
                    f"not for {cv.task}."
                )
            )
        else:
            doc.add(_Paragraph("No sealed test-set comparisons were recorded for this dataset."))
        return
    doc.add(
        _Paragraph(
            "McNemar's test on the sealed test set: n01 counts the test examples only model B classified "
            f"correctly, n10 those only model A classified correctly; {SEALED_QUESTION}."
        )
    )
    rows = tuple(
        (
            _Cell(f"{r.model_a} vs {r.model_b}"),
            _Cell(str(r.method if "method" in r.recorded else _DASH)),
            _Cell(f.df(r.n01)),
            _Cell(f.df(r.n10)),
            _Cell(f.num(r.statistic)),
            _Cell(f.pvalue(r.pvalue)),
            _Cell(f.pvalue(r.pvalue_adjusted)),
            _Cell(f.num(r.accuracy_a)),
            _Cell(f.num(r.accuracy_b)),
            _Cell(_verdict(r), r.significant),
        )
        for r in sorted(entry.test_set, key=lambda r: r.pair)
    )
    doc.add(
        _Table(
            (
                "Pair (A vs B)",
                "Method",
                "n01",
                "n10",
                "Statistic",
                "p",
                "Adjusted p",
                "Accuracy A",
                "Accuracy B",
                "Verdict",
            ),
            rows,
        )
    )


def _across_metric(
    across: Mapping | AcrossDatasets | None, significance: Significance | Mapping, crossval: Mapping
) -> tuple[str | None, bool | None]:
    view, significance = AcrossDatasets.from_dict(across), Significance.from_dict(significance)
    metric = view.metric or significance.metric
    for ds in view.datasets:
        if ds in crossval and crossval[ds].greater(metric, None) is not None:
            return metric, bool(crossval[ds].greater(metric))
    return metric, significance.higher_is_better


def _replicates_phrase(significance: Significance | Mapping, crossval: Mapping) -> str:
    """What a dataset's mean score is a mean over, by the designs that were run (the across-datasets ranks)."""
    significance = Significance.from_dict(significance)
    kinds = set()
    for name, cv in crossval.items():
        entry = significance.dataset(name)
        sweep = " at each model's best point" if entry.sweep is not None else ""
        kind = entry.replicates or cv.replicate_kind
        design = designs.of_scheme(scheme_dict(cv), design=entry.design, replicates=kind)
        question = designs.question(entry.question, one_problem=cv.problem_kind.one_problem)
        kinds.add(f"{question.over(design, 'the ').strip()}{sweep}")
    return " / ".join(sorted(kinds)) if kinds else "over each dataset's replicates"


def _across_section(
    doc: _Document,
    across: Mapping | AcrossDatasets | None,
    significance: Significance | Mapping,
    crossval: Mapping,
    f: _Fmt,
    cd_image,
    scores_table: bool = True,  # False: the benchmark view's per-dataset table shows these means (with ranks)
    pairwise_view: Sequence | None = None,
    over: str | None = None,
) -> None:
    """The across-datasets section. ``pairwise_view``: the blocks of the k x k pairwise matrix (.matrix), shown
    under its own heading before the per-pair tables, in place of a sentence per pair beyond the CD. ``over``: what
    a dataset's mean is a mean over (default: the designs that were run; ``replearn compare`` says it of its table).
    """
    doc.add(_Heading(2, "Across datasets"))
    view, significance = AcrossDatasets.from_dict(across), Significance.from_dict(significance)
    ranks = {str(k): float(v) for k, v in view.average_ranks.items()}
    n = view.n
    if not view.ran and not ranks:
        reason = view.reason or "no reason recorded"
        doc.add(_Paragraph(f"The across-datasets comparison (Friedman test) was not run: {reason}."))
        return
    metric, higher = _across_metric(view, significance, crossval)
    models = list(view.models)
    datasets = list(view.datasets)
    over = over if over is not None else _replicates_phrase(significance, crossval)  # the design's, not "CV"
    doc.add(
        _Paragraph(
            f"Models are ranked on each dataset by their mean {metric} {over} "
            f"({'higher' if higher or higher is None else 'lower'} is better; rank 1 is best, ties share the average "
            f"rank), then the ranks are averaged over the N = {n} datasets."
        )
    )
    scores = view.scores
    if scores and models and scores_table:
        doc.add(
            _Table(
                ("Dataset",) + tuple(models),
                tuple((_Cell(str(ds)),) + tuple(_Cell(f.num(v)) for v in row) for ds, row in zip(datasets, scores)),
                caption=f"Mean {metric} {over}, used for the ranking",
            )
        )
    order = sorted(ranks, key=lambda name: (ranks[name], name))
    best = min(ranks.values()) if ranks else None
    doc.add(
        _Table(
            ("Model", "Average rank"),
            tuple((_Cell(name), _Cell(f.num(ranks[name]), ranks[name] == best)) for name in order),
        )
    )
    if not view.ran:
        doc.add(_Paragraph(f"No across-datasets test was run: {view.reason or 'no reason recorded'}."))
        return
    fr = view.friedman
    nem = view.nemenyi if view.nemenyi is not None else Nemenyi()
    alpha = nem.alpha if view.nemenyi is not None else significance.alpha
    exact = fr.pvalue_method == "exact"
    items = [
        f"Friedman χ²_F = {f.num(fr.statistic)} (df = {f.df(fr.df)}, N = {n} datasets, "
        f"k = {len(models)} models), p = {f.pvalue(fr.pvalue)} "
        + (
            "(exact: the permutation distribution of the ranks within each dataset)"
            if exact
            else "(chi-square approximation)"
        ),
    ]
    if not exact:  # at small N the Iman-Davenport approximation is liberal: shown only beside the chi-square p
        f_stat = fr.f_statistic
        items.append(
            f"Iman–Davenport F_F = {'∞' if f_stat is None else f.num(f_stat)} (df = {f.df(fr.df_f)}), "
            f"p = {f.pvalue(fr.f_pvalue)}"
        )
    items.append(
        f"Nemenyi critical difference CD = {f.num(nem.cd)} at α = {_alpha(alpha)} "
        f"(q_α = {f.num(nem.q_alpha)}, k = {len(models)} models, N = {n} datasets)"
    )
    doc.add(_List(tuple(items)))
    if view.significant:
        doc.add(
            _Paragraph(
                f"Friedman's test rejects, at α = {_alpha(significance.alpha)} over N = {n} datasets, the "
                "hypothesis that all models perform equally; the post-hoc comparisons below say which pairs differ."
            )
        )
    else:
        doc.add(
            _Paragraph(
                f"Friedman's test does not reject, at α = {_alpha(significance.alpha)} over N = {n} datasets, "
                "the hypothesis that all models perform equally, so no pair is declared different; the rank diagram "
                "is descriptive."
            )
        )
    if cd_image is not None:
        doc.add(cd_image)
    cd = nem.cd
    sentences = []
    if view.significant:
        for clique in nem.cliques:
            members = sorted(clique, key=lambda name: (ranks.get(name, math.inf), name))
            if len(members) >= 2:
                lo, hi = ranks.get(members[0]), ranks.get(members[-1])
                span = _DASH if lo is None or hi is None else f.num(hi - lo)
                sentences.append(
                    f"{_join_names(members)}: not significantly different by Nemenyi's CD "
                    f"(average ranks span {span} < CD = {f.num(cd)})."
                )
        if cd is not None and math.isfinite(float(cd)) and pairwise_view is None:
            for i, a in enumerate(order):
                for b in order[i + 1 :]:
                    if ranks[b] - ranks[a] >= float(cd):  # Demšar: a difference of at least CD is significant
                        sentences.append(
                            f"{a} is significantly better than {b} by Nemenyi's CD over N = {n} datasets "
                            f"(rank difference {f.num(ranks[b] - ranks[a])} ≥ CD = {f.num(cd)})."
                        )
    if sentences:
        doc.add(_List(tuple(sentences)))
    if pairwise_view is not None:
        doc.add(_Heading(3, "Pairwise view"))
        for block in pairwise_view:
            doc.add(block)
    _posthoc_table(doc, view.posthoc, f)


def _how_to_read(doc: _Document, significance: Significance | Mapping) -> None:
    significance = Significance.from_dict(significance)
    correction = significance.correction
    if correction == "holm":
        adjust = (
            "Holm's step-down procedure adjusts the p-values so that the family-wise error rate over all "
            "pairs of models on a dataset stays at α."
        )
    elif correction == "bonferroni":
        adjust = (
            "The Bonferroni correction multiplies the p-values by the number of pairs, which controls the "
            "family-wise error rate over all pairs of models on a dataset at α (more conservatively than Holm)."
        )
    elif correction not in ("none", None):
        adjust = (
            f"{_correction_name(correction)}'s procedure adjusts the p-values so that the family-wise error rate "
            "over all pairs of models on a dataset stays at α."
        )
    else:
        adjust = (
            "The p-values are not adjusted for multiple comparisons: with many pairs, some 'significant' "
            "verdicts are expected by chance (Holm's procedure would control the family-wise error)."
        )
    doc.add(_Heading(2, "How to read this report"))
    doc.add(
        _List(
            (
                "Cross-validation tables summarise the per-split scores; the spread (± standard deviation) "
                "shows how much a score depends on the split.",
                _cv_test_note(significance.pairwise_test),
                adjust,
                "McNemar's test uses the sealed test set, scored once per model after refitting on the whole "
                "development set: it compares only the examples on which the two models disagree. The sealed "
                "tests answer a narrower question than cross-validation (these two fitted models, on examples "
                "like the test part) and confirm a pair's cross-validation verdict: they are tested only after "
                "it, in one family (gatekeeping), so the report as a whole says 'significant' for a pair that "
                "does not differ at most α of the time.",
                "Across datasets, the Friedman test compares average ranks (Demšar 2006). It runs only on at least "
                "stats.min_datasets datasets (default 5); with N ≤ 10 datasets its p-value is exact, because the "
                "chi-square approximation (and Iman and Davenport's F, which rejects 17-19 % of true nulls at "
                "N = 2-3) is unreliable there. Pairs are compared only after Friedman's test rejects. Models joined "
                "by a bar in the critical difference diagram differ by less than the Nemenyi CD.",
                "A verdict of 'no significant difference' is not evidence that the models are equivalent"
                + (
                    "; the Bayesian tables say when two models are practically equivalent (a probability above "
                    f"{_DECISION:g} for the region of practical equivalence)."
                    if significance.bayesian.enabled
                    else "."
                ),
            )
        )
    )


def _cv_test_note(test) -> str:
    if test == "half_sampling_ttest":
        return (
            "On one dataset, a verdict about datasets of the same size needs the variance of the whole "
            "cross-validation estimate over datasets, which no resampling of one dataset shows. replearn estimates "
            "it by half-sampling (the delete-d jackknife, Shao & Wu 1989): cross-validation inside random subsets "
            "of the training part shows how much the estimate moves with the data. The t-test divides the mean "
            "difference by that standard error (docs/statistics.md, 'Which test when'); its size and interval "
            "coverage are measured by make calibration."
        )
    if test in ("cv52_ttest", "cv52_ftest"):
        return (
            "The 5x2cv tests (Dietterich 1998; Alpaydın 1999) estimate the variance from five repeats of "
            "2-fold cross-validation, whose two training sets never overlap; plain paired t-tests over "
            "folds whose training sets overlap are far too liberal."
        )
    if test in ("replicate_ttest", "replicate_wilcoxon", "replicate_sign_test"):
        return (
            "Seed replicates on one fixed held-out part are independent given that part, so they are paired by "
            "seed and tested as independent pairs: the verdict is about this held-out part only."
        )
    return (
        "The corrected resampled t-test (Nadeau & Bengio 2003) inflates the variance of the paired "
        "differences by (1/J + n_test/n_train) because the cross-validation training sets overlap, "
        "which makes the ordinary paired t-test far too liberal; the term is a heuristic, too small for "
        "unstable learners (1-NN, deep trees), whose type-I error it roughly doubles."
    )


# --------------------------------------------------------------------------- significance: extra sections
# (Bayesian probabilities, the sealed-test-set metric test, the Friedman post-hoc table and the
# pairwise comparisons over datasets; each renders only when its key is in significance.json.)

_DECISION = 0.95  # posterior probability needed for a Bayesian verdict (Benavoli et al. 2017)


def _decision_words(decision, a: str, b: str) -> str:
    """A recorded Bayesian decision in words ("a_better", "b_better", "equivalent"; anything else: no decision)."""
    return {
        "a_better": f"{a} practically better",
        "b_better": f"{b} practically better",
        "equivalent": "practically equivalent",
    }.get(str(decision), "no decision")


def _bayes_verdict(a: str, b: str, p_a, p_eq, p_b) -> tuple[str, bool]:
    for p, text in (
        (p_a, f"{a} practically better"),
        (p_eq, "practically equivalent"),
        (p_b, f"{b} practically better"),
    ):
        if p is not None and float(p) > _DECISION:
            return text, True
    return "no decision", False


def _rope_text(significance: Significance | Mapping, rope, f: _Fmt) -> str:
    """ "±0.010" for an absolute ROPE, "±1% of the pair's mean score" for a relative one."""
    setting = Significance.from_dict(significance).bayesian
    if setting.rope_scale == "relative" and setting.rope is not None:
        return f"±{100 * float(setting.rope):g}% of the pair's mean score"
    return f"±{f.num(rope)}"


def _bayesian_table(
    doc: _Document, entry: DatasetComparison | Mapping, significance: Significance | Mapping, f: _Fmt
) -> None:
    rows_in = sorted(DatasetComparison.from_dict(entry).bayesian, key=lambda r: r.pair)
    if not rows_in:
        return
    rope = _rope_text(significance, rows_in[0].rope, f)
    half = rows_in[0].test == "bayesian_t_posterior"
    doc.add(_Heading(3, "Bayesian comparison"))
    doc.add(
        _Paragraph(
            (
                "Bayesian t posterior on the half-sampling standard error (the pairwise test's)"
                if half
                else "Bayesian correlated t-test (Benavoli et al. 2017) on the same replicate scores"
            )
            + ": the posterior probabilities that model A is better by more than the region of practical "
            f"equivalence ({rope}), that the two are practically equivalent, or that B is better. "
            f"{(rows_in[0].decision_rule or '').capitalize()}: the same multiplicity control as the "
            "p-values, so the table never names a winner that the pairwise test does not."
        )
    )
    rows = []
    for r in rows_in:
        a, b = r.pair
        if r.decision is not None:
            verdict = _decision_words(r.decision, a, b)
            strong = r.decision != "undecided"
        else:
            verdict, strong = _bayes_verdict(a, b, r.p_a_better, r.p_equivalent, r.p_b_better)
        rows.append(
            (
                _Cell(f"{a} vs {b}"),
                _Cell(f.num(r.p_a_better)),
                _Cell(f.num(r.p_equivalent)),
                _Cell(f.num(r.p_b_better)),
                _Cell(f.num(r.posterior_mean)),
                _Cell(f.ci(r.credible_interval)),
                _Cell(verdict, strong),
            )
        )
    doc.add(
        _Table(
            (
                "Pair (A vs B)",
                "P(A better)",
                "P(equivalent)",
                "P(B better)",
                "Posterior mean A − B",
                "95% credible interval",
                "Verdict",
            ),
            tuple(rows),
        )
    )


def _test_set_metric_table(
    doc: _Document, entry: DatasetComparison | Mapping, significance: Significance | Mapping, f: _Fmt
) -> None:
    res = DatasetComparison.from_dict(entry).test_set_metric
    if res is None:
        return
    name = _label(res.test or "resampling test")
    doc.add(_Heading(3, f"{name[0].upper() + name[1:]} (sealed test set)"))
    if not res.ran:
        doc.add(_Paragraph(f"Not run: {res.reason or 'no reason recorded'}."))
        return
    correction = _correction_name(Significance.from_dict(significance).correction)
    methods = {str(r.method) for r in res.rows}
    if methods and all(m.startswith("exact") for m in methods):  # 0/1 scores: the permutation test in closed form
        how = "exact p-values over every swap of the examples' pair of predictions, no resampling"
    elif any(m.startswith("exact") for m in methods):
        how = f"exact where the score is 0/1, else {res.n_resamples} resamples, seeded"
    else:
        how = f"{res.n_resamples} resamples, seeded"
    doc.add(
        _Paragraph(
            f"{name[0].upper() + name[1:]} of {res.metric} on the sealed test predictions "
            f"({how}), p-values adjusted with {correction} in one gated family with the cross-validation "
            f"verdicts; {SEALED_QUESTION}. The difference is model A minus model B."
        )
    )
    rows = tuple(
        (
            _Cell(f"{r.model_a} vs {r.model_b}"),
            _Cell(f.num(r.score_a)),
            _Cell(f.num(r.score_b)),
            _Cell(f.num(r.mean_difference)),
            _Cell(f.pvalue(r.pvalue)),
            _Cell(f.pvalue(r.pvalue_adjusted)),
            _Cell(_verdict(r), r.significant),
        )
        for r in sorted(res.rows, key=lambda r: r.pair)
    )
    doc.add(_Table(("Pair (A vs B)", "Score A", "Score B", "Difference", "p", "Adjusted p", "Verdict"), rows))


def _posthoc_table(doc: _Document, posthoc: Posthoc, f: _Fmt) -> None:
    if not posthoc.recorded:
        return
    if not posthoc.ran:
        doc.add(_Paragraph(f"Post-hoc comparisons were not run: {posthoc.reason or 'no reason recorded'}."))
        return
    method = posthoc.procedure
    name = _correction_name(method)
    control = posthoc.control
    family = f"every model against the control {control}" if control is not None else "all pairs of models"
    doc.add(
        _Paragraph(
            f"Post-hoc comparisons on the average ranks, {family}: z = (R_B − R_A) / √(k(k+1)/(6N)), p-values "
            f"adjusted with {name} at α = {_alpha(posthoc.alpha)}. The bars of the diagram use the Nemenyi "
            "critical difference; a more powerful procedure can find a pair significant although a bar joins it. "
            "Effect sizes are computed over the datasets and are positive when model A is better."
        )
    )
    rows = tuple(
        (
            _Cell(f"{c.a} vs {c.b}"),
            _Cell(f.num(c.rank_a)),
            _Cell(f.num(c.rank_b)),
            _Cell(f.num(c.z)),
            _Cell(f.pvalue(c.pvalue)),
            _Cell(f.pvalue(c.pvalue_adjusted)),
            _Cell(f.num(c.rank_biserial)),
            _Cell(f.num(c.cliffs_delta)),
            _Cell("significant" if c.significant else "not significant", bool(c.significant)),
        )
        for c in posthoc.comparisons
    )
    doc.add(
        _Table(
            ("Pair (A vs B)", "Rank A", "Rank B", "z", "p", "Adjusted p", "Rank-biserial", "Cliff's δ", "Verdict"),
            rows,
            caption=f"Post-hoc tests ({name})",
        )
    )


def _across_pairs_section(
    doc: _Document,
    pairs: AcrossPairs | Mapping | None,
    significance: Significance | Mapping,
    f: _Fmt,
    crossval: Mapping | None = None,
    over: str | None = None,
) -> None:
    """The pairs of models over the datasets, each dataset's score the mean ``over`` its replicates (default: worded
    by the designs that were run on ``crossval``; ``replearn compare`` says it of its table)."""
    if not pairs:
        return
    pairs = AcrossPairs.from_dict(pairs)
    doc.add(_Heading(3, "Pairs of models across datasets"))
    if not pairs.ran:
        doc.add(_Paragraph(f"Not run: {pairs.reason or 'no reason recorded'}."))
        return
    test = _test_name(pairs.test)
    correction = _correction_name(Significance.from_dict(significance).correction)
    n = len(pairs.datasets)
    doc.add(
        _Paragraph(
            f"Each pair of models compared over the {n} datasets by the {test} on the mean {pairs.metric} "
            f"{over if over is not None else _replicates_phrase(significance, crossval or {})} "
            f"(Demsar 2006, §3.1), p-values adjusted with {correction}. "
            f"With {n} datasets no p-value can fall below "
            f"{f.pvalue(pairs.smallest_possible_pvalue)}. "
            "Wins count the datasets on which each model is better; effect sizes are positive when model A is better."
        )
    )
    if pairs.bayesian_withheld:
        doc.add(_Paragraph(f"Bayesian signed-rank test not run: {pairs.bayesian_withheld}."))
    rows_in = sorted(pairs.rows, key=lambda r: (str(r.model_a), str(r.model_b)))
    bayes = any(r.bayesian_signed_rank for r in rows_in)

    def count(value) -> str:
        return _DASH if value is None else str(value)

    rows = []
    for r in rows_in:
        cells = [
            _Cell(f"{r.model_a} vs {r.model_b}"),
            _Cell(f.num(r.mean_difference)),
            _Cell(f"{count(r.wins_a)} / {count(r.wins_b)} / {count(r.ties)}"),
            _Cell(f.num(r.statistic)),
            _Cell(f.pvalue(r.pvalue)),
            _Cell(f.pvalue(r.pvalue_adjusted)),
            _Cell(f.pvalue(r.sign_test_pvalue)),
            _Cell(f.num(r.rank_biserial)),
            _Cell(f.num(r.cliffs_delta)),
        ]
        if bayes:
            br = r.bayesian_signed_rank or BayesianSignedRank()
            probs = " / ".join(f.num(p) for p in (br.p_a_better, br.p_equivalent, br.p_b_better))
            cells.append(_Cell(f"{probs} ({_decision_words(br.decision, str(r.model_a), str(r.model_b))})"))
        cells.append(_Cell(_verdict_words(r.significant, r.winner), r.significant))
        rows.append(tuple(cells))
    headers = [
        "Pair (A vs B)",
        "Mean difference",
        "Wins A / B / ties",
        "Statistic",
        "p",
        "Adjusted p",
        "Sign test p",
        "Rank-biserial",
        "Cliff's δ",
    ]
    if bayes:
        rope = next(r.bayesian_signed_rank.rope for r in rows_in if r.bayesian_signed_rank)
        headers.append(f"Bayesian signed-rank P(A) / P(≈, {_rope_text(significance, rope, f)}) / P(B)")
    headers.append("Verdict")
    doc.add(_Table(tuple(headers), tuple(rows)))


def _sweep_section(
    doc: _Document, entry: DatasetComparison | Mapping, significance: Significance | Mapping, f: _Fmt, image
) -> None:
    """A sweep: each model's curve along the axis with its best and one-standard-error points, and the best
    point against its neighbours by the design's test."""
    sweep = DatasetComparison.from_dict(entry).sweep
    if sweep is None:
        return
    doc.add(_Heading(3, f"Sweep over {sweep.axis}"))
    order = "the configured order" if sweep.simplest == "first" else "reverse configured order"
    se = sweep.se or "replicates"
    doc.add(
        _Paragraph(
            f"Mean {sweep.metric} at each point; standard errors: {se}. The best point has the best mean; "
            f"the one-standard-error choice is the simplest point (design.simplest: {order}) whose mean is within "
            "one standard error of the best (Hastie, Tibshirani & Friedman, ESL §7.10). The best point is tested "
            "against its neighbours by a max-t test whose null distribution chooses the best point again in "
            "every draw, and models are "
            "compared at their best points by a test whose null distribution chooses the best points again in "
            "every draw, with an interval that leans against that choice, so choosing the best point on the same "
            "replicates does not inflate the error rate."
        )
    )
    if image is not None:
        doc.add(image)
    rows = []
    for key, m in sorted(sweep.models.items()):
        curve = " · ".join(f"{c['point']}: {f.num(c['mean'])}" for c in m.curve)
        nb = "; ".join(
            f"vs {r.neighbour}: Δ = {f.num(r.mean_difference)}, adjusted p = {f.pvalue(r.pvalue_adjusted)}"
            f" ({'significant' if r.significant else 'not significant'}, {_label(r.test)}, "
            f"family of {r.family})"
            for r in m.neighbours
        )
        rows.append((_Cell(key), _Cell(str(m.best)), _Cell(str(m.one_se)), _Cell(curve), _Cell(nb or _DASH)))
    doc.add(_Table(("Model", "Best point", "One-SE point", "Mean at each point", "Best vs neighbours"), tuple(rows)))


def _reproduction_section(doc: _Document, reproduction: ReproductionRecord | Mapping | None, f: _Fmt, images) -> None:
    """The worked example of a course text this experiment reproduces: published beside measured."""
    reproduction = ReproductionRecord.from_dict(reproduction)
    if not reproduction.preset:
        return
    records = list(reproduction.records)
    done = sum(bool(r.reproduced) for r in records)
    doc.add(_Heading(2, f"Reproduction: {reproduction.preset}"))
    if reproduction.notes:
        doc.add(_Paragraph(str(reproduction.notes)))
    doc.add(
        _Paragraph(
            f"{done} of {len(records)} quantities reproduced within their stated tolerance (|measured − published| ≤ "
            "tolerance). Every measured value was computed in this run, by replearn's own algorithms except the "
            "records whose source says 'arithmetic check of the text'; the published value is the one printed in the "
            "text, derived from its formula, the corrected value of an erratum, or the course's published solution, "
            "as the source column says."
        )
    )
    rows = tuple(
        (
            _Cell(str(r.quantity)),
            _Cell(f.num(r.published)),
            _Cell(f.num(r.measured)),
            _Cell(f.num(r.tolerance)),
            _Cell("reproduced" if r.reproduced else "NOT reproduced", not r.reproduced),
            _Cell(str(r.source)),
        )
        for r in records
    )
    doc.add(_Table(("Quantity", "Published", "Measured", "Tolerance", "Verdict", "Source"), rows))
    for image in images:
        doc.add(image)


def _family_section(doc: _Document, cv: EvaluationResult, f: _Fmt, curves_image) -> None:
    """An experiment family's problem (its description, published values where the family gives them) and the
    learning curves of its units over the seeds."""
    fam = ProblemFamily.from_dict(cv.family)
    problem = dict(fam.problem)
    facts = ", ".join(
        f"{k} = {v}" for k, v in sorted(problem.items()) if isinstance(v, (int, float, str)) and not isinstance(v, bool)
    )
    doc.add(
        _Paragraph(
            f"A problem of the {fam.name} family ({fam.task}): {facts}."
            + (" A new problem instance was drawn for every replicate." if fam.resampled_problem else "")
        )
    )
    tables = family_views.problem_tables(str(fam.name))
    if tables is not None:  # the family's own tables (rl: V* beside the published values)
        for block in tables(problem, f):
            doc.add(block)
    if curves_image is not None:
        doc.add(
            _Paragraph(
                "Learning curves over the seeds: the mean of each unit at every iteration or round with a band of "
                "± one standard deviation (over the replicates that reach it)."
            )
        )
        doc.add(curves_image)


def _family_scaling_rows(crossval: Mapping) -> tuple[str | None, dict]:
    """``(axis, rows[metric][unit] = [(size, mean, std)])`` over the datasets of ``crossval``, the problems of one
    family (report plot data)."""
    axis: str | None = None
    rows: dict[str, dict] = {}
    for cv in crossval.values():
        fam = ProblemFamily.from_dict(cv.family)
        if not fam.scale_by:
            continue
        axis = fam.scale_by
        size = fam.problem[axis] if axis in fam.problem else None
        if not isinstance(size, (int, float)) or isinstance(size, bool):
            continue
        for metric in fam.scale_metrics:
            for unit, m in cv.models.items():
                vals = [v for v in m.values(metric) if v is not None]
                if vals:
                    mean, std = _mean_std(vals)
                    rows.setdefault(metric, {}).setdefault(unit, []).append((float(size), mean, std))
    return axis, rows


def _family_scaling_section(doc: _Document, family: str, axis: str, rows: Mapping, f: _Fmt, image) -> None:
    doc.add(_Heading(2, f"Family {family}: scaling with {axis}"))
    doc.add(
        _Paragraph(
            f"Each unit's mean (± one standard deviation over the seeds) of {', '.join(sorted(rows))} against the "
            f"problem's {axis}, across the datasets of this run. Wall-clock times are logged to MLflow only "
            "(time.* metrics of the child runs), never written to the DVC outputs."
        )
    )
    if image is not None:
        doc.add(image)
    table = []
    for metric in sorted(rows):
        for unit in sorted(rows[metric]):
            for size, mean, std in sorted(rows[metric][unit]):
                table.append((_Cell(metric), _Cell(unit), _Cell(f.num(size)), _Cell(f"{f.num(mean)} ± {f.num(std)}")))
    doc.add(_Table(("Metric", "Unit", axis, "Mean ± SD"), tuple(table)))
