"""The dvc.lock guard: DVC's own writes of ``dvc.lock`` made atomic, and a lock cut short by anyone else repaired.

DVC 3 writes ``dvc.lock`` (and dvc.yaml, .dvc files, the ``params.yaml`` of ``dvc exp run -S``, its run-cache
entries) through one function, ``dvc.utils.serialize._common._dump_data``, which opens the file with mode
``"w+"`` -- truncating it -- and then serializes the YAML into it: a process killed in between leaves an empty or
cut file, and every later ``dvc`` command fails on it (``'./dvc.lock' validation failed``). ``.dvc/tmp/rwlock``
is rewritten the same way at the start and end of every stage. This module, installed into every Python process
of the environment replearn is installed in, changes three things in DVC (and keeps one file current), and only
in the DVC version it was tested with (:data:`TESTED_DVC`):

1. ``_dump_data`` on the local file system writes through :func:`replearn.atomic.atomic_write` (a temporary
   file in the same folder, fsynced for dvc.lock and dvc.yaml, renamed over the target). DVC still decides
   *what* to write; a killed run leaves the previous lock or the new one. After each complete write of a lock
   file, a copy goes to ``.dvc/tmp/replearn/last-good/`` (the lock of this workspace's last finished write,
   uncommitted work included).
2. ``rwlock._edit_rwlock`` writes ``.dvc/tmp/rwlock`` the same way, and ``hydra.compose_and_dump`` (the
   ``params.yaml`` that ``dvc exp run -S`` composes, written with ``Path.write_text``) goes to a temporary file
   renamed over the target.
3. ``Lockfile._load`` first brings the workspace's ``plugins.json`` up to date (once per process; again after
   the composed ``params.yaml`` of item 2): the installed version of each plugin model the configuration names,
   a dep of the stages that load them (:mod:`replearn.plugin_lock`). Then, when DVC cannot read a workspace's
   lock file (empty, not YAML, or failing DVC's lock schema -- what a writer without this guard leaves when
   killed), it calls :func:`repair_lock` and reads again.
   A lock file that reads is never touched, even when it differs from the last-good copy (that is DVC's
   business: a merge, a checkout, a user's edit), and neither is one with merge-conflict markers. The first read
   of a workspace's lock in a process also removes the unfinished temporary files killed writers left in the
   workspace (:func:`_sweep_leftovers`).

How it is installed: the wheel (and an editable install) puts ``replearn-dvc-guard.pth`` into site-packages,
whose one line imports this module when Python starts; :func:`install` registers an import hook (a
``sys.meta_path`` finder, no DVC import) that patches each DVC module right after DVC itself imports it.
So plain ``dvc repro``, ``dvc exp run`` (its queue workers and ``--temp`` runs too: the same interpreter),
``make repro``, a study made by ``replearn init`` and any Python code using ``dvc.repo.Repo`` all get it.
``REPLEARN_DVC_GUARD=off`` leaves DVC as it is (for a comparison; ``replearn check`` then says so).

Under another DVC version nothing is patched and every DVC process prints one warning line; at the tested version,
internals that differ from what the patches expect raise :class:`GuardError` instead of being patched blindly.
``tests/pipeline/test_dvc_guard.py`` checks the patches against the installed (pinned) DVC, and a test keeps
:data:`TESTED_DVC` equal to the pin in ``requirements/constraints.txt``.

Only ``os`` and ``sys`` are imported at start-up (the .pth runs in every process of the environment: ~0.3 ms);
:mod:`replearn.pipeline` is never imported here (it sets BLAS thread counts for the stages).
"""

from __future__ import annotations

import os
import sys

#: the DVC version whose internals the patches were written for and tested against (requirements/constraints.txt)
TESTED_DVC = "3.67.1"
ENV = "REPLEARN_DVC_GUARD"
#: marks a function this module installed (``getattr(f, MARK, False)``)
MARK = "__replearn_dvc_guard__"
#: where the guard keeps its files, under a repository's ``.dvc/`` (git-ignored by DVC's own .dvc/.gitignore)
STATE_DIR = os.path.join("tmp", "replearn")
LAST_GOOD = "last-good"
DAMAGED = "damaged"

#: the state of this process's guard: "waiting" (DVC not imported yet), "active", "off" (env), "version" (mismatch)
status: dict = {"state": "waiting", "patched": [], "dvc": None}


class GuardError(RuntimeError):
    """DVC's internals at the tested version are not what the guard patches (a modified installation)."""


# -- the import hook --------------------------------------------------------------------------------------------
class _Loader:
    """Delegates to DVC's own loader, then patches the module it executed."""

    def __init__(self, loader, name: str) -> None:
        self._loader, self._name = loader, name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _patch(self._name, module)

    def __getattr__(self, attr: str):
        return getattr(self._loader, attr)


class _Finder:
    """A ``sys.meta_path`` finder that answers only for the DVC modules still to patch, and leaves once all are."""

    def find_spec(self, name: str, path=None, target=None):
        if name not in _HOOKS or name in status["patched"]:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader, name)
        return spec


_FINDER = _Finder()


def install() -> None:
    """Patch DVC's modules as they are imported (those already imported, now). Idempotent; called by the .pth."""
    if os.environ.get(ENV, "").lower() in ("0", "off", "false", "no"):
        status["state"] = "off"
        return
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    for name in _HOOKS:
        module = sys.modules.get(name)
        if module is not None and name not in status["patched"]:
            _patch(name, module)


def _version_ok() -> bool:
    if status["dvc"] is None:
        dvc = sys.modules.get("dvc")
        status["dvc"] = str(getattr(dvc, "__version__", None) or _dist_version())
        if status["dvc"] != TESTED_DVC:
            status["state"] = "version"
            sys.stderr.write(version_warning(status["dvc"]) + "\n")
    return status["dvc"] == TESTED_DVC


def version_warning(found: str) -> str:
    return (
        f"replearn: the dvc.lock guard is off under DVC {found} (it is tested with DVC {TESTED_DVC}): a run killed "
        "while DVC writes dvc.lock can leave it cut short (`replearn check --repair` restores it); install "
        f"dvc=={TESTED_DVC} (requirements/constraints.txt) or a replearn release made for DVC {found}"
    )


def _dist_version() -> str:
    from importlib.metadata import version

    return version("dvc")


def _patch(name: str, module) -> None:
    if name in status["patched"]:
        return
    status["patched"].append(name)
    if all(n in status["patched"] for n in _HOOKS) and _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    if not _version_ok():
        return
    _HOOKS[name](module)
    status["state"] = "active"


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise GuardError(
            f"DVC {TESTED_DVC}'s {what} is not what replearn's dvc.lock guard patches (a modified DVC installation?); "
            f"reinstall dvc=={TESTED_DVC}, or set {ENV}=off to run without the guard"
        )


def _params(func) -> list[str]:
    import inspect

    return list(inspect.signature(func).parameters)


# -- 1. serialize: every YAML/JSON/TOML file DVC dumps ----------------------------------------------------------
#: DVC files whose loss matters beyond a rerun: fsynced before and after the rename
_DURABLE = ("dvc.lock", "dvc.yaml")


def _patch_serialize(package) -> None:
    from dvc.utils.serialize import _common, _json, _py, _toml, _yaml

    original = _common._dump_data
    _expect(_params(original) == ["path", "data", "dumper", "fs", "dumper_args"], "serialize._common._dump_data")
    _expect(_params(_common._modify_data) == ["path", "parser", "dumper", "fs"], "serialize._common._modify_data")
    for mod in (_json, _py, _toml, _yaml):
        _expect(getattr(mod, "_dump_data", None) is original, f"{mod.__name__}._dump_data")

    def _dump_data(path, data, dumper, fs=None, **dumper_args):
        if not _is_local(fs):
            return original(path, data, dumper=dumper, fs=fs, **dumper_args)
        import io

        from .atomic import write_text

        buffer = io.StringIO()
        dumper(data, buffer, **dumper_args)
        text = buffer.getvalue()
        target = os.path.abspath(os.fspath(path))
        write_text(target, text, durable=os.path.basename(target) in _DURABLE)
        if _is_lock_file(target):
            _save_last_good(target, text)

    _dump_data.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(_dump_data, MARK, True)
    for mod in (_common, _json, _py, _toml, _yaml):
        mod._dump_data = _dump_data


def _is_local(fs) -> bool:
    if fs is None:
        return True
    from dvc_objects.fs.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _is_lock_file(path: str) -> bool:
    """A pipeline's lock file: ``<name>.lock`` beside ``<name>.yaml`` (DVC's ProjectFile pairs them)."""
    return path.endswith(".lock") and os.path.isfile(path[: -len(".lock")] + ".yaml")


def find_root(path: str) -> str | None:
    """The DVC repository holding ``path``: the nearest folder above it with a ``.dvc/`` folder."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.isdir(os.path.join(folder, ".dvc")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def state_path(lock: str, kind: str) -> str | None:
    """``.dvc/tmp/replearn/<kind>/<the lock's path in the repository>``, None outside a repository."""
    lock = os.path.abspath(lock)
    root = find_root(lock)
    if root is None:
        return None
    return os.path.join(root, ".dvc", STATE_DIR, kind, os.path.relpath(lock, root))


def _save_last_good(lock: str, text: str) -> None:
    from .atomic import write_text

    where = state_path(lock, LAST_GOOD)
    if where is None:
        return
    try:
        write_text(where, text, durable=False)
    except OSError:  # a full disk: the lock itself was written, the spare copy is only a spare
        pass


# -- 2. rwlock: .dvc/tmp/rwlock, rewritten at every stage's start and end ------------------------------------------
class _AtomicOpen:
    """DVC's file system as ``_edit_rwlock`` sees it, but ``open(<the rwlock file>, "w")`` writes atomically."""

    def __init__(self, fs, path: str) -> None:
        self._fs, self._path = fs, path

    def open(self, path, mode: str = "r", **kwargs):
        if path == self._path and "w" in mode and _is_local(self._fs):
            from .atomic import atomic_write

            return atomic_write(path, "wb" if "b" in mode else "w", durable=False, encoding=kwargs.get("encoding"))
        return self._fs.open(path, mode, **kwargs)

    def __getattr__(self, attr: str):
        return getattr(self._fs, attr)


def _patch_rwlock(module) -> None:
    from contextlib import contextmanager

    original = module._edit_rwlock
    _expect(_params(original) == ["lock_dir", "fs", "hardlink"], "rwlock._edit_rwlock")
    _expect(isinstance(getattr(module, "RWLOCK_FILE", None), str), "rwlock.RWLOCK_FILE")

    @contextmanager
    def _edit_rwlock(lock_dir, fs, hardlink):
        with original(lock_dir, _AtomicOpen(fs, fs.join(lock_dir, module.RWLOCK_FILE)), hardlink) as lock:
            yield lock

    _edit_rwlock.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(_edit_rwlock, MARK, True)
    module._edit_rwlock = _edit_rwlock


# -- 3. dvcfile: a lock file DVC cannot read ---------------------------------------------------------------------
def _patch_dvcfile(module) -> None:
    from dvc.utils.serialize import EncodingError
    from dvc.utils.strictyaml import YAMLSyntaxError, YAMLValidationError

    lockfile = module.Lockfile
    original = lockfile._load
    _expect(_params(original) == ["self", "kwargs"], "dvcfile.Lockfile._load")
    unreadable = (YAMLSyntaxError, YAMLValidationError, EncodingError)

    def _load(self, **kwargs):
        import logging

        fs = getattr(self.repo, "fs", None)
        workspace = _is_local(fs) and getattr(fs, "rev", None) is None  # not a lock read from a git revision
        if workspace:
            _sweep_leftovers(getattr(self.repo, "root_dir", None))
            _refresh_plugins(getattr(self.repo, "root_dir", None))
        try:
            result = original(self, **kwargs)
        except unreadable:
            note = repair_lock(self.path) if workspace else None
            if note is None:
                raise
        else:  # (data, text): a text cut where it still parses has no final newline
            text = result[1] if isinstance(result, tuple) and len(result) == 2 else None
            if not workspace or not isinstance(text, str) or not text:
                return result
            if text.endswith("\n") and not cut_inside_a_stage(self.path, text):  # a cut at a line end also parses
                return result
            note = repair_lock(self.path)
            if note is None:
                return result
        logging.getLogger("replearn.dvc_guard").warning("replearn: %s", note)
        return original(self, **kwargs)

    _load.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(_load, MARK, True)
    lockfile._load = _load


_SWEPT: set = set()


def _sweep_leftovers(root) -> None:
    """Remove, once per process and repository, the unfinished temporary files (``*.replearn-partial``) that killed
    writers left anywhere in the workspace: the files they were to replace are intact, and a run that has nothing
    to write again would otherwise leave them for ``replearn check`` to find. Those of live processes stay."""
    if not isinstance(root, str) or root in _SWEPT:
        return
    _SWEPT.add(root)
    from .atomic import leftovers

    try:
        for path in leftovers(root):
            try:
                os.unlink(path)
            except OSError:
                pass
    except OSError:  # an unreadable folder: the sweep is a tidy-up, never a reason for DVC to fail
        pass


_REFRESHED: set = set()


def _refresh_plugins(root, again: bool = False) -> None:
    """Bring the workspace's ``plugins.json`` up to date with the installed plugin models, once per process and
    repository (``again``: after a new params.yaml), before DVC compares any stage with the lock: an upgraded
    plugin then marks the stages that load it stale (:mod:`replearn.plugin_lock`). Never a reason for DVC to fail:
    a problem is one warning line, and the stage that loads the models refuses to run on a stale file."""
    if not isinstance(root, str) or (root in _REFRESHED and not again):
        return
    _REFRESHED.add(root)
    try:
        from .plugin_lock import refresh

        refresh(root)
    except Exception as exc:  # broken metadata of some distribution, an unwritable folder
        import logging

        logging.getLogger("replearn.dvc_guard").warning("replearn: plugins.json not refreshed: %s", exc)


# -- 4. hydra: the params.yaml of `dvc exp run -S` ---------------------------------------------------------------
def _configuration_error(exc: BaseException) -> Exception:
    """A Hydra composition error (replearn's own message for ``-S models=[k_nearest]`` or ``-S unknown_key=1``, from
    ``hydra_plugins/replearn_config_errors``) as DVC's configuration error: ``dvc exp run`` then prints
    ``ERROR: configuration error - <message>`` and exits with 251, instead of ``ERROR: unexpected error - ...``
    (DVC's path for a bug). The message is replearn's, without DVC's "config file error" prefix (the DVC config
    is not what is wrong)."""
    from dvc.config import ConfigError
    from dvc.exceptions import DvcException

    class ExperimentConfigError(ConfigError):
        def __init__(self, msg: str) -> None:
            DvcException.__init__(self, msg)

    return ExperimentConfigError(f"{exc} (conf/ with the -S overrides; params.yaml left unchanged)")


def _patch_hydra(module) -> None:
    original = module.compose_and_dump
    _expect(
        _params(original) == ["output_file", "config_dir", "config_module", "config_name", "plugins_path", "overrides"],
        "utils.hydra.compose_and_dump",
    )

    def compose_and_dump(output_file, *args, **kwargs):
        from .atomic import commit, sweep, temp_name

        target = os.path.abspath(os.fspath(output_file))
        sweep(target)
        # the same suffix: DVC picks the format (OmegaConf's YAML for .yaml) by it
        temp = os.path.join(os.path.dirname(target), temp_name(target, os.path.splitext(target)[1]))
        try:
            try:
                original(temp, *args, **kwargs)
            except Exception as exc:
                hydra_errors = sys.modules.get("hydra.errors")
                if hydra_errors is not None and isinstance(exc, hydra_errors.HydraException):
                    raise _configuration_error(exc) from None  # params.yaml is left as it was
                raise
            commit(temp, target)
            if os.path.basename(target) == "params.yaml":  # the new params.yaml may name other models
                _refresh_plugins(os.path.dirname(target), again=True)
        finally:
            if os.path.exists(temp):
                os.unlink(temp)

    compose_and_dump.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(compose_and_dump, MARK, True)
    module.compose_and_dump = compose_and_dump


_HOOKS = {
    "dvc.utils.serialize": _patch_serialize,
    "dvc.rwlock": _patch_rwlock,
    "dvc.dvcfile": _patch_dvcfile,
    "dvc.utils.hydra": _patch_hydra,
}


# -- the repair, shared with `replearn check` ---------------------------------------------------------------------
_CONFLICT = ("<<<<<<< ", ">>>>>>> ")


def lock_problem(text: str) -> str | None:
    """Why ``text`` is not a complete lock file (None when it is): what a killed write leaves, in words.

    Empty, not YAML, failing DVC's lock schema, or ending without the newline DVC's writer ends every file with
    (a cut that happens to leave valid YAML: the stages after the cut would silently be missing)."""
    if not text.strip():
        return "empty"
    if not text.endswith("\n"):  # DVC's YAML writer ends every file with a newline: this one stops mid-line
        return "cut off mid-line"
    from dvc.schema import COMPILED_LOCKFILE_SCHEMA
    from dvc.utils.serialize import parse_yaml
    from voluptuous import Invalid

    try:
        data = parse_yaml(text, "dvc.lock")
    except Exception as exc:  # ruamel's errors, wrapped by DVC
        return f"not valid YAML ({type(exc).__name__})"
    if not isinstance(data, dict) or not isinstance(data.get("stages", {}), dict):
        return "not a DVC lock file (no 'stages' mapping)"
    try:
        COMPILED_LOCKFILE_SCHEMA(data)
    except Invalid as exc:
        return f"not a valid DVC lock file ({exc})"
    return None


def cut_inside_a_stage(lock: str, text: str) -> bool:
    """True when ``text`` (a readable lock file) is the last complete lock this workspace wrote cut short at a line
    end inside a stage's entry: a strict prefix of the last-good copy whose last stage differs from that stage's
    entry there. Such a cut parses, and may even pass DVC's schema, yet a stage's deps or outs are missing from it.
    A lock that is a prefix ending at a stage's boundary (an older lock checked out, say) is a lock DVC can use, and
    is left alone, as is every lock that is not a prefix of the copy (DVC's business)."""
    spare = state_path(lock, LAST_GOOD)
    if not spare or not text:
        return False
    try:
        with open(spare, encoding="utf-8") as fh:
            good = fh.read()
    except (OSError, UnicodeDecodeError):
        return False
    if len(good) <= len(text) or not good.startswith(text):
        return False
    from dvc.utils.serialize import parse_yaml

    try:
        cut, whole = parse_yaml(text, lock), parse_yaml(good, lock)
    except Exception:  # ruamel's errors, wrapped by DVC: not this function's question
        return False
    stages = cut.get("stages") if isinstance(cut, dict) else None
    if not isinstance(stages, dict) or not stages:
        return True  # the header alone: every entry is missing
    last = list(stages)[-1]
    return stages[last] != (whole.get("stages") or {}).get(last)


def has_conflict_markers(text: str) -> bool:
    return any(line.startswith(_CONFLICT) or line.rstrip("\r\n") == "=======" for line in text.splitlines())


def _committed(lock: str) -> str | None:
    """The lock file as the last commit has it (``git show HEAD:<path>``), None without git or a commit."""
    import subprocess

    root = find_root(lock)
    if root is None:
        return None
    rel = os.path.relpath(os.path.abspath(lock), root).replace(os.sep, "/")
    try:
        res = subprocess.run(["git", "show", f"HEAD:./{rel}"], cwd=root, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.decode("utf-8", "replace") if res.returncode == 0 else None


def repair_plan(lock: str) -> tuple[str, str | None, str] | None:
    """What :func:`repair_lock` would do: (the problem, the replacement text or None to remove the file, its source).

    None when there is nothing to repair: the file is missing or readable, or it has merge-conflict markers (a
    real conflict, left to the user and DVC)."""
    try:
        raw = open(lock, "rb").read()
    except FileNotFoundError:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text, problem = raw.decode("utf-8", "replace"), "not valid UTF-8"
    else:
        problem = lock_problem(text)  # type: ignore[assignment]
    if problem is None and cut_inside_a_stage(lock, text):
        problem = "cut at a line end inside a stage's entry"
    if problem is None or has_conflict_markers(text):
        return None
    size = f"{len(raw):,} bytes, {problem}" if raw else "0 bytes"
    spare = state_path(lock, LAST_GOOD)
    if spare and os.path.isfile(spare):
        good = open(spare, encoding="utf-8", errors="replace").read()
        if lock_problem(good) is None:
            return size, good, f"the last complete lock file this workspace wrote ({_rel(spare, lock)})"
    committed = _committed(lock)
    if committed is not None and lock_problem(committed) is None:
        return size, committed, "the committed version (git HEAD)"
    return size, None, "none (DVC runs every stage again, or restores it from its run cache)"


def repair_lock(lock: str) -> str | None:
    """Replace a lock file that cannot be read (cut short by a killed writer) by the best complete one; the note.

    The replacement is the last-good copy of this workspace, else the committed version, else nothing (the file is
    removed: DVC then treats every stage as changed). Any complete lock is safe to start from, since DVC checks
    each stage's recorded hashes against the workspace and reruns what differs. The damaged file is kept in
    ``.dvc/tmp/replearn/damaged/``. Returns None (and changes nothing) when :func:`repair_plan` finds nothing to do.
    """
    import time

    from .atomic import write_text

    plan = repair_plan(lock)
    if plan is None:
        return None
    problem, text, source = plan
    kept = state_path(lock, DAMAGED)
    if kept is not None:
        kept = f"{kept}.{time.strftime('%Y%m%d-%H%M%S')}.{os.getpid()}"
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        os.replace(lock, kept)
    if text is not None:
        write_text(lock, text, durable=True)
    elif kept is None:
        os.unlink(lock)
    name = os.path.basename(lock)
    return (
        f"{name} could not be read ({problem}; a run was killed while it was written): "
        + (f"restored from {source}" if text is not None else "removed, with nothing complete to restore")
        + (f"; the damaged file is kept as {_rel(kept, lock)}" if kept else "")
    )


def _rel(path: str, lock: str) -> str:
    root = find_root(lock) or os.path.dirname(os.path.abspath(lock))
    return os.path.relpath(path, root)


def describe() -> str:
    """One line on this process's guard, for ``replearn check``."""
    install()
    import dvc.dvcfile  # noqa: F401  (imports the patched modules)
    import dvc.rwlock  # noqa: F401
    import dvc.utils.hydra  # noqa: F401

    state = status["state"]
    if state == "off":
        return f"the dvc.lock guard is off ({ENV}={os.environ.get(ENV)})"
    if state == "version":
        return version_warning(str(status["dvc"]))
    return f"the dvc.lock guard is active (DVC {status['dvc']}: atomic dvc.lock and rwlock writes)"


def is_active() -> bool:
    """True when every DVC module the guard patches is patched in this process."""
    install()
    import dvc.dvcfile
    import dvc.rwlock
    import dvc.utils.hydra
    import dvc.utils.serialize._common as common

    return bool(
        getattr(common._dump_data, MARK, False)
        and getattr(dvc.rwlock._edit_rwlock, MARK, False)
        and getattr(dvc.dvcfile.Lockfile._load, MARK, False)
        and getattr(dvc.utils.hydra.compose_and_dump, MARK, False)
    )


install()
