"""One SQLite write transaction: BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Take the write lock now (not at the first write), commit at the end; any exception,
    Ctrl-C included, rolls back and is raised again.

    A COMMIT that fails (a full disk cannot take the write-ahead log's new frames) rolls back
    too, so the connection is left with the last committed index and no open transaction. The
    error raised is the write's own: SQLite may have rolled back by itself already (it does on
    SQLITE_FULL), and a ROLLBACK with nothing to undo must not hide why the write failed."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
