"""The leaderboard of a benchmark (issue 41): one table a reader takes in at a glance, then the pictures.

A run over :data:`MIN_DATASETS` or more datasets opens its report on this view (the long pairwise tables follow
it), and the report stage writes the same view with the wall-clock columns as ``reports/leaderboard.html`` and
``leaderboard.md`` (times change from run to run, so they stay out of report.html; see :mod:`.cost`). One row per
model, ordered by mean rank:

* **mean rank** over the datasets (the ranks of the across-datasets analysis: 1 = best, ties averaged, a failed or
  missing cell ranks last) with a **bootstrap 95 % interval over datasets** (the datasets resampled with
  replacement, :data:`N_BOOT` times, percentile interval; seed :data:`SEED`, so the page is byte-identical on
  rerun);
* a **Bradley-Terry strength** on the Elo scale (``1000 + 400 log10(pi_i / geometric mean of pi)``) fitted by
  Hunter's (2004) MM algorithm to every pairwise outcome on every dataset (a better rank wins, an equal rank is
  half a win each); each pair also gets one virtual tie (half a win each way), which keeps a model that wins
  every duel finite, and the interval is the same dataset bootstrap;
* **wins / ties / losses** against every other model, summed over datasets;
* the **share of failed cells** (a dataset where the model failed a fit or has no score: its rank is imputed as
  the worst, docs/statistics.md "Failed fits");
* on leaderboard.html, the **median fit and predict seconds** over all its fits (timing/).

These are descriptions, not verdicts: the intervals say how much the ordering depends on which datasets were
drawn. The verdict is the post-hoc procedure's, named in :func:`top_group_sentence` (the models that procedure
cannot tell from the best-ranked one) and drawn in the k x k matrix below the table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...atomic import write_text
from ...stats.registry import label
from ..records import as_evaluations, as_timings
from ..views import Significance
from . import benchmark as _benchmark
from .document import _DASH, _Cell, _Document, _Heading, _Image, _Paragraph, _Table

#: the fewest datasets that get a leaderboard (fewer: the report's section per dataset reads better)
MIN_DATASETS = 8
#: bootstrap resamples of the datasets, and the seed of their generator (fixed: byte-identical pages)
N_BOOT = 1000
SEED = 20240601
LEVEL = 0.95
#: the page written beside report.html, and the sentence of report.html that points to it (fixed text)
PAGE = "leaderboard"
LINK_TEXT = (
    "The same leaderboard with each model's median fit and predict seconds (wall-clock time, kept out of this "
    "report because it changes from run to run) is in leaderboard.html and leaderboard.md beside this report."
)


def applies(n_datasets: int) -> bool:
    """Whether a run over ``n_datasets`` gets the leaderboard."""
    return n_datasets >= MIN_DATASETS


# --------------------------------------------------------------------------------------------- the numbers
def bradley_terry(wins: np.ndarray, iterations: int = 500, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths ``pi`` (geometric mean 1) from ``wins[i, j]`` (i beat j, ties as halves), by the MM
    update ``pi_i <- W_i / sum_j n_ij / (pi_i + pi_j)`` (Hunter 2004), with one virtual tie per pair added.

    ``wins`` may be a stack ``(B, k, k)``: every slice is fitted at once."""
    w = np.asarray(wins, dtype=np.float64)
    single = w.ndim == 2
    w = w[None] if single else w
    k = w.shape[-1]
    off = 1.0 - np.eye(k)
    w = w + 0.5 * off  # the virtual tie: half a win each way for every pair
    n = w + np.swapaxes(w, -1, -2)
    total = w.sum(axis=-1)
    pi = np.ones(w.shape[:-1])
    for _ in range(iterations):
        denom = (n / (pi[..., :, None] + pi[..., None, :]) * off).sum(axis=-1)
        new = total / denom
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))
        done = np.max(np.abs(new - pi)) < tol
        pi = new
        if done:
            break
    return pi[0] if single else pi


def elo(pi: np.ndarray) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale: ``1000 + 400 log10(pi)`` (``pi`` with geometric mean 1)."""
    return 1000.0 + 400.0 * np.log10(pi)


def _pair_wins(ranks: np.ndarray) -> np.ndarray:
    """``(N, k, k)``: 1 where model i ranks better than j on the dataset, 0.5 for a tie, 0 else."""
    r = np.asarray(ranks, dtype=np.float64)
    better = (r[:, :, None] < r[:, None, :]).astype(np.float64)
    tie = (r[:, :, None] == r[:, None, :]).astype(np.float64) * (1.0 - np.eye(r.shape[1]))
    return better + 0.5 * tie


@dataclass(frozen=True)
class Row:
    model: str
    mean_rank: float
    rank_ci: tuple[float, float]
    strength: float
    strength_ci: tuple[float, float]
    wins: int
    ties: int
    losses: int
    failed: int
    n_datasets: int
    fit_seconds: float | None = None
    predict_seconds: float | None = None


def leaderboard_rows(
    crossval: Mapping,
    order: Sequence[str],
    decimals: int | None = None,
    timing: Mapping | None = None,
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> tuple[list[Row], str | None]:
    """The rows of the leaderboard (best mean rank first) and the primary metric they rank (``crossval``: dataset ->
    the crossval record, or its plain data)."""
    crossval = as_evaluations({d: crossval[d] for d in order})
    models, means, metric, higher = _benchmark.mean_table(crossval, order)
    if not order or len(models) < 2:
        return [], metric
    ranks = _benchmark.rank_rows(means, higher, decimals)
    n, k = ranks.shape
    duels = _pair_wins(ranks)
    pi = bradley_terry(duels.sum(axis=0))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    boot_ranks = ranks[idx].mean(axis=1)  # (B, k)
    boot_pi = bradley_terry(duels[idx].sum(axis=1))  # (B, k)
    lo, hi = (1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100
    r_lo, r_hi = np.percentile(boot_ranks, [lo, hi], axis=0)
    e_lo, e_hi = np.percentile(elo(boot_pi), [lo, hi], axis=0)
    strength = elo(pi)
    times = _median_times(crossval, timing, order) if timing is not None else {}
    rows = []
    for j, m in enumerate(models):
        others = [c for c in range(k) if c != j]
        r = ranks[:, j : j + 1]
        rest = ranks[:, others]
        rows.append(
            Row(
                model=m,
                mean_rank=float(ranks[:, j].mean()),
                rank_ci=(float(r_lo[j]), float(r_hi[j])),
                strength=float(strength[j]),
                strength_ci=(float(e_lo[j]), float(e_hi[j])),
                wins=int(np.sum(r < rest)),
                ties=int(np.sum(r == rest)),
                losses=int(np.sum(r > rest)),
                failed=int(np.sum(np.isnan(means[:, j]))),
                n_datasets=n,
                fit_seconds=times[m][0] if m in times else None,
                predict_seconds=times[m][1] if m in times else None,
            )
        )
    rows.sort(key=lambda row: (row.mean_rank, row.model))
    return rows, metric


def _median_times(crossval: Mapping, timing: Mapping, order: Sequence[str]) -> dict[str, tuple]:
    """Per model, (median fit seconds, median predict seconds) over all its fits on the datasets of ``order``;
    ``(None, None)`` for a model without times."""
    timing = as_timings(timing)
    fit: dict[str, list[float]] = {}
    pred: dict[str, list[float]] = {}
    for d in order:
        if d not in crossval or d not in timing:
            continue
        for key in crossval[d].models:
            fit.setdefault(key, []).extend(timing[d].of(key, "fit_seconds"))
            pred.setdefault(key, []).extend(timing[d].of(key, "predict_seconds"))

    def median(values: list[float]) -> float | None:
        return float(np.median(values)) if values else None

    return {m: (median(fit[m]), median(pred[m])) for m in fit}


# --------------------------------------------------------------------------------------------- the verdict
def top_group(significance: Significance | Mapping) -> tuple[str, list[str], str] | None:
    """``(best, group, how)``: the best-ranked model, the models the across-datasets post-hoc procedure cannot
    tell from it (itself included, in rank order) and how that was decided; None without average ranks."""
    significance = Significance.from_dict(significance)
    across = significance.across_datasets
    ranks = across.average_ranks
    if not ranks:
        return None
    order = sorted(ranks, key=lambda m: (ranks[m], m))
    best = order[0]
    if not across.ran:
        return best, order, f"no across-datasets test was run ({across.reason})"
    fr = across.friedman
    if not across.significant:
        return best, order, f"the Friedman test finds no difference among the models (p {_p(fr.pvalue)})"
    ph = across.posthoc
    proc = label(ph.procedure)
    if not ph.ran:
        return best, order, f"Friedman rejects (p {_p(fr.pvalue)}) but no post-hoc ran ({ph.reason})"
    beaten = set()
    for c in ph.comparisons:
        if c.significant and best in (c.a, c.b):
            beaten.add(c.b if c.a == best else c.a)
    group = [m for m in order if m not in beaten]
    alpha = ph.alpha if ph.alpha is not None else significance.alpha
    how = f"Friedman p {_p(fr.pvalue)}, then {proc} at α = {alpha}"
    return best, group, how


def _p(p) -> str:
    """``= 0.012`` or ``< 0.0001``: the relation and the p-value."""
    if p is None:
        return f"= {_DASH}"
    p = float(p)
    return f"= {p:.2g}" if p >= 1e-4 else "< 0.0001"


def _names(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def top_group_sentence(significance: Significance | Mapping, metric: str | None = None) -> str | None:
    """The summary's one sentence across datasets: the top group, the question, the test and N."""
    significance = Significance.from_dict(significance)
    found = top_group(significance)
    if found is None:
        return None
    best, group, how = found
    across = significance.across_datasets
    n = across.n
    what = f" on {metric}" if metric else ""
    k = len(across.average_ranks)
    if len(group) == k:
        return (
            f"Across N = {n} datasets{what} (does a model rank better than another on datasets like these?): no "
            f"model is ahead — {how}; the leaderboard below gives the ranks and their intervals."
        )
    rest = k - len(group)
    others = "the other model ranks" if rest == 1 else f"each of the other {rest} models ranks"
    return (
        f"Across N = {n} datasets{what} (does a model rank better than another on datasets like these?): the top "
        f"group is {_names(group)} — the models the post-hoc procedure cannot tell from the best-ranked {best}; "
        f"{others} significantly below {best} ({how})."
    )


# --------------------------------------------------------------------------------------------- the view
def _interval(lo: float, hi: float, fmt: str) -> str:
    return f"[{lo:{fmt}}, {hi:{fmt}}]"


def _seconds(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return _DASH
    return f"{x:.3g} s"


def leaderboard_blocks(
    rows: Sequence[Row],
    metric: str | None,
    significance: Significance | Mapping,
    images: Sequence[_Image],
    *,
    with_times: bool,
) -> list:
    """The section's blocks: a heading, what the table is, the table and the pictures (CD, matrix, heat-map)."""
    if not rows:
        return []
    n = rows[0].n_datasets
    out: list = [_Heading(2, f"Leaderboard ({len(rows)} models, {n} datasets)")]
    out.append(
        _Paragraph(
            f"One row per model, by mean rank on {metric or 'the primary metric'} over the {n} datasets (1 = best; a "
            f"failed or missing cell ranks last). Intervals: {LEVEL:.0%} bootstrap over datasets ({N_BOOT} "
            "resamples). Strength: Bradley-Terry fitted to every pairwise outcome on every dataset, on the Elo scale "
            "(1000 = the geometric mean; +400 = ten times the odds of winning). W/T/L: wins, ties and losses "
            "against every other model on every dataset. These describe the ordering and how much it depends on the "
            "datasets drawn; the verdict is the post-hoc procedure's, in the matrix below and in the summary."
        )
    )
    found = top_group(significance)
    group = set(found[1]) if found else set()
    headers = ["Rank", "Model", "Mean rank", f"{LEVEL:.0%} interval", "Strength (Elo)", f"{LEVEL:.0%} interval"]
    headers += ["W / T / L", "Failed cells"]
    if with_times:
        headers += ["Median fit", "Median predict"]
    table = []
    for i, r in enumerate(rows, start=1):
        cells = [
            _Cell(str(i)),
            _Cell(r.model, bold=r.model in group),
            _Cell(f"{r.mean_rank:.2f}"),
            _Cell(_interval(*r.rank_ci, ".2f")),
            _Cell(f"{r.strength:.0f}"),
            _Cell(_interval(*r.strength_ci, ".0f")),
            _Cell(f"{r.wins} / {r.ties} / {r.losses}"),
            _Cell(f"{r.failed / r.n_datasets:.0%}" + (f" ({r.failed})" if r.failed else "")),
        ]
        if with_times:
            cells += [_Cell(_seconds(r.fit_seconds)), _Cell(_seconds(r.predict_seconds))]
        table.append(tuple(cells))
    caption = "Bold: the top group (the models the post-hoc procedure cannot tell from the best-ranked one)"
    out.append(_Table(tuple(headers), tuple(table), caption=caption if group and found else None))
    out.extend(images)
    return out


@dataclass(frozen=True)
class LeaderboardArtifacts:
    html: Path | None
    markdown: Path | None


def build_leaderboard_page(
    *,
    crossval: Mapping,
    significance: Significance | Mapping,
    timing: Mapping,
    order: Sequence[str],
    out_dir: Path,
    title: str,
    decimals: int | None = None,
) -> LeaderboardArtifacts:
    """Write ``out_dir/leaderboard.html`` and ``.md`` (with the median fit and predict seconds) for a run with
    :data:`MIN_DATASETS` or more datasets; remove a stale page and return ``(None, None)`` otherwise. The pictures
    are the report's (``out_dir/plots/``), embedded when present."""
    from .html import _render_html
    from .markdown import _render_markdown

    out_dir = Path(out_dir)
    html_path, md_path = out_dir / f"{PAGE}.html", out_dir / f"{PAGE}.md"
    order = [d for d in order if d in crossval]
    rows, metric = leaderboard_rows(crossval, order, decimals, timing) if applies(len(order)) else ([], None)
    if not rows:
        for p in (html_path, md_path):
            p.unlink(missing_ok=True)
        return LeaderboardArtifacts(None, None)
    pictures: dict[str, bytes] = {}
    images = []
    for rel, alt in PICTURES:
        path = out_dir / rel
        if path.is_file():
            pictures[rel] = path.read_bytes()
            images.append(_Image(rel, alt))
    doc = _Document(f"{title}: leaderboard")
    sentence = top_group_sentence(significance, metric)
    if sentence:
        doc.add(_Paragraph(sentence))
    for block in leaderboard_blocks(rows, metric, significance, images, with_times=True):
        doc.add(block)
    doc.add(
        _Paragraph(
            "Times: wall-clock seconds of the last crossval run (timing/<dataset>.json), the median over every fit of "
            "the model on every dataset; they depend on the machine and its load. Every other number is in "
            "report.html, which gives the tests behind the verdict."
        )
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    write_text(html_path, _render_html(doc, pictures), newline="\n", durable=False)
    write_text(md_path, _render_markdown(doc), newline="\n", durable=False)
    return LeaderboardArtifacts(html_path, md_path)


#: the report's pictures the leaderboard shows, in order (relative to the report folder)
PICTURES = (
    ("plots/critical_difference.png", "Critical difference diagram of the average ranks"),
    ("plots/pairwise_matrix.png", "Pairwise matrix: every pair of models across datasets, coloured by the verdict"),
    ("plots/rank_heatmap.png", "Rank of every model on each dataset"),
)
