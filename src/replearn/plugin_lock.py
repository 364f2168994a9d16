"""The installed version of every plugin model a configuration names, as a file DVC can depend on.

A plugin model (entry-point group :data:`ENTRY_POINT_GROUP`, :mod:`replearn.models`) is code outside the
project: ``pip install -U`` of its distribution changes what ``train`` and ``crossval`` compute, yet no file of
the project changes, so ``dvc status`` would call the old results up to date. ``plugins.json`` (:data:`FILE`)
closes that hole. It lists, for each plugin model that ``params.yaml`` names (``models.<key>.name``), the
distribution that provides it, its installed version and its entry point::

    {"format_version": 1, "models": {"sk_logistic_regression":
        {"distribution": "replearn-sklearn", "entry_point": "replearn_sklearn:LogisticRegression", "version": "0.1.0"}}}

and every stage that reads ``models`` and loads models lists it among its deps (``replearn deps``), so an upgrade,
a downgrade or a plugin installed in place of another changes the file and marks exactly those stages stale. A
plugin installed from a local directory (``pip install -e ./plugin`` or ``pip install ./plugin``: PEP 610's
``dir_info``), whose code can change under the same version number, also records ``source_sha256``, the digest of
its package's Python files as the interpreter finds them (:func:`source_digest`): an edit of an editable plugin,
or a reinstall of changed code under the old version, changes the file too. A
configuration that names no plugin gives ``{"format_version": 1, "models": {}}`` whatever is installed: an
unrelated plugin reruns nothing.

Who keeps it current: every DVC command of the environment, before it compares a stage with ``dvc.lock`` (the
dvc.lock guard, :mod:`replearn.dvc_guard`, refreshes it when DVC first reads a workspace's lock, and after the
``params.yaml`` of ``dvc exp run -S``), ``replearn compose`` and ``replearn check --repair``. A stage that
loads configured models refuses to run when the file disagrees with what is installed (:func:`problem`; with the
guard off, say), rather than record results under the wrong version.

Only the standard library is imported here (the guard runs in every DVC process); :mod:`yaml` on first use.
"""

from __future__ import annotations

import json
import os

#: The entry-point group through which installed distributions register models (read by :mod:`replearn.models`).
ENTRY_POINT_GROUP = "replearn.models"
#: the file, at the project's root next to ``params.yaml``
FILE = "plugins.json"
PARAMS = "params.yaml"
FORMAT_VERSION = 1


def installed() -> dict[str, dict[str, str]]:
    """``{model name: {"distribution", "version", "entry_point"[, "source_sha256"]}}`` for every installed plugin
    model (the first one of a name in a stable order, as :func:`replearn.models.plugins` keeps it);
    ``source_sha256`` for a plugin installed from a local directory (:func:`source_digest`)."""
    import importlib.metadata

    found: dict[str, dict[str, str]] = {}
    digests: dict[str, str | None] = {}  # per top-level package: a plugin's models share one (hashed once)
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        if ep.name in found:
            continue
        dist = getattr(ep, "dist", None)
        entry = {
            "distribution": getattr(dist, "name", None) or "?",
            "version": getattr(dist, "version", None) or "?",
            "entry_point": ep.value,
        }
        if _from_local_directory(dist):
            top = _top_level(ep.value)
            if top not in digests:
                digests[top] = source_digest(ep.value)
            digest = digests[top]
            if digest is not None:
                entry["source_sha256"] = digest
        found[ep.name] = entry
    return found


def _from_local_directory(dist: object) -> bool:
    """Whether ``dist`` was installed from a local directory (PEP 610 ``direct_url.json`` with ``dir_info``)."""
    read = getattr(dist, "read_text", None)
    try:
        text = read("direct_url.json") if callable(read) else None
        info = json.loads(text) if text else None
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and "dir_info" in info


def _top_level(entry_point: str) -> str:
    """The top-level package of an entry point ``pkg.mod:Object``."""
    return entry_point.split(":", 1)[0].split(".", 1)[0].strip()


def source_digest(entry_point: str) -> str | None:
    """sha256 of the Python files of the top-level package (or module) an entry point ``pkg.mod:Object`` lives in,
    found as the interpreter would import it (an editable install's source folder, a copied install's
    site-packages folder) but without importing it: each file's path inside the package and its bytes, in sorted
    order, ``__pycache__`` left out. None when the package cannot be found."""
    import hashlib
    import importlib.util
    from pathlib import Path

    top = _top_level(entry_point)
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    roots = [Path(p) for p in (spec.submodule_search_locations or [])]
    files = sorted(
        (root.name + "/" + f.relative_to(root).as_posix(), f)
        for root in roots
        for f in root.rglob("*.py")
        if "__pycache__" not in f.parts
    )
    if not roots and spec.origin and spec.origin.endswith(".py"):
        files = [(Path(spec.origin).name, Path(spec.origin))]
    if not files:
        return None
    h = hashlib.sha256()
    for rel, f in files:
        try:
            data = f.read_bytes()
        except OSError:
            return None
        h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def named_models(params: object) -> set[str]:
    """The model names ``params`` configures (``models.<key>.name``); anything malformed names none (the
    ``validate`` stage says what is wrong with it)."""
    models = params.get("models") if isinstance(params, dict) else None
    if not isinstance(models, dict):
        return set()
    return {spec["name"] for spec in models.values() if isinstance(spec, dict) and isinstance(spec.get("name"), str)}


def record(params: object, plugins: dict[str, dict[str, str]] | None = None) -> dict:
    """The content of :data:`FILE` for ``params`` with ``plugins`` (default: :func:`installed`) installed. (A plugin
    whose name a built-in model already has is refused by the registry, yet listed here all the same: the file is
    computed the same way in every DVC process, without importing the registry.)"""
    names = named_models(params)
    if plugins is None:
        plugins = installed() if names else {}
    return {"format_version": FORMAT_VERSION, "models": {n: plugins[n] for n in sorted(names) if n in plugins}}


def render(content: dict) -> str:
    """The bytes of :data:`FILE` (sorted keys, one trailing newline: the same content, the same file)."""
    return json.dumps(content, indent=2, sort_keys=True) + "\n"


def _read_params(root: str) -> object:
    import yaml

    try:
        with open(os.path.join(root, PARAMS), encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except (OSError, yaml.YAMLError):
        return None


def expected(root: str | os.PathLike) -> str:
    """What :data:`FILE` should hold for the ``params.yaml`` of ``root`` and the plugins installed now."""
    return render(record(_read_params(os.fspath(root))))


def used_by(root: str | os.PathLike) -> bool:
    """Whether the project at ``root`` tracks :data:`FILE` (its ``dvc.yaml`` names it)."""
    try:
        with open(os.path.join(os.fspath(root), "dvc.yaml"), encoding="utf-8") as fh:
            return FILE in fh.read()
    except OSError:
        return False


def refresh(root: str | os.PathLike) -> bool:
    """Rewrite :data:`FILE` of the project at ``root`` if it differs from :func:`expected` (or is missing); whether
    it was written. A project whose ``dvc.yaml`` does not name the file is left alone."""
    root = os.fspath(root)
    if not used_by(root):
        return False
    text = expected(root)
    path = os.path.join(root, FILE)
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return False
    except OSError:
        pass
    from .atomic import write_text

    write_text(path, text, durable=False)  # whole or not at all; a DVC dep, whose hash dvc.lock holds
    return True


def problem(root: str | os.PathLike, params: object) -> str | None:
    """``None`` when :data:`FILE` of ``root`` records the installed plugins ``params`` names; else what differs and
    how to bring it up to date (for a stage about to load those models)."""
    root = os.fspath(root)
    if not used_by(root):
        return None
    want = record(params)
    path = os.path.join(root, FILE)
    try:
        with open(path, encoding="utf-8") as fh:
            have = json.load(fh)
    except (OSError, ValueError):
        have = None
    if have == want:
        return None
    recorded = have.get("models") if isinstance(have, dict) else None
    if not isinstance(recorded, dict):
        detail = f"{FILE} is missing or unreadable"
    else:
        diffs = [
            f"{name}: recorded {_describe(recorded.get(name))}, installed {_describe(want['models'].get(name))}"
            for name in sorted(set(want["models"]) | set(recorded))
            if want["models"].get(name) != recorded.get(name)
        ]
        detail = "; ".join(diffs) or f"{FILE} has another format (format_version {have.get('format_version')!r})"
    return (
        f"{FILE} does not match the installed plugin models ({detail}): results would be recorded under the wrong "
        f"plugin version; run `python -m replearn check --repair` (or any dvc command, which refreshes it) and "
        "then `dvc repro`"
    )


def _describe(entry: object) -> str:
    if not isinstance(entry, dict):
        return "none"
    source = f", source {str(entry['source_sha256'])[:12]}" if entry.get("source_sha256") else ""
    return f"{entry.get('distribution')} {entry.get('version')} ({entry.get('entry_point')}{source})"
