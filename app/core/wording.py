"""What the front ends say about the same things, worded once: counts, verdicts, sources.

The command line and the window show the same verdict, the same source and the same count;
worded here, they cannot word them two ways ("read in part" in ``ask``, something else in
``threads show``). Plain text, no markup: each front end escapes and styles it its own way.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.diskfull import disk_full_message
from app.core.index.skipped import headline as skipped_headline
from app.core.ingest.skips import sentence as skip_sentence
from app.core.text import (
    counted,
    display_path,
    query_terms,
    sentence_spans,
    stem,
    unspaced,
    words,
)
from app.core.verdict.judge import Level, Verdict

SNIPPET = 300  # characters of a passage shown on one line
GIST_WORDS = 30  # words of a passage that tell it from its neighbours in a list of sources

__all__ = [
    "LEVEL_WORDS",
    "SNIPPET",
    "counted",
    "disk_full_message",
    "display_path",
    "excerpt",
    "gist",
    "level_words",
    "read_in_part",
    "skip_sentence",
    "skipped_headline",
    "source_where",
    "verdict_line",
]

LEVEL_WORDS = {
    Level.SUPPORTED: "Supported",
    Level.PARTLY: "Partly supported",
    Level.UNSUPPORTED: "UNSUPPORTED",
    Level.NO_ANSWER: "No answer",
}


def level_words(level: Level) -> str:
    """The verdict's level in a word or two, as the command line prints it."""
    return LEVEL_WORDS[level]


def verdict_line(verdict: Verdict, strong: bool | None = None, score: float | None = None) -> str:
    """The verdict's headline and reason on one line; with the retrieval evidence (strong or
    weak, its score) when it is known."""
    words = level_words(verdict.level)
    if strong is not None and score is not None:
        words += f" (retrieval {'strong' if strong else 'weak'}, {score:.2f})"
    return f"{words}: {verdict.reason}"


def source_where(path: str, page: int | None) -> str:
    """A source's file and page, as a person reads them ("/notes/lease.pdf p.3")."""
    return display_path(path) + (f" p.{page}" if page else "")


def read_in_part(sent: Sequence[Sequence[int]] | None, truncated: bool = False) -> str:
    """What the model read of a source, when not all of it: " (read in part)" for an excerpt
    (its lines about the question), " (cut to fit the model's context)" for a source cut
    short; "" when it read all of it."""
    if sent is None:
        return ""
    return " (cut to fit the model's context)" if truncated else " (read in part)"


def excerpt(text: str, query: str, width: int = SNIPPET) -> str:
    """About ``width`` characters of a passage on one line that show the query's words: from
    the sentence that holds most of them (a passage's first lines are often a heading or a
    table's header), or, when that sentence is too long to show them from its start, from a
    little before the first of them."""
    terms = {stem(w) for w in query_terms(query)}
    found = [(w.start, stem(w.text)) for w in words(text)]
    found = [(at, t) for at, t in found if t in terms]
    best, start, end = 0, 0, len(text)
    for s, e in sentence_spans(text):
        count = len({t for at, t in found if s <= at < e})
        if count > best:
            best, start, end = count, s, e
    whole = " ".join(text.split())
    if len(whole) <= width:
        return whole
    first = next((at for at, _ in found if start <= at < end), None)
    if first is not None and _shown_length(text, start, first) > width * 2 // 3:
        start = _word_start(text, max(start, first - width // 4))  # the word itself in view
    before = " ".join(text[:start].split())
    offset = min(len(before) + bool(before), len(whole) - width)  # near the end: what precedes
    cut = whole[offset : offset + width]
    if offset:  # from a word's start
        cut = "…" + (cut if whole[offset - 1] == " " else cut.split(" ", 1)[-1])
    if offset + width < len(whole):
        cut = cut.rsplit(" ", 1)[0] + "…"
    return cut


def _shown_length(text: str, start: int, end: int) -> int:
    """How long ``text[start:end]`` is once its white space is collapsed."""
    return len(" ".join(text[start:end].split()))


def _word_start(text: str, at: int) -> int:
    """``at``, moved back to the start of the word it falls in."""
    while at > 0 and not text[at - 1].isspace():
        at -= 1
    return at


def gist(text: str) -> str:
    """The first ``GIST_WORDS`` words of a passage on one line: its first thirty
    space-separated words, or in a script written without spaces thirty of ``words``."""
    first = " ".join(text.split()[:GIST_WORDS])
    if not unspaced(first):
        return first
    found = words(first)
    return first if len(found) <= GIST_WORDS else first[: found[GIST_WORDS - 1].end]
