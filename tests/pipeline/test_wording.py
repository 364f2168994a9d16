"""The wording suite: the report's summary over fixtures of every design, under nulls and alternatives.

Each summary line must (1) name as the winner of a "significant" claim only the winner of its test's row, (2) say
"cross-validation" only for a design that ran cross-validation, (3) give only reasons that apply to its rows,
(4) never print a Bayesian verdict that the frequentist test does not share, and (5) print no Bayesian
probabilities across datasets below ``stats.min_datasets``. The fixtures are the records the crossval stage
writes (schema 4), run through the significance stage's own ``compare`` and the report's own ``summary_lines``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from replearn.pipeline import records
from replearn.pipeline.compare import compare
from replearn.pipeline.report.document import _Fmt
from replearn.pipeline.report.summary import summary_lines

CFG = {
    "alpha": 0.05,
    "pairwise_test": "auto",
    "correction": "holm",
    "bayesian": True,
    "rope": 0.01,
    "test_set_test": "none",
    "mcnemar_method": "exact",
    "test_set_metric_test": "none",
    "across_pairs_test": "wilcoxon",
    "across_datasets": "friedman_nemenyi",
    "min_datasets": 5,
    "posthoc": "bergmann_hommel",
    "control": None,
    "round_before_ranking": None,
}
DESIGNS = ("cv", "cv_no_half", "seeds_resample", "seeds_fixed", "sweep", "family")


def _variance(models, means, rng, points=(None,), noise=0.02, between=0.02, b=6, r=2, k=3):
    reps, scores = [], {m: [] for m in models}
    shift = {m: rng.normal(0, between, b) for m in models}  # how each model's estimate moves with the subsample
    for p in points:
        for s in range(b):
            for rr in range(r):
                for f in range(k):
                    reps.append({"subsample": s, "repeat": rr, "fold": f, "n_train": 40, "n_test": 20, "point": p})
                    for m in models:
                        mu = means[m] if p is None else means[m] + 0.002 * (points.index(p) % 3)
                        scores[m].append(float(mu + shift[m][s] + rng.normal(0, noise)))
    return {
        "method": "half_sampling",
        "n_examples": 120,
        "subsample_size": 60,
        "subsamples": b,
        "repeats": r,
        "folds": k,
        "replicates": reps,
        "models": {m: {"accuracy": v} for m, v in scores.items()},
    }


def _evaluation(name: str, design: str, means: dict, seed: int, *, tie: bool = False) -> records.EvaluationResult:
    rng = np.random.default_rng(seed)
    models = sorted(means)
    family = None
    points: list = [None]
    scheme = {"name": "repeated_kfold", "folds": 5, "repeats": 4, "seed": seed, "design": "cv"}
    kind = "split"
    if design in ("seeds_resample", "seeds_fixed", "family"):
        scheme = {"name": "seeds", "repeats": 10, "seed": seed, "design": "seeds"}
        kind = "seed"
    if design == "family":
        scheme["name"] = "unit_seeds"
        family = {"name": "rl", "task": "control", "problem": {}, "scale_by": None, "scale_metrics": []}
    if design == "sweep":
        points = [1, 3, 5]
        scheme = {**scheme, "design": "sweep", "axis": f"{models[0]}.k", "values": points, "simplest": "last"}
        kind = "sweep"
    n_rep = 20 if kind in ("split", "sweep") else 10
    splits, scores = [], {m: [] for m in models}
    common = rng.normal(0, 0.02, n_rep)  # paired replicates move together
    for p in points:
        for i in range(n_rep):
            splits.append(
                {
                    "index": len(splits),
                    "kind": kind,
                    "n_train": 96,
                    "n_test": 24,
                    "seed": i,
                    "repeat": i // 5 if kind != "seed" else i,
                    "fold": i % 5 if kind != "seed" else 0,
                    "point": p,
                }
            )
            for m in models:
                mu = means[m] if p is None else means[m] + 0.002 * (points.index(p) % 3)
                noise = 0.0 if tie else rng.normal(0, 0.015)
                scores[m].append(float(mu + common[i] + noise))
    var = None
    if design in ("cv", "seeds_resample", "sweep"):
        var = _variance(models, means, rng, points=tuple(points))
    return records.EvaluationResult(
        dataset=name,
        task="classification",
        n_examples=120,
        scheme=records.Scheme(**scheme),
        metrics=["accuracy"],
        primary_metric="accuracy",
        greater_is_better={"accuracy": True},
        splits=[records.Replicate(**s) for s in splits],
        models={
            m: records.ModelEvaluation(
                registry_name=m,
                params={},
                scores={"accuracy": v},
                n_iter=[None] * len(v),
                converged=[True] * len(v),
            )
            for m, v in scores.items()
        },
        family=family,
        variance=var,
    )


def _train(name: str, models) -> records.TrainResult:
    return records.TrainResult(
        dataset=name,
        task="classification",
        y_true=[0, 1],
        models={m: records.TrainedModel(converged=True, n_iter=None) for m in models},
    )


def _run(design: str, means: dict, n_datasets: int, seed: int, **kw):
    cv = {f"d{j}": _evaluation(f"d{j}", design, means, seed * 100 + j, **kw) for j in range(n_datasets)}
    train = {d: _train(d, means) for d in cv}
    sig = compare(cv, train, CFG)
    plain = {d: records.to_dict(c) for d, c in cv.items()}
    lines = summary_lines(plain, sig, _Fmt(3), sorted(cv))
    return sig, lines


SCENARIOS = [
    ("null", {"a": 0.80, "b": 0.80}),
    ("alternative", {"a": 0.80, "b": 0.90}),
    ("three models, null", {"a": 0.80, "b": 0.80, "c": 0.80}),
    ("three models, one better", {"a": 0.80, "b": 0.80, "c": 0.95}),
]


def _check_line(line: str, entry: dict, design: str) -> None:
    dataset = line.split(":", 1)[0]
    # (2) "cross-validation" only where cross-validation ran
    if design in ("seeds_resample", "seeds_fixed", "family"):
        assert "cross-validation" not in line, line
    else:
        assert "cross-validation" in line, line
    # the question each design answers, in words
    if design == "seeds_fixed":
        assert "this held-out part only" in line, line
    if design in ("cv", "seeds_resample", "sweep"):
        assert "datasets of this size" in line, line
    if design == "family":
        assert "this problem" in line, line
    if design == "cv_no_half":
        assert "heuristic" in line and "liberal for unstable learners" in line, line
    # (1) a significant claim names its test's winner, and only then
    m = re.match(rf"{dataset}: (\S+) has the best mean", line)
    if m and re.search(r"; significant by", line):
        best = m.group(1)
        winners = {r["winner"] for r in entry["cv"] if r.get("significant")}
        assert best in winners, (line, winners)
    # (4) a Bayesian "practically better" only beside a significant test of the same pair
    if "Bayesian: practically better" in line:
        assert "; significant by" in line, line
    # (3) reasons that apply
    assert "no multiplicity adjustment" not in line, line
    if "disagree in words only" in line:
        assert "; significant by" in line and "practically equivalent" in line, line
    if "both analyses agree that the data cannot tell them apart" in line:
        assert "not significant" in line and "undecided" in line, line
    if "both analyses agree" in line and "cannot tell" not in line and "no meaningful" not in line:
        assert "; significant by" in line and "practically better" in line, line


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("scenario, means", SCENARIOS, ids=[s for s, _ in SCENARIOS])
def test_every_line_says_what_its_test_found(design, scenario, means):
    for seed in range(4):
        sig, lines = _run(design, means, 2, seed)
        for line in lines[:-1] if len(lines) > 2 else lines:
            name = line.split(":", 1)[0]
            if name in sig["datasets"]:
                _check_line(line, sig["datasets"][name], design)


@pytest.mark.parametrize("design", DESIGNS)
def test_a_large_difference_is_found_and_named(design):
    sig, lines = _run(design, {"a": 0.70, "b": 0.95}, 1, 0)
    line = lines[0]
    assert line.startswith("d0: b has the best mean")
    if design in ("seeds_fixed", "family", "cv_no_half", "cv", "seeds_resample"):
        assert "; significant by" in line and sig["datasets"]["d0"]["cv"][0]["winner"] == "b", line


def test_sweep_lines_quote_the_best_point_view_the_tests_used():
    sig, lines = _run("sweep", {"a": 0.80, "b": 0.85}, 1, 3)
    entry = sig["datasets"]["d0"]
    line = lines[0]
    assert "at each model's best point of the sweep" in line
    best = re.match(r"d0: (\S+) has the best mean", line).group(1)
    assert entry["means"][best] == max(entry["means"].values())
    assert f"({entry['means'][best]:.3f})" in line
    assert "max-t" in line or "not significant" in line  # the selection-aware test names itself


def test_identical_scores_claim_no_winner():
    sig, lines = _run("family", {"a": 0.8, "b": 0.8}, 1, 0, tie=True)
    assert "share the best mean" in lines[0] and "nothing to test" in lines[0]
    assert "significant" not in lines[0]


@pytest.mark.parametrize("n_datasets", [2, 3, 4])
def test_no_bayesian_verdict_across_fewer_datasets_than_min_datasets(n_datasets):
    sig, lines = _run("cv", {"a": 0.70, "b": 0.90, "c": 0.80}, n_datasets, 1)
    pairs = sig["across_pairs"]
    assert all("bayesian_signed_rank" not in r for r in pairs["rows"])
    assert pairs["bayesian_withheld"]
    across = lines[-1]
    assert across.startswith(f"Across N = {n_datasets} datasets")
    assert "Bayesian" not in across and "better than" not in across


def test_across_five_datasets_a_winner_is_named_only_by_its_test():
    sig, lines = _run("cv", {"a": 0.70, "b": 0.90, "c": 0.80}, 6, 2)
    across = lines[-1]
    assert sig["across_datasets"]["ran"]
    for claim in re.findall(r"(\S+) better than (\S+?)[;.]", across):
        comps = sig["across_datasets"]["posthoc"]["comparisons"]
        assert any(c["significant"] and {c["a"], c["b"]} == set(claim) for c in comps), (claim, across)
