"""The order two things came in, as a sentence states it, and a claim that reverses it.

A fluent answer may keep both things a passage orders and swap them: "Norman architecture
followed the Early Gothic", where the passage says the Norman period *precedes* the Early
Gothic. Every word of the claim is in the passage, its figures and names too, and a verb worded
otherwise ("followed" for "succeeds") is no role the arcs can compare. So each sentence is read
for the pairs (earlier, later) its order words state:

- an order verb and its object: "A precedes B", "A predates B" put A first; "A follows B",
  "A succeeds B" put B first (``en.ORDER_BEFORE``, ``en.ORDER_AFTER``);
- "before" or "after" on a verb: "A came before B", "A was built after B".

A verb with no subject of its own takes the subject of the verb it is conjoined to ("the period
… succeeds that of the Anglo-Saxon and precedes the Early Gothic"). Each side is known by the
content words of its phrase (stemmed), and two sides are one thing when they share a name, or,
where one of them has none, a name or a noun ("the Anglo-Saxon style", "that of the
Anglo-Saxon"). A claim's pair is contradicted by a passage sentence that
orders the same two things the other way round.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.text import stem
from app.core.verdict.lang import en

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "attr"})


@dataclass(frozen=True)
class Side:
    """One of the two things ordered: its phrase as written, and the stems of its names and of
    its other nouns."""

    text: str
    names: frozenset[str]
    nouns: frozenset[str]

    def same(self, other: Side) -> bool:
        if self.names and other.names:
            return bool(self.names & other.names)
        return bool((self.names | self.nouns) & (other.names | other.nouns))


def pairs(doc: Doc) -> list[tuple[Side, Side]]:
    """The (earlier, later) pairs the sentence ``doc`` states."""
    out = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        subject = _subject(verb)
        if subject is None:
            continue
        lemma = verb.lemma_.lower()
        for obj in (c for c in verb.children if c.dep_ in _OBJECTS):
            if lemma in en.ORDER_BEFORE:
                out.append((_side(subject), _side(obj)))
            elif lemma in en.ORDER_AFTER:
                out.append((_side(obj), _side(subject)))
        for prep in (c for c in verb.children if c.dep_ == "prep"):
            word = prep.lower_
            for obj in (c for c in prep.children if c.dep_ == "pobj"):
                if word == "before":
                    out.append((_side(subject), _side(obj)))
                elif word == "after":
                    out.append((_side(obj), _side(subject)))
    return [(a, b) for a, b in out if (a.names or a.nouns) and (b.names or b.nouns)]


def reversed_order(claim: Doc, passages: Sequence[Doc]) -> tuple[Side, Side] | None:
    """The claim's (earlier, later) pair that a passage sentence gives the other way round
    (and never the claim's way), or None."""
    stated = [p for doc in passages for p in pairs(doc)]
    for first, then in pairs(claim):
        agrees = any(first.same(a) and then.same(b) for a, b in stated)
        if agrees:
            continue
        if any(first.same(b) and then.same(a) for a, b in stated):
            return first, then
    return None


def _subject(verb: Token) -> Token | None:
    """The verb's subject, or the subject of the verb it is conjoined to."""
    for t in (verb, verb.head) if verb.dep_ == "conj" else (verb,):
        found = next((c for c in t.children if c.dep_ in _SUBJECTS), None)
        if found is not None:
            return found
    return None


def _side(head: Token) -> Side:
    """The phrase headed by ``head`` (without its clauses), as a side of a pair."""
    words = list(_phrase(head))
    names = frozenset(stem(t.lower_) for t in words if t.pos_ == "PROPN")
    nouns = frozenset(stem(t.lemma_.lower()) for t in words if t.pos_ == "NOUN")
    start, end = min(t.i for t in words), max(t.i for t in words)
    return Side(head.doc[start : end + 1].text, names, nouns)


def _phrase(head: Token) -> Iterator[Token]:
    yield head
    for c in head.children:
        if c.dep_ in ("relcl", "acl", "advcl", "conj", "cc", "punct", "appos"):
            continue
        yield from _phrase(c)
