"""Render a report document as Markdown (images linked from plots/)."""

from __future__ import annotations

import html
import re

from .document import _Document, _Heading, _Image, _LinkParagraph, _List, _Note, _Paragraph, _Table
from .html import _NUMERIC

_MD_SPECIAL = re.compile(r"([\\`*|]|<(?=[A-Za-z/!?])|^[#>]|!(?=\[)|\](?=[(\[]))")
_MD_EDGE_UNDERSCORE = re.compile(r"(?<!\w)_|_(?!\w)")


def _md(s: str) -> str:
    """Escape Markdown/HTML-significant characters (intra-word underscores kept as they are)."""
    s = _MD_SPECIAL.sub(r"\\\1", str(s))
    s = _MD_EDGE_UNDERSCORE.sub(r"\\_", s)
    return s.replace("\n", " ")


def _render_markdown(doc: _Document) -> str:
    out = [f"# {_md(doc.title)}", ""]
    for b in doc.blocks:
        if isinstance(b, _Heading):
            if b.anchor:  # an HTML anchor line: Markdown viewers link #anchor to it
                out += [f'<a id="{html.escape(b.anchor, quote=True)}"></a>', ""]  # its own block (blank line)
            out += ["#" * b.level + " " + _md(b.text), ""]
        elif isinstance(b, _Paragraph):
            out += [_md(b.text), ""]
        elif isinstance(b, _Note):
            out += ["> " + _md(b.text), ""]
        elif isinstance(b, _LinkParagraph):
            out += [_md(b.text) + " " + " · ".join(f"[{_md(label)}]({href})" for label, href in b.links), ""]
        elif isinstance(b, _List):
            out += [f"- {_md(item)}" for item in b.items] + [""]
        elif isinstance(b, _Table):
            if b.caption:
                out += [f"*{_md(b.caption)}*", ""]
            out.append("| " + " | ".join(_md(h) for h in b.headers) + " |")
            numeric = [
                i > 0 and all(_NUMERIC.match(row[i].text) for row in b.rows if i < len(row))
                for i in range(len(b.headers))
            ]
            out.append("|" + "|".join("---:" if num else "---" for num in numeric) + "|")
            for row in b.rows:
                out.append("| " + " | ".join(f"**{_md(c.text)}**" if c.bold else _md(c.text) for c in row) + " |")
            out.append("")
        elif isinstance(b, _Image):
            out += [f"![{_md(b.alt)}]({b.relpath})", ""]
        else:  # pragma: no cover - internal invariant
            raise TypeError(f"unknown block {type(b).__name__}")
    return "\n".join(out).rstrip("\n") + "\n"
