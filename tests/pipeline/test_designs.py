"""Experiment designs (design=cv|seeds|sweep) on tiny data: replicates, pairing, sweep bookkeeping and the
choice of tests per design."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import numpy as np
import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline import config, experiment, records
from replearn.pipeline.compare import best_point_view, compare_cv, compare_sweep, resolve_test
from replearn.pipeline.data import prepare

ROOT = Path(__file__).resolve().parents[2]
CFG = {
    "alpha": 0.05,
    "pairwise_test": "auto",
    "correction": "holm",
    "test_set_test": "mcnemar",
    "mcnemar_method": "exact",
    "across_datasets": "friedman_nemenyi",
    "resamples": 199,
}


@pytest.fixture(scope="module")
def base_params():
    return config.load_params(ROOT / "params.yaml")


def _params(base, design: dict, models=("logistic_regression_sga", "knn")) -> dict:
    p = copy.deepcopy(base)
    p["dataset"] = {"iris": {"source": "shipped"}}
    import yaml

    p["models"] = {}
    for key in models:
        p["models"].update(yaml.safe_load((ROOT / "conf" / "models" / f"{key}.yaml").read_text()))
    p["cv"].update(folds=3, repeats=2, n_jobs=1, progress=False)
    p["cv"]["half_sampling"] = {"subsamples": 5, "repeats": 2, "folds": 3, "fraction": 0.5}  # MIN_SUBSETS
    p["design"] = design
    p["tracking"]["enabled"] = False
    return p


@pytest.fixture(scope="module")
def project(tmp_path_factory, base_params):
    root = tmp_path_factory.mktemp("designs")
    shutil.copytree(ROOT / "data" / "uci", root / "data" / "uci")
    shutil.copy2(ROOT / "data" / "registry.yaml", root / "data" / "registry.yaml")
    prepare("iris", {"source": "shipped"}, seed=base_params["seed"], split=base_params["split"], root=root)
    return root


def test_seeds_design_pairs_replicates_by_seed_on_one_held_out_part(project, base_params):
    p = _params(
        base_params, {"name": "seeds", "n_seeds": 4, "holdout": 0.3, "resample_split": False}, models=("mlp", "knn")
    )
    config.validate(p)
    res = experiment.crossval(p, "iris", root=project, progress=False)
    assert res.replicate_kind == "seed" and len(res.splits) == 4 and res.scheme.design == "seeds"
    assert len({tuple(s.test_index) for s in res.splits}) == 1  # the same held-out examples, paired by seed
    mlp = res.models["mlp"].scores["accuracy"]
    knn = res.models["knn"].scores["accuracy"]
    assert len(set(knn)) == 1  # k-NN has no seed: identical replicates
    assert len(set(mlp)) > 1  # the MLP's initialization follows its seed
    again = experiment.crossval(p, "iris", root=project, progress=False)
    assert again == res  # seeds derive from names: identical on a rerun
    assert resolve_test(CFG, res) == "replicate_ttest"
    assert resolve_test({**CFG, "replicate_test": "replicate_wilcoxon"}, res) == "replicate_wilcoxon"


def test_seeds_design_uses_tests_for_independent_replicates(project, base_params):
    from replearn.pipeline.compare import compare_bayesian, compare_cv

    p = _params(base_params, {"name": "seeds", "n_seeds": 5, "holdout": 0.3, "resample_split": True})
    res = experiment.crossval(p, "iris", root=project, progress=False)
    assert len({tuple(s.test_index) for s in res.splits}) == 5  # resample_split: a new held-out part each
    # a new held-out part per seed asks about datasets: the half-sampling fits carry the data-sampling variance
    assert res.variance is not None and res.variance["subsamples"] == p["cv"]["half_sampling"]["subsamples"]
    rows = compare_cv(res, CFG)
    assert rows and all(r["test"] == "half_sampling_ttest" for r in rows)
    bayes = compare_bayesian(res, {**CFG, "bayesian": True, "rope": 0.01})
    assert bayes and all(b["test"] == "bayesian_t_posterior" for b in bayes)
    # one fixed held-out part asks only about that part: independent seeds, paired t, no correlation term
    fixed = experiment.crossval(
        _params(base_params, {"name": "seeds", "n_seeds": 5, "holdout": 0.3, "resample_split": False}),
        "iris",
        root=project,
        progress=False,
    )
    assert fixed.variance is None
    rows = compare_cv(fixed, CFG)
    assert rows and all(r["test"] == "replicate_ttest" for r in rows)
    bayes = compare_bayesian(fixed, {**CFG, "bayesian": True, "rope": 0.01})
    assert bayes and all(b["rho"] == 0.0 for b in bayes)  # independent replicates: no correlation term
    # a new held-out part per seed without half-sampling is repeated hold-out: never the plain paired t over it
    off = _params(base_params, {"name": "seeds", "n_seeds": 5, "holdout": 0.3, "resample_split": True})
    off["cv"]["half_sampling"]["subsamples"] = 0
    res = experiment.crossval(off, "iris", root=project, progress=False)
    assert res.variance is None
    assert all(r["test"] == "corrected_resampled_ttest" for r in compare_cv(res, CFG))
    assert all(b["rho"] > 0 for b in compare_bayesian(res, {**CFG, "bayesian": True, "rope": 0.01}))


def test_deterministic_models_under_the_seeds_design_are_not_declared_different(project, base_params):
    from replearn.pipeline.compare import compare_cv

    p = _params(
        base_params,
        {"name": "seeds", "n_seeds": 4, "holdout": 0.3, "resample_split": False},
        models=("knn", "gaussian_naive_bayes"),
    )
    res = experiment.crossval(p, "iris", root=project, progress=False)
    (row,) = compare_cv(res, CFG)
    assert row["pvalue"] is None and not row["significant"] and "not testable" in row["note"]


def test_sweep_bookkeeping_over_a_hyperparameter(project, base_params):
    p = _params(base_params, {"name": "sweep", "axis": "knn.n_neighbors", "values": [1, 5, 15], "replicates": "cv"})
    config.validate(p)
    res = experiment.crossval(p, "iris", root=project, progress=False)
    assert res.replicate_kind == "sweep" and res.scheme.axis == "knn.n_neighbors"
    assert [s.point for s in res.splits] == [1] * 6 + [5] * 6 + [15] * 6
    # the same held-out examples at every point: points pair by replicate
    assert [s.test_index for s in res.splits[:6]] == [s.test_index for s in res.splits[6:12]]
    sweep = compare_sweep(res, CFG)
    knn = sweep["models"]["knn"]
    means = {c["point"]: c["mean"] for c in knn["curve"]}
    assert knn["best"] == max(means, key=means.get)
    # one family of adjacent pairs per model: the best point's tests account for its selection
    assert all(r["test"] == "max_t_adjacent" and r["family"] == 2 for r in knn["neighbours"])
    best = [c for c in knn["curve"] if c["point"] == knn["best"]][0]
    one_se = [c for c in knn["curve"] if c["point"] == knn["one_se"]][0]
    assert one_se["mean"] >= best["mean"] - best["se"]
    view = best_point_view(res, sweep)
    assert len(view.splits) == 6 and view.replicate_kind == "split"
    assert view.models["knn"].scores["accuracy"] == [
        res.models["knn"].scores["accuracy"][i] for i, s in enumerate(res.splits) if s.point == knn["best"]
    ]
    # the view remembers its sweep: tests on it redo the choice of the best points inside their null
    rows = compare_cv(view, CFG)
    assert rows and all(r["test"] == "selected_contrast" and "chosen again" in r["selection"] for r in rows)


def test_sweep_over_training_set_size_with_seed_replicates(project, base_params):
    p = _params(
        base_params,
        {
            "name": "sweep",
            "axis": "n_train",
            "values": [0.3, 1.0],
            "replicates": "seeds",
            "n_seeds": 3,
            "holdout": 0.25,
        },
    )
    res = experiment.crossval(p, "iris", root=project, progress=False)
    n_train = [s.n_train for s in res.splits]
    assert n_train[:3] == [round(0.3 * n_train[-1])] * 3 and len(set(n_train[3:])) == 1
    assert resolve_test(CFG, best_point_view(res, compare_sweep(res, CFG))) == "replicate_ttest"


def test_compare_runs_on_every_design(project, base_params):
    from replearn.pipeline.compare import compare_records

    train = records.TrainResult(
        dataset="iris",
        task="classification",
        y_true=[0, 1],
        models={
            k: records.TrainedModel(converged=True, n_iter=None, pred=[0, 1], correct=[1, 1])
            for k in ("knn", "logistic_regression")
        },
    )
    p = _params(base_params, {"name": "sweep", "axis": "n_features", "values": [2, 4], "replicates": "cv"})
    res = experiment.crossval(p, "iris", root=project, progress=False)
    sig = compare_records({"iris": res}, {"iris": train}, CFG)
    entry = sig.datasets["iris"]
    assert entry["design"] == "sweep" and entry["sweep"]["axis"] == "n_features"
    assert entry["replicates"] == "split" and entry["cv"][0]["test"] == "selected_contrast"
    assert "chosen again in every draw" in entry["cv"][0]["selection"] and entry["question"] == "population"


@pytest.mark.parametrize(
    "design, message",
    [
        ({"name": "sweep", "values": [1, 2]}, r"design.axis: a sweep needs an axis"),
        ({"name": "sweep", "axis": "knn.n_neighbors", "values": [3]}, r"at least 2 points"),
        ({"name": "sweep", "axis": "knn.n_neighbours", "values": [1, 3]}, r"knn has no hyperparameter 'n_neighbours'"),
        ({"name": "sweep", "axis": "svm.C", "values": [1.0, 2.0]}, r"not n_train, n_features or <model key>"),
        ({"name": "sweep", "axis": "knn.n_neighbors", "values": [1, "many"]}, r"design.values\[1\]: expected int"),
        ({"name": "sweep", "axis": "n_train", "values": [0.5, 1.5]}, r"counts or fractions in \(0, 1\]"),
        ({"name": "sweep", "axis": "n_features", "values": [1, 1]}, r"the points must differ"),
        ({"name": "seeds", "n_seeds": 1}, r"design.n_seeds: expected an integer in \[2, 10000\]"),
        ({"name": "bootstrap"}, r"design.name: unknown design 'bootstrap'"),
    ],
)
def test_bad_designs_are_rejected_before_any_work(base_params, design, message):
    with pytest.raises(ConfigError, match=message):
        config.validate(_params(base_params, design))


def test_n_train_beyond_the_training_part_is_refused(project, base_params):
    p = _params(base_params, {"name": "sweep", "axis": "n_train", "values": [10, 100000], "replicates": "cv"})
    with pytest.raises(ConfigError, match=r"n_train 100000 asks for 100000 training examples"):
        experiment.crossval(p, "iris", root=project, progress=False)


def test_default_design_is_unchanged_cv(project, base_params):
    p = _params(base_params, {"name": "cv"})
    res = experiment.crossval(p, "iris", root=project, progress=False)
    assert res.replicate_kind == "split" and res.scheme.design == "cv" and len(res.splits) == 6
    assert all(s.point is None for s in res.splits)
    assert np.isfinite(res.models["knn"].scores["accuracy"]).all()


def test_automatic_inner_folds_never_exceed_the_main_schemes():
    """5 inner folds for k-fold splits, at most the main scheme's (2 for 5x2); 3 for seeds; explicit folds win."""
    from replearn.pipeline.designs import half_sampling_folds

    assert half_sampling_folds({"folds": None}, "split", 10) == 5
    assert half_sampling_folds({"folds": None}, "split", 2) == 2
    assert half_sampling_folds({"folds": None}, "split", None) == 5
    assert half_sampling_folds({"folds": None}, "seed", 2) == 3
    assert half_sampling_folds({"folds": 4}, "split", 2) == 4
