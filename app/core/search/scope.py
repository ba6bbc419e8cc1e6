"""What a question may search: folders or files, file types, and a period of modification.

A ``Scope`` is applied inside retrieval, not to its results: the dense search ranks only the
vectors of chunks in scope and the full-text search only their rows, so a scoped question gets
its k hits from within the scope. It reads the manifest's ``files`` table (path, mtime_ns),
where paths are the file name's own bytes in a TEXT column (see ``app.core.index.manifest``).
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

# The manifest's rule for binding a path (its bytes, cast to TEXT): one rule, kept there.
from app.core.index.manifest import PATH_SQL, path_bytes
from app.core.ingest.loaders import SUPPORTED_SUFFIXES
from app.core.ingest.scanning import normalize

if TYPE_CHECKING:
    from app.core.index.manifest import Manifest

# Spellings of one format: ``--type md`` also finds ``notes.markdown``.
_ALIASES = (
    ("md", "markdown", "mdown", "mkd"),
    ("html", "htm", "xhtml"),
    ("txt", "text"),
    ("yaml", "yml"),
    ("adoc", "asciidoc"),
    ("jpg", "jpeg"),
    ("tif", "tiff"),
)
_GROUP = {ext: group for group in _ALIASES for ext in group}
KNOWN_TYPES: frozenset[str] = frozenset(s.lstrip(".") for s in SUPPORTED_SUFFIXES)
_NS = 1_000_000_000
_INT64 = 2**63


def parse_type(text: str) -> str:
    """A file type as given (``pdf``, ``.PDF``, ``markdown``) -> its name (``pdf``, ``md``).

    Raises ValueError naming the type when Footnotes does not index such files.
    """
    ext = text.strip().lstrip(".").lower()
    if ext not in KNOWN_TYPES:
        examples = "pdf, md, txt, html, epub, docx, py"
        raise ValueError(f"unknown file type {text!r} (types are extensions: {examples}, …)")
    return _GROUP.get(ext, (ext,))[0]


def parse_date(text: str) -> date:
    """An ISO date (``2024-01-31``); raises ValueError saying what is expected."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"invalid date {text!r} (use YYYY-MM-DD, e.g. 2024-01-31)") from None


def _midnight_ns(day: date) -> int:
    """The first nanosecond of ``day`` in local time (a file's mtime is an instant), held to
    what SQLite's 64-bit integers can compare (years before 1678 or after 2261 are clamped)."""
    try:
        seconds = int(datetime(day.year, day.month, day.day).timestamp())
    except (OverflowError, OSError, ValueError):  # a year the platform's clock cannot name
        seconds = (day - date(1970, 1, 1)).days * 86_400
    return max(-_INT64, min(_INT64 - 1, seconds * _NS))


@dataclass(frozen=True)
class ScopeMembers:
    """What of the index lies in a scope: its files, and its share of all chunk rows."""

    scope: Scope
    paths: frozenset[str]
    chunks: int
    share: float  # chunks / every chunk row in the index (0 when the index is empty)


@dataclass(frozen=True)
class Scope:
    """Files a search may return: under any of ``paths`` (files or folders, normalised), of
    any of ``types`` (extension names), modified from ``since`` to ``until`` (inclusive days).
    Every part left empty means no limit; the empty scope is everything."""

    paths: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None

    @classmethod
    def of(
        cls,
        paths: Iterable[str | os.PathLike[str]] = (),
        types: Iterable[str] = (),
        since: date | None = None,
        until: date | None = None,
    ) -> Scope:
        """A scope from what a person gave: paths normalised, types checked, dates in order."""
        if since is not None and until is not None and since > until:
            raise ValueError(f"the period starts ({since}) after it ends ({until})")
        return cls(
            tuple(dict.fromkeys(normalize(p) for p in paths)),
            tuple(dict.fromkeys(parse_type(t) for t in types)),
            since,
            until,
        )

    @property
    def everything(self) -> bool:
        """True when nothing is limited."""
        return not (self.paths or self.types or self.since or self.until)

    # -- SQL over the manifest ---------------------------------------------------------------
    def files_where(self, alias: str = "f") -> tuple[str, list[Any]]:
        """An SQL condition on the ``files`` row ``alias``, and its parameters.

        A path matches itself and everything below it; paths compare as bytes (a range on the
        path index, case-sensitive, no LIKE wildcards). Types compare the name's ending.
        """
        clauses: list[str] = []
        params: list[Any] = []
        if self.paths:
            col = f"{alias}.path"
            ors = []
            for path in self.paths:
                base = path.rstrip("/")
                # the path itself, or a name below it: those sort between base/ and base0
                ors.append(f"({col} = {PATH_SQL} OR ({col} > {PATH_SQL} AND {col} < {PATH_SQL}))")
                params += [path_bytes(path), path_bytes(base + "/"), path_bytes(base + "0")]
            clauses.append("(" + " OR ".join(ors) + ")")
        if self.types:
            suffixes = [s for t in self.types for s in _GROUP.get(t, (t,))]
            clauses.append("(" + " OR ".join(f"{alias}.path LIKE ?" for _ in suffixes) + ")")
            params += [f"%.{s}" for s in suffixes]  # LIKE ignores ASCII case: .PDF is a pdf
        if self.since is not None:
            clauses.append(f"{alias}.mtime_ns >= ?")
            params.append(_midnight_ns(self.since))
        if self.until is not None:
            clauses.append(f"{alias}.mtime_ns < ?")
            last = self.until == date.max
            params.append(_INT64 - 1 if last else _midnight_ns(self.until + timedelta(days=1)))
        return (" AND ".join(clauses) or "1"), params

    def members(self, conn: sqlite3.Connection) -> ScopeMembers:
        """The files in this scope and how many chunk rows they hold (files table only)."""
        where, params = self.files_where("f")
        rows = conn.execute(f"SELECT f.path, f.chunks FROM files f WHERE {where}", params)
        paths, chunks = set(), 0
        for path, count in rows:
            paths.add(path)
            chunks += count
        total = conn.execute("SELECT COALESCE(SUM(chunks), 0) FROM files").fetchone()[0]
        return ScopeMembers(self, frozenset(paths), chunks, chunks / total if total else 0.0)

    def hashes(self, conn: sqlite3.Connection) -> set[str]:
        """The text hashes (vector ids) of every chunk in this scope: one row read per chunk."""
        where, params = self.files_where("f")
        rows = conn.execute(
            f"SELECT c.text_hash FROM chunks c JOIN files f ON f.id = c.file_id WHERE {where}",
            params,
        )
        return {r[0] for r in rows}

    # -- words -------------------------------------------------------------------------------
    def period(self) -> str:
        """The period as a short phrase (``since 2024-01-01``), or "" for any time."""
        if self.since and self.until:
            return str(self.since) if self.since == self.until else f"{self.since} – {self.until}"
        if self.since:
            return f"since {self.since}"
        if self.until:
            return f"until {self.until}"
        return ""

    def summary(self) -> str:
        """A one-line label: ``In: Notes · pdf, md · since 2024-01-01`` ("" for everything)."""
        parts = []
        if self.paths:
            parts.append("In: " + ", ".join(os.path.basename(p) or p for p in self.paths))
        if self.types:
            parts.append(", ".join(self.types))
        if self.period():
            parts.append(self.period())
        return " · ".join(parts)

    def nothing_reason(self) -> str:
        """Why a search in this scope found nothing: no indexed file matches it."""
        said = []
        if self.paths:
            said.append("is in " + _either(self.paths))
        if self.types:
            said.append("is a " + _either(self.types) + " file")
        if self.since and self.until:
            said.append(f"was modified between {self.since} and {self.until}")
        elif self.since:
            said.append(f"was modified on or after {self.since}")
        elif self.until:
            said.append(f"was modified on or before {self.until}")
        return f"Nothing in this scope: no indexed file {_all_of(said)}."

    def to_json(self) -> dict[str, Any]:
        """The scope as ``search --json`` reports it (the command line's names)."""
        return {
            "in": list(self.paths),
            "type": list(self.types),
            "since": None if self.since is None else self.since.isoformat(),
            "until": None if self.until is None else self.until.isoformat(),
        }


def _either(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _all_of(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# -- what a scope can be chosen from ----------------------------------------------------------
@dataclass(frozen=True)
class ScopeChoices:
    """The watched folders and the file types in the index, most common type first."""

    folders: tuple[str, ...] = ()
    types: tuple[str, ...] = ()


def choices(manifest: Manifest) -> ScopeChoices:
    """What a scope control offers: the watched folders and the types of the indexed files."""
    counts: Counter[str] = Counter()
    for (path,) in manifest.conn.execute("SELECT path FROM files WHERE status = 'indexed'"):
        ext = os.path.splitext(path)[1].lstrip(".").lower()
        if ext in KNOWN_TYPES:
            counts[_GROUP.get(ext, (ext,))[0]] += 1
    types = tuple(t for t, _ in sorted(counts.items(), key=lambda tc: (-tc[1], tc[0])))
    return ScopeChoices(tuple(manifest.folders()), types)
