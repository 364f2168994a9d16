"""`replearn init DIR`: a study made from this repository's own files (dvc.yaml, conf/, data/), whose stages run
the installed package (`python -m replearn stage <name>`) and depend on what the study owns. The built wheel,
a fresh virtual environment and `dvc repro` / `dvc exp run` in a study: tests/install/test_wheel.py (CI)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
import yaml

from replearn import cli
from replearn.exceptions import ConfigError
from replearn.pipeline import study
from replearn.pipeline.stages import STAGES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """One study, with git and DVC initialised and committed (the git identity from the environment)."""
    where = tmp_path_factory.mktemp("study") / "my-study"
    with pytest.MonkeyPatch.context() as mp:
        for var in ("AUTHOR", "COMMITTER"):
            mp.setenv(f"GIT_{var}_NAME", "t")
            mp.setenv(f"GIT_{var}_EMAIL", "t@example.invalid")
        mp.setenv("DVC_NO_ANALYTICS", "1")
        lines: list[str] = []
        study.init(where, datasets=["iris", "blobs"], models=["knn", "ridge"], say=lines.append)
    assert lines[-1] == "initialised git and DVC and committed the study", lines
    return where


def test_the_wheel_ships_what_the_study_is_made_of():
    """setup.py copies study.TEMPLATE_SOURCES into the wheel, from the sdist that MANIFEST.in fills."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    shipped = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and n.targets[0].id == "STUDY_TEMPLATE"
    )
    assert tuple(shipped) == study.TEMPLATE_SOURCES
    manifest = (ROOT / "MANIFEST.in").read_text()
    for rel in study.TEMPLATE_SOURCES:
        assert rel in manifest, rel
    assert study.template_root() == ROOT  # the editable install reads the checkout


def test_a_study_runs_the_installed_package_and_depends_on_what_it_owns(made):
    spec = yaml.safe_load((made / "dvc.yaml").read_text())
    repo = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    assert list(spec["stages"]) == list(repo["stages"]) == list(STAGES)
    owned = {p.relative_to(made).as_posix() for p in made.rglob("*") if ".git" not in p.parts}
    produced = {
        next(iter(e)) if isinstance(e, dict) else e
        for st in spec["stages"].values()
        for key in ("outs", "metrics")
        for e in st.get(key, [])
    }
    for name, stage in spec["stages"].items():
        assert stage["cmd"] == f"python -m replearn stage {name}"
        assert stage["deps"][0] == "requirements.txt"  # the pinned replearn: its code
        for dep in stage["deps"]:
            assert not dep.startswith(("src/", "stages/")) and (dep in produced or dep in owned), (name, dep)
        for key in ("params", "outs", "metrics"):  # what a stage reads and writes: as in this repository
            assert stage.get(key) == repo["stages"][name].get(key), (name, key)
    assert spec["plots"] == repo["plots"] and (made / spec["plots"][0]["plots/datasets"]["template"]).is_file()
    pin = (made / "requirements.txt").read_text()
    assert f"\nreplearn=={study.installed_version()}\n" in pin


def test_the_study_config_is_this_repositorys_with_its_datasets_and_models(made):
    for group in study.WHOLE_GROUPS:
        mine = sorted(p.name for p in (made / "conf" / group).glob("*.yaml"))
        assert mine == sorted(p.name for p in (ROOT / "conf" / group).glob("*.yaml")), group
    copied = [p for p in (made / "conf").rglob("*.yaml") if p.name != "config.yaml"]
    for path in copied:
        assert path.read_bytes() == (ROOT / path.relative_to(made)).read_bytes(), path
    for path in ["data/registry.yaml", ".dvcignore", *(f"data/uci/{p.name}" for p in (ROOT / "data/uci").iterdir())]:
        assert (made / path).read_bytes() == (ROOT / path).read_bytes(), path
    datasets = sorted(p.stem for p in (made / "conf" / "dataset").glob("*.yaml"))
    assert {"iris", "wine", "digits", "blobs", "moons", "my_csv"} <= set(datasets)
    assert not {"old_faithful", "cs229_ps1_logistic", "keel_quick", "cartpole"} & set(datasets)  # not readable here
    assert [p.name for p in (made / "conf" / "experiment").iterdir()] == ["smoke.yaml"]
    params = yaml.safe_load((made / "params.yaml").read_text())
    assert list(params["dataset"]) == ["iris", "blobs"] and list(params["models"]) == ["knn", "ridge"]
    assert params["reproduce"] is None and params["experiment_name"] == "my-study"
    main = yaml.safe_load((ROOT / "params.yaml").read_text())
    assert params["cv"] == main["cv"] and params["stats"] == main["stats"]  # the rest as in this repository


def test_git_and_dvc_are_initialised_with_hydra_and_the_study_committed(made):
    import subprocess

    config = (made / ".dvc" / "config").read_text()
    assert "[hydra]" in config and "enabled = true" in config and "autostage = true" in config
    res = subprocess.run(["git", "status", "--porcelain"], cwd=made, capture_output=True, text=True, check=True)
    assert res.stdout == ""  # everything committed: `dvc exp run` has its baseline
    ignored = subprocess.run(
        ["git", "check-ignore", "mlflow.db", "reports", "data/prepared", "results/train"],
        cwd=made,
        capture_output=True,
        text=True,
    )
    assert len(ignored.stdout.split()) == 4


def test_a_stage_runs_in_the_study_and_refuses_another_replearn(made, monkeypatch, capsys):
    monkeypatch.chdir(made)
    assert cli.main(["stage", "validate"]) == 0
    assert (made / "results" / "config.json").is_file()
    pinned = (made / "requirements.txt").read_text()
    try:
        (made / "requirements.txt").write_text(pinned.replace(f"=={study.installed_version()}", "==0.0.1"))
        capsys.readouterr()
        assert cli.main(["stage", "prepare"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("replearn prepare: this study pins replearn==0.0.1 in requirements.txt but replearn ")
        assert err.count("\n") == 1 and not (made / "data" / "prepared").exists()
    finally:
        (made / "requirements.txt").write_text(pinned)
    (made / "results" / "config.json").unlink()


def test_reproduce_in_a_study_is_a_one_line_error(made):
    from replearn.pipeline.reproduce import reproduce

    with pytest.raises(
        ConfigError, match=r"^reproduce: cs229_housing: .*has no data/reference/ folder.*reproduce: null$"
    ):
        reproduce({"reproduce": "cs229_housing", "seed": 1}, root=made)


def test_init_refuses_a_non_empty_folder_and_unknown_names_before_writing(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    assert cli.main(["init", str(tmp_path / "full"), "--no-git"]) == 2
    assert "is not empty (it holds notes.txt)" in capsys.readouterr().err
    with pytest.raises(ConfigError, match=r"^unknown dataset 'irsi'; valid choices: blobs, breast_cancer, .*wine"):
        study.init(tmp_path / "a", datasets=["irsi"], git=False)
    with pytest.raises(ConfigError, match=r"^unknown model 'svm'; valid choices: .*svm_rbf"):
        study.init(tmp_path / "a", models=["knn", "svm"], git=False)
    with pytest.raises(ConfigError, match="is a file"):
        study.init(tmp_path / "full" / "notes.txt", git=False)
    assert sorted(os.listdir(tmp_path)) == ["full"]


def test_a_study_gets_the_replearn_diff_ci_jobs_for_its_own_setup(made):
    from replearn.pipeline import ci_jobs

    for rel, text in ci_jobs.files(ci_jobs.STUDY).items():
        assert (made / rel).read_text(encoding="utf-8") == text
    workflow = (made / ci_jobs.GITHUB_PATH).read_text()
    assert "pip install --quiet -r requirements.txt" in workflow and "make repro" not in workflow
    assert "replearn diff before after --fail-on regression" in (made / "README.md").read_text()
