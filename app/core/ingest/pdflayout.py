"""The order of a PDF page's lines: table rows on one line each, leaders and furniture left out.

MuPDF sets a statement's row as separate lines, often separate blocks: "Inventories", then
"(509)", "(387)", "57", each on a line of its own, so a passage held a label without its
figures or figures without their year. Here the lines of a page that sit side by side (their
vertical middles within each other's extent) form a row; a run of at least ``MIN_ROWS`` rows
that hold a figure beside another cell is a table. A table is set as one block at the place
of its first line: each row on one line, its cells in reading order joined by ``CELL_SEP``,
with the rows of column heads just above it (years, "(Millions)", "December 31,") as its
first lines. The rest of the page keeps MuPDF's order.

Two kinds of ink are not text: dot leaders ("Net income . . . . . 244,230": the leader is
cut, the two sides become two cells) and page furniture (a page number, "Table of Contents"
alone in the top or bottom margin, and a filing's running "PART II", "Item 7" in the top
band; a year is a page number only alone on its row, for a table at the top of a page sets
its column heads there). A figure's cell ends before a currency sign set after it: the sign
is the next column's ("14,189    $"; after one space too, "796 $", on a page that writes "$"
before its amounts), and figures set side by side on one line with only white space between
them ("1,603,451  1,499,218") are a cell each. A row whose text follows its figures
("bessel_i | 194 | elt | 165": the two columns of an index) is not a table's row: its lines
keep MuPDF's order.

A page's layout is computed from its lines alone (their text and boxes), so the text
(``pdftext.pdf_page_text``) and the glyph boxes (``pdftext.pdf_page_chars``) built from the
same lines agree character for character. PyMuPDF's own table finder (``page.find_tables``)
was measured for this job and not used: about 100 ms a page (its Python pass over every
character) against 3 ms for reading the page's text, on the 39% of filing pages that hold
figures, which would have made indexing the corpus ~35% slower than the 1.2x budget allows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

BBox = tuple[float, float, float, float]

CELL_SEP = " | "
MIN_ROWS = 3  # rows holding figures beside another cell, for a run of rows to be a table
MAX_GAP_ROWS = 4  # rows without figures (section labels, a wrapped label) held in a row
MAX_HEAD_ROWS = 3  # rows of column heads taken above a table's first row of figures
MARGIN = 0.1  # of the page height: the top and bottom bands where furniture is set

_LEADER = re.compile(r"[ \t]*[.·•_…](?:[ \t]*[.·•_…]){3,}[ \t]*")
# A figure's last character, a column's gap of white space and a currency sign ending the
# cell: MuPDF often sets the sign of the next column's amount on the line of the figure before
# it ("Net sales", "$", "14,189    $", "14,082"), which made the row read as text, not a
# table's. One space is a sign written after its own amount ("20 €", "15 $"): left whole,
# except a "$" on a page that writes its dollar signs before amounts (``_DOLLAR_FIRST``), where
# a "$" after a figure is always the next column's ("$ 26,268 | $ (14) $ | 796 $ | 25,486").
_NEXT_SIGN = re.compile(r"[\d)%]\s{2,}[$€£¥]$")
_NEXT_DOLLAR = re.compile(r"[\d)%—–-]\s+\$$")
_DOLLAR_FIRST = re.compile(r"^\s*\$\s*$|\$\s?\(?\d")  # a "$" alone, or before a figure
# Two columns' figures MuPDF sets on one line with only white space between them
# ("1,603,451  1,499,218", "(62.8)   (23.2)"): each is a cell when every part is a figure.
_COLUMN_GAP = re.compile(r"\s{2,}")
_FIGURE = re.compile(
    r"^[(\[]?[-–—+]?[$€£¥]?[ ]?[(]?[-–—+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)"
    r"(?:\)?[ ]?(?:%|bps|pp|x))?[)\]]?[*†]?$|^[-–—]+$|^[$€£¥%]$|^n/?[am]$",
    re.IGNORECASE,
)
_PERIOD = re.compile(
    r"^(?:\(?(?:19|20)\d\d\)?|FY\s?\d{2,4}|Q[1-4]\s?\d{0,4}|H[12]\s?\d{0,4}"
    r"|[A-Z][a-z]+\.? \d{1,2},?(?: (?:19|20)\d\d)?)$"  # "December 31," "Nov. 27, 2015"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")  # a year alone: a page number only if alone on its row
_FURNITURE = re.compile(
    r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7}|[A-Z]{1,2}-\d{1,3})(?:\s+of\s+\d{1,4})?$"
    r"|^table of contents$|^\d{1,4}\s*[|·•]\s*.{0,60}$|^.{0,60}\s*[|·•]\s*\d{1,4}$"
    r"|^part [ivx]{1,4}$|^item \d{1,2}[a-c]?\.?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Line:
    """One line as MuPDF sets it: its block, its box and its text (controls made spaces)."""

    block: int
    bbox: BBox
    text: str


Cell = tuple[int, int, int]  # a line's index and a character range of its text


@dataclass
class Layout:
    """A page as blocks of lines of cells; ``tables``: per block, its number of head lines
    (the block is a table) or None."""

    blocks: list[list[list[Cell]]] = field(default_factory=list)
    tables: list[int | None] = field(default_factory=list)
    furniture: set[int] = field(default_factory=set)  # lines left out as page furniture


def cells_of(text: str, dollar_first: bool = False) -> list[tuple[int, int]]:
    """A line's character ranges once dot leaders are cut out, spaces trimmed at the ends; a
    currency sign set after a figure ("14,189    $") is a cell of its own, the next column's
    (after one space too where the page writes "$" before amounts: ``dollar_first``), and
    figures set side by side with white space between them are a cell each."""
    out: list[tuple[int, int]] = []
    pos = 0
    gaps = _COLUMN_GAP.search(text) is not None  # most lines have none: no parts to look for
    parts = _figure_parts if gaps else _whole
    for m in [*_LEADER.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        a, b = _trim(text, pos, end)
        sign = _NEXT_SIGN.search(text, a, b) if gaps else None
        if sign is None and dollar_first:
            sign = _NEXT_DOLLAR.search(text, a, b)
        if sign is not None:
            out += parts(text, a, sign.start() + 1)
            a = sign.end() - 1
        if a < b:
            out += parts(text, a, b)
        if m is not None:
            pos = m.end()
    return out


def dollar_first(texts: Iterable[str]) -> bool:
    """The page writes its dollar signs before amounts ("$ 5,363", or a "$" alone on its line
    before the figure's): a "$" set after a figure there is the next column's."""
    return any(_DOLLAR_FIRST.search(t) for t in texts)


def _whole(text: str, a: int, b: int) -> list[tuple[int, int]]:
    return [(a, b)]


def _figure_parts(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The range, or its parts between gaps of white space when every part is a figure."""
    gaps = list(_COLUMN_GAP.finditer(text, a, b))
    if not gaps:
        return [(a, b)]
    starts = [a, *(g.end() for g in gaps)]
    ends = [*(g.start() for g in gaps), b]
    parts = list(zip(starts, ends, strict=True))
    if all(is_figure(text[s:e]) for s, e in parts):
        return parts
    return [(a, b)]


def is_figure(text: str) -> bool:
    """A cell that holds a figure: a number, a dash for nil, a currency sign alone."""
    return bool(_FIGURE.match(" ".join(text.split())))


def is_head_line(line: str) -> bool:
    """A table's line of column heads as the text sets it: periods ("2019 | 2018",
    "(Millions) | 2018 | 2017", "FY2022"), cells joined by ``CELL_SEP``."""
    cells = [" ".join(c.split()) for c in line.split(CELL_SEP.strip())]
    cells = [c for c in cells if c]
    return bool(cells) and any(_PERIOD.match(c) for c in cells) and _head_texts(cells)


def _head_texts(texts: Sequence[str]) -> bool:
    """Cells that are all periods or parenthesised units, or several short heads, two
    periods or more among them ("2022 | 2021 | 22 vs. 21"; not "Founded | 1998", a row)."""
    if all(_PERIOD.match(t) or t.startswith("(") for t in texts):
        return True
    periods = sum(1 for t in texts if _PERIOD.match(t))
    return (
        len(texts) >= 2
        and periods != 1
        and all(len(t.split()) <= 4 and (not is_figure(t) or _PERIOD.match(t)) for t in texts)
    )


def layout(lines: Sequence[Line], page_height: float) -> Layout:
    """The page's blocks in reading order, tables set as rows (see the module)."""
    edges = _edge_lines(lines)
    dropped = {i for i, ln in enumerate(lines) if _furniture(ln, page_height, i in edges)}
    dropped -= _year_heads(lines, dropped)
    keep = [i for i in range(len(lines)) if i not in dropped]
    signs = dollar_first(lines[i].text for i in keep)
    cells = {i: cells_of(lines[i].text, signs) for i in keep}
    keep = [i for i in keep if cells[i]]
    rows = _rows(lines, keep)
    tables = _tables(lines, rows, cells)
    in_table = {i: t for t, (_, members) in enumerate(tables) for row in members for i in row}
    out = Layout(furniture=dropped)
    placed: set[int] = set()
    block_of: dict[int, int] = {}  # MuPDF block -> index in out.blocks of its lines
    for i in keep:
        t = in_table.get(i)
        if t is not None:
            if t not in placed:
                placed.add(t)
                heads, members = tables[t]
                out.blocks.append([_row_cells(lines, row, cells) for row in members])
                out.tables.append(heads)
                block_of.pop(lines[i].block, None)  # lines after a table start a new block
            continue
        b = block_of.get(lines[i].block)
        if b is None:
            block_of[lines[i].block] = len(out.blocks)
            out.blocks.append([])
            out.tables.append(None)
            b = len(out.blocks) - 1
        out.blocks[b].append([(i, a, e) for a, e in cells[i]])
    return out


def _furniture(line: Line, page_height: float, edge: bool) -> bool:
    """A page number or running head alone: the first or last line of the page, or in the
    top or bottom band of it."""
    _, y0, _, y1 = line.bbox
    banded = page_height > 0 and (y1 <= page_height * MARGIN or y0 >= page_height * (1 - MARGIN))
    return (edge or banded) and bool(_FURNITURE.match(" ".join(line.text.split())))


def _year_heads(lines: Sequence[Line], dropped: set[int]) -> set[int]:
    """Of the lines taken for page numbers, the years set beside another line on their row:
    the column heads of a table at the top of a page ("2022", "2021"), not furniture."""
    out: set[int] = set()
    for i in dropped:
        if _YEAR.match(lines[i].text.strip()):
            mid = _mid(lines[i])
            if any(
                j != i and lines[j].bbox[1] <= mid <= lines[j].bbox[3] for j in range(len(lines))
            ):
                out.add(i)
    return out


def _edge_lines(lines: Sequence[Line]) -> set[int]:
    """The topmost and the bottommost lines of the page (more than one if level)."""
    if not lines:
        return set()
    top = min(ln.bbox[1] for ln in lines)
    bottom = max(ln.bbox[3] for ln in lines)
    return {
        i for i, ln in enumerate(lines) if ln.bbox[1] <= top + 0.5 or ln.bbox[3] >= bottom - 0.5
    }


def _rows(lines: Sequence[Line], keep: list[int]) -> list[list[int]]:
    """The kept lines grouped into rows (vertical middles within each other's extent), top
    to bottom, each row's lines left to right."""
    order = sorted(keep, key=lambda i: (_mid(lines[i]), lines[i].bbox[0]))
    rows: list[list[int]] = []
    top = bottom = 0.0
    for i in order:
        _, y0, _, y1 = lines[i].bbox
        if rows and (top <= _mid(lines[i]) <= bottom) and _beside(lines, rows[-1], i):
            rows[-1].append(i)
            top, bottom = min(top, y0), max(bottom, y1)
            continue
        rows.append([i])
        top, bottom = y0, y1
    for row in rows:
        row.sort(key=lambda i: lines[i].bbox[0])
    return rows


def _beside(lines: Sequence[Line], row: list[int], i: int) -> bool:
    """The line does not overlap a line of the row horizontally (it is beside them)."""
    x0, _, x1, _ = lines[i].bbox
    return all(x1 <= lines[j].bbox[0] + 1 or x0 >= lines[j].bbox[2] - 1 for j in row)


def _mid(line: Line) -> float:
    return (line.bbox[1] + line.bbox[3]) / 2


def _tables(
    lines: Sequence[Line], rows: list[list[int]], cells: dict[int, list[tuple[int, int]]]
) -> list[tuple[int, list[list[int]]]]:
    """Runs of rows that are tables: (number of head rows, the rows)."""
    kinds = [_kind(lines, row, cells) for row in rows]
    found: list[tuple[int, list[list[int]], int]] = []
    i = 0
    while i < len(rows):
        if kinds[i] != "figures":
            i += 1
            continue
        j, last, count = i, i, 0
        while j < len(rows) and j - last <= MAX_GAP_ROWS:
            if kinds[j] == "figures":
                last, count = j, count + 1
            j += 1
        if count >= MIN_ROWS:
            start = _head_start(kinds, i, found[-1][2] if found else 0)
            marks = [n for n in range(start, i) if kinds[n] == "head"]
            heads = marks[-1] + 1 - start if marks else 0
            found.append((heads, rows[start : last + 1], last + 1))
        i = last + 1
    return [(heads, members) for heads, members, _ in found]


def _head_start(kinds: list[str], first: int, floor: int) -> int:
    """Where a table whose first row of figures is ``first`` starts: at the rows of column
    heads above it (at most ``MAX_HEAD_ROWS``, over at most two section labels between), or
    at ``first`` when there are none. Never above ``floor`` (the end of the table before)."""
    start, i, labels = first, first, 0
    while i > floor and first - i < MAX_HEAD_ROWS + 2:
        kind = kinds[i - 1]
        if kind == "head":
            start = i - 1
        elif kind != "text" or labels == 2 or start < first:
            break
        else:
            labels += 1
        i -= 1
    return start


def _kind(lines: Sequence[Line], row: list[int], cells: dict[int, list[tuple[int, int]]]) -> str:
    """ "figures" (a figure beside another cell), "head" (periods or short heads side by
    side, or a period alone), or "text"."""
    texts = [" ".join(lines[i].text[a:b].split()) for i in row for a, b in cells[i]]
    figures = [is_figure(t) and not _PERIOD.match(t) for t in texts]
    if len(texts) >= 2 and any(figures):
        first = figures.index(True)
        if all(figures[first:]) or all(is_figure(t) for t in texts[first:]):
            return "figures"  # labels, then figures: a row (not "term | 12 | term | 40")
        return "text"
    return "head" if _head_texts(texts) else "text"


def _row_cells(
    lines: Sequence[Line], row: list[int], cells: dict[int, list[tuple[int, int]]]
) -> list[Cell]:
    return [(i, a, b) for i in row for a, b in cells[i]]


def join_cells(texts: Sequence[str]) -> list[str]:
    """The separators before each cell of a row: none before the first, a space after a
    currency sign alone ("$ 5,363"), else ``CELL_SEP``."""
    seps = [""]
    for prev in texts[:-1]:
        seps.append(" " if prev.strip() in ("$", "€", "£", "¥") else CELL_SEP)
    return seps


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
