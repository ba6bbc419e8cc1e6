"""Exact, reproducible page text for PyMuPDF pages (PDF, EPUB), with a glyph box per character.

The text of a page is built in one fixed way so that character offsets found at index time can
be mapped back to glyph boxes when the page is rendered: the characters of a span are
concatenated, the spans of a line concatenated; ``pdflayout`` orders the lines (a table's
rows on one line each, cells joined by " | ", dot leaders and page furniture left out); lines
are joined by "\\n" and blocks by "\\n\\n". Image blocks and lines holding only whitespace
are left out. Control characters inside the PDF's text become spaces (one for one), so "\\n"
only ever separates lines.

``pdf_page_text`` reads MuPDF's "dict" output (span strings, about four times faster than
per-character "rawdict"); ``pdf_page_chars`` reads "rawdict" for the boxes. Both apply the same
rules to the same characters, so ``pdf_page_text(page) == pdf_page_chars(page)[0]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pymupdf

from app.core.ingest.context import TitleLine, page_title
from app.core.ingest.pdflayout import Layout, Line, join_cells, layout
from app.core.types import TableSpan

BBox = tuple[float, float, float, float]

# Same flags as page.get_text("text"): ligatures and whitespace kept, no images, clipped to
# the media box. Spelled out (pymupdf.TEXTFLAGS_TEXT == 195) so this module imports without
# loading PyMuPDF, which takes about a second.
TEXT_FLAGS = 1 | 2 | 64 | 128

_BOLD = 16  # MuPDF's span flag for a bold font

LINE_SEP = "\n"
BLOCK_SEP = "\n\n"

# C0 controls, DEL, C1 controls and Unicode line/paragraph separators -> space (tab is kept).
_CONTROLS = {c: " " for c in [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0)]}
_CONTROLS.update({0x2028: " ", 0x2029: " "})


def clean(text: str) -> str:
    """Replace control characters by spaces, one for one, so offsets are unchanged."""
    return text.translate(_CONTROLS)


def _text_blocks(page_dict: dict[str, Any]) -> Iterator[list[Any]]:
    """Yield the lines of each text block (image blocks skipped)."""
    for block in page_dict.get("blocks", ()):
        if block.get("type", 0) == 0:
            yield block.get("lines", ())


def pdf_page_text(page: pymupdf.Page) -> str:
    """The page's text built by the fixed rules (equal to ``pdf_page_chars(page)[0]``)."""
    return pdf_page_read(page)[0]


def pdf_page_read(page: pymupdf.Page) -> tuple[str, str | None]:
    """The page's text (as ``pdf_page_text``) and its title (``context.page_title``), from
    one reading of the page."""
    text, title, _ = pdf_page_layout(page)
    return text, title


def pdf_page_layout(page: pymupdf.Page) -> tuple[str, str | None, tuple[TableSpan, ...]]:
    """The page's text, its title and its tables (``pdflayout``), from one reading."""
    lines: list[Line] = []
    lines_seen: list[TitleLine] = []
    for number, block in enumerate(_text_blocks(page.get_text("dict", flags=TEXT_FLAGS))):
        for line in block:
            text = clean("".join(span["text"] for span in line["spans"]))
            if text.strip():
                lines.append(Line(number, tuple(line["bbox"]), text))
                lines_seen.append(_title_line(line, text))
    laid = layout(lines, page.rect.height)
    built, _, tables = _build(laid, lines, None)
    titled = [t for i, t in enumerate(lines_seen) if i not in laid.furniture]
    return built, page_title(titled, page.rect.height), tables


def _title_line(line: dict[str, Any], text: str) -> TitleLine:
    spans = [s for s in line["spans"] if s["text"].strip()]
    return TitleLine(
        top=line["bbox"][1],
        left=line["bbox"][0],
        text=text,
        size=max(s["size"] for s in spans),
        bold=all(s["flags"] & _BOLD for s in spans),
        chars=sum(len(s["text"]) for s in spans),
    )


def pdf_page_chars(page: pymupdf.Page) -> tuple[str, list[BBox | None]]:
    """The page's text plus one box (x0, y0, x1, y1) per character; None for separators."""
    lines: list[Line] = []
    line_boxes: list[list[BBox | None]] = []
    for number, block in enumerate(_text_blocks(page.get_text("rawdict", flags=TEXT_FLAGS))):
        for line in block:
            chars: list[str] = []
            boxes: list[BBox | None] = []
            for span in line["spans"]:
                for char in span["chars"]:
                    c = char["c"]
                    x0, y0, x1, y1 = char["bbox"]
                    chars.append(c)
                    boxes.extend([(x0, y0, x1, y1)] * len(c))
            text = clean("".join(chars))
            if text.strip():
                lines.append(Line(number, tuple(line["bbox"]), text))
                line_boxes.append(boxes)
    text, boxes_out, _ = _build(layout(lines, page.rect.height), lines, line_boxes)
    return text, boxes_out or []


def _build(
    laid: Layout, lines: list[Line], line_boxes: list[list[BBox | None]] | None
) -> tuple[str, list[BBox | None] | None, tuple[TableSpan, ...]]:
    """The text of a laid-out page (blocks by BLOCK_SEP, lines by LINE_SEP, a row's cells by
    ``pdflayout.join_cells``), the boxes of its characters when ``line_boxes`` are given,
    and its tables' spans."""
    parts: list[str] = []
    boxes: list[BBox | None] | None = [] if line_boxes is not None else None
    tables: list[TableSpan] = []
    pos = 0

    def put(text: str, source: list[BBox | None] | None) -> None:
        nonlocal pos
        parts.append(text)
        pos += len(text)
        if boxes is not None:
            boxes.extend(source if source is not None else [None] * len(text))

    for index, (block, heads) in enumerate(zip(laid.blocks, laid.tables, strict=True)):
        if index:
            put(BLOCK_SEP, None)
        start = head_end = pos
        for row_no, row in enumerate(block):
            if row_no:
                put(LINE_SEP, None)
            texts = [lines[i].text[a:b] for i, a, b in row]
            for sep, (i, a, b), cell in zip(join_cells(texts), row, texts, strict=True):
                if sep:
                    put(sep, None)
                put(cell, line_boxes[i][a:b] if line_boxes is not None else None)
            if heads is not None and row_no < heads:
                head_end = pos
        if heads is not None:
            tables.append(TableSpan(start, pos, head_end))
    return "".join(parts), boxes, tuple(tables)
