"""Which kind of report a question asks for, and which kind a filing says it is on its cover.

A company's folder holds its annual report, its quarterly reports, its current reports and
its earnings releases for the same year, and they share most of their words: "AMCOR's quick
ratio in FY2023 and FY2022" is answered by the annual report's balance sheet, while the
fourth-quarter earnings release repeats the company, the year and half the line items; "the
restructuring liability as of Q2 of FY2023" is the quarterly report's. The file name may say
which is which (``AMCOR_2023Q2_10Q``), but a person's files are often named otherwise, so the
kind is read where the filing states it, on its cover page: "ANNUAL REPORT PURSUANT TO
SECTION 13 OR 15(d)", "FORM 10-Q", "For the quarterly period ended …", "CURRENT REPORT". An
earnings release or any other document states none and has no kind.

A question asks for a kind when it names one ("10-K", "quarterly report", "8-K") or a period
that only one kind reports on: a quarter ("Q2", "second quarter", "H1", "six months ended")
asks for a quarterly report; a fiscal year with no quarter ("FY2023", "fiscal 2022", "year
end") for an annual one. Among the files a question names (``named.NamedFiles``), those of
another stated kind are set aside when one of the asked kind is named; a file of no kind (an
earnings release) is never set aside: it may report the year or the quarter alike.
"""

from __future__ import annotations

import re
from typing import Literal

Kind = Literal["annual", "quarterly", "current"]

# What a cover page states, each kind by its own words; the one stated first wins (a
# quarterly report's cover also names the annual report it updates, further down).
_STATED: tuple[tuple[Kind, str], ...] = (
    ("annual", r"annual report pursuant|\bform\s*10-?k\b|for the (?:fiscal )?year ended"),
    ("quarterly", r"quarterly report pursuant|\bform\s*10-?q\b|for the quarterly period"),
    ("current", r"current report pursuant|\bform\s*8-?k\b"),
)
_COVER = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _STATED]
COVER_CHARS = 3000  # how much of the first page's text the cover is read in

# What a question says to ask for a kind. A quarter or half year is a quarterly report's,
# unless the question also names an annual report; a fiscal year alone is an annual one's.
_ASKS_CURRENT = re.compile(r"\b8-?k\b|current report", re.IGNORECASE)
_ASKS_ANNUAL = re.compile(r"\b10-?k\b|annual report", re.IGNORECASE)
_ASKS_QUARTERLY = re.compile(
    r"\b10-?q\b|quarterly report"
    r"|\b(?:q[1-4]|h[12])(?:'?\s?(?:fy)?'?\d{2,4})?\b|\b(?:fy)?\d{2,4}'?\s?q[1-4]\b"
    r"|\b(?:first|second|third|fourth|1st|2nd|3rd|4th) (?:fiscal )?quarter\b|\bquarter ended\b"
    r"|\b(?:first|second) half\b|\b(?:three|six|nine) months\b",
    re.IGNORECASE,
)
_ASKS_YEAR = re.compile(
    r"\bfy\s?'?\d{2,4}\b|\bfiscal (?:year )?(?:19|20)?\d\d\b|\bfiscal year\b|\byear[- ]end\b"
    r"|\bfull[- ]year\b|\bannual\b",
    re.IGNORECASE,
)


def cover_kind(text: str) -> Kind | None:
    """The kind of report a filing's first page says it is, or None (an earnings release, a
    letter, anything that is not a filing)."""
    text = text[:COVER_CHARS]
    stated = [(m.start(), kind) for kind, p in _COVER for m in [p.search(text)] if m]
    return min(stated)[1] if stated else None


def asked_kind(question: str) -> Kind | None:
    """The kind of report the question asks for, or None when it does not say."""
    if _ASKS_CURRENT.search(question):
        return "current"
    if _ASKS_ANNUAL.search(question):
        return "annual"
    if _ASKS_QUARTERLY.search(question):
        return "quarterly"
    if _ASKS_YEAR.search(question):
        return "annual"
    return None


def prefer_kind(paths: list[str], kinds: dict[str, Kind | None], asked: Kind | None) -> list[str]:
    """``paths`` less those of another stated kind than ``asked``, when one of ``asked`` is
    among them; files of no stated kind always stay."""
    if asked is None or not any(kinds.get(p) == asked for p in paths):
        return paths
    return [p for p in paths if kinds.get(p) in (asked, None)]
