"""The order two things came in, as a sentence states it, and a claim that reverses it.

A fluent answer may keep both things a passage orders and swap them: "Norman architecture
followed the Early Gothic", where the passage says the Norman period *precedes* the Early
Gothic. Every word of the claim is in the passage, its figures and names too, and a verb worded
otherwise ("followed" for "succeeds") is no role the arcs can compare. So each sentence is read
for the pairs (earlier, later) its order words state:

- an order verb and its object: "A precedes B", "A predates B" put A first; "A follows B",
  "A succeeds B" put B first (``en.ORDER_BEFORE``, ``en.ORDER_AFTER``);
- "before" or "after" on a verb: "A came before B", "A was built after B", and on a clause:
  "A was completed before B was dedicated".

A verb with no subject of its own takes the subject of the verb it is conjoined to ("the period
… succeeds that of the Anglo-Saxon and precedes the Early Gothic"); a relative pronoun stands
for the noun its clause describes ("the tower, which was completed before …").

Each side is known by the content words of its phrase (stemmed), and two sides are one thing
when they share a name, or, where one of them has none, a name or a noun ("the Anglo-Saxon
style", "that of the Anglo-Saxon"). A claim's pair is contradicted by a passage sentence that
orders the same two things the other way round.

A passage may order two things only by their dates: "The Eiffel Tower was completed in 1889",
"The Statue of Liberty was dedicated in 1886". Each sentence is also read for the year it
gives a thing (a year in an "in", "on" or "during" phrase of the thing's verb), so "the tower
was completed before the Statue of Liberty was dedicated" is reversed by the two years. A thing
dated twice takes the year of the claim's own verb ("completed"), else none; two things dated
the same year are in no order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.text import stem
from app.core.verdict.dated import EVENT_YEAR
from app.core.verdict.lang import en

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "attr"})
_DATING = frozenset({"in", "on", "during"})


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


@dataclass(frozen=True)
class Dated:
    """A thing a sentence gives a year, and the verb that year is for ("completed")."""

    side: Side
    verb: str
    year: int


@dataclass(frozen=True)
class Reversal:
    """A claim's pair (``first`` said to come before ``then``) that the passage reverses; with
    the years, when the passage orders them only by their dates."""

    first: Side
    then: Side
    years: tuple[int, int] | None = None


def pairs(doc: Doc) -> list[tuple[Side, Side]]:
    """The (earlier, later) pairs the sentence ``doc`` states."""
    return [(a, b) for a, b, _, _ in _ordered(doc)]


def _ordered(doc: Doc) -> list[tuple[Side, Side, str, str]]:
    """The (earlier, later) pairs of ``doc``, each with the verbs of its two sides (the
    clause's verb for a side that has one, else the ordering verb)."""
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
                out.append((_side(subject), _side(obj), lemma, lemma))
            elif lemma in en.ORDER_AFTER:
                out.append((_side(obj), _side(subject), lemma, lemma))
        for prep in (c for c in verb.children if c.dep_ == "prep"):
            word = prep.lower_
            for obj in (c for c in prep.children if c.dep_ == "pobj"):
                if word == "before":
                    out.append((_side(subject), _side(obj), lemma, lemma))
                elif word == "after":
                    out.append((_side(obj), _side(subject), lemma, lemma))
        for clause in (c for c in verb.children if c.dep_ == "advcl"):
            word = next((m.lower_ for m in clause.children if m.dep_ == "mark"), "")
            other = _subject(clause)
            if other is None or word not in ("before", "after"):
                continue
            own = clause.lemma_.lower()
            if word == "before":
                out.append((_side(subject), _side(other), lemma, own))
            else:
                out.append((_side(other), _side(subject), own, lemma))
    return [o for o in out if (o[0].names or o[0].nouns) and (o[1].names or o[1].nouns)]


def dated(doc: Doc) -> list[Dated]:
    """The things ``doc`` gives a year, each with its verb: "The Statue of Liberty … was
    dedicated in 1886" dates the statue's dedication to 1886."""
    out = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX") or (subject := _subject(verb)) is None:
            continue
        for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in _DATING):
            years = {int(t.text) for t in prep.subtree if EVENT_YEAR.fullmatch(t.text)}
            if len(years) == 1:
                side = _side(subject)
                if side.names or side.nouns:
                    out.append(Dated(side, verb.lemma_.lower(), years.pop()))
    return out


def reversed_order(claim: Doc, passages: Sequence[Doc]) -> Reversal | None:
    """The claim's (earlier, later) pair that a passage sentence gives the other way round
    (and never the claim's way), or that the passage dates the other way round, or None."""
    stated = [p for doc in passages for p in pairs(doc)]
    years = [d for doc in passages for d in dated(doc)]
    for first, then, first_verb, then_verb in _ordered(claim):
        if any(first.same(a) and then.same(b) for a, b in stated):
            continue
        if any(first.same(b) and then.same(a) for a, b in stated):
            return Reversal(first, then)
        if first.same(then):
            continue  # one thing's two events: "the Normans arrived before they conquered"
        was, later = _year(first, first_verb, years), _year(then, then_verb, years)
        if was is not None and later is not None and was > later:
            return Reversal(first, then, (was, later))
    return None


def _year(side: Side, verb: str, years: Sequence[Dated]) -> int | None:
    """The one year the passage gives ``side``: for the claim's verb if it dates that, else
    the only year it gives the side at all."""
    mine = [d for d in years if d.side.same(side)]
    for pool in ([d for d in mine if d.verb == verb], mine):
        found = {d.year for d in pool}
        if found:
            return found.pop() if len(found) == 1 else None
    return None


def _subject(verb: Token) -> Token | None:
    """The verb's subject, or the subject of the verb it is conjoined to; for a relative
    pronoun, the noun its clause describes."""
    for t in (verb, verb.head) if verb.dep_ == "conj" else (verb,):
        found = next((c for c in t.children if c.dep_ in _SUBJECTS), None)
        if found is not None:
            if found.tag_ in ("WDT", "WP") and t.dep_ == "relcl":
                return t.head
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
