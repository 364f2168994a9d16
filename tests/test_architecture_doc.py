"""docs/architecture.md is held to the code: its module map is what ``tests/tools/module_map.py`` draws from the
sources (every package and module, its docstring's first sentence, which siblings it imports), and every source
path the page names exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("module_map", ROOT / "tests" / "tools" / "module_map.py")
assert _spec and _spec.loader
module_map = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(module_map)


def test_the_module_map_is_drawn_from_the_code():
    text = module_map.DOC.read_text(encoding="utf-8")
    assert module_map.current(text) == module_map.module_map(), (
        "docs/architecture.md's module map is out of date: run `python tests/tools/module_map.py`"
    )


def test_the_map_sees_every_module_and_its_imports(tmp_path, monkeypatch):
    """The generator itself can fail: a planted module shows up with its docstring and its imports."""
    src = tmp_path / "src" / "replearn"
    (src / "pipeline").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "pipeline" / "__init__.py").write_text('"""Services."""\nfrom .. import stats\n')
    (src / "stats.py").write_text('"""Tests on scores. More text."""\n')
    (src / "pipeline" / "a.py").write_text('"""The a service, e.g. for CIML ch. 3. Not this."""\nfrom . import b\n')
    (src / "pipeline" / "b.py").write_text('"""B."""\nimport replearn.pipeline.a\n')
    monkeypatch.setattr(module_map, "SRC", src)
    drawn = module_map.module_map()
    assert "| `stats.py` | algorithms | Tests on scores. | — |" in drawn
    assert "| `pipeline/` | services | Services. | stats |" in drawn
    assert "| `pipeline/a.py` | services | The a service, e.g. for CIML ch. 3. | b |" in drawn
    assert "| `pipeline/b.py` | services | B. | a |" in drawn


def test_every_source_path_the_page_names_exists():
    text = module_map.DOC.read_text(encoding="utf-8")
    pattern = r"`(?:src/)?(?:replearn/)?((?:pipeline|stats|models|evaluation|features)/[\w/]+\.py)`"
    named = set(re.findall(pattern, text))
    missing = sorted(n for n in named if not (ROOT / "src" / "replearn" / n).is_file())
    assert named and not missing, f"docs/architecture.md names source files that do not exist: {missing}"
