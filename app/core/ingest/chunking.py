"""Edit-stable chunking: content-defined boundaries with exact (page, start, end) spans.

A page is cut into blocks: paragraphs at blank lines and, in Markdown, each heading line
outside fenced code. A block over the limits is split at sentence ends, a sentence still over
them at line breaks, and a line still over them after whole words (a "word" too long for the
limits is cut). Consecutive units are then grouped. A chunk ends before each Markdown heading
(headings in a row stay together), at the page end, and after a unit whose own hash passes a
test, as in content-defined chunking: a boundary depends only on the text before it, so an
edit moves only the boundaries next to it. A unit weighing ``w`` words passes with probability
``1 - exp(-w / _MEAN_EXTRA_WORDS)`` once the chunk holds ``MIN_WORDS`` and the rest of the
section does too: boundaries come at a steady rate per word whatever the paragraph sizes.
When the next unit would break a limit, the chunk ends after its unit with the best hash
score, not just before the overflow; like a minimiser, that choice survives a shift of the
window. A section (page, or Markdown heading to heading) that fits in one chunk stays whole.

Tables (``Page.tables``: a PDF page's rows, Markdown pipe tables, HTML and Word tables, a CSV
file) are chunked at their own edges: a chunk starts at a table's first line and at the first
unit after it, and inside a table the units are its rows (lines), never sentences, so a row's
label stays with its figures. A table that fits stays whole; a long one is cut between rows
by the same content-defined rule, never right before a row that starts with "Total" (a
statement's section ends at its total, which belongs with the rows it sums; the word is
English, as the filings are) nor right after the column heads (a part of heads alone names
no figure), and each part after the first carries the table's column
heads at the end of its heading path (``table_heading``), so what is embedded and searched
with a row names the periods of its figures, while the passage itself stays exact page text.

Limits. all-MiniLM-L6-v2 reads 254 word pieces besides [CLS] and [SEP]; English prose takes
~1.3 per word, so ``MAX_WORDS = 150`` (~200 pieces) leaves room for punctuation and rare words
(180 words would fill the window exactly). Code, paths, numbers and ASCII tables take a piece
every 1-4 characters, which no word count sees, so pieces are also estimated (each run of
letters or digits, each ideograph, each other symbol is one; real pieces run ~1.1x that) and
capped at ``1.5 * max_words``. ``MAX_CHARS = 1000`` is the backstop for what neither counts
(long unbroken tokens, indentation) and bounds what a person reads in one passage. Generated
prose gives a median of ~80 words a chunk (10th-90th percentile ~50-125).
"""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from typing import NamedTuple

from app.core.ingest.context import SEPARATOR, embedding_text, passage_context
from app.core.text import text_hash
from app.core.types import Chunk, Document, TableSpan

__all__ = [
    "MAX_CHARS",
    "MAX_WORDS",
    "MIN_WORDS",
    "chunk_document",
    "chunk_text",
    "table_heading",
]
MAX_HEAD_CHARS = 120  # of a table's column heads repeated in a part's heading path

MAX_WORDS = 150
MAX_CHARS = 1000
MIN_WORDS = 40
_MEAN_EXTRA_WORDS = 45.0
_PIECES_PER_WORD = 1.5

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_PIECE_RE = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+|\S")
_NON_SPACE_RE = re.compile(r"\S")
_LAST_SPACE_RE = re.compile(r".*\s", re.DOTALL)
_PARA_SEP_RE = re.compile(r"\n\s*\n")
_SENTENCE_END_RE = re.compile(  # a terminator first lets the regex engine skip ahead fast
    r"[.!?…。！？](?:(?<=[.!?…])[.!?…]*[\"'”’)\]]*(?=\s+[^\sa-z])|(?<=[。！？])[。！？]*[”’」』)]*)"
)
_LINE_END_RE = re.compile(r"\n")
_TOTAL_ROW = re.compile(r"total\b", re.IGNORECASE)  # a table row that sums the rows above it
_MD_LINE_RE = re.compile(
    r"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)"
    r"|(?P<hashes>#{1,6})(?P<title>[ \t\r][^\n]*)?)$",
    re.MULTILINE,
)
_CLOSING_HASHES_RE = re.compile(r"(?:^|[ \t]+)#+$")
_RULE_LINE = re.compile(r"^[\s|:+=-]*$")


class _Limits(NamedTuple):
    """Caps on one chunk: words, characters and estimated word pieces."""

    words: int
    chars: int
    pieces: int


_Span = tuple[int, int, int, int]  # start, end, words, pieces


class _Unit(NamedTuple):
    """An unbreakable span of page text, its sizes and its boundary score (< 1: may end)."""

    start: int
    end: int
    words: int
    pieces: int
    weight: float
    score: float
    forced: bool
    heading: str | None


def chunk_document(
    doc: Document, *, max_words: int = MAX_WORDS, max_chars: int = MAX_CHARS
) -> list[Chunk]:
    """Chunk every page of a document, each passage with its context line.

    Markdown passages get their heading path, PDF passages the outline's path for their page;
    the context line puts the document's title before it (``context.passage_context``).
    """
    chunks: list[Chunk] = []
    for page in doc.pages:
        for c in chunk_text(
            page.text,
            path=doc.path,
            page=page.number,
            markdown=doc.kind == "markdown",
            max_words=max_words,
            max_chars=max_chars,
            tables=page.tables,
        ):
            heading = table_heading(c.heading or page.section, page.text, page.tables, c.start)
            ctx = passage_context(doc.title, heading)
            digest = text_hash(embedding_text(ctx, c.text)) if ctx else c.text_hash
            chunks.append(replace(c, heading=heading, context=ctx, text_hash=digest))
    return chunks


def table_heading(
    heading: str | None, text: str, tables: tuple[TableSpan, ...], start: int
) -> str | None:
    """The heading path of a passage starting at ``start``: for a part of a table after its
    column heads, the heads (one line, cells as written) at its end."""
    for table in tables:
        if table.start <= start < table.end:
            if table.head_end <= table.start or start < table.head_end:
                return heading
            lines = text[table.start : table.head_end].splitlines()
            kept = [ln for ln in lines if not _RULE_LINE.match(ln)]  # no "|---|---|"
            head = " ".join(" ".join(kept).split())[:MAX_HEAD_CHARS]
            return SEPARATOR.join([heading, head]) if heading else head
    return heading


def chunk_text(
    text: str,
    *,
    path: str,
    page: int | None,
    markdown: bool = False,
    max_words: int = MAX_WORDS,
    max_chars: int = MAX_CHARS,
    tables: tuple[TableSpan, ...] = (),
) -> list[Chunk]:
    """Cut one page of text into ordered, non-overlapping chunks that cover all of it."""
    if max_words < 1 or max_chars < 1:
        raise ValueError("max_words and max_chars must be positive")
    limits = _Limits(max_words, max_chars, max(1, round(max_words * _PIECES_PER_WORD)))
    min_words = min(MIN_WORDS, max(1, max_words // 3))
    chunks: list[Chunk] = []
    units = _units(text, markdown, limits, tables)
    for first, last in _group(units, limits, min_words):
        body = text[first.start : last.end]
        chunks.append(Chunk(path, page, first.start, last.end, body, text_hash(body), last.heading))
    return chunks


def _group(
    units: Iterator[_Unit], limits: _Limits, min_words: int
) -> Iterator[tuple[_Unit, _Unit]]:
    """Group units into chunks at content-defined boundaries; yield (first, last) units."""
    ahead = _Lookahead(units)
    current: list[_Unit] = []
    words = pieces = 0
    weight = 0.0
    section_start = True
    while (unit := ahead.pop()) is not None:
        if not current and (section_start or unit.forced):
            section_start = False
            if (rest := ahead.section_rest(unit, limits)) is not None:
                yield unit, ahead.take(rest) or unit  # a section that fits stays whole
                continue
        if current and (
            (unit.forced and not current[-1].forced)  # headings in a row stay together
            or words + unit.words > limits.words
            or pieces + unit.pieces > limits.pieces
            or unit.end - current[0].start > limits.chars
        ):
            cut = len(current) - 1 if unit.forced else _best_cut(current, min_words)
            yield current[0], current[cut]
            ahead.push_front([*current[cut + 1 :], unit])
            current, words, pieces, weight = [], 0, 0, 0.0
            continue
        current.append(unit)
        words += unit.words
        pieces += unit.pieces
        weight += unit.weight
        if weight >= min_words and unit.score < 1.0 and not ahead.short_tail(min_words):
            yield current[0], unit
            current, words, pieces, weight = [], 0, 0, 0.0
    if current:
        yield current[0], current[-1]


class _Lookahead:
    """The unit stream with a buffer in front, to peek a little ahead and to push back."""

    def __init__(self, units: Iterator[_Unit]) -> None:
        self._units = units
        self._buffer: deque[_Unit] = deque()

    def pop(self) -> _Unit | None:
        """The next unit, or None at the end of the page."""
        return self._buffer.popleft() if self._buffer else next(self._units, None)

    def peek(self, index: int) -> _Unit | None:
        """The unit ``index`` places ahead, without consuming it; None past the page end."""
        while len(self._buffer) <= index:
            if (unit := next(self._units, None)) is None:
                return None
            self._buffer.append(unit)
        return self._buffer[index]

    def push_front(self, units: list[_Unit]) -> None:
        """Put units back to be popped again, in order."""
        self._buffer.extendleft(reversed(units))

    def take(self, count: int) -> _Unit | None:
        """Consume ``count`` units; return the last one (None if count is 0)."""
        last = None
        for _ in range(count):
            last = self._buffer.popleft()
        return last

    def section_rest(self, first: _Unit, limits: _Limits) -> int | None:
        """How many units follow ``first`` in its section, if the whole section fits."""
        words, pieces, index, headings_only = first.words, first.pieces, 0, first.forced
        while (unit := self.peek(index)) is not None and (headings_only or not unit.forced):
            headings_only = headings_only and unit.forced
            words += unit.words
            pieces += unit.pieces
            if (
                words > limits.words
                or pieces > limits.pieces
                or unit.end - first.start > limits.chars
            ):
                return None
            index += 1
        return index

    def short_tail(self, min_words: int) -> bool:
        """Whether what is left of the section before the next heading is under the minimum."""
        weight, index = 0.0, 0
        while (unit := self.peek(index)) is not None and not unit.forced:
            weight += unit.weight
            if weight >= min_words:
                return False
            index += 1
        return True


def _best_cut(units: list[_Unit], min_words: int) -> int:
    """Index of the unit to end an over-full chunk after: the best score past the minimum."""
    best, best_score, weight = len(units) - 1, math.inf, 0.0
    for index, unit in enumerate(units):
        weight += unit.weight
        if weight >= min_words and unit.score < best_score:
            best, best_score = index, unit.score
    return best


def _units(
    text: str, markdown: bool, limits: _Limits, tables: tuple[TableSpan, ...] = ()
) -> Iterator[_Unit]:
    """Yield the page's units in order: blocks, split further where over the limits; a
    table's lines one unit each, the first of a table and the first after it forced."""
    edges = sorted((t.start, t.end) for t in tables if t.start < t.end)
    after_table = False
    for block_start, block_end, heading, is_heading in _blocks(text, markdown):
        for start, end, inside in _around(text, edges, block_start, block_end):
            if inside:
                # the part's table (its start is trimmed: an indented Markdown table's part
                # starts after the table's first spaces); the part may begin it
                table = next((t for t in tables if t.start <= start < t.end), None)
                opens = table is not None and not text[table.start : start].strip()
                first = opens or after_table or is_heading
                head_end = table.head_end if table is not None else start  # its heads' end
                rows = [
                    span
                    for l_start, l_end in _split(text, start, end, _LINE_END_RE)
                    for line in [_measure(text, l_start, l_end, limits)]
                    for span in (
                        [line] if line is not None else _pack(text, l_start, l_end, limits)
                    )
                ]
                for i, span in enumerate(rows):
                    # a statement's section ends at its total: a part never ends right before
                    # "Total current liabilities", so the total stays with the rows it sums;
                    # nor right after the column heads, which head the rows, not a part alone
                    held = i + 1 < len(rows) and (
                        _TOTAL_ROW.match(text, rows[i + 1][0]) is not None or span[1] <= head_end
                    )
                    yield _unit(text, span, limits, heading, first, held=held)
                    first = False
                after_table = end in {b for _, b in edges}
                continue
            first = (is_heading and start == block_start) or after_table
            after_table = False
            for span in _spans(text, start, end, limits):
                yield _unit(text, span, limits, heading, first)
                first = False


def _around(
    text: str, edges: list[tuple[int, int]], start: int, end: int
) -> Iterator[tuple[int, int, bool]]:
    """A block cut at the edges of the tables it overlaps: (start, end, in a table), each
    part trimmed and not empty."""
    pos = start
    parts: list[tuple[int, int, bool]] = []
    for a, b in edges:
        if b <= pos or a >= end:
            continue
        if a > pos:
            parts.append((pos, a, False))
        parts.append((max(a, pos), min(b, end), True))
        pos = min(b, end)
    if pos < end:
        parts.append((pos, end, False))
    for s, e, inside in parts:
        s, e = _trim(text, s, e)
        if s < e:
            yield s, e, inside


def _spans(text: str, start: int, end: int, limits: _Limits) -> Iterator[_Span]:
    """Split a block that is over the limits at sentence ends, then lines, then words."""
    if (whole := _measure(text, start, end, limits)) is not None:
        yield whole
        return
    for s_start, s_end in _split(text, start, end, _SENTENCE_END_RE):
        if (sentence := _measure(text, s_start, s_end, limits)) is not None:
            yield sentence
            continue
        for l_start, l_end in _split(text, s_start, s_end, _LINE_END_RE):
            if (line := _measure(text, l_start, l_end, limits)) is not None:
                yield line
            else:
                yield from _pack(text, l_start, l_end, limits)


def _unit(
    text: str, span: _Span, limits: _Limits, heading: str | None, first: bool, held: bool = False
) -> _Unit:
    """Score a span: below 1 with probability 1 - exp(-weight / _MEAN_EXTRA_WORDS); never
    below 1 when ``held`` (a table row before its total: no part ends there)."""
    start, end, words, pieces = span
    # the words of plain prose that would fill the limits as much: tables and code weigh more
    weight = max(words, pieces / _PIECES_PER_WORD, (end - start) * limits.words / limits.chars)
    if first or held:  # a chunk starts at every heading and never ends right after one
        return _Unit(start, end, words, pieces, weight, math.inf, first, heading)
    digest = hashlib.blake2b(text[start:end].encode("utf-8"), digest_size=8).digest()
    draw = (int.from_bytes(digest, "big") + 1) / 2.0**64
    score = draw / -math.expm1(-weight / _MEAN_EXTRA_WORDS)
    return _Unit(start, end, words, pieces, weight, score, False, heading)


def _measure(text: str, start: int, end: int, limits: _Limits) -> _Span | None:
    """The span with its word and piece counts if it is within all limits, else None."""
    if end - start > limits.chars or (words := len(text[start:end].split())) > limits.words:
        return None
    pieces = len(_PIECE_RE.findall(text, start, end))
    return (start, end, words, pieces) if pieces <= limits.pieces else None


def _split(text: str, start: int, end: int, pattern: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """Yield the non-empty trimmed pieces of a span cut after each match of a pattern."""
    piece_start = start
    for match in pattern.finditer(text, start, end):
        s, e = _trim(text, piece_start, match.end())
        if s < e:
            yield s, e
        piece_start = match.end()
    s, e = _trim(text, piece_start, end)
    if s < e:
        yield s, e


def _pack(text: str, start: int, end: int, limits: _Limits) -> Iterator[_Span]:
    """Yield spans within the limits, cut after whole words, or inside a word too long."""
    while start < end:
        limit = min(end, start + limits.chars)
        while True:
            cut = limit
            if cut < end and not text[cut].isspace():  # inside a word: end at the one before
                space = _LAST_SPACE_RE.match(text, start, cut)
                if space is not None:
                    cut = _trim(text, start, space.end())[1]
            if (words := len(text[start:cut].split())) > limits.words:
                shrink = limits.words / words
            elif (pieces := len(_PIECE_RE.findall(text, start, cut))) > limits.pieces:
                shrink = limits.pieces / pieces
            else:
                break
            limit = start + max(1, int((cut - start) * shrink * 0.95))
        yield start, cut, words, pieces
        found = _NON_SPACE_RE.search(text, cut, end)
        start = found.start() if found else end


def _blocks(text: str, markdown: bool) -> Iterator[tuple[int, int, str | None, bool]]:
    """Yield trimmed (start, end, heading path, is_heading) blocks: paragraphs and headings."""
    separators = ((m.start(), m.end(), 0, "") for m in _PARA_SEP_RE.finditer(text))
    headings = _md_headings(text) if markdown else iter(())
    stack: list[tuple[int, str]] = []
    path: str | None = None
    pos = 0
    for start, end, level, title in heapq.merge(separators, headings):
        s, e = _trim(text, pos, start)
        if s < e:
            yield s, e, path, False
        if level:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            path = " > ".join(t for _, t in stack if t) or None
            s, e = _trim(text, start, end)
            yield s, e, path, True
        pos = end
    s, e = _trim(text, pos, len(text))
    if s < e:
        yield s, e, path, False


def _md_headings(text: str) -> Iterator[tuple[int, int, int, str]]:
    """Yield (start, end, level, title) of ATX headings that are not inside fenced code."""
    fence: str | None = None
    for match in _MD_LINE_RE.finditer(text):
        marker = match["fence"]
        if marker:
            info = match["info"]
            if fence is None and not (marker[0] == "`" and "`" in info):
                fence = marker
            elif fence and marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip():
                fence = None
        elif fence is None:
            title = _CLOSING_HASHES_RE.sub("", (match["title"] or "").strip()).strip()
            yield match.start(), match.end(), len(match["hashes"]), title


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span to exclude surrounding whitespace (an all-space span becomes empty)."""
    found = _NON_SPACE_RE.search(text, start, end)
    if found is None:
        return end, end
    start = found.start()
    return start, start + len(text[start:end].rstrip())
