"""Which year each figure of a sentence is for, and a claim's figure given another year.

A filing's sentence gives two periods side by side ("revenue grew to $11.69 billion in 2017,
up from $8.83 billion in 2016"); a fluent wrong answer takes the wrong one ("Netflix's 2017
revenue was $8.83 billion"), and every word and figure of it is in the passage. So each
figure is paired with the year its clause gives it (``figure_years``, read into
``facts.Facts.dated``), and a claim's pair is compared with the passage's (``year_swapped``,
the ``figure_year`` check).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.verdict.lang.en import FIGURE_TO_YEAR
from app.core.verdict.rows import Finding

YEAR = re.compile(r"^(?:1[6-9]|20)\d\d$")  # a figure's year: not a count of 1,500
EVENT_YEAR = re.compile(r"1\d{3}|20\d{2}")  # the year of an event ("1066"), to fullmatch


def figure_years(words: Sequence[str], breaks: Sequence[bool]) -> frozenset[tuple[str, str]]:
    """Each figure with the year its clause gives it, from a sentence's ``words`` and the
    clause ``breaks`` before each: the year right after it ("$11.69 billion in 2017, up from
    $8.83 billion in 2016": 11.69 for 2017, 8.83 for 2016), else the year right before it
    ("the 2017 revenue was $8.83 billion"). Another figure never stands between them, nor,
    after the figure, a word other than ``en.FIGURE_TO_YEAR``'s ("$11.69 billion was double
    its 2016 revenue" dates nothing), and a year taken by the figure before it is not given
    again ("$11.69 billion in 2017 from $8.83 billion a year earlier" dates only 11.69). A
    clause without a year pairs nothing. With "respectively", the years listed apart from
    their figures are paired in order with them, when there are as many of each ("During
    2022, 2021 and 2020 the dividend was $0.55, $0.50 and $0.50, respectively"). A quarter's
    or half year's name ("Q2", "H1") is no figure: "$0.50 in Q2 2022" is for 2022."""
    words, breaks = _periods_joined(words, breaks)
    kinds = ["year" if YEAR.match(w) else "figure" if w[0].isdigit() else "" for w in words]
    if any(w.lower() == "respectively" for w in words):
        years = [w for w, k in zip(words, kinds, strict=True) if k == "year"]
        figures = [w.replace(",", "") for w, k in zip(words, kinds, strict=True) if k == "figure"]
        if len(years) != len(figures) or len(years) < 2:
            return frozenset()
        return frozenset(zip(figures, years, strict=True))
    clause, clauses = 0, []
    for broke in breaks:
        clause += broke
        clauses.append(clause)
    taken: dict[int, int] = {}  # figure's index -> its year's index
    for i, kind in enumerate(kinds):  # the year right after: "$8.83 billion in 2016"
        if kind == "figure":
            j = _next_year(kinds, clauses, i, 1)
            between = {w.lower() for w in words[i + 1 : j]} - _PERIODS if j is not None else set()
            if j is not None and between <= FIGURE_TO_YEAR:
                taken[i] = j
    for i, kind in enumerate(kinds):  # else the year right before: "2017 revenue was $8.83"
        if kind == "figure" and i not in taken:
            j = _next_year(kinds, clauses, i, -1)
            if j is not None and j not in taken.values():
                taken[i] = j
    return frozenset((words[i].replace(",", ""), words[j]) for i, j in taken.items())


# A quarter's or half year's letter and number, written together: a period's name, no figure.
_PERIOD_PARTS = frozenset({("Q", n) for n in "1234"} | {("H", n) for n in "12"})
_PERIODS = frozenset((letter + n).lower() for letter, n in _PERIOD_PARTS)


def period_name(letter: str, number: str) -> bool:
    """Whether ``letter`` and ``number`` written together name a period ("Q2", "H1")."""
    return (letter, number) in _PERIOD_PARTS


def _periods_joined(words: Sequence[str], breaks: Sequence[bool]) -> tuple[list[str], list[bool]]:
    """``words`` with a quarter's or half year's letter and number as one word ("Q", "2" ->
    "Q2"), and the ``breaks`` before each."""
    out_words: list[str] = []
    out_breaks: list[bool] = []
    for w, broke in zip(words, breaks, strict=True):
        if out_words and period_name(out_words[-1], w) and not broke:
            out_words[-1] += w
            continue
        out_words.append(w)
        out_breaks.append(broke)
    return out_words, out_breaks


def _next_year(kinds: list[str], clauses: list[int], i: int, step: int) -> int | None:
    """The index of the year after (``step`` 1) or before (-1) position ``i`` in its clause,
    when no other figure stands between them."""
    j = i + step
    while 0 <= j < len(kinds) and clauses[j] == clauses[i]:
        if kinds[j] == "year":
            return j
        if kinds[j] == "figure":
            return None
        j += step
    return None


def year_swapped(
    claim: frozenset[tuple[str, str]], span: frozenset[tuple[str, str]]
) -> list[Finding]:
    """A figure the claim gives for a year, which the span gives for another year while it
    gives that year another figure (both as ``figure_years`` pairs): "Netflix's 2017 revenue
    was $8.83 billion" against "revenue grew to $11.69 billion in 2017, up from $8.83 billion
    in 2016"."""
    out = []
    for figure, year in sorted(claim):
        theirs = sorted({y for f, y in span if f == figure})
        others = sorted({f for f, y in span if y == year and f != figure})
        if theirs and year not in theirs and others:
            out.append(
                Finding(
                    "figure_year",
                    f"the passage gives {figure} for {', '.join(theirs)} and "
                    f"{', '.join(others)} for {year}",
                )
            )
    return out
