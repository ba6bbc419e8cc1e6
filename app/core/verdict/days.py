"""The days a sentence writes, and a claim's day the passage does not give as a day.

A lease "runs from 1 March 2023 to 28 February 2025 and is up for renewal on 1 December
2024"; a fluent wrong answer says "the lease ends on 28 February 2024", and each of its
figures (28, February, 2024) is in the passage, so the figure check, which compares figures
one by one, passes it. A day is compared whole: "28 February 2024", "February 28, 2024" and
"2024-02-28" are one day (``written_days``), and a claim's day is backed only where the passage
writes that day, or the same day of the month without a year ("on 28 February"), or, for a
month and year ("in March 2024"), that month of that year or that month without a year
(``day_not_given``, the ``day`` check). A passage that writes no day and no month is left to
the figure check: "in 2024, on the 28th of the second month" is not read as a day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import pairwise

from app.core.verdict.lang.en import DAY_ORDINALS, MONTH_LEADS, MONTH_NUMBERS
from app.core.verdict.rows import Finding

_MONTH = "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True))
# a day of the month in figures or as an ordinal word ("5", "5th", "the fifth")
_DAY = r"(\d{1,2}|" + "|".join(sorted(DAY_ORDINALS, key=len, reverse=True)) + ")"
_YEAR = r"((?:1[6-9]|20)\d\d)"
_ORDINAL = r"(?:st|nd|rd|th)?"
# "28 February 2024", "28th of February, 2024", "the 30th day of May, 2023"; "February 28,
# 2024", "Feb. 28th 2024"; "2024-02-28"; then a month and year with no day ("March 2024",
# "March of 2024"); then a day and month with no year ("on 28 February", "February 28")
_DAY_MONTH_YEAR = re.compile(
    rf"\b{_DAY}{_ORDINAL}(?:\s+day)?(?:\s+of)?[\s-]+({_MONTH})\.?,?[\s-]+{_YEAR}\b",
    re.IGNORECASE,
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL},?\s+{_YEAR}\b", re.IGNORECASE
)
# a range or pair of days of one month: "1–28 February 2025", "6 and 7 May 2023", "March 1-3,
# 2024", "March 4 and 5, 2024" (a range's days between its ends are the passage's too)
_TO = r"\s*([-–]|to|through|and|or|&)\s*"
_DAYS_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}}){_ORDINAL}{_TO}(\d{{1,2}}){_ORDINAL}(?:\s+of)?\s+({_MONTH})\.?,?\s+{_YEAR}\b",
    re.IGNORECASE,
)
_MONTH_DAYS_YEAR = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL}{_TO}(\d{{1,2}}){_ORDINAL},?\s+{_YEAR}\b",
    re.IGNORECASE,
)
# the years listed after a day: "As of December 31, 2023 and 2022", "the years ended December
# 31, 2023, 2022 and 2021" give that day in each year; a year after a bare comma is listed only
# if the list goes on ("2023, 2022 and"), so "December 31, 2023, 1999 employees" lists none
_MORE_YEARS = re.compile(
    r",?\s+(?:and|or)\s+((?:1[6-9]|20)\d\d)\b"
    r"|,\s*((?:1[6-9]|20)\d\d)\b(?=,|\s+(?:and|or)\b)"
)
# listed years lie within this many years of the day's own
_LISTED_YEARS_SPAN = 10
# two days joined as a span ("from 1 March 2024 to 3 March 2024"): the days between are the
# passage's too when the span is no longer than a month (a lease's two years are no span of
# days a claim could mean, and a day inside them is no day the lease names)
_SPAN_JOIN = re.compile(r"\s*(?:[-–]|to|through|until|till)\s*$", re.IGNORECASE)
_SPAN_DAYS = 31
# "5/30/2023": month first in the United States, day first elsewhere; a passage's gives both
# readings, a claim's is backed by either
_SLASHED = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/((?:1[6-9]|20)\d\d)(?![\d/])")
# "2024-02-28", "2024/02/28", "2024.02.28", "2024-02-28T10:00:00Z"
_ISO = re.compile(
    r"(?<![\w.-])" + _YEAR + r"([-/.])(0?[1-9]|1[0-2])\2(0?[1-9]|[12]\d|3[01])(?![\w/-]|\.\d)"
    r"|(?<![\w.-])" + _YEAR + r"-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?=T\d)"
)
# "28.02.2024": day first, as Europe writes it with dots
_DOTTED = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.((?:1[6-9]|20)\d\d)(?![\d]|\.\d)")
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?(?:\s+of)?\s+{_YEAR}\b", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b{_DAY}{_ORDINAL}(?:\s+day)?(?:\s+of)?\s+({_MONTH})\b", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL}\b(?!,?\s*\d)", re.I)
# a month named alone, capitalised as a month is ("in March"; "may" is a verb), unless a
# capitalised word other than a month's lead comes right before it ("Theresa May")
_MONTH_ALONE = re.compile(r"\b(" + "|".join(m.title() for m in MONTH_NUMBERS) + r")\b")
_WORD_BEFORE = re.compile(r"([A-Z][\w'’-]*)\s+$")


@dataclass(frozen=True)
class Days:
    """The days and months a text writes, each as written ("28 February 2025") by its value:
    ``days`` "2025-02-28", ``months`` "2025-02" (a month and year, or a day's), ``yearless``
    "02-28" (a day and month written without a year) and "02" (a month written alone)."""

    days: dict[str, str] = field(default_factory=dict)
    months: dict[str, str] = field(default_factory=dict)
    yearless: frozenset[str] = frozenset()
    either: tuple[tuple[str, frozenset[str]], ...] = ()  # "5/6/2023": (written, both days)
    within: frozenset[str] = frozenset()  # the days inside a range: a passage's, not a claim's

    def __bool__(self) -> bool:
        return bool(self.days or self.months or self.yearless or self.either or self.within)

    @staticmethod
    def union(parts: list[Days]) -> Days:
        """The days of several texts taken together."""
        days: dict[str, str] = {}
        months: dict[str, str] = {}
        for p in parts:
            days = {**p.days, **days}
            months = {**p.months, **months}
        return Days(
            days,
            months,
            frozenset().union(*(p.yearless for p in parts)),
            tuple(e for p in parts for e in p.either),
            frozenset().union(*(p.within for p in parts)),
        )


def written_days(text: str) -> Days:
    """The days, months of a year and yearless days and months ``text`` writes."""
    days: dict[str, str] = {}
    months: dict[str, str] = {}
    taken: list[tuple[int, int]] = []
    placed: list[tuple[int, int, date]] = []  # each whole day's span and value

    def add(m: re.Match[str], year: str, month: int, day: int | None, written: str = "") -> None:
        if day is not None and not 1 <= day <= 31:
            return
        taken.append(m.span())
        if day is not None and (value := _date(int(year), month, day)) is not None:
            placed.append((*m.span(), value))
        written = written or " ".join(m.group(0).split())
        if day is None:
            months.setdefault(f"{year}-{month:02d}", written)
        else:
            days.setdefault(f"{year}-{month:02d}-{day:02d}", written)
            months.setdefault(f"{year}-{month:02d}", written)

    within: set[str] = set()

    def more_years(m: re.Match[str], month: int, day: int, year: str) -> None:
        at = m.end()
        while (more := _MORE_YEARS.match(text, at)) is not None:
            listed = more[1] or more[2]
            if abs(int(listed) - int(year)) > _LISTED_YEARS_SPAN:
                break
            written = " ".join(m.group(0).split()).replace(year, listed)  # "December 31, 2022"
            add(more, listed, month, day, written)
            at = more.end()

    for m in _DAY_MONTH_YEAR.finditer(text):
        add(m, m[3], MONTH_NUMBERS[m[2].lower()], _day(m[1]))
        more_years(m, MONTH_NUMBERS[m[2].lower()], _day(m[1]), m[3])
    for m in _MONTH_DAY_YEAR.finditer(text):
        add(m, m[3], MONTH_NUMBERS[m[1].lower()], int(m[2]))
        more_years(m, MONTH_NUMBERS[m[1].lower()], int(m[2]), m[3])
    for m in _ISO.finditer(text):
        if m[1]:
            add(m, m[1], int(m[3]), int(m[4]))
        else:
            add(m, m[5], int(m[6]), int(m[7]))
    for m in _DOTTED.finditer(text):
        if 1 <= int(m[2]) <= 12:
            add(m, m[3], int(m[2]), int(m[1]))
    ranges = [
        *((m, m[1], m[2], m[3], m[4], m[5]) for m in _DAYS_MONTH_YEAR.finditer(text)),
        *((m, m[2], m[3], m[4], m[1], m[5]) for m in _MONTH_DAYS_YEAR.finditer(text)),
    ]
    for m, first, to, last, month_name, year in ranges:
        month = MONTH_NUMBERS[month_name.lower()]
        add(m, year, month, int(first))
        add(m, year, month, int(last))
        if to not in ("and", "or", "&"):
            inner = range(int(first) + 1, int(last)) if int(last) - int(first) <= 31 else ()
            within.update(f"{year}-{month:02d}-{d:02d}" for d in inner)
    within |= _spanned(text, placed)
    either: list[tuple[str, frozenset[str]]] = []
    for m in _SLASHED.finditer(text):
        readings = frozenset(
            f"{m[3]}-{month:02d}-{day:02d}"
            for month, day in ((int(m[1]), int(m[2])), (int(m[2]), int(m[1])))
            if 1 <= month <= 12 and 1 <= day <= 31
        )
        if readings:
            taken.append(m.span())
            either.append((m.group(0), readings))

    def free(m: re.Match[str]) -> bool:
        return not any(a <= m.start() < b or a < m.end() <= b for a, b in taken)

    for m in _MONTH_YEAR.finditer(text):
        if free(m):
            add(m, m[2], MONTH_NUMBERS[m[1].lower()], None)
    yearless: set[str] = set()
    for m in _DAY_MONTH.finditer(text):
        if free(m) and 1 <= _day(m[1]) <= 31:
            yearless.add(f"{MONTH_NUMBERS[m[2].lower()]:02d}-{_day(m[1]):02d}")
    for m in _MONTH_DAY.finditer(text):
        if free(m) and 1 <= int(m[2]) <= 31:
            yearless.add(f"{MONTH_NUMBERS[m[1].lower()]:02d}-{int(m[2]):02d}")
    for m in _MONTH_ALONE.finditer(text):
        before = _WORD_BEFORE.search(text, 0, m.start())
        if before is not None and before[1].lower() not in MONTH_LEADS:
            continue  # "Theresa May": a name
        if free(m):
            yearless.add(f"{MONTH_NUMBERS[m[1].lower()]:02d}")
    return Days(days, months, frozenset(yearless), tuple(either), frozenset(within - set(days)))


def _date(year: int, month: int, day: int) -> date | None:
    """The day, or None for one no calendar has ("30 February")."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _spanned(text: str, placed: list[tuple[int, int, date]]) -> set[str]:
    """The days strictly between two whole days written as a span of at most a month ("from
    1 March 2024 to 3 March 2024" holds 2 March)."""
    inner: set[str] = set()
    ordered = sorted(placed)
    for (_, end, first), (start, _, last) in pairwise(ordered):
        if 1 < (last - first).days <= _SPAN_DAYS and _SPAN_JOIN.match(text[end:start]):
            inner.update(
                (first + timedelta(days=n)).isoformat() for n in range(1, (last - first).days)
            )
    return inner


def _day(written: str) -> int:
    """A day of the month written in figures or as an ordinal word ("fifth")."""
    return int(written) if written.isdigit() else DAY_ORDINALS[written.lower()]


def _unsaid(claim: Days, passage: Days) -> list[str]:
    """The claim's days and months of a year (as written) that the passage does not give."""
    given = set(passage.days) | passage.within
    given = given.union(*(days for _, days in passage.either))
    yearless = passage.yearless
    missing = [
        written
        for day, written in claim.days.items()
        if day not in given and day[5:] not in yearless
    ]
    missing += [
        written
        for written, days in claim.either
        if not days & given and not {day[5:] for day in days} & yearless
    ]
    day_months = {day[:7] for day in claim.days}
    months = set(passage.months) | {day[:7] for day in given}
    missing += [
        written
        for month, written in claim.months.items()
        if month not in day_months and month not in months and month[5:] not in yearless
    ]
    return missing


def words_of(written: str) -> frozenset[str]:
    """The words and figures a written day is made of, lower case: "the 30th day of May,
    2023" is {"30", "may", "2023"}."""
    return frozenset(re.findall(r"[a-z]+|\d+", written.lower())) - _DATE_FILLER


_DATE_FILLER = frozenset(["st", "nd", "rd", "th", "of", "day", "the"])


def day_not_given(
    claim: Days, passage: Days, titled: frozenset[str] = frozenset()
) -> Finding | None:
    """The claim's days (and months of a year) that the passage, which writes days or months
    of its own, does not give: not as that day, nor as that day of the month without a year
    (for a month of a year: not as that month of that year, nor that month alone). A day the
    source's file name or heading gives (``titled``: "Board minutes 5 March 2024") is given."""
    if not claim or not passage:
        return None
    missing = [w for w in _unsaid(claim, passage) if not words_of(w) <= titled]
    if not missing:
        return None
    written = [*passage.days.values(), *(w for w, _ in passage.either), *passage.months.values()]
    have = list(dict.fromkeys(written))[:3]
    return Finding(
        "day",
        f"the passage does not say {', '.join(missing)}"
        + (f" (it gives {', '.join(have)})" if have else ""),
    )


def given_words(claim: Days, passage: Days) -> frozenset[str]:
    """The words and figures of the claim's days that the passage gives, however it writes
    them: "28 February 2024" against "2024-02-28" lends "february" and "28", which the figure
    and name checks then do not ask the passage to write."""
    if not claim or not passage:
        return frozenset()
    unsaid = set(_unsaid(claim, passage))
    written = [*claim.days.values(), *claim.months.values(), *(w for w, _ in claim.either)]
    return frozenset().union(*(words_of(w) for w in written if w not in unsaid))
