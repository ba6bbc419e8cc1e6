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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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
EXCERPT_FROM = 100  # a passage past the best one over this many tokens may be sent in part
EXCERPT_TOKENS = 64  # about what an excerpt holds: its best lines and their neighbours
MIN_SAVING = 0.3  # a passage is sent whole unless its excerpt saves this share of it
_CELL_TOKENS = 6  # a line this short after a matching line is a cell of its row (a table's figures)
_ROW_CELLS = 6  # the most such lines kept after a matching line
_COLUMN_HEAD = re.compile(r"^\(?(?:19|20)\d\d\)?$|^(?:FY|Q[1-4])\s?\d{2,4}$", re.IGNORECASE)

Ranges = tuple[tuple[int, int], ...]


def excerpt(question: str, text: str, estimate: Callable[[str], int]) -> Ranges | None:
    """The parts of ``text`` worth sending for ``question`` as (start, end) ranges, or None
    to send it whole.

    A passage over ``EXCERPT_FROM`` tokens is cut to the lines (sentences, in prose) that share
    the most words with the question, each with its neighbours: the line before it, and after
    it the next line, or in a table the short lines that are its row's figures. Lines that only
    name a year or a quarter at the top of a table are kept as its column heads. None when the
    passage is short, when no line shares a word with the question (it was found by meaning,
    and no line can be told from another), or when the excerpt would save little.
    """
    whole = estimate(text)
    if whole <= EXCERPT_FROM:
        return None
    units = sentence_spans(text, lines=True)
    terms = _terms(question)
    scores = [len(terms & _terms(text[a:b])) for a, b in units]
    if len(units) < 3 or not any(scores):
        return None
    cost = [estimate(text[a:b]) + 1 for a, b in units]
    kept: set[int] = set()
    used = 0
    for seed in sorted(range(len(units)), key=lambda i: (-scores[i], i)):
        if scores[seed] == 0 or used >= EXCERPT_TOKENS:
            break
        window = [*_row(seed, cost), seed - 1]
        new = [i for i in window if 0 <= i < len(units) and i not in kept]
        extra = sum(cost[i] for i in new)
        if kept and used + extra > EXCERPT_TOKENS:
            continue
        kept.update(new)
        used += extra
    first = min(kept)
    kept.update(i for i in range(first) if _COLUMN_HEAD.match(text[slice(*units[i])].strip()))
    ranges = _ranges(text, [units[i] for i in sorted(kept)])
    if estimate(sent_text(text, ranges)) > (1 - MIN_SAVING) * whole:
        return None
    return ranges


def _terms(text: str) -> set[str]:
    """The stemmed words of ``text`` but stopwords (as lexical search reads a query)."""
    return {stem(word) for word in query_terms(text)}


def _row(seed: int, cost: Sequence[int]) -> list[int]:
    """The matching line and what follows it: its row's figures, else the next line."""
    row = [seed]
    for i in range(seed + 1, min(len(cost), seed + 1 + _ROW_CELLS)):
        if cost[i] > _CELL_TOKENS:
            break
        row.append(i)
    if len(row) == 1:
        row.append(seed + 1)
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
    """What the model reads of a passage sent as ``ranges``: the parts, with "…" where lines
    were left out."""
    if not ranges:
        return text
    parts = [text[a:b] for a, b in ranges]
    if text[: ranges[0][0]].strip():
        parts.insert(0, "")
    if text[ranges[-1][1] :].strip():
        parts.append("")
    return "\n…\n".join(parts).strip("\n")
