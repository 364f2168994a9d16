"""`dvc plots` that help, offline: dvc.yaml's top-level plots draw one figure per dataset (scores per
replicate grouped by model, or the sweep curves), and `make plots` renders them with the Vega scripts
shipped in vendor/vega/ instead of DVC's CDN. `.dvc/config` names the vendored page template
(plots.html_template), so plain `dvc plots show/diff` are offline too, not only `make plots`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "vendor" / "vega"
TEMPLATE = "vendor/vega/dvc_plots.html"
SHOW = ["plots", "show"]  # what `make plots` runs, and what `make repro` suggests: no --html-template
SCRIPT_SRC = re.compile(r"<script[^>]*\ssrc\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
LINK_HREF = re.compile(r"<link[^>]*\shref\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
EXTERNAL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


def _local_scripts(page: Path) -> list[Path]:
    html = page.read_text(encoding="utf-8")
    srcs = SCRIPT_SRC.findall(html)
    assert srcs, f"{page} loads no script"
    external = [s for s in srcs + LINK_HREF.findall(html) if EXTERNAL.match(s)]
    assert not external, f"{page} loads scripts from the network: {external}"
    assert "cdn.jsdelivr" not in html and "cdn.plot.ly" not in html
    return [(page.parent / s).resolve() for s in srcs]


def test_vendored_scripts_templates_and_dvc_yaml_fit_together():
    for name in ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js"):
        assert (VENDOR / name).stat().st_size > 10_000, name
        lic = VENDOR / f"LICENSE.{name.removesuffix('.min.js')}"
        assert "Redistribution and use in source and binary forms" in lic.read_text(), lic
    page = (ROOT / TEMPLATE).read_text()
    assert "{plot_divs}" in page and "{scripts}" not in page  # {scripts} is where DVC puts its CDN tags
    for src in SCRIPT_SRC.findall(page):  # relative to the output folder, dvc_plots/
        assert not EXTERNAL.match(src) and (ROOT / "dvc_plots" / src).resolve().is_file(), src
    plots = yaml.safe_load((ROOT / "dvc.yaml").read_text())["plots"]
    (definition,) = [p for p in plots if "plots/datasets" in p]
    spec = definition["plots/datasets"]
    template = json.loads((ROOT / spec["template"]).read_text())
    assert template["data"] == {"values": "<DVC_METRIC_DATA>"} and template["facet"]["column"]["field"] == "dataset"
    assert (ROOT / ".gitignore").read_text().count("/dvc_plots/") == 1


def test_dvc_config_names_the_vendored_template_for_every_plots_command():
    from configobj import ConfigObj  # what DVC reads its config with

    config = ConfigObj(str(ROOT / ".dvc" / "config"))
    template = config["plots"]["html_template"]
    # DVC resolves a relative plots.html_template against .dvc/ (not the working directory)
    assert not Path(template).is_absolute() and (ROOT / ".dvc" / template).resolve() == (ROOT / TEMPLATE).resolve()
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nplots:", 1)[1].split("\n\n", 1)[0]
    assert "dvc plots show" in recipe and "--html-template" not in recipe  # `make plots` relies on the config


@pytest.mark.slow
def test_plots_show_and_diff_give_a_local_page_with_a_figure_per_dataset(tmp_path_factory, smoke):
    proj = smoke.project(tmp_path_factory)
    files = sorted(p.name for p in (proj / "plots" / "datasets").glob("*.json"))
    assert files == ["iris.json", "wine.json"]
    rows = json.loads((proj / "plots" / "datasets" / "iris.json").read_text())
    assert {r["dataset"] for r in rows} == {"iris"} and {r["model"] for r in rows} == {
        "gaussian_naive_bayes",
        "knn",
        "logistic_regression",
    }

    for cmd in (SHOW, ["plots", "diff", "HEAD"]):  # the template comes from .dvc/config
        out = smoke.run(smoke.dvc(*cmd), proj)
        assert "failed to load" not in out.stdout + out.stderr, out.stderr
        page = proj / "dvc_plots" / "index.html"
        for script in _local_scripts(page):
            assert script.is_file() and script.is_relative_to(proj / "vendor" / "vega"), script
        html = page.read_text(encoding="utf-8")
        divs = re.findall(r'<div id\s*=\s*"([^"]+)"', html)
        assert sorted(divs) == ["plots_datasets_iris_json", "plots_datasets_wine_json"], divs
        for d in ("iris", "wine"):  # each figure holds its own dataset's scores only
            spec = re.search(
                rf'<div id\s*=\s*"plots_datasets_{d}_json">.*?var spec = (\{{.*?\}});\s*\n', html, re.DOTALL
            )
            values = json.loads(spec.group(1))["data"]["values"]
            assert values and {v["dataset"] for v in values} == {d}
        ignored = subprocess.run(["git", "check-ignore", "-q", "dvc_plots/index.html"], cwd=proj, check=False)
        assert ignored.returncode == 0, "dvc_plots/ is not git-ignored"
