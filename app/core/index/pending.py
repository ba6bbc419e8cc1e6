"""Passages that are searchable by their words but whose vector is still to be computed.

A sync writes each file's passages (and their full-text rows) as soon as the file is read, and
records here every text hash no stored vector covers yet; the embedding stage drains this list
behind it. So a file is found by BM25 seconds after it is read, dense search fills in as its
vectors arrive, and a sync killed between the two stages leaves a list the next one finishes.

Invariant: a hash that some chunk references has a vector in the store, or is listed here
(or the store lost it, which ``Indexer.repair`` finds by comparing the two).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from app.core.index.transaction import transaction

SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors_pending (text_hash TEXT PRIMARY KEY);
"""


def mark(
    c: sqlite3.Connection, file_id: int, hashes: Iterable[str], dropped: Iterable[str]
) -> list[str]:
    """Inside a file's write: list those of its new ``hashes`` that no vector can cover yet.

    A hash the file itself had before (``dropped``) or another file's chunk still uses already
    has its vector, or is listed from then; only texts new to the index are listed.
    """
    before = set(dropped)
    fresh = [
        h
        for h in set(hashes) - before
        if c.execute(
            "SELECT 1 FROM chunks WHERE text_hash = ? AND file_id != ? LIMIT 1", (h, file_id)
        ).fetchone()
        is None
    ]
    c.executemany(
        "INSERT OR IGNORE INTO vectors_pending(text_hash) VALUES (?)", [(h,) for h in fresh]
    )
    return fresh


def add(conn: sqlite3.Connection, hashes: Iterable[str]) -> None:
    """List texts found without a vector outside a file's write (a store lost or emptied)."""
    with transaction(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO vectors_pending(text_hash) VALUES (?)", [(h,) for h in hashes]
        )


def take(conn: sqlite3.Connection, n: int) -> list[str]:
    """Up to ``n`` listed hashes, oldest listing first (the order files were read in)."""
    sql = "SELECT text_hash FROM vectors_pending ORDER BY rowid LIMIT ?"
    return [r[0] for r in _read(conn, sql, (n,))]


def clear(conn: sqlite3.Connection, hashes: Sequence[str]) -> None:
    """These hashes have their vectors now (or no chunk uses them any more)."""
    with transaction(conn):
        conn.executemany("DELETE FROM vectors_pending WHERE text_hash = ?", [(h,) for h in hashes])


def count(conn: sqlite3.Connection) -> int:
    """How many texts wait for their vector."""
    rows = _read(conn, "SELECT COUNT(*) FROM vectors_pending")
    return int(rows[0][0]) if rows else 0


def among(conn: sqlite3.Connection, hashes: Sequence[str]) -> set[str]:
    """Which of ``hashes`` still wait for their vector."""
    out: set[str] = set()
    for start in range(0, len(hashes), 500):
        part = list(hashes[start : start + 500])
        marks = ",".join("?" * len(part))
        sql = f"SELECT text_hash FROM vectors_pending WHERE text_hash IN ({marks})"
        out.update(r[0] for r in _read(conn, sql, part))
    return out


def listed(conn: sqlite3.Connection) -> set[str]:
    """Every listed hash."""
    return {r[0] for r in _read(conn, "SELECT text_hash FROM vectors_pending")}


def chunks_waiting(conn: sqlite3.Connection) -> int:
    """Passages (chunk rows) whose text has no vector yet: what dense search cannot see."""
    sql = "SELECT COUNT(*) FROM chunks WHERE text_hash IN (SELECT text_hash FROM vectors_pending)"
    rows = _read(conn, sql)
    return int(rows[0][0]) if rows else 0


def _read(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> list[tuple]:
    """The rows of a read; none from an older file that has no list yet (no writer has
    migrated it). Any other error (a locked or damaged file) is raised, not read as empty."""
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
