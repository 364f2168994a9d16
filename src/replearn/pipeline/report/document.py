"""The report's document model (headings, paragraphs, lists, tables, images) and number formatting.

Section builders add blocks to a :class:`Document`; the renderers (:mod:`.html`, :mod:`.markdown`)
turn the same document into HTML and Markdown, so both carry exactly the same information.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

_DASH = "—"


@dataclass(frozen=True)
class _Cell:
    text: str
    bold: bool = False


@dataclass(frozen=True)
class _Heading:
    level: int
    text: str
    anchor: str | None = None  # an id to link to (``#anchor``): a navigation bar, a catalogue entry


@dataclass(frozen=True)
class _Note:
    """A paragraph set apart (a caveat, the reason something is missing): a block quote."""

    text: str


@dataclass(frozen=True)
class _Paragraph:
    text: str


@dataclass(frozen=True)
class _LinkParagraph:
    """A paragraph followed by links: ``links`` = ((label, relative href), ...)."""

    text: str
    links: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _List:
    items: tuple[str, ...]


@dataclass(frozen=True)
class _Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[_Cell, ...], ...]
    caption: str | None = None


@dataclass(frozen=True)
class _Image:
    relpath: str  # relative to the report folder, forward slashes
    alt: str


@dataclass
class _Document:
    title: str
    blocks: list = field(default_factory=list)

    def add(self, block) -> None:
        self.blocks.append(block)


class _Fmt:
    """Number formatting with a fixed number of decimals."""

    def __init__(self, decimals: int):
        self.d = decimals

    def num(self, x) -> str:
        if x is None:
            return _DASH
        if isinstance(x, bool):
            return str(x).lower()
        x = float(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        s = f"{x:.{self.d}f}"
        if s.startswith("-") and float(s) == 0.0:  # no "-0.000"
            s = s[1:]
        return s

    def pvalue(self, p) -> str:
        if p is None:
            return _DASH
        p = float(p)
        if math.isnan(p):
            return "nan"
        threshold = 10.0 ** (-self.d)
        if p < threshold:
            return f"<{threshold:.{self.d}f}"
        return self.num(p)

    def df(self, df) -> str:
        if df is None:
            return _DASH
        if isinstance(df, (list, tuple)):
            return ", ".join(self.df(v) for v in df)
        v = float(df)
        if math.isfinite(v) and v == round(v):
            return str(int(round(v)))
        return self.num(v)

    def ci(self, ci) -> str:
        if ci is None or len(ci) != 2:
            return _DASH
        return f"[{self.num(ci[0])}, {self.num(ci[1])}]"
