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
    # lockfile.py and what it imports that prepare did not (the dvc.lock guard)
    assert list(problems) == ["prepare"] and problems["prepare"]["superfluous"] == []
    assert "src/replearn/pipeline/lockfile.py" in problems["prepare"]["missing"]
    assert deps.write(tmp_path) == ["prepare"]
    assert deps.check(tmp_path) == {}
    text = (tmp_path / "dvc.yaml").read_text()
    assert text.startswith("# The replearn pipeline")  # comments kept


def test_cli_check_fails_on_drift(tmp_path):
    for part in ("src", "stages"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    spec["stages"]["report"]["deps"].remove("src/replearn/pipeline/report/sections.py")
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump(spec))
    res = subprocess.run([sys.executable, "-m", "replearn", "deps"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 1 and "report: missing dep" in res.stderr


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_granularity_registries_whole_other_packages_by_file_and_lazy_exports_only_where_named(tmp_path):
    _tree(
        tmp_path,
        {
            "src/replearn/__init__.py": "",
            "src/replearn/base.py": "",
            # a registry: loads members by name, so any import of it brings in the whole folder
            "src/replearn/reg/__init__.py": "import importlib\ndef get(n):\n    return importlib.import_module(n)\n",
            "src/replearn/reg/member.py": "",
            # a static package: followed file by file; listed as a folder only when every module is imported
            "src/replearn/algo/__init__.py": "from .one import f\n",
            "src/replearn/algo/one.py": "from ..base import *\n",
            "src/replearn/algo/two.py": "def g():\n    from .. import reg\n",
            # lazy exports: heavy.py (which uses the registry) only where `Heavy` is named or the package is an object
            "src/replearn/lazy/__init__.py": ("from .light import L\nLAZY_EXPORTS = {'Heavy': 'heavy'}\n"),
            "src/replearn/lazy/light.py": "L = 1\n",
            "src/replearn/lazy/heavy.py": "from .. import reg\nHeavy = 2\n",
            "stages/light.py": "from replearn.lazy import L\nfrom replearn.algo import f\n",
            "stages/heavy.py": "from replearn.lazy import Heavy\nfrom replearn.algo import two\n",
            "stages/object.py": "import replearn.lazy\n",
        },
    )
    light = {p.as_posix() for p in deps.import_closure(Path("stages/light.py"), tmp_path)}
    assert light == {
        "src/replearn/__init__.py",
        "src/replearn/algo/__init__.py",
        "src/replearn/algo/one.py",
        "src/replearn/base.py",
        "src/replearn/lazy/__init__.py",
        "src/replearn/lazy/light.py",
    }
    # a sub-package the stage imports in part is listed file by file (an edit to algo/two.py or lazy/heavy.py,
    # which this stage never runs, leaves it up to date); the registry, never imported, is no dep
    assert deps.code_deps(Path("stages/light.py"), tmp_path) == [
        "src/replearn/__init__.py",
        "src/replearn/algo/__init__.py",
        "src/replearn/algo/one.py",
        "src/replearn/base.py",
        "src/replearn/lazy/__init__.py",
        "src/replearn/lazy/light.py",
    ]
    heavy = {p.as_posix() for p in deps.import_closure(Path("stages/heavy.py"), tmp_path)}
    assert {"src/replearn/lazy/heavy.py", "src/replearn/algo/two.py", "src/replearn/reg/member.py"} <= heavy
    assert "src/replearn/reg" in deps.code_deps(Path("stages/heavy.py"), tmp_path)
    # every module of lazy/ runs (its __init__ imports light.py): the folder stands for them
    assert "src/replearn/lazy" in deps.code_deps(Path("stages/heavy.py"), tmp_path)
    assert "src/replearn/reg" in deps.code_deps(Path("stages/object.py"), tmp_path)


def test_a_registry_loading_in_a_function_brings_its_members_only_where_it_is_imported_itself(tmp_path):
    """A registry whose by-name import sits in a function (``families.load``) adds its members to the stages that
    import it, not to those that only run it as the parent package of another module (the report importing
    ``families/<f>/report.py``); one whose by-name import runs at import time adds them wherever the folder is
    touched."""
    _tree(
        tmp_path,
        {
            "src/replearn/__init__.py": "",
            "src/replearn/fam/__init__.py": (
                "import importlib\nLOADS_BY_NAME = ('fam/*/problems.py',)\n"
                "def load(n):\n    return importlib.import_module(f'replearn.fam.{n}.problems')\n"
            ),
            "src/replearn/fam/a/__init__.py": "",
            "src/replearn/fam/a/problems.py": "from ... import heavy\n",
            "src/replearn/fam/a/report.py": "X = 1\n",
            "src/replearn/heavy.py": "",
            "src/replearn/eager/__init__.py": "import importlib\nimportlib.import_module('replearn.eager.m')\n",
            "src/replearn/eager/m.py": "",
            "src/replearn/eager/sub/__init__.py": "",
            "src/replearn/eager/sub/leaf.py": "",
            "stages/report.py": "from replearn.fam.a import report\n",
            "stages/prepare.py": "from replearn.fam import load\n",
            "stages/eager.py": "import replearn.eager.sub.leaf\n",
        },
    )
    report = {p.as_posix() for p in deps.import_closure(Path("stages/report.py"), tmp_path)}
    assert report == {
        "src/replearn/__init__.py",
        "src/replearn/fam/__init__.py",
        "src/replearn/fam/a/__init__.py",
        "src/replearn/fam/a/report.py",
    }
    prepare = {p.as_posix() for p in deps.import_closure(Path("stages/prepare.py"), tmp_path)}
    assert {"src/replearn/fam/a/problems.py", "src/replearn/heavy.py"} <= prepare
    assert "src/replearn/fam/a/report.py" not in prepare  # LOADS_BY_NAME names the problems only
    eager = {p.as_posix() for p in deps.import_closure(Path("stages/eager.py"), tmp_path)}
    assert "src/replearn/eager/m.py" in eager  # eager/__init__ runs as a parent, and its import runs with it


def test_the_report_depends_on_the_families_report_views_and_on_none_of_their_runs():
    from replearn.pipeline import deps

    report = deps.generated_deps(ROOT)["report"]
    families = sorted(p.parent.name for p in (ROOT / "src/replearn/pipeline/families").glob("*/report.py"))
    assert families == ["generative", "rl", "sequence", "theory"]
    for family in families:
        assert f"src/replearn/pipeline/families/{family}/report.py" in report
    assert not [e for e in report if e.endswith(("/problems.py", "/units.py")) or e == "src/replearn/pipeline/families"]
    assert _stale_after_editing("src/replearn/pipeline/families/rl/report.py", deps.generated_deps(ROOT)) == {"report"}


def test_lazy_exports_load_on_first_use_and_keep_an_export_named_like_its_module():
    code = (
        "import sys\n"
        "import replearn.structured, replearn.deep, replearn.evaluation, replearn.theory\n"
        "assert 'replearn.models' not in sys.modules, 'a package import loaded the model registry'\n"
        "from replearn.evaluation.learning_curve import learning_curve as f\n"
        "import replearn.evaluation as E\n"
        "assert E.learning_curve is f and callable(E.learning_curve)\n"
        "assert 'DAgger' in dir(replearn.structured) and replearn.structured.DAgger.__name__ == 'DAgger'\n"
        "assert 'replearn.models' in sys.modules\n"
        "try:\n    replearn.deep.nope\nexcept AttributeError as e:\n    assert 'nope' in str(e)\n"
        "else:\n    raise SystemExit('no AttributeError')\n"
        "import replearn.base as b\n"
        "assert sorted(b.BASE_LEARNER_REGISTRY) == ['builtin_names', 'get_class', 'hyperparameters']\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr


def test_what_a_stage_imports_at_start_is_within_its_code_deps():
    """The modules a stage's script loads when it starts (a check of the static closure against the interpreter)."""
    for stage, script in deps.stage_scripts(ROOT).items():
        module = f"replearn.pipeline.stages.{stage}"
        # replearn.dvc_guard is loaded by site (its .pth) in every interpreter and acts only inside DVC's own
        # process: the environment, not the stage's code (a stage that imports it still has it in its closure)
        code = (
            f"import importlib, sys, replearn.pipeline.stage\nimportlib.import_module({module!r})\n"
            "print('\\n'.join(sorted(m.__file__ for n, m in sys.modules.items() "
            "if n.startswith('replearn') and n != 'replearn.dvc_guard' and getattr(m, '__file__', None))))"
        )
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
        loaded = {Path(f).resolve().relative_to(ROOT).as_posix() for f in res.stdout.split()}
        closure = {p.as_posix() for p in deps.import_closure(script, ROOT)}
        assert loaded <= closure, (stage, sorted(loaded - closure))


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


#: one algorithm file of each family, and the stages of the default pipeline an edit to it must leave up to date
#: (stale: exactly the stages whose code runs it; significance compares records and runs no unit of any family)
FAMILY_FILES = {
    "generative": "src/replearn/deep/vae.py",
    "sequence": "src/replearn/deep/transformer.py",
    "rl": "src/replearn/rl/policy_gradient.py",
    "structured": "src/replearn/structured/viterbi.py",
    "theory": "src/replearn/theory/vc.py",
}


def _stale_after_editing(rel: str, stage_deps: dict[str, list[str]]) -> set[str]:
    """The stages DVC calls changed after an edit of ``rel``: those with a deps entry equal to it or a folder above."""
    return {s for s, entries in stage_deps.items() if any(rel == e or rel.startswith(e + "/") for e in entries)}


def test_an_edit_to_one_file_of_each_family_stales_only_the_stages_that_run_it():
    """The dep set of each stage (as ``dvc.yaml`` declares it and ``replearn deps`` computes it) against an edit of
    one file per family: prepare and significance stay up to date for a VAE edit (the family problems import only
    ``deep/toy_data.py``, the records module no data loader), the fitting stages do not."""
    from replearn.pipeline import deps

    stage_deps = deps.generated_deps(ROOT)
    assert stage_deps == deps.declared_code_deps(ROOT)  # what DVC sees is what was computed
    stale = {family: _stale_after_editing(rel, stage_deps) for family, rel in FAMILY_FILES.items()}
    for family, stages in stale.items():
        assert "significance" not in stages, family
        assert {"train", "crossval"} <= stages, family  # they fit the units
    assert "prepare" not in stale["generative"] and "prepare" not in stale["sequence"]
    assert "reproduce" not in stale["generative"]
    # issue 38's "done when": a VAE edit leaves prepare, featurize, significance and report up to date (featurize
    # maps tables without importing the runners; the report checks its settings without the model names)
    assert not stale["generative"] & {"featurize", "report"}, sorted(stale["generative"])
    assert not stale["sequence"] & {"featurize", "report"}, sorted(stale["sequence"])
    # the data generators the family problems draw from are deps of prepare, file by file
    assert "src/replearn/deep/toy_data.py" in stage_deps["prepare"]
    assert "src/replearn/deep" not in stage_deps["prepare"]
    assert _stale_after_editing("src/replearn/deep/toy_data.py", stage_deps) >= {"prepare"}
