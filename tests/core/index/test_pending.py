"""The list of texts waiting for their vector, read from files old and busy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.core.index import pending


def test_an_index_from_before_the_list_reads_as_nothing_waiting(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.sqlite3")
    conn.execute("CREATE TABLE chunks (text_hash TEXT)")
    assert pending.count(conn) == 0
    assert pending.listed(conn) == set()
    assert pending.take(conn, 10) == []
    assert pending.chunks_waiting(conn) == 0


def test_a_locked_index_is_an_error_not_an_empty_list(tmp_path: Path) -> None:
    """A status that read a busy file as "nothing waiting" would say dense search is complete
    while it is not."""
    path = tmp_path / "manifest.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.executescript(pending.SCHEMA)
    pending.add(writer, ["a", "b"])
    writer.execute("BEGIN EXCLUSIVE")
    reader = sqlite3.connect(path, timeout=0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        pending.count(reader)
    writer.execute("COMMIT")
    assert pending.count(reader) == 2 and pending.listed(reader) == {"a", "b"}
