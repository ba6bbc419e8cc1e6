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
    try:
        sql = "SELECT text_hash FROM vectors_pending ORDER BY rowid LIMIT ?"
        return [r[0] for r in conn.execute(sql, (n,))]
    except sqlite3.OperationalError:  # an older file no writer has migrated yet
        return []


def clear(conn: sqlite3.Connection, hashes: Sequence[str]) -> None:
    """These hashes have their vectors now (or no chunk uses them any more)."""
    with transaction(conn):
        conn.executemany("DELETE FROM vectors_pending WHERE text_hash = ?", [(h,) for h in hashes])


def count(conn: sqlite3.Connection) -> int:
    """How many texts wait for their vector (0 for an index older than the list)."""
    try:
        return int(conn.execute("SELECT COUNT(*) FROM vectors_pending").fetchone()[0])
    except sqlite3.OperationalError:  # an older file no writer has migrated yet
        return 0


def listed(conn: sqlite3.Connection) -> set[str]:
    """Every listed hash."""
    try:
        return {r[0] for r in conn.execute("SELECT text_hash FROM vectors_pending")}
    except sqlite3.OperationalError:
        return set()


def chunks_waiting(conn: sqlite3.Connection) -> int:
    """Passages (chunk rows) whose text has no vector yet: what dense search cannot see."""
    try:
        sql = (
            "SELECT COUNT(*) FROM chunks WHERE text_hash IN (SELECT text_hash FROM vectors_pending)"
        )
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:
        return 0
