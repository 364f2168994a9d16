"""The code each DVC stage runs, computed from its imports, so that ``dvc.yaml``'s deps cannot drift.

A stage's results depend on every file of ``src/replearn`` that its script imports, directly or
through other modules (imports inside functions included). :func:`import_closure` follows the
``import`` statements of a stage script with :mod:`ast` (nothing is executed), and
:func:`code_deps` turns the files it finds into DVC deps entries:

* a file of a sub-package of ``replearn`` other than ``pipeline`` (``models``, ``stats``, ...)
  becomes the whole folder of that sub-package: the registries there import their members by
  name (``importlib``), which no static analysis sees, and a folder covers them all;
* a file directly in ``src/replearn`` or ``src/replearn/pipeline`` stays a file, so that editing
  the report code does not rerun training; a sub-package of ``pipeline`` becomes its folder, except
  ``pipeline/stages`` (one module per stage, whose ``main`` the stage script calls): a stage depends
  on its own module there, not on the other stages'.

``python -m replearn deps --check`` fails when a stage's deps in ``dvc.yaml`` differ from these
(a missing file would let results go stale; a superfluous one reruns a stage for nothing), and
``python -m replearn deps --write`` rewrites the ``src/`` entries of every stage in place, leaving
comments and every other entry as they are. A test runs the check.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = "replearn"
SRC = Path("src")
FINE_GRAINED = ("", "pipeline", "pipeline/stages")  # package folders whose modules are listed one by one

_CMD = re.compile(r"python\s+(stages/[\w-]+\.py)")


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


def _imported_modules(path: Path, module: str) -> set[str]:
    """Every ``replearn`` module named by an import statement in ``path`` (the module ``module``)."""
    tree = _parse(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return {m for m in found if m == PACKAGE or m.startswith(PACKAGE + ".")}


def _files_used_by_path(path: Path) -> list[Path]:
    """Sibling modules that ``path`` names as strings (run by path, never imported: MLflow's models-from-code)."""
    tree = _parse(path)
    names = {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith(".py") and "/" not in n.value
    }
    return sorted(path.with_name(n) for n in names if path.with_name(n).is_file())


def _package_members(src: Path, module: str) -> list[Path]:
    """All modules of the coarse sub-package ``module`` belongs to (none for the fine-grained folders)."""
    parts = module.split(".")
    if (
        len(parts) < 2
        or "/".join(parts[1:3]) in FINE_GRAINED  # pipeline/stages: each stage's own module
        # a module of pipeline/ itself is fine-grained; a sub-package of pipeline/ (report, families) is followed
        # through all its members: families/__init__ loads the family modules by name (importlib)
        or (parts[1] == "pipeline" and (len(parts) < 3 or not src.joinpath(*parts[:3]).is_dir()))
        or (len(parts) == 2 and not (src / PACKAGE / parts[1]).is_dir())
    ):
        return []
    folder = src.joinpath(*parts[:3]) if parts[1] == "pipeline" else src / PACKAGE / parts[1]
    return sorted(folder.rglob("*.py")) if folder.is_dir() else []


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
    while todo:
        path, module = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if module:
            files.add(path.relative_to(root))
            for other in _package_members(src, module):  # registries load these by name
                if other not in seen:
                    todo.append((other, _module_name(src, other)))
        for sibling in _files_used_by_path(path):  # e.g. Path(__file__).with_name("tracking_model.py")
            if sibling not in seen:
                todo.append((sibling, _module_name(src, sibling)))
        for name in _imported_modules(path, module):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
                sub = ".".join(parts[:i])
                found = _module_file(src, sub)
                if found is not None and found not in seen:
                    todo.append((found, sub))
    return files


def code_deps(script: Path, root: Path) -> list[str]:
    """The ``src/`` deps entries that cover :func:`import_closure` of ``script`` (see the module docstring)."""
    entries: set[str] = set()
    pkg = SRC / PACKAGE
    for f in import_closure(script, root):
        rel = f.relative_to(pkg)
        parent = rel.parent.as_posix()
        parent = "" if parent == "." else parent
        if parent in FINE_GRAINED:
            entries.add(f.as_posix())
        else:
            top = rel.parts[0] if parent.split("/")[0] != "pipeline" else "/".join(rel.parts[:2])
            entries.add((pkg / top).as_posix())
    return sorted(entries)


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
    """The ``src/`` entries each stage lists in ``dvc.yaml`` now."""
    import yaml

    spec = yaml.safe_load((Path(root) / "dvc.yaml").read_text(encoding="utf-8"))
    return {
        name: sorted(d for d in stage.get("deps", []) if isinstance(d, str) and d.startswith(f"{SRC.as_posix()}/"))
        for name, stage in spec["stages"].items()
    }


def check(root: Path) -> dict[str, dict[str, list[str]]]:
    """Per stage, the ``missing`` and ``superfluous`` code deps of ``dvc.yaml`` (empty lists: in sync)."""
    declared = declared_code_deps(root)
    problems = {}
    for stage, script in stage_scripts(root).items():
        want = set(code_deps(script, root))
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
    changed = []
    out: list[str] = []
    stage = None
    stage_re = re.compile(r"^  ([\w-]+):\s*$")
    for line in lines:
        m = stage_re.match(line)
        if m:
            stage = m.group(1)
        stripped = line.strip()
        if stage in scripts and stripped.startswith(f"- {SRC.as_posix()}/"):
            continue  # dropped: regenerated below
        out.append(line)
        if stage in scripts and stripped == f"- {scripts[stage].as_posix()}":
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(f"{indent}- {entry}\n" for entry in code_deps(scripts[stage], root))
    text = "".join(out)
    if text != path.read_text(encoding="utf-8"):
        before = declared_code_deps(root)
        path.write_text(text, encoding="utf-8")
        after = declared_code_deps(root)
        changed = [s for s in after if after[s] != before.get(s)]
    return changed
