"""The documentation site (`make docs`) loaded page by page in headless Chromium, offline, as a reader sees it.

Every HTML page of the built site is served from 127.0.0.1 (python's http.server, with a probe script inserted
first in each page's ``<head>``) and loaded with every other host name unresolvable. A page fails on

* a JavaScript error: an uncaught exception, an unhandled promise rejection or a ``console.error``;
* raw TeX left unrendered: a ``.arithmatex`` element without KaTeX output, a ``.katex-error``, or a TeX command,
  ``\\(``, ``\\[`` or ``$$`` in the page's text outside code and rendered math;
* a broken image (``naturalWidth`` 0 once loaded);
* an external URL: a ``src``/``href`` off the machine in the file or in the DOM, or any request (script, style,
  font, image, fetch) the page made to an address other than the local server's -- from the browser's resource
  timing -- or a request the local server answered with an error (a missing asset).

And the algorithm pages render the math of every registry model: each model's section has KaTeX output.

The site is ``$REPLEARN_DOCS_SITE`` when set, else ``site/`` when it is newer than its sources (``make docs``
before ``make test``, as .ci/run does), else it is built here (``mkdocs build --strict``, the tutorials run: a
few minutes). Skipped, saying why, where Chromium or MkDocs is missing (never when REPLEARN_REQUIRE_BROWSER is
set).

    python tests/browser/test_docs_browser.py [site]     # the same check from the command line
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _load(name: str, path: Path):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


check_report = _load("replearn_tests_check_report", HERE / "check_report.py")
CHROMIUM = check_report.find_chromium()
REQUIRED = bool(os.environ.get("REPLEARN_REQUIRE_BROWSER"))
ATTR = "data-replearn-docs-check"

PROBE = """<script>(function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    if (e.target && e.target !== window && e.target.tagName) { return; }  /* resource errors: see below */
    errors.push(String(e.message || e.error) + " (" + (e.filename || "inline") + ":" + (e.lineno || 0) + ")");
  }, true);
  window.addEventListener("unhandledrejection", function (e) { errors.push("unhandled rejection: " + e.reason); });
  var consoleError = console.error;
  console.error = function () {
    errors.push("console.error: " + Array.prototype.map.call(arguments, String).join(" "));
    return consoleError.apply(console, arguments);
  };
  var TEX = /\\\\[a-zA-Z]{2,}|\\\\[()\\[\\]]|\\$\\$/;
  function report() {
    var broken = [], external = [], raw = [], resources = [], sections = {};
    Array.prototype.forEach.call(document.images, function (img) {
      if (!img.complete || img.naturalWidth === 0) { broken.push((img.getAttribute("src") || "").slice(0, 120)); }
    });
    Array.prototype.forEach.call(document.querySelectorAll("[src],[href]"), function (el) {
      ["src", "href"].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v !== null && /^\\s*(https?:)?\\/\\//i.test(v)) {
          external.push(el.tagName.toLowerCase() + " " + a + "=" + v);
        }
      });
    });
    performance.getEntriesByType("resource").forEach(function (r) {
      if (r.name.indexOf(location.origin + "/") !== 0 && !/^(data|blob):/.test(r.name)) { resources.push(r.name); }
    });
    var math = document.querySelectorAll(".arithmatex"), unrendered = 0;
    Array.prototype.forEach.call(math, function (el) {
      if (!el.querySelector(".katex")) { unrendered += 1; raw.push("unrendered: " + el.textContent.slice(0, 80)); }
    });
    Array.prototype.forEach.call(document.querySelectorAll(".katex-error"), function (el) {
      raw.push("KaTeX error: " + (el.getAttribute("title") || "") + " in " + el.textContent.slice(0, 80));
    });
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, null);
    while (walker.nextNode()) {
      var node = walker.currentNode;
      if (node.parentElement.closest("code, pre, script, style, textarea, .katex, .katex-error")) { continue; }
      if (TEX.test(node.nodeValue)) { raw.push("raw TeX: " + node.nodeValue.trim().slice(0, 80)); }
    }
    Array.prototype.forEach.call(document.querySelectorAll("article h2[id]"), function (h) {
      var n = 0, el = h.nextElementSibling;
      while (el && el.tagName !== "H2") { n += el.querySelectorAll(".katex").length; el = el.nextElementSibling; }
      sections[h.id] = n;
    });
    document.documentElement.setAttribute("%(attr)s", JSON.stringify({
      errors: errors, broken_images: broken, external_urls: external, external_requests: resources,
      raw_tex: raw, n_math: math.length, n_unrendered: unrendered, n_images: document.images.length,
      katex_in_section: sections, title: document.title}));
  }
  window.addEventListener("load", function () { setTimeout(report, 800); });
})();</script>""".replace("%(attr)s", ATTR)


DRIVER = """<!DOCTYPE html><html><head><title>docs check</title><link rel="icon" href="data:,"></head>
<body><script>(function () {
  var pages = %(pages)s, results = {}, i = 0, frame = document.createElement("iframe");
  frame.style.width = "1280px"; frame.style.height = "900px";
  document.body.appendChild(frame);
  function next() {
    if (i >= pages.length) {
      document.documentElement.setAttribute("%(attr)s", JSON.stringify(results));
      return;
    }
    var rel = pages[i++], started = Date.now();
    frame.onload = function () {
      var poll = setInterval(function () {
        var doc = frame.contentDocument, found = doc && doc.documentElement.getAttribute("%(attr)s");
        if (found) { clearInterval(poll); results[rel] = JSON.parse(found); next(); }
        else if (Date.now() - started > 30000) { clearInterval(poll); results[rel] = null; next(); }
      }, 50);
    };
    frame.src = "/" + rel;
  }
  next();
})();</script></body></html>"""

DRIVER_PATH = "/__replearn_docs_check__.html"


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site with the probe inserted into every HTML page, and the driver page that loads them one
    after the other in an iframe; records the requests it could not answer."""

    def log_message(self, format, *args):  # quiet; failed requests are recorded by send_error
        pass

    def send_error(self, code, message=None, explain=None):
        self.server.failures.append(f"{code} {self.path}")
        super().send_error(code, message, explain)

    def _html(self, body: bytes):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def send_head(self):
        if self.path == DRIVER_PATH:
            return self._html(self.server.driver.encode("utf-8"))
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not path.endswith(".html") or not os.path.isfile(path):
            return super().send_head()
        text = Path(path).read_text(encoding="utf-8")
        m = re.search(r"<head[^>]*>", text, re.IGNORECASE)
        return self._html((text[: m.end()] + PROBE + text[m.end() :] if m else PROBE + text).encode("utf-8"))


class SiteServer:
    """``with SiteServer(site, pages) as base:`` -- the site on http://127.0.0.1:<free port>/ in a thread."""

    def __init__(self, site: Path, pages: list[str]):
        handler = functools.partial(_Handler, directory=str(site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.failures = []
        self.httpd.driver = DRIVER.replace("%(pages)s", json.dumps(pages)).replace("%(attr)s", ATTR)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    @property
    def failures(self) -> list[str]:
        return self.httpd.failures


def render_all(base: str, chromium: str, profile: Path, *, timeout: float = 600.0) -> dict:
    """Load the driver page in headless Chromium (every host but 127.0.0.1 unresolvable); it loads every page
    of the site in turn and collects what each page's probe found."""
    cmd = [
        chromium,
        *check_report.HEADLESS_FLAGS,
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3600000",
        "--dump-dom",
        base + DRIVER_PATH,
    ]
    res = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
    m = re.search(ATTR + r'="([^"]*)"', res.stdout)
    if not m:
        raise RuntimeError(f"chromium did not render the site (exit {res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(html.unescape(m.group(1)))


def page_problems(rel: str, text: str, found: dict) -> list[str]:
    problems = [f"external URL in the file: {u}" for u in check_report.static_external_urls(text)]
    problems += [f"JavaScript error: {e}" for e in found["errors"]]
    problems += [f"broken image: {s}" for s in found["broken_images"]]
    problems += [f"external URL in the DOM: {u}" for u in found["external_urls"]]
    problems += [f"request off the machine: {u}" for u in found["external_requests"]]
    problems += found["raw_tex"]
    return [f"{rel}: {p}" for p in problems]


def check_site(site: Path, chromium: str, tmp: Path) -> tuple[list[str], dict[str, dict]]:
    """Load every page of ``site``; (problems, page -> what its probe found)."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    server = SiteServer(site, pages)
    with server as base:
        found = render_all(base, chromium, tmp / "profile")
    problems = []
    for rel in pages:
        if found.get(rel) is None:
            problems.append(f"{rel}: did not finish loading (no report from its probe within 30 s)")
            continue
        problems += page_problems(rel, (site / rel).read_text(encoding="utf-8"), found[rel])
    problems += [f"local request failed: {f}" for f in server.failures]
    return problems, found


def math_coverage(found: dict[str, dict]) -> list[str]:
    """Registry models whose section on their family's algorithm page has no rendered math."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        gen = _load("replearn_docs_gen_pages", ROOT / "docs" / "gen_pages.py")
    finally:
        sys.path.pop(0)
    missing = []
    for name, info in gen.registry().items():
        page = f"algorithms/{info['family']}.html"
        n = found.get(page, {}).get("katex_in_section", {}).get(name, 0)
        if n < 2:  # objective and update rule at least
            missing.append(f"{page}#{name}: {n} rendered formulas")
    return missing


def _newest_source() -> float:
    paths = [ROOT / "mkdocs.yml", ROOT / "README.md"]
    for folder in (ROOT / "docs", ROOT / "src" / "replearn"):
        paths += [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return max(p.stat().st_mtime for p in paths)


def built_site(tmp: Path) -> Path:
    env = os.environ.get("REPLEARN_DOCS_SITE")
    if env:
        return Path(env)
    site = ROOT / "site"
    if (site / "index.html").is_file() and (site / "index.html").stat().st_mtime >= _newest_source():
        return site
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.is_file():
        if REQUIRED:
            raise RuntimeError("no built site and no mkdocs: run `make docs` first (or pip install -e '.[docs]')")
        pytest.skip("no up-to-date site/ and MkDocs is not installed (make docs)")
    out = tmp / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    res = subprocess.run(
        [str(mkdocs), "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert res.returncode == 0, f"mkdocs build --strict failed:\n{res.stdout[-3000:]}\n{res.stderr[-6000:]}"
    return out


_, pytestmark = check_report.browser_setup()  # CI (REPLEARN_REQUIRE_BROWSER): never skipped

BAD_PAGE = """<!DOCTYPE html><html><head><title>bad</title>
<link rel="stylesheet" href="https://cdn.example.invalid/katex.css"></head>
<body><article><h2 id="m">m</h2><div class="arithmatex">\\[ x^2 \\]</div><p>left raw: \\alpha + \\beta</p>
<img src="missing.png" alt=""><script>fetch("//fonts.example.invalid/font.woff2").catch(function () {});
console.error("boom");</script></article></body></html>"""
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
GOOD_PAGE = f"""<!DOCTYPE html><html><head><title>good</title></head><body><article>
<p>text with <code>\\alpha</code> in code</p><img alt="dot" src="data:image/png;base64,{PNG_1X1}">
</article></body></html>"""


def test_the_check_fails_on_raw_tex_external_requests_errors_and_broken_images(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "bad.html").write_text(BAD_PAGE)
    (site / "good.html").write_text(GOOD_PAGE)
    problems, found = check_site(site, CHROMIUM, tmp_path)
    bad = [p.removeprefix("bad.html: ") for p in problems if p.startswith("bad.html")]
    assert not [p for p in problems if p.startswith("good.html")], problems
    assert any(p.startswith("unrendered:") and "x^2" in p for p in bad), bad
    assert any(p.startswith("raw TeX:") and "\\alpha" in p for p in bad), bad
    assert any(p.startswith("JavaScript error: console.error: boom") for p in bad), bad
    assert any(p.startswith("broken image") and "missing.png" in p for p in bad), bad
    assert any("https://cdn.example.invalid/katex.css" in p for p in bad), bad
    assert any(p.startswith("request off the machine") and "fonts.example.invalid" in p for p in bad), bad
    assert "local request failed: 404 /missing.png" in problems, problems
    assert found["bad.html"]["n_math"] == 1 and found["bad.html"]["n_unrendered"] == 1


@pytest.mark.slow
def test_docs_site_every_page_loads_offline_with_math_rendered(tmp_path):
    site = built_site(tmp_path)
    problems, found = check_site(site, CHROMIUM, tmp_path)
    assert problems == [], "\n".join(problems)
    assert math_coverage(found) == []
    overviews = ("algorithms/index.html", "algorithms/units.html")  # tables, no formulas
    algorithm_pages = [rel for rel in found if rel.startswith("algorithms/") and rel not in overviews]
    assert algorithm_pages and all(found[rel]["n_math"] > 0 for rel in algorithm_pages)
    tutorials = [rel for rel in found if rel.startswith("tutorials/") and rel != "tutorials/index.html"]
    assert len(tutorials) >= 4 and sum(found[rel]["n_images"] for rel in tutorials) >= 3, found


def main(argv: list[str]) -> int:
    import tempfile

    site = Path(argv[0]) if argv else ROOT / "site"
    if CHROMIUM is None:
        print("no chromium found (apt-get install -y chromium, or set CHROMIUM)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="replearn-docs-check-") as tmp:
        problems, found = check_site(site, CHROMIUM, Path(tmp))
    problems += math_coverage(found)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"{site}: {len(found)} pages load offline with no error, math rendered, images loaded, no external URL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
