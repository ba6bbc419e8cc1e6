"""Files skipped on purpose, kept in the manifest's ``skipped`` table (real SQLite): stored
with their stat so an unchanged one is not read again, moved with a rename, and counted by
reason and type for ``status`` and the window."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.index import skipped
from app.core.index.skipped import SkippedFile, headline, summary, tally


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(tmp_path / "manifest.sqlite3", isolation_level=None)
    c.text_factory = lambda b: b.decode("utf-8", "surrogateescape")  # the manifest's rule
    c.executescript(skipped.SCHEMA)
    yield c
    c.close()


def skip(path: str, reason: str = "binary", kind: str = ".so") -> SkippedFile:
    return SkippedFile(path, 10, 20, reason, kind)


def test_skipped_files_are_found_at_or_below_a_folder_only(conn: sqlite3.Connection) -> None:
    skipped.put(conn, [skip("/d/a.so"), skip("/d/sub/b.so"), skip("/d-old/c.so"), skip("/e.so")])
    assert set(skipped.under(conn, "/d")) == {"/d/a.so", "/d/sub/b.so"}  # not /d-old
    assert set(skipped.under(conn, "/d/")) == {"/d/a.so", "/d/sub/b.so"}
    assert skipped.under(conn, "/d/a.so") == {"/d/a.so": skip("/d/a.so")}


def test_a_name_that_is_not_utf8_is_stored_and_read_back_the_same(
    conn: sqlite3.Connection,
) -> None:
    name = os.fsdecode(b"/d/caf\xe9.bin")
    skipped.put(conn, [skip(name)])
    assert list(skipped.under(conn, "/d")) == [name]


def test_rows_are_replaced_dropped_and_dropped_below_a_folder(conn: sqlite3.Connection) -> None:
    skipped.put(conn, [skip("/d/a.so"), skip("/d/sub/b.so"), skip("/d/sub/c.so")])
    skipped.put(conn, [SkippedFile("/d/a.so", 99, 99, "format", ".so")])  # changed since
    assert skipped.under(conn, "/d/a.so")["/d/a.so"].size == 99
    skipped.drop(conn, ["/d/a.so"])
    skipped.drop_under(conn, "/d/sub")
    assert skipped.under(conn, "/") == {}


def test_a_rename_moves_the_rows_below_it_and_replaces_what_was_there(
    conn: sqlite3.Connection,
) -> None:
    skipped.put(conn, [skip("/d/old/a.so"), skip("/d/old/x/b.so"), skip("/d/new/a.so", "format")])
    skipped.move(conn, "/d/old", "/d/new")
    rows = skipped.under(conn, "/d")
    assert set(rows) == {"/d/new/a.so", "/d/new/x/b.so"}
    assert rows["/d/new/a.so"].reason == "binary"  # the moved row, not the one it replaced


def test_the_summary_counts_by_reason_then_type_most_first(conn: sqlite3.Connection) -> None:
    skipped.put(
        conn,
        [skip(f"/w/{i}.so") for i in range(4)]
        + [skip("/w/a.mo", kind=".mo"), skip("/w/x.zip", "format", ".zip")]
        + [skip("/elsewhere/z.so")],
    )
    groups = summary(conn, ["/w"])
    assert [(g["reason"], g["count"]) for g in groups] == [("binary", 5), ("format", 1)]
    assert groups[0]["types"] == {".so": 4, ".mo": 1}
    assert len(groups[0]["examples"]) == skipped.EXAMPLES
    assert sum(g["count"] for g in summary(conn)) == 7  # every row, without folders
    assert summary(conn, ["/w", "/w"]) == groups  # overlapping folders count a row once


def test_an_index_from_before_the_table_has_nothing_skipped(tmp_path: Path) -> None:
    old = sqlite3.connect(tmp_path / "old.sqlite3")
    assert skipped.under(old, "/d") == {} and summary(old) == []
    old.close()


def test_the_headline_says_the_total_then_each_reason_with_its_commonest_types() -> None:
    groups = tally(
        [(f"/d/{i}.so", "binary", ".so") for i in range(20)]
        + [(f"/d/{i}.mo", "binary", ".mo") for i in range(10)]
        + [("/d/a.zip", "format", ".zip")]
    )
    assert headline(groups) == (
        "31 skipped: 30 unknown binary (.so 20, .mo 10), "
        "1 file in a format Footnotes does not read (.zip 1)"
    )
    many = tally([(f"/d/x{t}", "binary", t) for t in (".a", ".b", ".c", ".d")])
    assert headline(many).endswith("(.a 1, .b 1, .c 1, …)")
    assert headline([]) == ""
