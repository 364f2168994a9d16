"""The validation gate: the validate stage stamps the params.yaml it accepted, a later stage given the same bytes
trusts the stamp, any other params.yaml is validated in full by the gate in a child process; a stage other than
validate never imports the schema, so editing a model does not rerun ``prepare``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from replearn.pipeline import config, deps, gate, params, stage
from replearn.pipeline.kinds import FAMILY_MODULES
from replearn.pipeline.stages import validate as validate_stage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copy2(ROOT / "params.yaml", tmp_path / "params.yaml")
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)  # the shipped registry the schema reads
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _spy(monkeypatch, module, name) -> list:
    calls: list = []
    real = getattr(module, name)

    def spy(*args, **kw):
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_validate_stamps_and_a_later_stage_trusts_the_stamp(project, monkeypatch):
    checks = _spy(monkeypatch, gate, "validate")
    children = _spy(monkeypatch, stage, "_gate")
    stage.run("validate", validate_stage.main)
    assert len(checks) == 1
    stamp = json.loads((project / ".replearn" / "validated.json").read_text())
    assert stamp["schema_version"] == config.SCHEMA_VERSION and len(stamp["params_sha256"]) == 64
    assert json.loads((project / "results" / "config.json").read_text()) == config.validation_record()

    seen = []
    stage.run("prepare", seen.append)  # same bytes: no second validation, no child process
    assert len(checks) == 1 and not children and seen == [params.load_params()]
    stage.run("validate", validate_stage.main)  # the validate stage always checks
    assert len(checks) == 2


def test_an_edited_params_file_is_validated_in_full_before_the_stage(project, monkeypatch, capsys):
    stage.run("validate", validate_stage.main)
    children = _spy(monkeypatch, stage, "_gate")
    text = (project / "params.yaml").read_text()
    (project / "params.yaml").write_text(text + "\n")  # same content, other bytes: validated again
    assert not params.is_validated(project / "params.yaml")
    ran = []
    stage.run("train", ran.append)
    assert len(children) == 1 and len(ran) == 1 and params.is_validated(project / "params.yaml")

    bad = yaml.safe_load(text)
    bad["cv"]["folds"] = "ten"
    (project / "params.yaml").write_text(yaml.safe_dump(bad))
    ran = []
    with pytest.raises(SystemExit) as exc:
        stage.run("crossval", ran.append)
    assert exc.value.code == 2 and not ran and len(children) == 2
    err = capsys.readouterr().err
    assert "replearn crossval: invalid configuration" in err and "cv.folds" in err  # the schema's own message
    assert not params.is_validated(project / "params.yaml")


def test_the_gate_run_as_a_program_exits_2_with_the_reason(project, capsys):
    assert gate.main(["params.yaml"]) == 0 and params.is_validated("params.yaml")
    bad = yaml.safe_load((project / "params.yaml").read_text())
    bad["seed"] = -1
    (project / "params.yaml").write_text(yaml.safe_dump(bad))
    assert gate.main(["params.yaml"]) == 2
    assert "seed" in capsys.readouterr().err and not params.is_validated("params.yaml")


def test_a_stamp_of_another_schema_or_version_is_not_trusted(project):
    p = project / "params.yaml"
    params.write_stamp(p)
    assert params.is_validated(p)
    path = params.stamp_path(p)
    stamp = json.loads(path.read_text())
    for key, value in (("schema_version", -1), ("replearn", "0.0.0"), ("params_sha256", "0" * 64)):
        path.write_text(json.dumps({**stamp, key: value}))
        assert not params.is_validated(p), key
    path.write_text("{not json")
    assert not params.is_validated(p)


def test_only_the_validate_stage_imports_the_schema_and_no_stage_imports_the_gate():
    closures = {
        name: {p.as_posix() for p in deps.import_closure(script, ROOT)}
        for name, script in deps.stage_scripts(ROOT).items()
    }
    assert "src/replearn/pipeline/config.py" in closures["validate"]
    assert "src/replearn/pipeline/gate.py" in closures["validate"]
    assert "src/replearn/pipeline/config.py" not in closures["prepare"]
    assert not any("src/replearn/pipeline/gate.py" in c for n, c in closures.items() if n != "validate")
    assert stage.GATE_MODULE == gate.__name__  # the child process runs this very module


def test_editing_a_model_never_reruns_prepare():
    """No model file is among prepare's code deps, and each is among those of validate (its constraints), train
    and crossval."""
    code = {name: deps.code_deps(script, ROOT) for name, script in deps.stage_scripts(ROOT).items()}
    assert not any(e == "src/replearn/models" or e.startswith("src/replearn/models/") for e in code["prepare"])
    for name in ("validate", "train", "crossval"):
        assert "src/replearn/models" in code[name], name


@pytest.mark.parametrize("family", sorted(FAMILY_MODULES))
def test_an_edit_in_a_family_folder_reruns_exactly_the_stages_that_run_it(family):
    """A family is one folder: an edit of its units reruns the stages that run units (validate for their
    constraints, train, crossval) and never prepare, featurize, significance or report; an edit of its problems
    reruns prepare (which builds them). dvc.yaml's deps are these closures (``replearn deps`` checks)."""
    closures = {
        name: {p.as_posix() for p in deps.import_closure(script, ROOT)}
        for name, script in deps.stage_scripts(ROOT).items()
    }
    folder = f"src/replearn/pipeline/families/{FAMILY_MODULES[family]}"
    units, problems = f"{folder}/units.py", f"{folder}/problems.py"
    assert {n for n, c in closures.items() if units in c} == {"validate", "train", "crossval"}
    assert problems in closures["prepare"] and units not in closures["prepare"]
