"""HTML -> the visible text of the page, as a browser would lay it out in plain text.

Blocks become blank lines, ``<br>`` a newline, whitespace runs one space; script, style and
head are skipped. A table is a block of its own, one row a line, its cells joined by " | "
(block elements inside a cell run on with a space); its caption and the rows of header cells
(``<thead>``, or rows of ``<th>`` only) at its top are its column heads (``html_tables``).
Used by the loaders for .html, .htm and .xhtml files.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from app.core.ingest.decoding import normalise
from app.core.types import TableSpan

CELL_SEP = " | "

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
        self.length = 0  # characters emitted so far
        self.tables: list[TableSpan] = []
        self.depth = 0  # tables open
        self.cells = 0  # cells open (in the outermost table)
        self.pending_cell = False  # a cell separator owed before the next text
        self.table_start: int | None = None
        self.head_end: int | None = None
        self.row_head = True  # the row being read has only header cells so far
        self.in_thead = False
        self.body_seen = False  # a row with a data cell was read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Enter skipped elements, owe breaks for blocks and spaces for cells."""
        if tag in _SKIP:
            self.skipping[tag] = self.skipping.get(tag, 0) + 1
        elif tag not in _HEAD_ONLY:
            self.skipping.pop("head", None)  # as in browsers, body content ends an open <head>
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.pending_break = 2
                self.table_start = self.head_end = None
                self.body_seen = False
                return
        if self.depth == 1 and self._table_tag(tag, start=True):
            return
        if tag == "br":
            self.pending_break = min(self.pending_break + 1, 2)
        elif tag in _BLOCK:
            self._block_break()
        elif tag in _CELL:
            self.pending_space = True
        if tag == "pre":
            self.pre += 1

    def handle_endtag(self, tag: str) -> None:
        """Leave skipped elements; a block or cell ends with a break or a space."""
        if self.skipping.get(tag):
            self.skipping[tag] -= 1
        if tag == "table" and self.depth:
            self.depth -= 1
            if self.depth == 0:
                self.cells = 0
                if self.table_start is not None and self.length > self.table_start:
                    head = self.head_end if self.head_end is not None else self.table_start
                    self.tables.append(TableSpan(self.table_start, self.length, head))
                self.pending_break = 2
                return
        if self.depth == 1 and self._table_tag(tag, start=False):
            return
        if tag in _BLOCK:
            self._block_break()
        elif tag in _CELL:
            self.pending_space = True
        if tag == "pre" and self.pre:
            self.pre -= 1

    def _block_break(self) -> None:
        """A block's break: a blank line, or inside a table's cell a space."""
        if self.cells:
            self.pending_space = True
        else:
            self.pending_break = 2

    def _table_tag(self, tag: str, *, start: bool) -> bool:
        """The outermost table's rows, cells, head and caption; True when handled."""
        if tag == "tr":
            if start:
                self.pending_break = max(self.pending_break, 1) if self.length else 0
                self.row_head = True
                self.cells = 0
            elif self.table_start is not None:
                if self.row_head and not self.body_seen:
                    self.head_end = self.length
                else:
                    self.body_seen = True
            return True
        if tag in _CELL:
            if start:
                self.pending_cell = self.cells > 0 or self.pending_cell
                self.cells += 1
                self.row_head = self.row_head and (tag == "th" or self.in_thead)
            return True
        if tag == "thead":
            self.in_thead = start
            return True
        if tag in ("tbody", "tfoot"):
            return True
        if tag == "caption":
            if not start and self.table_start is not None and not self.body_seen:
                self.head_end = self.length
            self.pending_break = max(self.pending_break, 1) if self.length else 0
            return True
        return False

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
        """Append text after the break, cell separator or space owed before it."""
        if self.parts:
            if self.pending_break:
                self._put("\n" * self.pending_break)
            elif self.pending_cell:
                self._put(CELL_SEP)
            elif self.pending_space:
                self._put(" ")
        elif text.startswith("\ufeff"):
            text = text[1:]
        self.pending_break = 0
        self.pending_space = False
        self.pending_cell = False
        if self.depth and self.table_start is None:
            self.table_start = self.length
        self._put(normalise(text) if "\r" in text else text)

    def _put(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)


def html_to_text(html: str) -> str:
    """Visible text of an HTML page (no script, style or head), entities decoded."""
    return html_tables(html)[0]


def html_tables(html: str) -> tuple[str, tuple[TableSpan, ...]]:
    """Visible text of an HTML page and its tables' spans in it."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts), tuple(parser.tables)  # each part normalised as emitted
