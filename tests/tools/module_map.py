"""The module map of docs/architecture.md, drawn from the code: every package and module of ``replearn`` and of
``replearn.pipeline``, its layer, what its docstring says it is and which of its siblings it imports.

``python tests/tools/module_map.py`` rewrites the section between the markers; ``tests/test_architecture_doc.py``
fails when the section differs from what the code gives (a module added, removed, renamed, re-described or wired
to another sibling), so the map cannot drift from the code.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "replearn"
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- generated: module map (python tests/tools/module_map.py) -->"
END = "<!-- end: module map -->"

#: the layer of each top-level name (docs/architecture.md's diagram; tests/test_layers.py checks the imports)
NUMERICS = {"optim", "linalg", "autodiff", "_jit", "kernels", "_lazy"}
SUPPORT = {"exceptions", "base", "_constraints", "validation", "atomic", "persistence", "_reference", "_holdout"}
ENTRY = {"cli", "__main__", "dvc_guard", "plugin_lock", "services", "exercises", "courses", "reproductions"}
MAX_WHAT = 150
_SENTENCE_END = re.compile(r"\.\s+(?=[A-Z`*])")


def _members(package: Path) -> list[Path]:
    """The modules and subpackages directly inside ``package`` (no ``__init__``), sorted by name."""
    out = []
    for p in sorted(package.iterdir()):
        if p.name.startswith("__") and p.name != "__main__.py":
            continue
        if p.is_dir() and (p / "__init__.py").is_file():
            out.append(p)
        elif p.suffix == ".py":
            out.append(p)
    return out


def _source(member: Path) -> Path:
    return member / "__init__.py" if member.is_dir() else member


def _what(member: Path) -> str:
    """The first sentence of the module's docstring (cut at ``MAX_WHAT`` characters)."""
    doc = ast.get_docstring(ast.parse(_source(member).read_text(encoding="utf-8"))) or ""
    text = " ".join(doc.split())
    end = _SENTENCE_END.search(text)  # "CIML ch. 3" and "e.g. a" end no sentence
    text = text if end is None else text[: end.start() + 1]
    text = text.replace("|", "\\|")
    return text if len(text) <= MAX_WHAT else text[: MAX_WHAT - 1].rstrip() + "…"


def _files(member: Path) -> list[Path]:
    return sorted(member.rglob("*.py")) if member.is_dir() else [member]


def _imports(member: Path, package: Path, siblings: set[str]) -> list[str]:
    """The siblings (top-level names inside ``package``) that any file of ``member`` imports."""
    pkg = ".".join(package.relative_to(SRC.parent).parts)  # replearn or replearn.pipeline
    found: set[str] = set()
    for path in _files(member):
        here = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        if path.name == "__init__.py":
            here = here.rsplit(".", 1)[0]
            base_parts = here.split(".")
        else:
            base_parts = here.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = base_parts[: len(base_parts) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                names = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name.startswith(pkg + "."):
                    top = name[len(pkg) + 1 :].split(".")[0]
                    if top in siblings:
                        found.add(top)
    found.discard(member.stem if member.is_file() else member.name)
    return sorted(found)


def _layer(name: str, pipeline: bool) -> str:
    if pipeline:
        return "glue" if name == "stages" else "services"
    if name == "pipeline":
        return "services"
    if name in NUMERICS:
        return "numerics"
    if name in SUPPORT:
        return "support"
    if name in ENTRY:
        return "entry points"
    return "algorithms"


def _table(package: Path, pipeline: bool) -> list[str]:
    members = _members(package)
    siblings = {m.stem if m.is_file() else m.name for m in members}
    prefix = "pipeline/" if pipeline else ""
    rows = ["| module | layer | what it is | imports (of its siblings) |", "|---|---|---|---|"]
    for m in members:
        name = m.stem if m.is_file() else m.name
        shown = f"`{prefix}{name}{'/' if m.is_dir() else '.py'}`"
        imports = ", ".join(_imports(m, package, siblings)) or "—"
        rows.append(f"| {shown} | {_layer(name, pipeline)} | {_what(m) or '—'} | {imports} |")
    return rows


def module_map() -> str:
    """The generated section (without its markers)."""
    lines = [
        "Every package and module of `replearn` and of `replearn.pipeline`, its layer, the first sentence of its",
        "docstring and which of its siblings it imports (any file inside a package counts). Generated from the code",
        "by `python tests/tools/module_map.py`; `tests/test_architecture_doc.py` fails when it is out of date.",
        "",
        "`replearn`:",
        "",
        *_table(SRC, pipeline=False),
        "",
        "`replearn.pipeline`:",
        "",
        *_table(SRC / "pipeline", pipeline=True),
    ]
    return "\n".join(lines)


def current(text: str) -> str | None:
    """The section of ``text`` between the markers (None without them)."""
    if BEGIN not in text or END not in text:
        return None
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def update(path: Path = DOC) -> bool:
    """Rewrite the section of ``path``; whether it changed."""
    text = path.read_text(encoding="utf-8")
    if current(text) is None:
        raise SystemExit(f"{path}: no {BEGIN!r} ... {END!r} markers")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = f"{head}{BEGIN}\n{module_map()}\n{END}{tail}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    changed = update(Path(sys.argv[1]) if len(sys.argv) > 1 else DOC)
    print("docs/architecture.md: module map " + ("rewritten" if changed else "up to date"))
