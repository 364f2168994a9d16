"""stats.replicate_test must be able to reject with the configured seeds (issue 22, families with few seeds).

The exact Wilcoxon signed-rank and sign tests cannot give p < 2/2^n on n paired seeds, and Holm multiplies the
smallest p-value by the number of pairs: with too few seeds they can never reject, so the configuration check
refuses them and names the smallest sufficient number of seeds."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from replearn.exceptions import ConfigError
from replearn.pipeline import config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def presets(tmp_path_factory) -> dict:
    out = {}
    for name, overrides in (
        ("rl_planning", []),
        ("rl_control", []),
        ("rl_planning_4", ["models=[value_iteration,value_iteration_async,policy_iteration,model_based]"]),
    ):
        preset = name.removesuffix("_4")
        path = config.compose(
            [f"+experiment={preset}", *overrides], root=ROOT, output=tmp_path_factory.mktemp(name) / "p.yaml"
        )
        out[name] = config.load_params(path)
    return out


@pytest.fixture(scope="module")
def default_params() -> dict:
    return config.load_params(ROOT / "params.yaml")


def _with(params: dict, **changes) -> dict:
    """``params`` with ``section__key=value`` changes (a value of None deletes the key)."""
    p = copy.deepcopy(params)
    for key, value in changes.items():
        node = p
        *path, last = key.split("__")
        for k in path:
            node = node.setdefault(k, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return p


def _error(params: dict) -> str:
    with pytest.raises(ConfigError) as err:
        config.validate(params, root=ROOT)
    return str(err.value)


def test_wilcoxon_with_five_seeds_and_three_units_is_refused_naming_seven(presets):
    p = _with(presets["rl_planning"], stats__replicate_test="replicate_wilcoxon")
    assert p["design"]["n_seeds"] == 5 and len(p["models"]) == 3
    msg = _error(p)
    assert (
        "stats.replicate_test: replicate_wilcoxon cannot reach alpha = 0.05 with design.n_seeds = 5 and 3 pairs "
        "after holm (smallest attainable adjusted p = 0.1875, on dataset 'gridworld_4x3'); use at least 7 seeds or "
        "replicate_test: replicate_ttest"
    ) in msg
    # 6 seeds: 3 x 2/64 = 0.094 is still too large; 7 seeds: 3 x 2/128 = 0.047
    assert "design.n_seeds = 6 and 3 pairs after holm (smallest attainable adjusted p = 0.09375" in _error(
        _with(p, design__n_seeds=6)
    )
    config.validate(_with(p, design__n_seeds=7), root=ROOT)


def test_sign_test_and_other_corrections(presets):
    p = _with(presets["rl_planning"], stats__replicate_test="replicate_sign_test")
    assert "use at least 7 seeds" in _error(p)
    # Bonferroni also multiplies by 3; Hochberg / Hommel can reach 2/2^n when every pair is at the minimum
    assert "after bonferroni" in _error(_with(p, stats__correction="bonferroni"))
    config.validate(_with(p, design__n_seeds=6, stats__correction="hochberg"), root=ROOT)
    assert "use at least 6 seeds" in _error(_with(p, stats__correction="hommel"))  # 5 seeds: 2/32 > 0.05
    # no correction: one comparison's smallest p, 2/32 = 0.0625
    msg = _error(_with(p, stats__correction="none"))
    assert "with design.n_seeds = 5 and 3 pairs without a correction (smallest attainable adjusted p = 0.0625" in msg
    assert "use at least 6 seeds" in msg
    # a laxer alpha is reachable with fewer seeds: 2/32 <= 0.1
    config.validate(_with(p, stats__correction="none", stats__alpha=0.1), root=ROOT)
    # a stricter one needs more: 3 x 2/2^n <= 0.01 from n = 10
    assert "use at least 10 seeds" in _error(_with(p, stats__alpha=0.01, design__n_seeds=9))


def test_more_units_need_more_seeds(presets):
    p = _with(presets["rl_planning_4"], stats__replicate_test="replicate_wilcoxon", design__n_seeds=7)
    assert len(p["models"]) == 4
    assert "and 6 pairs after holm (smallest attainable adjusted p = 0.09375" in _error(p)
    assert "use at least 8 seeds" in _error(p)  # 6 x 2/256 = 0.047
    config.validate(_with(p, design__n_seeds=8), root=ROOT)


def test_the_paired_t_test_is_never_refused(presets):
    p = _with(presets["rl_planning"], stats__replicate_test="replicate_ttest", design__n_seeds=2)
    config.validate(p, root=ROOT)
    config.validate(_with(p, stats__replicate_test=None), root=ROOT)  # the default: replicate_ttest


def test_pairs_are_counted_per_dataset_over_the_units_that_run_on_it(presets):
    """rl_control: six units, but each environment runs two of them -- one pair per dataset."""
    p = _with(presets["rl_control"], stats__replicate_test="replicate_wilcoxon")
    assert len(p["models"]) == 6 and p["design"]["n_seeds"] == 6
    config.validate(p, root=ROOT)  # 1 pair: 2/64 <= 0.05
    msg = _error(_with(p, design__n_seeds=5))
    assert re.search(r"design\.n_seeds = 5 and 1 pair after holm \(smallest attainable adjusted p = 0\.0625", msg)
    assert "use at least 6 seeds" in msg
    # a dataset's own models list restricts the pairs too
    q = _with(presets["rl_planning"], stats__replicate_test="replicate_wilcoxon", design__n_seeds=6)
    for spec in q["dataset"].values():
        spec["models"] = ["value_iteration", "policy_iteration"]
    config.validate(q, root=ROOT)


def test_tables_with_seeds_are_checked_only_where_the_replicate_test_runs(default_params):
    """design=seeds on a table with resample_split: true answers the population question with the half-sampling
    fits (half_sampling_ttest), so stats.replicate_test is not used; on one fixed held-out part it is."""
    p = _with(
        default_params,
        design={"name": "seeds", "n_seeds": 5, "holdout": 0.25, "resample_split": True},
        stats__replicate_test="replicate_wilcoxon",
    )
    config.validate(p, root=ROOT)
    msg = _error(_with(p, design__resample_split=False))
    assert "replicate_wilcoxon cannot reach alpha = 0.05 with design.n_seeds = 5 and 3 pairs after holm" in msg
    assert "use at least 7 seeds" in msg
    assert "use at least 7 seeds" in _error(_with(p, cv__half_sampling__subsamples=0))


def test_a_sweep_over_seed_replicates_is_checked(default_params):
    sweep = {
        "name": "sweep",
        "axis": "knn.n_neighbors",
        "values": [1, 3, 5],
        "replicates": "seeds",
        "n_seeds": 5,
        "holdout": 0.25,
        "resample_split": False,
    }
    p = _with(default_params, design=sweep, stats__replicate_test="replicate_sign_test")
    assert "stats.replicate_test: replicate_sign_test cannot reach alpha = 0.05 with design.n_seeds = 5" in _error(p)
    config.validate(_with(p, design__n_seeds=7), root=ROOT)
    config.validate(_with(p, design__replicates="cv"), root=ROOT)  # cv replicates: the replicate test is not used


def test_design_cv_ignores_the_replicate_test(default_params):
    config.validate(_with(default_params, stats__replicate_test="replicate_wilcoxon"), root=ROOT)


def test_compose_refuses_the_preset_with_a_rank_test(tmp_path):
    out = tmp_path / "params.yaml"
    with pytest.raises(ConfigError, match=r"use at least 7 seeds or replicate_test: replicate_ttest"):
        config.compose(["+experiment=rl_planning", "stats.replicate_test=replicate_wilcoxon"], root=ROOT, output=out)
    assert not out.exists()
    config.compose(
        ["+experiment=rl_planning", "stats.replicate_test=replicate_wilcoxon", "design.n_seeds=7"],
        root=ROOT,
        output=out,
    )
    assert config.load_params(out)["stats"]["replicate_test"] == "replicate_wilcoxon"


@pytest.mark.parametrize("inner", ["cv", "seeds"])
@pytest.mark.parametrize("resample_split", [None, False, True])
@pytest.mark.parametrize("half", [None, {}, {"subsamples": 0}, {"subsamples": 5, "repeats": 2}])
def test_the_half_sampling_rule_is_the_experiment_modules(default_params, inner, resample_split, half):
    from replearn.pipeline.experiment import half_sampling_applies

    p = _with(default_params, design={"name": "seeds", "n_seeds": 5, "resample_split": resample_split})
    if half is None:
        p["cv"].pop("half_sampling", None)
    else:
        p["cv"]["half_sampling"] = half
    assert config._half_sampling_applies(p, inner) == half_sampling_applies(p, inner)
