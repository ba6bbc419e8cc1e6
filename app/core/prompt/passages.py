"""Which retrieved passages go into the prompt: what the answer needs, and no more.

On a machine without a GPU the wait for the first word of an answer grows with the prompt,
and a small model answers worse from eight passages of which one matters. So the passages
sent are chosen by evidence rather than a fixed eight: in rank order, while a passage's fused
score stays within ``KEEP_SHARE`` of the best one's and the passages chosen stay within
``TOKEN_CAP``. A question with one decisive passage sends one; one whose evidence is spread
over passages of similar score sends them all.

They are always a prefix of the ranking, so a source's number in the prompt is its rank in
the list the person sees. Search puts tables of contents and indexes after prose
(``retrieval.contents_last``), so the choice stops at the first of them: they point at the
page that answers, they never answer (unless one is the best passage: a question about them).
The verdict is unaffected: retrieval evidence is computed on the best eight passages
(``support.HITS``) before this choice, as it was calibrated.

Tuned on SQuAD 2.0 dev questions (answerable, 216 in the dev half by question-id hash), the
gold paragraph kept against the median prompt (system prompt included) of today's eight:
share 0.50 -> 0.995 kept, 52% of the tokens; 0.55 -> 0.995, 46%; 0.60 -> 0.986, 43%;
0.65 -> 0.981, 37%. Held-out half (184) at 0.55: 0.983 kept, 47% of the tokens.

Where scores are flat (a filing's pages: 0.26, 0.26, 0.25... of the best) the choice keeps most
of the eight, each a dense table page. So the sources of one prompt also have a budget,
``SOURCE_TOKENS`` (``answering.build_messages`` keeps to it): while they are over it, each
passage after the best one is cut to its ``excerpt`` about the question (the row asked about
with its column heads, the sentence with its neighbours), the lowest ranked first, then to its
best line alone; only then are the lowest ranked left out. A table's row is one line
(``ingest.pdflayout``), so the row asked about goes with its figures; the heads of a part of a
long table that does not hold them are in its source tag (the end of its heading path). Sources
within it go whole, so a question over a few short paragraphs loses nothing. Tuned on the dev
halves (blake2b of the question id), median prompt tokens against today's eight passages whole,
and the gold answer in the text the model reads (SQuAD: 300 answerable; FinanceBench: its 37
questions' evidence page, and an evidence line, among the passages read):

    budget       SQuAD tokens  SQuAD gold read  filings tokens  evidence page  evidence line
    today's 8    1.00          288              1.00            17             15
    none         0.49          288              0.77            15             13
    700          0.49          286              0.58            15             13
    600          0.49          284              0.54            15             13
    525          0.46          280              0.48            15             12
    500          0.45          280              0.46            15             12

Held-out halves at 525: SQuAD 0.46 of the tokens, gold read 270 of 300 (today 285, the
choice alone 279); filings 0.45, evidence page read 8 of 36 and an evidence line 6 (today 10
and 9, the choice alone 8 and 8). Passages cut to excerpts and not left out first lost the
gold from 7 more SQuAD questions of the held-out half (272 against 279): with a budget,
sources that fit go whole.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

from app.core.ingest.pdflayout import is_head_line
from app.core.search.fusion import without_bonus
from app.core.text import is_toc_like, query_terms, sentence_spans, stem
from app.core.types import Hit

KEEP_SHARE = 0.55  # a passage scoring under this share of the best one's adds little
TOKEN_CAP = 1600  # the passages' own tokens, whatever their scores (about 10 short passages)


def choose_passages(
    hits: Sequence[Hit],
    estimate: Callable[[str], int],
    *,
    keep_share: float = KEEP_SHARE,
    token_cap: int = TOKEN_CAP,
) -> list[Hit]:
    """The leading hits worth sending to the model (at least the best one); ``estimate``
    counts a text's tokens."""
    ranked = sorted(hits, key=lambda h: h.rank)
    if not ranked:
        return []
    best = without_bonus(ranked[0].score)
    chosen = [ranked[0]]
    used = estimate(ranked[0].text)
    for hit in ranked[1:]:
        cost = estimate(hit.text)
        if without_bonus(hit.score) < keep_share * best or used + cost > token_cap:
            break
        if is_toc_like(hit.text):
            break
        chosen.append(hit)
        used += cost
    return chosen


# -- excerpts: the lines of a long passage that the question is about -----------------------
SOURCE_TOKENS = 525  # what the sources of one prompt may take, tags included (see the module)
EXCERPT_FROM = 60  # a passage past the best one over this many tokens may be sent in part
EXCERPT_TOKENS = 64  # about what an excerpt holds: its best lines and their neighbours
MIN_SAVING = 0.3  # a passage is sent whole unless its excerpt saves this share of it
_CELL_TOKENS = 6  # a line this short after a matching line is a cell of its row (a table's figures)
_ROW_CELLS = 6  # the most such lines kept after a matching line
_COLUMN_HEAD = re.compile(r"^\(?(?:19|20)\d\d\)?$|^(?:FY|Q[1-4])\s?\d{2,4}$", re.IGNORECASE)

# Four or more dots (or middle dots, bullets, underscores) in a row, spaced or not: a leader.
_LEADER_RUN = re.compile(r"[ \t]*[.·•_](?:[ \t]*[.·•_]){3,}[ \t]*")

Ranges = tuple[tuple[int, int], ...]


def excerpt(
    question: str, text: str, estimate: Callable[[str], int], *, tight: bool = False
) -> Ranges | None:
    """The parts of ``text`` worth sending for ``question`` as (start, end) ranges, or None
    to send it whole.

    A passage over ``EXCERPT_FROM`` tokens is cut to the lines (sentences, in prose) that share
    the most words with the question, each with its neighbours: the line before it, and after
    it the next line, or in a table the short lines that are its row's figures. Lines that only
    name a year or a quarter at the top of a table are kept as its column heads. None when the
    passage is short, when no line shares a word with the question (it was found by meaning,
    and no line can be told from another), or when the excerpt would save little. ``tight``
    keeps only the best line and its row's figures: the last try before a passage is left out.
    """
    whole = estimate(text)
    if whole <= EXCERPT_FROM:
        return None
    units = sentence_spans(text, lines=True)
    asked = _terms(question)
    found = [asked & _terms(text[a:b]) for a, b in units]
    # a word of the question on every line (the topic: "Huguenot" in a page about them) tells
    # the lines apart less than one on a single line ("schools")
    lines_with = Counter(term for terms in found for term in terms)
    scores = [sum(math.log(1 + len(units) / lines_with[t]) for t in terms) for terms in found]
    if len(units) < 3 or not any(scores):
        return None
    cost = [estimate(text[a:b]) + 1 for a, b in units]
    kept: set[int] = set()
    used = 0
    for seed in sorted(range(len(units)), key=lambda i: (-scores[i], i)):
        if scores[seed] == 0 or used >= EXCERPT_TOKENS or (tight and kept):
            break
        window = _row(seed, cost, neighbours=not tight)
        new = [i for i in window if 0 <= i < len(units) and i not in kept]
        extra = sum(cost[i] for i in new)
        if kept and used + extra > EXCERPT_TOKENS:
            continue
        kept.update(new)
        used += extra
    first = min(kept)
    kept.update(i for i in range(first) if _column_head(text[slice(*units[i])]))
    ranges = _ranges(text, [units[i] for i in sorted(kept)])
    if estimate(sent_text(text, ranges)) > (1 - MIN_SAVING) * whole:
        return None
    return ranges


def _column_head(line: str) -> bool:
    """A line of a table's column heads: a year or a quarter alone (a PDF's cells read one
    a line), or the heads of a row ("(Millions) | 2018 | 2017")."""
    return bool(_COLUMN_HEAD.match(line.strip())) or is_head_line(line)


def _terms(text: str) -> set[str]:
    """The stemmed words of ``text`` but stopwords (as lexical search reads a query)."""
    return {stem(word) for word in query_terms(text)}


def _row(seed: int, cost: Sequence[int], *, neighbours: bool) -> list[int]:
    """The matching line and its row's figures (the short lines after it); with
    ``neighbours``, the line before it too, and the next line when no figures follow."""
    row = [seed]
    for i in range(seed + 1, min(len(cost), seed + 1 + _ROW_CELLS)):
        if cost[i] > _CELL_TOKENS:
            break
        row.append(i)
    if neighbours:
        row += [seed - 1] if len(row) > 1 else [seed - 1, seed + 1]
    return row


def _ranges(text: str, spans: Sequence[tuple[int, int]]) -> Ranges:
    """The spans joined where only white space lies between them."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and not text[out[-1][1] : a].strip():
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return tuple(out)


def sent_text(text: str, ranges: Ranges | None) -> str:
    """What the model reads of a passage sent as ``ranges`` (None: all of it): the parts,
    with "…" where lines were left out, and dot leaders ("Net income ........ 244,230") cut
    to a space: in a statement or a contents page they are a third of the tokens, and say
    nothing."""
    if not ranges:
        return _LEADER_RUN.sub(" ", text)
    parts = [text[a:b] for a, b in ranges]
    if text[: ranges[0][0]].strip():
        parts.insert(0, "")
    if text[ranges[-1][1] :].strip():
        parts.append("")
    return _LEADER_RUN.sub(" ", "\n…\n".join(parts).strip("\n"))
