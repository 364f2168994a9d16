"""Pair two runs cell by cell and test each cell: the engine of ``replearn diff``.

A **cell** is one dataset x model x metric present on both sides. Its replicates pair one to one when both runs
scored the model on the same data (the sha256 of the prepared training part) and the same replicates (the same
kind, test examples, training and test sizes, repeat, fold and point, and for an experiment family the same
problem and seeds); otherwise the cell is **refused** with the reason (``seed 1 -> 2``, ``cv.folds 10 -> 5``, the
data differ ...). Datasets, models and metrics on one side only are listed, not compared.

Each paired cell answers one conditional question, stated on every line: **did the change alter the score on
this dataset with these splits?** -- the data and the splits held fixed, the learners' randomness the only noise.

* **identical**: the same score on every replicate (and the same failed fits): nothing to test.
* the **sign-flip test** of the per-replicate differences ``d_r = b_r - a_r``
  (:func:`replearn.stats.sign_flip_test`; exact, on the lattice of the test sizes for accuracy and error), its
  p-values adjusted over every tested cell (``holm``, or ``bh`` for the false discovery rate);
  "worse"/"better" when the adjusted p is at most alpha, in the metric's direction;
* with the practical **margin** delta (``stats.rope``; relative to A's mean with ``rope_scale: relative``): "by
  more than delta" when the one-sided t-test of ``mean(d) < -delta`` (worse) or ``> delta`` (better) also rejects
  after the same correction; "equivalent within +/- delta" (two one-sided tests) or "non-inferior within delta"
  (the one-sided test of ``mean(d) > -delta``) for a cell with no change detected; otherwise "no change detected",
  with the smallest change the test detects in 80 % of runs;
* a model that **fails** on replicates where it did not is a regression, whatever the scores say; the replicates
  where either side failed are left out of the test.

A seed shared by every replicate (an explicit ``random_state`` in the model's params) is one draw for the whole
run: a change of it moves every replicate together, so the test cannot tell it from a change of the method. A
cell whose models differ *only* in ``random_state`` is reported as a seed change, untested (``model_seed`` redraws
a seed per replicate and is the seed-only change the test is calibrated for); a cell with a fixed seed on both
sides says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...stats.multiple import adjust
from ...stats.registry import is_significant, label
from ...stats.signflip import lattice_unit, shifted_ttest, sign_flip_maxt, sign_flip_test
from .. import designs, records
from ..seeding import derive_seed
from .sources import Side

#: the count metrics whose per-replicate differences lie on the lattice 1 / lcm(test sizes)
COUNT_METRICS = ("accuracy", "error")
POWER = 0.8
MAXT_RESAMPLES = 19_999  # sign patterns of the step-down maxT (the smallest adjusted p: 1 / 20,000)
CORRECTIONS = ("maxt", "holm", "bh", "bonferroni", "none")
FAIL_ON = ("regression", "change", "never")

#: verdicts, worst first (the order of the summary and of the tables)
VERDICTS = (
    "fails more",
    "worse",
    "better",
    "fails less",
    "equivalent",
    "non-inferior",
    "no change detected",
    "seed changed",
    "not testable",
    "identical",
)
REGRESSIONS = ("fails more", "worse")
CHANGES = ("fails more", "worse", "better", "fails less")

QUESTION = "on this dataset with these splits (same data and splits on both sides; the learners' randomness as noise)"
SHORT_QUESTION = "on these splits"


@dataclass
class Settings:
    alpha: float = 0.05
    correction: str = "maxt"  # the step-down maxT over the joint sign flips (Holm's, with the correlation used)
    margin: float = 0.01
    margin_scale: str = "absolute"  # or "relative": a fraction of A's mean |score|
    metrics: tuple[str, ...] | None = None  # None: every metric both sides share
    datasets: tuple[str, ...] | None = None
    models: tuple[str, ...] | None = None
    seed: int = 0  # seeds the approximate randomization where no exact method applies


@dataclass
class Cell:
    dataset: str
    model: str
    metric: str
    higher_is_better: bool
    point: object = None  # a sweep's point (None: any other design)
    n: int = 0  # replicates tested
    mean_a: float | None = None
    mean_b: float | None = None
    change: float | None = None  # mean(b - a), in metric units
    ci: tuple[float, float] | None = None
    effect_size: float | None = None  # Cohen's d_z of b - a
    margin: float | None = None
    pvalue: float | None = None
    pvalue_adjusted: float | None = None
    method: str | None = None
    p_beyond_margin: float | None = None  # adjusted: worse (or better) by more than the margin
    p_non_inferior: float | None = None  # adjusted
    p_equivalent: float | None = None  # adjusted
    mde: float | None = None  # the change detected with 80 % power, in metric units
    sd: float | None = None  # standard deviation of the per-replicate differences
    verdict: str = "not testable"
    beyond_margin: bool = False
    dropped: int = 0  # replicates left out (a failed fit on either side)
    failed_a: int = 0
    failed_b: int = 0
    notes: list[str] = field(default_factory=list)
    changed_params: dict[str, list] = field(default_factory=dict)  # hyperparameter -> [A, B]

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.dataset, self.model, self.metric, "" if self.point is None else repr(self.point))

    @property
    def label(self) -> str:
        """The model, and a sweep's point (``knn @ 5``)."""
        return self.model if self.point is None else f"{self.model} @ {self.point}"


@dataclass
class Refusal:
    dataset: str
    reason: str
    models: list[str] = field(default_factory=list)


@dataclass
class DiffResult:
    """Everything ``replearn diff`` says (:mod:`.render` prints it; ``to_dict`` is its JSON)."""

    a: Side
    b: Side
    settings: Settings
    cells: list[Cell]
    refused: list[Refusal]
    only_in_a: dict[str, list[str]]  # "datasets" / "models" / "metrics" -> names
    only_in_b: dict[str, list[str]]
    changed_params: dict[str, list]  # flattened params.yaml key -> [A, B]
    notes: list[str]
    n_tested: int
    correction_label: str
    mlflow: str | None = None  # what was logged to MLflow (the run of B tagged), or why nothing was

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for c in self.cells:
            out[c.verdict] += 1
        return {k: v for k, v in out.items() if v}

    def outcome(self) -> str:
        """``regression`` (a cell worse or failing more), ``change`` (any significant change), ``identical``
        (every cell identical), ``nothing compared`` (no cell could be paired), else ``no change detected``."""
        if not self.cells:
            return "nothing compared"
        verdicts = {c.verdict for c in self.cells}
        if verdicts & set(REGRESSIONS):
            return "regression"
        if verdicts & set(CHANGES):
            return "change"
        if self.cells and verdicts == {"identical"} and not self.refused:
            return "identical"
        return "no change detected"

    def exit_code(self, fail_on: str) -> int:
        """1 when the gate ``fail_on`` fails: a regression (``regression``), any significant change (``change``), or
        nothing compared under either (a gate that compared nothing cannot pass); ``never``: 0."""
        outcome = self.outcome()
        if fail_on == "never":
            return 0
        if outcome == "nothing compared":
            return 1
        if fail_on == "regression":
            return 1 if outcome == "regression" else 0
        return 1 if outcome in ("regression", "change") else 0


# -- pairing ----------------------------------------------------------------------------------------------
def _flatten(d, prefix: str = "") -> dict:
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    else:
        out[prefix] = d
    return out


def changed_params(a: dict | None, b: dict | None) -> dict[str, list]:
    """The keys of two params.yaml that differ: flattened key -> [A value, B value] (None: absent)."""
    fa, fb = _flatten(a or {}), _flatten(b or {})
    return {k: [fa.get(k), fb.get(k)] for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)}


def _why_splits_differ(cv_a: records.EvaluationResult, cv_b: records.EvaluationResult, params: dict) -> str:
    """The reason two records' replicates cannot be paired, naming the setting that changed where one did."""
    sa, sb = cv_a.scheme, cv_b.scheme
    for what in ("design", "name", "folds", "repeats", "axis", "values"):
        va, vb = getattr(sa, what), getattr(sb, what)
        if va != vb:
            key = {"design": "design", "name": "cv.scheme", "folds": "cv.folds", "repeats": "cv.repeats"}.get(
                what, f"design.{what}"
            )
            return f"the replicates differ ({key} {va} -> {vb})"
    if len(cv_a.splits) != len(cv_b.splits):
        return f"the replicates differ ({len(cv_a.splits)} -> {len(cv_b.splits)} replicates)"
    for key in ("seed", "split.test_size", "split.stratify"):
        if key in params:
            va, vb = params[key]
            return f"the splits differ ({key} {va} -> {vb})"
    if sa.seed != sb.seed:
        return f"the splits differ (their seed {sa.seed} -> {sb.seed})"
    return "the splits differ (other test examples on some replicate)"


def _same_replicates(cv_a: records.EvaluationResult, cv_b: records.EvaluationResult) -> bool:
    if cv_a.scheme != cv_b.scheme or len(cv_a.splits) != len(cv_b.splits):
        return False
    for ra, rb in zip(cv_a.splits, cv_b.splits):
        if (ra.kind, ra.n_train, ra.n_test, ra.repeat, ra.fold, ra.point, ra.test_index) != (
            rb.kind,
            rb.n_train,
            rb.n_test,
            rb.repeat,
            rb.fold,
            rb.point,
            rb.test_index,
        ):
            return False
        if cv_a.problem_kind.one_problem and ra.seed != rb.seed:  # a family's replicate is its seed
            return False
    return True


def _data_reason(cv_a: records.EvaluationResult, cv_b: records.EvaluationResult, params: dict) -> str | None:
    """Why the two records cannot be about the same data, or None."""
    if cv_a.task != cv_b.task:
        return f"the task differs ({cv_a.task} -> {cv_b.task})"
    if cv_a.data_sha256 and cv_b.data_sha256 and cv_a.data_sha256 != cv_b.data_sha256:
        hint = next(
            (
                f" ({k} {params[k][0]} -> {params[k][1]})"
                for k in params
                if k == "seed" or k.startswith(("split.", f"dataset.{cv_a.dataset}."))
            ),
            "",
        )
        return (
            f"the data differ{hint}: the prepared training parts have other contents "
            f"(sha256 {cv_a.data_sha256[:12]} -> {cv_b.data_sha256[:12]})"
        )
    if cv_a.n_examples != cv_b.n_examples:
        return f"the data differ ({cv_a.n_examples} -> {cv_b.n_examples} examples)"
    if cv_a.problem != cv_b.problem:
        return "the problem differs (another environment or problem seed)"
    return None


def _fixed_seed(m: records.ModelEvaluation) -> object | None:
    return (m.params or {}).get("random_state")


def _param_changes(ma: records.ModelEvaluation, mb: records.ModelEvaluation) -> dict[str, list]:
    out: dict[str, list] = {}
    if ma.registry_name != mb.registry_name:
        out["(registry model)"] = [ma.registry_name, mb.registry_name]
    pa, pb = _flatten(ma.params or {}), _flatten(mb.params or {})
    for k in sorted(set(pa) | set(pb)):
        if pa.get(k) != pb.get(k):
            out[k] = [pa.get(k), pb.get(k)]
    return out


def _select(names, wanted: tuple[str, ...] | None) -> list[str]:
    return sorted(n for n in names if wanted is None or n in wanted)


# -- testing ----------------------------------------------------------------------------------------------
def _margin(settings: Settings, a: np.ndarray) -> float:
    if settings.margin_scale == "relative":
        return float(settings.margin) * float(np.mean(np.abs(a))) if a.size else 0.0
    return float(settings.margin)


def _test_cell(cell: Cell, a: list, b: list, sizes: list[int], settings: Settings) -> dict | None:
    """Fill ``cell`` from the paired scores; returns the raw p-values of its tests (None: nothing tested)."""
    keep = [i for i in range(len(a)) if a[i] is not None and b[i] is not None]
    cell.failed_a = sum(v is None for v in a)
    cell.failed_b = sum(v is None for v in b)
    cell.dropped = len(a) - len(keep)
    av = np.array([a[i] for i in keep], dtype=np.float64)
    bv = np.array([b[i] for i in keep], dtype=np.float64)
    cell.n = int(av.size)
    if av.size:
        cell.mean_a, cell.mean_b = float(av.mean()), float(bv.mean())
        cell.change = cell.mean_b - cell.mean_a
    fails_a = {i for i, v in enumerate(a) if v is None}
    fails_b = {i for i, v in enumerate(b) if v is None}
    if fails_b - fails_a:
        cell.notes.append(f"fails on {len(fails_b - fails_a)} replicate(s) where A did not")
    if fails_a - fails_b:
        cell.notes.append(f"no longer fails on {len(fails_a - fails_b)} replicate(s)")
    if np.array_equal(av, bv) and fails_a == fails_b:
        cell.verdict = "identical"
        return None
    if av.size < 2:  # too few replicates to test; new failures still decide
        cell.verdict = "fails more" if fails_b - fails_a else "fails less" if fails_a - fails_b else "not testable"
        cell.notes.append(f"{av.size} replicate(s) where both fits succeeded: nothing to test")
        return None
    d = bv - av
    full = np.zeros(len(a))
    full[keep] = d
    unit = lattice_unit([sizes[i] for i in keep]) if cell.metric in COUNT_METRICS else None
    seed = derive_seed(settings.seed, "diff", cell.dataset, cell.model, cell.metric, repr(cell.point))
    res = sign_flip_test(d, unit=unit, seed=seed, confidence=1.0 - settings.alpha)
    cell.pvalue = float(res.pvalue)
    cell.method = res.conventions["method"]
    cell.ci = (float(res.ci[0]), float(res.ci[1])) if res.ci is not None else None
    es = res.effect_size
    cell.effect_size = float(es) if es is not None and math.isfinite(es) else None
    delta = _margin(settings, av)
    cell.margin = delta
    imp = d if cell.higher_is_better else -d  # positive: B better
    sd = float(np.std(imp, ddof=1))
    out: dict = {"change": cell.pvalue, "differences": full}
    if delta > 0:
        out["worse_beyond"] = shifted_ttest(imp, -delta, "less")
        out["better_beyond"] = shifted_ttest(imp, delta, "greater")
        out["non_inferior"] = shifted_ttest(imp, -delta, "greater")
        out["equivalent"] = max(out["non_inferior"], shifted_ttest(imp, delta, "less"))
    cell.sd = sd  # for the minimum detectable effect, once the family is known
    return out


def _adjust(pvalues: list[float], correction: str) -> list[float]:
    if not pvalues:
        return []
    return [float(p) for p in adjust(pvalues, correction)]


def diff(a: Side, b: Side, settings: Settings) -> DiffResult:
    """Pair, test and decide every cell of ``a`` against ``b`` (module docstring)."""
    params = changed_params(a.params, b.params)
    da, db = set(a.results), set(b.results)
    wanted = set(settings.datasets) if settings.datasets else None
    only_a: dict[str, list[str]] = {"datasets": sorted(d for d in da - db if wanted is None or d in wanted)}
    only_b: dict[str, list[str]] = {"datasets": sorted(d for d in db - da if wanted is None or d in wanted)}
    models_a, models_b, metrics_a, metrics_b = set(), set(), set(), set()
    cells: list[Cell] = []
    refused: list[Refusal] = []
    raw: list[tuple[Cell, dict]] = []
    notes: list[str] = []
    for side in (a, b):
        for dname, version in sorted(side.older_schema.items()):
            notes.append(
                f"{side.describe()}: {dname}'s records are of the older schema version {version} "
                "(no data digest before 6: paired by the replicates' test examples only)"
            )
    for dataset in _select(da & db, settings.datasets):
        ca, cb = a.results[dataset], b.results[dataset]
        keys = _select(set(ca.models) & set(cb.models), settings.models)
        models_a |= {f"{dataset}/{k}" for k in set(ca.models) - set(cb.models)}
        models_b |= {f"{dataset}/{k}" for k in set(cb.models) - set(ca.models)}
        mets = [m for m in ca.metrics if m in cb.metrics and (settings.metrics is None or m in settings.metrics)]
        metrics_a |= set(ca.metrics) - set(cb.metrics)
        metrics_b |= set(cb.metrics) - set(ca.metrics)
        reason = _data_reason(ca, cb, params)
        if reason is None and not _same_replicates(ca, cb):
            reason = _why_splits_differ(ca, cb, params)
        if reason is not None:
            refused.append(Refusal(dataset, reason, keys))
            continue
        sizes = [s.n_test for s in ca.splits]
        # a sweep's points are separate cells (other fits at every point); any other design has one "point"
        points: list = list(dict.fromkeys(s.point for s in ca.splits)) if designs.of_record(ca).has_points else [None]
        at = {repr(p): [i for i, s in enumerate(ca.splits) if p is None or s.point == p] for p in points}
        for key, metric, point in ((k, m, p) for k in keys for m in mets for p in points):
            ma, mb = ca.models[key], cb.models[key]
            idx = at[repr(point)]
            cell = Cell(dataset, key, metric, bool(cb.greater_is_better.get(metric, True)), point=point)
            p = _pair_cell(cell, ma, mb, idx, [sizes[i] for i in idx], settings)
            cells.append(cell)
            if p is not None:
                raw.append((cell, p))
    only_a["models"], only_b["models"] = sorted(models_a), sorted(models_b)
    only_a["metrics"], only_b["metrics"] = sorted(metrics_a), sorted(metrics_b)
    _decide(raw, settings)
    blind = [c for c, _ in raw if c.mde is not None and math.isinf(c.mde)]
    if blind and settings.correction in ("maxt", "holm", "bonferroni"):
        smallest = min(c.n for c in blind)
        notes.append(
            f"{len(blind)} of {len(raw)} tested cells cannot show any change: with {smallest} replicates the exact "
            f"test cannot go below p = {2 / 2**smallest:.2g}, above the corrected level "
            f"{settings.alpha / len(raw):.2g} "
            f"({correction_label(settings.correction)} over {len(raw)} cells); use more cv.repeats, fewer cells "
            "(--metric, --model, --dataset) or --correction bh (the false discovery rate)"
        )
    return DiffResult(
        a=a,
        b=b,
        settings=settings,
        cells=sorted(cells, key=lambda c: (VERDICTS.index(c.verdict), c.key)),
        refused=refused,
        only_in_a=only_a,
        only_in_b=only_b,
        changed_params=params,
        notes=notes,
        n_tested=len(raw),
        correction_label=correction_label(settings.correction),
    )


def _pair_cell(
    cell: Cell, ma: records.ModelEvaluation, mb: records.ModelEvaluation, idx: list[int], sizes: list[int], settings
) -> dict | None:
    """One cell of models ``ma`` (A) and ``mb`` (B) on the replicates ``idx``: a seed change, or tested
    (:func:`_test_cell`); returns the raw p-values (None: not tested)."""
    sa = [ma.scores[cell.metric][i] for i in idx]
    sb = [mb.scores[cell.metric][i] for i in idx]
    cell.changed_params = _param_changes(ma, mb)
    fixed_a, fixed_b = _fixed_seed(ma), _fixed_seed(mb)
    if cell.changed_params and set(cell.changed_params) == {"random_state"}:
        cell.verdict = "seed changed"
        cell.notes.append(
            f"random_state {fixed_a} -> {fixed_b} on every replicate: one seed per side, shared by all replicates, "
            "so its effect cannot be told from a change of the method (model_seed redraws a seed per replicate: the "
            "seed-only change this test is calibrated for)"
        )
        _fill_means(cell, sa, sb)
        return None
    if fixed_a is not None and fixed_b is not None:
        cell.notes.append(
            f"random_state fixed at {fixed_b} on every replicate: a change of the random stream moves every replicate "
            "together and reads as a change of the method"
        )
    return _test_cell(cell, sa, sb, sizes, settings)


def _fill_means(cell: Cell, a: list, b: list) -> None:
    keep = [i for i in range(len(a)) if a[i] is not None and b[i] is not None]
    if keep:
        cell.mean_a = float(np.mean([a[i] for i in keep]))
        cell.mean_b = float(np.mean([b[i] for i in keep]))
        cell.change = cell.mean_b - cell.mean_a
        cell.n = len(keep)


def _maxt(raw: list[tuple[Cell, dict]], settings: Settings) -> list[float]:
    """The change tests' p-values adjusted by the step-down maxT over the joint sign flips
    (:func:`replearn.stats.sign_flip_maxt`): the cells of one dataset x model share their fits, so their replicates
    flip together; never below a cell's own exact p-value."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, (cell, _) in enumerate(raw):
        groups.setdefault((cell.dataset, cell.model, "" if cell.point is None else repr(cell.point)), []).append(i)
    keys = sorted(groups)
    mats = [np.stack([raw[i][1]["differences"] for i in groups[k]]) for k in keys]
    adjusted = sign_flip_maxt(mats, n_resamples=MAXT_RESAMPLES, seed=derive_seed(settings.seed, "diff", "maxt"))
    out = [1.0] * len(raw)
    for k, adj in zip(keys, adjusted):
        for i, p in zip(groups[k], adj):
            out[i] = max(float(p), float(raw[i][1]["change"]))
    return out


def _decide(raw: list[tuple[Cell, dict]], settings: Settings) -> None:
    """Adjust each family of p-values over the tested cells and give every tested cell its verdict."""
    alpha, corr = float(settings.alpha), settings.correction
    m = len(raw)
    margin_corr = "holm" if corr == "maxt" else corr  # the margins' t-tests: Holm's bound (no joint distribution)
    adjusted = {
        what: _adjust([p[what] for _, p in raw], margin_corr)
        for what in ("worse_beyond", "better_beyond", "non_inferior", "equivalent")
        if raw and all(what in p for _, p in raw)
    }
    adjusted["change"] = _maxt(raw, settings) if corr == "maxt" else _adjust([p["change"] for _, p in raw], corr)
    with_margin = [i for i, (_, p) in enumerate(raw) if "non_inferior" in p]
    if with_margin and len(with_margin) < m:  # a zero margin on some cells (relative to a zero mean): their own
        for what in ("worse_beyond", "better_beyond", "non_inferior", "equivalent"):
            vals = _adjust([raw[i][1][what] for i in with_margin], margin_corr)
            full: list = [None] * m
            for i, v in zip(with_margin, vals):
                full[i] = v
            adjusted[what] = full
    # the level the cell's test must reach: alpha / m for Holm and Bonferroni (their first step); BH's depends on how
    # many cells change, so its detectable change is given at alpha itself (its best case) -- and so is none's
    level = alpha / m if corr in ("maxt", "holm", "bonferroni") and m else alpha
    per_se: dict[int, float] = {}  # the detectable change in standard errors, per number of replicates
    for i, (cell, _) in enumerate(raw):
        cell.pvalue_adjusted = adjusted["change"][i]
        p_margin = {w: (adjusted[w][i] if w in adjusted else None) for w in adjusted if w != "change"}
        imp = (cell.change or 0.0) if cell.higher_is_better else -(cell.change or 0.0)
        fails_more = any(n.startswith("fails on") for n in cell.notes)
        fails_less = any(n.startswith("no longer fails") for n in cell.notes)
        if fails_more:
            cell.verdict = "fails more"
        elif is_significant(cell.pvalue_adjusted, alpha) and imp != 0:
            cell.verdict = "worse" if imp < 0 else "better"
            key = "worse_beyond" if imp < 0 else "better_beyond"
            cell.p_beyond_margin = p_margin.get(key)
            cell.beyond_margin = is_significant(cell.p_beyond_margin, alpha)
        elif fails_less:
            cell.verdict = "fails less"
        elif is_significant(p_margin.get("equivalent"), alpha):
            cell.verdict = "equivalent"
        elif is_significant(p_margin.get("non_inferior"), alpha):
            cell.verdict = "non-inferior"
        else:
            cell.verdict = "no change detected"
        cell.p_non_inferior = p_margin.get("non_inferior")
        cell.p_equivalent = p_margin.get("equivalent")
        if cell.verdict in ("no change detected", "non-inferior", "equivalent"):
            cell.mde = _detectable(cell, level, per_se)


def _detectable(cell: Cell, level: float, cache: dict[int, float]) -> float:
    """The change the cell's test detects in 80 % of runs at ``level`` (:func:`replearn.stats.power.
    detectable_difference` at the t interval's standard error and ``n - 1`` degrees of freedom; linear in the
    standard error, so computed once per ``n``), or ``inf`` when the sign-flip test cannot reach ``level`` with
    ``n`` replicates at all (its smallest two-sided p is ``2 / 2^n``)."""
    from ...stats.power import detectable_difference

    if cell.n < 2 or 2.0 / 2.0**cell.n > level:
        return math.inf
    if cell.n not in cache:
        cache[cell.n] = detectable_difference(1.0, cell.n - 1, level, POWER)
    return cache[cell.n] * (cell.sd or 0.0) / math.sqrt(cell.n)


def correction_label(correction: str) -> str:
    """How the diff's family of cells is corrected, in words."""
    if correction == "maxt":
        return label("signflip_maxt")
    return label(correction if correction != "none" else None)
