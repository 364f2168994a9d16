"""Experiment families in the pipeline (pipeline.families): config checks, plan, seeds pairing, byte-identical
crossval records, the rl family's units, and a family dataset refused under the cv design."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml

from replearn import models
from replearn.exceptions import ConfigError
from replearn.pipeline import config, experiment, records
from replearn.pipeline.data import prepare
from replearn.pipeline.families import load
from replearn.pipeline.seeding import derive_seed
from replearn.pipeline.units import family_of_unit
from replearn.pipeline.units import load as load_units

ROOT = Path(__file__).resolve().parents[2]


def _params(**design) -> dict:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params = copy.deepcopy(params)
    params["dataset"] = {"world": {"source": "rl", "environment": "gridworld_4x3", "episodes": 50}}
    params["models"] = {
        "vi": {"name": "value_iteration", "params": {}},
        "pi": {"name": "policy_iteration", "params": {}},
        "lqr": {"name": "lqr", "params": {}},
    }
    params["design"] = {"name": "seeds", "n_seeds": 3, **design}
    params["tracking"]["enabled"] = False
    return params


def _errors(params) -> str:
    with pytest.raises(ConfigError) as info:
        config.validate(params, root=ROOT)
    return str(info.value)


def test_a_valid_family_configuration_passes():
    config.validate(_params(), root=ROOT)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda p: p["dataset"]["world"].update(environment="maze"),
            r"dataset\.world\.environment: unknown environment 'maze'; valid choices: cartpole, gridworld_4x3",
        ),
        (
            lambda p: p["dataset"]["world"].update(nosie=0.1),
            r"dataset\.world\.nosie: unknown key; valid keys here: .*noise",
        ),
        (
            lambda p: p["dataset"]["world"].update(noise=1.5),
            r"dataset\.world\.noise: expected a finite number in \[0\.0, 1\.0\]",
        ),
        (
            lambda p: p["dataset"]["world"].update(size=5),
            r"dataset\.world: environment gridworld_4x3: key\(s\) size do not apply",
        ),
        (
            lambda p: p["dataset"]["world"].update(source="rll"),
            r"dataset\.world\.source: unknown source 'rll'; valid choices: .*rl.*shipped",
        ),
        (
            lambda p: p["models"]["vi"]["params"].update(update="jacobi"),
            r"models\.vi\.params\.update: 'jacobi' is out of range; expected one of 'gauss-seidel', 'synchronous'",
        ),
        (
            lambda p: p["models"]["vi"]["params"].update(tol=-1.0),
            r"models\.vi\.params\.tol: -1\.0 is out of range; expected a number in \[0\.0, inf\)",
        ),
        (
            lambda p: p["models"]["pi"]["params"].update(max_iter="10"),
            r"models\.pi\.params\.max_iter: expected int like the default 10000, got str",
        ),
        (
            lambda p: p["models"]["vi"]["params"].update(gamma=0.9),
            r"models\.vi\.params\.gamma: unknown hyperparameter of value_iteration; valid: max_iter, tol, update",
        ),
        (
            lambda p: p["models"]["vi"].update(name="value_iter"),
            r"models\.vi\.name: unknown model 'value_iter'; valid choices: .*knn.*value_iteration",
        ),
        (
            lambda p: p.update(design={"name": "cv"}),
            r"design: cv on dataset 'world', a rl problem \(control\).*use design=seeds",
        ),
        (
            lambda p: p["dataset"]["world"].update(models=["lqr"]),
            r"dataset\.world: no configured model can run on this rl dataset \(lqr\); "
            r"units that can: model_based, policy_iteration",
        ),
    ],
)
def test_family_configuration_errors_name_the_key_and_the_valid_choices(change, message):
    params = _params()
    change(params)
    assert re.search(message, _errors(params)), _errors(params)


def test_a_sweep_needs_seed_replicates_and_a_unit_hyperparameter_axis():
    ok = _params(axis="pi.evaluation_steps", values=[1, 5], replicates="seeds")
    ok["design"]["name"] = "sweep"
    config.validate(ok, root=ROOT)
    bad = copy.deepcopy(ok)
    bad["design"]["replicates"] = "cv"
    assert "design.replicates: cv on dataset 'world'" in _errors(bad)
    bad = copy.deepcopy(ok)
    bad["design"]["axis"] = "pi.gamma"
    assert "design.axis: policy_iteration has no hyperparameter 'gamma'" in _errors(bad)


def test_plan_runs_units_only_on_datasets_they_support_and_never_on_tables():
    params = _params()
    task, specs = experiment.plan(params, "world", "control")
    assert task == "control" and [s.key for s in specs] == ["vi", "pi"]  # lqr cannot run on a grid world
    assert specs[0].params == {"update": "synchronous", "tol": 1e-8, "max_iter": 100_000}  # defaults filled in
    params["dataset"]["iris"] = {"source": "shipped"}
    params["models"]["knn"] = {"name": "knn", "params": {}}
    _, table_specs = experiment.plan(params, "iris", "classification")
    assert [s.key for s in table_specs] == ["knn"]
    names = models.available()
    assert family_of_unit("lqr", supervised=names) == "rl" and family_of_unit("knn", supervised=names) is None
    assert family_of_unit("nope", supervised=names) is None
    assert family_of_unit("lqr", supervised={"lqr"}) is None  # a supervised model of the same name wins


@pytest.fixture()
def prepared(tmp_path):
    params = _params()
    for name, spec in params["dataset"].items():
        prepare(name, spec, seed=params["seed"], split=params["split"], root=tmp_path)
    return params, tmp_path


def test_prepare_writes_the_family_task_and_the_problem_description(prepared):
    params, root = prepared
    meta = json.loads((root / "data/prepared/world/meta.json").read_text())
    assert meta["task"] == "control" and meta["family"] == "rl"
    cells = {c["cell"]: c for c in meta["problem"]["v_star_cells"]}  # AIMA Fig. 17.3
    for c in cells.values():
        assert abs(c["v_star"] - c["published"]) <= 5e-4, c
    assert meta["problem"]["n_states"] == 12


def test_crossval_pairs_replicates_by_seed_and_is_byte_identical_on_rerun(prepared, tmp_path):
    params, root = prepared
    timing: dict = {}
    first = experiment.crossval(params, "world", root=root, timing=timing)
    records.write(tmp_path / "a.json", first)
    records.write(tmp_path / "b.json", experiment.crossval(params, "world", root=root))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert "plan_seconds" in timing["vi"] and "plan_seconds" not in (tmp_path / "a.json").read_text()
    back = records.read_evaluation(tmp_path / "a.json")
    assert back.replicate_kind == "seed" and back.primary_metric == "return" and back.greater_is_better["return"]
    assert [s.repeat for s in back.splits] == [0, 1, 2] and back.family["name"] == "rl"
    # replicate r of unit key ran with derive_seed(seed, "model", dataset, key, r): rerun one by hand
    fam = load("rl")
    problem = fam.build(params["dataset"]["world"], derive_seed(params["seed"], "rl", "world"))
    unit = load_units("rl").UNITS["value_iteration"]
    # ... scored on the replicate's evaluation episodes, shared by every unit (common random numbers)
    again = unit.run(
        dict(unit.defaults),
        problem,
        derive_seed(params["seed"], "model", "world", "vi", 2),
        eval_seed=derive_seed(params["seed"], "evaluation", "world", 2),
    )
    assert back.models["vi"].scores["return"][2] == again.scores["return"]
    # value and policy iteration reach the same optimal policy: on the same episodes, the same return
    assert back.models["vi"].scores["return"] == back.models["pi"].scores["return"]
    assert len(back.models["pi"].curves) == 3 and back.models["pi"].curve_label.startswith("Bellman residual")


def test_the_significance_stage_uses_the_seed_paired_test_on_family_results(prepared):
    from replearn.pipeline.compare import compare_records

    params, root = prepared
    cv = {"world": experiment.crossval(params, "world", root=root)}
    _, train = experiment.train(params, "world", root=root)
    result = compare_records(cv, {"world": train}, params["stats"])
    entry = result.datasets["world"]
    assert {row["test"] for row in entry["cv"]} == {"replicate_ttest"}
    assert entry["test_set"] == [] and not entry["test_set_metric"]["ran"]
    assert "no sealed test set" in entry["test_set_metric"]["reason"]


def test_train_runs_each_unit_once_with_its_final_seed(prepared):
    params, root = prepared
    metrics, result = experiment.train(params, "world", root=root)
    fam = load("rl")
    problem = fam.build(params["dataset"]["world"], derive_seed(params["seed"], "rl", "world"))
    unit = load_units("rl").UNITS["policy_iteration"]
    final = unit.run(
        dict(unit.defaults),
        problem,
        derive_seed(params["seed"], "model", "world", "pi", "final"),
        eval_seed=derive_seed(params["seed"], "evaluation", "world", "final"),
    )
    assert metrics["pi"]["test"]["return"] == final.scores["return"]
    assert "gradient_variance" not in metrics["pi"]["test"]  # a score the unit cannot give is left out
    assert result.family == "rl" and result.models["pi"].pred is None
    assert json.loads((root / "models/world/pi.unit.json").read_text())["unit"] == "policy_iteration"


# -- the rl family's units ----------------------------------------------------------------------------------
def _run(unit: str, spec: dict, seed: int = 5, **hp):
    fam = load("rl")
    u = load_units("rl").UNITS[unit]
    return u.run({**u.defaults, **hp}, fam.build(spec, 11), seed)


def test_value_and_policy_iteration_reach_v_star_and_the_same_return_on_the_4x3_world():
    spec = {"environment": "gridworld_4x3"}
    vi, pi = _run("value_iteration", spec), _run("policy_iteration", spec)
    assert vi.scores["return"] == pi.scores["return"]  # the same policy, the same evaluation episodes
    assert vi.scores["value_error"] < 1e-7 and pi.scores["value_error"] < 1e-12
    assert pi.scores["iterations"] < vi.scores["iterations"]
    assert abs(vi.scores["return"] - 0.705) < 0.1  # the mean of 200 episodes around V*(start) = 0.7053


def test_rl_scores_are_deterministic_in_the_seed_and_differ_between_seeds():
    spec = {"environment": "gridworld_4x3", "episodes": 40}
    a = _run("reinforce", spec, seed=1, n_iter=5)
    assert a.scores == _run("reinforce", spec, seed=1, n_iter=5).scores
    assert a.scores["return"] != _run("reinforce", spec, seed=2, n_iter=5).scores["return"]
    assert a.scores["gradient_variance"] > 0 and a.scores["value_error"] is None


def test_the_baseline_lowers_reinforce_gradient_variance():
    spec = {"environment": "gridworld_4x3", "episodes": 20}
    plain = _run("reinforce", spec, n_iter=10)
    base = _run("reinforce_baseline", spec, n_iter=10)
    assert base.scores["gradient_variance"] < plain.scores["gradient_variance"]


def test_lqr_on_the_true_state_beats_lqg_on_noisy_readings():
    spec = {"environment": "linear_gaussian", "episodes": 200}
    assert _run("lqr", spec).scores["return"] > _run("lqg", spec).scores["return"]


def test_units_refuse_settings_that_do_not_apply():
    with pytest.raises(ConfigError, match="gamma: 1.0 on cartpole"):
        load("rl").build({"environment": "cartpole", "gamma": 1.0}, 0)
