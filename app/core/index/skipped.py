"""Files skipped on purpose: the manifest's list of them, and their counts by reason and type.

A skipped file (binary data, a format with no reader, an ignored name) has no row in
``files``: it is neither indexed nor failed. Its row here keeps its size and mtime, so an
unchanged file is not read again to learn it is still binary, and lets ``status`` and the
window say what is left out (``SkippedGroup``: reason, count, examples, types).
"""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from app.core.ingest.skips import label

SCHEMA = """
CREATE TABLE IF NOT EXISTS skipped (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    reason TEXT NOT NULL,
    type TEXT NOT NULL
);
"""
EXAMPLES = 3  # paths shown for each reason


class SkippedGroup(TypedDict):
    """The files skipped for one reason: how many, a few of their paths, their types."""

    reason: str
    label: str  # the reason in words, counted: "30 unknown binary files"
    count: int
    examples: list[str]  # the first ``EXAMPLES`` paths
    types: dict[str, int]  # file type: count, most first


_PATH = "CAST(? AS TEXT)"  # the manifest's rule: a path bound as its file name's bytes
_db = os.fsencode


@dataclass(frozen=True)
class SkippedFile:
    """One file not read on purpose: its stat (to notice a change), reason and type."""

    path: str
    size: int
    mtime_ns: int
    reason: str
    type: str


def _below(folder: str) -> tuple[str, tuple[bytes, bytes, bytes]]:
    base = folder.rstrip("/")
    where = f"(path = {_PATH} OR (path > {_PATH} AND path < {_PATH}))"
    return where, (_db(folder), _db(base + "/"), _db(base + "0"))


def under(conn: sqlite3.Connection, folder: str) -> dict[str, SkippedFile]:
    """The skipped files at or below ``folder`` (a file's own path gives at most itself)."""
    where, params = _below(folder)
    sql = f"SELECT path, size, mtime_ns, reason, type FROM skipped WHERE {where}"
    rows = _read(conn, sql, params)
    return {r[0]: SkippedFile(*r) for r in rows}


def put(c: sqlite3.Connection, files: Iterable[SkippedFile]) -> None:
    """Record skipped files inside the caller's transaction (replacing what was there)."""
    c.executemany(
        f"INSERT OR REPLACE INTO skipped(path, size, mtime_ns, reason, type) "
        f"VALUES ({_PATH}, ?, ?, ?, ?)",
        [(_db(f.path), f.size, f.mtime_ns, f.reason, f.type) for f in files],
    )


def drop(c: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Forget these paths' skipped rows inside the caller's transaction."""
    c.executemany(f"DELETE FROM skipped WHERE path = {_PATH}", [(_db(p),) for p in paths])


def drop_under(c: sqlite3.Connection, folder: str) -> None:
    """Forget every skipped row at or below ``folder`` inside the caller's transaction."""
    where, params = _below(folder)
    c.execute(f"DELETE FROM skipped WHERE {where}", params)


def move(c: sqlite3.Connection, old: str, new: str) -> None:
    """Re-point the skipped rows at or below ``old`` at ``new`` (a rename or move)."""
    where, params = _below(old)
    for (path,) in c.execute(f"SELECT path FROM skipped WHERE {where}", params).fetchall():
        target = new + path[len(old) :]
        c.execute(f"DELETE FROM skipped WHERE path = {_PATH}", (_db(target),))
        c.execute(
            f"UPDATE skipped SET path = {_PATH} WHERE path = {_PATH}", (_db(target), _db(path))
        )


def summary(conn: sqlite3.Connection, folders: Sequence[str] | None = None) -> list[SkippedGroup]:
    """Skipped files by reason, most first: ``{reason, label, count, examples, types}``.

    ``folders`` limits it to files at or below them (the watched folders); None: all rows.
    """
    if folders is None:
        rows = _read(conn, "SELECT path, reason, type FROM skipped ORDER BY path")
    else:
        rows = []
        for folder in folders:
            where, params = _below(folder)
            sql = f"SELECT path, reason, type FROM skipped WHERE {where} ORDER BY path"
            rows += _read(conn, sql, params)
    return tally((r[0], r[1], r[2]) for r in dict.fromkeys(rows))


def tally(files: Iterable[tuple[str, str, str]]) -> list[SkippedGroup]:
    """(path, reason, type) triples counted by reason, then type, most first."""
    examples: dict[str, list[str]] = {}
    types: dict[str, Counter[str]] = {}
    for path, reason, kind in files:
        shown = examples.setdefault(reason, [])
        if len(shown) < EXAMPLES:
            shown.append(path)
        types.setdefault(reason, Counter())[kind] += 1
    groups = [
        SkippedGroup(
            reason=reason,
            label=label(reason, counts.total()),
            count=counts.total(),
            examples=examples[reason],
            types=dict(sorted(counts.items(), key=lambda t: (-t[1], t[0]))),
        )
        for reason, counts in types.items()
    ]
    return sorted(groups, key=lambda g: (-g["count"], g["reason"]))


def headline(groups: Sequence[SkippedGroup], types: int = 3) -> str:
    """ "42 skipped: 30 unknown binary (.so 20, .mo 10), 12 ..." ('' when nothing was)."""
    total = sum(g["count"] for g in groups)
    if not total:
        return ""
    parts = []
    for group in groups:
        shown = list(group["types"].items())[:types]
        more = ", …" if len(group["types"]) > types else ""
        kinds = ", ".join(f"{t} {n:,}" for t, n in shown)
        parts.append(f"{group['label']} ({kinds}{more})")
    return f"{total:,} skipped: " + ", ".join(parts)


def _read(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> list[tuple]:
    """The rows of a read; none from an older file that has no table yet (not migrated)."""
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
