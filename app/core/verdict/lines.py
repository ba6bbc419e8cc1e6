"""A claim that rests on two lines of one kind and takes one line's figure or name into the other.

Lists, statements, bookings and prescriptions set like things on lines of the same shape:
"Take metformin 500 mg twice daily. Take atorvastatin 20 mg once daily at night.", "Opening
balance: £2,410.55. Closing balance: £1,876.20.", "Basic: $10 per month. Premium: $15 per
month." A fluent wrong answer recombines them: "Take metformin 20 mg twice daily", "Your
opening balance was £1,876.20", "The Premium plan is $10 per month". The claim is aligned to
the two lines together (``choice``), which hold every word and figure it has, and a figure's
own relation ("20 mg") reads the same on either line; what gives it away is that one line
lends the claim only figures or names, in place of figures or names of the other's own that
the claim leaves out (``lent_across``, the ``line_lent`` check). Lines are short: a prose
sentence says several things, and two of them that share a name are no list.

A sentence that goes on about the other's thing ("The company paid a dividend. The total was
$2.1 billion.") shares no word with it and is no line of its kind; a claim that takes a
figure from each line ("revenue was $5.2 billion and operating income $1.1 billion") takes
both, and a line that lends a word of the claim's too ("…in 2000 it employed 500 people")
is read with the other as one account.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.core.verdict.facts import Facts
from app.core.verdict.rows import Finding
from app.core.verdict.spans import Span

_QUOTED = 60  # characters of a line quoted in the reason
# a line of a list, a statement or a booking says one thing: this many content terms at most
# ("Take metformin 500 mg twice daily." has six); prose sentences that share a name ("The
# Reformation arrived in France…", "Lefevre published his French translation…") are no lines
_LINE_TERMS = 8


@dataclass(frozen=True)
class _Lines:
    """Two adjacent passage sentences: the one the claim rests on and the one lending to it."""

    line: Span
    neighbour: Span
    lent: frozenset[str]  # the figures and names the neighbour lends, as the claim has them


def lent_across(
    stated: Facts, weights: dict[str, float], pair: Span, singles: Iterable[Span]
) -> Finding | None:
    """The ``line_lent`` finding for a claim (its facts and weighted terms) aligned to
    ``pair``, given the passage's single sentences, or None."""
    halves = [
        sp
        for sp in singles
        if sp.single and sp.n == pair.n and pair.start <= sp.start and sp.end <= pair.end
    ]
    if pair.single or len(halves) != 2 or any(len(sp.terms) > _LINE_TERMS for sp in halves):
        return None
    first, second = halves
    found = _lent(second, first, stated, weights) or _lent(first, second, stated, weights)
    if found is None:
        return None
    in_order = [t for t in stated.spelled if t in found.lent] + sorted(
        found.lent - stated.spelled.keys()
    )
    figures = ", ".join(stated.spelled.get(t, t) for t in in_order)  # as the claim has them
    return Finding(
        "line_lent",
        f"the passage gives {figures} on another line (“{_quote(found.neighbour.text)}”), "
        f"not on “{_quote(found.line.text)}”",
    )


def _lent(neighbour: Span, line: Span, stated: Facts, weights: dict[str, float]) -> _Lines | None:
    """``neighbour`` lending the claim resting on ``line`` only figures or names, of a kind
    the line has its own of and the claim takes none of from it; the two lines share a word."""
    specific = stated.numbers | stated.names
    lent = neighbour.terms - line.terms
    if lent & (set(weights) - specific) or not _said(line) & _said(neighbour):
        return None  # a word of the claim's lent, or two sentences with nothing in common
    own_only = line.terms - neighbour.terms
    # figures are compared with figures of their measure only: "20 mg" lent in place of
    # "500 mg", whatever the claim takes of the line's "twice daily" (a rate)
    kinds = {_measure(neighbour.facts, f) for f in lent & stated.numbers}
    numbers = {f for f in stated.numbers if _measure(line.facts, f) in kinds or f in lent}
    own_numbers = {f for f in line.facts.numbers if _measure(line.facts, f) in kinds}
    for claimed, own in (
        (numbers, own_numbers),
        (stated.names, line.facts.names),
    ):
        if lent & claimed and not own_only & claimed and own - claimed:
            return _Lines(line, neighbour, frozenset(lent & claimed))
    return None


def _measure(facts: Facts, figure: str) -> str:
    """What ``figure`` measures where ``facts`` give it ("mass" of "20 mg", "rate" of "2 times
    daily"), or "" for a figure without a unit."""
    return next((q.split(":")[0] for f, q, _ in sorted(facts.measures) if f == figure), "")


def _said(line: Span) -> set[str]:
    """A line's terms and months ("May" is no term: it is a modal verb too)."""
    return line.terms | {n for n in line.facts.numbers if not n[:1].isdigit()}


def _quote(text: str) -> str:
    """A line as the reason quotes it: whole, or its start."""
    text = " ".join(text.split())
    return text if len(text) <= _QUOTED else text[: _QUOTED - 1].rstrip() + "…"
