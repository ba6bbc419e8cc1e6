"""HTML -> the visible text of the page, as a browser would lay it out in plain text.

Blocks become blank lines, ``<br>`` a newline, whitespace runs one space; script, style and
head are skipped. Used by the loaders for .html, .htm and .xhtml files.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from app.core.ingest.decoding import normalise

_SKIP = frozenset({"script", "style", "head", "title", "template", "noscript"})
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd",
        "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html",
        "legend", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table",
        "tbody", "tfoot", "thead", "tr", "ul",
    }
)  # fmt: skip
_HEAD_ONLY = frozenset({"base", "link", "meta", "html", "head"})
_CELL = frozenset({"td", "th"})
_SPACE = re.compile(r"[ \t\n\r\f]+")  # HTML whitespace; U+00A0 (&nbsp;) is kept


class _HTMLText(HTMLParser):
    """Collect visible text: blocks become blank lines, <br> a newline, whitespace collapsed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: dict[str, int] = {}
        self.pre = 0
        self.pending_break = 0  # newlines owed before the next text
        self.pending_space = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Enter skipped elements, owe breaks for blocks and spaces for cells."""
        if tag in _SKIP:
            self.skipping[tag] = self.skipping.get(tag, 0) + 1
        elif tag not in _HEAD_ONLY:
            self.skipping.pop("head", None)  # as in browsers, body content ends an open <head>
        if tag == "br":
            self.pending_break = min(self.pending_break + 1, 2)
        elif tag in _BLOCK:
            self.pending_break = 2
        elif tag in _CELL:
            self.pending_space = True
        if tag == "pre":
            self.pre += 1

    def handle_endtag(self, tag: str) -> None:
        """Leave skipped elements; a block or cell ends with a break or a space."""
        if self.skipping.get(tag):
            self.skipping[tag] -= 1
        if tag in _BLOCK:
            self.pending_break = 2
        elif tag in _CELL:
            self.pending_space = True
        if tag == "pre" and self.pre:
            self.pre -= 1

    def handle_data(self, data: str) -> None:
        """Keep visible text, whitespace collapsed outside <pre>."""
        if any(self.skipping.values()):
            return
        if self.pre:
            self._emit(data)
            return
        collapsed = _SPACE.sub(" ", data)
        if collapsed.startswith(" "):
            self.pending_space = True
        text = collapsed.strip(" ")
        if text:
            self._emit(text)
            self.pending_space = collapsed.endswith(" ")

    def _emit(self, text: str) -> None:
        """Append text after the break or space owed before it."""
        if self.parts:
            if self.pending_break:
                self.parts.append("\n" * self.pending_break)
            elif self.pending_space:
                self.parts.append(" ")
        self.pending_break = 0
        self.pending_space = False
        self.parts.append(text)


def html_to_text(html: str) -> str:
    """Visible text of an HTML page (no script, style or head), entities decoded."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return normalise("".join(parser.parts))  # "&#13;" can bring back a CR
