"""dvc.yaml cannot drift from the code: every file a stage imports is in its deps, and every parameter a
stage reads is in its params (issue: results went stale when train/crossval did not declare `dataset`)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from replearn.pipeline import config, deps

ROOT = Path(__file__).resolve().parents[2]
STAGES = list(deps.stage_scripts(ROOT))


def test_every_stage_has_a_script():
    assert STAGES[:2] == ["validate", "prepare"]
    assert set(STAGES) == {p.stem for p in (ROOT / "stages").glob("*.py")}


def test_code_deps_of_every_stage_match_its_imports():
    assert deps.check(ROOT) == {}, "run `python -m replearn deps --write`"


def test_closure_follows_imports_inside_functions_and_registries():
    closure = {p.as_posix() for p in deps.import_closure(Path("stages/report.py"), ROOT)}
    # the report stage imports figures and plots through report.py, and config (lazily) the model registry,
    # whose families are imported by name: their files must be in the closure all the same
    assert "src/replearn/pipeline/report/figures.py" in closure
    assert "src/replearn/pipeline/paths.py" in closure
    assert "src/replearn/models/linear/ridge.py" in closure
    assert "src/replearn/optim/__init__.py" in closure  # imported only by model modules


def test_a_new_import_is_reported_missing_and_write_repairs_it(tmp_path):
    for part in ("src", "stages"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "dvc.yaml", tmp_path / "dvc.yaml")
    script = tmp_path / "stages" / "prepare.py"
    script.write_text(script.read_text() + "\nfrom replearn.pipeline import lockfile  # noqa: E402,F401\n")
    problems = deps.check(tmp_path)
    assert problems == {"prepare": {"missing": ["src/replearn/pipeline/lockfile.py"], "superfluous": []}}
    assert deps.write(tmp_path) == ["prepare"]
    assert deps.check(tmp_path) == {}
    text = (tmp_path / "dvc.yaml").read_text()
    assert text.startswith("# The replearn pipeline")  # comments kept


def test_cli_check_fails_on_drift(tmp_path):
    for part in ("src", "stages"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    spec["stages"]["report"]["deps"].remove("src/replearn/pipeline/report")
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump(spec))
    res = subprocess.run([sys.executable, "-m", "replearn", "deps"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 1 and "report: missing dep" in res.stderr


# -- params -----------------------------------------------------------------------------------------
class Recorder(dict):
    """A params mapping that records the dotted path of every value read (iteration reads the whole mapping)."""

    def __init__(self, data: dict, log: set, prefix: str = ""):
        super().__init__(data)
        self._log, self._prefix = log, prefix

    def _path(self, key) -> str:
        return f"{self._prefix}.{key}" if self._prefix else str(key)

    def _wrap(self, key, value):
        return Recorder(value, self._log, self._path(key)) if isinstance(value, dict) else value

    def _read(self, key, value):
        # a mapping on the way to a key (params["cv"]["on_error"]) is not read itself: what is read below it, or
        # all of it (iteration), is recorded by the wrapper -- so a stage may declare just cv.on_error
        if not isinstance(value, dict):
            self._log.add(self._path(key))
        return self._wrap(key, value)

    def __getitem__(self, key):
        return self._read(key, super().__getitem__(key))

    def get(self, key, default=None):
        return self._read(key, super().get(key, default))

    def __contains__(self, key):
        self._log.add(self._path(key))
        return super().__contains__(key)

    def _whole(self):
        self._log.add(self._prefix or "<all>")

    def __iter__(self):
        self._whole()
        return super().__iter__()

    def keys(self):
        self._whole()
        return super().keys()

    def items(self):
        self._whole()
        return [(k, self._wrap(k, v)) for k, v in super().items()]

    def values(self):
        self._whole()
        return [self._wrap(k, v) for k, v in super().items()]

    def __len__(self):
        self._whole()
        return super().__len__()


def _declared_params(stage: dict) -> list[str]:
    out = []
    for p in stage.get("params", []):
        if isinstance(p, dict):  # {"params.yaml": None}: every key of the file
            out.extend("<all>" for f, keys in p.items() if f == "params.yaml" and not keys)
        else:
            out.append(p)
    return out


def _covered(read: str, declared: list[str]) -> bool:
    return "<all>" in declared or any(read == d or read.startswith(d + ".") for d in declared)


@pytest.fixture(scope="module")
def smoke_project(tmp_path_factory):
    work = tmp_path_factory.mktemp("deps_params")
    for part in ("conf", "stages", "data/uci", "data/reference"):
        shutil.copytree(ROOT / part, work / part)
    for f in ("dvc.yaml", "data/registry.yaml"):
        shutil.copy2(ROOT / f, work / f)
    config.compose(["+experiment=smoke", "tracking=off", "cv.repeats=1", "stats.resamples=99"], root=work)
    return work


@pytest.mark.slow
def test_every_param_a_stage_reads_is_declared(smoke_project, monkeypatch):
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    monkeypatch.chdir(smoke_project)
    params = config.load_and_validate(smoke_project / "params.yaml", root=smoke_project)
    # restricting one dataset's models must be seen by the stages that plan models
    params["dataset"]["iris"]["models"] = ["knn", "logistic_regression"]
    undeclared = {}
    for stage in STAGES:
        module_spec = importlib.util.spec_from_file_location(f"stage_{stage}", smoke_project / "stages" / f"{stage}.py")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        log: set[str] = set()
        module.main(Recorder(params, log))
        declared = _declared_params(spec["stages"][stage])
        missing = sorted(r for r in log if not _covered(r, declared))
        if missing:
            undeclared[stage] = missing
        if stage in ("train", "crossval"):
            assert "dataset.iris.models" in log or "dataset" in log
    assert undeclared == {}, f"params read but not declared in dvc.yaml: {undeclared}"


def test_stage_paths_are_defined_once():
    """pipeline/data.py used to redefine the paths of pipeline/paths.py (the copies could drift apart)."""
    import re

    pattern = re.compile(r'^\w+\s*=\s*Path\("(data|models|results|metrics|plots|reports)\b', re.M)
    for path in (ROOT / "src" / "replearn" / "pipeline").rglob("*.py"):
        if path.name != "paths.py":
            assert not pattern.search(path.read_text()), f"{path.name} defines a stage path; use pipeline.paths"
