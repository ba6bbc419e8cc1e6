"""Exact, reproducible page text for PyMuPDF pages (PDF, EPUB), with a glyph box per character.

The text of a page is built in one fixed way so that character offsets found at index time can
be mapped back to glyph boxes when the page is rendered: the characters of a span are
concatenated, the spans of a line concatenated, lines joined by "\\n" and text blocks joined
by "\\n\\n". Image blocks and lines holding only whitespace are left out. Control characters
inside the PDF's text become spaces (one for one), so "\\n" only ever separates lines.

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
    blocks: list[str] = []
    lines_seen: list[TitleLine] = []
    for lines in _text_blocks(page.get_text("dict", flags=TEXT_FLAGS)):
        kept = []
        for line in lines:
            text = clean("".join(span["text"] for span in line["spans"]))
            if text.strip():
                kept.append(text)
                lines_seen.append(_title_line(line, text))
        if kept:
            blocks.append(LINE_SEP.join(kept))
    return BLOCK_SEP.join(blocks), page_title(lines_seen, page.rect.height)


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
    parts: list[str] = []
    boxes: list[BBox | None] = []
    for lines in _text_blocks(page.get_text("rawdict", flags=TEXT_FLAGS)):
        kept: list[tuple[str, list[BBox | None]]] = []
        for line in lines:
            chars: list[str] = []
            line_boxes: list[BBox | None] = []
            for span in line["spans"]:
                for char in span["chars"]:
                    c = char["c"]
                    x0, y0, x1, y1 = char["bbox"]
                    box = (x0, y0, x1, y1)
                    chars.append(c)
                    line_boxes.extend([box] * len(c))
            text = clean("".join(chars))
            if text.strip():
                kept.append((text, line_boxes))
        if not kept:
            continue
        if parts:
            parts.append(BLOCK_SEP)
            boxes.extend([None] * len(BLOCK_SEP))
        for i, (text, line_boxes) in enumerate(kept):
            if i:
                parts.append(LINE_SEP)
                boxes.append(None)
            parts.append(text)
            boxes.extend(line_boxes)
    return "".join(parts), boxes
