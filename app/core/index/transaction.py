"""One SQLite write transaction: BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Take the write lock now (not at the first write), commit at the end; any exception,
    Ctrl-C included, rolls back and is raised again."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
