"""Files a question names by their file name, searched within as well as the whole index.

"What is the FY2018 capital expenditure for 3M?" names ``3M_2018_10K.pdf``: a passage of its
cash-flow table does not say whose table it is, and similar tables of other companies and other
years outrank it. A file is named when the first word of its name is capitalised (a name, as
in "3M_2018_10K", "Acme Annual Report 2021", "Pfizer_2023Q2_10Q"; not "delete-lines") and the
question writes that word as a name: capitalised and not its first word, alone or run together
from up to three words ("American Water Works" for "AMERICANWATERWORKS"), an acronym the
name starts with ("MGM" for "MGMRESORTS"), or the initials of its leading words joined by "&"
("J&J" for "JOHNSON_JOHNSON_2022_10K"). A name in a script without capitals ("議事録_2023",
"张三简历", "तकनीकी_रिपोर्ट") cannot say it is a name: it is named when the question writes its
first part whole (as a word; in a script written without spaces, anywhere in the question).
Names and questions are split into words as search splits them (``text.words``), so "Müller"
is one part. When the question writes a day ("the 8-K dated May 30, 2023", "on 2023-05-30")
that a file's name holds ("PEPSICO_2023_8K_dated-2023-05-30"), the files of the same name
dated other days are set aside (its undated reports and other names' files stay). When the
question gives years, files whose name holds its latest year are preferred, then any of its
years; of those, a file whose cover states another kind of report
than the question's period asks for is set aside when one of that kind is left
(``reports.prefer_kind``: "Q2 of FY2023" keeps the quarterly report and the earnings release,
not the annual report). More than ``MAX_NAMED`` files left means the question names a
collection, not a document: none is named.

Retrieval adds each named file's best passages to the candidates and ranks them above other
files' passages (``fusion.NAMED_BONUS``; a passage holding the question word for word still
leads). Measured on the 47 FinanceBench dev questions over the shared corpus index: evidence
page in the top 10 0.447 -> 0.553; known-item search unchanged (first 1.000, page@5 0.973).
"""

from __future__ import annotations

import datetime
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

from app.core.index.manifest import Manifest
from app.core.search.reports import COVER_CHARS, Kind, asked_kind, cover_kind, prefer_kind
from app.core.text import STOPWORDS, unspaced, words

MAX_NAMED = 3  # more files named than this: the name is a collection's ("Normans_1".."_40")
MAX_JOINED = 3  # words run together into one name part ("American Water Works")
MAX_INITIALS = 3  # a name's leading parts an initialism abbreviates ("J&J", "P&G", "B&N")
# Initials joined by "&" (or "n"): "J&J" for "JOHNSON_JOHNSON", "P&G" for "Procter_Gamble"
_INITIALISM = re.compile(r"(?<![\w&])([A-Z])(?:&|n)([A-Z])(?:(?:&|n)([A-Z]))?(?![\w&])")
# Terms business English writes the same way, which name no file: M&A, R&D, S&P, P&L, Q&A,
# G&A, D&A, B&B, F&B, T&E, O&M, E&P, P&C, A&E, B&W
_TERMS = frozenset(
    ["ma", "rd", "sp", "pl", "qa", "ga", "da", "bb", "fb", "te", "om", "ep", "pc", "ae", "bw"]
)
_NAME_YEAR = re.compile(r"(?:19|20)\d\d(?=$|[a-z])")  # "2018", "2023q2"
# A year stands apart from Latin letters and digits; a Chinese or Japanese one runs on
# into its characters ("2024年").
_YEAR = re.compile(r"(?<![0-9A-Za-z])(?:FY|Q\d'?)?((?:19|20)\d\d)(?![0-9A-Za-z])", re.IGNORECASE)
# Changes when a file is added, removed or renamed (a rename to a path of the same length
# aside), at the cost of a scan of the paths' lengths.
_PATHS_SIGNATURE = (
    "SELECT count(*), coalesce(max(id), 0), coalesce(sum(length(path)), 0) FROM files"
)
_SHORT_FY = re.compile(r"\bFY'?(\d\d)\b", re.IGNORECASE)  # "FY20" for 2020
# A day written year first, in a file's name ("2023-05-30", "2023_05_30", "20230530": two
# digits each, one separator throughout) or a question ("2023-05-30", "2023/5/30", not a
# version "v2023.1.2" or "2023.1.2.1").
_NAME_DAY = re.compile(
    r"(?<!\d)((?:19|20)\d\d)([-_.]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?!\d)"
)
_ISO_DAY = re.compile(
    r"(?<![0-9A-Za-z.])((?:19|20)\d\d)([-/.])(0?[1-9]|1[0-2])\2(0?[1-9]|[12]\d|3[01])"
    r"(?!\d|\.\d)"
)
# … or day last, in a file's name: "05-30-2023" (month first in the United States, day first
# elsewhere: either reading counts)
_NAME_DAY_LAST = re.compile(r"(?<!\d)(\d\d)([-_.])(\d\d)\2((?:19|20)\d\d)(?!\d)")
# The months as English writes them in a date, in full or cut short ("Sept.").
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL = r"(?:st|nd|rd|th)?"
# "May 30, 2023", "May 30th 2023"; "30 May 2023"
_MONTH_DAY = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL}(?:,\s*|\s+)((?:19|20)\d\d)\b", re.IGNORECASE
)
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}}){_ORDINAL}\s+({_MONTH})\.?(?:,\s*|\s+)((?:19|20)\d\d)\b", re.IGNORECASE
)
# "5/30/2023": month first in the United States, day first elsewhere; either reading counts
_SLASHED_DAY = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/((?:19|20)\d\d)(?![\d/])")
# Chinese and Japanese "2023年5月30日", Korean "2023년 5월 30일": no month names to read
_CJK_DAY = re.compile(r"(?<!\d)((?:19|20)\d\d)\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]")


@dataclass(frozen=True)
class _Name:
    subject: str  # the name's first part, lower case
    years: frozenset[int]
    caseless: bool = False  # in a script without capitals: named when the question writes it
    initials: str = ""  # of its leading parts, two or more: "jj" for "JOHNSON_JOHNSON_2022"
    days: frozenset[datetime.date] = field(default_factory=frozenset)  # "…_dated-2023-05-30"


def parts(text: str) -> list[str]:
    """The parts of a name or a question: its words, where a script written without spaces
    runs on joined again ("会議メモ_2023" -> "会議メモ", "2023", not pairs of characters), and
    split at underscores."""
    spans: list[list[int]] = []
    joins = False  # the last word is of a script written without spaces
    for w in words(text):
        own = unspaced(w.text)
        if spans and joins and own and w.start <= spans[-1][1]:
            spans[-1][1] = w.end
        else:
            spans.append([w.start, w.end])
        joins = own
    # in a file name an underscore separates ("3M_2018_10K"), as a space would
    return [part for s, e in spans for part in text[s:e].split("_") if part]


def file_name(path: str) -> _Name | None:
    """What a file's name says of it, or None when its name is not a name ("notes-on-vim")."""
    found = parts(PurePath(path).stem)
    if not found:
        return None
    first = found[0]
    subject = first.lower()
    if not any(c.isalpha() for c in first):
        return None
    caseless = subject == first.upper()
    if not (caseless or first[0].isupper() or first[0].isdigit()):
        return None
    if len(subject) < 2 or subject in STOPWORDS:
        return None
    years = {int(m.group()) for p in found[1:] for m in [_NAME_YEAR.match(p.lower())] if m}
    leading = list(itertools.takewhile(str.isalpha, found))[:MAX_INITIALS]
    initials = "".join(p[0] for p in leading).lower() if len(leading) >= 2 else ""
    stem = PurePath(path).stem
    days = _days((m[1], m[3], m[4]) for m in _NAME_DAY.finditer(stem))
    for m in _NAME_DAY_LAST.finditer(stem):
        days |= _days([(m[4], m[1], m[3]), (m[4], m[3], m[1])])
    return _Name(subject, frozenset(years), caseless, initials, frozenset(days))


def _days(written: Iterable[tuple[str | int, str | int, str | int]]) -> set[datetime.date]:
    """The days of the (year, month, day) triples as written, those that are days ("2023-02-31"
    is none)."""
    out = set()
    for year, month, day in written:
        try:
            out.add(datetime.date(int(year), int(month), int(day)))
        except ValueError:
            continue
    return out


def question_days(question: str) -> set[datetime.date]:
    """The days a question writes: "May 30, 2023", "30 May 2023", "2023-05-30", "5/30/2023"
    (and, read day first, 5 March for "5/3/2023"), "2023年5月30日". Month names are read in
    English only."""
    written: list[tuple[str | int, str | int, str | int]] = []
    written += [(m[1], m[3], m[4]) for m in _ISO_DAY.finditer(question)]
    written += [(m[3], _MONTHS[m[1].lower()], m[2]) for m in _MONTH_DAY.finditer(question)]
    written += [(m[3], _MONTHS[m[2].lower()], m[1]) for m in _DAY_MONTH.finditer(question)]
    # full-width figures ("２０２３年５月３０日") read as the others
    written += [
        (m[1], m[2], m[3]) for m in _CJK_DAY.finditer(unicodedata.normalize("NFKC", question))
    ]
    for m in _SLASHED_DAY.finditer(question):
        written += [(m[3], m[1], m[2]), (m[3], m[2], m[1])]
    return _days(written)


class _Written:
    """What a question writes, to test caseless names against (``writes``)."""

    def __init__(self, question: str) -> None:
        self.low = question.lower()
        self.parts = {p.lower() for p in parts(question)}

    def writes(self, name: _Name) -> bool:
        """Whether a caseless name's first part is written in the question: as one of its
        parts, or, in a script written without spaces (no word boundaries), anywhere."""
        return name.subject in (self.low if unspaced(name.subject) else self.parts)


def initialisms(question: str) -> set[str]:
    """The initialisms a question writes ("J&J's" -> "jj")."""
    found = {"".join(m.groups(default="")).lower() for m in _INITIALISM.finditer(question)}
    return found - _TERMS


def question_names(question: str) -> tuple[set[str], list[str], set[int]]:
    """The names a question writes (words run together, lower case), the acronyms a name may
    start with, and the years it gives."""
    words = parts(question)
    names: set[str] = set()
    acronyms: list[str] = []
    for i, word in enumerate(words):
        named = word[0].isupper() or word[0].isdigit()
        if not named or (i == 0 and not (word.isupper() or any(c.isdigit() for c in word))):
            continue
        joined = ""
        for nxt in words[i : i + MAX_JOINED]:
            joined += nxt.lower()
            names.add(joined)
        if len(word) >= 3 and word.isupper() and word.isalpha():
            acronyms.append(word.lower())
    years = {int(y) for y in _YEAR.findall(question)}
    years |= {2000 + int(y) for y in _SHORT_FY.findall(question)}
    return names, acronyms, years


class NamedFiles:
    """The named-file test over one index's file names, read again when the files change."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._parsed: dict[str, _Name | None] = {}  # every path seen, parsed once
        self._names: dict[str, _Name] = {}  # the current paths that are names
        self._seen: tuple[int, int] | None = None
        self._paths: tuple[int, int, int] | None = None
        self._kinds: dict[str, tuple[str | None, Kind | None]] = {}  # path: (hash, kind)

    def _refresh(self) -> None:
        """Read the paths again only after a write (this connection's or another's) that
        changed them: most writes (a file re-read, vectors stored) leave them as they are."""
        conn = self.manifest.conn
        seen = (conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0])
        if seen == self._seen:
            return
        self._seen = seen
        paths = tuple(conn.execute(_PATHS_SIGNATURE).fetchone())
        if paths == self._paths:
            return
        self._paths = paths
        parsed = self._parsed
        current = [row[0] for row in conn.execute("SELECT path FROM files")]
        self._parsed = {p: parsed[p] if p in parsed else file_name(p) for p in current}
        self._names = {p: n for p, n in self._parsed.items() if n is not None}

    def named(self, question: str) -> list[str]:
        """Paths of the files ``question`` names (at most ``MAX_NAMED``), best first."""
        self._refresh()
        names, acronyms, years = question_names(question)
        initials = initialisms(question)
        written = _Written(question)
        hits = [
            path
            for path, n in self._names.items()
            if (written.writes(n) if n.caseless else n.subject in names)
            or any(n.subject.startswith(a) for a in acronyms)
            or any(n.initials.startswith(i) for i in initials)  # "B&N": Barnes_Noble_Education
        ]
        days = question_days(question) if hits else set()
        if days:  # "the 8-K dated May 30, 2023": not the same company's 8-K of May 5
            hits = self._not_of_another_day(hits, days)
        if years and hits:
            latest = [p for p in hits if max(years) in self._names[p].years]
            anyyear = [p for p in hits if self._names[p].years & years]
            hits = latest or anyyear or hits
        asked = asked_kind(question) if len(hits) > 1 else None
        if asked is not None:  # a cover is read only when the question asks for a kind
            hits = prefer_kind(hits, {p: self.kind(p) for p in hits}, asked)
        return sorted(hits) if len(hits) <= MAX_NAMED else []

    def _not_of_another_day(self, paths: list[str], days: set[datetime.date]) -> list[str]:
        """``paths`` less the files whose names hold another day than ``days``, among the
        names of which one holds such a day: a company's other 8-Ks go, its undated reports
        and other companies' files stay ("the quarter ended June 30, 2023" is no 8-K's day
        only because an 8-K bears it)."""
        names = [self._names[p] for p in paths]
        dated = {n.subject for n in names if n.days & days}
        return [
            p
            for p, n in zip(paths, names, strict=True)
            if n.subject not in dated or not n.days or n.days & days
        ]

    def asked(self, question: str, paths: list[str]) -> list[str]:
        """Of the files ``question`` names, those whose cover states the kind of report it
        asks for (``reports.asked_kind``): their pages are read again even when other files'
        passages rank first."""
        kind = asked_kind(question)
        return [p for p in paths if self.kind(p) == kind] if kind is not None else []

    def kind(self, path: str) -> Kind | None:
        """The kind of report the file's cover states (``reports.cover_kind``), read once
        per content of the file."""
        record = self.manifest.file(path)
        content = record.hash if record is not None else None
        held = self._kinds.get(path)
        if held is not None and held[0] == content:
            return held[1]
        kind = cover_kind(self.manifest.opening(path, COVER_CHARS))
        self._kinds[path] = (content, kind)
        return kind
