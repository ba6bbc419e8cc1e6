"""Figures with units, compared as quantities: "1 hour" is "60 minutes", "15.9 mm" is "1.59 cm".

A fluent answer converts: "check-in closes one hour before departure" for "60 minutes",
"the course lasts two weeks" for "14 days", "bake for 1 hour 15 minutes" for "75 minutes".
Compared figure by figure, each is a figure the passage does not give. A figure followed by a
unit of a measure (``lang.en.UNITS``: time, length, mass, volume) is read as its quantity in
the measure's base unit; figures with units of one measure told one after the other ("1 hour
15 minutes", "1 hour and 15 minutes") are also read as their sum. How often a thing happens
("2 times a day", "twice daily" as ``lang.en`` writes it) is a rate, in times a day. A
claim's figure is backed by a passage that gives the same quantity in any unit
(``facts.conflicts``).
"""

from __future__ import annotations

from fractions import Fraction

from app.core.verdict.lang.en import PER_PERIOD, PERIOD_ADVERBS, PERIOD_DAYS, UNITS
from app.core.verdict.tokens import Token

# (figure as the facts normalise it, "measure:quantity in the base unit", as written: "5 hours")
Measure = tuple[str, str, str]


def measures(toks: list[Token], figure_at: dict[int, str]) -> frozenset[Measure]:
    """The quantities the figures of ``toks`` (``figure_at``: token index -> normalised
    figure) state with a unit after them, and the sums of quantities of one measure told one
    after the other."""
    out: set[Measure] = set()
    run: list[tuple[str, str, Fraction, str]] = []  # (figure, measure, quantity, as written)
    end = -1  # the index of the last unit read
    for i, figure in sorted(figure_at.items()):
        rate = _rate(toks, i, figure)
        if rate is not None:
            out.add(rate)
            continue
        if i + 1 >= len(toks) or (unit := UNITS.get(toks[i + 1].word.lower())) is None:
            continue
        measure, size = unit
        try:
            quantity = Fraction(figure) * Fraction(size)
        except (ValueError, ZeroDivisionError):
            continue
        said = f"{toks[i].word} {toks[i + 1].word}"
        out.add((figure, _key(measure, quantity), said))
        joined = i == end + 1 or (i == end + 2 and toks[end + 1].word.lower() == "and")
        if not (joined and run and run[-1][1] == measure):
            run = []
        run.append((figure, measure, quantity, said))
        if len(run) > 1:
            total = _key(measure, sum((q for _, _, q, _ in run), Fraction(0)))
            whole = " ".join(w for _, _, _, w in run)  # "1 hour 15 minutes"
            out.update((f, total, whole) for f, _, _, _ in run)
        end = i + 1
    return frozenset(out)


def _rate(toks: list[Token], i: int, figure: str) -> Measure | None:
    """How often the figure at ``i`` says a thing happens, when "times" and a period follow
    it ("2 times a day", "3 times per week", "2 times daily"): the times per day."""
    words = [t.word.lower() for t in toks[i + 1 : i + 4]]
    if not words or words[0] not in ("time", "times") or len(words) < 2:
        return None
    period = PERIOD_ADVERBS.get(words[1])
    if period is None and words[1] in PER_PERIOD and len(words) > 2:
        period = words[2] if words[2] in PERIOD_DAYS else None
    if period is None:
        return None
    try:
        quantity = Fraction(figure) / Fraction(PERIOD_DAYS[period])
    except (ValueError, ZeroDivisionError):
        return None
    said = " ".join(t.word for t in toks[i : i + (3 if words[1] in PERIOD_ADVERBS else 4)])
    return figure, _key("rate", quantity), said


def _key(measure: str, quantity: Fraction) -> str:
    return f"{measure}:{quantity}"


def quantities(found: frozenset[Measure], figure: str | None = None) -> frozenset[str]:
    """The quantities of ``found`` (of one ``figure``, when given)."""
    return frozenset(q for f, q, _ in found if figure is None or f == figure)


def written(found: frozenset[Measure], figure: str) -> str:
    """How ``figure`` is written with its unit ("5 hours"), or the figure alone."""
    return min((w for f, _, w in found if f == figure), key=len, default=figure)
