"""Ranking the pages of the best-ranked long documents again, against the whole question.

A filing's passages score flat against a question (a cash-flow row, a note about the same
line item, the outline of the section): the right filing is found, its page is the miss. So
the paged documents (PDF, EPUB) that lead the fused ranking have every one of their pages
scored against the question, each page as a whole and by its best line:

- ``words``: BM25 of the question's stemmed words over the page (its passages and their
  heading path, so a statement's title counts), with the rarity of a word measured among the
  document's own pages: the company's name, on every page, weighs nothing, "inventories" on
  four pages weighs much;
- ``line``: the best single line of the page, its words and the table's column heads above
  it (a passage's heading path ends with them): the row that names the line item and the
  period the question asks about, "Inventories | 2,721 | 2,667" under "2019 | 2018";
- ``meaning``: the dense similarity of the page's best passage (stored vectors);
- ``title``: the question's words in the page's own titles ("Note 6 - Restructuring");
- ``statement``: the page is the statement the question names or implies (``STATEMENTS``);
- ``found``: the fused score of the page's best passage among the hits.

Each is scaled by the best page of the document, and the mix ranks the document's pages.
Its best ``PAGES`` pages take the leading places of the ranking, each as its best passage (by
the same mix, for that passage alone), in the order of the pages' scores (a later file's
weighed by ``W_OTHER``), then the other hits follow in their order, except that a page's
passages past its first ``PER_PAGE`` go after every other page's. The files that lead: the
paged files among the first ``LOOK`` hits, at most ``DOCS`` of them, a later one only if its
first hit is in the first ``SECOND_WITHIN``; none unless the best hit is on a page (a question
a note or a web page answers is left as ranked, and so is one a passage holds word for word:
``retrieval.Candidates.ranked``).

A promoted passage takes a score on the fused scale: the best hit's, times its page's share
of the best page's score (the named-file bonus kept), so the passages sent to the model
(``prompt.passages.choose_passages``: those within a share of the best) follow the pages.

The named files of the report kind the question asks for (``reports``, ``lead``) are read
first, wherever their passages rank: "the restructuring liability as of Q2" is the quarterly
report's, even where the annual report's passages rank above it.

Tuned on the dev half of FinanceBench (29 questions with their filing present) over the whole
corpus index, evidence page in the top 5 / top 10: fused order 0.586 / 0.621; pages read again
(words, line, meaning, found, statement) 0.655 / 0.690; with titles 0.690 / 0.759; pages apart
0.690 / 0.793; three files 0.690 / 0.828. The weights were flat around these (each step is one
question of 29). Measured again on a newer index (0.621 / 0.759), then statements known by
their own titles 0.724 / 0.828, and the asked report read first 0.793 / 0.897; the held-out
half (18) stayed at 0.722 / 0.778. Over index format 5 (tables whose amounts' dollar signs had
broken their rows read whole, with their column heads) the dev half came to 0.793 / 0.862, one
question lost (3M's "excluding M&A", whose page had ranked third by a prose passage of it);
"M&A" read as the acquisitions and divestitures columns of the segment table brought it to
fourth, 0.828 / 0.897; the held-out half read 0.667 / 0.667 (these weights were tuned on format
4's text). Measured again over format 6 with 72 more dev questions written over 40 filings
(``evaluation/sets/filing-pages-dev.jsonl``): each weight scaled by 0, ½, ¾, 1½ and 2 in turn
moved at most one question of the 101 up, most moved some down; ``PAGES`` at 5 or 6 put one or
two more of the written ones into the top 5 and none of FinanceBench's (not taken: a question
or two of 101, where the weights are flat). A question about segments or regions no longer
implies a consolidated statement, and the statement of comprehensive income is not the income
statement: written 0.889 / 0.931 -> 0.903 / 0.944, FinanceBench's dev half unchanged; its
held-out half read 0.667 / 0.667 again.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from app.core.index.manifest import Manifest

from app.core.index.records import ChunkRow
from app.core.ingest.pdflayout import CELL_SEP, is_figure, is_head_line
from app.core.search.fusion import without_bonus
from app.core.text import query_terms, stem
from app.core.types import Hit

# The statements of a filing: what a question says to name one, the line items only it holds
# (which imply it), and what the statement's title says. A page titled as the statement a
# question names is that statement: "relying on the cash flow statement" is answered by
# "Consolidated Statements of Cash Flows", whatever words the rows use. The title is one part
# of the page's heading path or one of its opening lines (``statement_titles``), never a
# section that discusses the statement ("Management's Discussion and Analysis of Financial
# Condition", "Cash Flows from Investing Activities", "Analysis of the Consolidated Statements
# of Income"), nor another statement that shares its words ("Statements of Comprehensive
# Income" begin at net income: no margin, no cost of sales; "Statements of Operations and
# Comprehensive Loss" are the income statement). A question about a business's
# parts (``_PARTS``: its segments, regions) is answered by the segment tables, not by the
# consolidated statement its line items imply: only a statement it names counts.
STATEMENTS = (
    (
        r"cash ?flows? statements?|statements? of cash ?flows?",
        r"cash ?flows? from|capital expenditures?|capex|free cash ?flow|dividends? paid|\bd&a\b"
        r"|capital[- ]intensi",
        r"statements? of (?:\w+ )?cash ?flows?|cash ?flows? statements?",
    ),
    (
        r"balance sheets?|statements? of financial (?:position|condition)",
        r"working capital|quick ratio|current ratio|current (?:assets|liabilities)|total assets"
        r"|\bnet ar\b|accounts (?:payable|receivable)|\bpp&?n?e\b|inventor(?:y|ies) turnover"
        r"|capital[- ]intensi",
        r"balance sheets?|statements? of (?:\w+ )?financial (?:position|condition)",
    ),
    (
        r"income statements?|statements? of (?:income|operations|earnings)|p&l|profit and loss",
        r"operating (?:income|margin)|gross (?:margin|profit)|\bcogs\b|cost of (?:goods|sales)",
        r"statements? of (?!comprehensive\b)(?:\w+ )?(?:income|operations|earnings)"
        r"|income statements?",
    ),
)
# A title with one of these words is about a statement, not the statement itself: a note,
# an MD&A item, a supplement, "Financial Instruments … on the Consolidated Balance Sheets".
_NOT_THE_STATEMENT = re.compile(
    r"\b(?:the|notes?|item|supplemental|selected|analysis|discussion|components|information"
    r"|pro forma|data)\b",
    re.IGNORECASE,
)
_PARTS = re.compile(r"\b(?:segments?|regions?|regional|geographic\w*|divisions?)\b", re.I)
OPENING_LINES = 4  # the lines of a page's first passage read as its titles
_STATEMENTS = [
    (re.compile(named, re.I), re.compile(implied, re.I), re.compile(title, re.I))
    for named, implied, title in STATEMENTS
]
# Words a question uses for a line item, and the words a statement's row uses for it.
SYNONYMS = (
    (r"capital expenditures?|capex", "purchases property plant equipment capital expenditures"),
    (r"\bpp&?n?e\b", "property plant equipment"),
    (r"\bcogs\b", "cost sales goods sold revenue"),
    (r"\bnet ar\b|accounts receivable", "receivables accounts receivable"),
    (r"\brevenues?\b|topline|top line", "revenues net sales total"),
    (r"\bd&a\b", "depreciation amortization"),
    (r"\bm&a\b", "acquisitions divestitures mergers"),
    (r"\bceo\b", "chief executive officer"),
    (r"\bcfo\b", "chief financial officer"),
    (r"\bcoo\b", "chief operating officer"),
)
_SYNONYMS = [(re.compile(q, re.IGNORECASE), w) for q, w in SYNONYMS]

LOOK = 10  # the hits whose paged files are re-ranked
DOCS = 3  # at most this many files
SECOND_WITHIN = 5  # a second file only if it has a hit this high
PAGES = 4  # the pages of the files put first
W_OTHER = 0.5  # a page of a file after the first weighs this share of its score
W_WORDS = 0.25
W_LINE = 0.25
W_MEANING = 0.2
W_FOUND = 0.15  # the fused score of the page's best passage among the hits (0 if none)
W_STATEMENT = 0.4  # the page is the statement the question names
W_TITLE = 0.3  # the question's words in the page's titles (its passages' last headings)
K1 = 1.2
B = 0.5

_WORD = re.compile(r"[^\W_]+")


@dataclass
class _Page:
    """A page's scores for one question, and its best passage (for the pages promoted)."""

    number: int
    rows: list[ChunkRow]
    counts: Counter[str]
    length: int
    words: float = 0.0
    line: float = 0.0
    meaning: float = 0.0
    found: float = 0.0
    statement: float = 0.0
    title: float = 0.0
    score: float = 0.0
    best: ChunkRow | None = None


def stems(text: str) -> list[str]:
    """The stemmed words of a text, lower case, in order (numbers kept whole)."""
    return [stem(w) for w in _WORD.findall(text.lower())]


def question_stems(question: str) -> list[str]:
    """The question's content words, stemmed, each once; "FY2019" also as "2019"."""
    out: list[str] = []
    for term in query_terms(question):
        out.append(stem(term))
        out += [p for p in re.findall(r"\d{4}", term) if p != term]
    for pattern, words in _SYNONYMS:
        if pattern.search(question):
            out += stems(words)
    return list(dict.fromkeys(out))


def named_statements(question: str) -> list[re.Pattern[str]]:
    """The title patterns of the statements the question names or (unless it asks about a
    business's segments or regions) implies by a line item."""
    parts = bool(_PARTS.search(question))
    return [
        title
        for named, implied, title in _STATEMENTS
        if named.search(question) or (not parts and implied.search(question))
    ]


def rerank(
    question: str,
    qvec: np.ndarray | None,
    hits: Sequence[Hit],
    pages_of: Callable[[str], FileView | list[ChunkRow]],
    vectors: Callable[[set[str]], dict[str, np.ndarray]],
    lead: Sequence[str] = (),
) -> list[Hit]:
    """``hits`` with the best pages of their leading paged files first (ranks renumbered);
    ``lead``: files whose pages are read as the first file's (the reports of the kind the
    question asks for), wherever their passages rank."""
    terms = question_stems(question)
    if not hits or not terms:
        return list(hits)
    docs = _leading_docs(hits, lead)
    if not docs:
        return list(hits)
    found = {h.chunk_id: h for h in hits}
    promoted: list[tuple[float, Hit]] = []
    for rank, path in enumerate(docs):
        pages = _score_pages(
            terms, pages_of(path), qvec, vectors, found, named_statements(question)
        )
        if not pages:
            continue
        weight = 1.0 if rank == 0 else W_OTHER
        for page in pages[:PAGES]:
            if page.best is None:
                continue
            hit = found.get(page.best.chunk_id) or _hit_of(page.best)
            promoted.append((weight * page.score, hit))
    if not promoted:
        return list(hits)
    promoted.sort(key=lambda sh: -sh[0])
    top = hits[0]
    base = without_bonus(top.score)
    named_bonus = top.score - base
    best = promoted[0][0] or 1.0
    by_id: dict[str, Hit] = {}
    for score, h in promoted:
        if h.chunk_id in by_id:
            continue
        bonus = named_bonus if h.path == top.path or h.score > 1.0 else 0.0
        by_id[h.chunk_id] = replace(h, score=bonus + base * score / best)
    rest = _pages_apart([h for h in hits if h.chunk_id not in by_id], by_id.values())
    ordered = [*by_id.values(), *rest]
    return [replace(h, rank=n) for n, h in enumerate(ordered, start=1)]


PER_PAGE = 2  # passages of one page before the passages of other pages go ahead of more


def _pages_apart(hits: list[Hit], first: Iterable[Hit]) -> list[Hit]:
    """The hits in order, except that a page's passages past its first ``PER_PAGE`` (the
    promoted ones counted) come after every other page's: five passages of one page of an
    earnings release do not fill the list a person reads."""
    seen: Counter[tuple[str, int | None]] = Counter((h.path, h.page) for h in first)
    ahead: list[Hit] = []
    later: list[Hit] = []
    for h in hits:
        key = (h.path, h.page)
        seen[key] += 1
        (ahead if h.page is None or seen[key] <= PER_PAGE else later).append(h)
    return ahead + later


def _leading_docs(hits: Sequence[Hit], lead: Sequence[str] = ()) -> list[str]:
    """The ``lead`` files, then the paged files among the first ``LOOK`` hits, at most
    ``DOCS`` in all, in rank order; none unless the best hit is on a page (a question that a
    note answers keeps its note first)."""
    if not hits or hits[0].page is None:
        return []
    docs: list[str] = list(lead[:DOCS])
    for i, h in enumerate(hits[:LOOK]):
        if h.page is None or h.path in docs:
            continue
        if docs and i >= SECOND_WITHIN:
            break
        docs.append(h.path)
        if len(docs) == DOCS:
            break
    return docs


@dataclass
class _PageWords:
    """What a page's scores are made of that does not depend on the question."""

    number: int
    rows: list[ChunkRow]
    counts: Counter[str]  # its stemmed words (passages and heading path)
    length: int
    titles: frozenset[str]
    statement_titles: tuple[str, ...]


class FileView:
    """A file's passages and, worked out once for all questions about it, its pages' words
    and its passages' vectors (``FilePages`` keeps it while the file is unchanged)."""

    def __init__(self, rows: list[ChunkRow]) -> None:
        self.rows = rows
        self._pages: list[_PageWords] | None = None
        self._vectors: tuple[list[str], np.ndarray] | None = None

    def pages(self) -> list[_PageWords]:
        if self._pages is None:
            by_page: dict[int, list[ChunkRow]] = defaultdict(list)
            for row in self.rows:
                if row.page is not None:
                    by_page[row.page].append(row)
            self._pages = []
            for number, rows in by_page.items():
                counts: Counter[str] = Counter()
                for text in [*(r.text for r in rows), rows[0].heading or ""]:
                    counts.update(_counted(text)[0])
                titles = frozenset(w for r in rows for w in _title_words(r.heading))
                self._pages.append(
                    _PageWords(number, rows, counts, counts.total(), titles, statement_titles(rows))
                )
        return self._pages

    def cosines(
        self, qvec: np.ndarray, vectors: Callable[[set[str]], dict[str, np.ndarray]]
    ) -> dict[str, float]:
        """Each passage's similarity to the query (those with a stored vector)."""
        held = self._vectors
        if held is None:
            wanted = {r.text_hash for r in self.rows}
            stored = vectors(wanted)
            keys = list(stored)
            matrix = np.stack([stored[k] for k in keys]) if keys else np.zeros((0, len(qvec)))
            held = (keys, matrix)
            if len(keys) == len(wanted):  # all vectors there: keep them (else ask again)
                self._vectors = held
        keys, matrix = held
        return dict(zip(keys, (matrix @ qvec).tolist(), strict=True)) if keys else {}


def _score_pages(
    terms: list[str],
    view: FileView | list[ChunkRow],
    qvec: np.ndarray | None,
    vectors: Callable[[set[str]], dict[str, np.ndarray]],
    found: dict[str, Hit] | None = None,
    statements: Sequence[re.Pattern[str]] = (),
) -> list[_Page]:
    """The file's pages, best first, each with its scores and its best passage."""
    if not isinstance(view, FileView):
        view = FileView(view)
    words = view.pages()
    if not words:
        return []
    wanted = set(terms)
    pages = [
        _Page(
            w.number, w.rows, Counter({t: w.counts[t] for t in wanted if t in w.counts}), w.length
        )
        for w in words
    ]
    n = len(pages)
    df = Counter(t for p in pages for t in p.counts)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    mean_len = sum(p.length for p in pages) / n or 1.0
    cosine = view.cosines(qvec, vectors) if qvec is not None else {}
    fused_of = {cid: without_bonus(h.score) for cid, h in (found or {}).items()}
    for p, w in zip(pages, words, strict=True):
        norm = K1 * (1 - B + B * p.length / mean_len)
        p.words = sum(idf[t] * c * (K1 + 1) / (c + norm) for t, c in p.counts.items())
        if p.counts:
            p.line = max(_best_line(row, idf) for row in p.rows)
        p.meaning = max((cosine.get(r.text_hash, 0.0) for r in p.rows), default=0.0)
        p.found = max((fused_of.get(r.chunk_id, 0.0) for r in p.rows), default=0.0)
        p.statement = float(any(s.search(t) for t in w.statement_titles for s in statements))
        p.title = sum(idf[t] for t in w.titles.intersection(idf))
    fields = ("words", "line", "meaning", "found", "title")
    top = [max(getattr(p, f) for p in pages) or 1.0 for f in fields]
    for p in pages:
        p.score = (
            W_WORDS * p.words / top[0]
            + W_LINE * p.line / top[1]
            + W_MEANING * p.meaning / top[2]
            + W_FOUND * p.found / top[3]
            + W_TITLE * p.title / top[4]
            + W_STATEMENT * p.statement
        )
    pages.sort(key=lambda p: (-p.score, p.number))
    for p in pages[:PAGES]:  # only the pages promoted need their best passage
        p.best = max(
            p.rows,
            key=lambda r: (
                W_LINE * _best_line(r, idf) / top[1]
                + W_MEANING * cosine.get(r.text_hash, 0.0) / top[2]
                + W_FOUND * fused_of.get(r.chunk_id, 0.0) / top[3]
            ),
        )
    return pages


def statement_titles(rows: Sequence[ChunkRow]) -> tuple[str, ...]:
    """The titles of a page that may name a statement: the parts of its first passage's
    heading path and the opening lines of its first passage that hold no figure (a title
    the layout did not set apart: "Consolidated Statements of Operations" under a link back
    to the index), less those about a statement rather than the statement itself."""
    first = min(rows, key=lambda r: r.start)
    lines = [line.strip() for line in first.text.splitlines() if line.strip()]
    opening = [line for line in lines[:OPENING_LINES] if not _is_row(line) and len(line) < 120]
    parts = [*(first.heading or "").split(" › "), *opening]
    return tuple(p for p in parts if p and not _NOT_THE_STATEMENT.search(p))


@functools.lru_cache(maxsize=10_000)
def _title_words(heading: str | None) -> frozenset[str]:
    """The stemmed words of the last two parts of a heading path: the page's own titles
    ("Note 5 - Acquisitions and Divestitures"), not the outline every page shares."""
    parts = (heading or "").split(" › ")[-2:]
    return frozenset(stems(" ".join(p for p in parts if not is_head_line(p))))


@functools.lru_cache(maxsize=50_000)
def _counted(text: str) -> tuple[Counter[str], int]:
    """The stemmed words of a passage, counted, and how many (a document's pages are read
    again for each question about it: their passages' words are kept)."""
    words = Counter(stems(text))
    return words, words.total()


def _best_line(row: ChunkRow, idf: dict[str, float]) -> float:
    """The weight of the question's words on the passage's best line (``_line_words``)."""
    return max(
        (
            sum(w for t, w in idf.items() if t in words)
            for words in _line_words(row.text, row.heading)
        ),
        default=0.0,
    )


@functools.lru_cache(maxsize=50_000)
def _line_words(
    text: str, heading: str | None
) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """The stemmed words of each line of a passage. A table's row (cells with a figure) is
    read with its table's heads: the lines of column heads in the passage and the last part
    of its heading path (a statement's title, or the heads of a long table's earlier part),
    so "Inventories | 4,310" under "2019 | 2018" holds "2019"."""
    lines = text.splitlines()
    heads = set(stems((heading or "").rsplit(" › ", 1)[-1]))
    heads.update(w for line in lines if is_head_line(line) for w in stems(line))
    out = []
    for line in lines:
        words = set(stems(line))
        if _is_row(line):
            words |= heads
        out.append(frozenset(words))
    return frozenset().union(*out), tuple(out)


def _is_row(line: str) -> bool:
    """A table's row as the text sets it: cells joined by " | ", one of them a figure."""
    cells = line.split(CELL_SEP)
    return len(cells) >= 2 and any(is_figure(c.strip().lstrip("$ ")) for c in cells[1:])


class FilePages:
    """A file's passages, read from the manifest once while the file is unchanged: the same
    filing is read again for each question about it (and for each probe of the support
    flag's calibration)."""

    def __init__(self, manifest: Manifest, size: int = 8) -> None:
        self.manifest = manifest
        self.size = size
        self._files: dict[str, tuple[object, FileView]] = {}

    def __call__(self, path: str) -> FileView:
        record = self.manifest.file(path)
        if record is None:
            return FileView([])
        key = (record.hash, record.mtime_ns, record.chunks, record.format)
        held = self._files.pop(path, None)
        if held is not None and held[0] == key:
            view = held[1]
        else:
            view = FileView(self.manifest.chunks_of(path))
        self._files[path] = (key, view)  # the newest last
        while len(self._files) > self.size:
            del self._files[next(iter(self._files))]
        return view


def _hit_of(row: ChunkRow) -> Hit:
    return Hit(
        rank=0,
        path=row.path,
        page=row.page,
        start=row.start,
        end=row.end,
        text=row.text,
        score=0.0,
        chunk_id=row.chunk_id,
        heading=row.heading,
        text_hash=row.text_hash,
    )
