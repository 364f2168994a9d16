"""The report (and the `make plots` page) rendered in headless Chromium, offline: no JavaScript error, no
broken image, no external URL. Skipped, saying why, where Chromium is not installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


check_report = _load("replearn_tests_check_report", "check_report.py")
smoke = _load("replearn_tests_smoke_project", "smoke_project.py")
CHROMIUM, pytestmark = check_report.browser_setup()  # CI (REPLEARN_REQUIRE_BROWSER): never skipped

BAD = """<!DOCTYPE html><html><head><title>bad</title>
<link rel="stylesheet" href="https://cdn.example.invalid/style.css"></head>
<body><img src="missing.png" alt=""><a href="//example.invalid/">x</a>
<script>notDefinedAnywhere();</script></body></html>"""
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
GOOD = f"""<!DOCTYPE html><html><head><title>good</title></head><body>
<img alt="dot" src="data:image/png;base64,{PNG_1X1}">
<a href="#top">top</a><script>document.title = "ok";</script></body></html>"""


def test_the_check_fails_on_a_script_error_a_broken_image_and_external_urls(tmp_path, capsys):
    bad = tmp_path / "bad.html"
    bad.write_text(BAD)
    assert check_report.main([str(bad)]) == 1  # the command line: exit 1, a line per problem
    problems = [line.removeprefix(f"{bad}: ") for line in capsys.readouterr().err.splitlines()]
    assert any(p.startswith("JavaScript error") and "notDefinedAnywhere" in p for p in problems), problems
    assert any(p.startswith("broken image") and "missing.png" in p for p in problems), problems
    assert any("https://cdn.example.invalid/style.css" in p for p in problems), problems
    assert any("//example.invalid/" in p for p in problems), problems
    good = tmp_path / "good.html"
    good.write_text(GOOD)
    problems, found = check_report.inspect(good, CHROMIUM)
    assert problems == [] and found["n_images"] == 1


@pytest.mark.slow
def test_smoke_report_renders_offline_without_errors(tmp_path_factory):
    proj = smoke.project(tmp_path_factory)
    report = proj / "reports" / "report.html"
    problems, found = check_report.inspect(report, CHROMIUM)
    assert problems == []
    assert found["n_images"] >= 4, found  # the report's figures are there, and loaded (naturalWidth > 0)


@pytest.mark.slow
def test_dvc_plots_page_draws_a_figure_per_dataset_offline(tmp_path_factory):
    proj = smoke.project(tmp_path_factory)
    smoke.run(smoke.dvc("plots", "show"), proj)  # plain: .dvc/config names the vendored template
    page = proj / "dvc_plots" / "index.html"
    problems, found = check_report.inspect(page, CHROMIUM)
    assert problems == []
    assert found["n_drawings"] >= 2, found  # vega-embed drew both datasets' figures from the local scripts


def test_a_benchmark_report_opens_on_the_leaderboard_in_chromium(tmp_path):
    """Issue 41: a run with >= 8 datasets opens on the leaderboard (report.html and leaderboard.html), whose
    table and three pictures load offline."""
    sys.path.insert(0, str(HERE.parent / "pipeline"))
    try:
        from test_report_benchmark import STATS, _records
    finally:
        sys.path.pop(0)
    from replearn.pipeline import records
    from replearn.pipeline.compare import compare_records
    from replearn.pipeline.report import build_report
    from replearn.pipeline.report.leaderboard import build_leaderboard_page

    crossval, train = _records(10)
    sig = records.to_dict(compare_records(crossval, train, STATS, seed=0))
    cv = {d: records.to_dict(r) for d, r in crossval.items()}
    art = build_report(
        crossval=cv,
        significance=sig,
        train_metrics={},
        settings={"title": "bench", "decimals": 3, "dpi": 30, "plots": True},
        experiment={"name": "bench", "params_hash": "0", "datasets": list(cv), "models": []},
        out_dir=tmp_path,
    )
    page = build_leaderboard_page(
        crossval=cv, significance=sig, timing={}, order=list(cv), out_dir=tmp_path, title="bench"
    )
    for html in (art.html, page.html):
        problems, found = check_report.inspect(html, CHROMIUM)
        assert problems == [] and found["n_images"] >= 3, (html, found)
        text = html.read_text()
        assert text.index("Leaderboard (4 models, 10 datasets)") < text.index("Critical difference diagram")
