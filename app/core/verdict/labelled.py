"""The roles a passage gives names in brackets or labels, and a claim giving one to another name.

A contract names its parties once with their roles: "Lease agreement between Ann Smith
(landlord) and Bob Jones (tenant)", "Acme Ltd (the “Seller”)". Both names and both roles are
in the passage, so a claim that swaps them ("Bob Jones is the landlord") holds every word it
needs, and its parse has no arc to compare with a bracket's. So the bracketed roles are read as
pairs (``labels``: a name, then its role in brackets), a claim's own pairs as it writes them
("Bob Jones is the landlord", "the landlord is Bob Jones", "Bob Jones (landlord)"), and a
claim that gives a role the passage gives to another name, and never to this one, is flagged
(``role_elsewhere``, the ``labelled_role`` check). A report or a form gives roles as labels
("Tutor: Mr Hughes."), read as brackets are. Names are compared by their telling words
("Mr Jones" is Bob Jones, "Mary Jones" is not; "Ltd" and "Dr" tell no party apart:
``en.PARTY_FORMS``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.core.verdict.lang.en import BEING, PARTY_FORMS
from app.core.verdict.rows import Finding

_NAME = r"((?:[A-Z][\w'’.&-]*\s+){0,3}[A-Z][\w'’.&-]*)"
_ROLE = r"([A-Za-z][a-z-]+(?:\s(?!(?:and|or)\b)[a-z-]+)?)"  # "landlord", "managing agent"
_QUOTED = r"[\"“”'‘’]?"
# "Ann Smith (landlord)", "Acme Ltd (the “Seller”)", "Bob Jones (hereinafter referred to as
# the "Tenant")", "(as Tenant)": a bracket after a space (not a call, "Math.floor(max)"),
# holding a role in lower case, or capitalised when quoted, after "the" or "as", or bare
# where the text writes it in lower case too (else another name for the thing: "the
# Episcopal (Anglican) church", "Sint Nicolaas (Sinterklaas)")
_BRACKETED = re.compile(
    _NAME
    + r",?\s+\((?:hereinafter\s+)?(?P<as>(?:referred\s+to\s+|called\s+)?as\s+)?(?:"
    + r"(?:the|a|an)\s+"
    + _QUOTED
    + _ROLE
    + _QUOTED
    + r"|[\"“‘']"
    + _ROLE
    + r"[\"”’']"
    + r"|([a-z][a-z-]+(?:\s[a-z-]+)?)"
    + r"|([A-Z][a-z-]+)"
    + r")\)"
)
_BEING = "|".join(sorted((w.replace("_", " ") for w in BEING), key=len, reverse=True))
# "Bob Jones is the landlord", "Bob Jones acts as the tenant": the name not the end of a list
# or of a phrase ("Ann Smith and Bob Jones are the landlord and tenant"), the role the one
# (not "a company", not "the landlord's tenant", not "the landlord and tenant")
_NAME_IS = re.compile(
    r"(?<![\w'’.&-])(?<![a-z] )"
    + _NAME
    + rf"\s+(?:{_BEING})\s+the\s+"
    + _QUOTED
    + _ROLE
    + r"\b(?!['’]s\b)(?!,?\s+(?:and|or)\b)"
)
# "The landlord is Bob Jones", opening a sentence or clause (not "… to the landlord is Bob
# Jones's to pay")
_IS_NAME = re.compile(
    r"(?:^|(?<=[.;:,]\s))(?:[Tt]he|[Hh]er|[Hh]is|[Tt]heir|[Ii]ts|[Mm]y|[Yy]our|[Oo]ur)\s+"
    + _QUOTED
    + _ROLE
    + _QUOTED
    + rf"\s+(?:{_BEING})\s+"
    + _NAME
    + r"\b(?!['’]s\b)"
)
# "Tutor: Mr Hughes.", "Chair: Priya Shah": a role as a label, a name alone after it (not
# "Action: Marcus to fix the bug", where the name opens a sentence)
_LABEL_LINE = re.compile(
    r"(?:^|(?<=[.;!?]\s)|(?<=\n))([A-Z][a-z]+(?:\s[a-z]+)?):\s+" + _NAME + r"(?=\s*(?:[.;,\n]|$))"
)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+")
_IN_BRACKETS = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class Label:
    """A name and a role: "Ann Smith" (its telling words, lower case) and "landlord"."""

    written: str
    words: frozenset[str]
    role: str  # one word, or two ("managing agent")
    bracketed: bool = True  # given in brackets, else said in a sentence ("was elected chair")

    def within(self, other: Label) -> bool:
        """Whether this (a claim's) name is ``other``'s: all its telling words are ("Mr
        Jones" is Bob Jones; "Mary Jones" is not)."""
        return self.words <= other.words

    def has_role(self, role: str) -> bool:
        """Whether this claim's role is ``role``: its first word or its two words."""
        return role in (self.role, self.role.split()[0])


def _label(name: str, role: str) -> Label | None:
    words = frozenset(w.strip(".,’'").lower() for w in name.split()) - PARTY_FORMS
    role = role.lower()
    if not words or role.split()[0] in ("see", "as", "i", "ii", "and", "or"):
        return None
    return Label(" ".join(name.split()).rstrip(".,"), words, role)


def labels(text: str) -> frozenset[Label]:
    """The (name, role) pairs a text gives in brackets ("Ann Smith (landlord)"), and those of
    its sentences that say one of those names with one of those roles outside brackets ("Bob
    Jones was elected chair": the role a minute's list gave another)."""
    # a bare capitalised word is a role where the text also writes it in lower case ("Ann
    # Smith (Landlord) … the landlord shall"), else another name ("Episcopal (Anglican)")
    lower = set(re.findall(r"\b[a-z][a-z-]+\b", text))
    found = [
        *(
            _label(m[1], m[3] or m[4] or m[5] or m[6])
            for m in _BRACKETED.finditer(text)
            if not m[6] or m["as"] or m[6].lower() in lower
        ),
        *(_label(m[2], m[1]) for m in _LABEL_LINE.finditer(text)),
    ]
    given = frozenset(x for x in found if x is not None)
    if not given:
        return given
    roles = {x.role for x in given}
    said: set[Label] = set()
    for sentence in _SENTENCE.split(text):
        words = set(re.findall(r"[\w'’-]+", _IN_BRACKETS.sub(" ", sentence).lower()))
        said.update(
            Label(x.written, x.words, role, bracketed=False)
            for x in given
            if x.words <= words
            for role in roles
            if set(role.split()) <= words
        )
    return given | said


def said_roles(text: str) -> frozenset[Label]:
    """The (name, role) pairs a sentence states: "Bob Jones is the landlord", "the landlord
    is Bob Jones", "Bob Jones (landlord)"."""
    found: Iterable[Label | None] = [
        *(_label(m[1], m[2]) for m in _NAME_IS.finditer(text)),
        *(_label(m[2], m[1]) for m in _IS_NAME.finditer(text)),
    ]
    bracketed = {x for x in labels(text) if x.bracketed}
    return frozenset(x for x in found if x is not None) | bracketed


def role_elsewhere(
    claim: frozenset[Label], passage: frozenset[Label], words: str = ""
) -> Finding | None:
    """A role the claim gives a name, which the passage's brackets or labels give another
    name, and never this one in brackets or in a sentence (the name being one the passage
    gives a role, or one its ``words`` name: "Year 8 report for Maya Okafor … Tutor: Mr
    Hughes" against "Her tutor is Mr Okafor")."""
    named = set(words.split())
    for said in sorted(claim, key=lambda x: (x.written, x.role)):
        holders = [x for x in passage if x.bracketed and said.has_role(x.role)]
        own = [x for x in passage if said.within(x)]
        if not holders or any(said.within(x) and said.has_role(x.role) for x in own):
            continue
        theirs = sorted({x.role for x in own if x.bracketed})
        if own and theirs:
            return Finding(
                "labelled_role",
                f"the passage names {', '.join(sorted(x.written for x in holders))} the "
                f"{holders[0].role}, and {own[0].written} the {', '.join(theirs)}",
            )
        if not own and said.words <= named:
            return Finding(
                "labelled_role",
                f"the passage names {', '.join(sorted(x.written for x in holders))} the "
                f"{holders[0].role}, not {said.written}",
            )
    return None
