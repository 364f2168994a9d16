"""Where the two sides of ``replearn diff`` come from, and their records.

A side is named as ``dvc metrics diff`` names one -- a git revision (``HEAD``, ``main``, a tag, a commit), a DVC
experiment (``dvc exp run``'s name, ``--temp`` runs included; a queued one has not run yet), ``workspace`` (the
files in the project now) -- or a folder: a project (``<dir>/results/crossval/``), a results folder
(``<dir>/crossval/``) or a folder of ``<dataset>.json`` records. The results of a revision are DVC outputs, not
in git: they are read through DVC (:class:`dvc.api.DVCFileSystem` at that revision, from the local cache), so a
revision whose outputs were never run or pulled here says which ``dvc exp run`` / ``dvc pull`` is missing.

Every record is read by :func:`replearn.pipeline.records.read_evaluation_data` (this version's schema, or an
older compatible one, stated).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ...exceptions import ReplearnError
from .. import paths, records

WORKSPACE = "workspace"
CROSSVAL = paths.RESULTS / "crossval"


class DiffInputError(ReplearnError, ValueError):
    """A side of the diff cannot be read (unknown revision, no records, unreadable records): one line, no trace."""


@dataclass
class Side:
    """One side of a diff: what was named, what it resolved to, and its records."""

    label: str  # as named on the command line ("HEAD", "workspace", "exp-1a2b3", "../other")
    kind: str  # "workspace", "folder", "revision" or "experiment"
    commit: str | None = None  # the git commit (revision, experiment)
    exp_name: str | None = None
    folder: Path | None = None  # where the records were read (workspace, folder)
    params: dict | None = None  # its params.yaml, where there is one
    results: dict[str, records.EvaluationResult] = field(default_factory=dict)
    #: dataset -> the schema version its record was written with (when older than this replearn's)
    older_schema: dict[str, int] = field(default_factory=dict)
    #: the plain data of results/significance.json (for the MLflow run key of the side), when present
    significance: dict | None = None
    #: the plain data of each crossval record, as read (for the MLflow run key of the side)
    plain: dict[str, dict] = field(default_factory=dict)

    def describe(self) -> str:
        if self.kind == "experiment":
            return f"experiment {self.exp_name} ({(self.commit or '')[:7]})"
        if self.kind == "revision":
            return f"{self.label} ({(self.commit or '')[:7]})"
        if self.kind == "folder":
            return f"folder {self.label}"
        return "workspace"


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _is_git(root: Path) -> bool:
    return _git(root, "rev-parse", "--is-inside-work-tree") == "true"


def resolve(name: str | None, root: Path, *, default: str) -> Side:
    """The side named ``name`` (None: ``default``), resolved in this order: ``workspace``; an existing folder; a
    git revision; a DVC experiment (a queued or failed one is refused with the command that runs it)."""
    name = default if name is None else name
    root = Path(root)
    if name == WORKSPACE:
        return Side(label=WORKSPACE, kind="workspace", folder=root)
    as_path = Path(name)
    if not as_path.is_absolute():
        as_path = Path.cwd() / as_path
    if as_path.is_dir():
        if as_path.resolve() == root.resolve():
            return Side(label=WORKSPACE, kind="workspace", folder=root)
        return Side(label=name, kind="folder", folder=as_path)
    if not _is_git(root):
        raise DiffInputError(
            f"{name!r} is not a folder, and {root} is not a git repository, so it cannot be a revision or an experiment"
        )
    commit = _git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
    if commit:
        return Side(label=name, kind="revision", commit=commit)
    found = _experiment_ref(name, root)
    if found is not None:
        return Side(label=name, kind="experiment", commit=found, exp_name=name)
    return _experiment(name, root)


def _experiment_ref(name: str, root: Path) -> str | None:
    """The commit of the DVC experiment ``name`` read from its git ref (``refs/exps/<baseline>/<name>``, DVC's
    layout) without importing DVC: one match, or the one whose baseline is HEAD; None otherwise (DVC decides)."""
    out = _git(root, "for-each-ref", "--format=%(objectname) %(refname)", "refs/exps/")
    if not out:
        return None
    matches = []
    for line in out.splitlines():
        sha, _, ref = line.partition(" ")
        parts = ref.split("/")
        if len(parts) == 5 and parts[4] == name and len(parts[2]) == 2:
            matches.append((parts[2] + parts[3], sha))
    if len(matches) == 1:
        return matches[0][1]
    head = _git(root, "rev-parse", "HEAD")
    at_head = [sha for baseline, sha in matches if baseline == head]
    return at_head[0] if len(at_head) == 1 else None


def _experiment(name: str, root: Path) -> Side:
    """A DVC experiment by name (``dvc exp show``'s Experiment column), or a clear refusal."""
    from dvc.repo import Repo
    from dvc.repo.experiments.utils import resolve_name

    try:
        repo = Repo(str(root))
    except Exception as exc:  # not a DVC project
        raise DiffInputError(f"unknown revision or experiment {name!r} ({root}: {exc})") from None
    try:
        try:
            found = resolve_name(repo.scm, name).get(name)
        except Exception as exc:  # ambiguous names: DVC's own message names the candidates
            raise DiffInputError(f"experiment {name!r}: {exc}") from None
        if found is not None:
            commit = repo.scm.get_ref(str(found))
            return Side(label=name, kind="experiment", commit=commit, exp_name=found.name)
        queue = repo.experiments.celery_queue
        for state, entries, hint in (
            ("queued and not run yet", queue.iter_queued, "`dvc queue start` (or `dvc exp run --run-all`)"),
            ("still running", queue.iter_active, "`dvc queue status`, then `dvc queue logs " + name + "`"),
            ("a failed run", queue.iter_failed, f"`dvc queue logs {name}` for its error, then `dvc exp run`"),
        ):
            try:
                names = {getattr(e, "name", None) for e in entries()}
            except Exception:  # no queue set up: nothing there
                names = set()
            if name in names:
                raise DiffInputError(f"experiment {name!r} is {state}: it has no results to diff; see {hint}")
    finally:
        repo.close()
    raise DiffInputError(
        f"unknown revision or experiment {name!r}: not a folder, not a git revision (`git rev-parse {name}`) and not "
        "a DVC experiment of this repository (`dvc exp list --all-commits`)"
    )


# -- reading --------------------------------------------------------------------------------------------
def load(side: Side, root: Path) -> Side:
    """Read the side's crossval records (every ``<dataset>.json``), its params.yaml and significance result."""
    if side.kind in ("workspace", "folder"):
        _load_folder(side, Path(side.folder or root))
    else:
        _load_revision(side, Path(root))
    if not side.results:
        raise DiffInputError(_no_records(side))
    return side


def _no_records(side: Side) -> str:
    if side.kind == "workspace":
        return "no records in the workspace (results/crossval/ is empty or missing): run `dvc repro` first"
    if side.kind == "folder":
        return f"no crossval records in {side.label} (expected results/crossval/<dataset>.json, crossval/ or *.json)"
    if side.kind == "experiment":
        return (
            f"no crossval records in experiment {side.exp_name}: its outputs are not in the local DVC cache -- "
            f"`dvc exp pull <remote> {side.exp_name}` fetches them, or run it again (`dvc exp apply {side.exp_name} "
            "&& dvc exp run`)"
        )
    return (
        f"no crossval records at revision {side.label}: it has no results/crossval in its dvc.lock, or its outputs "
        f"are not in the local DVC cache -- `dvc pull` them at that revision (`git checkout {side.label} && dvc "
        f"pull`), or run it (`git checkout {side.label} && dvc repro`)"
    )


def _record_folder(folder: Path) -> Path:
    for candidate in (folder / CROSSVAL, folder / "crossval", folder):
        if candidate.is_dir() and any(candidate.glob("*.json")):
            return candidate
    return folder / CROSSVAL


def _load_folder(side: Side, folder: Path) -> None:
    crossval = _record_folder(folder)
    for path in sorted(crossval.glob("*.json")):
        _add(side, path.stem, path.read_bytes(), str(path))
    # the params.yaml of the project the records belong to: <folder>/ for a project, its parent for results/
    candidates = [folder / "params.yaml"] + ([folder.parent / "params.yaml"] if crossval == folder / "crossval" else [])
    for params in candidates:
        if params.is_file():
            side.params = _yaml(params.read_text(encoding="utf-8"), str(params))
            break
    for sig in (folder / paths.RESULTS / "significance.json", folder / "significance.json"):
        if sig.is_file():
            side.significance = _json(sig.read_bytes(), str(sig))
            break


class _NotInCache(Exception):
    """The fast path cannot read a revision's outputs from the cache itself: let DVC's file system try."""


def _cache_root(root: Path) -> Path:
    """DVC's cache folder: ``cache.dir`` of .dvc/config.local or .dvc/config (relative to .dvc/), else .dvc/cache."""
    import configparser

    for name in ("config.local", "config"):
        path = root / ".dvc" / name
        if not path.is_file():
            continue
        cfg = configparser.ConfigParser()
        try:
            cfg.read(path, encoding="utf-8")
        except configparser.Error:
            raise _NotInCache from None
        if cfg.has_option("cache", "dir"):
            value = Path(cfg.get("cache", "dir").strip("'\""))
            return value if value.is_absolute() else (root / ".dvc" / value).resolve()
    return root / ".dvc" / "cache"


def _cached(cache: Path, md5: str) -> bytes:
    """The object ``md5`` of a DVC 3 cache (``files/md5/<2>/<30>``), checked against its hash."""
    import hashlib

    path = cache / "files" / "md5" / md5[:2] / md5[2:]
    try:
        data = path.read_bytes()
    except OSError:
        raise _NotInCache from None
    if hashlib.md5(data, usedforsecurity=False).hexdigest() != md5.removesuffix(".dir"):
        raise _NotInCache
    return data


def _outs_at(root: Path, commit: str) -> dict[str, str]:
    """Output path -> md5 at ``commit``, from its dvc.lock (and a ``results/crossval.dvc`` file), DVC 3 hashes only."""
    outs: dict[str, str] = {}
    for file in ("dvc.lock", "results/crossval.dvc", "results.dvc"):
        text = _git(root, "show", f"{commit}:{file}")
        if not text:
            continue
        try:
            doc = yaml.safe_load(text) or {}
        except yaml.YAMLError:
            raise _NotInCache from None
        entries = [o for st in (doc.get("stages") or {}).values() for o in st.get("outs") or []] + list(
            doc.get("outs") or []
        )
        base = str(Path(file).parent) if file.endswith(".dvc") else ""
        for o in entries:
            if not isinstance(o, dict) or "md5" not in o:
                continue
            if o.get("hash") != "md5":  # a DVC 2 lock: its cache layout is DVC's business
                raise _NotInCache
            path = (Path(base) / o["path"]).as_posix() if base and base != "." else o["path"]
            outs[path] = o["md5"]
    return outs


def _load_revision_from_cache(side: Side, root: Path) -> None:
    """The fast path: the revision's dvc.lock names its outputs' hashes, the cache holds them (DVC 3's documented
    layout), so nothing of DVC is imported (~1 s less per diff); anything unusual raises :class:`_NotInCache`."""
    outs = _outs_at(root, str(side.commit))
    folder = CROSSVAL.as_posix()
    if folder not in outs or not outs[folder].endswith(".dir"):
        raise _NotInCache
    cache = _cache_root(root)
    where = f"experiment {side.exp_name}" if side.kind == "experiment" else f"revision {side.label}"
    try:
        listing = json.loads(_cached(cache, outs[folder]))
    except json.JSONDecodeError:
        raise _NotInCache from None
    for entry in sorted(listing, key=lambda e: e["relpath"]):
        if entry["relpath"].endswith(".json") and "/" not in entry["relpath"]:
            _add(
                side,
                Path(entry["relpath"]).stem,
                _cached(cache, entry["md5"]),
                f"{folder}/{entry['relpath']} at {where}",
            )
    params = _git(root, "show", f"{side.commit}:params.yaml")
    side.params = _yaml(params, f"params.yaml at {where}") if params else None
    sig = outs.get((paths.RESULTS / "significance.json").as_posix())
    try:
        side.significance = _json(_cached(cache, sig), where) if sig else None
    except (_NotInCache, DiffInputError):
        side.significance = None


def _load_revision(side: Side, root: Path) -> None:
    try:
        return _load_revision_from_cache(side, root)
    except _NotInCache:
        side.results, side.plain, side.older_schema = {}, {}, {}
    from dvc.api import DVCFileSystem

    where = f"experiment {side.exp_name}" if side.kind == "experiment" else f"revision {side.label}"
    try:
        fs = DVCFileSystem(str(root), rev=side.commit)
    except Exception as exc:
        raise DiffInputError(f"cannot open {where} with DVC: {exc}") from None
    try:
        try:
            names = sorted(p for p in fs.ls(CROSSVAL.as_posix(), detail=False) if p.endswith(".json"))
        except FileNotFoundError:
            names = []
        for path in names:
            try:
                data = fs.read_bytes(path)
            except FileNotFoundError:
                raise DiffInputError(
                    f"{path} at {where} is not in the local DVC cache: `dvc pull` it (or rerun that revision)"
                ) from None
            _add(side, Path(path).stem, data, f"{path} at {where}")
        try:
            side.params = _yaml(fs.read_text("params.yaml"), f"params.yaml at {where}")
        except FileNotFoundError:
            side.params = None
        try:
            side.significance = _json(fs.read_bytes((paths.RESULTS / "significance.json").as_posix()), where)
        except (FileNotFoundError, DiffInputError):
            side.significance = None
    finally:
        fs.close()


def _json(data: bytes, source: str):
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DiffInputError(f"{source}: not valid JSON ({exc})") from None


def _yaml(text: str, source: str) -> dict | None:
    try:
        out = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DiffInputError(f"{source}: not valid YAML ({str(exc).splitlines()[0]})") from None
    return out if isinstance(out, dict) else None


def _without_correct(plain):
    """The record's data without the per-example ``correct`` flags (the bulk of a record; the diff reads scores
    only), so that building the typed record costs a tenth; the plain data itself is kept whole."""
    if not isinstance(plain, dict) or not isinstance(plain.get("models"), dict):
        return plain
    models = {k: ({**m, "correct": None} if isinstance(m, dict) else m) for k, m in plain["models"].items()}
    return {**plain, "models": models}


def _add(side: Side, dataset: str, data: bytes, source: str) -> None:
    plain = _json(data, source)
    try:
        record, version = records.read_evaluation_data(_without_correct(plain), source=source)
    except records.ResultSchemaError as exc:
        raise DiffInputError(str(exc)) from None
    side.results[dataset] = record
    side.plain[dataset] = plain
    if version != records.SCHEMA_VERSION:
        side.older_schema[dataset] = version
