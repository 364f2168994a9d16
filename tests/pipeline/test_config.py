"""Configuration: the committed params.yaml is the composition of conf/, and bad configs fail early."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from replearn.exceptions import ConfigError
from replearn.pipeline import config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def params() -> dict:
    return config.load_params(ROOT / "params.yaml")


def test_committed_params_yaml_is_the_composition_of_conf(tmp_path):
    out = config.compose([], root=ROOT, output=tmp_path / "params.yaml")
    assert out.read_bytes() == (ROOT / "params.yaml").read_bytes(), (
        "params.yaml is stale: run `python -m replearn compose` (make params) and commit it"
    )


@pytest.mark.parametrize("preset", sorted(p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml")))
def test_every_experiment_preset_composes_and_validates(tmp_path, preset):
    out = config.compose([f"+experiment={preset}"], root=ROOT, output=tmp_path / "p.yaml")
    composed = config.load_params(out)
    assert composed["experiment_name"] == preset


def test_overrides_select_model_lists_and_values(tmp_path):
    out = config.compose(
        ["models=[knn,gaussian_naive_bayes]", "cv.folds=5", "models.knn.params.n_neighbors=7"],
        root=ROOT,
        output=tmp_path / "p.yaml",
    )
    p = config.load_params(out)
    assert list(p["models"]) == ["knn", "gaussian_naive_bayes"]
    assert p["cv"]["folds"] == 5 and p["models"]["knn"]["params"]["n_neighbors"] == 7


def test_default_params_are_valid(params):
    assert config.validate(params, root=ROOT) is params


def _broken(params, path, value):
    p = copy.deepcopy(params)
    node = p
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return p


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (
            ("models", "knn", "name"),
            "k_nearest",
            r"models\.knn\.name: unknown model 'k_nearest'; valid choices: .*gaussian_naive_bayes.*knn",
        ),
        (
            ("cv", "fodls"),
            5,
            r"cv\.fodls: unknown key; valid keys here: folds, half_sampling, max_fit_seconds, n_jobs, on_error, "
            r"progress, repeats, scheme",
        ),
        (("cv", "folds"), "five", r"cv\.folds: expected an integer in \[2, 1000\], got str 'five'"),
        (("cv", "folds"), True, r"cv\.folds: expected an integer in \[2, 1000\], got bool"),
        (("split", "test_size"), 1.5, r"split\.test_size: expected a finite number in \(0\.0, 1\.0\), got float 1\.5"),
        (
            ("stats", "pairwise_test"),
            "t_test",
            r"stats\.pairwise_test: unknown pairwise test 't_test'; valid choices: "
            r"auto, corrected_resampled_ttest, cv52_ftest, cv52_ttest, half_sampling_ttest, paired_ttest",
        ),
        (
            ("cv", "scheme"),
            "bootstrap_magic",
            r"cv\.scheme: unknown resampling scheme 'bootstrap_magic'; valid choices: .*repeated_stratified_kfold",
        ),
        (("report", "title"), KeyError, r"report\.title: missing"),
        (("metrics", "classification"), ["accuracy", "mse"], r"metrics\.classification: 'mse' is a regression metric"),
        (
            ("models", "knn", "params", "n_neighbours"),
            3,
            r"models\.knn\.params\.n_neighbours: unknown hyperparameter of knn; valid: n_neighbors, task, weights",
        ),
        (("models", "knn", "params", "n_neighbors"), "five", r"models\.knn\.params\.n_neighbors: expected int"),
        (
            ("dataset", "irsi"),
            {"source": "shipped"},
            r"dataset\.irsi: unknown shipped dataset 'irsi'; shipped datasets: "
            r"breast_cancer, diabetes, digits, iris, old_faithful, wine",
        ),
        (("dataset", "mine"), {"source": "file", "path": "x.csv"}, r"dataset\.mine\.target: missing"),
        (
            ("features", "steps"),
            [{"name": "whiten", "params": {}}],
            r"features\.steps\[0\]\.name: unknown feature map 'whiten'; valid choices: .*polynomial, .*standardize",
        ),
    ],
)
def test_invalid_configs_name_the_key_and_the_choices(params, path, value, expected):
    with pytest.raises(ConfigError, match=expected):
        config.validate(_broken(params, path, value), root=ROOT)


def test_all_problems_are_reported_at_once(params):
    p = _broken(_broken(params, ("cv", "folds"), "x"), ("stats", "alpha"), "y")
    with pytest.raises(ConfigError) as err:
        config.validate(p, root=ROOT)
    assert "cv.folds" in str(err.value) and "stats.alpha" in str(err.value)


def test_the_error_names_the_file_it_read(tmp_path, params, monkeypatch):
    bad = _broken(params, ("cv", "folds"), -2)
    with pytest.raises(ConfigError, match=r"^invalid configuration \(params\.yaml\):"):
        config.validate(bad, root=ROOT)  # a dict: the default name
    other = tmp_path / "sub" / "mine.yaml"
    other.parent.mkdir()
    other.write_text(yaml.safe_dump(bad))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^invalid configuration \(sub/mine\.yaml\):\n  - cv\.folds"):
        config.load_and_validate(other, root=ROOT)  # inside the working directory: relative to it
    monkeypatch.chdir(ROOT)
    with pytest.raises(ConfigError, match=rf"^invalid configuration \({other}\):"):
        config.load_and_validate(other, root=ROOT)  # outside it: as given


def test_stage_stops_before_any_work_on_a_bad_config(tmp_path, params):
    bad = _broken(params, ("models", "knn", "name"), "nope")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(bad))
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "registry.yaml").write_bytes((ROOT / "data" / "registry.yaml").read_bytes())
    res = subprocess.run(
        [sys.executable, str(ROOT / "stages" / "prepare.py")], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 2
    assert "models.knn.name: unknown model 'nope'" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "data" / "prepared").exists()


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({("stats", "pairwise_test"): "cv52_ttest"}, r"stats\.pairwise_test: cv52_ttest needs cv\.scheme 5x2"),
        ({("stats", "correction"): "sidak"}, r"stats\.correction: unknown correction 'sidak'"),
        ({("stats", "posthoc"): "tukey"}, r"stats\.posthoc: unknown post-hoc procedure 'tukey'"),
        ({("stats", "control"): "svm"}, r"stats\.control: 'svm' is not one of the models"),
        ({("stats", "control"): "knn"}, r"stats\.posthoc: bergmann_hommel compares all pairs; with stats\.control"),
        ({("stats", "posthoc"): "bonferroni_dunn"}, r"bonferroni_dunn compares every model with a control"),
        ({("stats", "rope"): -0.1}, r"stats\.rope: expected a finite number in \[0\.0, inf\)"),
        ({("stats", "rope"): float("nan")}, r"stats\.rope: expected a finite number"),
        ({("stats", "resamples"): 10**12}, r"stats\.resamples: expected an integer in \[99, 1000000\]"),
        ({("report", "decimals"): 50}, r"report\.decimals: expected an integer in \[0, 12\], got int 50"),
        ({("report", "formats"): ["pdf"]}, r"report\.formats\[0\]: unknown report format 'pdf'"),
        ({("seed",): 2**32}, r"seed: expected an integer in \[0, 4294967295\]"),
        ({("stats", "resamples"): 10}, r"stats\.resamples: expected an integer in \[99, "),
        ({("stats", "across_pairs_test"): "ttest"}, r"stats\.across_pairs_test: unknown across-datasets pairwise test"),
        ({("stats", "test_set_metric_test"): "exact"}, r"stats\.test_set_metric_test: unknown test-set metric test"),
    ],
)
def test_invalid_stats_settings(params, changes, expected):
    p = params
    for path, value in changes.items():
        p = _broken(p, path, value)
    with pytest.raises(ConfigError, match=expected):
        config.validate(p, root=ROOT)


def test_stats_settings_by_design_are_valid(params):
    p = _broken(_broken(params, ("cv", "scheme"), "5x2"), ("cv", "folds"), 2)
    p = _broken(_broken(p, ("cv", "repeats"), 5), ("stats", "pairwise_test"), "cv52_ftest")
    p = _broken(_broken(p, ("stats", "control"), "knn"), ("stats", "posthoc"), "hommel")
    config.validate(p, root=ROOT)
    # the settings added with the design-driven stage are optional (older params files stay valid)
    old = copy.deepcopy(params)
    for key in (
        "bayesian",
        "rope",
        "rope_scale",
        "test_set_metric_test",
        "resamples",
        "across_pairs_test",
        "posthoc",
        "control",
        "round_before_ranking",
    ):
        del old["stats"][key]
    config.validate(old, root=ROOT)


def test_report_formats_accepted_by_the_schema(params):
    """report.formats was accepted by the report but rejected by the schema; one schema owns it now."""
    p = _broken(params, ("report", "formats"), ["markdown"])
    config.validate(p)


def test_compose_rejected_keeps_the_previous_params_file(tmp_path):
    import shutil

    from replearn.pipeline.config import compose

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "conf", tmp_path / "conf")
    for f in ("dvc.yaml", "data/registry.yaml"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / f, tmp_path / f)
    out = compose(["+experiment=smoke"], root=tmp_path)
    before = out.read_bytes()
    with pytest.raises(ConfigError, match=r"cv\.fodls: unknown key"):
        compose(["+experiment=smoke", "+cv.fodls=5"], root=tmp_path)
    with pytest.raises(ConfigError, match=r"models: unknown option 'svm'; valid choices: .*svm_rbf"):
        compose(["models=[svm]"], root=tmp_path)
    assert out.read_bytes() == before
    assert not list(tmp_path.glob(".params-*"))


def test_unknown_group_option_is_friendly_also_inside_dvc(tmp_path):
    """`dvc exp run -S 'models=[svm]'` composes in DVC's process: the Hydra plugin words the error there."""
    import shutil

    from dvc.utils.hydra import compose_and_dump

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "conf", tmp_path / "conf")
    shutil.copy2(root / "dvc.yaml", tmp_path / "dvc.yaml")
    for overrides, message in (
        (["models=[svm]"], r"^models: unknown option 'svm'; valid choices: .*svm_rbf"),
        (
            ["+experiment=smokey"],
            r"^experiment: unknown option 'smokey'; valid choices: "
            r".*kernels, .*neural, .*smoke",
        ),
    ):
        with pytest.raises(Exception, match=message):
            compose_and_dump(tmp_path / "p.yaml", str(tmp_path / "conf"), None, "config", str(tmp_path), overrides)
    compose_and_dump(tmp_path / "p.yaml", str(tmp_path / "conf"), None, "config", str(tmp_path), ["+experiment=smoke"])
    assert "smoke" in (tmp_path / "p.yaml").read_text()


def test_unknown_key_is_friendly_also_inside_dvc(tmp_path):
    """`dvc exp run -S unknown_key=1` (no `+`): Hydra's "Could not override" becomes replearn's one line, in DVC's
    process (the Hydra plugin) and in `replearn compose` alike."""
    import shutil

    from dvc.utils.hydra import compose_and_dump

    from replearn.pipeline.config import compose

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "conf", tmp_path / "conf")
    shutil.copy2(root / "dvc.yaml", tmp_path / "dvc.yaml")
    for overrides, message in (
        (
            ["unknown_key=1"],
            r"^unknown_key: unknown key; valid keys here: compute, cv, dataset, .*, tracking "
            r"\(to add a key that conf/ does not set, use -S '\+unknown_key=1'; replearn then checks it",
        ),
        (["cv.fodls=5"], r"^cv\.fodls: unknown key; valid keys here: folds, half_sampling, .*, scheme \("),
    ):
        with pytest.raises(Exception, match=message) as info:
            compose_and_dump(tmp_path / "p.yaml", str(tmp_path / "conf"), None, "config", str(tmp_path), overrides)
        assert "\n" not in str(info.value) and info.value.__cause__ is None  # DVC prints the causes too
        assert "hydra" not in str(info.value)
        with pytest.raises(ConfigError, match=message) as info:
            compose(overrides, root=tmp_path)
        assert "\n" not in str(info.value)
