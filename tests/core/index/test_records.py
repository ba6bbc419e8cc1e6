"""Rows of the manifest as dataclasses, and the chunk id: the same content at the same path
always gets the same id (so a rescan re-adds nothing), anything else another."""

from __future__ import annotations

import os

from app.core.index.records import FileRecord, make_chunk_id
from app.core.ingest.failures import FailureKind


def test_a_chunk_id_is_deterministic_and_depends_on_every_part() -> None:
    base = make_chunk_id("/d/a.pdf", 3, 120, "hash")
    assert base == make_chunk_id("/d/a.pdf", 3, 120, "hash")
    others = {
        make_chunk_id("/d/b.pdf", 3, 120, "hash"),
        make_chunk_id("/d/a.pdf", 4, 120, "hash"),
        make_chunk_id("/d/a.pdf", None, 120, "hash"),
        make_chunk_id("/d/a.pdf", 3, 121, "hash"),
        make_chunk_id("/d/a.pdf", 3, 120, "other"),
    }
    assert base not in others and len(others) == 5
    assert len(base) == 24 and int(base, 16) >= 0


def test_a_path_that_is_not_utf8_has_an_id() -> None:
    name = os.fsdecode(b"/d/caf\xe9.txt")
    assert make_chunk_id(name, None, 0, "h") != make_chunk_id("/d/caf\ufffd.txt", None, 0, "h")


def test_a_row_reads_its_failure_kind_and_a_newer_versions_kind_as_unknown() -> None:
    row = ("/d/a.pdf", 10, 20, "h", "failed", "too big", "pdf", 0, 0, "too_large", "100", 3)
    record = FileRecord.from_row(row)
    assert record.error_kind is FailureKind.TOO_LARGE and record.error_limit == "100"
    assert record.format == 3
    newer = FileRecord.from_row((*row[:9], "melted_by_the_sun", None, "1"))
    assert newer.error_kind is FailureKind.UNKNOWN and newer.format == 1
    indexed = FileRecord.from_row((*row[:4], "indexed", None, "pdf", 2, 5, None, None, 1))
    assert indexed.error_kind is None and (indexed.pages, indexed.chunks) == (2, 5)
