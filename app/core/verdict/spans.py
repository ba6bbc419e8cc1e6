"""The passage side of the sentence checks: each source's sentences and adjacent pairs.

A claim is aligned to a span, one passage sentence or two adjacent ones (``marks``). Each span
holds its words (lemmas, with the passage's Markdown heading, under which every sentence of a
note is said), the facts it states (read on demand), what its whole passage is about (the
names it repeats, the years of its title line), and whether it may witness at all: lines of a
table of contents or an index, and sentences addressed to the model, back no claim. The
rarity of words among the sentences (``rarity``) weighs a claim's words.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from app.core.text import STOPWORDS, sentence_spans, toc_lines
from app.core.verdict.checks import on
from app.core.verdict.dated import EVENT_YEAR
from app.core.verdict.facts import Facts, facts
from app.core.verdict.figures import stated_scale
from app.core.verdict.kinds import is_planted
from app.core.verdict.names import with_peoples
from app.core.verdict.terms import lemma_terms
from app.core.verdict.tokens import tokens


class Passage(Protocol):
    """Anything numbered with a passage text (``answering.Source`` is one); both are only
    read, so a frozen dataclass is one too."""

    @property
    def n(self) -> int: ...

    @property
    def text(self) -> str: ...


class Span:
    """A passage sentence (or two adjacent ones) with its terms; its facts are read on demand."""

    titled: frozenset[str] = frozenset()  # words of the source's file name and heading
    toc = False  # lines of a table of contents or an index: no witness
    planted = False  # addressed to the model: no witness
    # the scale the passage states for its bare figures ("in thousands"), or else the one
    # its heading path states (a table part under its statement's caption)
    scale: int | None = None

    def __init__(
        self, n: int, text: str, start: int, end: int, terms: set[str], context: int, single: bool
    ) -> None:
        self.n, self.start, self.end, self.terms, self.single = n, start, end, terms, single
        self._text = text
        self._context = context  # where the two sentences before the span start

    @property
    def witness(self) -> bool:
        """Whether the span can back a claim at all."""
        return not (self.toc or self.planted) or not on("witness")

    @property
    def passage(self) -> str:
        """The whole text of the span's passage."""
        return self._text

    @property
    def whole(self) -> Facts:
        """The facts of the span's whole passage: what a reason may say the passage lacks."""
        return passage_facts(self._text)

    @property
    def text(self) -> str:
        """The span's own text."""
        return self._text[self.start : self.end]

    @functools.cached_property
    def facts(self) -> Facts:
        return facts(self._text[self.start : self.end])

    @functools.cached_property
    def context(self) -> Facts:
        """The two sentences before the span: a pronoun in the span may name what they name."""
        return facts(self._text[self._context : self.start])


@functools.lru_cache(maxsize=64)
def passage_facts(text: str) -> Facts:
    return facts(text)


def source_spans(sources: Sequence[Passage]) -> dict[int, list[Span]]:
    """Single passage sentences and adjacent pairs, each with its terms (and its Markdown
    heading's)."""
    out: dict[int, list[Span]] = {}
    for src in sources:
        text = src.text
        bounds = sentence_spans(text)
        sents = [(s, e, with_peoples(lemma_terms(text[s:e]))) for s, e in bounds]
        ctx = [bounds[max(0, i - 2)][0] for i in range(len(bounds))]
        spans = [Span(src.n, text, s, e, t, ctx[i], True) for i, (s, e, t) in enumerate(sents)]
        spans += [
            Span(src.n, text, a[0], b[1], a[2] | b[2], ctx[i], False)
            for i, (a, b) in enumerate(itertools.pairwise(sents))
        ]
        listing = toc_lines(text)
        planted = [(s, e) for s, e in bounds if is_planted(text[s:e])]
        label = getattr(src, "label", "")  # a Source's file name and heading
        said = facts(label) if label else None
        titled = (said.stems | said.numbers if said else frozenset()) | _topic(text, bounds)
        # The dates of its file name and heading path (a table part's column heads, "2017 |
        # 2016"; a note's "## As of March 2024"): every sentence or row of it is said under them.
        heading = _heading_terms(text) | _dates(said)
        scale = stated_scale(text) or (stated_scale(label) if label else None)
        for sp in spans:
            sp.scale = scale
            sp.terms = sp.terms | heading
            sp.titled = titled
            sp.toc = _mostly_within(sp.start, sp.end, listing)
            sp.planted = any(s < sp.end and sp.start < e for s, e in planted)
        out[src.n] = spans
    return out


_ACRONYM = re.compile(r"\b[A-Z]{2,6}\b|\b(?:[A-Z]\.){2,}")  # "EU", "MSP", "U.N."


def by_initials(
    spans: dict[int, list[Span]], claim: str, runs: tuple[tuple[str, frozenset[str]], ...]
) -> dict[int, list[Span]]:
    """``spans``, where a name is written by its initials in one of claim and span and in full
    in the other, with both writings among the span's terms: "the United Nations" is covered by
    a span saying "U.N.", "EU" by one saying "European Union" (its passage's ``Facts.runs``
    give a name's initials, as the name check reads them; ``runs`` are the claim's own, from
    its facts). Unchanged, the same mapping."""
    names = {letters: stems for letters, stems in runs if letters not in STOPWORDS}
    # initials that spell a common word ("US", "IT") are no term: read in capitals only
    worded = {_capitals(letters): st for letters, st in runs if letters in STOPWORDS}
    short = {m.group().replace(".", "").lower() for m in _ACRONYM.finditer(claim)}
    if not names and not short and not worded:
        return spans
    out: dict[int, list[Span]] = {}
    changed = False
    for n, group in spans.items():
        out[n] = []
        for sp in group:
            extra = set().union(*(st for letters, st in names.items() if letters in sp.terms))
            extra |= set().union(*(st for caps, st in worded.items() if caps.search(sp.text)))
            for letters, stems in passage_facts(sp.passage).runs if short - sp.terms else ():
                if letters in short and stems <= sp.terms:  # the span says the name in full
                    extra.add(letters)
            if extra - sp.terms:
                sp = copy.copy(sp)
                sp.terms = sp.terms | extra
                changed = True
            out[n].append(sp)
    return out if changed else spans


def _capitals(letters: str) -> re.Pattern[str]:
    """Initials written in capitals, with or without stops: "US", "U.S."."""
    dotted = r"\.?".join(re.escape(c) for c in letters.upper())
    return re.compile(rf"(?<![\w.]){dotted}\.?(?!\w)")


_YEAR = re.compile(rf"\b(?:{EVENT_YEAR.pattern})\b")
_TITLE_CHARS = 120


def _topic(text: str, bounds: list[tuple[int, int]]) -> frozenset[str]:
    """What a passage is about, which any of its sentences may leave unsaid: the names it
    repeats or opens with ("TypeScript" in a note about it, "CVS Health" in its filing), and
    the years of its first line (a table's columns, a report's period)."""
    counts = Counter(t.stem for t in tokens(text) if t.word[:1].isupper() and t.content)
    out = {k for k, c in counts.items() if c >= 2}
    first = _first_line(text)
    if len(first) <= _TITLE_CHARS and not first.rstrip().endswith((".", "!", "?")):
        out |= set(facts(first).names) | set(_YEAR.findall(first))  # a title or a table head
    return frozenset(out)


def _dates(said: Facts | None) -> frozenset[str]:
    """The terms of the dates and figures a source's file name and heading give."""
    return frozenset(lemma_terms(" ".join(sorted(said.numbers)))) if said else frozenset()


def _heading_terms(text: str) -> frozenset[str]:
    """The words of a passage's Markdown heading ("# Check Ubuntu Version"), which each of
    its sentences is said under: "Run `lsb_release -r`" is how to check the Ubuntu version."""
    first = _first_line(text)
    if not first.startswith("#") or len(first) > _TITLE_CHARS:
        return frozenset()
    return frozenset(lemma_terms(first.lstrip("#")))


def _first_line(text: str) -> str:
    """A passage's first line: its title or its table's head, when it has one."""
    return text.lstrip().split("\n", 1)[0]


def _mostly_within(start: int, end: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether at least half of ``start:end`` lies inside ``ranges``."""
    inside = sum(max(0, min(end, e) - max(start, s)) for s, e in ranges)
    return inside * 2 >= max(1, end - start)


def rarity(spans: dict[int, list[Span]]) -> dict[str, float]:
    """Each word's rarity among the passages' sentences: what a claim's words weigh."""
    singles = [sp for group in spans.values() for sp in group if sp.single]
    df: dict[str, int] = {}
    for sp in singles:
        for t in sp.terms:
            df[t] = df.get(t, 0) + 1
    total = len(singles) + 1
    return {t: math.log(1 + total / (1 + d)) for t, d in df.items()}
