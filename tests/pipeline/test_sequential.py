"""The sequential half-sampling design (stats/sequential.py, pipeline/sequential.py; issue 39): planned looks,
alpha spent by the Haybittle-Peto rule, Holm over the pairs at each look, stops for a difference, equivalence
or futility; the crossval stage stops where the significance stage's replay of the same looks decides."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from replearn import stats
from replearn.exceptions import ConfigError
from replearn.pipeline import compare, config, experiment, featurizing, records
from replearn.pipeline import sequential as pseq
from replearn.pipeline.data import prepare

ROOT = Path(__file__).resolve().parents[2]
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text())


def _pair(rng, shift: float, b: int = 20, r: int = 6, j: int = 10, noise: float = 0.03):
    """Main repeat means and inner scores of a pair under a normal model (shift: the true difference)."""
    a = shift + rng.normal(0, noise, j)
    ha = rng.normal(0, 2 * noise, (b, 1)) + rng.normal(0, noise, (b, r))
    return a, np.zeros(j), ha, np.zeros((b, r))


def test_levels_are_haybittle_peto_with_the_bonferroni_bound():
    assert stats.sequential.look_levels(3, 0.05) == pytest.approx([0.001, 0.001, 0.048])
    with pytest.raises(ValueError):
        stats.sequential.look_levels(3, 0.001)


def test_a_clear_difference_stops_early_and_a_null_stops_for_futility():
    rng = np.random.default_rng(0)
    pairs = {"big": _pair(rng, 0.5), "none": _pair(rng, 0.0)}
    pairs["none"] = (pairs["none"][1], pairs["none"][1] + 1e-4 * rng.normal(size=10), *pairs["none"][2:])
    out, needed = stats.sequential_pairs(pairs, n_examples=150, subsample_size=50)
    assert out["big"].decision == "different" and out["big"].look == 0 and out["big"].pvalue_adjusted <= 0.05
    assert out["none"].decision == "futile" and out["none"].look == 0 and out["none"].pvalue_adjusted > 0.05
    assert needed == 5  # both decided at the first look: 15 subsets never run


def test_equivalence_stops_a_pair_within_the_rope():
    rng = np.random.default_rng(1)
    a, b, ha, hb = _pair(rng, 0.0, noise=0.0005)
    out, _ = stats.sequential_pairs({"eq": (a, b, ha, hb)}, n_examples=150, subsample_size=50, rope=0.02)
    assert out["eq"].decision == "equivalent"


def test_the_replay_on_fewer_subsets_decides_the_same_as_on_all():
    """Looks use prefixes only: a dataset that stopped at a look decides as if every subset had been run."""
    rng = np.random.default_rng(2)
    for shift in (0.0, 0.02, 0.05, 0.3):
        pairs = {"p": _pair(rng, shift)}
        full, needed = stats.sequential_pairs(pairs, n_examples=150, subsample_size=50)
        cut = {"p": (*pairs["p"][:2], pairs["p"][2][:needed], pairs["p"][3][:needed])}
        short, needed2 = stats.sequential_pairs(cut, n_examples=150, subsample_size=50)
        assert (short["p"].decision, short["p"].look, needed2) == (full["p"].decision, full["p"].look, needed)


def test_the_size_is_at_most_alpha_under_the_normal_model():
    """The union bound over looks and Holm's procedure: the null rejected at most alpha (Monte-Carlo, 600
    data sets of the three mean squares' normal model)."""
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(600):
        a, b, ha, hb = _pair(rng, 0.0)
        a = a + rng.normal(0, 0.03 * np.sqrt(2 * 50 / 100))  # the between term: the data set's own difference
        out, _ = stats.sequential_pairs({"p": (a, b, ha, hb)}, n_examples=150, subsample_size=50)
        hits += out["p"].decision == "different"
    assert hits / 600 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 600)


def test_looks_are_validated_by_the_schema():
    params = copy.deepcopy(PARAMS)
    params["cv"]["half_sampling"] = {**params["cv"]["half_sampling"], "sequential": True, "looks": [10, 5]}
    with pytest.raises(ConfigError, match="cv.half_sampling.looks"):
        config.validate(params)
    params["cv"]["half_sampling"]["looks"] = [5, 10]
    config.validate(params)
    params["cv"]["half_sampling"]["sequential"] = "yes"
    with pytest.raises(ConfigError, match="sequential"):
        config.validate(params)
    assert pseq.plan({"subsamples": 20, "sequential": True, "looks": [5, 10]})["looks"] == [5, 10, 20]
    assert pseq.plan({"subsamples": 8, "sequential": True, "looks": [5, 10]})["looks"] == [5, 8]
    assert pseq.plan({"subsamples": 20, "sequential": False}) is None


@pytest.mark.slow
def test_the_crossval_stage_stops_where_the_significance_stage_decides(tmp_path):
    params = copy.deepcopy(PARAMS)
    params["dataset"] = {
        "blobs": {"source": "synthetic", "generator": "blobs", "n_samples": 150, "n_features": 2, "n_classes": 2}
    }
    params["models"] = {
        "knn": {"name": "knn", "params": {"n_neighbors": 1}},
        "knn3": {"name": "knn", "params": {"n_neighbors": 3}},
    }
    params["cv"].update(scheme="repeated_stratified_kfold", folds=5, repeats=2, n_jobs=1, progress=False)
    params["cv"]["half_sampling"] = {"subsamples": 8, "repeats": 2, "folds": 3, "fraction": 0.333}
    params["cv"]["half_sampling"].update(sequential=True, looks=[4])
    params["design"] = {"name": "cv"}
    params["tracking"]["enabled"] = False
    for name, spec in params["dataset"].items():
        prepare(name, spec, seed=params["seed"], split=params["split"], root=tmp_path)
        featurizing.featurize(params, name, root=tmp_path)
    res = experiment.crossval(params, "blobs", root=tmp_path, progress=False)
    var = res.variance
    assert var["sequential"]["looks"] == [4, 8] and var["subsamples"] in (4, 8)
    assert {r["subsample"] for r in var["replicates"]} == set(range(var["subsamples"]))
    back = records.from_dict(records.EvaluationResult, records.to_dict(res), source="seq")
    rows = compare.compare_cv(back, params["stats"])
    assert rows and all(r["test"] == "sequential_half_sampling" for r in rows)
    seq = rows[0]["sequential"]
    assert seq["subsets"] <= var["subsamples"] and seq["decision"] in pseq.DECISION_TEXT
    # the fixed design runs every subset; its first subsets are the sequential design's own
    params["cv"]["half_sampling"]["sequential"] = False
    fixed = experiment.crossval(params, "blobs", root=tmp_path, progress=False).variance
    n = len(var["replicates"])
    assert fixed["subsamples"] == 8 and fixed["models"]["knn"]["accuracy"][:n] == var["models"]["knn"]["accuracy"]


@pytest.mark.parametrize("subsamples", [1, 2, 3, 4])
def test_too_few_subsets_are_refused_before_any_stage_runs(subsamples):
    """With 2-3 subsets the half-sampling test rejected up to 38 % of true nulls (MIN_SUBSETS, measured): the config
    refuses them, and early looks below MIN_SUBSETS, naming the key; 0 (no half-sampling) and 5 pass."""
    from replearn.stats.halfsampling import MIN_SUBSETS

    params = copy.deepcopy(PARAMS)
    params["cv"]["half_sampling"] = {**params["cv"]["half_sampling"], "subsamples": subsamples}
    with pytest.raises(ConfigError, match=rf"cv.half_sampling.subsamples: {subsamples} is too few.*{MIN_SUBSETS}"):
        config.validate(params)
    for ok in (0, MIN_SUBSETS):
        params["cv"]["half_sampling"]["subsamples"] = ok
        config.validate(params)
    params["cv"]["half_sampling"] = {**params["cv"]["half_sampling"], "subsamples": 20, "sequential": True}
    params["cv"]["half_sampling"]["looks"] = [3, 10]
    with pytest.raises(ConfigError, match=rf"cv.half_sampling.looks: \[3, 10\] .* at least {MIN_SUBSETS}"):
        config.validate(params)
