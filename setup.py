"""Everything is in pyproject.toml but two build steps.

1. The wheel and an editable install put ``replearn-dvc-guard.pth`` into site-packages: its one line imports
``replearn.dvc_guard`` when Python starts, which makes DVC's writes of dvc.lock atomic in every DVC process of the
environment (plain `dvc repro`, `dvc exp run` and its queue workers; docs/architecture.md, "Writes").

2. The wheel carries the files `replearn init` makes a study from.

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


#: the .pth file (src/) that installs the dvc.lock guard at interpreter start-up
GUARD_PTH = "replearn-dvc-guard.pth"


class BuildWithStudyTemplate(build_py):
    def run(self):
        super().run()
        here = Path(__file__).resolve().parent
        if getattr(self, "editable_mode", False):
            # an editable wheel holds the files the install step writes into its unpacked folder (install_lib);
            # build_lib is thrown away (setuptools' editable_wheel)
            shutil.copy2(here / "src" / GUARD_PTH, Path(self.get_finalized_command("install").install_lib) / GUARD_PTH)
            return  # an editable install reads the checkout's files (study.template_root)
        shutil.copy2(here / "src" / GUARD_PTH, Path(self.build_lib) / GUARD_PTH)  # the wheel's root: site-packages
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
