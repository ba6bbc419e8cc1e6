"""Declines: an answer that says the files do not answer the question is "no answer", grey.

Models decline in many words: "The sources do not contain the answer.", "I couldn't find a
description of the normal British defence arrangements in these passages.", "Pedro Menéndez de
Avilés's year of birth isn't given anywhere in the provided passages.", "None of the provided
documents contain JPMorgan's segment results." Each is a *gap statement*: a negated clause
about the sources (their noun is its subject, or a place it points into: "in the sources"; or
"they" after the sentence named them), or about the answerer ("I can't determine…"). A word
that says the thing is missing negates as a 'not' does ("the documents are silent on…", "it is
unclear from the sources…", "I'm unable to answer…"). A negated passive whose agent goes
unnamed is about the sources when only documents do its verb ("the designer is not
mentioned") or when what is not given is information ("no details are given about…"); such a
statement declines only as the answer's first sentence, and is a side note elsewhere. Its
*topic* is what it says is missing (the rest of the clause). The parse finds both; without a
parser, a few patterns do.

A gap statement declines the question when it is the answer's first sentence, when its topic is
left open ("The sources don't say."), when it names what is missing by the question's own
question word alone ("The sources do not say when." to "When did…?"), when its topic holds a
good part of the question's own words, or when it says that therefore a thing the question asks
about cannot be worked out ("The inventory figures aren't in these excerpts, so the DPO can't be
finished"). Any other gap statement is a side note ("The sources do
not say when." to "How tall…?") and is simply not a claim. A declining answer is "no answer
in your files" whatever its other sentences say: what the sources do cover, with a citation,
is not an answer to the question asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.text import strip_citations
from app.core.verdict.lang import en
from app.core.verdict.terms import claim_terms

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

TOPIC_SHARE = 1 / 3  # of the question's content words, in a gap statement's topic


@dataclass(frozen=True)
class Gap:
    """A sentence's statement that the sources (or the answerer) lack something."""

    topic: frozenset[str]  # the content terms of what is said to be missing (may be empty)
    # the question words naming what is missing ("do not say when": {"when"}; may be empty)
    wh: frozenset[str] = frozenset()
    # what the sentence says therefore cannot be worked out ("…, so the DPO can't be
    # finished": {"dpo"}; may be empty)
    unworkable: frozenset[str] = frozenset()
    # the sources go unnamed ("the designer is not mentioned"): a side note unless it opens
    # the answer
    unnamed: bool = False


def gap(sentence: str) -> Gap | None:
    """The gap statement in ``sentence``, if it makes one."""
    from app.core.verdict.parse import parse

    plain = strip_citations(sentence)
    doc = parse(plain)
    found = _gap_in(doc) if doc is not None else None
    return found or _gap_by_pattern(plain)  # the patterns also catch what the parse misreads


def declines(question: str, sentence: str, found: Gap, *, first: bool) -> bool:
    """Whether gap statement ``found`` in ``sentence`` declines ``question`` (see module)."""
    if first:
        return True
    if found.unnamed:
        return False
    if not found.topic:  # open, or named by a question word alone: declines the question asked so
        return not found.wh or bool(found.wh & _words(question))
    asked = claim_terms(question)
    if not asked or found.unworkable & asked:  # "so the DPO can't be finished": the one asked
        return True
    return len(found.topic & asked) >= TOPIC_SHARE * len(asked)


def _gap_in(doc: Doc) -> Gap | None:
    for t in doc:
        if not _negative(t):
            continue
        named = _about_sources(t)
        if not (named or _unsaid(t)):
            continue
        wh = frozenset(w.lower_ for w in t.subtree if w.lower_ in en.WH_WORDS)
        return Gap(_topic(t), wh, _unworkable(doc), unnamed=not named)
    return None


def _unworkable(doc: Doc) -> frozenset[str]:
    """The terms of what a clause says cannot be worked out ("so the DPO can't be finished",
    "the ratio cannot be calculated"): the passive subject or the object of a verb of working
    out (``en.WORKING_OUT``) under a negated "can"."""
    out: set[str] = set()
    for t in doc:
        if t.lemma_.lower() not in en.WORKING_OUT or not any(c.dep_ == "neg" for c in t.children):
            continue
        if not any(c.dep_ == "aux" and c.lemma_.lower() in ("can", "could") for c in t.children):
            continue
        for c in t.children:
            if c.dep_ in ("nsubjpass", "dobj"):
                out |= claim_terms(" ".join(w.text for w in c.subtree))
    return frozenset(out)


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+", text.lower()))


def _negative(t: Token) -> bool:
    """A clause negated at ``t``: a 'not' or 'never' on it, a negative quantifier as its
    subject or object ("none of…", "nothing in…", "no mention…"), or a word that says the
    thing is missing ("are silent on", "is unknown from", "I'm unable to")."""
    for c in t.children:
        low = c.lower_
        if c.dep_ == "neg" or (c.dep_ == "advmod" and low in ("never", "nowhere")):
            return True
        if c.dep_ == "acomp" and low in en.LACKING:
            return True
        if c.dep_ in ("nsubj", "nsubjpass", "attr", "dobj") and (
            low in en.NEGATIVE_PRONOUNS or any(g.lower_ == "no" for g in c.children)
        ):
            return True
    return False


def _about_sources(t: Token) -> bool:
    """Whether the clause at ``t`` is about the sources or the answerer: its subject is one
    (or points into them: "none of the passages", "nothing in the sources"), or the clause
    does ("in the provided passages", "by the sources", "anywhere in the excerpts")."""
    for c in t.children:
        if c.dep_ in ("nsubj", "nsubjpass", "expl"):
            if _is_source(c) or c.lower_ in en.ANSWERER or _points_into_sources(c):
                return True
            if c.lower_ == "they" and any(w.pos_ == "NOUN" and _is_source(w) for w in c.doc[: c.i]):
                return True  # "the passages only cover its hours; they don't say who…"
        elif (c.dep_ in ("prep", "agent") and _holds_source(c)) or (
            c.dep_ in ("advmod", "attr", "dobj", "acomp") and _points_into_sources(c)
        ):
            return True
        elif c.dep_ == "attr" and c.lower_ in en.NEGATIVE_PRONOUNS and _sources_within(c):
            return True  # "There's nothing about X or his mother in your files": the parse
            # hangs "in your files" on the last thing named
    return False


def _sources_within(t: Token) -> bool:
    """Whether a phrase under ``t`` places it in the sources ("in your files")."""
    return any(g.dep_ == "prep" and _holds_source(g) for g in t.subtree)


def _unsaid(t: Token) -> bool:
    """A negated passive clause whose unnamed agent can only be the sources: a verb only
    documents do ("the designer of the building is not mentioned"), or a verb of giving whose
    subject is information ("no details are given about…"). Not one that says where ("is
    not mentioned in the 1890 report": a claim about that report)."""
    if not any(c.dep_ == "auxpass" for c in t.children) or any(
        c.dep_ == "agent" or (c.dep_ == "prep" and c.lower_ in ("in", "within", "on"))
        for c in t.children
    ):
        return False
    lemma = t.lemma_.lower()
    if lemma in en.DOCUMENT_VERBS:
        return True
    return lemma in en.GIVING_VERBS and any(
        c.dep_ == "nsubjpass" and c.lemma_.lower() in en.INFORMATION_NOUNS for c in t.children
    )


def _holds_source(prep: Token) -> bool:
    """A preposition whose object is the sources ("in the passages", "according to them")."""
    return any(
        _is_source(p) or (p.dep_ == "prep" and any(_is_source(q) for q in p.children))
        for p in prep.children
    )


def _points_into_sources(t: Token) -> bool:
    return any(g.dep_ == "prep" and _holds_source(g) for g in t.children)


def _is_source(t: Token) -> bool:
    """The passages given ("the sources", "these excerpts", "the provided files"), not files
    of some kind ("data files have no delimiters", "log files", "hidden files are not
    uploaded", "files deleted locally")."""
    if not (t.lemma_.lower() in en.SOURCE_NOUNS or t.lower_ in en.SOURCE_NOUNS):
        return False
    return not any(
        c.dep_ in ("compound", "nmod")
        or (c.dep_ in ("amod", "acl") and c.lower_ not in en.SOURCE_QUALIFIERS)
        for c in t.children
    )


def _topic(t: Token) -> frozenset[str]:
    """The content terms of the clause at ``t``, without the sources and the answerer."""
    words = []
    for tok in t.subtree:
        if _is_source(tok) or tok.lower_ in en.ANSWERER or tok.lower_ in en.EMPTY_TOPIC:
            continue
        if tok.i == t.i and tok.pos_ in ("VERB", "AUX"):
            continue  # "mention", "say", "give": the saying, not the said
        if tok.dep_ in ("aux", "auxpass", "neg"):
            continue  # "I ca n't complete it": the modal and its 'not' ("ca") say nothing
        words.append(tok.text)
    return frozenset(claim_terms(" ".join(words)))


_PATTERN = re.compile(
    r"\b(?:the|these|those|provided|given|available|any) "
    r"(?:sources?|passages?|documents?|texts?|context|excerpts?|files?)\b.{0,40}?"
    r"\b(?:do|does|did|can|could)(?: not|n't)\b"
    r"|\b(?:none|nothing|neither) (?:of|in)\b.{0,30}\b(?:sources?|passages?|documents?|excerpts?)"
    r"|\bnot (?:given|mentioned|stated|provided|included|found)\b.{0,40}"
    r"\b(?:sources?|passages?|documents?|excerpts?)\b"
    r"|^i (?:cannot|can't|could not|couldn't|am unable to|don't|do not) "
    r"(?:find|see|answer|determine|tell|say|compute|calculate)\b"
    r"|^(?:there is|there's|there are) no\b",
    re.IGNORECASE,
)


def _gap_by_pattern(text: str) -> Gap | None:
    """The commonest wordings (all there is without a parser), with an open topic."""
    return Gap(frozenset()) if _PATTERN.search(text.strip()) else None
