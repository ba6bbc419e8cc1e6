"""Files a question names by their file name, searched within as well as the whole index.

"What is the FY2018 capital expenditure for 3M?" names ``3M_2018_10K.pdf``: a passage of its
cash-flow table does not say whose table it is, and similar tables of other companies and other
years outrank it. A file is named when the first word of its name is capitalised (a name, as
in "3M_2018_10K", "Acme Annual Report 2021", "Pfizer_2023Q2_10Q"; not "delete-lines") and the
question writes that word as a name: capitalised and not its first word, alone or run together
from up to three words ("American Water Works" for "AMERICANWATERWORKS"), or an acronym the
name starts with ("MGM" for "MGMRESORTS"). When the question gives years, files whose name
holds its latest year are preferred, then any of its years. More than ``MAX_NAMED`` files left
means the question names a collection, not a document: none is named.

Retrieval adds each named file's best passages to the candidates and ranks them above other
files' passages (``fusion.NAMED_BONUS``; a passage holding the question word for word still
leads). Measured on the 47 FinanceBench dev questions over the shared corpus index: evidence
page in the top 10 0.447 -> 0.553; known-item search unchanged (first 1.000, page@5 0.973).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from app.core.index.manifest import Manifest
from app.core.text import STOPWORDS

MAX_NAMED = 3  # more files named than this: the name is a collection's ("Normans_1".."_40")
MAX_JOINED = 3  # words run together into one name part ("American Water Works")
_PART = re.compile(r"[A-Za-z0-9]+")
_NAME_YEAR = re.compile(r"(?:19|20)\d\d(?=$|[a-z])")  # "2018", "2023q2"
_YEAR = re.compile(r"\b(?:FY|Q\d'?)?((?:19|20)\d\d)\b", re.IGNORECASE)
# Changes when a file is added, removed or renamed (a rename to a path of the same length
# aside), at the cost of a scan of the paths' lengths.
_PATHS_SIGNATURE = (
    "SELECT count(*), coalesce(max(id), 0), coalesce(sum(length(path)), 0) FROM files"
)
_SHORT_FY = re.compile(r"\bFY'?(\d\d)\b", re.IGNORECASE)  # "FY20" for 2020


@dataclass(frozen=True)
class _Name:
    subject: str  # the name's first part, lower case
    years: frozenset[int]


def file_name(path: str) -> _Name | None:
    """What a file's name says of it, or None when its name is not a name ("notes-on-vim")."""
    parts = _PART.findall(PurePath(path).stem)
    if not parts:
        return None
    first = parts[0]
    subject = first.lower()
    if not (first[0].isupper() or first[0].isdigit()) or not any(c.isalpha() for c in first):
        return None
    if len(subject) < 2 or subject in STOPWORDS:
        return None
    years = {int(m.group()) for p in parts[1:] for m in [_NAME_YEAR.match(p.lower())] if m}
    return _Name(subject, frozenset(years))


def question_names(question: str) -> tuple[set[str], list[str], set[int]]:
    """The names a question writes (words run together, lower case), the acronyms a name may
    start with, and the years it gives."""
    words = _PART.findall(question)
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
        if not names:
            return []
        hits = [
            path
            for path, n in self._names.items()
            if n.subject in names or any(n.subject.startswith(a) for a in acronyms)
        ]
        if years and hits:
            latest = [p for p in hits if max(years) in self._names[p].years]
            anyyear = [p for p in hits if self._names[p].years & years]
            hits = latest or anyyear or hits
        return sorted(hits) if len(hits) <= MAX_NAMED else []
