"""A plugin model's installed version is a dep of the stages that load it (replearn.plugin_lock, issue 38): the
file's content, the stages that list it, the stage that refuses a stale file, and -- in DVC's own process -- an
upgrade of a plugin distribution that marks exactly the stage depending on it stale."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from replearn import plugin_lock
from replearn.exceptions import ConfigError

ROOT = Path(__file__).resolve().parents[2]

FAKE = {
    "sk_svc": {"distribution": "replearn-sklearn", "version": "0.1.0", "entry_point": "replearn_sklearn:SVC"},
    "other": {"distribution": "another-plugin", "version": "2.3", "entry_point": "another:Model"},
}


def _params(*names: str) -> dict:
    return {"models": {f"m{i}": {"name": n, "params": {}} for i, n in enumerate(names)}}


def test_the_record_lists_only_the_plugins_the_configuration_names():
    rec = plugin_lock.record(_params("knn", "sk_svc"), FAKE)
    assert rec == {"format_version": 1, "models": {"sk_svc": FAKE["sk_svc"]}}
    # built-ins only: the same file whatever is installed, so an unrelated plugin reruns nothing
    assert plugin_lock.record(_params("knn"), FAKE) == plugin_lock.record(_params("knn"), {})
    assert plugin_lock.record({"models": "garbage"}, FAKE)["models"] == {}
    assert plugin_lock.record(None, FAKE)["models"] == {}


def test_an_upgrade_changes_the_file_and_its_bytes_are_stable():
    before = plugin_lock.render(plugin_lock.record(_params("sk_svc"), FAKE))
    upgraded = {**FAKE, "sk_svc": {**FAKE["sk_svc"], "version": "0.2.0"}}
    after = plugin_lock.render(plugin_lock.record(_params("sk_svc"), upgraded))
    assert before != after and '"0.2.0"' in after
    assert before == plugin_lock.render(json.loads(before))  # sorted keys, one newline: same content, same bytes
    assert ROOT.joinpath(plugin_lock.FILE).read_text() == plugin_lock.expected(ROOT)  # the committed file is current


def test_the_stages_that_load_configured_models_depend_on_it():
    """Generated from the code: the stages reading `models` whose closure holds the plugin loader."""
    from replearn.pipeline import deps

    declared = deps.declared_code_deps(ROOT)
    assert {s for s, entries in declared.items() if plugin_lock.FILE in entries} == {
        "validate",
        "train",
        "crossval",
        "report",
    }
    assert declared == deps.generated_deps(ROOT)


def _project(tmp_path: Path, names: tuple[str, ...]) -> Path:
    import yaml

    (tmp_path / "dvc.yaml").write_text(f"stages:\n  train:\n    cmd: x\n    deps:\n      - {plugin_lock.FILE}\n")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(_params(*names)))
    return tmp_path


def test_a_stage_refuses_a_stale_file_naming_what_differs(tmp_path, monkeypatch):
    from replearn.pipeline import experiment

    proj = _project(tmp_path, ("sk_svc",))
    monkeypatch.setattr(plugin_lock, "installed", lambda: FAKE)
    with pytest.raises(ConfigError, match="plugins.json is missing or unreadable"):
        experiment.require_current_plugins(_params("sk_svc"), str(proj))
    assert plugin_lock.refresh(proj) and not plugin_lock.refresh(proj)  # written once, then current
    experiment.require_current_plugins(_params("sk_svc"), str(proj))
    monkeypatch.setattr(plugin_lock, "installed", lambda: {**FAKE, "sk_svc": {**FAKE["sk_svc"], "version": "0.2"}})
    with pytest.raises(
        ConfigError, match=r"sk_svc: recorded replearn-sklearn 0\.1\.0 .*installed replearn-sklearn 0\.2"
    ):
        experiment.require_current_plugins(_params("sk_svc"), str(proj))
    # a project whose dvc.yaml does not track the file (a test folder, another layout) is not checked or written
    (proj / "dvc.yaml").write_text("stages: {}\n")
    experiment.require_current_plugins(_params("sk_svc"), str(proj))
    assert not plugin_lock.refresh(proj)


def test_the_installed_scan_reads_the_entry_point_group(monkeypatch):
    seen = {}

    class Dist:
        name, version = "replearn-sklearn", "0.1.0"

    def entry_points(**kw):
        seen.update(kw)
        ep = importlib.metadata.EntryPoint(name="sk_svc", value="replearn_sklearn:SVC", group=kw["group"])
        object.__setattr__(ep, "dist", Dist())  # EntryPoint is immutable; its dist is what an installed one has
        return [ep]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert plugin_lock.installed() == {"sk_svc": FAKE["sk_svc"]}
    assert seen == {"group": plugin_lock.ENTRY_POINT_GROUP}


def _fake_distribution(site: Path, version: str, *, source: Path | None = None) -> None:
    """An installed distribution as importlib.metadata finds it on sys.path: a dist-info folder with its metadata
    and its entry points (no code: the lock records versions, it imports nothing); with ``source``, installed from
    that local directory (PEP 610's direct_url.json with dir_info, as ``pip install -e`` writes it)."""
    for old in site.glob("fakeplug-*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    info = site / f"fakeplug-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakeplug\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[{plugin_lock.ENTRY_POINT_GROUP}]\nfake_model = fakeplug.models:Model\n")
    if source is not None:
        url = {"url": source.as_uri(), "dir_info": {"editable": True}}
        (info / "direct_url.json").write_text(json.dumps(url))


def test_an_edit_of_a_plugin_installed_from_a_local_directory_changes_the_record(tmp_path, monkeypatch):
    """Installed from a local directory (pip install -e), a plugin's code changes under the same version: the record
    carries the digest of its package's files, so an edit changes plugins.json and reruns the stages that load it;
    the package is found without importing it, a compiled cache does not count, an index install has no digest."""
    site, src = tmp_path / "site", tmp_path / "src"
    (src / "fakeplug").mkdir(parents=True)
    (src / "fakeplug" / "__init__.py").write_text("")
    (src / "fakeplug" / "models.py").write_text("raise RuntimeError('never imported')\n")
    _fake_distribution(site, "1.0", source=src)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(src))  # where the editable install's finder sends the import
    importlib.invalidate_caches()
    params = _params("fake_model")
    first = plugin_lock.record(params)["models"]["fake_model"]
    assert first["version"] == "1.0" and len(first["source_sha256"]) == 64 and "fakeplug" not in sys.modules
    (src / "fakeplug" / "__pycache__").mkdir()
    (src / "fakeplug" / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"\0")
    assert plugin_lock.record(params)["models"]["fake_model"] == first  # no code of its own
    (src / "fakeplug" / "models.py").write_text("raise RuntimeError('edited')\n")
    edited = plugin_lock.record(params)["models"]["fake_model"]
    assert edited["source_sha256"] != first["source_sha256"] and edited["version"] == "1.0"
    assert "source " + edited["source_sha256"][:12] in plugin_lock._describe(edited)
    _fake_distribution(site, "1.0")  # the same version from a package index: the version says it all
    assert "source_sha256" not in plugin_lock.record(params)["models"]["fake_model"]


def test_upgrading_a_plugin_marks_the_stage_that_loads_it_stale_in_dvc(tmp_path):
    """The issue's "done when", in DVC's own processes: after `dvc repro` everything is up to date; installing a
    new version of the plugin the configuration names makes `dvc status` call the stage that depends on
    plugins.json changed (the guard refreshed it when DVC read the lock), and the stage that does not stays."""
    import os

    site, proj = tmp_path / "site", tmp_path / "proj"
    _fake_distribution(site, "1.0")
    proj.mkdir()
    (proj / "params.yaml").write_text("models:\n  a:\n    name: fake_model\n")
    (proj / "dvc.yaml").write_text(
        "stages:\n"
        "  fit:\n    cmd: python -c \"open('fit.txt', 'w').write('1')\"\n"
        f"    deps:\n      - {plugin_lock.FILE}\n    params:\n      - models\n    outs:\n      - fit.txt\n"
        "  other:\n    cmd: python -c \"open('other.txt', 'w').write('1')\"\n    outs:\n      - other.txt\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    env.pop("REPLEARN_DVC_GUARD", None)
    dvc = [sys.executable, "-m", "dvc"]

    def run(*args: str) -> subprocess.CompletedProcess:
        res = subprocess.run([*dvc, *args], cwd=proj, capture_output=True, text=True, env=env, timeout=120)
        assert res.returncode == 0, res.stdout + res.stderr
        return res

    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    run("init", "-q")
    run("repro")  # the guard wrote plugins.json before DVC looked at the deps
    recorded = json.loads((proj / plugin_lock.FILE).read_text())
    assert recorded["models"] == {
        "fake_model": {"distribution": "fakeplug", "version": "1.0", "entry_point": "fakeplug.models:Model"}
    }
    assert "up to date" in run("status").stdout
    _fake_distribution(site, "1.1")  # pip install -U fakeplug
    status = run("status").stdout
    assert "fit:" in status and "modified:" in status and plugin_lock.FILE in status, status
    assert "other:" not in status, status
    assert json.loads((proj / plugin_lock.FILE).read_text())["models"]["fake_model"]["version"] == "1.1"
    run("repro")
    assert "up to date" in run("status").stdout
