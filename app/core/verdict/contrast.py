"""Whether a claim gives one side of a contrast what its passage says of the other.

A passage sentence that sets two things side by side ("circuit switching is characterized by a
fee per unit of connection time, even when no data is transferred, while packet switching may
be characterized by a fee per unit of information transmitted") lends a fluent answer the
words of both sides. "Packet-switched services may charge a fee per unit of information
transmitted, even when no data is transferred" covers the sentence well and contradicts none
of its figures or names, yet says of packet switching what the passage says of circuit
switching.

``crossed`` reads the passage sentence's two sides: a clause opened by a contrasting
subordinator ("whereas", or "while" after a comma: ``lang.en.CONTRAST_MARKS``; "fell straight
down while the ship moved" is a time), and the clause it is set against, each with its
subject. A claim that names one side's subject and not the other's, but holds words that only
the other side says, has crossed the sides. A claim that sets things against each other itself
("unlike", "rather than": ``lang.en.CONTRASTING``) may hold both sides' words; when it does so
with "whereas" or ", while", each of its own sides is read as a claim of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from app.core.text import stem
from app.core.verdict.lang import en
from app.core.verdict.terms import claim_terms, lemma_terms

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_WORD = re.compile(r"[^\W_]+")
CROSSED_WORDS = 2  # words only the other side says that a claim must hold to have crossed


def crossed(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the subject the claim names, the subject whose words it took) when ``claim`` gives
    one side of a contrast in ``sentence`` what the sentence says of the other; else None.
    A claim that sets two things against each other itself with "whereas" or ", while" is
    read side by side: each of its sides may have crossed ("circuit switching is billed per
    unit of information, whereas packet switching is billed per unit of connection time")."""
    from app.core.verdict.parse import parse

    if not any(w in sentence.lower() for w in en.CONTRAST_MARKS):
        return None
    parts = [claim]
    if en.CONTRASTING.search(claim):
        mine = parse(claim)
        parts = [
            " ".join(t.text for t in words)
            for sides in (_contrasts(mine) if mine is not None else ())
            for words, _ in sides
        ]
    doc = parse(sentence) if parts else None
    if doc is None:
        return None
    for sides in _contrasts(doc):
        for part in parts:
            found = _crossed_sides(lemma_terms(part), sides, _stems(part))
            if found is not None:
                return found
    return None


def _contrasts(doc: Doc) -> Iterator[tuple[tuple[list[Token], Token], ...]]:
    """The two sides of each contrast ``doc`` draws with ", while" or "whereas": the clause
    the subordinator opens and the rest of the sentence, each with its subject."""
    for mark in doc:
        if mark.lower_ not in en.CONTRAST_MARKS or mark.dep_ != "mark":
            continue
        if mark.lower_ == "while" and (mark.i == 0 or doc[mark.i - 1].text != ","):
            continue  # "fall straight down while the ship moved": a time, not a contrast
        inner = mark.head
        outer = inner.head
        if inner.dep_ != "advcl" or outer.i == inner.i:
            continue
        outer_subject, inner_subject = _subject(outer), _subject(inner)
        if outer_subject is None or inner_subject is None:
            continue
        inside = {t.i for t in inner.subtree}
        yield (
            ([t for t in doc if t.i not in inside], outer_subject),  # the rest of it
            (list(inner.subtree), inner_subject),
        )


def _subject(verb: Token) -> Token | None:
    """The subject of ``verb``'s clause, if it has one of its own."""
    return next((c for c in verb.children if c.dep_ in _SUBJECTS), None)


def _crossed_sides(
    said: set[str], sides: tuple[tuple[list[Token], Token], ...], stems: str = ""
) -> tuple[str, str] | None:
    """(this side's subject, the other's) where ``said`` (the claim's terms) names this side's
    subject and not the other's, but holds words only the other side says. A word of the
    other side's subject that the claim says outside its phrase ("per unit of information,
    such as packets" beside "packet switching") does not name it: ``stems`` (the claim's
    words, ``_stems``) must hold the phrase."""
    terms = [claim_terms(" ".join(t.text for t in words)) for words, _ in sides]
    named = [claim_terms(" ".join(t.text for t in subject.subtree)) for _, subject in sides]
    # the words that tell the subjects apart ("circuit", "packet"; not the shared "switching"),
    # which the other side does not mention at all
    own = [named[0] - terms[1], named[1] - terms[0]]
    for this, other in ((0, 1), (1, 0)):
        if not (said & own[this]):
            continue
        if said & own[other] and (not stems or _stems(_phrase(sides[other][1])) in stems):
            continue
        only_other = terms[other] - terms[this] - own[other]
        if len(said & only_other) >= CROSSED_WORDS:
            return _phrase(sides[this][1]), _phrase(sides[other][1])
    return None


def _stems(text: str) -> str:
    """``text``'s words as stems, space-separated and space-framed, to find a phrase in."""
    return " " + " ".join(stem(w) for w in _WORD.findall(text.lower())) + " "


def _phrase(subject: Token) -> str:
    """A subject's words as written ("packet switching"), a sentence's capital taken off a
    word that is no name ("Circuit switching is …")."""
    words = list(subject.subtree)
    first = words[0].text
    if words[0].is_sent_start and words[0].tag_ not in ("NNP", "NNPS"):
        first = first.lower()
    return " ".join([first, *(t.text for t in words[1:])])
