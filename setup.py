"""Everything is in pyproject.toml but one build step: the wheel carries the files `replearn init` makes a study from.

They are this repository's own dvc.yaml, conf/, data/registry.yaml, the shipped UCI CSVs and the `dvc plots`
template (``STUDY_TEMPLATE``, the list of replearn.pipeline.study.TEMPLATE_SOURCES; a test keeps the two equal),
copied into ``replearn/templates/`` of the built package, so there is no second copy of them in the repository.
MANIFEST.in puts them in the sdist, from which `python -m build` builds the wheel. An editable install reads them
from the checkout instead.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

STUDY_TEMPLATE = (
    "dvc.yaml",
    ".dvcignore",
    "conf",
    "data/registry.yaml",
    "data/uci",
    "vendor/vega/templates/scores_by_model.json",
)


class BuildWithStudyTemplate(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's files (study.template_root)
        here = Path(__file__).resolve().parent
        dest = Path(self.build_lib) / "replearn" / "templates"
        for rel in STUDY_TEMPLATE:
            src = here / rel
            if not src.exists():
                raise FileNotFoundError(f"{rel}: a file of the study template is missing from the source tree")
            if src.is_dir():
                shutil.copytree(src, dest / rel, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel)


setup(cmdclass={"build_py": BuildWithStudyTemplate})
