"""MkDocs hooks (mkdocs.yml ``hooks:``): the generated pages and the tutorials' temporary projects.

* ``on_config`` puts the generated pages into the navigation: one algorithm page and one API page per model
  family of the registry (docs/gen_pages.py);
* ``on_files`` adds those pages to the build (in memory: nothing is written under docs/);
* ``on_post_build`` removes the temporary project copies the executed tutorials made (docs/tutorials/_run.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from mkdocs.structure.files import File

DOCS = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


gen = _load("replearn_docs_gen_pages", DOCS / "gen_pages.py")
# the tutorials' code blocks `import replearn_docs_run as run` (markdown-exec runs them in this process)
_load("replearn_docs_run", DOCS / "tutorials" / "_run.py")
_PAGES: dict[str, str] = {}


def on_config(config):
    _PAGES.clear()
    _PAGES.update(gen.algorithm_pages())
    _PAGES.update(gen.api_pages())
    fams = [f for f in gen.families() if f"algorithms/{f}.md" in _PAGES]
    for section in config["nav"]:
        if not isinstance(section, dict):
            continue
        ((title, items),) = section.items()
        if title == "Algorithms":
            items[1:1] = [{gen.FAMILY_TITLES[f][0]: f"algorithms/{f}.md"} for f in fams]
            items.insert(1 + len(fams), {"Experiment-family units": "algorithms/units.md"})
        elif title == "API reference":
            items += [{f"models: {gen.FAMILY_TITLES[f][0]}": f"api/models-{f}.md"} for f in fams]
    return config


def on_files(files, config):
    for rel, text in _PAGES.items():
        files.append(File.generated(config, rel, content=text))
    return files


def on_post_build(config):
    run = sys.modules.get("replearn_docs_run")
    if run is not None:
        run.cleanup()
