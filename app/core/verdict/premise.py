"""Whether a claim takes the question's premise for what its passages say.

A fluent answer to a question whose premise is false ("Who did Abercrombie replace as captain
in chief?", where the passage has a commander in chief) often reuses the passage's words and
the question's together, so it covers its passage well and contradicts none of its facts. Two
checks of the table (``checks.py``) read it against the question:

- ``unattested``: a name the question asks about, which the claim gives a word in one of its
  slots and no sentence of its passages does, though one names it (``attest.unattested``);
  or a name the claim gives the question's own verb, which no passage sentence uses ("Where
  was the symposium held?" answered "held at the laboratory", a place the passage gives for
  something else);
- ``echoed``: a word of the question the claim repeats that none of the passages it cites
  holds;
- ``counted_other``: a count the claim gives for the named group a "how many" question asks
  about, which its passage gives another named group ("How many French Catholics died?"
  answered with the passage's count of Protestants killed);
- ``undated``: a year the claim gives for the event a "when" question asks about, where the
  sources state that event without a year and give the claim's year to something else ("In
  what year did the Reformation arrive in France?" answered "it reached France in 1523",
  where the Reformation "finally arrived" undated and 1523 is a translation's year);
- ``premise_roles`` (an answer check): the question's own statement, read as arcs, which the
  sentences backing the answer contradict: a name in a slot filled otherwise ("Invitations to
  address the House of Commons are determined by whom?", where invitations to address
  Parliament are), or two names exchanged ("Did Charles swear fealty to Rollo?", where Rollo
  swore it to Charles).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

from app.core.text import stem
from app.core.verdict.attest import contradictions, unattested
from app.core.verdict.checks import Finding, on
from app.core.verdict.dated import EVENT_YEAR
from app.core.verdict.facts import Facts, facts
from app.core.verdict.lang import en
from app.core.verdict.relations import MAX_HOPS, OBJ, Arc, Reading, read_text
from app.core.verdict.terms import lemma_terms

_WORDS = re.compile(r"[^\W\d_]{2,}")
_LIGHT = frozenset(stem(w) for w in en.LIGHT_VERBS)
# The slots a question's wh-word asks a verb to fill ("where": its place, "who": an argument).
_ASKED_SLOTS = {
    "place": frozenset({"prep:in", "prep:at", "prep:on", "prep:into", "prep:near"}),
    "person": frozenset({"subj", "obj", "prep:by", "prep:to", "prep:with"}),
}


def premise(
    claim: Reading, pool: Sequence[Reading], asked: set[str], wants: str = ""
) -> Finding | None:
    """A name of the question (``asked``: its terms) which the claim gives a word in one of
    its slots and no sentence of ``pool`` does, though one names it ("When did Kublai move the
    capital?" answered "Kublai moved it in 1271" where the passage says he proclaimed it); or
    a name the claim gives the question's own verb, in the slot the question asks for
    (``wants``: a place for "where", a person for "who"), where no sentence of ``pool`` uses
    the verb ("How long did the fighting last?" answered "it lasted six years in North
    America" puts no name in the slot asked for)."""
    if not (on("unattested") and asked):
        return None
    for arc in unattested(claim, pool):
        if arc.dep.kind != "name":
            continue
        # a light verb says little itself: what the question makes of it is in its noun or
        # particle ("gains made by the British Empire", "who makes up the Bureau"), which the
        # passage may say with another verb ("gained", "consists of"); not when it makes a
        # name something ("Edward was made earl by Harthacnut"): then it says who did what
        if arc.head.kind == "verb" and arc.head.keys & _LIGHT and not _makes_into(arc, claim):
            continue
        if (
            arc.head.kind == "verb"
            and arc.role in _ASKED_SLOTS.get(wants, ())
            and arc.head.keys & asked
            and not any(s.find(arc.head) for s in pool)
            and any(s.find(arc.dep) for s in pool)
        ):
            # the question's own verb, which no passage sentence uses, given a name the
            # passage gives for something else ("Where was the symposium held?": "held at the
            # National Physical Laboratory", where the laboratory is where a member worked)
            said = f"'{arc.head.text}' of {arc.dep.text}"
            return Finding("unattested", f"the passage never says {said}, as the question assumes")
        if not lemma_terms(arc.dep.text) <= asked:
            continue
        # a noun's modifiers are worded freely ("the monasteries in this Norman renaissance"
        # for "monasteries taking part in this renaissance of Norman art"), and so is a verb
        # the passage says as a noun ("when the Parliament officially opened" for "upon its
        # official opening"): a sentence that holds both words relates them
        if any(_related_loosely(arc, s) or _reached(arc, s) for s in pool):
            continue
        # a word neither the question nor a passage says ("ended up in New Orleans" for
        # "went to") is the claim's paraphrase, not a premise: the relation checks read it
        if not arc.head.keys & asked and not any(s.find(arc.head) for s in pool):
            continue
        # a name the passage never writes (initials of "members of the Scottish Parliament",
        # another spelling) is not one it gives elsewhere: other checks judge it
        if any(s.find(arc.dep) for s in pool):
            said = f"'{arc.head.text}' of {arc.dep.text}"
            return Finding("unattested", f"the passage never says {said}, as the question assumes")
    return None


def _makes_into(arc: Arc, claim: Reading) -> bool:
    """Whether ``arc``'s verb takes a name and a word for what the name is made ("made
    Edward earl", "made him king"): both objects of the verb, one a name and one not."""
    objects = [a.dep for a in claim.arcs if a.head.i == arc.head.i and a.role == OBJ]
    return any(d.kind == "name" for d in objects) and any(d.kind != "name" for d in objects)


def echoed(plain: str, asked: set[str], sourced: frozenset[str]) -> Finding | None:
    """A word of the question (``asked``: its terms) that the claim ``plain`` repeats and its
    sources (``sourced``: the terms of those it cites) do not hold ("Abercrombie replaced
    Loudoun as captain in chief", where the passage has a commander in chief): the word comes
    from the question's premise, not the files. Its verb is left out: a question's verb frames
    what it asks ("How long did the fighting last?"), and an answer that says it in the
    question's words ("it lasted six years") is not therefore wrong. So do its adverbs ("How
    is imperialism usually administered?": "it is usually carried out through …") and the
    noun of the time it asks for ("By which year …?": "by that year"). Names (initials, other
    spellings) are left to the name checks, figures and words of two letters ("FY") to the
    figure checks, and so is a scale word after a figure: "about $5,466 million" for "(in USD
    millions)" is the passage's 5,466,312 in thousands, written as the question asks. "Year
    over year" frames a comparison, as a verb does, which a table's columns of periods make
    without the words; and a word said to be the question's ("the books in question") is
    the question's referent, not a claim that the files call it so."""
    if not (on("echoed") and asked):
        return None
    from app.core.verdict.parse import parse

    plain = en.PERIOD_OVER_PERIOD.sub(" ", plain)
    doc = parse(plain)
    words = (
        [
            t.text
            for t in doc
            if t.pos_ not in ("VERB", "AUX", "ADV")
            and t.lower_ not in en.TIME_NOUNS
            and not (t.lower_ in en.SCALE_WORDS and t.i > 0 and t.nbor(-1).like_num)
            and doc[t.i + 1 : t.i + 3].text.lower() != "in question"  # "the books in
        ]  # question are …": the question's word for its referent, named as such
        if doc is not None
        else [w for w in _WORDS.findall(plain) if w.lower() not in en.SCALE_WORDS]
    )
    common = lemma_terms(" ".join(w for w in words if w[:1].islower() and _WORDS.fullmatch(w)))
    found = sorted(t for t in (common & asked) - sourced if len(t) > 2)
    if not found:
        return None
    word = _spelled(plain, found[0])
    return Finding("echoed", f"'{word}' comes from the question: none of the passages says it")


def _spelled(text: str, key: str) -> str:
    """The word of ``text`` whose term is ``key`` ("worst" for "bad"), as written; the key
    itself when none is."""
    from app.core.verdict.parse import parse

    doc = parse(text)
    for t in doc if doc is not None else ():
        if t.is_alpha and lemma_terms(t.lemma_) & {key}:
            return t.text
    return key


def asked_event(question: str) -> tuple[str, frozenset[str]] | None:
    """The event a question asks about: its main verb (stemmed from its lemma) and the terms of
    that verb's subject ("In what year did the Protestant Reformation arrive in France?":
    ("arriv", {"protest", "reform"})). The small parser misreads the inverted order (it takes
    "arrive" for a noun), so the words after the auxiliary are parsed as a statement with the
    auxiliary put back after each of their first few words ("the Protestant Reformation did
    arrive in France"), until one reads as a subject and its verb. None without a parser,
    without an auxiliary, or when the main verb is a copula ("When was the Ming dynasty in
    power?": no event of its own)."""
    from app.core.verdict.parse import parse

    words = question.rstrip(" ?").split()
    at = next((i for i, w in enumerate(words) if w.lower() in _INVERTED), None)
    if at is None:
        return None
    aux, rest = words[at].lower(), words[at + 1 :]
    for k in range(1, min(len(rest), _SUBJECT_WORDS + 1)):
        doc = parse(" ".join([*rest[:k], aux, *rest[k:]]))
        root = next((t for t in doc if t.dep_ == "ROOT"), None) if doc is not None else None
        if root is None or root.pos_ != "VERB" or root.lemma_.lower() in en.COPULAS:
            continue
        subject = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
        if not subject or not any(c.dep_ in ("aux", "auxpass") for c in root.children):
            continue
        terms = frozenset(lemma_terms(" ".join(w.text for c in subject for w in c.subtree)))
        return (stem(root.lemma_.lower()), terms) if terms else None
    return None


_SUBJECT_WORDS = 6  # the longest subject looked for between a question's auxiliary and verb
# The auxiliaries a question inverts ("In what year did the Reformation arrive …?").
_INVERTED = frozenset({"did", "does", "do", "was", "were", "is", "are", "has", "have", "had"})


def _related_loosely(arc: Arc, s: Reading) -> bool:
    """Whether sentence ``s`` holds both words of ``arc`` where the head is a noun, in the
    claim or in ``s`` (a nominalised verb): no arc of a noun is worded one way only."""
    found = s.find(arc.head)
    if not found or not s.find(arc.dep):
        return False
    return arc.head.kind == "noun" or all(w.kind == "noun" for w in found)


def _reached(arc: Arc, s: Reading) -> bool:
    """Whether sentence ``s`` relates ``arc``'s words through a verb the claim leaves out, one
    word more than an arc reaches: "barred from New France" is the passage's "barred from
    settling in New France" (``MAX_HOPS`` + 1 tokens along the tree, a verb among them)."""
    verbs = {w.i for w in s.words if w.kind == "verb"}
    return any(
        s.hops(h.i, d.i) <= MAX_HOPS + 1 and verbs & s.between(h.i, d.i)
        for h in s.find(arc.head)
        for d in s.find(arc.dep)
    )


def _main_verb(plain: str) -> str | None:
    """The term of the claim's main verb (its root, when a verb), or None."""
    from app.core.verdict.parse import parse

    doc = parse(plain)
    root = next((t for t in doc if t.dep_ == "ROOT"), None) if doc is not None else None
    if root is None or root.pos_ != "VERB":
        return None
    return next(iter(lemma_terms(root.lemma_)), None)


@functools.lru_cache(maxsize=2048)
def _said(sentence: str) -> tuple[frozenset[str], frozenset[str]]:
    """A source sentence's terms and figures, read once for every claim sentence of the answer."""
    return frozenset(lemma_terms(sentence)), facts(sentence).numbers


def undated(
    event: tuple[str, frozenset[str]] | None, plain: str, sentences: Sequence[str]
) -> Finding | None:
    """A year the claim ``plain`` gives for the asked ``event`` (``asked_event``: the claim
    names its subject), where the source ``sentences`` state the event (its verb with a word of
    its subject) only without any year, and give the claim's year only in sentences without
    the event's verb: the date of something else, answering a question whose premise the
    sources do not bear out. A claim whose own main verb is another one, which a sentence
    giving its year says too, tells of that sentence's event, with its year ("In October 1753
    Dinwiddie ordered Washington to warn the French", beside "Washington reached Fort Le
    Boeuf on December 12")."""
    if event is None or not on("undated"):
        return None
    years = {n for n in facts(plain).numbers if EVENT_YEAR.fullmatch(n)}
    if not years:
        return None
    verb, subject = event
    if not subject & lemma_terms(plain):
        return None  # a year of something else the answer tells of, not of the asked event
    read = [_said(s) for s in sentences]
    stated = [numbers for terms, numbers in read if verb in terms and subject & terms]
    dated = [terms for terms, numbers in read if years & numbers]
    if not stated or any(EVENT_YEAR.fullmatch(n) for numbers in stated for n in numbers):
        return None  # the sources date the event: the slot checks compare the years
    if not dated or any(verb in terms for terms in dated):
        return None
    own = _main_verb(plain)
    if own is not None and own != verb and any(own in terms for terms in dated):
        return None
    year = sorted(years)[0]
    return Finding(
        "undated",
        f"the passages tell of the event the question asks about without a year, and give "
        f"{year} for something else",
    )


def counted_other(group: frozenset[str], claim: Facts, span: Facts) -> Finding | None:
    """A figure of ``claim`` that its backing ``span`` counts in another named group than the
    one a "how many" question asks about (``group``: ``question.counted_group``), where the
    claim names neither: the answer gives the count of one group for another ("between 2,000
    and 3,000 were killed" for "How many French Catholics died?", where the passage counts
    "2,000 and 3,000 Protestants")."""
    if not group or not on("counted_other"):
        return None
    for number, word in sorted(span.counted):
        if number not in claim.numbers or word in group or word in claim.stems:
            continue
        if word in span.names and not group & claim.stems:
            return Finding(
                "counted_other",
                f"the passage counts {number} {span.spelled.get(word, word)}, not the "
                "question's group",
            )
    counting = {number for number, _ in (*claim.counted, *span.counted)}
    bare = (claim.numbers & span.numbers) - counting  # "5,000 to 30,000 were killed"
    if bare and not group & (claim.stems | span.stems):
        return Finding(
            "counted_other",
            "neither the answer nor the passage says whom the count is of: not the "
            "question's group",
        )
    return None


# What the question's own statement may be found to say otherwise than its backing sentences:
# a name in another's slot, or two exchanged (two "role" findings; one alone is left out: "is
# the US concerned about …" against "of concern to the US" is one thing said two ways).
_PREMISE_FINDINGS = frozenset({"swap", "filler"})


def roles_belied(question: str, backing: Sequence[str]) -> str | None:
    """How the sentences backing the answer (``backing``) contradict what the question itself
    states of its words, read as a claim ("Invitations to address the House of Commons are
    determined by whom?" against "Invitations to address Parliament in this manner are
    determined by the Presiding Officer": the passage gives Parliament the object of
    'address'), if they do: a name in another's slot, or two exchanged. The wh-word is no
    word, so what the question asks for is never found otherwise. Only a question states a
    premise (a note's title, "BasedPyright Will Use Pyright Config", names a topic); its
    figures and the periods a filing's question names ("FY2017") are left to the figure
    checks, which read tables."""
    if not (on("premise_roles") and question.rstrip().endswith("?") and backing):
        return None
    asked = read_text(question)
    pool = [r for r in (read_text(t) for t in backing) if r is not None]
    if asked is None or not pool:
        return None
    asked = replace(asked, arcs=[a for a in asked.arcs if not _digits(a.dep.text)])
    found = contradictions(asked, pool)
    roles = [f for f in found if f.check == "role"]
    found = [f for f in found if f.check in _PREMISE_FINDINGS] + (roles if len(roles) > 1 else [])
    return found[0].reason if found else None


def _digits(text: str) -> bool:
    return any(c.isdigit() for c in text)
