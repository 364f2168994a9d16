"""Render an HTML page (``reports/report.html`` by default) in headless Chromium, offline, and fail on

* a JavaScript error (an uncaught exception or unhandled promise rejection while the page loads),
* a broken image (an ``<img>`` whose ``naturalWidth`` is 0 once the page has loaded),
* any external URL: a ``src``/``href`` starting with ``http://``, ``https://`` or ``//``, in the file as
  written and in the DOM after its scripts ran.

How: a copy of the page goes to a temporary folder with a small probe script inserted first in ``<head>``
(and a ``<base>`` pointing at the page's own folder, so relative paths still resolve); ``chromium --headless
--dump-dom`` loads it with every host name unresolvable, and the probe writes what it found into an
attribute of ``<html>``, which this script reads back from the dumped DOM. No DevTools client, no extra
package: only Debian's ``chromium``.

    python tests/browser/check_report.py [reports/report.html]     # exit 0 if clean, 1 with the problems
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ATTR = "data-replearn-check"
EXTERNAL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
URL_ATTR = re.compile(r"""\s(src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)

PROBE = """<script>(function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    if (e.target && e.target !== window && e.target.tagName) { return; }  /* resource errors: see images */
    errors.push(String(e.message || e.error) + " (" + (e.filename || "inline") + ":" + (e.lineno || 0) + ")");
  }, true);
  window.addEventListener("unhandledrejection", function (e) { errors.push("unhandled rejection: " + e.reason); });
  function report() {
    var broken = [], external = [];
    Array.prototype.forEach.call(document.images, function (img) {
      if (!img.complete || img.naturalWidth === 0) { broken.push((img.getAttribute("src") || "").slice(0, 120)); }
    });
    Array.prototype.forEach.call(document.querySelectorAll("[src],[href]"), function (el) {
      if (el.tagName === "BASE") { return; }
      ["src", "href"].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v !== null && /^\\s*(https?:)?\\/\\//i.test(v)) {
          external.push(el.tagName.toLowerCase() + " " + a + "=" + v);
        }
      });
    });
    document.documentElement.setAttribute("%(attr)s", JSON.stringify(
      {errors: errors, broken_images: broken, external_urls: external, n_images: document.images.length,
       n_drawings: document.querySelectorAll(".vega-embed canvas, .vega-embed svg.marks").length}));
  }
  window.addEventListener("load", function () { setTimeout(report, 200); });
})();</script>""".replace("%(attr)s", ATTR)


#: Headless Chromium without a sandbox, GPU, first-run pages or extensions: every page check starts with these.
HEADLESS_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
)


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary (``$CHROMIUM`` first), or None."""
    env = os.environ.get("CHROMIUM")
    if env:
        return shutil.which(env) or (env if Path(env).is_file() else None)
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def browser_setup() -> tuple[str | None, list]:
    """``(chromium, pytestmark)`` for a browser test module: the browser found (None: the module is skipped, saying
    why) and its marks; with REPLEARN_REQUIRE_BROWSER set (CI) a missing browser is an error, never a skip."""
    import pytest

    chromium = find_chromium()
    if chromium is None and os.environ.get("REPLEARN_REQUIRE_BROWSER"):
        raise RuntimeError("REPLEARN_REQUIRE_BROWSER is set but no chromium was found (apt-get install -y chromium)")
    reason = "chromium is not installed (Debian: apt-get install -y chromium; or set CHROMIUM=/path/to/chrome)"
    return chromium, [pytest.mark.browser, pytest.mark.skipif(chromium is None, reason=reason)]


def static_external_urls(text: str) -> list[str]:
    """``src``/``href`` values in the HTML source that point off the machine."""
    out = []
    for m in URL_ATTR.finditer(text):
        value = html.unescape(next(g for g in m.groups()[1:] if g is not None))
        if EXTERNAL.match(value):
            out.append(f"{m.group(1).lower()}={value}")
    return out


def _instrument(text: str, base: str) -> str:
    head = f'<base href="{html.escape(base, quote=True)}">{PROBE}'
    m = re.search(r"<head[^>]*>", text, re.IGNORECASE)
    if m:
        return text[: m.end()] + head + text[m.end() :]
    return head + text


def render(page: Path, chromium: str, *, timeout: float = 60.0) -> dict:
    """Load the instrumented copy of ``page`` in headless Chromium; return the probe's findings."""
    page = page.resolve()
    text = page.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="replearn-browser-") as tmp:
        copy = Path(tmp) / "page.html"
        copy.write_text(_instrument(text, page.parent.as_uri() + "/"), encoding="utf-8")
        cmd = [
            chromium,
            *HEADLESS_FLAGS,
            "--allow-file-access-from-files",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            copy.as_uri(),
        ]
        res = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
    m = re.search(ATTR + r'="([^"]*)"', res.stdout)
    if not m:
        raise RuntimeError(f"chromium did not render {page} (exit {res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(html.unescape(m.group(1)))


def inspect(page: Path, chromium: str | None = None) -> tuple[list[str], dict]:
    """Every problem found in ``page``, one line each (empty when the page is clean), and what the probe saw
    (``n_images``: images in the DOM, ``n_drawings``: figures vega-embed drew)."""
    chromium = chromium or find_chromium()
    if chromium is None:
        raise FileNotFoundError("no chromium found (apt-get install -y chromium, or set CHROMIUM)")
    problems = [f"external URL in the file: {u}" for u in static_external_urls(page.read_text(encoding="utf-8"))]
    found = render(page, chromium)
    problems += [f"JavaScript error: {e}" for e in found["errors"]]
    problems += [f"broken image: {s}" for s in found["broken_images"]]
    problems += [
        f"external URL in the DOM: {u}"
        for u in found["external_urls"]
        if f"external URL in the file: {u.split(' ', 1)[1]}" not in problems
    ]
    return problems, found


def check(page: Path, chromium: str | None = None) -> list[str]:
    """The problems :func:`inspect` finds in ``page`` (empty when it is clean)."""
    return inspect(page, chromium)[0]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    page = Path(args[0] if args else "reports/report.html")
    if not page.is_file():
        print(f"{page}: no such file (build it with `dvc repro`)", file=sys.stderr)
        return 2
    problems = check(page)
    for p in problems:
        print(f"{page}: {p}", file=sys.stderr)
    if not problems:
        print(f"{page}: renders in headless Chromium with no JavaScript error, no broken image, no external URL")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
