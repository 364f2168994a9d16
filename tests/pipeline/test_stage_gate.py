"""The validation gate: the validate stage stamps the params.yaml it accepted, a later stage given the same bytes
skips the schema (and the registries it reads), any other params.yaml is validated in full; the schema the gate may
import stays among every stage's code deps."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from replearn.pipeline import config, deps, params, stage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copy2(ROOT / "params.yaml", tmp_path / "params.yaml")
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _spy_validate(monkeypatch) -> list[dict]:
    calls: list[dict] = []
    real = config.validate

    def spy(p, **kw):
        calls.append(p)
        return real(p, root=ROOT, **kw)

    monkeypatch.setattr(config, "validate", spy)
    return calls


def test_validate_stamps_and_a_later_stage_trusts_the_stamp(project, monkeypatch):
    calls = _spy_validate(monkeypatch)
    seen = []
    stage.run("validate", seen.append)
    assert len(calls) == 1 and len(seen) == 1
    stamp = json.loads((project / ".replearn" / "validated.json").read_text())
    assert stamp["schema_version"] == config.SCHEMA_VERSION and len(stamp["params_sha256"]) == 64

    stage.run("prepare", seen.append)  # same bytes: no second validation
    assert len(calls) == 1 and len(seen) == 2 and seen[1] == seen[0]
    stage.run("validate", seen.append)  # the validate stage always checks
    assert len(calls) == 2


def test_an_edited_params_file_is_validated_in_full_before_the_stage(project, monkeypatch, capsys):
    calls = _spy_validate(monkeypatch)
    stage.run("validate", lambda p: None)
    text = (project / "params.yaml").read_text()
    (project / "params.yaml").write_text(text + "\n")  # same content, other bytes: validated again
    stage.run("train", lambda p: None)
    assert len(calls) == 2 and params.is_validated(project / "params.yaml")

    bad = yaml.safe_load(text)
    bad["cv"]["folds"] = "ten"
    (project / "params.yaml").write_text(yaml.safe_dump(bad))
    ran = []
    with pytest.raises(SystemExit) as exc:
        stage.run("crossval", ran.append)
    assert exc.value.code == 2 and not ran
    assert "cv.folds" in capsys.readouterr().err
    assert not params.is_validated(project / "params.yaml")


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


def test_the_schema_the_gate_may_import_is_a_code_dep_of_every_stage():
    for script in ("stages/prepare.py", "stages/report.py"):
        closure = {p.as_posix() for p in deps.import_closure(Path(script), ROOT)}
        assert "src/replearn/pipeline/stage.py" in closure and "src/replearn/pipeline/config.py" in closure, script
