"""One family of verdicts per dataset: the cross-validation pairs first, the sealed test set as their confirmation.

A dataset's report can print three kinds of verdict on a pair of models: the cross-validation test (the design's
question: datasets of this size, a fixed held-out part, or a problem over seeds), McNemar's test and the paired
test of the primary metric on the sealed test set. The sealed tests answer a narrower question -- **these two
fitted models** (each trained once on the whole development set) on examples like the sealed test part -- and
taken on their own at level alpha they would add their own false verdicts to the cross-validation test's: under
the design's null the report said "significant" somewhere 8.5 % of the time with 1-NN (issue 39).

So the sealed tests are a **gated** family: a pair's sealed tests are tested only after its cross-validation
verdict, by the graphical procedure of Bretz, Maurer, Brannath & Posch (2009) (:func:`replearn.stats.graphical`,
a closed test, valid under any dependence):

* every cross-validation pair starts with ``alpha / m`` (m testable pairs), the sealed tests with nothing;
* a rejected cross-validation pair passes half its level to its own sealed tests and half to the other pairs
  (all to its sealed tests when it is the only pair, all to the other pairs when it has no sealed test);
* a rejected sealed test passes its level to the pair's other sealed test and to the other cross-validation
  pairs (half each, or all to the one that exists).

With one pair this is the fixed-sequence test (cross-validation at alpha, then the sealed tests by Holm at
alpha); with no sealed test it is Holm's procedure over the pairs, exactly as before. The probability that the
report prints any verdict when no pair differs is then at most alpha, and ``make calibration`` measures it with
the sealed tests on (``report-level`` cells). With a correction other than Holm the gate is serial: the sealed
family (adjusted by the same correction, Holm for the all-pairs procedures) is tested only when every
cross-validation pair is significant; with ``correction: none`` each pair's sealed tests are tested at alpha
once its cross-validation verdict is significant.
"""

from __future__ import annotations

import numpy as np

from .. import stats
from ..stats.registry import is_significant

__all__ = ["DETECTABLE_POWER", "GATE_NOTE", "add_detectable", "gate_sealed_tests"]

#: The power at which a "not significant" states the difference it could have detected.
DETECTABLE_POWER = 0.8

GATE_NOTE = (
    "not tested: the sealed test confirms a significant cross-validation verdict of the pair and is not "
    "tested without one (gatekeeping keeps the report's error rate at alpha)"
)


def _pair(row: dict) -> tuple[str, str]:
    return tuple(sorted((str(row["model_a"]), str(row["model_b"]))))  # type: ignore[return-value]


def _winner(row: dict, higher_is_better: bool) -> str | None:
    diff = row.get("mean_difference")
    if diff is None and "accuracy_a" in row:
        diff = row["accuracy_a"] - row["accuracy_b"]
    if not row.get("significant") or not diff:
        return None
    return row["model_a"] if (diff > 0) == higher_is_better else row["model_b"]


def _graph(cv_rows: list[dict], sealed: list[tuple[dict, bool]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p-values, weights, transitions) of the gate graph; nodes: the cv rows, then the sealed rows."""
    m = len(cv_rows)
    nodes = [r["pvalue"] for r in cv_rows] + [r["pvalue"] for r, _ in sealed]
    size = len(nodes)
    weights = np.zeros(size)
    weights[:m] = 1.0 / m
    g = np.zeros((size, size))
    pair_of_cv = [_pair(r) for r in cv_rows]
    sealed_of = {p: [m + i for i, (r, _) in enumerate(sealed) if _pair(r) == p] for p in pair_of_cv}

    def spread(i: int, groups: list[list[int]]) -> None:
        groups = [grp for grp in groups if grp]
        for grp in groups:
            for j in grp:
                g[i, j] += 1.0 / len(groups) / len(grp)

    for i, p in enumerate(pair_of_cv):
        spread(i, [sealed_of[p], [j for j in range(m) if j != i]])
    for i, (r, _) in enumerate(sealed):
        node = m + i
        p = _pair(r)
        siblings = [j for j in sealed_of[p] if j != node]
        spread(node, [siblings, [j for j in range(m) if pair_of_cv[j] != p]])
    return np.asarray(nodes, dtype=np.float64), weights, g


def gate_sealed_tests(entry: dict, cfg: dict, higher_is_better: bool) -> None:
    """Decide a dataset's cross-validation rows and sealed-test rows as one family (module docstring), in place.

    ``entry`` -- the dataset's part of the significance result (``cv``, ``test_set``, ``test_set_metric``);
    ``cfg`` -- the ``stats`` settings. A sealed row that is not tested keeps its p-value, gets
    ``pvalue_adjusted = None``, ``significant = False`` and ``gate`` (why); every sealed row gets ``question``.
    """
    cv_rows = [r for r in entry.get("cv") or [] if r.get("pvalue") is not None]
    metric = entry.get("test_set_metric") or {}
    sealed_all = [(r, True) for r in entry.get("test_set") or []]
    sealed_all += [(r, False) for r in metric.get("rows") or []]
    for r, _ in sealed_all:
        r["question"] = "fitted_models"
    if not sealed_all:
        return
    alpha = float(cfg["alpha"])
    cv_pairs = {_pair(r): r for r in cv_rows}
    testable = [(r, mc) for r, mc in sealed_all if r.get("pvalue") is not None and _pair(r) in cv_pairs]
    untested = [(r, mc) for r, mc in sealed_all if (r, mc) not in testable]
    correction = cfg["correction"]
    if correction == "holm" and cv_rows:
        p, w, g = _graph(cv_rows, testable)
        adjusted = stats.graphical(p, w, g)
        for r, adj in zip(cv_rows + [t[0] for t in testable], adjusted):
            r["pvalue_adjusted"] = float(adj)
            r["significant"] = is_significant(float(adj), alpha)
            r["winner"] = _winner(r, higher_is_better if r in cv_rows else _sealed_hib(r, higher_is_better))
        for r in cv_rows:
            r["correction_used"] = "holm (gatekeeping graph with the sealed tests)"
        for r, _ in testable:
            if not r["significant"] and not cv_pairs[_pair(r)].get("significant"):
                r["gate"] = GATE_NOTE
    else:
        if correction == "none":
            gated_in = [(r, mc) for r, mc in testable if cv_pairs[_pair(r)].get("significant")]
        else:
            gated_in = testable if cv_rows and all(r.get("significant") for r in cv_rows) else []
        proc = "holm" if correction in ("shaffer", "bergmann_hommel") else correction
        serial = list(stats.adjust([r["pvalue"] for r, _ in gated_in], proc)) if gated_in else []
        for (r, _), adj in zip(gated_in, serial):
            r["pvalue_adjusted"] = float(adj)
            r["significant"] = is_significant(float(adj), alpha)
            r["winner"] = _winner(r, _sealed_hib(r, higher_is_better))
        untested += [t for t in testable if t not in gated_in]
    for r, _ in untested:
        r.update(pvalue_adjusted=None, significant=False, winner=None)
        r["gate"] = GATE_NOTE if r.get("pvalue") is not None else r.get("gate")


def _sealed_hib(row: dict, higher_is_better: bool) -> bool:
    """McNemar rows compare accuracies (higher is better); the metric rows the primary metric."""
    return True if "accuracy_a" in row else higher_is_better


def add_detectable(rows: list[dict], cfg: dict) -> None:
    """The minimum detectable effect of every t-based row (:func:`replearn.stats.detectable_difference`): the
    true difference its design detects with 80 % power, at ``alpha / m`` for m testable pairs (the first step of
    Holm's procedure, so the figure never promises more than the family gives). Rows without a standard error
    (rank and sign tests) or degrees of freedom get None."""
    testable = [r for r in rows if r.get("pvalue") is not None]
    level = float(cfg["alpha"]) / max(len(testable), 1)
    for r in rows:
        se, df = r.get("standard_error"), r.get("df")
        value = None
        if se is not None and df is not None and np.isfinite(se) and np.isfinite(df) and df > 0 and r in testable:
            value = stats.detectable_difference(float(se), float(df), level, DETECTABLE_POWER)
        r["detectable_difference"] = value
        r["detectable_level"] = level if r["detectable_difference"] is not None else None
