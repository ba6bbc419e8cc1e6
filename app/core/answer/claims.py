"""Sentence support marks: align each answer sentence to the passage span that supports it.

A span is one passage sentence or two adjacent ones. Coverage is lexical: the share of the
sentence's content words (lowercased, stopwords removed, light suffix stemming), weighted by
rarity across the sources, that the span contains; the sources a sentence cites are tried
first. Coverage alone cannot see a swapped number, name or negation, so the facts the sentence
commits to (``facts.py``) are compared with the span as well: a sentence is supported only by
a span that covers it and contradicts none of its facts, else it is unsupported with the
reason ("the passage does not say 1898 (it has 1889)"). Sentences about the sources themselves
("The sources do not say.") and sentences with no content words are ``kind="meta"``: they are
not claims, so they are never flagged as unsupported and carry no spans.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from app.core.answer.facts import Facts, conflicts, facts, merge
from app.core.text import citations, claim_terms, sentence_spans, strip_citations

SUPPORT_THRESHOLD = 0.5
_EXTRA_SPAN_GAIN = 0.15  # a second span (another cited source) must add this much coverage
_PAIR_MARGIN = 0.15  # two adjacent passage sentences must cover this much more than one
_RIVAL_SHARE = 0.85  # a span backing a fact the closest span contradicts covers this much of it

_META = re.compile(
    r"\b(?:the|these|provided|given|available|any|none of the) (?:sources?|passages?|documents?"
    r"|texts?|context|excerpts?)\b.{0,40}?\b(?:do|does|did|can)(?: not|n't)\b"
    r"|\b(?:not|never) (?:mentioned|stated|given|provided|covered|found|specified|discussed"
    r"|included|addressed|described)\b.{0,30}\b(?:sources?|passages?|documents?|context)\b"
    r"|\bno (?:information|mention|details?|data|answer)\b.{0,60}\b(?:sources?|passages?"
    r"|documents?|context)\b"
    r"|^i (?:cannot|can't|could not|couldn't|am unable to|was unable to|do not|don't) "
    r"(?:find|answer|determine|tell|know|say)\b"
    r"|^(?:there is|there's) no (?:information|mention)\b"
    r"|^none of the (?:sources|passages|documents)\b",
    re.IGNORECASE,
)
_MIXED = re.compile(r"\b(?:but|however|although|though|yet)\b", re.IGNORECASE)


class Passage(Protocol):
    """Anything numbered with a passage text (``answering.Source`` is one)."""

    n: int
    text: str


@dataclass
class SentenceMark:
    """One answer sentence: its offsets in the answer and the passage spans that support it."""

    text: str
    start: int
    end: int
    supported: bool
    sources: list[int]  # the source numbers the sentence cites (valid ones)
    support_spans: list[tuple[int, int, int]] = field(default_factory=list)  # (n, start, end)
    score: float = 0.0
    kind: str = "claim"  # "claim" or "meta"
    reason: str = ""
    bad_citations: list[int] = field(default_factory=list)

    @property
    def backed_by(self) -> list[int]:
        """The sources whose spans back the sentence, in order."""
        return sorted({n for n, _, _ in self.support_spans})

    @property
    def miscited(self) -> bool:
        """Backed, but by a source it does not cite: its citation points at the wrong passage."""
        return self.supported and bool(self.sources) and not set(self.backed_by) & set(self.sources)


def is_meta(sentence: str) -> bool:
    """A statement about the sources or the answerer rather than a claim about the world."""
    text = strip_citations(sentence).strip()
    if text.endswith(":"):
        return True
    return bool(_META.search(text)) and not _MIXED.search(text)


class _Span:
    """A passage sentence (or two adjacent ones) with its terms; its facts are read on demand."""

    titled: frozenset[str] = frozenset()  # words of the source's file name and heading

    def __init__(
        self, n: int, text: str, start: int, end: int, terms: set[str], context: int, single: bool
    ) -> None:
        self.n, self.start, self.end, self.terms, self.single = n, start, end, terms, single
        self._text = text
        self._context = context  # where the two sentences before the span start

    @functools.cached_property
    def facts(self) -> Facts:
        return facts(self._text[self.start : self.end])

    @functools.cached_property
    def context(self) -> Facts:
        """The two sentences before the span: a pronoun in the span may name what they name."""
        return facts(self._text[self._context : self.start])


def _source_spans(sources: Sequence[Passage]) -> dict[int, list[_Span]]:
    """Single passage sentences and adjacent pairs, each with its terms."""
    out: dict[int, list[_Span]] = {}
    for src in sources:
        text = src.text
        bounds = sentence_spans(text)
        sents = [(s, e, claim_terms(text[s:e])) for s, e in bounds]
        ctx = [bounds[max(0, i - 2)][0] for i in range(len(bounds))]
        spans = [_Span(src.n, text, s, e, t, ctx[i], True) for i, (s, e, t) in enumerate(sents)]
        spans += [
            _Span(src.n, text, a[0], b[1], a[2] | b[2], ctx[i], False)
            for i, (a, b) in enumerate(itertools.pairwise(sents))
        ]
        label = getattr(src, "label", "")  # a Source's file name and heading
        if label:
            titled = facts(label).stems
            for sp in spans:
                sp.titled = titled
        out[src.n] = spans
    return out


def _idf(spans: dict[int, list[_Span]]) -> dict[str, float]:
    singles = [sp for group in spans.values() for sp in group if sp.single]
    df: dict[str, int] = {}
    for sp in singles:
        for t in sp.terms:
            df[t] = df.get(t, 0) + 1
    total = len(singles) + 1
    return {t: math.log(1 + total / (1 + d)) for t, d in df.items()}


def mark_sentences(
    answer: str, sources: Sequence[Passage], *, threshold: float = SUPPORT_THRESHOLD
) -> list[SentenceMark]:
    """Split ``answer`` into sentences and find each one's best supporting passage span."""
    by_n = {s.n: s for s in sources}
    spans = _source_spans(sources)
    idf = _idf(spans)
    unseen = math.log(1 + sum(sp.single for v in spans.values() for sp in v) + 1)
    marks = []
    for start, end in sentence_spans(answer, lines=True):
        text = answer[start:end]
        cited = citations(text)
        valid = [n for n in cited if n in by_n]
        bad = [n for n in cited if n not in by_n]
        mark = SentenceMark(text, start, end, supported=True, sources=valid, bad_citations=bad)
        plain = strip_citations(text)
        terms = claim_terms(plain)
        if not bad and (not terms or is_meta(text)):
            mark.kind, mark.reason = "meta", "a statement about the sources, not a claim"
        else:
            weights = {t: idf.get(t, unseen) for t in terms}
            _align(mark, _Claim(weights, facts(plain)), spans, threshold)
        if bad:
            mark.supported = False
            have = f"sources 1–{len(sources)}" if sources else "no sources"
            mark.reason = f"cites [{', '.join(map(str, bad))}], but there are only {have}"
        marks.append(mark)
    return marks


@dataclass
class _Claim:
    weights: dict[str, float]
    facts: Facts


def _coverage(weights: dict[str, float], terms: set[str]) -> float:
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in terms) / total if total else 0.0


def _best(
    weights: dict[str, float], candidates: list[_Span], have: set[str], threshold: float
) -> _Span | None:
    """The span adding most coverage to ``have``: one sentence unless a pair clearly wins."""
    base = _coverage(weights, have)
    top: dict[bool, tuple[float, _Span] | None] = {True: None, False: None}
    for sp in candidates:
        gain = round(_coverage(weights, sp.terms | have) - base, 9)
        best = top[sp.single]
        shorter = best is not None and sp.end - sp.start < best[1].end - best[1].start
        if gain > 0 and (best is None or gain > best[0] or (gain == best[0] and shorter)):
            top[sp.single] = (gain, sp)
    single, pair = top[True], top[False]
    if pair is None:
        return single[1] if single else None
    if single is None:
        return pair[1]
    wins = pair[0] >= single[0] + _PAIR_MARGIN or base + single[0] < threshold <= base + pair[0]
    return pair[1] if wins else single[1]


def _problems(claim: _Claim, chosen: list[_Span]) -> list[str]:
    """What the chosen spans (together) fail to back among the claim's facts."""
    if not chosen:
        return []
    titled = frozenset().union(*(sp.titled for sp in chosen))
    return conflicts(
        claim.facts,
        merge([sp.facts for sp in chosen]),
        merge([sp.context for sp in chosen]),
        titled,
    )


def _consistent(claim: _Claim, pool: list[_Span], threshold: float) -> list[_Span]:
    """The best-covering span of ``pool`` that covers enough and contradicts no fact."""
    ranked = sorted(
        (sp for sp in pool if _coverage(claim.weights, sp.terms) >= threshold),
        key=lambda sp: (-_coverage(claim.weights, sp.terms), not sp.single, sp.end - sp.start),
    )
    return next(([sp] for sp in ranked if not _problems(claim, [sp])), [])


def _choose(
    claim: _Claim, pool: list[_Span], extra: bool, threshold: float, floor: float = 0.0
) -> tuple[list[_Span], list[str]]:
    """Spans of ``pool`` that back the claim, or the closest ones and what they fail to back.

    When the closest spans contradict a fact, another span may back the claim instead, but
    only one that covers it nearly as well (``_RIVAL_SHARE``, and at least ``floor``): a span
    that merely shares the sentence's common words is no witness.
    """
    chosen = _pick(claim.weights, pool, extra, threshold)
    score = _score(claim.weights, chosen)
    problems = _problems(claim, chosen)
    if score >= threshold and not problems:
        return chosen, []
    other = _consistent(claim, pool, max(threshold, floor, _RIVAL_SHARE * score))
    return (other, []) if other else (chosen, problems)


def _align(
    mark: SentenceMark, claim: _Claim, spans: dict[int, list[_Span]], threshold: float
) -> None:
    cited = [n for n in mark.sources if n in spans]
    pool = [sp for n in (cited or list(spans)) for sp in spans[n]]
    chosen, problems = _choose(claim, pool, len(cited) > 1, threshold)
    score = _score(claim.weights, chosen)
    if cited and (score < threshold or problems):  # the claim may be in a source it did not cite
        rest = [sp for n in spans if n not in cited for sp in spans[n]]
        floor = _RIVAL_SHARE * score if problems else 0.0
        others, trouble = _choose(claim, rest, False, threshold, floor)
        if _score(claim.weights, others) >= max(threshold, floor) and not trouble:
            chosen, problems, score = others, [], _score(claim.weights, others)
    mark.score = round(score, 4)
    mark.support_spans = [(sp.n, sp.start, sp.end) for sp in chosen]
    mark.supported = score >= threshold and not problems
    found = sorted({sp.n for sp in chosen})
    if not mark.supported:
        mark.support_spans = []
        if problems:
            where = f"[{', '.join(map(str, found))}]"
            mark.reason = f"{'; '.join(problems)}; closest: {where}"
            mark.reason = mark.reason[0].upper() + mark.reason[1:]
        elif not cited:
            mark.reason = "no source contains this"
        elif len(cited) == 1:
            mark.reason = f"the cited source [{cited[0]}] does not contain this"
        else:
            mark.reason = "the cited sources do not contain this"
    elif cited and not set(found) & set(cited):
        mark.reason = f"found in [{', '.join(map(str, found))}], not in the cited source"
    else:
        mark.reason = f"matches [{', '.join(map(str, found))}]"


def _pick(
    weights: dict[str, float], pool: list[_Span], extra: bool, threshold: float
) -> list[_Span]:
    first = _best(weights, pool, set(), threshold)
    if first is None:
        return []
    chosen = [first]
    if extra:
        rest = [sp for sp in pool if sp.n != first.n]
        second = _best(weights, rest, first.terms, threshold)
        gain = _coverage(weights, first.terms | (second.terms if second else set()))
        if second is not None and gain - _coverage(weights, first.terms) >= _EXTRA_SPAN_GAIN:
            chosen.append(second)
    return chosen


def _score(weights: dict[str, float], chosen: list[_Span]) -> float:
    have = set().union(*(sp.terms for sp in chosen)) if chosen else set()
    return _coverage(weights, have)


def to_json_sentences(marks: Sequence[SentenceMark]) -> list[dict[str, object]]:
    """The ``"sentences"`` list of ``ask --json``."""
    return [
        {
            "text": m.text,
            "start": m.start,
            "end": m.end,
            "supported": m.supported,
            "sources": m.sources,
            "spans": [{"n": n, "start": s, "end": e} for n, s, e in m.support_spans],
            "score": m.score,
            "kind": m.kind,
            "reason": m.reason,
            "bad_citations": m.bad_citations,
        }
        for m in marks
    ]
