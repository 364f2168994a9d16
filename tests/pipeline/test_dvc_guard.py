"""The dvc.lock guard (replearn.dvc_guard) against the pinned DVC: installed with the package in every interpreter,
DVC's bytes unchanged, a write killed half-way leaving the previous file (and without the guard, the cut file the
issue measured), a lock DVC cannot read restored from the last complete one, a real conflict left alone, and no
patch at all under another DVC version."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from replearn import dvc_guard

ROOT = Path(__file__).resolve().parents[2]
LOCK = (ROOT / "dvc.lock").read_text(encoding="utf-8")


def _py(code: str, cwd: Path | None = None, **env) -> subprocess.CompletedProcess:
    import os

    full = {k: v for k, v in os.environ.items() if k != dvc_guard.ENV}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True, env=full
    )


def test_the_tested_version_is_the_pinned_one():
    pins = dict(
        line.split("==", 1) for line in (ROOT / "requirements/constraints.txt").read_text().splitlines() if "==" in line
    )
    assert dvc_guard.TESTED_DVC == pins["dvc"].strip()


def test_every_interpreter_of_the_environment_has_the_guard():
    """The .pth installed with the package: a fresh `python` patches DVC as DVC imports its modules."""
    res = _py(
        """
        import sys
        assert "replearn.dvc_guard" in sys.modules and "replearn.pipeline" not in sys.modules
        import dvc.dvcfile, dvc.rwlock, dvc.utils.hydra
        import dvc.utils.serialize._common as c, dvc.utils.serialize._yaml as y
        from replearn import dvc_guard as g
        print(g.status["state"], g.is_active(), y._dump_data is c._dump_data)
        """
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["active", "True", "True"]
    pth = [p for p in sys.path if (Path(p) / "replearn-dvc-guard.pth").is_file()]
    assert pth and (Path(pth[0]) / "replearn-dvc-guard.pth").read_text().strip() == "import replearn.dvc_guard"


def test_the_guard_can_be_turned_off():
    res = _py(
        "import dvc.utils.serialize._common as c; from replearn import dvc_guard as g; "
        "print(g.status['state'], hasattr(c._dump_data, g.MARK))",
        **{dvc_guard.ENV: "off"},
    )
    assert res.stdout.split() == ["off", "False"]


def test_another_dvc_version_is_not_patched_and_says_so():
    res = _py(
        """
        from replearn import dvc_guard as g
        g.TESTED_DVC = "0.0.1"  # as if another DVC were installed
        g.status["patched"].clear(); g.install()
        import dvc.utils.serialize._common as c
        print(g.status["state"], hasattr(c._dump_data, g.MARK))
        """
    )
    assert res.stdout.split() == ["version", "False"]
    assert "the dvc.lock guard is off under DVC 3." in res.stderr and "tested with DVC 0.0.1" in res.stderr


def test_changed_internals_at_the_tested_version_fail_loudly(monkeypatch):
    import dvc.utils.serialize._common as common

    monkeypatch.setattr(common, "_dump_data", lambda path, data: None)  # another signature than the guard patches
    with pytest.raises(dvc_guard.GuardError, match=r"serialize\._common\._dump_data is not what"):
        dvc_guard._patch_serialize(None)


def test_the_guarded_write_is_byte_identical_to_dvcs(tmp_path):
    from dvc.utils.serialize import _common, _yaml, dump_json, dump_yaml, parse_yaml_for_update

    data = parse_yaml_for_update(LOCK, "dvc.lock")
    assert getattr(_common._dump_data, dvc_guard.MARK)
    dump_yaml(tmp_path / "guarded.lock", data)
    _common._dump_data.__wrapped__(tmp_path / "dvc.lock", data, dumper=_yaml._dump)  # DVC's own
    assert (tmp_path / "guarded.lock").read_bytes() == (tmp_path / "dvc.lock").read_bytes()
    dump_json(tmp_path / "a.json", {"b": [1, 2.5], "a": "x"})
    assert (tmp_path / "a.json").read_text() == '{"b": [1, 2.5], "a": "x"}'


_KILL_MID_DUMP = """
import os, signal, sys
from dvc.utils.serialize import _common, _yaml, parse_yaml_for_update
path = sys.argv[1]
data = parse_yaml_for_update(open(path).read(), path)
def dump_then_die(data, stream):  # DVC's YAML writer, killed when it has written part of the file
    text = _yaml.dumps_yaml(data)
    stream.write(text[: len(text) * 2 // 5])
    stream.flush()
    os.kill(os.getpid(), signal.SIGKILL)
{call}(path, data, dumper=dump_then_die)
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_a_lock_write_killed_half_way(tmp_path, guarded):
    """The issue's failure, reproduced without the guard (the file is cut), gone with it (the previous file)."""
    lock = tmp_path / "dvc.lock"
    lock.write_text(LOCK)
    call = "_common._dump_data" if guarded else "_common._dump_data.__wrapped__"
    res = subprocess.run([sys.executable, "-c", _KILL_MID_DUMP.format(call=call), str(lock)], capture_output=True)
    assert res.returncode == -9, res.stderr
    if guarded:
        assert lock.read_text() == LOCK
    else:
        assert 0 < len(lock.read_text()) < len(LOCK) and LOCK.startswith(lock.read_text())  # cut short
        assert dvc_guard.lock_problem(lock.read_text()) is not None


def _project(tmp_path: Path) -> Path:
    """A minimal DVC project whose dvc.lock is the committed one (DVC checks it against dvc.yaml)."""
    proj = tmp_path / "proj"
    (proj / ".dvc").mkdir(parents=True)
    (proj / "dvc.yaml").write_text((ROOT / "dvc.yaml").read_text())
    (proj / "dvc.lock").write_text(LOCK)
    return proj


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        LOCK[: LOCK.index("\n", len(LOCK) // 3) - 3].encode(),
        LOCK[:16376].encode(),
        LOCK[: LOCK.index("\n", len(LOCK) // 2) + 1].encode(),
        b"\x00\xff{[",
        LOCK.encode()[:-1],
    ],
    ids=["empty", "cut mid-line", "cut where it still parses", "cut at a line end", "garbage", "last newline missing"],
)
def test_a_damaged_lock_is_restored_from_the_last_good_copy(tmp_path, damage):
    proj = _project(tmp_path)
    lock = proj / "dvc.lock"
    spare = Path(dvc_guard.state_path(str(lock), dvc_guard.LAST_GOOD))
    spare.parent.mkdir(parents=True)
    spare.write_text(LOCK)
    lock.write_bytes(damage)
    note = dvc_guard.repair_lock(str(lock))
    assert note and "restored from the last complete lock file this workspace wrote" in note
    assert lock.read_text() == LOCK
    kept = list((proj / ".dvc" / "tmp" / "replearn" / "damaged").iterdir())
    assert len(kept) == 1 and kept[0].read_bytes() == damage
    assert dvc_guard.repair_lock(str(lock)) is None  # a complete lock is never touched


def test_a_valid_lock_that_differs_from_the_last_good_copy_is_dvcs_business(tmp_path):
    proj = _project(tmp_path)
    lock = proj / "dvc.lock"
    spare = Path(dvc_guard.state_path(str(lock), dvc_guard.LAST_GOOD))
    spare.parent.mkdir(parents=True)
    spare.write_text(LOCK)
    other = re.sub(r"size: (\d+)", lambda m: f"size: {int(m.group(1)) + 1}", LOCK, count=1)  # e.g. a checkout
    lock.write_text(other)
    assert dvc_guard.repair_plan(str(lock)) is None and dvc_guard.repair_lock(str(lock)) is None
    assert lock.read_text() == other


def test_merge_conflict_markers_are_left_alone(tmp_path):
    proj = _project(tmp_path)
    lock = proj / "dvc.lock"
    conflicted = f"<<<<<<< HEAD\n{LOCK}=======\n{LOCK}>>>>>>> other\n"
    lock.write_text(conflicted)
    assert dvc_guard.repair_lock(str(lock)) is None and lock.read_text() == conflicted


def test_without_a_last_good_copy_the_committed_lock_or_none(tmp_path):
    proj = _project(tmp_path)
    lock = proj / "dvc.lock"
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@x.invalid"
    import os

    git = {**os.environ, **env}
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True, env=git)
    subprocess.run(["git", "add", "dvc.lock"], cwd=proj, check=True, env=git)
    subprocess.run(["git", "commit", "-qm", "lock"], cwd=proj, check=True, env=git)
    lock.write_text("")
    assert "restored from the committed version (git HEAD)" in dvc_guard.repair_lock(str(lock))
    assert lock.read_text() == LOCK
    subprocess.run(["git", "rm", "-q", "--cached", "dvc.lock"], cwd=proj, check=True, env=git)
    subprocess.run(["git", "commit", "-qm", "no lock"], cwd=proj, check=True, env=git)
    lock.write_text("stages:\n  validate:\n    cmd: pyth")
    assert "removed, with nothing complete to restore" in dvc_guard.repair_lock(str(lock))
    assert not lock.exists()


def test_dvc_repairs_a_cut_lock_when_it_reads_it(tmp_path):
    """In DVC's own process: `dvc status` on a cut dvc.lock restores the last-good copy and goes on, and removes the
    unfinished writes of killed processes (not those of live ones)."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "dvc.yaml").write_text("stages:\n  one:\n    cmd: echo 1 > out.txt\n    outs:\n      - out.txt\n")
    dvc = [sys.executable, "-m", "dvc"]
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    subprocess.run([*dvc, "init", "-q"], cwd=proj, check=True)
    res = subprocess.run([*dvc, "repro"], cwd=proj, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    good = (proj / "dvc.lock").read_text()
    assert (proj / ".dvc/tmp/replearn/last-good/dvc.lock").read_text() == good  # kept by the guarded write
    (proj / "dvc.lock").write_text(good[: len(good) // 2])
    (proj / "metrics").mkdir()
    stale = proj / "metrics" / ".train.json.4194999.ab12cd34.replearn-partial"  # pid above pid_max: its writer is gone
    stale.write_text("{")
    live = proj / f".params.yaml.{os.getpid()}.ab12cd34.replearn-partial.yaml"  # this process: a write in progress
    live.write_text("a:")
    res = subprocess.run([*dvc, "status"], cwd=proj, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "restored from the last complete lock file" in res.stdout + res.stderr
    assert "up to date" in res.stdout and (proj / "dvc.lock").read_text() == good
    assert not stale.exists() and live.exists()  # a killed writer's leftover is gone; a live writer's stays


def test_rwlock_and_hydra_writes_go_through_the_guard(tmp_path):
    import dvc.rwlock
    import dvc.utils.hydra
    from dvc.fs import localfs

    assert getattr(dvc.rwlock._edit_rwlock, dvc_guard.MARK)
    assert getattr(dvc.utils.hydra.compose_and_dump, dvc_guard.MARK)
    with dvc.rwlock._edit_rwlock(str(tmp_path), localfs, False) as lock:
        lock["read"]["x"].append({"pid": 1, "cmd": "dvc repro"})
    written = json.loads((tmp_path / dvc.rwlock.RWLOCK_FILE).read_text())
    assert written["read"] == {"x": [{"pid": 1, "cmd": "dvc repro"}]}
    assert not [p for p in tmp_path.iterdir() if ".replearn-partial" in p.name]


@pytest.mark.parametrize("module", ["dvc_guard.py", "atomic.py", "plugin_lock.py"])
def test_the_start_up_modules_import_only_the_standard_library_at_module_level(module):
    """replearn.dvc_guard runs in every interpreter of the environment (the .pth), and replearn.atomic under it and
    under the algorithm layer, replearn.plugin_lock under the guard: none may import replearn.pipeline (BLAS thread
    counts), dvc or anything heavy."""
    import ast

    tree = ast.parse((ROOT / "src" / "replearn" / module).read_text(encoding="utf-8"))
    top = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            top |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top.add(node.module.split(".")[0])
    stdlib = {"__future__", "os", "sys", "json", "contextlib", "secrets", "time", "collections", "pathlib", "typing"}
    assert top <= stdlib


@pytest.mark.parametrize(
    "override, says",
    [
        ("models=[k_nearest]", "models: unknown option 'k_nearest'; valid choices: "),
        ("unknown_key=1", "unknown_key: unknown key; valid keys here: "),
    ],
)
def test_a_bad_override_of_dvc_exp_run_is_dvcs_configuration_error(tmp_path, override, says):
    """``dvc exp run -S <override>`` composes params.yaml through the guarded ``compose_and_dump``: replearn's message
    comes as ``dvc.config.ConfigError`` (DVC prints ``ERROR: configuration error - <message>``, exit 251), not as a
    Hydra exception DVC calls an unexpected error; the target file is not written."""
    import dvc.utils.hydra
    from dvc.config import ConfigError

    out = tmp_path / "params.yaml"
    with pytest.raises(ConfigError) as info:
        dvc.utils.hydra.compose_and_dump(str(out), str(ROOT / "conf"), None, "config", str(ROOT), [override])
    message = str(info.value)
    assert message.startswith(says) and "config file error" not in message
    assert message.endswith("(conf/ with the -S overrides; params.yaml left unchanged)")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_dvc_prints_the_bad_override_as_a_configuration_error(tmp_path):
    """DVC's own error path, through its CLI (``dvc exp run`` with the command's body replaced by the composition
    it makes first): the exit code of a configuration error, the message, and no 'unexpected error'."""
    script = textwrap.dedent(
        f"""
        import sys, dvc.utils.hydra
        from dvc.cli import main
        def run(*a, **k):
            dvc.utils.hydra.compose_and_dump({str(tmp_path / "p.yaml")!r}, {str(ROOT / "conf")!r}, None, "config",
                                             {str(ROOT)!r}, ["unknown_key=1"])
        import dvc.commands.experiments.run as r
        r.CmdExperimentsRun.run = run
        sys.exit(main(["exp", "run"]))
        """
    )
    res = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 251, res.stderr
    assert "ERROR: configuration error - unknown_key: unknown key" in res.stderr and "unexpected" not in res.stderr
