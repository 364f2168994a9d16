"""Render a report document as one self-contained HTML page (images inlined as data URIs)."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping

from .document import _Document, _Heading, _Image, _LinkParagraph, _List, _Note, _Paragraph, _Table

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #222; margin: 2em auto;
       max-width: 72em; padding: 0 1em; line-height: 1.45; }
h1 { border-bottom: 2px solid #4c72b0; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .15em; margin-top: 2em; }
table { border-collapse: collapse; margin: .8em 0 1.2em 0; font-size: .92em; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: .3em; }
th, td { border: 1px solid #d0d0d0; padding: .3em .6em; text-align: left; }
th { background: #eef1f7; }
tbody tr:nth-child(even) { background: #fafafa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; height: auto; display: block; margin: .5em 0 1em 0; }
""".strip()
#: the rules of the blocks only some documents have (added to a page that uses them: the report's bytes stay)
_CSS_NOTE = "blockquote { background: #fff6e0; border-left: 4px solid #e0a800; margin: .5em 0; padding: .1em .8em; }"

_NUMERIC = re.compile(r"^[<\-]?[0-9.]+( ± [0-9.]+)?$|^-?inf$|^nan$|^—$")


def _render_html(doc: _Document, images: Mapping[str, bytes]) -> str:
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    css = _CSS + ("\n" + _CSS_NOTE if any(isinstance(b, _Note) for b in doc.blocks) else "")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{e(doc.title)}</title>",
        f"<style>\n{css}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{e(doc.title)}</h1>",
    ]
    for b in doc.blocks:
        if isinstance(b, _Heading):
            anchor = f' id="{e(b.anchor)}"' if b.anchor else ""
            out.append(f"<h{b.level}{anchor}>{e(b.text)}</h{b.level}>")
        elif isinstance(b, _Paragraph):
            out.append(f"<p>{e(b.text)}</p>")
        elif isinstance(b, _Note):
            out.append(f"<blockquote><p>{e(b.text)}</p></blockquote>")
        elif isinstance(b, _LinkParagraph):
            links = " · ".join(f'<a href="{e(href)}">{e(label)}</a>' for label, href in b.links)
            out.append(f"<p>{e(b.text)} {links}</p>")
        elif isinstance(b, _List):
            out.append("<ul>")
            out.extend(f"<li>{e(item)}</li>" for item in b.items)
            out.append("</ul>")
        elif isinstance(b, _Table):
            out.append("<table>")
            if b.caption:
                out.append(f"<caption>{e(b.caption)}</caption>")
            out.append("<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in b.headers) + "</tr></thead>")
            out.append("<tbody>")
            for row in b.rows:
                cells = []
                for c in row:
                    cls = ' class="num"' if _NUMERIC.match(c.text) else ""
                    text = f"<strong>{e(c.text)}</strong>" if c.bold else e(c.text)
                    cells.append(f"<td{cls}>{text}</td>")
                out.append("<tr>" + "".join(cells) + "</tr>")
            out.append("</tbody>")
            out.append("</table>")
        elif isinstance(b, _Image):
            data = base64.b64encode(images[b.relpath]).decode("ascii")
            out.append(f'<figure><img alt="{e(b.alt)}" src="data:image/png;base64,{data}"></figure>')
        else:  # pragma: no cover - internal invariant
            raise TypeError(f"unknown block {type(b).__name__}")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


# Backslash, code, emphasis, table pipes, the start of an HTML tag, a heading/quote marker, and the
# "](" / "][" of a link or image (plain brackets such as a confidence interval "[a, b]" stay readable).
