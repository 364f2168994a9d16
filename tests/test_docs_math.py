"""The algorithm pages of the documentation site render the math of every registry model: each built-in model
has a complete entry (title, the texts' section, objective, update rule) in docs/algorithms/math.yaml, and the
generated pages (docs/gen_pages.py, run by `make docs`) carry its formulas. tests/browser/test_docs_browser.py
checks that they render."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _gen():
    name = "replearn_docs_gen_pages"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "gen_pages.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_every_registry_model_has_its_math():
    from replearn import models

    gen = _gen()
    assert gen.check_math(gen.load_math(), models.builtin_names()) == []


def test_a_model_without_math_is_reported():
    gen = _gen()
    math = gen.load_math()
    del math["ridge"]
    math["no_such_model"] = {"title": "x", "section": "x", "objective": "x", "update": "x"}
    math["lasso"] = {k: v for k, v in math["lasso"].items() if k != "update"}
    problems = gen.check_math(math, sorted({*math, "ridge"} - {"no_such_model"}))
    assert any(p.startswith("ridge: no entry") for p in problems), problems
    assert "lasso: no 'update'" in problems, problems
    assert any(p.startswith("no_such_model: an entry for a model") for p in problems), problems


def test_the_pages_carry_each_models_formulas():
    gen = _gen()
    pages = gen.algorithm_pages()
    math = gen.load_math()
    for name, info in gen.registry().items():
        page = pages[f"algorithms/{info['family']}.md"]
        assert f"{{#{name}}}" in page, name  # the model's section, with its anchor
        section = page.split(f"{{#{name}}}", 1)[1].split("\n## ", 1)[0]
        formulas = [math[name]["objective"], math[name]["update"]]
        for tex in formulas:
            for item in tex if isinstance(tex, list) else [{"tex": tex}]:
                assert item["tex"].strip() in section, (name, item["tex"][:60])
        assert section.count("$$") >= 4, name  # display math: objective and update rule at least
