"""The leaderboard (issue 41): its numbers (Bradley-Terry against a direct likelihood fit, bootstrap intervals,
W/T/L), the top-group sentence from the post-hoc's verdicts, and the report opening on it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from replearn.pipeline import records
from replearn.pipeline.compare import compare_records
from replearn.pipeline.report import build_report
from replearn.pipeline.report import leaderboard as L

from .test_report_benchmark import STATS, _records


def test_bradley_terry_mm_matches_the_maximum_likelihood_fit():
    rng = np.random.default_rng(3)
    k = 5
    wins = rng.integers(0, 20, size=(k, k)).astype(float)
    np.fill_diagonal(wins, 0)
    pi = L.bradley_terry(wins, iterations=5000)
    w = wins + 0.5 * (1 - np.eye(k))  # the virtual tie of every pair

    def nll(theta):
        t = np.concatenate([[0.0], theta])
        diff = t[:, None] - t[None, :]
        return -np.sum(w * (diff - np.logaddexp(0, diff)))

    theta = optimize.minimize(nll, np.zeros(k - 1), method="BFGS", options={"gtol": 1e-10}).x
    ref = np.exp(np.concatenate([[0.0], theta]))
    ref /= np.exp(np.mean(np.log(ref)))
    assert pi == pytest.approx(ref, rel=1e-5)
    # a model that wins every duel stays finite, and on top
    sweep = np.triu(np.full((3, 3), 10.0), 1)
    assert np.all(np.isfinite(L.bradley_terry(sweep))) and np.argmax(L.bradley_terry(sweep)) == 0
    stack = L.bradley_terry(np.stack([wins, wins.T]))
    assert stack[0] == pytest.approx(pi, rel=1e-6) and stack[1] == pytest.approx(1 / pi, rel=1e-4)


def test_rows_count_duels_and_give_intervals_around_the_mean_rank():
    crossval, _ = _records(10)
    cv = {d: records.to_dict(r) for d, r in crossval.items()}
    rows, metric = L.leaderboard_rows(cv, list(cv))
    assert metric == "accuracy" and [r.model for r in rows][0] == "m3"
    for r in rows:
        assert r.wins + r.ties + r.losses == 3 * 10
        assert r.rank_ci[0] <= r.mean_rank <= r.rank_ci[1] and r.strength_ci[0] <= r.strength <= r.strength_ci[1]
    assert rows[0].strength > rows[-1].strength
    m0 = next(r for r in rows if r.model == "m0")
    assert m0.failed == 1  # no score on set_01: ranked last there
    assert L.leaderboard_rows(cv, list(cv)) == (rows, metric)  # seeded bootstrap: the same rows on rerun


def _sig(n):
    crossval, train = _records(n)
    sig = compare_records(crossval, train, STATS, seed=0)
    return {d: records.to_dict(r) for d, r in crossval.items()}, records.to_dict(sig)


def test_the_summary_names_the_top_group_in_one_sentence(tmp_path):
    cv, sig = _sig(10)
    sentence = L.top_group_sentence(sig, "accuracy")
    best, group, how = L.top_group(sig)
    ph = sig["across_datasets"]["posthoc"]
    beaten = {
        c["a"] if c["b"] == best else c["b"] for c in ph["comparisons"] if c["significant"] and best in (c["a"], c["b"])
    }
    assert best == "m3" and set(group) == set(sig["across_datasets"]["average_ranks"]) - beaten
    assert sentence.startswith("Across N = 10 datasets on accuracy (does a model rank better")
    assert f"ranks significantly below {best}" in sentence and "Friedman p < 0.0001, then Holm" in sentence
    # no test ran: no model is ahead
    quiet = {
        "across_datasets": {"average_ranks": {"a": 1.5, "b": 1.5}, "ran": False, "reason": "too few", "n_datasets": 3}
    }
    assert "no model is ahead" in L.top_group_sentence(quiet)


def test_the_report_opens_on_the_leaderboard_and_the_page_has_the_times(tmp_path):
    cv, sig = _sig(10)
    art = build_report(
        crossval=cv,
        significance=sig,
        train_metrics={},
        settings={"title": "bench", "decimals": 3, "dpi": 30, "plots": True},
        experiment={"name": "bench", "params_hash": "0", "datasets": list(cv), "models": []},
        out_dir=tmp_path,
    )
    md = art.markdown.read_text()
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:2] == ["## Summary", "## Leaderboard (4 models, 10 datasets)"]
    summary = md.split("## Leaderboard")[0]
    assert "the top group is" in summary and "m3 better than" not in summary  # no list of pairs
    board = md.split("## Leaderboard")[1].split("\n## ")[0]
    assert board.index("critical_difference.png") < board.index("pairwise_matrix.png") < board.index("rank_heatmap.png")
    assert md.count("critical_difference.png") == 1 and md.count("rank_heatmap.png") == 1  # drawn once
    assert "Median fit" not in md and "leaderboard.html" in md
    timing = {
        d: {m: {"fit_seconds": [0.5] * 10, "predict_seconds": [0.01] * 10} for m in ("m0", "m1", "m2", "m3")}
        for d in cv
    }
    page = L.build_leaderboard_page(
        crossval=cv, significance=sig, timing=timing, order=list(cv), out_dir=tmp_path, title="bench"
    )
    text = page.markdown.read_text()
    assert "| Median fit | Median predict |" in text and "0.5 s" in text and "the top group is" in text
    assert page.html.read_text().count("data:image/png") == 3
    # fewer than 8 datasets: no page (a stale one is removed)
    small = {d: cv[d] for d in list(cv)[:5]}
    assert (
        L.build_leaderboard_page(
            crossval=small, significance=sig, timing={}, order=list(small), out_dir=tmp_path, title="b"
        ).html
        is None
    )
    assert not (tmp_path / "leaderboard.html").exists()
