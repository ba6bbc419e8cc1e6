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

from app.core.verdict.lang.en import MONTH_NUMBERS
from app.core.verdict.rows import Finding

_MONTH = "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True))
_YEAR = r"((?:1[6-9]|20)\d\d)"
_ORDINAL = r"(?:st|nd|rd|th)?"
# "28 February 2024", "28th of February, 2024"; "February 28, 2024", "Feb. 28th 2024";
# "2024-02-28"; then a month and year with no day ("March 2024", "March of 2024"); then a day
# and month with no year ("on 28 February", "February 28")
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}}){_ORDINAL}(?:\s+of)?\s+({_MONTH})\.?,?\s+{_YEAR}\b", re.IGNORECASE
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL},?\s+{_YEAR}\b", re.IGNORECASE
)
# the first day of a range or pair before a day, month and year ("1–28 February 2025",
# "6 and 7 May 2023")
_FIRST_OF_RANGE = re.compile(
    rf"\b(\d{{1,2}}){_ORDINAL}\s*(?:[-–]|to|and|or)\s*(\d{{1,2}}){_ORDINAL}(?:\s+of)?\s+({_MONTH})"
    rf"\.?,?\s+{_YEAR}\b",
    re.IGNORECASE,
)
# "5/30/2023": month first in the United States, day first elsewhere; a passage's gives both
# readings, a claim's is backed by either
_SLASHED = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/((?:1[6-9]|20)\d\d)(?![\d/])")
_ISO = re.compile(r"(?<![\w.-])" + _YEAR + r"-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?![\w-])")
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?(?:\s+of)?\s+{_YEAR}\b", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}}){_ORDINAL}(?:\s+of)?\s+({_MONTH})\b", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL}\b(?!,?\s*\d)", re.I)
# a month named alone, capitalised as a month is ("in March"; "may" is a verb)
_MONTH_ALONE = re.compile(r"\b(" + "|".join(m.title() for m in MONTH_NUMBERS) + r")\b")


@dataclass(frozen=True)
class Days:
    """The days and months a text writes, each as written ("28 February 2025") by its value:
    ``days`` "2025-02-28", ``months`` "2025-02" (a month and year, or a day's), ``yearless``
    "02-28" (a day and month written without a year) and "02" (a month written alone)."""

    days: dict[str, str] = field(default_factory=dict)
    months: dict[str, str] = field(default_factory=dict)
    yearless: frozenset[str] = frozenset()
    either: tuple[tuple[str, frozenset[str]], ...] = ()  # "5/6/2023": (written, both days)

    def __bool__(self) -> bool:
        return bool(self.days or self.months or self.yearless or self.either)

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
        )


def written_days(text: str) -> Days:
    """The days, months of a year and yearless days and months ``text`` writes."""
    days: dict[str, str] = {}
    months: dict[str, str] = {}
    taken: list[tuple[int, int]] = []

    def add(m: re.Match[str], year: str, month: int, day: int | None) -> None:
        if day is not None and not 1 <= day <= 31:
            return
        taken.append(m.span())
        written = " ".join(m.group(0).split())
        if day is None:
            months.setdefault(f"{year}-{month:02d}", written)
        else:
            days.setdefault(f"{year}-{month:02d}-{day:02d}", written)
            months.setdefault(f"{year}-{month:02d}", written)

    for m in _DAY_MONTH_YEAR.finditer(text):
        add(m, m[3], MONTH_NUMBERS[m[2].lower()], int(m[1]))
    for m in _MONTH_DAY_YEAR.finditer(text):
        add(m, m[3], MONTH_NUMBERS[m[1].lower()], int(m[2]))
    for m in _ISO.finditer(text):
        add(m, m[1], int(m[2]), int(m[3]))
    for m in _FIRST_OF_RANGE.finditer(text):
        add(m, m[4], MONTH_NUMBERS[m[3].lower()], int(m[1]))
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
        if free(m) and 1 <= int(m[1]) <= 31:
            yearless.add(f"{MONTH_NUMBERS[m[2].lower()]:02d}-{int(m[1]):02d}")
    for m in _MONTH_DAY.finditer(text):
        if free(m) and 1 <= int(m[2]) <= 31:
            yearless.add(f"{MONTH_NUMBERS[m[1].lower()]:02d}-{int(m[2]):02d}")
    for m in _MONTH_ALONE.finditer(text):
        if free(m):
            yearless.add(f"{MONTH_NUMBERS[m[1].lower()]:02d}")
    return Days(days, months, frozenset(yearless), tuple(either))


def day_not_given(claim: Days, passage: Days) -> Finding | None:
    """The claim's days (and months of a year) that the passage, which writes days or months
    of its own, does not give: not as that day, nor as that day of the month without a year
    (for a month of a year: not as that month of that year, nor that month alone)."""
    if not claim or not passage:
        return None
    given = set(passage.days).union(*(days for _, days in passage.either))
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
    if not missing:
        return None
    written = [*passage.days.values(), *(w for w, _ in passage.either), *passage.months.values()]
    have = list(dict.fromkeys(written))[:3]
    return Finding(
        "day",
        f"the passage does not say {', '.join(missing)}"
        + (f" (it gives {', '.join(have)})" if have else ""),
    )
