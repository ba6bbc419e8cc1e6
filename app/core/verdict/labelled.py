"""The roles a passage gives names in brackets, and a claim that gives a role to another name.

A contract names its parties once with their roles: "Lease agreement between Ann Smith
(landlord) and Bob Jones (tenant)", "Acme Ltd (the “Seller”)". Both names and both roles are
in the passage, so a claim that swaps them ("Bob Jones is the landlord") holds every word it
needs, and its parse has no arc to compare with a bracket's. So the bracketed roles are read as
pairs (``labels``: a name, then its role in brackets), a claim's own pairs as it writes them
("Bob Jones is the landlord", "the landlord is Bob Jones", "Bob Jones (landlord)"), and a
claim that gives a role the passage gives to another name, and never to this one, is flagged
(``role_elsewhere``, the ``labelled_role`` check). A name is compared by its last word
by its telling words ("Jones",
"Mr Jones", "Bob Jones"; not "Ltd" or "Dr").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.core.verdict.lang.en import BEING, PARTY_FORMS
from app.core.verdict.rows import Finding

_NAME = r"((?:[A-Z][\w'’.&-]*\s+){0,3}[A-Z][\w'’.&-]*)"
_ROLE = r"([A-Za-z][a-z-]+(?:\s[a-z-]+)?)"
_QUOTED = r"[\"“”'‘’]?"
# "Ann Smith (landlord)", "Acme Ltd (the “Seller”)", "Bob Jones (hereinafter the "Tenant")":
# a bracket after a space (not a call, "Math.floor(max)"), holding a role in lower case, or
# capitalised when quoted or after "the" (a bare capitalised word is another name for the
# thing: "the Episcopal (Anglican) church", "Sint Nicolaas (Sinterklaas)")
_BRACKETED = re.compile(
    _NAME
    + r",?\s+\((?:hereinafter\s+)?(?:"
    + r"(?:the|a|an)\s+"
    + _QUOTED
    + _ROLE
    + _QUOTED
    + r"|[\"“‘']"
    + _ROLE
    + r"[\"”’']"
    + r"|([a-z][a-z-]+(?:\s[a-z-]+)?)"
    + r")\)"
)
_BEING = "|".join(sorted((w.replace("_", " ") for w in BEING), key=len, reverse=True))
# "Bob Jones is the landlord", "Bob Jones acts as the tenant"
_NAME_IS = re.compile(
    _NAME + rf"\s+(?:{_BEING})\s+(?:the|a|an)\s+" + _QUOTED + _ROLE + r"\b(?!['’]s\b)"
)
# "The landlord is Bob Jones"
_IS_NAME = re.compile(
    r"\b[Tt]he\s+" + _QUOTED + _ROLE + _QUOTED + rf"\s+(?:{_BEING})\s+" + _NAME + r"\b"
)


@dataclass(frozen=True)
class Label:
    """A name and a role: "Ann Smith" (its telling words, lower case) and "landlord"."""

    written: str
    words: frozenset[str]
    role: str  # one word, or two for a claim's ("managing agent", or "tenant who")

    def same_party(self, other: Label) -> bool:
        return bool(self.words & other.words)

    def has_role(self, role: str) -> bool:
        """Whether this claim's role is ``role``: its first word or its two words."""
        return role in (self.role, self.role.split()[0])


def _label(name: str, role: str) -> Label | None:
    words = frozenset(w.strip(".,’'").lower() for w in name.split()) - PARTY_FORMS
    role = role.lower()
    if not words or role.split()[0] in ("see", "as", "i", "ii", "and", "or"):
        return None
    return Label(" ".join(name.split()), words, role)


def labels(text: str) -> frozenset[Label]:
    """The (name, role) pairs a text gives in brackets: "Ann Smith (landlord)"."""
    found = (_label(m[1], m[2] or m[3] or m[4]) for m in _BRACKETED.finditer(text))
    return frozenset(x for x in found if x is not None)


def said_roles(text: str) -> frozenset[Label]:
    """The (name, role) pairs a sentence states: "Bob Jones is the landlord", "the landlord
    is Bob Jones", "Bob Jones (landlord)"."""
    found: Iterable[Label | None] = [
        *(_label(m[1], m[2]) for m in _NAME_IS.finditer(text)),
        *(_label(m[2], m[1]) for m in _IS_NAME.finditer(text)),
    ]
    return frozenset(x for x in found if x is not None) | labels(text)


def role_elsewhere(claim: frozenset[Label], passage: frozenset[Label]) -> Finding | None:
    """A role the claim gives a name, which the passage's brackets give another name and
    never this one (both names being ones the passage gives a role in brackets)."""
    for said in sorted(claim, key=lambda x: (x.written, x.role)):
        holders = [x for x in passage if said.has_role(x.role)]
        own = [x for x in passage if x.same_party(said)]
        if holders and own and not any(x.same_party(said) for x in holders):
            return Finding(
                "labelled_role",
                f"the passage names {', '.join(sorted(x.written for x in holders))} the "
                f"{holders[0].role}, and {own[0].written} the "
                f"{', '.join(sorted({x.role for x in own}))}",
            )
    return None
