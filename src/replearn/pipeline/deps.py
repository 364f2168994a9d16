"""The code each DVC stage runs, computed from its imports, so that ``dvc.yaml``'s deps cannot drift.

A stage's results depend on every file of ``src/replearn`` that its script imports, directly or
through other modules (imports inside functions included). :func:`import_closure` follows the
``import`` statements of a stage script with :mod:`ast` (nothing is executed), and
:func:`code_deps` turns the files it finds into DVC deps entries:

* which files a stage imports is followed file by file, imports inside functions included; a sub-package that
  loads its members by name (a registry calling :func:`importlib.import_module`: ``models``, ``stats``,
  ``features``, ...), which no static analysis follows, brings in every module of its folder -- or, where its
  ``__init__`` declares them (``LOADS_BY_NAME``: globs relative to ``src/replearn``), the modules it names: the
  family registry loads ``families/<f>/problems.py``, the units registry ``families/<f>/units.py``, the report
  views' registry ``families/<f>/report.py``, so building a problem never depends on the units' algorithms. They
  come in with any module of the folder when the by-name import runs at import time, and where a stage imports
  the module holding it when that import sits in a function: a module that only runs as the parent package of
  another (``families/__init__.py`` before ``families/rl/report.py``) holds a loader nobody calls;
* a sub-package (``replearn/<x>`` or ``replearn/pipeline/<x>``) all of whose modules the stage imports is covered
  by its folder (one entry, so ``dvc.yaml`` and ``dvc.lock`` stay short, which DVC reads and rewrites for every
  stage); of one the stage imports only in part, the imported modules are listed one by one (the family problems
  that draw a toy data set from ``deep/toy_data.py`` do not make ``prepare`` depend on ``deep/vae.py``); a
  sub-package none of whose modules the stage imports is not a dep: editing a model does not rerun ``prepare``;
* files directly in ``src/replearn`` and ``src/replearn/pipeline`` are always listed one by one, and of
  ``pipeline/stages`` (one module per stage, whose ``main`` the stage script calls) a stage depends on its own
  module, not on the other stages';
* a package's lazy exports (:mod:`replearn._lazy`: ``LAZY_EXPORTS`` in its ``__init__``) are followed where they
  can be used: ``from replearn.structured import DAgger`` brings in ``structured/imitation.py``, an import of
  ``replearn.structured`` that names only its other members does not.

A stage that loads models (its closure holds ``replearn/models/__init__.py``, where plugin models are found) and
reads the ``models`` parameter also depends on ``plugins.json`` (:mod:`replearn.plugin_lock`): the installed
version of each plugin model the configuration names, so upgrading a plugin marks exactly those stages stale.

``python -m replearn deps --check`` fails when a stage's deps in ``dvc.yaml`` differ from these
(a missing file would let results go stale; a superfluous one reruns a stage for nothing), and
``python -m replearn deps --write`` rewrites the ``src/`` (and ``plugins.json``) entries of every stage in place,
leaving comments and every other entry as they are. A test runs the check.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = "replearn"
SRC = Path("src")
FINE_GRAINED = ("", "pipeline", "pipeline/stages")  # package folders whose modules are listed one by one
_BY_NAME = frozenset({"import_module", "__import__"})  # the calls that import a module named by a string

_CMD = re.compile(r"python\s+(stages/[\w-]+\.py)")
#: the module that finds plugin models: a stage importing it may run code outside the project
PLUGIN_LOADER = SRC / PACKAGE / "models" / "__init__.py"


def _module_file(src: Path, module: str) -> Path | None:
    base = src.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


_PARSED: dict[tuple[str, int, int], ast.AST] = {}


def _parse(path: Path) -> ast.AST:
    """``ast.parse`` of a file, once per version of it (keyed by path, size and modification time): a check
    follows the same modules from every stage script, and re-parsing them dominated its run time."""
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _PARSED:
        _PARSED[key] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return _PARSED[key]


_NODES: dict[tuple[str, int, int], tuple[ast.AST, ...]] = {}
_OF_INTEREST = (ast.Import, ast.ImportFrom, ast.Constant, ast.Call)


def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """The import statements, constants and calls of a file, in ``ast.walk`` order: one walk per version of it
    (walking every tree again for each stage was most of a check's time)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _NODES:
        _NODES[key] = tuple(n for n in ast.walk(_parse(path)) if isinstance(n, _OF_INTEREST))
    return _NODES[key]


def _init_literal(init: Path, name: str):
    """The literal assigned to ``name`` at the top level of the package ``__init__`` ``init`` (None: no such
    assignment, or no such file)."""
    if not init.is_file():
        return None
    for node in ast.iter_child_nodes(_parse(init)):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == name and node.value is not None:
            return ast.literal_eval(node.value)
    return None


def _lazy_exports(src: Path, package: str) -> dict[str, str]:
    """The ``LAZY_EXPORTS`` literal of package ``package``'s ``__init__`` (name -> submodule; :mod:`replearn._lazy`)."""
    return dict(_init_literal(src.joinpath(*package.split("."), "__init__.py"), "LAZY_EXPORTS") or {})


def _imported_modules(path: Path, module: str, src: Path = SRC) -> set[str]:
    """Every ``replearn`` module named by an import statement in ``path`` (the module ``module``).

    A package's lazy exports (:mod:`replearn._lazy`) count where they can be used: the module of each lazily
    exported name imported by ``from package import name``, and all of them where the package itself is bound
    as a module object (``import a.b``, ``from a import b``, ``from a.b import *``)."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    as_objects: set[str] = set()  # packages bound as module objects
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
                parts = alias.name.split(".")
                as_objects.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            lazy = _lazy_exports(src, target) if target.startswith(PACKAGE) else {}
            for alias in node.names:
                found.add(f"{target}.{alias.name}")  # `from pkg import module`
                as_objects.add(f"{target}.{alias.name}")
                if alias.name == "*":
                    as_objects.add(target)
                elif alias.name in lazy:
                    found.add(f"{target}.{lazy[alias.name]}")
    for obj in as_objects:
        if obj == PACKAGE or obj.startswith(PACKAGE + "."):
            found.update(f"{obj}.{sub}" for sub in set(_lazy_exports(src, obj).values()))
    return {m for m in found if m == PACKAGE or m.startswith(PACKAGE + ".")}


def _files_used_by_path(path: Path) -> list[Path]:
    """Sibling modules that ``path`` names as strings (run by path, never imported: MLflow's models-from-code)."""
    names = {
        n.value
        for n in _nodes(path)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith(".py") and "/" not in n.value
    }
    return sorted(path.with_name(n) for n in names if path.with_name(n).is_file())


def _by_name_calls(path: Path) -> bool | None:
    """Whether ``path`` imports modules named by strings: None (no such call), False (only inside functions: they
    run when something calls them) or True (one runs when the module is imported)."""
    found: bool | None = None
    todo: list[tuple[ast.AST, bool]] = [(_parse(path), False)]
    while todo:
        node, in_function = todo.pop()
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in _BY_NAME:
                if not in_function:
                    return True
                found = False
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


def _loads_by_name(folder: Path) -> dict[Path, bool]:
    """The modules of ``folder`` (a package, sub-packages included) that import modules named by strings: path ->
    whether one such import runs when the module is imported (:func:`_by_name_calls`)."""
    out = {}
    for path in sorted(folder.rglob("*.py")):
        if any(isinstance(n, ast.Call) for n in _nodes(path)):
            calls = _by_name_calls(path)
            if calls is not None:
                out[path] = calls
    return out


def _package_root(src: Path, module: str) -> Path | None:
    """The folder of the sub-package ``module`` belongs to (``replearn/<x>`` or ``replearn/pipeline/<x>``;
    ``pipeline/stages`` excluded: a stage depends on its own module only), or None for a top-level module."""
    parts = module.split(".")
    depth = 3 if len(parts) > 1 and parts[1] == "pipeline" else 2
    if len(parts) < depth or "/".join(parts[1:depth]) in FINE_GRAINED:
        return None
    folder = src.joinpath(*parts[:depth])
    return folder if folder.is_dir() else None


def _package_members(
    src: Path, module: str, path: Path, direct: set[Path], by_name: dict[Path, dict[Path, bool]] | None = None
) -> list[Path]:
    """The modules that importing ``module`` (file ``path``) brings in by name: when its sub-package is a registry
    that loads its members by name, those its ``__init__`` names in ``LOADS_BY_NAME`` with the modules directly in
    its folder (when it declares them), else every module of the folder; else none (the imports of the others are
    followed one by one).

    A registry whose by-name import runs when one of its modules is imported brings its members in with any module
    of its folder. One whose by-name imports sit in functions (``families.load``, ``units.load``) brings them in
    only where the stage imports the module holding that function itself (``direct``: the modules some import
    statement names), not where the module only runs as the parent package of another (``families/__init__.py``
    before ``families/rl/report.py``): nothing then holds the function to call it. ``by_name`` caches
    :func:`_loads_by_name` per folder (for one closure: the files may change between two)."""
    folder = _package_root(src, module)
    if folder is None:
        return []
    cache = {} if by_name is None else by_name
    if folder not in cache:
        cache[folder] = _loads_by_name(folder)
    loaders = cache[folder]
    if not (any(loaders.values()) or (path in loaders and path in direct)):
        return []
    globs = _init_literal(folder / "__init__.py", "LOADS_BY_NAME")  # what the registry names, when it says
    if globs is None:
        return sorted(folder.rglob("*.py"))
    root = src / PACKAGE
    found = {path for pattern in globs for path in root.glob(pattern)}
    for path in list(found):  # importing a.b.c runs a/__init__ and a/b/__init__ too
        found.update(p / "__init__.py" for p in path.parents if root in p.parents and (p / "__init__.py").is_file())
    return sorted(found | set(folder.glob("*.py")))


def _module_name(src: Path, path: Path) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def import_closure(script: Path, root: Path) -> set[Path]:
    """The files under ``src/replearn`` that ``script`` imports transitively (paths relative to ``root``)."""
    root = Path(root)
    src = root / SRC
    files: set[Path] = set()
    todo: list[tuple[Path, str]] = [(root / script, "")]
    seen: set[Path] = set()
    direct: set[Path] = set()  # the modules an import statement names (not only run as a parent package)
    modules: dict[Path, str] = {}
    by_name: dict[Path, dict[Path, bool]] = {}
    while todo:
        while todo:
            path, module = todo.pop()
            if path in seen:
                continue
            seen.add(path)
            if module:
                files.add(path.relative_to(root))
                modules[path] = module
            for sibling in _files_used_by_path(path):  # e.g. Path(__file__).with_name("tracking_model.py")
                if sibling not in seen:
                    todo.append((sibling, _module_name(src, sibling)))
            for name in _imported_modules(path, module, src):
                parts = name.split(".")
                for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
                    sub = ".".join(parts[:i])
                    found = _module_file(src, sub)
                    if found is None:
                        continue
                    if i == len(parts):
                        direct.add(found)
                    if found not in seen:
                        todo.append((found, sub))
        for path, module in sorted(modules.items()):  # registries load these by name (once the closure is known)
            for other in _package_members(src, module, path, direct, by_name):
                if other not in seen:
                    todo.append((other, _module_name(src, other)))
    return files


def code_deps(script: Path, root: Path) -> list[str]:
    """The ``src/`` deps entries that cover :func:`import_closure` of ``script`` (see the module docstring)."""
    root = Path(root)
    src = root / SRC
    closure = import_closure(script, root)
    entries: set[str] = set()
    whole: dict[Path, bool] = {}
    for f in closure:
        folder = _package_root(src, _module_name(src, root / f))
        if folder is not None and folder not in whole:  # the folder stands for its files only if the stage runs all
            whole[folder] = all(p.relative_to(root) in closure for p in folder.rglob("*.py"))
        entries.add((folder.relative_to(root) if folder is not None and whole[folder] else f).as_posix())
    return sorted(entries)


def _reads_models(stage: dict) -> bool:
    """Whether a dvc.yaml stage declares the ``models`` parameter (or the whole params file)."""
    for entry in stage.get("params") or []:
        if entry == "models" or (isinstance(entry, str) and entry.startswith("models.")):
            return True
        if isinstance(entry, dict) and any(v is None or "models" in (v or []) for v in entry.values()):
            return True
    return False


def stage_deps(stage: dict, script: Path, root: Path) -> list[str]:
    """The generated deps of one dvc.yaml ``stage`` running ``script``: :func:`code_deps`, then ``plugins.json``
    when the stage loads configured models (see the module docstring)."""
    from ..plugin_lock import FILE

    entries = code_deps(script, root)
    if _reads_models(stage) and PLUGIN_LOADER in import_closure(script, root):
        entries.append(FILE)
    return entries


def _generated(entry: object) -> bool:
    from ..plugin_lock import FILE

    return isinstance(entry, str) and (entry.startswith(f"{SRC.as_posix()}/") or entry == FILE)


def _stages(root: Path) -> dict:
    import yaml

    return yaml.safe_load((Path(root) / "dvc.yaml").read_text(encoding="utf-8"))["stages"]


def stage_scripts(root: Path) -> dict[str, Path]:
    """``{stage: script}`` for every stage of ``dvc.yaml`` whose command runs ``python stages/<x>.py``."""
    import yaml

    spec = yaml.safe_load((Path(root) / "dvc.yaml").read_text(encoding="utf-8"))
    out = {}
    for name, stage in spec["stages"].items():
        m = _CMD.search(stage.get("cmd", ""))
        if m:
            out[name] = Path(m.group(1))
    return out


def declared_code_deps(root: Path) -> dict[str, list[str]]:
    """The generated entries (``src/``, ``plugins.json``) each stage lists in ``dvc.yaml`` now."""
    return {name: sorted(d for d in stage.get("deps", []) if _generated(d)) for name, stage in _stages(root).items()}


def generated_deps(root: Path) -> dict[str, list[str]]:
    """``{stage: its generated deps}`` (:func:`stage_deps`) for every stage that runs a script, as ``dvc.yaml``
    should declare them (:func:`declared_code_deps`)."""
    stages = _stages(root)
    return {stage: sorted(stage_deps(stages[stage], script, root)) for stage, script in stage_scripts(root).items()}


def check(root: Path) -> dict[str, dict[str, list[str]]]:
    """Per stage, the ``missing`` and ``superfluous`` generated deps of ``dvc.yaml`` (empty lists: in sync)."""
    declared = declared_code_deps(root)
    problems = {}
    for stage, entries in generated_deps(root).items():
        want = set(entries)
        have = set(declared.get(stage, []))
        if want != have:
            problems[stage] = {"missing": sorted(want - have), "superfluous": sorted(have - want)}
    return problems


def write(root: Path) -> list[str]:
    """Rewrite the ``src/`` deps of every stage in ``dvc.yaml`` from the imports; returns the stages changed.

    Each stage's generated entries are placed right after its script's own entry, in the same indentation.
    """
    path = Path(root) / "dvc.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    scripts = stage_scripts(root)
    stages = _stages(root)
    changed = []
    out: list[str] = []
    stage = None
    stage_re = re.compile(r"^  ([\w-]+):\s*$")
    for line in lines:
        m = stage_re.match(line)
        if m:
            stage = m.group(1)
        stripped = line.strip()
        if stage in scripts and stripped.startswith("- ") and _generated(stripped[2:]):
            continue  # dropped: regenerated below
        out.append(line)
        if stage in scripts and stripped == f"- {scripts[stage].as_posix()}":
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(f"{indent}- {entry}\n" for entry in stage_deps(stages[stage], scripts[stage], root))
    text = "".join(out)
    if text != path.read_text(encoding="utf-8"):
        before = declared_code_deps(root)
        from ..atomic import write_text

        write_text(path, text)  # dvc.yaml, whole or not at all
        after = declared_code_deps(root)
        changed = [s for s in after if after[s] != before.get(s)]
    return changed
