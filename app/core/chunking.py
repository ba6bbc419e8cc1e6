"""Edit-stable chunking: content-defined boundaries with exact (page, start, end) spans.

A page is cut into blocks (paragraphs at blank lines; in Markdown each heading line outside
fenced code is a block of its own). A block over the limits is split at sentence ends, a
sentence still over them at line breaks, and a line still over them is packed word by word
(a "word" longer than ``max_chars`` is cut). These units are grouped into chunks: a chunk ends
after a unit whose own hash passes a test (as in content-defined chunking, so a boundary
depends only on that unit's text), before every Markdown heading, and at the page end. A
unit of ``w`` words passes with probability ``1 - exp(-w / _MEAN_EXTRA_WORDS)`` once the
chunk holds ``MIN_WORDS``, so boundaries arrive at a steady rate per word whatever the
paragraph sizes. When the next unit would break the limits, the chunk is cut after its unit
with the best hash score instead of simply before the overflow: like a minimiser, that
choice survives small shifts of the window, so an edit resynchronises at the next boundary.

Limits. all-MiniLM-L6-v2 reads 256 word pieces (254 besides [CLS]/[SEP]); English prose
averages ~1.3 pieces per word, technical prose with commands, paths and numbers nearer 1.6.
``MAX_WORDS = 150`` keeps prose and most technical text whole (~200-240 pieces) and
``MAX_CHARS = 900`` bounds tables of numbers and code, where pieces come every 3-4
characters; measured on the sample corpus, 1-2% of chunks exceed 256 pieces. Typical chunks
hold ~60-150 words (``MIN_WORDS`` plus a mean ~55 more, capped by the limits).
Ideographs (CJK) count as one word each, as the tokenizer splits them so.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from collections.abc import Iterator
from typing import NamedTuple

from app.core.types import Chunk, Document

MAX_WORDS = 150
MAX_CHARS = 900
MIN_WORDS = 40
_MEAN_EXTRA_WORDS = 55.0

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD_RE = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+")
_PARA_SEP_RE = re.compile(r"\n\s*\n")
_SENTENCE_END_RE = re.compile(
    r"[.!?…]+[\"'”’)\]]*(?=\s+[^\sa-z])|[。！？]+[”’」』)]*"
)
_LINE_END_RE = re.compile(r"\n")
_NON_SPACE_RE = re.compile(r"\S")
_MD_LINE_RE = re.compile(
    r"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)|(?P<hashes>#{1,6})(?P<title>[ \t\r][^\n]*)?)$",
    re.MULTILINE,
)
_CLOSING_HASHES_RE = re.compile(r"(?:^|[ \t]+)#+$")


def text_hash(text: str) -> str:
    """Stable 128-bit hex digest of a chunk text (the embedding cache key)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class _Unit(NamedTuple):
    """An unbreakable span of page text with its word count and boundary score."""

    start: int
    end: int
    words: int
    score: float
    forced: bool
    heading: str | None


def chunk_document(
    doc: Document, *, max_words: int = MAX_WORDS, max_chars: int = MAX_CHARS
) -> list[Chunk]:
    """Chunk every page of a document; Markdown documents get heading paths."""
    markdown = doc.kind == "markdown"
    chunks: list[Chunk] = []
    for page in doc.pages:
        chunks.extend(
            chunk_text(
                page.text,
                path=doc.path,
                page=page.number,
                markdown=markdown,
                max_words=max_words,
                max_chars=max_chars,
            )
        )
    return chunks


def chunk_text(
    text: str,
    *,
    path: str,
    page: int | None,
    markdown: bool = False,
    max_words: int = MAX_WORDS,
    max_chars: int = MAX_CHARS,
) -> list[Chunk]:
    """Cut one page of text into ordered, non-overlapping chunks that cover all of it."""
    if max_words < 1 or max_chars < 1:
        raise ValueError("max_words and max_chars must be positive")
    min_words = min(MIN_WORDS, max(1, max_words // 3))
    units = _units(text, markdown, max_words, max_chars)
    chunks: list[Chunk] = []
    for first, last in _group(units, max_words, max_chars, min_words):
        body = text[first.start : last.end]
        chunks.append(
            Chunk(path, page, first.start, last.end, body, text_hash(body), first.heading)
        )
    return chunks


def _group(
    units: Iterator[_Unit], max_words: int, max_chars: int, min_words: int
) -> Iterator[tuple[_Unit, _Unit]]:
    """Group units into chunks at content-defined boundaries; yield (first, last) units."""
    pushed_back: list[_Unit] = []
    current: list[_Unit] = []
    words = 0
    while True:
        unit = pushed_back.pop() if pushed_back else next(units, None)
        if unit is None:
            break
        if current and (
            unit.forced
            or words + unit.words > max_words
            or unit.end - current[0].start > max_chars
        ):
            cut = len(current) - 1 if unit.forced else _best_cut(current, min_words)
            yield current[0], current[cut]
            pushed_back.append(unit)
            pushed_back.extend(reversed(current[cut + 1 :]))
            current, words = [], 0
            continue
        current.append(unit)
        words += unit.words
        if words >= min_words and unit.score < 1.0:
            yield current[0], unit
            current, words = [], 0
    if current:
        yield current[0], current[-1]


def _best_cut(units: list[_Unit], min_words: int) -> int:
    """Index of the unit to end an over-full chunk after: the best score past the minimum."""
    best, best_score, words = len(units) - 1, math.inf, 0
    for index, unit in enumerate(units):
        words += unit.words
        if words >= min_words and unit.score < best_score:
            best, best_score = index, unit.score
    return best


def _units(text: str, markdown: bool, max_words: int, max_chars: int) -> Iterator[_Unit]:
    """Yield the page's units in order: blocks, split further where over the limits."""
    for start, end, heading, is_heading in _blocks(text, markdown):
        first = True
        for s_start, s_end in _split(text, start, end, _SENTENCE_END_RE, max_words, max_chars):
            for l_start, l_end in _split(text, s_start, s_end, _LINE_END_RE, max_words, max_chars):
                for w_start, w_end, words in _pack(text, l_start, l_end, max_words, max_chars):
                    yield _unit(text, w_start, w_end, words, heading, is_heading, first)
                    first = False


def _unit(
    text: str, start: int, end: int, words: int, heading: str | None, is_heading: bool, first: bool
) -> _Unit:
    """Build a unit; its score is below 1 with probability 1 - exp(-words / mean)."""
    if is_heading:  # a chunk starts at every heading and never ends right after one
        return _Unit(start, end, words, math.inf, first, heading)
    digest = hashlib.blake2b(text[start:end].encode("utf-8"), digest_size=8).digest()
    draw = (int.from_bytes(digest, "big") + 1) / 2.0**64
    return _Unit(start, end, words, draw / -math.expm1(-words / _MEAN_EXTRA_WORDS), False, heading)


def _split(
    text: str, start: int, end: int, pattern: re.Pattern[str], max_words: int, max_chars: int
) -> Iterator[tuple[int, int]]:
    """Yield the span whole if within limits, else its trimmed pieces cut after each match."""
    if end - start <= max_chars and _count_words(text, start, end) <= max_words:
        yield start, end
        return
    piece_start = start
    for match in pattern.finditer(text, start, end):
        s, e = _trim(text, piece_start, match.end())
        if s < e:
            yield s, e
        piece_start = match.end()
    s, e = _trim(text, piece_start, end)
    if s < e:
        yield s, e


def _pack(
    text: str, start: int, end: int, max_words: int, max_chars: int
) -> Iterator[tuple[int, int, int]]:
    """Yield (start, end, words) pieces within limits, cut after whole words where possible."""
    while start < end:
        limit = min(end, start + max_chars)
        if limit == end and (words := _count_words(text, start, end)) <= max_words:
            yield start, end, words
            return
        words, cut = 0, limit
        for match in _WORD_RE.finditer(text, start, limit):
            if words == max_words or (match.end() == limit and not _whole(text, match, end)):
                break
            words, cut = words + 1, match.end()
        yield start, cut, max(words, 1)  # no whole word fits: a hard cut at max_chars
        start = _trim(text, cut, end)[0]


def _whole(text: str, match: re.Match[str], end: int) -> bool:
    """Whether a word found in a truncated window is the whole word of the text."""
    full = _WORD_RE.match(text, match.start(), end)
    return full is not None and full.end() == match.end()


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


def _count_words(text: str, start: int, end: int) -> int:
    """Words as the limits count them: whitespace-separated tokens, each ideograph alone."""
    return sum(1 for _ in _WORD_RE.finditer(text, start, end))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span to exclude surrounding whitespace (an all-space span becomes empty)."""
    found = _NON_SPACE_RE.search(text, start, end)
    if found is None:
        return end, end
    start = found.start()
    return start, start + len(text[start:end].rstrip())
