"""The reproduction page (`make reproductions`: reports/reproductions.html) rendered in headless Chromium, offline:
no JavaScript error, no broken image, no external URL, a figure for every example that has one. Skipped, saying
why, where Chromium is not installed (never when REPLEARN_REQUIRE_BROWSER is set).

The page is built from quick runs of every preset (the same page as `make reproductions`, with the tests' smaller
Monte Carlo sizes), in-process, in about five seconds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _load(name: str, file: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


check_report = _load("replearn_tests_check_report", "check_report.py")
CHROMIUM, pytestmark = check_report.browser_setup()  # CI (REPLEARN_REQUIRE_BROWSER): never skipped


@pytest.fixture(scope="module")
def page(tmp_path_factory, single_threaded_blas) -> Path:
    from replearn.pipeline.report.reproductions import write_page
    from replearn.reproductions import EXPERIMENTS, run_experiment

    runs = {
        name: run_experiment(name, ROOT / "data" / "reference", seed=0, quick=True).to_dict()
        for name in sorted(EXPERIMENTS)
    }
    return write_page(runs, tmp_path_factory.mktemp("reproductions"), meta={"how": "quick runs", "source": "test"})[
        "html"
    ]


def test_reproduction_page_renders_offline_with_every_figure(page):
    from replearn.reproductions.catalogue import CATALOGUE, EXTRAS

    problems, found = check_report.inspect(page, CHROMIUM)
    assert problems == []
    assert found["n_images"] == sum(1 for e in CATALOGUE + EXTRAS if e.figure), found  # every figure loaded
